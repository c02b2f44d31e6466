#!/usr/bin/env python3
"""What a race report says, and atomics that are no races
(tests/race/report/; suite hostbp: the debug registers must fire).

typed.c, built -O0 -g: a race on cfg.limits[2].hi between set_hi() and
get_hi(), each called from a thread function.  Within RUNS runs of
`hwbp race --json --stack 4` it must be found, and its report must say
  - the expression "cfg.limits[2].hi" (the variable's DWARF type walked
    down to the member: struct, array element, member);
  - each access's first caller: writer() for set_hi's write, reader() for
    get_hi's read, on the source line marked "caller: writer" /
    "caller: reader" in typed.c.

heap.c, built -O0 and -O2: a heap object a global pointer points at;
within RUNS runs the race on its rows[3].count must be found and named
"table->rows[3].count", and its _Atomic member epoch (release stores,
acquire loads: plain MOVs) must never be reported in any run, and be
judged atomic by its type at least once.

--only typed:get_* walks get_hi() alone; typed:nosuch_* is refused.

relaxed.c and relaxed.cpp, each built -O0 and -O2: C11 _Atomic and C++
std::atomic accessed with relaxed and acquire/release orders, every one a
plain MOV on x86-64.  In each of RUNS runs hwbp race must exit 0 with no
report, and over the runs it must have sampled something and judged at
least one access atomic by its type or its code ("atomic_by_type" > 0):
silence that comes from the types, not from sampling nothing.

argv: HWBP CC CXX SRCDIR.  Exit 0 all passed, 1 some failed."""
import json
import os
import subprocess
import sys
import tempfile

HWBP, CC, CXX, SRC = sys.argv[1:5]
RUNS = 5
TIMEOUT = 120


def build(compiler, src, exe, opt):
    b = subprocess.run([compiler, opt, "-g", "-pthread", "-o", exe, src], capture_output=True,
                       text=True)
    if b.returncode:
        sys.exit(f"FAIL {os.path.basename(src)} {opt}: does not build: {b.stderr.strip()}")


def race(exe, *opts):
    p = subprocess.run([HWBP, "race", "--json", "--rate", "50", *opts, "--", exe],
                       capture_output=True, text=True, timeout=TIMEOUT)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except json.JSONDecodeError:
        return p.returncode, None, p.stderr


def marked_line(src, mark):
    for n, line in enumerate(open(src), 1):
        if mark in line:
            return n
    sys.exit(f"{src}: no line marked '{mark}'")


def check_typed(tmp):
    src = os.path.join(SRC, "typed.c")
    exe = os.path.join(tmp, "typed")
    build(CC, src, exe, "-O0")
    want = {"set_hi": ("writer", marked_line(src, "caller: writer")),
            "get_hi": ("reader", marked_line(src, "caller: reader"))}
    for k in range(1, RUNS + 1):
        rc, rep, err = race(exe, "--stack", "4")
        if rep is None:
            return False, f"run {k}: exit {rc}, no JSON: {err.strip()[-300:]}"
        races = [r for r in rep["races"] if r["kind"] == "conflict" and
                 sorted(a["function"] or "?" for a in r["accesses"]) == ["get_hi", "set_hi"]]
        if not races:
            continue
        r = races[0]
        if rc != 66:
            return False, f"run {k}: found, yet exit status {rc} (66 wanted)"
        if r["expression"] != "cfg.limits[2].hi":
            return False, f"run {k}: expression {r['expression']!r}, not 'cfg.limits[2].hi'"
        for a in r["accesses"]:
            func, line = want[a["function"]]
            c = a["callers"][0] if a["callers"] else None
            if not c or c["function"] != func or c["line"] != line or c["file"] != "typed.c":
                return False, f"run {k}: {a['function']}'s first caller {c}, not {func} at " \
                              f"typed.c:{line}"
        return True, f"found in run {k}: cfg.limits[2].hi, callers writer:" \
                     f"{want['set_hi'][1]} and reader:{want['get_hi'][1]}"
    return False, f"not found in {RUNS} runs"


def check_only(tmp):
    """--only OBJ:FUNC samples those functions alone; a pattern that
    matches none is a usage error (exit 2, ENOENT), with nothing run."""
    exe = os.path.join(tmp, "typed")
    rc, rep, err = race(exe, "--only", "typed:get_*")
    if rep is None or rc not in (0, 66):
        return False, f"--only typed:get_*: exit {rc}: {err.strip()[-300:]}"
    if rep["functions"] != 1:
        return False, f"--only typed:get_*: {rep['functions']} functions walked, not 1 (get_hi)"
    rc, rep, err = race(exe, "--only", "typed:nosuch_*")
    if rc != 2 or "no function of typed matches" not in err or "ENOENT" not in err:
        return False, f"--only typed:nosuch_*: exit {rc}, {err.strip()[-200:]!r}"
    return True, "--only typed:get_* walked get_hi alone; typed:nosuch_* refused (ENOENT)"


def check_heap(tmp, opt):
    src = os.path.join(SRC, "heap.c")
    exe = os.path.join(tmp, "heap" + opt)
    build(CC, src, exe, opt)
    found = judged = 0
    for k in range(1, RUNS + 1):
        rc, rep, err = race(exe, "--stack", "0")
        if rep is None:
            return False, f"run {k}: exit {rc}, no JSON: {err.strip()[-300:]}"
        for r in rep["races"]:
            if r["expression"] != "table->rows[3].count":
                return False, f"run {k}: a report on {r['expression'] or r['where']!r}, only " \
                              "table->rows[3].count races"
        if rep["races"] and not found:
            found = k
        judged += rep["atomic_by_type"]
    if not found:
        return False, f"table->rows[3].count not found in {RUNS} runs"
    if not judged:
        return False, f"epoch never judged atomic in {RUNS} runs: its silence proves nothing"
    return True, f"table->rows[3].count found in run {found}; epoch never reported, " \
                 f"{judged} accesses atomic by type"


def check_relaxed(tmp, name, compiler, opt):
    src = os.path.join(SRC, name)
    exe = os.path.join(tmp, name.replace(".", "_") + opt)
    build(compiler, src, exe, opt)
    judged = samples = 0
    for k in range(1, RUNS + 1):
        rc, rep, err = race(exe)
        if rep is None:
            return False, f"run {k}: exit {rc}, no JSON: {err.strip()[-300:]}"
        if rc != 0 or rep["races"]:
            what = "; ".join(f"{r['kind']} on {r['expression'] or r['variable'] or r['where']}"
                             for r in rep["races"])
            return False, f"run {k}: exit {rc}, reported: {what}"
        judged += rep["atomic_by_type"]
        samples += rep["samples"]
    if not judged:
        return False, f"silent, but no access was judged atomic in {RUNS} runs " \
                      f"({samples} samples): the silence proves nothing"
    return True, f"silent in {RUNS} runs, {judged} accesses atomic by type or code"


def main():
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        cases = [("typed.c -O0", lambda: check_typed(tmp)),
                 ("typed --only", lambda: check_only(tmp)),
                 ("heap.c -O0", lambda: check_heap(tmp, "-O0")),
                 ("heap.c -O2", lambda: check_heap(tmp, "-O2"))]
        for name, compiler in (("relaxed.c", CC), ("relaxed.cpp", CXX)):
            for opt in ("-O0", "-O2"):
                cases.append((f"{name} {opt}",
                              lambda n=name, c=compiler, o=opt: check_relaxed(tmp, n, c, o)))
        for what, fn in cases:
            ok, text = fn()
            print(f"{'ok  ' if ok else 'FAIL'} {what:<16} {text}")
            fails += not ok
    print(f"race reports: {'all passed' if not fails else f'{fails} failed'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
