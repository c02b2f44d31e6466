#!/usr/bin/env python3
"""The race corpus (tests/race/*.c): each program says what hwbp race must
find in a comment,

    expect: race FUNC FUNC     a race between an access in each function
    expect: unseen FUNC        a value that FUNC's sampled access saw changed
                               by a writer no watch caught (the kernel)
    expect: none               no report at all
    runs: N                    how many runs a sampling detector is given

It is built unmodified (cc -O0 -g -pthread) and run under `hwbp race --json`
up to N times: a racy program must be found within them (exit status 66, a
conflict whose two accesses are in those functions), a race-free one must
be silent in every run (exit status 0, no report of any kind).  One line per
program: what it expects, what happened, the runs it took, and its wall time
plain and under hwbp race (the first run).
argv: HWBP CC SRCDIR [PROGRAM...]"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HWBP, CC, SRC = sys.argv[1], sys.argv[2], sys.argv[3]
ONLY = set(sys.argv[4:])
TIMEOUT = 120


def expectation(path):
    text = open(path).read()
    m = re.search(r"expect: (race (\w+) (\w+)|unseen (\w+)|none)", text)
    n = re.search(r"runs: (\d+)", text)
    if not m or not n:
        sys.exit(f"{path}: no 'expect:' or 'runs:' line")
    if m.group(2):
        return ("conflict", sorted([m.group(2), m.group(3)])), int(n.group(1))
    if m.group(4):
        return ("unseen-writer", [m.group(4)]), int(n.group(1))
    return None, int(n.group(1))


def timed(argv):
    t = time.monotonic()
    p = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT)
    return p, time.monotonic() - t


def found(report, want):
    kind, funcs = want
    for r in report["races"]:
        if r["kind"] == kind and sorted(a["function"] or "?" for a in r["accesses"]) == funcs:
            return True
    return False


def describe(report):
    out = []
    for r in report["races"]:
        funcs = "/".join(a["function"] or "?" for a in r["accesses"])
        out.append(f"{r['kind']} {funcs} on {r['variable'] or r['where']} x{r['count']}")
    return "; ".join(out)


def check(exe, pair, runs):
    """(ok, result text, runs used, race wall time of run 1)"""
    first = None
    for k in range(1, runs + 1):
        out = exe + ".json"
        p, dt = timed([HWBP, "race", "--json", "-o", out, "--", exe])
        first = first if first is not None else dt
        try:
            report = json.load(open(out))
        except (OSError, ValueError):
            return False, f"run {k}: exit {p.returncode}, no JSON: {p.stderr.strip()[-300:]}", k, first
        if pair is None:
            if p.returncode != 0 or report["races"]:
                return False, f"run {k}: exit {p.returncode}, reported: {describe(report)}", k, first
        elif p.returncode == 66 and found(report, pair):
            return True, f"found in run {k}: {describe(report)}", k, first
        elif p.returncode not in (0, 66):
            return False, f"run {k}: exit {p.returncode}: {p.stderr.strip()[-300:]}", k, first
    if pair is None:
        return True, f"silent in all {runs} runs", runs, first
    return False, f"not found in {runs} runs", runs, first


def main():
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(SRC)):
            if not name.endswith(".c") or (ONLY and name[:-2] not in ONLY):
                continue
            path = os.path.join(SRC, name)
            pair, runs = expectation(path)
            exe = os.path.join(tmp, name[:-2])
            b = subprocess.run([CC, "-O0", "-g", "-pthread", "-o", exe, path], capture_output=True,
                               text=True)
            if b.returncode:
                print(f"FAIL {name}: does not build: {b.stderr.strip()}")
                fails += 1
                continue
            _, plain = timed([exe])
            ok, what, used, raced = check(exe, pair, runs)
            want = f"{'race' if pair[0] == 'conflict' else 'unseen'} {' '.join(pair[1])}" \
                if pair else "none"
            print(f"{'ok  ' if ok else 'FAIL'} {name[:-2]:<20} expect {want:<28} {what} "
                  f"[{used}/{runs} runs; plain {plain:.2f} s, under hwbp race {raced:.2f} s]")
            fails += not ok
    print(f"race corpus: {'all passed' if not fails else f'{fails} failed'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
