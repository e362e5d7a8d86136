#!/usr/bin/env bash
# Reliability under load: runs modules of the `in_process` test binary
# (tests/in_process/) RUNS times in a row (default 50) while three busy loops
# keep the machine's cores occupied, and counts for each module how many runs
# passed, failed and hung.
#
#   benches/soak.sh [RUNS] [MODULE ...]
#
# MODULE defaults to the modules that caught the hang class of mixed
# protocols (issue 38 point 6): routed_input routed_state routed_reads bidi
# engines_network. Each run is one process of the binary (built once, debug,
# as the tests build it) given the filter `MODULE::`: the module's scenario
# runs, on every browser it covers, and the one test that checks their facts
# (`support::facts`). A run longer than LIMIT seconds (default 600) is killed
# and counted as hung, and its output kept in the work folder, whose path is
# printed; so is a failed run's. The busy loops end with the script (trap),
# and the script ends by DEADLINE seconds (default 5 h) whatever happens.
# ROTATE=1 runs the modules in turn (run 1 of each, then run 2 of each ...)
# instead of each module's runs in a row. SOAK_BIN names the test binary to
# run instead of building one: a copy of it, which the checkout's rebuilds
# cannot replace while the soak runs. BUSY sets how many busy loops the
# script starts (default 3): BUSY=0 for a second soak run beside a first one,
# whose loops then keep the machine busy for both (each module's runs are
# still in a row, beside three busy loops and the other soak's runs).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
runs=${1:-50}
shift || true
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(routed_input routed_state routed_reads bidi engines_network)
limit=${LIMIT:-600}
deadline=$(($(date +%s) + ${DEADLINE:-18000}))
work=$(mktemp -d /tmp/hj-soak.XXXXXX)
busy=()
stop() {
  for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap stop EXIT
trap 'exit 143' INT TERM

. "$root/benches/bench-bin.sh"
bin=${SOAK_BIN:-$(test_bin "$root" in_process)}
[ -n "$bin" ] || { echo "soak: no test binary (cargo test --no-run --test in_process)" >&2; exit 2; }

nbusy=${BUSY:-3}
for _ in $(seq 1 "$nbusy"); do
  sh -c 'while :; do :; done' &
  busy+=($!)
done
echo "$nbusy busy loops: ${busy[*]}; load: $(cut -d' ' -f1-3 /proc/loadavg); work folder: $work"

declare -A passed failed hung
for t in "${tests[@]}"; do passed[$t]=0 failed[$t]=0 hung[$t]=0; done
one() { # module run
  local t=$1 i=$2 log="$work/$1-$2.log" code
  set +e
  (cd "$root" && timeout -k 10 "$limit" "$bin" "$t::" >"$log" 2>&1)
  code=$?
  set -e
  case $code in
    0) passed[$t]=$((passed[$t] + 1)); rm -f "$log" ;;
    124 | 137) hung[$t]=$((hung[$t] + 1)); echo "  $t run $i: HUNG (killed after $limit s): $log" ;;
    *) failed[$t]=$((failed[$t] + 1)); echo "  $t run $i: failed (exit $code): $log" ;;
  esac
}
if [ -n "${ROTATE:-}" ]; then
  order=()
  for i in $(seq 1 "$runs"); do for t in "${tests[@]}"; do order+=("$t:$i"); done; done
else
  order=()
  for t in "${tests[@]}"; do for i in $(seq 1 "$runs"); do order+=("$t:$i"); done; done
fi
for o in "${order[@]}"; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "soak: DEADLINE reached; stopping" >&2
    break
  fi
  one "${o%%:*}" "${o##*:}"
done
for t in "${tests[@]}"; do
  echo "$t: ${passed[$t]} passed, ${failed[$t]} failed, ${hung[$t]} hung (of $runs, beside $nbusy busy loops of this soak)"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
