#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_random_sbi.py N SEED OUTDIR: N random scenario files an S-mode kernel
can run whole (the riscv64-sbi harness, tests/qemu/riscv/README.md): cpu
rv64-qemu-sbi (kernel scope without the m bit), accesses and execs from
U and S only (no `get`: the trigger CSRs are M-mode's) (`mode priv=0|1` first), triggers only through `watch`
and `unwatch` (every scope, every type, lengths the planner splits or
enlarges, data and code), and every other file on 4 CPUs (`mode cpu=`).
Each access is followed by `resume`.  No expectations: the canonical lines
are compared with the simulator's qemu profile."""
import os
import random
import sys

N, SEED, OUT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(SEED * 7 + 3)   # not the same stream as the riscv64 files
DATA = [0x100 + 8 * k for k in range(8)]     # B+0x100 .. B+0x138
CODE = [0x40 + 4 * k for k in range(8)]      # C+0x40 .. C+0x5c, 4-byte slots


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
            size = rng.choice([1, 2, 4, 8])
            off = rng.choice(hot) + rng.randrange(-8, 12)
            if rng.random() < 0.7:
                off &= ~(size - 1)
            lines.append(f"{rng.choice(['read', 'write'])} B+{off:#x} {size}")
            lines.append("resume")
    return lines


os.makedirs(OUT, exist_ok=True)
for i in range(N):
    with open(os.path.join(OUT, f"s{i:05d}.hws"), "w") as f:
        f.write(f"# random riscv64-sbi scenario {i} of seed {SEED}\n")
        f.write("\n".join(scenario(rng.randint(20, 50), i % 2 == 1)) + "\n")
