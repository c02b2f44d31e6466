#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_compare.py: compare.py's verdicts, table-driven: equal files pass, a
different line fails, a skipped file is counted as skipped (never passed), a
file the harness cut at line N is compared before N only and said so
(cut before its first line to compare: skipped), a
difference before the cut still fails, a missing file fails, a "# note"
line is reported and not compared."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

SIM = ["== f", "3: none", "5: class=db slots=dr0", "9: class=db slots=dr1", "== END"]

# (what, harness lines, exit status, words the summary line must hold)
ROWS = [
    ("equal", SIM, 0, ["1 passed", "0 failed", "0 skipped", "3 lines compared"]),
    ("one line differs", ["== f", "3: none", "5: none", "9: class=db slots=dr1", "== END"], 1,
     ["0 passed", "1 failed"]),
    ("skipped", ["== f", "# skip: cannot make this access", "== END"], 0,
     ["0 passed", "0 failed", "1 skipped"]),
    ("cut after line 5", ["== f", "3: none", "5: class=db slots=dr0", "# cut 7: ring 0", "== END"], 0,
     ["1 passed (1 run up to a line they cannot express)", "0 failed", "2 lines compared",
      "1 not run"]),
    ("cut, and a difference before it", ["== f", "3: class=db slots=dr0", "# cut 7: ring 0", "== END"],
     1, ["0 passed", "1 failed"]),
    # Cut before any line to compare: nothing passed, so it is skipped.
    ("cut at the first line", ["== f", "# cut 1: GD", "== END"], 0,
     ["0 passed", "0 failed", "1 skipped", "0 lines compared", "3 not run"]),
    ("missing", ["== g", "== END"], 1, ["0 passed", "1 failed"]),
    # A note is shown, not compared: the file still passes...
    ("a note", ["== f", "3: none", "# note x86: an extra #DB", "5: class=db slots=dr0",
                "9: class=db slots=dr1", "== END"], 0, ["1 passed", "0 failed", "3 lines compared"]),
    # ...and hides no difference.
    ("a note and a difference", ["== f", "3: none", "# note x86: an extra #DB", "5: none",
                                 "9: class=db slots=dr1", "== END"], 1, ["0 passed", "1 failed"]),
]


def main():
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        sim = os.path.join(d, "sim.out")
        with open(sim, "w") as f:
            f.write("\n".join(SIM) + "\n")
        for what, lines, want_rc, words in ROWS:
            har = os.path.join(d, "harness.out")
            with open(har, "w") as f:
                f.write("\n".join(lines) + "\n")
            p = subprocess.run([sys.executable, os.path.join(HERE, "compare.py"), sim, har, "x", "0"],
                               capture_output=True, text=True)
            summary = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
            missing = [w for w in words if w not in summary]
            if p.returncode != want_rc or missing:
                bad += 1
                print(f"FAIL {what}: exit {p.returncode} (want {want_rc}), summary {summary!r}, "
                      f"lacks {missing}")
            else:
                print(f"ok {what}")
    print(f"{len(ROWS) - bad} passed, {bad} failed")
    return 1 if bad else 0


sys.exit(main())
