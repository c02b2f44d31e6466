#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_random_arm64.py N SEED OUTDIR [novec]: N random arm64 scenario files that go
further than tests/qemu/gen_random.py: raw DBGWCR with any BAS (also
non-contiguous), MASK ranges, the deprecated word-aligned DBGWVR, every
LSC/PAC, breakpoints (BAS, PMC), accesses of 1..64 bytes (ldp/stp, ld1/st1),
DC ZVA, exec, EL0/EL1, the enables (MDSCR, PSTATE.D, the OS lock), and
at a modest rate software step (`step on|off`, raw PSTATE.SS and MDSCR.SS),
`brk IMM`, `get REG` (MRS of a control register, MDSCR or OSLSR) and
`resume`.  Every
other file switches among the harness's 4 CPUs (`mode cpu=N`, N in 0..3):
a CPU met for the first time gets, most of the time, its own enables and
raw slots (else it stays as reset: OS lock set, PSTATE.D 1, nothing
armed), and `watch`/`unwatch` requests (hwbp_install on every CPU) come
and go, so that accesses hit or miss by each CPU's own registers.
No expectations: the canonical lines are compared with the simulator's.
`novec` leaves out the 32- and 64-byte (ld1/st1) accesses, which QEMU
splits into 8-byte pieces (see the harness report)."""
import os
import random
import sys

N, SEED, OUT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
SIZES = [1, 2, 4, 8, 8, 16, 16] + ([] if sys.argv[4:5] == ["novec"] else [32, 64])
rng = random.Random(SEED)


def cpu_setup(hot):
    """The enables and raw slots of the current CPU; adds to hot."""
    lines = ["set oslar 0", "set daif_d 0", "set mdscr 0xa000"]
    for n in sorted(rng.sample(range(4), rng.randint(1, 4))):
        off = rng.randrange(0, 0x400) & ~7
        lsc = rng.choice([1, 2, 3, 3])
        pac = rng.choice([1, 2, 3, 3, 3])
        if rng.random() < 0.2:
            mask = rng.randint(3, 9)
            off &= ~((1 << mask) - 1)
            wcr = (mask << 24) | (0xff << 5) | (lsc << 3) | (pac << 1) | 1
            hot += [off, off + (1 << mask) - 1]
        else:
            bas = rng.randint(1, 255)
            if rng.random() < 0.6:  # mostly contiguous
                first = rng.randrange(0, 8)
                bas = ((1 << rng.randint(1, 8 - first)) - 1) << first
            if rng.random() < 0.1:
                off |= 4  # deprecated word-aligned DBGWVR: BAS[3:0] only
                bas &= 0xf
                bas = bas or 1
            wcr = (bas << 5) | (lsc << 3) | (pac << 1) | 1
            hot += [off & ~7, (off & ~7) + 7]
        lines.append(f"set dbgwvr{n} B+{off:#x}")
        lines.append(f"set dbgwcr{n} {wcr:#x}")
    for n in sorted(rng.sample(range(6), rng.randint(0, 2))):
        off = rng.randrange(0, 0x40) * 4
        bas = rng.choice([0xf, 0xf, 0x3, 0xc, 0x1])
        pmc = rng.choice([1, 2, 3, 3])
        lines.append(f"set dbgbvr{n} C+{off:#x}")
        lines.append(f"set dbgbcr{n} {(bas << 5) | (pmc << 1) | 1:#x}")
        hot.append(-1 - off)
    return lines


# Registers `get` reads (MRS) whose canonical value does not depend on where
# a runner puts the arenas: the control registers and MDSCR/OSLSR (the
# value registers hold B+/C+ addresses, printed as plain numbers).
GET_REGS = [f"dbgbcr{n}" for n in range(6)] + [f"dbgwcr{n}" for n in range(4)] + \
    ["mdscr", "oslsr"]


def step_line():
    """Software step, BRK, MRS and resume (sim/arm64_step.c): `step on|off`,
    raw PSTATE.SS and MDSCR.SS, `brk IMM`, `get REG`, `resume`."""
    return rng.choice([
        "step on", "step on", "step off", "set pstate_ss 0", "set pstate_ss 1",
        "set mdscr 0xa001", "set mdscr 0x1",
        f"brk {rng.choice([0, 1, 0x7f, 0x8000, 0xffff, rng.randrange(0x10000)]):#x}",
        f"get {rng.choice(GET_REGS)}", f"get {rng.choice(GET_REGS)}",
        "resume", "resume",
    ])


def scenario(multi):
    hot = []
    lines = ["cpu cortex-a57"] + cpu_setup(hot)
    ready = {0}      # CPUs that had their cpu_setup()
    live = []        # names of live `watch` requests
    nwatch = 0
    n = rng.randint(6, 16) + (rng.randint(4, 10) if multi else 0)
    forced = rng.randrange(n // 2) if multi else -1  # one switch to CPU 1..3 at least
    for k in range(n):
        r = rng.random()
        if multi and (r < 0.12 or k == forced):
            # another CPU: its own registers, OS lock, PSTATE.D and EL
            c = rng.randrange(1, 4) if k == forced else rng.randrange(4)
            lines.append(f"mode cpu={c}")
            if c not in ready:
                ready.add(c)
                if rng.random() < 0.7:
                    lines += cpu_setup(hot)
            continue
        if multi and r < 0.17:
            # a request on every CPU (planner, glue, MDSCR |= MDE|KDE)
            if live and rng.random() < 0.4:
                lines.append(f"unwatch {live.pop(rng.randrange(len(live)))}")
                continue
            size = rng.choice([1, 2, 4, 8, 8, 16])
            off = rng.randrange(0, 0x400) & ~(min(size, 8) - 1)
            name = f"w{nwatch}"
            nwatch += 1
            live.append(name)
            lines.append(f"watch {name} B+{off:#x} {size} {rng.choice(['r', 'w', 'rw'])}")
            hot += [off, off + size - 1]
            continue
        r = rng.random() if multi else r
        if rng.random() < 0.12:
            lines.append(step_line())
            continue
        if r < 0.05:
            lines.append(f"mode el={rng.randint(0, 1)}")
            continue
        if r < 0.08:
            lines.append(rng.choice(["set daif_d 1", "set daif_d 0", "set mdscr 0x8000",
                                     "set mdscr 0xa000", "set oslar 1", "set mdscr 0"]))
            continue
        h = rng.choice(hot)
        if h < 0 and rng.random() < 0.7:
            off = -1 - h
            if rng.random() < 0.3:
                off = (off + rng.choice([-4, 4])) & 0xfffc
            lines.append(f"exec C+{max(off, 0):#x}")
            continue
        h = max(h, 0) if h >= 0 else rng.randrange(0, 0x400)
        if r < 0.15:
            lines.append(f"zero B+{max(0, h + rng.randint(-64, 64)):#x}")
            continue
        size = rng.choice(SIZES)
        off = max(0, h + rng.randint(-size - 4, 8))
        if rng.random() < 0.6:
            off &= ~(min(size, 16) - 1)
        lines.append(f"{rng.choice(['read', 'write'])} B+{off:#x} {size}")
    return lines


os.makedirs(OUT, exist_ok=True)
for i in range(N):
    with open(os.path.join(OUT, f"a{i:05d}.hws"), "w") as f:
        # (every other file switches among 4 CPUs)
        f.write(f"# random arm64 scenario {i} of seed {SEED}\n" +
                "\n".join(scenario(i % 2 == 1)) + "\n")
