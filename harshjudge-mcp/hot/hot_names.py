"""Prints the functions that callgrind saw run in a binary, once each, as the
patterns build.rs puts in its linker script.

usage: hot_names.py BINARY CALLGRIND_OUT [BINARY CALLGRIND_OUT ...]

callgrind (run with --demangle=no) names each function once in full, and
afterwards by number: `fn=(12) _ZN...E`, then `fn=(12)`. Only functions the
binary's symbol table has are kept, in the order callgrind first gave them, so
that start-up comes first, each with every other name at its address (LLVM
merges identical functions, and the section holding the code is named after
one of them). Several pairs (say a
bench build and a plain release build, whose hashes differ) give one list.

A legacy Rust symbol ends in a hash (`17h`, 16 hex digits, `E`, maybe a
`.llvm.N` suffix) that changes with the toolchain, the lock file, the features
and where the crate came from. A function the binary has once is written with
its hash as `*`, so any build finds it. A generic function has an instance per
type, all with the same name but the hash: only the instances that ran are
listed, with their hash (another build lays those out as without the list).
A `.llvm.N` suffix (a local symbol made global) is written as `*` too.
"""

import collections
import re
import subprocess
import sys

LEGACY = re.compile(r"^(_ZN[A-Za-z0-9_$.]*?17h)([0-9a-f]{16}E)(\.llvm\.\d+)?$")
LLVM = re.compile(r"^(.*?\.llvm\.)\d+$")
PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")
NAMED = re.compile(r"^(fn|cfn)=\((\d+)\)(?: (.*))?$")


def ran(path):
    """The names of the functions in one callgrind output."""
    names = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        m = NAMED.match(line.rstrip("\n"))
        if not m:
            continue
        kind, num, name = m.groups()
        if name is not None:
            names[num] = name
        if kind == "fn":
            yield names[num].split("'")[0]  # name'2: a recursion depth


def symbols(binary):
    """How many symbols of BINARY share each legacy name without its hash, and
    the names at each address: LLVM merges identical functions, and the
    section that holds the code is named after one of them, which need not be
    the one callgrind gives."""
    out = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True)
    count = collections.Counter()
    at, addr = collections.defaultdict(list), {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) != 3 or parts[1] not in "tTwW":
            continue
        name = parts[2]
        at[parts[0]].append(name)
        addr[name] = parts[0]
        m = LEGACY.match(name)
        if m:
            count[m.group(1)] += 1
    return count, at, addr


def pattern(name, many):
    """The linker script's pattern for one symbol, or None."""
    m = LEGACY.match(name)
    if m:
        stem, hash_, _ = m.groups()
        return stem + "*" if many[stem] <= 1 else stem + hash_ + "*"
    m = LLVM.match(name)
    if m:
        return m.group(1) + "*"
    return name if PLAIN.match(name) else None


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit("usage: hot_names.py BINARY CALLGRIND_OUT [BINARY CALLGRIND_OUT ...]")
    seen = set()
    for binary, out in zip(args[::2], args[1::2]):
        many, at, addr = symbols(binary)
        for ran_name in ran(out):
            # Kept: BINARY's own functions (callgrind does not always know a
            # function's object), with every name at the same address.
            for name in at.get(addr.get(ran_name), []):
                p = pattern(name, many)
                if p is not None and p not in seen:
                    seen.add(p)
                    print(p)


if __name__ == "__main__":
    main()
