#!/usr/bin/env bash
# harshjudge against Playwright: the same 6 x 5-step suite with full evidence
# (benches/evidence_suite.rs, suite.spec.js here), the same demo app on
# 127.0.0.1, the same system Chromium, one worker each, three contenders:
# - harshjudge (its evidence: a screenshot per step boundary, console, network);
# - plain playwright-core with no test runner doing the same evidence work
#   (plain.js: the same screenshots per step, console and network);
# - Playwright Test with its full evidence (a trace and a screenshot per test).
# After one warm-up each they run ROUNDS times (default 5), interleaved (the
# order rotates every round), and the mean and median wall times of each are
# printed, with the ratios (the whole command: process start, browser start,
# the suite, evidence written).
#
#   benches/playwright/compare.sh [ROUNDS]
#
# Playwright Test is installed from npm into target/playwright (its browsers
# are NOT downloaded: PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1). All three run the
# same system Chromium, CHROMIUM: by default the headless shell when it is
# installed (what Playwright runs headless, and harshjudge too), else
# /usr/bin/chromium.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
rounds=${1:-5}
. "$root/benches/bench-bin.sh"
pw="$root/target/playwright"
if [ ! -x "$pw/node_modules/.bin/playwright" ]; then
  mkdir -p "$pw"
  [ -f "$pw/package.json" ] || echo '{"name":"hj-playwright-bench","private":true}' >"$pw/package.json"
  (cd "$pw" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund @playwright/test)
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
# Debian's shell binary itself (its /usr/bin script runs it without exec).
shell=/usr/lib/chromium/chromium-headless-shell
[ -x "$shell" ] || shell=$(command -v chromium-headless-shell || echo /usr/bin/chromium)
CHROMIUM=${CHROMIUM:-$shell}
export CHROMIUM HARSHJUDGE_CHROMIUM="$CHROMIUM"
echo "Chromium: $CHROMIUM"
hj=$(bench_bin "$root" evidence_suite)
(cd "$root" && cargo build -q -p demo-app)
work=$(mktemp -d /tmp/hj-compare.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$CARGO_TARGET_DIR/debug/demo-app" serve --port "$port" >"$work/app.log" 2>&1 &
app=$!
trap 'kill $app 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/api/health" >/dev/null && break; sleep 0.1; done
export BASE_URL="http://127.0.0.1:$port" HARSHJUDGE_BASE_URL="http://127.0.0.1:$port"
export NODE_PATH="$pw/node_modules" PW_OUTPUT_DIR="$work/pw-results" PLAIN_OUTPUT_DIR="$work/plain-results"
run_hj() { (cd "$root" && CARGO_MANIFEST_DIR="$root" HARSHJUDGE_DIR="$work/hj" "$hj" --once >"$work/hj.out" 2>&1); }
run_plain() { node "$root/benches/playwright/plain.js" >"$work/plain.out" 2>&1; }
run_pw() { "$pw/node_modules/.bin/playwright" test -c "$root/benches/playwright/playwright.config.js" >"$work/pw.out" 2>&1; }
# A run that fails is not timed: it is counted and its first error printed
# (the summary names how many failed).
timed() { # name command
  local t0 t1 failed=0
  t0=$(date +%s%N); $2 || failed=1; t1=$(date +%s%N)
  local ms=$(((t1 - t0) / 1000000))
  if [ "$failed" = 1 ]; then
    echo "$1" >>"$work/failed"
    local out=$work/$(case $1 in *hj | harshjudge) echo hj ;; *plain | plain) echo plain ;; *) echo pw ;; esac).out
    echo "  $1: FAILED after $ms ms: $(grep -m1 -iE 'fail|error|timeout' "$out" | cut -c1-200)"
    return
  fi
  echo "$ms" >>"$work/$1.ms"
  echo "  $1: $ms ms"
}
echo "warm-up"; timed warm_hj run_hj; timed warm_plain run_plain; timed warm_pw run_pw
grep -E 'passed|failed' "$work/pw.out" | tail -n 2
tail -n 1 "$work/plain.out"
order=(harshjudge plain playwright)
run_of() { case $1 in harshjudge) run_hj ;; plain) run_plain ;; playwright) run_pw ;; esac; }
for i in $(seq 1 "$rounds"); do
  echo "round $i"
  for k in 0 1 2; do
    name=${order[$(((i + k) % 3))]}
    timed "$name" "run_of $name"
  done
done
grep -E 'passed|failed' "$work/pw.out" | tail -n 2
tail -n 1 "$work/plain.out"
hj_mean=$(mean "$work/harshjudge.ms"); hj_med=$(median "$work/harshjudge.ms")
echo "6 scenarios x 5 steps, full evidence, $rounds interleaved runs each (mean / median wall time of the runs that passed):"
if [ -s "$work/failed" ]; then
  echo "  runs that failed (not timed): $(sort "$work/failed" | uniq -c | awk '{printf "%s%s %s", (NR>1?", ":""), $1, $2}')"
fi
for name in harshjudge plain playwright; do
  m=$(mean "$work/$name.ms"); d=$(median "$work/$name.ms")
  printf '  %-28s %8s ms / %8s ms   harshjudge is %s x (mean) / %s x (median)\n' \
    "$(case $name in harshjudge) echo harshjudge ;; plain) echo 'plain playwright-core:' ;; playwright) echo 'Playwright Test:' ;; esac)" "$m" "$d" \
    "$(awk -v a="$hj_mean" -v b="$m" 'BEGIN{printf "%.2f", a/b}')" "$(awk -v a="$hj_med" -v b="$d" 'BEGIN{printf "%.2f", a/b}')"
done
echo "evidence written by the last runs: harshjudge $(find "$work/hj" -type f | wc -l) files, $(du -sh "$work/hj" | cut -f1); plain $(find "$work/plain-results" -type f | wc -l) files, $(du -sh "$work/plain-results" | cut -f1); Playwright Test $(find "$work/pw-results" -type f | wc -l) files, $(du -sh "$work/pw-results" | cut -f1)"
