#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_random_x86.py N SEED OUTDIR: N random x86_64 scenario files that go
further than tests/qemu/gen_random.py: long runs of raw DR0-DR3 and DR7
writes (full rewrites and enable-only changes) with overlapping slots and
accesses of 1-8 bytes around them, which exercise QEMU's watchpoint list
order and its stale hit flags (sim quirk HWBPI_Q_X86_DATA_FIRST_SLOT),
in ring 0 and ring 3 (`mode cpl=`, switched at random points), every
other file on 4 CPUs (`mode cpu=`: each CPU's own registers); and the
other half of the debug unit: single step (`step on|off`, so that every
kind of line is stepped, data hits included), INT3, INT1, STI, MOV from
DRn (a #GP in ring 3), and MOV SS with the line after it (its shadow).
No expectations: the canonical lines are compared with the simulator's."""
import os
import random
import sys

N, SEED, OUT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(SEED)


def scenario(length, multi):
    lines = ["cpu x86_64"]
    for _ in range(length):
        k = rng.random()
        if k < 0.2:
            lines.append(f"set dr{rng.randrange(4)} B+{0x100 + rng.randrange(24):#x}")
        elif k < 0.35:
            v = 0
            for s in range(4):
                if rng.random() < 0.6:
                    v |= rng.choice([1, 2, 3]) << (2 * s)          # L, G or both
                v |= rng.choice([1, 3]) << (16 + 4 * s)            # W or RW
                v |= rng.choice([0, 1, 2, 3]) << (18 + 4 * s)      # 1, 2, 8, 4 bytes
            lines.append(f"set dr7 {v:#x}")
        elif k < 0.4:
            lines.append(f"set dr7 {rng.choice([0, 0x400]):#x}")
        elif k < 0.45:
            # ring 3 or ring 0 for what follows: the same slots must match
            lines.append(f"mode cpl={rng.choice([0, 3])}")
        elif k < 0.5 and multi:
            # another of the harness's 4 CPUs: its own DR0-DR7 and DR6
            lines.append(f"mode cpu={rng.randrange(4)}")
        elif k < 0.53:
            lines.append(f"step {rng.choice(['on', 'off'])}")
        elif k < 0.6:
            lines.append(rng.choice(["int3", "icebp", "sti", f"get dr{rng.choice([0, 1, 2, 3, 6, 7])}",
                                     f"exec C+{0x10 + rng.randrange(64):#x}"]))
        elif k < 0.63:
            # MOV SS from a register: its shadow covers the next line,
            # which must be an instruction (the harness runs the two as one)
            lines.append("movss")
            lines.append(access())
        else:
            lines.append(access())
    return lines


def access():
    size = rng.choice([1, 2, 4, 8])
    return f"{rng.choice(['read', 'write'])} B+{0xf8 + rng.randrange(40):#x} {size}"


os.makedirs(OUT, exist_ok=True)
for i in range(N):
    with open(os.path.join(OUT, f"x{i:05d}.hws"), "w") as f:
        f.write(f"# random x86 scenario {i} of seed {SEED}\n")
        # (every other file switches among 4 CPUs)
        f.write("\n".join(scenario(rng.randint(20, 60), i % 2 == 1)) + "\n")
