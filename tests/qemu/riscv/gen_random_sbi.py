#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_random_sbi.py N SEED OUTDIR: N random scenario files an S-mode kernel
can run whole (the riscv64-sbi harness, tests/qemu/riscv/README.md): cpu
rv64-qemu-sbi (kernel scope without the m bit), accesses and execs from
U and S only (`mode priv=0|1` first), `get`s of the trigger CSRs (from
U/S: illegal instructions), triggers only through `watch` and `unwatch` (every scope, every type, lengths the planner splits or
enlarges, data and code), and every other file on 4 CPUs (`mode cpu=`).
Each access is followed by `resume`.  No expectations: the canonical lines
are compared with the simulator's qemu profile."""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rvgen import CODE, DATA, access, write_files  # noqa: E402

N, SEED, OUT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(SEED * 7 + 3)   # not the same stream as the riscv64 files


def scenario(length, multi):
    lines = ["cpu rv64-qemu-sbi", f"mode priv={rng.choice([0, 1])}"]
    live, hot = [], list(DATA)
    for _ in range(length):
        k = rng.random()
        if k < 0.12 and len(live) < 3:
            name = f"q{len(lines)}"
            scope = rng.choice(["scope=user", "scope=kernel", ""])
            if rng.random() < 0.25:
                off = rng.choice(CODE)
                lines.append(f"watch {name} C+{off:#x} 2 x {scope}".rstrip())
            else:
                off = rng.choice(DATA) + rng.randrange(0, 8)
                ln = rng.choice([1, 2, 4, 8, 3, 12, 16])
                lines.append(f"watch {name} B+{off:#x} {ln} {rng.choice(['r', 'w', 'rw'])} {scope}".rstrip())
                hot.append(off)
            live.append(name)
        elif k < 0.18 and live:
            lines.append(f"unwatch {live.pop(rng.randrange(len(live)))}")
        elif k < 0.26:
            lines.append(f"mode priv={rng.choice([0, 1])}")
        elif k < 0.30 and multi:
            lines.append(f"mode cpu={rng.randrange(4)}")
            # each CPU has its own privilege, M after reset: set it
            lines.append(f"mode priv={rng.choice([0, 1])}")
        elif k < 0.33:
            # a trigger CSR read from U/S: an illegal instruction
            lines.append(f"get {rng.choice(['tselect', 'tdata1', 'tdata2', 'tinfo', 'tcontrol'])}")
            lines.append("resume")
        elif k < 0.45:
            lines.append(f"exec C+{rng.choice(CODE):#x}")
            lines.append("resume")
        else:
            access(rng, lines, hot)
    return lines


write_files(rng, N, SEED, OUT, "s", "riscv64-sbi", scenario)
