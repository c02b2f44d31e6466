#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_random_riscv.py N SEED OUTDIR: N random RISC-V scenario files that go
further than tests/qemu/gen_random.py, on QEMU's trigger module (rv64-qemu):
both triggers rewritten in place (tselect, tdata2, tdata1 of type 2 and 6,
load/store/execute, the u/s/m bits, the size codes QEMU reads as lengths),
disarmed the QEMU way (the type with nothing enabled), reads of the trigger
CSRs (`get`, illegal from U/S), execute triggers on the code arena's 4-byte slots,
accesses from U, S and M (`mode priv=`), watches through the API between
them, and every other file on 4 CPUs (`mode cpu=`: each hart its own
triggers).  Each access is followed by `resume`.  No expectations: the
canonical lines are compared with the simulator's qemu profile."""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rvgen import CODE, DATA, access, write_files  # noqa: E402

N, SEED, OUT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(SEED)


def trigger(lines, n):
    lines.append(f"set tselect {n}")
    if rng.random() < 0.3:
        # an execute trigger on a code slot
        lines.append(f"set tdata2 C+{rng.choice(CODE):#x}")
        bits = 0x4
    else:
        lines.append(f"set tdata2 B+{rng.choice(DATA) + rng.choice([0, 0, 1, 2, 4]):#x}")
        bits = rng.choice([1, 2, 3])
    bits |= rng.choice([0x40, 0x48, 0x50, 0x58, 0x08, 0x10])   # m, u, s
    typ = rng.choice([2, 6])
    size = rng.choice([0, 0, 1, 2]) << 16
    lines.append(f"set tdata1 {(typ << 60) | size | bits:#x}")


def scenario(length, multi):
    lines = ["cpu rv64-qemu"]
    live = []
    for _ in range(length):
        k = rng.random()
        if k < 0.15:
            trigger(lines, rng.randrange(2))
        elif k < 0.2:
            # disarm: the type with nothing enabled (QEMU drops tdata1 = 0)
            lines.append(f"set tselect {rng.randrange(2)}")
            lines.append(f"set tdata1 {rng.choice([2, 6]) << 60:#x}")
        elif k < 0.25:
            # M-mode CSRs: from U/S an illegal instruction, as tcontrol
            # (which QEMU 10 lacks) from any mode
            if rng.random() < 0.6:
                lines.append("mode priv=3")
            lines.append(f"get {rng.choice(['tselect', 'tdata1', 'tdata2', 'tinfo', 'tcontrol'])}")
            lines.append("resume")
        elif k < 0.32:
            lines.append(f"mode priv={rng.choice([0, 1, 3])}")
        elif k < 0.36 and multi:
            lines.append(f"mode cpu={rng.randrange(4)}")
        elif k < 0.4 and len(live) < 1:
            name = f"q{len(lines)}"
            if rng.random() < 0.2:
                # an execute watch: one trigger per 2-byte parcel here
                lines.append(f"watch {name} C+{rng.choice(CODE):#x} {rng.choice([2, 4])} x")
            else:
                off = rng.choice(DATA) + rng.randrange(0, 8)
                lines.append(f"watch {name} B+{off:#x} {rng.choice([1, 2, 8])} {rng.choice(['r', 'w', 'rw'])}")
            live.append(name)
        elif k < 0.44 and live:
            lines.append(f"unwatch {live.pop()}")
        elif k < 0.55:
            lines.append(f"exec C+{rng.choice(CODE):#x}")
            lines.append("resume")
        else:
            access(rng, lines, DATA)
    return lines


write_files(rng, N, SEED, OUT, "v", "riscv", scenario)
