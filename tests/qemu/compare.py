#!/usr/bin/env python3
"""compare.py SIM.out HARNESS.out ARCH SECONDS: compare canonical lines per
file.  Files the harness skipped are counted as skipped, never as passed; a file
it cut at a line ("# cut N: why") is compared up to that line and says so
(cut before any line to compare: skipped);
its "# note ..." lines are printed, not compared.
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
    lines = lines_cut = cut_files = 0
    failing = []
    notes = []
    for name, want in sim.items():
        got = har.get(name)
        if got is None:
            print(f"MISSING {name}: the harness printed nothing for it")
            failed += 1
            continue
        # What the harness saw beyond the canonical lines ("# note ..."),
        # shown, not compared (x86: QEMU's extra #DB after a stepped
        # watchpoint, a departure the lines do not model).
        mine = [l[7:] for l in got if l.startswith("# note ")]
        if mine:
            notes.append((name, mine))
        got = [l for l in got if not l.startswith("# note ")]
        skips = [l for l in got if l.startswith("# skip")]
        if skips:
            skipped += 1
            print(f"skipped {name}: {skips[0][7:].strip()}")
            continue
        cuts = [l for l in got if l.startswith("# cut ")]
        if cuts:
            # Run up to line N (a line the harness cannot express): the
            # simulator's lines before N are compared, the rest are not.
            at = int(cuts[0][6:].split(":")[0])
            why = cuts[0].split(":", 1)[1].strip()
            got = [l for l in got if not l.startswith("#")]
            rest = [l for l in want if int(l.split(":")[0]) >= at]
            want = [l for l in want if int(l.split(":")[0]) < at]
            lines_cut += len(rest)
            if not want:
                # Nothing ran that the simulator has a line for: not a pass.
                skipped += 1
                print(f"skipped {name}: cut at line {at} before any line to compare: {why}")
                continue
            cut_files += 1
            print(f"cut {name} at line {at} ({len(want)} lines compared, {len(rest)} not run): {why}")
        lines += len(want)
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
    if notes:
        n = sum(len(m) for _, m in notes)
        print(f"notes: {n} in {len(notes)} files, first in {notes[0][0]}: {notes[0][1][0]}")
    rnd = [n for n in failing if "/random/" in n]
    if rnd:
        smallest = min(rnd, key=lambda n: os.path.getsize(n))
        print(f"smallest failing random scenario: {smallest}")
        with open(smallest) as f:
            sys.stdout.write(f.read())
    where = "on this CPU" if arch == "native" else "in QEMU"
    cut = f" ({cut_files} run up to a line they cannot express)" if cut_files else ""
    print(f"harness {arch}: {passed} passed{cut}, {failed} failed, {skipped} skipped; "
          f"{lines} lines compared" + (f", {lines_cut} not run" if lines_cut else "") +
          f" ({secs} s {where})")
    return 1 if failed else 0


sys.exit(main())
