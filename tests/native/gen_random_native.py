#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_random_native.py N SEED OUTDIR: N random x86_64 scenario files for
the native runner (scripts/harness native): user mode only, and only
register values Linux's ptrace passes to the hardware as they are, so that
a whole file runs on this machine's CPU.  Every file is either raw (DR0-DR3
and DR7 written as a debugger does: overlapping slots, LEN 1/2/4/8, write,
read/write and execute slots, enable-only DR7 changes while armed, RF
before an execute) or through the API (`watch`/`unwatch` of 1-16 bytes, with single steps,
INT3, INT1 and MOV from DRn among the accesses).
Kept to what ptrace accepts: data slots at 8-aligned addresses (aligned for
every LEN), execute slots with LEN 00 in the code arena, no LE/GE/GD, no
I/O slots, no DR6 writes.  No expectations: the canonical lines are
compared with the simulator's sdm profile."""
import os
import random
import sys

N, SEED, OUT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(SEED)
DATA = [0x100 + 8 * k for k in range(6)]      # B+0x100 .. B+0x128
CODE = [0x40 + k for k in range(8)]            # C+0x40 .. C+0x47


def data_access(lines):
    size = rng.choice([1, 2, 4, 8, 8, 16])
    off = rng.choice(DATA) + rng.randrange(-8, 9)
    lines.append(f"{rng.choice(['read', 'write'])} B+{off:#x} {size}")


def exec_access(lines):
    if rng.random() < 0.25:
        lines.append("set rf 1")   # RF: this execute must not fault
    lines.append(f"exec C+{rng.choice(CODE) + rng.choice([0, 0, 1]):#x}")


def raw(length):
    lines = ["cpu x86_64", "mode cpl=3"]
    # per slot, for the whole file: "d" (data addresses) or "x" (code):
    # its R/W and LEN always fit its address, armed or not
    kind = [rng.choice("ddx") for _ in range(4)]
    written = [False] * 4
    dr7 = 0
    for _ in range(length):
        k = rng.random()
        if k < 0.2:
            s = rng.randrange(4)
            written[s] = True
            if kind[s] == "d":
                lines.append(f"set dr{s} B+{rng.choice(DATA):#x}")
            else:
                lines.append(f"set dr{s} C+{rng.choice(CODE):#x}")
        elif k < 0.35:
            # a full rewrite: every slot's enables, R/W and LEN
            v = 0
            for s in range(4):
                if not written[s]:
                    continue
                if rng.random() < 0.7:
                    v |= rng.choice([1, 2, 3]) << (2 * s)          # L, G or both
                if kind[s] == "d":
                    v |= rng.choice([1, 3]) << (16 + 4 * s)        # W or RW
                    v |= rng.choice([0, 1, 2, 3]) << (18 + 4 * s)  # 1, 2, 8, 4 bytes
            dr7 = v
            lines.append(f"set dr7 {v:#x}")
        elif k < 0.45 and dr7:
            # enables only, the slots' fields kept: arm or disarm in place
            dr7 ^= rng.choice([1, 2, 3]) << (2 * rng.randrange(4))
            for s in range(4):
                if not written[s]:
                    dr7 &= ~(3 << (2 * s))
            lines.append(f"set dr7 {dr7:#x}")
        elif k < 0.6:
            exec_access(lines)
        else:
            data_access(lines)
    return lines


def api(length):
    lines = ["cpu x86_64", "mode cpl=3"]
    live = []
    for _ in range(length):
        k = rng.random()
        if k < 0.2 and len(live) < 4:
            name = f"w{len(lines)}"
            if rng.random() < 0.3:
                lines.append(f"watch {name} C+{rng.choice(CODE):#x} 1 x")
            else:
                off = rng.choice(DATA) + rng.randrange(0, 8)
                ln = rng.choice([1, 2, 3, 4, 8, 12, 16])
                lines.append(f"watch {name} B+{off:#x} {ln} {rng.choice(['w', 'rw'])}")
            live.append(name)
        elif k < 0.3 and live:
            lines.append(f"unwatch {live.pop(rng.randrange(len(live)))}")
        elif k < 0.36:
            # PTRACE_SINGLESTEP of what follows (watch lines are the
            # tracer's, not the CPU's: they are not stepped)
            lines.append(f"step {rng.choice(['on', 'off'])}")
        elif k < 0.4:
            lines.append(rng.choice(["int3", "icebp", f"get dr{rng.choice([0, 1, 2, 3, 6, 7])}"]))
        elif k < 0.45:
            exec_access(lines)
        else:
            data_access(lines)
    return lines


os.makedirs(OUT, exist_ok=True)
for i in range(N):
    with open(os.path.join(OUT, f"n{i:05d}.hws"), "w") as f:
        f.write(f"# random native scenario {i} of seed {SEED}\n")
        body = raw(rng.randint(20, 60)) if i % 2 == 0 else api(rng.randint(15, 40))
        f.write("\n".join(body) + "\n")
