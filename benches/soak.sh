#!/usr/bin/env bash
# Reliability under load: runs integration test files RUNS times in a row
# (default 50) while three busy loops keep the machine's cores occupied, and
# counts for each file how many runs passed, failed and hung.
#
#   benches/soak.sh [RUNS] [TEST ...]
#
# TEST defaults to the files that caught the hang class of mixed protocols
# (issue 38 point 6): routed_input routed_state routed_reads bidi
# engines_network. Each test binary is built once (debug, as `cargo test`
# builds it), then run directly; a run longer than LIMIT seconds (default
# 600) is killed and counted as hung, and its output kept in the work folder,
# whose path is printed. The busy loops end with the script (trap), and the
# script ends by DEADLINE seconds (default 5 h) whatever happens. FILTER, when
# set, is passed to each test binary (libtest's name filter: `FILTER=firefox`
# runs only the tests whose names contain `firefox`).
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
trap stop EXIT INT TERM

declare -A bin
for t in "${tests[@]}"; do
  bin[$t]=$(cd "$root" && cargo test --no-run --test "$t" --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == sys.argv[1] and m.get("executable"):
        print(m["executable"])
' "$t")
  [ -n "${bin[$t]}" ] || { echo "soak: no test binary for $t (cargo test --no-run --test $t)" >&2; exit 2; }
done

for _ in 1 2 3; do
  sh -c 'while :; do :; done' &
  busy+=($!)
done
echo "three busy loops: ${busy[*]}; load: $(cut -d' ' -f1-3 /proc/loadavg); work folder: $work"

for t in "${tests[@]}"; do
  passed=0 failed=0 hung=0
  for i in $(seq 1 "$runs"); do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "soak: DEADLINE reached; stopping" >&2
      break 2
    fi
    log="$work/$t-$i.log"
    set +e
    (cd "$root" && timeout -k 10 "$limit" "${bin[$t]}" ${FILTER:+"$FILTER"} >"$log" 2>&1)
    code=$?
    set -e
    case $code in
      0) passed=$((passed + 1)); rm -f "$log" ;;
      124 | 137) hung=$((hung + 1)); echo "  $t run $i: HUNG (killed after $limit s): $log" ;;
      *) failed=$((failed + 1)); echo "  $t run $i: failed (exit $code): $log" ;;
    esac
  done
  echo "$t${FILTER:+ ($FILTER)}: $passed passed, $failed failed, $hung hung (of $runs, beside three busy loops)"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
