#!/usr/bin/env python3
"""static-exe.py PATH: exits 0 when PATH is a static executable at a fixed address (ELF type
EXEC, no PT_INTERP: nothing for a dynamic loader to load, link or relocate), else says what it
is and exits 1. scripts/build-gate.sh builds assent-gate so; the package test checks it."""
import struct
import sys

path = sys.argv[1]
with open(path, "rb") as f:
    elf = f.read()
if elf[:4] != b"\x7fELF" or elf[4] != 2:
    sys.exit(f"{path}: not a 64-bit ELF file")
e_type = struct.unpack_from("<H", elf, 16)[0]
(phoff,) = struct.unpack_from("<Q", elf, 32)
phentsize, phnum = struct.unpack_from("<HH", elf, 54)
PT_INTERP = 3
interp = any(
    struct.unpack_from("<I", elf, phoff + i * phentsize)[0] == PT_INTERP for i in range(phnum)
)
ET_EXEC = 2
if e_type != ET_EXEC or interp:
    kind = {2: "fixed-address", 3: "position-independent"}.get(e_type, f"ELF type {e_type}")
    sys.exit(f"{path}: not static at a fixed address ({kind}, dynamic loader: {'yes' if interp else 'no'})")
