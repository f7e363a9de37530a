#!/usr/bin/env python3
# SASS loop bodies without a disassembler, for the build machine (no cuobjdump there):
# each kernel's instruction count and, for every backward BRA, the instructions from its
# target to the branch, both included (as tools/bench/stream_bench.sh counts cuobjdump's
# listing), read straight from an sm_90 cubin's .text.<kernel> sections: 16-byte
# instructions, BRA is opcode 0x947 in the low 12 bits, its word offset from the next
# instruction bits 16..23 (low byte) and bits 34..81 (the rest, signed). The layout was
# read off cuobjdump listings: it decodes the 286 BRA of tests/data/sass/ to their printed
# targets, and gives the H200's cuobjdump counts of the rings of docs/benchmarks.md (50,
# 56, 41, 53). Trailing NOPs (0x918) are not counted.
# Usage: tools/cubin_loops.py [--longest-at-most N] X.cubin...   (with N: exit 1 when a
# kernel's longest loop body is longer than N instructions)
import struct, sys
def sections(data):
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    secs = []
    for i in range(shnum):
        name, typ, flags, addr, off, size = struct.unpack_from('<IIQQQQ', data, shoff + i*shentsize)
        secs.append((name, off, size))
    stroff = secs[shstrndx][1]
    out = {}
    for name, off, size in secs:
        end = data.index(b'\0', stroff + name)
        out[data[stroff+name:end].decode()] = data[off:off+size]
    return out
def bra_target(w0, w1, addr, mode='a'):
    if mode == 'a':
        lo = (w0 >> 16) & 0xff
        hi = ((w0 >> 34) | (w1 << 30)) & ((1 << 48) - 1)
        if hi >> 47: hi -= 1 << 48
        words = (hi << 8) | lo
        return addr + 16 + 4 * words
def main():
    mode = 'a'
    args = sys.argv[1:]
    limit = None
    if args[:1] == ['--longest-at-most']:
        limit, args = int(args[1]), args[2:]
    status = 0
    for path in args:
        data = open(path, 'rb').read()
        for name, text in sections(data).items():
            if not name.startswith('.text.'): continue
            n = len(text) // 16
            ins = [struct.unpack_from('<QQ', text, 16*i) for i in range(n)]
            # drop the trailing BRA-to-self and NOP padding
            last = n
            while last > 0 and (ins[last-1][0] & 0xfff) in (0x918,):
                last -= 1
            loops = []
            for i, (w0, w1) in enumerate(ins):
                if (w0 & 0xfff) != 0x947: continue
                t = bra_target(w0, w1, 16*i, mode)
                if t < 16*i:
                    loops.append((t, 16*i, i - t//16 + 1))
            print(f"{path}:{name[6:]}: {last} instructions; loops: " +
                  (", ".join(f"0x{t:04x}..0x{a:04x}: {c}" for t, a, c in loops) or "none"))
            longest = max((c for _, _, c in loops), default=0)
            if limit is not None and longest > limit:
                print(f"{path}:{name[6:]}: the longest loop body, {longest} instructions, is "
                      f"longer than {limit}")
                status = 1
    return status
sys.exit(main())
