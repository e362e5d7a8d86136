#!/usr/bin/env bash
# What the trace costs (issue 39 point 7, docs/design/trace.md §5 stage 0 and
# §6): the six-scenario evidence suite (benches/evidence_suite.rs, `--once`,
# full evidence over CDP) and the demo suite (`cargo test --test demo`'s
# binary run directly, every step passing), each under HARSHJUDGE_TRACE=off,
# retain-on-failure and on. Both are built once first (the bench PROFILE,
# default release; the demo as users run it, debug), so only the runs are
# timed. Then ROUNDS rounds (default 5) of the six (suite x mode) runs in a
# rotated order (round r starts at position r mod 6), each run with a fresh
# HARSHJUDGE_DIR on the same file system, its wall time taken around the whole
# process, the other work's CPU just before it printed.
#
# Prints per suite and mode the mean and the median wall time and per-step
# time, the ratios to `off` (goals: retain-on-failure <= 1.05, on <= 1.25), and
# for `on` the trace's bytes per step: apparent (every trace.json,
# trace-dom.json and trace-resources/ file as linked) and on disk (each inode
# once: what the blobs save). Before each run, the machine's busy CPU is
# sampled for a second (/proc/stat, steal included): a run begun while other
# work took more than MAX_OTHER cores (default 0.1) is marked `*`, and then
# the ratios are withheld (the figures are noise): MAX_OTHER=99 prints them
# anyway. (The load average, used before, counts the previous run's own load
# for a minute after it: every run of a round was marked. A run's own CPU
# cannot be told from others' by rusage: the browser's helpers, killed with
# it, are reaped by init.)
#
#   [PROFILE=dev] [MAX_OTHER=0.1] benches/trace_cost.sh [ROUNDS] [--dry-run]
#
# --dry-run: prints the planned runs in their order, builds and runs nothing.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
rounds=5 dry=0
for arg in "$@"; do
  case $arg in
    --dry-run) dry=1 ;;
    '' | *[!0-9]*) echo "usage: [PROFILE=dev] [MAX_OTHER=0.1] benches/trace_cost.sh [ROUNDS] [--dry-run] (not: $arg)" >&2; exit 2 ;;
    *) rounds=$arg ;;
  esac
done
[ "$rounds" -ge 1 ] || { echo "ROUNDS must be at least 1" >&2; exit 2; }
max_other=${MAX_OTHER:-0.1}
modes=(off retain-on-failure on)
suites=(evidence demo)
# The six runs of a round, in their base order.
runs=()
for suite in "${suites[@]}"; do for mode in "${modes[@]}"; do runs+=("$suite:$mode"); done; done
# `plan`: every run, one a line: ROUND SUITE MODE.
plan() {
  local r k run
  for r in $(seq 1 "$rounds"); do
    for k in 0 1 2 3 4 5; do
      run=${runs[$(((r + k) % 6))]}
      echo "$r ${run%%:*} ${run#*:}"
    done
  done
}
if [ "$dry" = 1 ]; then
  echo "planned: $rounds rounds of 6 runs (suite mode), each with a fresh HARSHJUDGE_DIR:"
  plan | awk '{printf "  round %s  %-8s %s\n", $1, $2, $3}'
  exit 0
fi

. "$root/benches/bench-bin.sh"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
PROFILE=${PROFILE:-release}
export PROFILE
echo "building evidence_suite ($PROFILE) and the demo suite (debug) …"
evidence=$(bench_bin "$root" evidence_suite)
[ -x "$evidence" ] || { echo "evidence_suite did not build" >&2; exit 1; }
demo=$(test_bin "$root" demo)
[ -x "$demo" ] || { echo "the demo suite did not build" >&2; exit 1; }
work=$(mktemp -d /tmp/hj-trace-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Copied out: a build meanwhile does not change what runs.
cp "$evidence" "$work/evidence_suite" && evidence=$work/evidence_suite
cp "$demo" "$work/demo" && demo=$work/demo
export HARSHJUDGE_CHROMIUM_PROTOCOL=cdp HARSHJUDGE_STEP_TIMEOUT=${HARSHJUDGE_STEP_TIMEOUT:-60s}
unset HARSHJUDGE_BASE_URL HARSHJUDGE_DEMO_FAIL HARSHJUDGE_VIDEO NEXTEST_RUN_ID NEXTEST

# The machine's busy CPU so far, in ms (user, nice, system, irq, softirq,
# steal; /proc/stat counts in hundredths of a second).
busy_ms() { awk '/^cpu /{print ($2 + $3 + $4 + $7 + $8 + $9) * 10; exit}' /proc/stat; }
# The other work's CPU now, in cores: the machine's busy CPU over a second.
other_cores() {
  local b0 b1
  b0=$(busy_ms); sleep 1; b1=$(busy_ms)
  awk -v b="$((b1 - b0))" 'BEGIN{printf "%.2f", b / 1000}'
}
# `run ROUND SUITE MODE`: one timed run; appends its ms to $work/SUITE-MODE.ms
# and its steps to $work/SUITE-MODE.steps.
run() {
  local r=$1 suite=$2 mode=$3 dir t0 t1 ms other mark=' '
  dir=$work/hj-$suite-$mode-$r
  other=$(other_cores)
  if awk -v o="$other" -v m="$max_other" 'BEGIN{exit !(o > m)}'; then mark='*'; echo "$suite $mode $r" >>"$work/loaded"; fi
  t0=$(date +%s%N)
  case $suite in
    evidence) (cd "$root" && CARGO_MANIFEST_DIR=$root HARSHJUDGE_DIR=$dir HARSHJUDGE_TRACE=$mode "$evidence" --once) ;;
    demo) (cd "$root" && CARGO_MANIFEST_DIR=$root HARSHJUDGE_DIR=$dir HARSHJUDGE_TRACE=$mode "$demo" -q) ;;
  esac >"$work/$suite-$mode-$r.log" 2>&1 || { echo "$suite ($mode, round $r) failed:"; tail -30 "$work/$suite-$mode-$r.log"; exit 1; }
  t1=$(date +%s%N)
  ms=$(((t1 - t0) / 1000000))
  echo "$ms" >>"$work/$suite-$mode.ms"
  steps=$(find "$dir" -mindepth 5 -maxdepth 5 -type d -path '*/runs/*/step-*' | wc -l)
  echo "$steps" >>"$work/$suite-$mode.steps"
  printf '  round %s  %-8s %-17s %7d ms  %3d steps  other work before it %s cores%s\n' "$r" "$suite" "$mode" "$ms" "$steps" "$other" "$mark"
  [ "$mode" = on ] && trace_bytes "$dir" >>"$work/$suite-on.bytes"
  # The last round's folders are kept for the bytes; the others go.
  [ "$r" = "$rounds" ] || rm -rf "$dir"
}
# `trace_bytes DIR`: the trace's files of a store: "apparent on_disk steps".
trace_bytes() {
  local files
  files=$(find "$1" -type f \( -path '*/step-*/evidence/trace*.json' -o -path '*/trace-resources/*' \) -printf '%i %s\n')
  local apparent disk steps
  apparent=$(printf '%s\n' "$files" | awk '{s+=$2} END {print s+0}')
  disk=$(printf '%s\n' "$files" | sort -u -k1,1 | awk '{s+=$2} END {print s+0}')
  steps=$(find "$1" -mindepth 5 -maxdepth 5 -type d -path '*/runs/*/step-*' | wc -l)
  echo "$apparent $disk $steps"
}

echo "uptime: $(uptime)"
echo "$rounds rounds x 6 runs (runs begun while other work took over $max_other cores marked *):"
while read -r r suite mode; do run "$r" "$suite" "$mode"; done < <(plan)
echo "uptime: $(uptime)"

echo
echo "wall time per run (mean / median) and per step, ratio to off (mean / median):"
for suite in "${suites[@]}"; do
  off_mean=$(mean "$work/$suite-off.ms") off_med=$(median "$work/$suite-off.ms")
  for mode in "${modes[@]}"; do
    f=$work/$suite-$mode.ms
    m=$(mean "$f") d=$(median "$f") steps=$(median "$work/$suite-$mode.steps")
    ratio=$(awk -v a="$m" -v b="$off_mean" -v c="$d" -v e="$off_med" 'BEGIN{printf "%.3f / %.3f", a/b, c/e}')
    [ -s "$work/loaded" ] && ratio="withheld (other work)"
    printf '  %-8s %-17s %8s / %8s ms   %6.1f ms/step (%s steps)   x %s\n' "$suite" "$mode" "$m" "$d" \
      "$(awk -v a="$d" -v s="$steps" 'BEGIN{printf "%.1f", (s ? a/s : 0)}')" "$steps" "$ratio"
  done
done
if [ -s "$work/loaded" ]; then
  echo "ratios withheld: other work took over $max_other cores as $(wc -l <"$work/loaded") of $((rounds * 6)) runs (MAX_OTHER=… to print them anyway)"
fi
echo
echo "HARSHJUDGE_TRACE=on, the trace's bytes per step (last round; apparent / on disk, each inode once):"
for suite in "${suites[@]}"; do
  read -r apparent disk steps < <(tail -n 1 "$work/$suite-on.bytes")
  awk -v s="$suite" -v a="$apparent" -v d="$disk" -v n="$steps" 'BEGIN{
    printf "  %-8s %10.0f / %10.0f bytes per step over %d steps (blobs save %s)\n", s, (n ? a/n : 0), (n ? d/n : 0), n,
      (a ? sprintf("%.1f %%", 100 * (a - d) / a) : "nothing: no trace files")}'
done
