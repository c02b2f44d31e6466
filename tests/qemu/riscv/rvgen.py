# SPDX-License-Identifier: MIT
"""What the riscv64 and riscv64-sbi random generators share
(gen_random_riscv.py, gen_random_sbi.py): the arenas' hot spots, a data
access near them followed by `resume`, and the writing of the files."""
import os

DATA = [0x100 + 8 * k for k in range(8)]     # B+0x100 .. B+0x138
CODE = [0x40 + 4 * k for k in range(8)]      # C+0x40 .. C+0x5c, 4-byte slots


def access(rng, lines, hot):
    """A load or store of 1, 2, 4 or 8 bytes near one of @hot (B offsets),
    aligned 7 times in 10, then `resume`."""
    size = rng.choice([1, 2, 4, 8])
    off = rng.choice(hot) + rng.randrange(-8, 12)
    if rng.random() < 0.7:
        off &= ~(size - 1)
    lines.append(f"{rng.choice(['read', 'write'])} B+{off:#x} {size}")
    lines.append("resume")


def write_files(rng, n, seed, out, prefix, title, scenario):
    """@n files OUT/PREFIXnnnnn.hws of 20 to 50 commands each, every other
    one on 4 CPUs: scenario(length, multi) gives a file's lines."""
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        with open(os.path.join(out, f"{prefix}{i:05d}.hws"), "w") as f:
            f.write(f"# random {title} scenario {i} of seed {seed}\n")
            f.write("\n".join(scenario(rng.randint(20, 50), i % 2 == 1)) + "\n")
