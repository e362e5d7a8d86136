# Sourced by the bench scripts: `bench_bin DIR NAME` builds bench NAME of the
# workspace at DIR (profile $PROFILE, default dev) into $CARGO_TARGET_DIR and
# prints the path of its executable.
bench_bin() {
  (cd "$1" && cargo bench --no-run --profile "${PROFILE:-dev}" --bench "$2" --message-format=json 2>/dev/null) |
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
' "$2"
}

# `median FILE`: the median of the numbers in FILE, one a line.
median() {
  sort -g "$1" | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'
}
