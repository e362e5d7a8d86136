#!/usr/bin/env bash
# harshjudge against Playwright Test: the same 6 x 5-step suite with full
# evidence (benches/evidence_suite.rs and suite.spec.js here), the same demo app
# on 127.0.0.1, the same system Chromium, one worker each; the two run
# alternately ROUNDS times (default 5) after one warm-up each, and the medians
# of their wall times are printed (the whole command: process start, browser
# start, the suite, evidence written).
#
#   benches/playwright/compare.sh [ROUNDS]
#
# Playwright Test is installed from npm into target/playwright (its browsers
# are NOT downloaded: PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1; it runs the system
# Chromium, CHROMIUM=/usr/bin/chromium by default).
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
hj=$(bench_bin "$root" evidence_suite)
(cd "$root" && cargo build -q -p demo-app)
work=$(mktemp -d /tmp/hj-compare.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$CARGO_TARGET_DIR/debug/demo-app" serve --port "$port" >"$work/app.log" 2>&1 &
app=$!
trap 'kill $app 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/api/health" >/dev/null && break; sleep 0.1; done
export BASE_URL="http://127.0.0.1:$port" HARSHJUDGE_BASE_URL="http://127.0.0.1:$port"
export NODE_PATH="$pw/node_modules" PW_OUTPUT_DIR="$work/pw-results"
run_hj() { (cd "$root" && CARGO_MANIFEST_DIR="$root" HARSHJUDGE_DIR="$work/hj" "$hj" --once >"$work/hj.out"); }
run_pw() { "$pw/node_modules/.bin/playwright" test -c "$root/benches/playwright/playwright.config.js" >"$work/pw.out" 2>&1 || { cat "$work/pw.out"; exit 1; }; }
timed() { # name command
  local t0 t1
  t0=$(date +%s%N); "$2"; t1=$(date +%s%N)
  local ms=$(((t1 - t0) / 1000000))
  echo "$ms" >>"$work/$1.ms"
  echo "  $1: $ms ms"
}
echo "warm-up"; timed warm_hj run_hj; timed warm_pw run_pw
grep -E 'passed|failed' "$work/pw.out" | tail -n 2
for i in $(seq 1 "$rounds"); do
  echo "round $i"
  if [ $((i % 2)) = 1 ]; then timed harshjudge run_hj; timed playwright run_pw
  else timed playwright run_pw; timed harshjudge run_hj; fi
done
grep -E 'passed|failed' "$work/pw.out" | tail -n 2
echo "6 scenarios x 5 steps, full evidence, median wall time of $rounds runs each:"
echo "  harshjudge:      $(median "$work/harshjudge.ms") ms"
echo "  Playwright Test: $(median "$work/playwright.ms") ms"
echo "evidence written by the last runs: harshjudge $(find "$work/hj" -type f | wc -l) files, $(du -sh "$work/hj" | cut -f1); Playwright $(find "$work/pw-results" -type f | wc -l) files, $(du -sh "$work/pw-results" | cut -f1)"
