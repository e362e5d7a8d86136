#!/usr/bin/env bash
# Writes hot/functions.txt again: the functions of the server that the agent
# loop bench runs (callgrind), for build.rs to lay out together. Both builds of
# the server are measured: `cargo build --release` (what `cargo install` makes)
# and the one `cargo bench` makes (the benches' dev-dependencies unify other
# features, so its generic functions carry other hashes).
# Run it after a toolchain or Cargo.lock change: the RSS grows back otherwise.
#
#   harshjudge-mcp/hot/regenerate.sh        (needs valgrind, python3 and nm)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$(dirname "$here")"
target=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --bin harshjudge-mcp
cp "$target/release/harshjudge-mcp" "$work/plain"
cargo bench --no-run --bench agent_loop
cp "$target/release/harshjudge-mcp" "$work/bench"
for build in plain bench; do
  cat >"$work/wrap-$build" <<WRAP
#!/bin/sh
exec valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$build.out" "$work/$build" "\$@"
WRAP
  chmod +x "$work/wrap-$build"
  HARSHJUDGE_MCP_BIN="$work/wrap-$build" cargo bench --bench agent_loop >/dev/null
done
python3 "$here/hot_names.py" "$work/plain" "$work/plain.out" "$work/bench" "$work/bench.out" >"$work/functions.txt"
mv "$work/functions.txt" "$here/functions.txt"
echo "hot/functions.txt: $(wc -l <"$here/functions.txt") patterns"
