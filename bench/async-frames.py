#!/usr/bin/env python3
"""The async frame size of every async function of a Swift ELF binary whose name contains a word (issue 14).

A Swift task keeps the slabs its deepest chain of async frames needed for as long as it lives, so the frames on a
connection's task are memory every idle connection keeps. Each async function has an "async function pointer"
symbol (mangled name ending in `Tu`): a relative offset to the function, then the size of its frame. Usage:

    swift build -c release --product corkd && python3 bench/async-frames.py .build/release/corkd Session

prints the 60 largest frames whose demangled name contains `Session`, in bytes.
"""
import struct, subprocess, sys
path, pattern = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
data = open(path, "rb").read()
phoff, = struct.unpack_from("<Q", data, 0x20)
phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
loads = []
for i in range(phnum):
    p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
    if p_type == 1:
        loads.append((p_vaddr, p_offset, p_filesz))
def off(v):
    for va, of, sz in loads:
        if va <= v < va + sz:
            return of + v - va
nm = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True).stdout.split("\n")
syms = [(int(l.split()[0], 16), l.split()[2]) for l in nm if l.endswith("Tu") and len(l.split()) == 3]
names = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(s for _, s in syms), capture_output=True, text=True).stdout.split("\n")
rows = []
for (addr, sym), name in zip(syms, names):
    o = off(addr)
    if o is None: continue
    _, size = struct.unpack_from("<iI", data, o)
    if pattern in name:
        rows.append((size, name))
for size, name in sorted(rows, reverse=True)[:60]:
    print(size, name[:200])
