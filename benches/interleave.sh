#!/usr/bin/env bash
# A bench of an old revision against this work tree, in ONE interleaved run:
# both binaries are built from the same bench source (this tree's
# benches/$BENCH.rs and benches/support/, copied into a `git worktree` of the
# old revision, with the bench's Cargo.toml entry when it lacks one), so only
# the library differs; then they run alternately (old, new, new, old, …), each
# `--once`. BENCH is browser_steps by default (a warm-up run, then a timed run
# of 5 scenarios x 20 steps with full evidence: the median step time), or goto
# (60 gotos: their median and mean).
#
#   [BENCH=goto] benches/interleave.sh OLD_REVISION [ROUNDS]     (default 5 rounds)
#
# Prints each run's line, and per side the median and the mean of the runs'
# medians (and of their means, where the bench prints them).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
old_rev=${1:?usage: [BENCH=goto] benches/interleave.sh OLD_REVISION [ROUNDS]}
bench=${BENCH:-browser_steps}
rounds=${2:-5}
. "$root/benches/bench-bin.sh"
work=$(mktemp -d /tmp/hj-interleave.XXXXXX)
trap 'git -C "$root" worktree remove --force "$work/old" 2>/dev/null || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$work/old" "$old_rev" >/dev/null
cp "$root/benches/$bench.rs" "$work/old/benches/$bench.rs"
mkdir -p "$work/old/benches/support"
cp "$root/benches/support/"*.rs "$work/old/benches/support/"
if ! grep -q "^name = \"$bench\"" "$work/old/Cargo.toml"; then
  printf '\n[[bench]]\nname = "%s"\nharness = false\n' "$bench" >>"$work/old/Cargo.toml"
fi
# One target folder: the registry dependencies are built once.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
# Built one after the other, each copied out at once (see `fresh`).
fresh "$work/old"
old_bin=$(bench_bin "$work/old" "$bench")
cp "$old_bin" "$work/old.bin"
fresh "$root"
new_bin=$(bench_bin "$root" "$bench")
cp "$new_bin" "$work/new.bin"
run() { # side dir
  CARGO_MANIFEST_DIR="$2" "$work/$1.bin" --once | tee -a "$work/$1.log" >"$work/last"
  sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' "$work/last" >>"$work/$1.medians"
  sed -n 's/.*mean_ms=\([0-9.]*\).*/\1/p' "$work/last" >>"$work/$1.means"
}
for i in $(seq 1 "$rounds"); do
  if [ $((i % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for side in $order; do
    if [ "$side" = old ]; then dir="$work/old"; else dir="$root"; fi
    printf 'round %s %s: ' "$i" "$side"
    run "$side" "$dir"
    tail -n 1 "$work/$side.log"
  done
done
mean() {
  awk '{s+=$1} END {if (NR) printf "%.2f\n", s/NR; else print "-"}' "$1"
}
echo "$bench: each side's runs ($rounds each): median and mean of the runs' medians; of their means"
for side in old new; do
  if [ "$side" = old ]; then label="old ($old_rev)"; else label="new (work tree)"; fi
  line="  $label: runs' medians: median $(median "$work/$side.medians") ms, mean $(mean "$work/$side.medians") ms"
  if [ -s "$work/$side.means" ]; then
    line="$line; runs' means: median $(median "$work/$side.means") ms, mean $(mean "$work/$side.means") ms"
  fi
  echo "$line"
done
