#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_random_powerpc.py N SEED OUTDIR: N random POWER10 scenario files that
go further than tests/qemu/gen_random.py: every other file switches among
4 CPUs (`mode cpu=0..3`, the harness's hardware threads, each with its own
DAWR0/1, DAWRX0/1 and MSR state), and the problem/hypervisor state
(`mode pr=`, `mode hv=`) changes at random points.  A file is either raw
(`set dawrN`/`dawrxN` on the current CPU only: MRD 0-7, DR/DW, any of
PRO/PNH/HYP, WTI or WT; CIABR and `exec`) or planned (`watch`/`unwatch`, which reach every
CPU), never both (docs/scenarios.md: do not mix them on the same slots).
Accesses of 1-16 bytes at and around the watched doublewords, on
whichever CPU is current, so that a CPU that never armed a DAWR shows
`none` where another shows a hit.  No expectations: the canonical lines
are compared with the simulator's (`hwbp sim --profile qemu`).
16-byte accesses are quadword aligned (lq/stq: one access) or not
(lxvd2x/stxvd2x, which QEMU makes as two 8-byte accesses: the simulator's
qemu quirk HWBPI_Q_PPC_VSX_SPLIT), like the other sizes.
At a modest rate: `step on/off` (MSR[SE]) and `set msr_be` (branch trace)
on the current CPU, `trap`, `exec` of an arena blr, `resume` (after a DSI
with MSR[SE] it owes the trace) and `get` of DAWRX0/DAWRX1 (and of CIABR in
planned files, where it stays 0): the registers whose values print the same
whatever the arenas' placement (the canonical line prints a `get` value as
a number, and the harness's arenas are not the simulator's)."""
import os
import random
import sys

N, SEED, OUT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(SEED)

# DAWRX (Power ISA v3.1 Book III): MRD bits 48:53, DR 57, DW 58, WT 59,
# WTI 60, HYP 61, PNH 62, PRO 63 (IBM numbering).
DR, DW, WT, WTI, HYP, PNH, PRO = 0x40, 0x20, 0x10, 0x8, 0x4, 0x2, 0x1


def dawrx():
    v = rng.randint(0, 7) << 10 | rng.choice([DR, DW, DR | DW])
    v |= rng.choice([WTI, WTI, WTI, WT])      # mostly WTI: WT compares MSR[DR]
    for bit in (HYP, PNH, PRO):
        if rng.random() < 0.6:
            v |= bit
    return v


def scenario(length, multi):
    lines = ["cpu power10"]
    raw = rng.random() < 0.5
    hot = [rng.randrange(0x100, 0x180) & ~7 for _ in range(2)]
    names = set()
    if raw:
        # CPU 0 armed at once (a slot of its own), so that the other CPUs'
        # `none` has a hit to differ from
        lines.append(f"set dawr0 B+{hot[0]:#x}")
        lines.append(f"set dawrx0 {dawrx() | HYP:#x}")
    for _ in range(length):
        k = rng.random()
        if raw and k < 0.12:
            n = rng.randrange(2)
            hot[n] = rng.randrange(0x100, 0x180) & ~7
            lines.append(f"set dawr{n} B+{hot[n]:#x}")
        elif raw and k < 0.25:
            lines.append(f"set dawrx{rng.randrange(2)} {dawrx():#x}")
        elif raw and k < 0.28:
            lines.append(f"set dawrx{rng.randrange(2)} 0")
        elif raw and k < 0.30:
            # CIABR (per thread too): an instruction of arena C, one state
            # (01 problem, 10 privileged, 11 hypervisor), then exec near it
            ciabr = rng.randrange(0, 0x40) & ~3
            lines.append(f"set ciabr C+{ciabr | rng.choice([1, 2, 3, 3, 3, 3]):#x}")
            lines.append(f"exec C+{ciabr + rng.choice([0, 0, 0, 4]):#x}")
        elif not raw and k < 0.15:
            name = f"q{rng.randrange(3)}"
            if name in names:
                lines.append(f"unwatch {name}")
                names.discard(name)
            else:
                off = rng.randrange(0x100, 0x180)
                hot[rng.randrange(2)] = off & ~7
                length_ = rng.randint(1, 16)
                typ = rng.choice(["r", "w", "rw"])
                lines.append(f"watch {name} B+{off:#x} {length_} {typ}")
                names.add(name)
        elif 0.3 <= k < 0.36:
            lines.append(f"mode pr={rng.randrange(2)}")
        elif 0.36 <= k < 0.40:
            lines.append(f"mode hv={rng.randrange(2)}")
        elif 0.40 <= k < 0.50 and multi:
            # another of the harness's 4 threads: its own SPRs and MSR state
            lines.append(f"mode cpu={rng.randrange(4)}")
            if raw and rng.random() < 0.4:
                n = rng.randrange(2)
                lines.append(f"set dawr{n} B+{hot[n]:#x}")
                lines.append(f"set dawrx{n} {dawrx() | HYP:#x}")
        elif 0.50 <= k < 0.53:
            # MSR[SE] of the current CPU: every instruction traced
            lines.append(f"step {rng.choice(['on', 'off', 'off'])}")
        elif 0.53 <= k < 0.545:
            lines.append(f"set msr_be {rng.choice([0, 0, 1])}")
        elif 0.545 <= k < 0.56:
            lines.append("trap")
        elif 0.56 <= k < 0.58:
            regs = ["dawrx0", "dawrx1"] + ([] if raw else ["ciabr"])
            lines.append(f"get {rng.choice(regs)}")
        elif 0.58 <= k < 0.61:
            lines.append("resume")
        elif 0.61 <= k < 0.63:
            lines.append(f"exec C+{rng.randrange(0, 0x40) & ~3:#x}")
        else:
            size = rng.choice([1, 2, 4, 8, 8, 16])
            off = max(0, rng.choice(hot) + rng.randint(-8, 15))
            if rng.random() < 0.7:
                off &= ~(size - 1)
            lines.append(f"{rng.choice(['read', 'write'])} B+{off:#x} {size}")
    return lines


os.makedirs(OUT, exist_ok=True)
for i in range(N):
    with open(os.path.join(OUT, f"p{i:05d}.hws"), "w") as f:
        f.write(f"# random POWER10 scenario {i} of seed {SEED}\n")
        # (every other file switches among 4 CPUs)
        f.write("\n".join(scenario(rng.randint(20, 60), i % 2 == 1)) + "\n")
