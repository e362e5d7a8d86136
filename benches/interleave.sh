#!/usr/bin/env bash
# Per-step time of the browser_steps bench, an old revision against this work
# tree, in ONE interleaved run: both binaries are built from the same bench
# source (this tree's benches/browser_steps.rs and benches/support/, copied into
# a `git worktree` of the old revision), so only the library differs; then they
# run alternately (old, new, new, old, …), each `--once` (a warm-up run, then a
# timed run of 5 scenarios x 20 steps with full evidence).
#
#   benches/interleave.sh OLD_REVISION [ROUNDS]     (default 5 rounds)
#
# Prints each run's median step time and the medians per side.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
old_rev=${1:?usage: benches/interleave.sh OLD_REVISION [ROUNDS]}
rounds=${2:-5}
. "$root/benches/bench-bin.sh"
work=$(mktemp -d /tmp/hj-interleave.XXXXXX)
trap 'git -C "$root" worktree remove --force "$work/old" 2>/dev/null || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$work/old" "$old_rev" >/dev/null
cp "$root/benches/browser_steps.rs" "$work/old/benches/browser_steps.rs"
mkdir -p "$work/old/benches/support"
cp "$root/benches/support/"*.rs "$work/old/benches/support/"
# One target folder: the registry dependencies are built once.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
# Built one after the other, each copied out at once (see `fresh`).
fresh "$work/old"
old_bin=$(bench_bin "$work/old" browser_steps)
cp "$old_bin" "$work/old.bin"
fresh "$root"
new_bin=$(bench_bin "$root" browser_steps)
cp "$new_bin" "$work/new.bin"
run() { # side dir
  CARGO_MANIFEST_DIR="$2" "$work/$1.bin" --once | tee -a "$work/$1.log" |
    sed -n 's/.*step_median_ms=\([0-9.]*\).*/\1/p' >>"$work/$1.steps"
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
echo "browser_steps, median step time with full evidence (median of $rounds runs each):"
echo "  old ($old_rev): $(median "$work/old.steps") ms"
echo "  new (work tree): $(median "$work/new.steps") ms"
