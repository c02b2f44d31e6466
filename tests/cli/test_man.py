#!/usr/bin/env python3
"""The man pages: each renders with man -l and groff without a warning, has
the sections of a manual page and version 0.2.0, and mentions every option
its command's --help lists; every command of `hwbp --help` has a page.
argv: HWBP MANDIR"""
import os
import re
import subprocess
import sys

HWBP, MANDIR = sys.argv[1], sys.argv[2]
ENV = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="1000", MAN_DISABLE_SECCOMP="1")
SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"]
# An option in --help: after a blank or [ ( | , and ending in a letter or
# digit ("-w-" in an entry like buf+8/16:-w- is no option).
# References to other commands ("see hwbp caps --list") and valgrind's
# own options in a --help are not the command's options.
NOT_OPTIONS = re.compile(r"hwbp \w+ --\w[\w-]*|valgrind( --[\w=-]+)+")
OPTION = re.compile(r"(?:^|(?<=[\s\[(|,]))(--?[a-z][a-z0-9-]*[a-z0-9]|-[a-z])(?![\w-])", re.M)


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, env=ENV, timeout=60)


def commands():
    out = run([HWBP, "--help"]).stdout
    return re.findall(r"^  (\w+)\s+\S", out.split("commands:", 1)[1], re.M)


def help_options(cmd):
    p = run([HWBP] + cmd + ["--help"])
    return p.returncode, sorted(set(OPTION.findall(NOT_OPTIONS.sub("", p.stdout))))


def rendered(page):
    """man -l's text, with the dashes groff may print as other characters."""
    p = run(["man", "-l", page])
    text = p.stdout.replace("\u2010", "-").replace("\u2212", "-").replace("\u2011", "-")
    return p, re.sub(r".\x08", "", text)


def check_page(name, cmd):
    fails = []
    page = os.path.join(MANDIR, name + ".1")
    if not os.path.exists(page):
        return [f"{name}.1 is missing"]
    g = run(["groff", "-man", "-Tutf8", "-ww", "-z", page])
    if g.returncode != 0 or g.stderr:
        fails.append(f"groff warns: {g.stderr.strip()}")
    p, text = rendered(page)
    if p.returncode != 0 or p.stderr.strip():
        fails.append(f"man -l: exit {p.returncode}: {p.stderr.strip()}")
    first = text.strip().splitlines()[0] if text.strip() else ""
    if name.upper() not in first:
        fails.append(f"header line {first!r} does not name {name.upper()}")
    if "hwbp 0.2.0" not in text:
        fails.append("no 'hwbp 0.2.0' in the page's footer")
    for s in SECTIONS:
        if not re.search(rf"^{s}$", text, re.M):
            fails.append(f"no section {s}")
    rc, opts = help_options(cmd)
    if rc != 0 or not opts:
        fails.append(f"hwbp {' '.join(cmd)} --help: exit {rc}, options {opts}")
    for o in opts:
        if not re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", text):
            fails.append(f"does not mention {o} (listed by hwbp {' '.join(cmd)} --help)")
    return fails


def main():
    pages = [("hwbp", [])] + [("hwbp-" + c, [c]) for c in commands()]
    fails = 0
    if len(pages) < 8:
        print(f"FAIL: hwbp --help lists only {[p for p, _ in pages[1:]]}")
        fails += 1
    for name, cmd in pages:
        for f in check_page(name, cmd):
            print(f"FAIL {name}.1: {f}")
            fails += 1
    print(f"{len(pages)} pages, {fails} failures")
    return 1 if fails else 0


sys.exit(main())
