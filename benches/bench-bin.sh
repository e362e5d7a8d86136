# Sourced by the bench scripts. `bench_bin DIR NAME` builds bench NAME of the
# workspace at DIR (profile $PROFILE, default dev) into $CARGO_TARGET_DIR and
# prints the path of its executable; `test_bin DIR NAME` does the same for
# test target NAME, built as the tests build it (`--workspace`, debug).
bench_bin() {
  (cd "$1" && cargo bench --no-run --profile "${PROFILE:-dev}" --bench "$2" --message-format=json 2>/dev/null) |
    executable_of "$2"
}

test_bin() {
  (cd "$1" && cargo test --no-run --workspace --test "$2" --message-format=json 2>/dev/null) |
    executable_of "$2"
}

# `executable_of NAME`: the executable of target NAME in cargo's JSON
# messages on standard input.
executable_of() {
  python3 -c '
import json, sys
name = sys.argv[1]
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == name and m.get("executable"):
        print(m["executable"])
' "$1"
}

# `fresh DIR`: marks the workspace sources of DIR as changed. Two checkouts
# sharing one target folder build their workspace crates into the SAME files
# (cargo leaves the path out of a path package's hash) and cargo's freshness
# check compares mtimes only: without this, a build in one checkout can take
# the other's artifacts as up to date.
fresh() {
  find "$1/harshjudge/src" "$1/harshjudge-browser/src" "$1/harshjudge-store/src" \
    "$1/harshjudge-macros/src" "$1/harshjudge-mcp/src" \
    "$1/examples" "$1/benches" "$1/tests" "$1/xtask/src" -name '*.rs' -exec touch {} + 2>/dev/null || true
}

# `median FILE`: the median of the numbers in FILE, one a line.
median() {
  sort -g "$1" | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'
}

# `mean FILE`: the mean of the numbers in FILE, one a line.
mean() {
  awk '{s+=$1} END {if (NR) printf "%.1f\n", s/NR}' "$1"
}
