#!/usr/bin/env python3
"""gen_random.py ARCH N SEED OUTDIR: write N random scenario files for the
differential check (harness vs `hwbp sim --profile qemu`): random slots,
lengths, alignments, types and accesses, as raw registers (what the
hardware does) and through `watch` (what the generic API plans).  No
expectations: the canonical lines are compared.  Seeded, so a failure can
be replayed."""
import os
import random
import sys

ARCH, N, SEED, OUT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(SEED)


HOT = []


def accesses(lines, resume=False):
    """Accesses mostly at and around the watched offsets, some anywhere
    (with @resume, each followed by `resume`: a trigger fires before the
    access, and the handler steps over it)."""
    for _ in range(rng.randint(4, 12)):
        size = rng.choice([1, 2, 4, 8])
        if HOT and rng.random() < 0.8:
            off = max(0, rng.choice(HOT) + rng.randint(-8, 16))
        else:
            off = rng.randrange(0, 0x200)
        if rng.random() < 0.7:
            off &= ~(size - 1)  # mostly aligned, sometimes not
        lines.append(f"{rng.choice(['read', 'write'])} B+{off:#x} {size}")
        if resume:
            lines.append("resume")
    HOT.clear()


def x86(lines):
    lines.append("cpu x86_64")
    dr7 = 0
    for n in range(rng.randint(1, 4)):
        ln = rng.choice([0, 1, 3, 2])          # 1, 2, 4, 8 bytes
        rw = rng.choice([1, 3])                # write, read/write
        off = rng.randrange(0, 0x200)
        HOT.append(off)
        lines.append(f"set dr{n} B+{off:#x}")
        dr7 |= (1 << (2 * n + rng.choice([0, 1]))) | (rw << (16 + 4 * n)) | (ln << (18 + 4 * n))
    lines.append(f"set dr7 {dr7:#x}")
    accesses(lines)


def arm64(lines):
    lines.append("cpu cortex-a57")
    lines += ["set oslar 0", "set daif_d 0", "set mdscr 0xa000"]
    for n in range(rng.randint(1, 4)):
        off = rng.randrange(0, 0x200) & ~7
        first = rng.randrange(0, 8)
        length = rng.randint(1, 8 - first)
        bas = ((1 << length) - 1) << first
        lsc = rng.choice([1, 2, 3])
        HOT.append(off + first)
        lines.append(f"set dbgwvr{n} B+{off:#x}")
        lines.append(f"set dbgwcr{n} {(bas << 5) | (lsc << 3) | (3 << 1) | 1:#x}")
    accesses(lines)


def powerpc(lines):
    lines.append("cpu power10")
    for n in range(rng.randint(1, 2)):
        off = rng.randrange(0, 0x200) & ~7
        mrd = rng.randint(0, 7)
        rw = rng.choice([0x20, 0x40, 0x60])
        HOT.append(off)
        # PNH|HYP|WTI: fires in the default pr=0 hv=1 state under both profiles
        lines.append(f"set dawr{n} B+{off:#x}")
        lines.append(f"set dawrx{n} {(mrd << 10) | rw | 0x8 | 0x4 | 0x2:#x}")
    accesses(lines)


def riscv(lines):
    lines.append("cpu rv64-qemu")
    # M-mode at reset; U and S now and then (the triggers' u/s/m bits decide)
    for n in range(rng.randint(1, 2)):
        off = rng.randrange(0, 0x200)
        if rng.random() < 0.7:
            off &= ~7
        typ = rng.choice([2, 6])
        bits = rng.choice([1, 2, 3])                      # load, store, both
        bits |= rng.choice([0x40, 0x40, 0x48, 0x50, 0x58])  # m, with u and/or s
        size = rng.choice([0, 0, 1, 2, 3])                # any, 1, 2 bytes, 4 (QEMU: 3)
        size_field = size << 16                           # sizelo / size: bits 17:16
        HOT.append(off)
        lines.append(f"set tselect {n}")
        lines.append(f"set tdata2 B+{off:#x}")
        lines.append(f"set tdata1 {(typ << 60) | size_field | bits:#x}")
    if rng.random() < 0.3:
        lines.append(f"mode priv={rng.choice([0, 1, 3])}")
    accesses(lines, resume=True)


def watched(lines, cpu):
    lines.append(f"cpu {cpu}")
    if cpu == "cortex-a57":
        lines += ["set oslar 0", "set daif_d 0"]
    for n in range(rng.randint(1, 2)):
        off = rng.randrange(0, 0x180)
        length = rng.randint(1, 40)
        typ = rng.choice(["w", "rw"] + (["r"] if cpu != "x86_64" else []))
        HOT.append(off)
        HOT.append(off + length - 1)
        lines.append(f"watch q{n} B+{off:#x} {length} {typ}")
    accesses(lines)


def main():
    os.makedirs(OUT, exist_ok=True)
    gen = {"x86_64": x86, "aarch64": arm64, "ppc64": powerpc, "riscv64": riscv}[ARCH]
    cpu = {"x86_64": "x86_64", "aarch64": "cortex-a57", "ppc64": "power10", "riscv64": "rv64-qemu"}[ARCH]
    for i in range(N):
        lines = [f"# random scenario {i} of seed {SEED} ({ARCH})"]
        if rng.random() < 0.3:
            watched(lines, cpu)
        else:
            gen(lines)
        with open(os.path.join(OUT, f"r{i:05d}.hws"), "w") as f:
            f.write("\n".join(lines) + "\n")


main()
