#!/usr/bin/env python3
"""compare.py SIM.out HARNESS.out ARCH SECONDS: compare canonical lines per
file.  Files the harness skipped are counted as skipped, never as passed.
Prints a summary line 'harness ARCH: N passed, N failed, N skipped' and,
for mismatches, the differing lines; for random scenarios, the smallest
failing one in full."""
import os
import sys


def blocks(path):
    out, cur, name = {}, None, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n").rstrip("\r")
            if line.startswith("== END"):
                break
            if line.startswith("== "):
                name = line[3:]
                cur = out.setdefault(name, [])
            elif name is not None and line:
                cur.append(line)
    return out


def main():
    sim, har, arch, secs = blocks(sys.argv[1]), blocks(sys.argv[2]), sys.argv[3], sys.argv[4]
    passed = failed = skipped = 0
    failing = []
    for name, want in sim.items():
        got = har.get(name)
        if got is None:
            print(f"MISSING {name}: the harness printed nothing for it")
            failed += 1
            continue
        skips = [l for l in got if l.startswith("# skip")]
        if skips:
            skipped += 1
            print(f"skipped {name}: {skips[0][7:].strip()}")
            continue
        if got == want:
            passed += 1
            continue
        failed += 1
        failing.append(name)
        print(f"MISMATCH {name}:")
        w, g = {l.split(":")[0]: l for l in want}, {l.split(":")[0]: l for l in got}
        for key in sorted(set(w) | set(g), key=lambda k: int(k) if k.isdigit() else 0):
            if w.get(key) != g.get(key):
                print(f"  sim:     {w.get(key, '(none)')}")
                print(f"  harness: {g.get(key, '(none)')}")
    rnd = [n for n in failing if "/random/" in n]
    if rnd:
        smallest = min(rnd, key=lambda n: os.path.getsize(n))
        print(f"smallest failing random scenario: {smallest}")
        with open(smallest) as f:
            sys.stdout.write(f.read())
    print(f"harness {arch}: {passed} passed, {failed} failed, {skipped} skipped ({secs} s in QEMU)")
    return 1 if failed else 0


sys.exit(main())
