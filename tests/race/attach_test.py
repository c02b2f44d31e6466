#!/usr/bin/env python3
"""hwbp race -p on a running process, and -- CMD stopped by --duration
(tests/race/attach/spin.c: two threads racing on a counter).

Attached: the race is found (exit 66, spin_bump against itself), and the
process is left as it was: no tracer, its code byte for byte the file's
(every trap taken out), and it runs on to its own end, exit 0 (a trap or
a watch left behind would kill it with SIGTRAP); attached a second time,
the same.  Started with --duration: the command gets SIGTERM, and the
race found still gives 66.
argv: HWBP CC SRCDIR"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HWBP, CC, SRC = sys.argv[1:4]
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL", what)


def text_section(exe):
    """(.text address, size) from readelf -SW."""
    out = subprocess.run(["readelf", "-SW", exe], capture_output=True, text=True).stdout
    m = re.search(r"\] \.text\s+PROGBITS\s+([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+)", out)
    return int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)


def load_base(pid, exe):
    for line in open(f"/proc/{pid}/maps"):
        f = line.split()
        if len(f) >= 6 and os.path.realpath(f[5]) == os.path.realpath(exe) and int(f[2], 16) == 0:
            return int(f[0].split("-")[0], 16)
    return None


def code_intact(pid, exe):
    addr, off, size = text_section(exe)
    with open(exe, "rb") as fh:
        fh.seek(off)
        want = fh.read(size)
    with open(f"/proc/{pid}/mem", "rb") as mem:
        mem.seek(load_base(pid, exe) + addr)
        got = mem.read(size)
    return got == want


def race(args, out):
    p = subprocess.run([HWBP, "race", "--json", "-o", out] + args, capture_output=True, text=True,
                       timeout=120)
    try:
        report = json.load(open(out))
    except (OSError, ValueError):
        report = {"races": []}
    pairs = [sorted(a["function"] or "?" for a in r["accesses"]) for r in report["races"]
             if r["kind"] == "conflict"]
    return p, pairs


def main():
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "spin")
        subprocess.run([CC, "-O0", "-g", "-pthread", "-o", exe, os.path.join(SRC, "attach", "spin.c")],
                       check=True)
        prog = subprocess.Popen([exe, "stdin"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True)
        check(prog.stdout.readline().strip() == "ready", "spin did not start")
        for n in (1, 2):
            p, pairs = race(["-p", str(prog.pid), "--duration", "0.7"], os.path.join(tmp, f"a{n}.json"))
            check(p.returncode == 66 and ["spin_bump", "spin_bump"] in pairs,
                  f"attach {n}: exit {p.returncode}, races {pairs}: {p.stderr.strip()[-300:]}")
            status = open(f"/proc/{prog.pid}/status").read()
            check(re.search(r"TracerPid:\s+0\n", status) is not None, f"attach {n}: still traced")
            check(code_intact(prog.pid, exe), f"attach {n}: the code is not the file's")
            time.sleep(0.2)
        rest = prog.communicate(input="stop\n", timeout=60)[0]
        check(prog.returncode == 0 and rest.startswith("done"),
              f"after the attaches: exit {prog.returncode}, output {rest!r}")
        p, pairs = race(["--duration", "0.7", "--", exe, "30"], os.path.join(tmp, "c.json"))
        check(p.returncode == 66 and ["spin_bump", "spin_bump"] in pairs,
              f"-- CMD --duration: exit {p.returncode}, races {pairs}")
        check("exit_status\": 143" in open(os.path.join(tmp, "c.json")).read(),
              "-- CMD --duration: the command did not end by SIGTERM (143)")
    print(f"attach: {'all passed' if not fails else f'{len(fails)} failed'}")
    return 1 if fails else 0


sys.exit(main())
