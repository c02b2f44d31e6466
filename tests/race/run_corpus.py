#!/usr/bin/env python3
"""The race corpus (tests/race/*.c, *.cpp): each program says what hwbp
race must find in a comment,

    expect: race FUNC FUNC     a race between an access in each function
                               (C++: the demangled name without its
                               parameters, Meter::record)
    expect: unseen FUNC        a value that FUNC's sampled access saw changed
                               by a writer no watch caught (the kernel)
    expect: none               no report at all
    runs: N                    how many runs a sampling detector is given
    lib: FILE.c                (optional) the program's own shared library,
                               built as libFILE.so beside it and linked in
    options: ARGS              (optional) hwbp race's options for it (the
                               objects to sample: --only libFILE.so)
    cflags: FLAGS              (optional) compiler flags after the corpus's
                               own (-O2: code as a release build has it)

A library's own source says `library of: PROG.c` and is no program.

Each program is built unmodified (cc -O0 -g -pthread; .cpp with c++) and
run under `hwbp race --json` up to N times: a racy one must be found within
them (exit status 66, a conflict whose two accesses are in those
functions), a race-free one must be silent in every run (exit status 0, no
report of any kind).  One line per program: what it expects, what
happened, the runs it took, and its wall time plain and under hwbp race
(the first run).  scripts/race-peers imports this file for the corpus's
list, expectations and builds.
argv: HWBP CC CXX SRCDIR [PROGRAM...]   (a program by its name: racy_global, mutex.cpp;
CXX '' when there is none: every
C++ program then fails, as one that does not build)
Exit status: 0 all passed, 1 a program failed."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

TIMEOUT = 120


class Program:
    """One corpus program: name, source path, language, expectation."""

    def __init__(self, src_dir, file):
        self.file = file
        self.path = os.path.join(src_dir, file)
        stem, ext = os.path.splitext(file)
        self.cxx = ext == ".cpp"
        # (mutex.c and mutex.cpp: the C++ one is named with its extension)
        self.name = file if self.cxx else stem
        text = open(self.path).read()
        m = re.search(r"expect: (race ([\w:~]+) ([\w:~]+)|unseen ([\w:~]+)|none)", text)
        n = re.search(r"runs: (\d+)", text)
        if not m or not n:
            sys.exit(f"{self.path}: no 'expect:' or 'runs:' line")
        self.runs = int(n.group(1))
        if m.group(2):
            self.want = ("conflict", sorted([m.group(2), m.group(3)]))
        elif m.group(4):
            self.want = ("unseen-writer", [m.group(4)])
        else:
            self.want = None
        lib = re.search(r"^\s*\* lib: (\S+)", text, re.M)
        self.lib = os.path.join(src_dir, lib.group(1)) if lib else None
        opts = re.search(r"^\s*\* options: (.*)$", text, re.M)
        self.options = opts.group(1).split() if opts else []
        cflags = re.search(r"^\s*\* cflags: (.*)$", text, re.M)
        self.cflags = cflags.group(1).split() if cflags else []

    @property
    def racy(self):
        return self.want is not None

    def expected(self):
        if self.want is None:
            return "none"
        return f"{'race' if self.want[0] == 'conflict' else 'unseen'} {' '.join(self.want[1])}"

    def build(self, out_dir, cc, cxx, flags=("-O0", "-g"), suffix=""):
        """Build into out_dir (the library first, beside the program,
        found through its rpath); the executable's path, or raise
        RuntimeError with the compiler's message."""
        exe = os.path.join(out_dir, self.name.replace(".", "_") + suffix)
        compiler = cxx if self.cxx else cc
        if not compiler:
            raise RuntimeError("no C++ compiler")
        extra = []
        if self.lib:
            stem = os.path.splitext(os.path.basename(self.lib))[0]
            so = os.path.join(out_dir, f"lib{stem}.so")
            b = subprocess.run([cc, *flags, *self.cflags, "-pthread", "-fPIC", "-shared", "-o", so, self.lib],
                               capture_output=True, text=True)
            if b.returncode:
                raise RuntimeError(b.stderr.strip())
            extra = [f"-L{out_dir}", f"-l{stem}", f"-Wl,-rpath,{out_dir}"]
        b = subprocess.run([compiler, *flags, *self.cflags, "-pthread", "-o", exe, self.path, *extra],
                           capture_output=True, text=True)
        if b.returncode:
            raise RuntimeError(b.stderr.strip())
        return exe


def corpus(src_dir, only=()):
    """The corpus's programs, sorted by file name (libraries left out)."""
    out = []
    for file in sorted(os.listdir(src_dir)):
        if not file.endswith((".c", ".cpp")):
            continue
        if "library of:" in open(os.path.join(src_dir, file)).read():
            continue
        p = Program(src_dir, file)
        if not only or p.name in only:
            out.append(p)
    return out


def function_name(f):
    """A report's function as the corpus names it: C++'s parameters cut."""
    return re.sub(r"\(.*$", "", f or "?")


def found(report, want):
    kind, funcs = want
    for r in report["races"]:
        if r["kind"] == kind and sorted(function_name(a["function"]) for a in r["accesses"]) == funcs:
            return True
    return False


def describe(report):
    out = []
    for r in report["races"]:
        funcs = "/".join(a["function"] or "?" for a in r["accesses"])
        out.append(f"{r['kind']} {funcs} on {r['variable'] or r['where']} x{r['count']}")
    return "; ".join(out)


def timed(argv):
    t = time.monotonic()
    p = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT)
    return p, time.monotonic() - t


def check(hwbp, exe, prog):
    """(ok, result text, runs used, race wall time of run 1)"""
    first = None
    for k in range(1, prog.runs + 1):
        out = exe + ".json"
        p, dt = timed([hwbp, "race", *prog.options, "--json", "-o", out, "--", exe])
        first = first if first is not None else dt
        try:
            report = json.load(open(out))
        except (OSError, ValueError):
            return False, f"run {k}: exit {p.returncode}, no JSON: {p.stderr.strip()[-300:]}", k, first
        if not prog.racy:
            if p.returncode != 0 or report["races"]:
                return False, f"run {k}: exit {p.returncode}, reported: {describe(report)}", k, first
        elif p.returncode == 66 and found(report, prog.want):
            return True, f"found in run {k}: {describe(report)}", k, first
        elif p.returncode not in (0, 66):
            return False, f"run {k}: exit {p.returncode}: {p.stderr.strip()[-300:]}", k, first
    if not prog.racy:
        return True, f"silent in all {prog.runs} runs", prog.runs, first
    return False, f"not found in {prog.runs} runs", prog.runs, first


def main():
    hwbp, cc, cxx, src = sys.argv[1:5]
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        for prog in corpus(src, set(sys.argv[5:])):
            try:
                exe = prog.build(tmp, cc, cxx)
            except RuntimeError as e:
                print(f"FAIL {prog.file}: does not build: {e}")
                fails += 1
                continue
            _, plain = timed([exe])
            ok, what, used, raced = check(hwbp, exe, prog)
            print(f"{'ok  ' if ok else 'FAIL'} {prog.name:<20} expect {prog.expected():<28} {what} "
                  f"[{used}/{prog.runs} runs; plain {plain:.2f} s, under hwbp race {raced:.2f} s]",
                  flush=True)
            fails += not ok
    print(f"race corpus: {'all passed' if not fails else f'{fails} failed'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
