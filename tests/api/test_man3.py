#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The section 3 pages (docs/man3, from scripts/gen-man3):
  1. drift: the generator, run again into a temporary directory, writes
     exactly docs/man3 (every page and docs/man3/meson.build);
  2. exports: every function the built libhwbp.so, libhwbp-sim.so and
     libhwbp-trace.so export (nm -D --defined-only) has a page (a file
     NAME.3, a page or a .so link to the page that names it) which says to
     link that library; every function a page names is exported by the
     library it names, or is defined inline in the header its SYNOPSIS
     includes; the version maps (generic/libhwbp.map, sim/libhwbp-sim.map,
     tracer/libhwbp-trace.map) give each exported symbol its version node
     and export what they name; exported data symbols need no page and
     are listed;
  3. glue: the functions arch/<a>/glue.h declares and arch/<a>/glue*.c
     define have pages, those the kernel provides (declared, not defined)
     have none; every glue page names a function of some arch's glue.h;
     with --glue, nm of the built libhwbp-glue.a (and libhwbp-glue-sbi.a)
     exports exactly the host arch's glue.c (glue_sbi.c) functions;
  4. rendering: each page renders with man -l and groff -man -ww -z without
     a word on stderr, has the sections of a library page, hwbp's version
     in its footer, a NAME line lexgrog reads, and SEE ALSO entries that
     exist.  Without man or groff: SKIP (exit 77) after 1-3 passed.
argv: --src DIR --lib PC LIB.so ... [--glue ARCH LIB.a] [--glue-sbi LIB.a]
"""
import argparse
import filecmp
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile

SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "RETURN VALUE", "ERRORS", "CONTEXT", "SEE ALSO"]
OVERVIEW = {"libhwbp", "hwbp"}
MAPS = {"hwbp": "generic/libhwbp.map", "hwbp-sim": "sim/libhwbp-sim.map",
        "hwbp-trace": "tracer/libhwbp-trace.map"}
HEADERS = ["hwbp/hwbp.h", "hwbp/sim.h", "hwbp/trace.h", "hwbp/hist.h"]
ENV = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="100", MAN_DISABLE_SECCOMP="1")

fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL " + msg)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, env=ENV, timeout=120, **kw)


def unroff(s):
    """A roff line's text: fonts, quotes and escapes out."""
    s = re.sub(r"\\f[BIRP]", "", s)
    s = s.replace("\\-", "-").replace("\\e", "\\").replace("\\(dq", '"').replace("\\&", "")
    return s


# ------------------------------------------------------------------ pages
class Page:
    def __init__(self, path):
        self.file = os.path.basename(path)
        with open(path, encoding="utf-8") as f:
            self.raw = f.read()
        self.link = None
        m = re.fullmatch(r"\.so man3/(\S+)\n", self.raw)
        if m:
            self.link = m.group(1)
            return
        lines = self.raw.split("\n")
        k = lines.index(".SH NAME")
        name_line = unroff(lines[k + 1])
        self.names = [n.strip() for n in name_line.split(" - ", 1)[0].split(",")]
        syn = lines[lines.index(".SH SYNOPSIS"):lines.index(".SH DESCRIPTION")]
        self.synopsis = "\n".join(syn)
        text = " ".join(unroff(re.sub(r'^\.BI? ', "", l)).replace('"', "")
                        for l in syn if l.startswith((".BI ", ".B ")))
        self.protos = re.findall(r"\b(hwbp_\w+)\(", text)
        m = re.search(r"#include <(hwbp/[\w.]+)>", text)
        self.include = m.group(1) if m else None
        m = re.search(r"Link with \\fB(\S+?)\\fR", self.raw)
        self.lib = unroff(m.group(1)) if m else None
        self.inline = "Defined inline in" in self.raw
        self.see_also = re.findall(r"\\fB([\w\\-]+)\\fR\((\d)\)",
                                   self.raw.split(".SH SEE ALSO", 1)[-1])


def load_pages(d):
    pages = {}
    for f in sorted(os.listdir(d)):
        if f.endswith(".3"):
            pages[f] = Page(os.path.join(d, f))
    return pages


def page_of(pages, fn):
    """The page that documents @fn, through its NAME.3 file."""
    p = pages.get(fn + ".3")
    if p and p.link:
        p = pages.get(p.link)
    if p and not p.link and fn in p.names:
        return p
    return None


# --------------------------------------------------------------- 1. drift
def check_drift(src, mandir):
    tmp = tempfile.mkdtemp(prefix="hwbp-man3-")
    try:
        g = run([sys.executable, os.path.join(src, "scripts", "gen-man3"), "--out", tmp])
        if g.returncode != 0:
            fail(f"scripts/gen-man3 failed: {g.stderr.strip()}")
            return
        want, have = set(os.listdir(tmp)), set(os.listdir(mandir))
        for f in sorted(want - have):
            fail(f"drift: docs/man3/{f} missing (scripts/gen-man3 writes it)")
        for f in sorted(have - want):
            fail(f"drift: docs/man3/{f} is not the generator's")
        for f in sorted(want & have):
            if not filecmp.cmp(os.path.join(tmp, f), os.path.join(mandir, f), shallow=False):
                fail(f"drift: docs/man3/{f} differs from what scripts/gen-man3 writes "
                     f"(run scripts/gen-man3 and commit)")
        print(f"drift: {len(want)} files generated, {len(want & have)} compared")
    finally:
        shutil.rmtree(tmp)


# ------------------------------------------------------------- 2. exports
def exports(lib):
    """{name: (type, version)} of what @lib exports (nm -D --defined-only)."""
    p = run(["nm", "-D", "--defined-only", lib])
    if p.returncode != 0:
        fail(f"nm -D {lib}: {p.stderr.strip()}")
        return {}
    res = {}
    for l in p.stdout.splitlines():
        parts = l.split()
        if len(parts) != 3 or parts[1] == "A":
            continue
        name, _, ver = parts[2].partition("@")
        res[name] = (parts[1], ver.lstrip("@"))
    return res


def read_map(path):
    """[(node, [global patterns])] of a version script."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    res = []
    for m in re.finditer(r"([\w.]+)\s*\{(.*?)\}", text, re.S):
        body = m.group(2)
        g = re.search(r"global:(.*?)(?:local:|$)", body, re.S)
        pats = [p.strip() for p in (g.group(1) if g else body).split(";") if p.strip()]
        res.append((m.group(1), pats))
    return res


def check_map(pc, lib, syms, src):
    nodes = read_map(os.path.join(src, MAPS[pc]))
    names = {n for n, _ in nodes}
    explicit = {p: n for n, ps in nodes for p in ps if not any(c in p for c in "*?[")}
    for s, (_, ver) in sorted(syms.items()):
        if ver not in names:
            fail(f"{lib}: {s} has version {ver or '(none)'}, not a node of {MAPS[pc]}")
            continue
        want = explicit.get(s)
        if want and want != ver:
            fail(f"{lib}: {s} is {ver}, {MAPS[pc]} puts it in {want}")
        if not want and not any(fnmatch.fnmatchcase(s, p)
                                for n, ps in nodes if n == ver for p in ps):
            fail(f"{lib}: {s} matches no global pattern of {ver} in {MAPS[pc]}")
    for s, n in sorted(explicit.items()):
        if s not in syms:
            fail(f"{MAPS[pc]}: {n} names {s}, which {os.path.basename(lib)} does not export")


def check_exports(libs, pages, src):
    funcs = {}        # function -> pkg-config name of its library
    data = []
    for pc, lib in libs.items():
        syms = exports(lib)
        check_map(pc, lib, syms, src)
        for s, (t, _) in syms.items():
            if t in "TtWiI":
                funcs[s] = pc
            else:
                data.append(f"{s} ({t}, {os.path.basename(lib)})")
    for s, pc in sorted(funcs.items()):
        p = page_of(pages, s)
        if not p:
            fail(f"{s} (exported by lib{pc}) has no page: docs/man3/{s}.3")
        elif p.lib != "lib" + pc:
            fail(f"{p.file}: says to link {p.lib}, {s} is in lib{pc}")
    headers = {}
    for h in HEADERS:
        with open(os.path.join(src, "include", h), encoding="utf-8") as f:
            headers[h] = f.read()
    n = 0
    for p in pages.values():
        if p.link:
            if p.link not in pages or pages[p.link].link:
                fail(f"{p.file}: .so man3/{p.link}, which is no page")
            elif p.file[:-2] not in pages[p.link].names:
                fail(f"{p.file}: links to {p.link}, whose NAME does not name it")
            continue
        if set(p.names) & OVERVIEW or p.include == "hwbp/glue.h":
            continue
        for fn in p.names:
            n += 1
            if fn + ".3" not in pages:
                fail(f"{p.file}: names {fn}, but there is no {fn}.3 (page or .so link)")
            if fn not in p.protos:
                fail(f"{p.file}: names {fn}, its SYNOPSIS declares {p.protos}")
            if fn in funcs:
                continue
            inline = re.search(r"static inline [^;{]*\b" + fn + r"\(", headers.get(p.include, ""))
            if not (p.inline and inline):
                fail(f"{p.file}: {fn} is exported by none of the libraries "
                     f"(nor inline in <{p.include}>)")
    print(f"exports: {len(funcs)} exported functions, {n} functions named by "
          f"{sum(1 for p in pages.values() if not p.link)} pages; exported data symbols "
          f"(no page needed): {', '.join(data) if data else 'none'}")


# ---------------------------------------------------------------- 3. glue
def glue_decls(src, arch):
    with open(os.path.join(src, "arch", arch, "glue.h"), encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    return set(re.findall(r"\b(hwbp_\w+)\s*\(", text))


def glue_defs(src, arch, file):
    p = os.path.join(src, "arch", arch, file)
    if not os.path.exists(p):
        return set()
    with open(p, encoding="utf-8") as f:
        return set(re.findall(r"^(?!static\b)[a-z][\w \*]*?\b(hwbp_\w+)\(", f.read(), re.M))


def nm_functions(archive):
    p = run(["nm", "--defined-only", archive])
    if p.returncode != 0:
        fail(f"nm {archive}: {p.stderr.strip()}")
        return set()
    return {l.split()[2] for l in p.stdout.splitlines()
            if len(l.split()) == 3 and l.split()[1] in "TW"}


def check_glue(src, pages, glue, glue_sbi):
    arches = sorted(d for d in os.listdir(os.path.join(src, "arch"))
                    if os.path.exists(os.path.join(src, "arch", d, "glue.h")))
    declared = set()
    lib_funcs = set()
    for a in arches:
        decls = glue_decls(src, a)
        declared |= decls
        defs = glue_defs(src, a, "glue.c") | glue_defs(src, a, "glue_sbi.c")
        for fn in sorted(decls):
            p = page_of(pages, fn)
            if fn in defs:
                lib_funcs.add(fn)
                if not p:
                    fail(f"{a}: {fn} (arch/{a}/glue*.c) has no page")
                elif p.include != "hwbp/glue.h":
                    fail(f"{p.file}: {fn} is a glue function, the page includes <{p.include}>")
            elif p:
                fail(f"{p.file}: {fn} is the kernel's (arch/{a}/glue.h declares it, "
                     f"no glue*.c defines it), not the library's")
    for p in pages.values():
        if not p.link and p.include == "hwbp/glue.h":
            for fn in p.names:
                if fn not in lib_funcs:
                    fail(f"{p.file}: {fn} is declared by no arch/*/glue.h or defined by no "
                         f"arch/*/glue*.c")
    print(f"glue: {len(lib_funcs)} library functions declared in {len(arches)} glue.h, "
          f"{len(declared - lib_funcs)} kernel primitives without a page")
    for file, archive in (("glue.c", glue[1] if glue else None), ("glue_sbi.c", glue_sbi)):
        if not archive:
            continue
        arch = glue[0]
        want = glue_defs(src, arch, file)
        have = nm_functions(archive)
        for fn in sorted(want - have):
            fail(f"{os.path.basename(archive)}: arch/{arch}/{file} defines {fn}, nm does not "
                 f"list it")
        for fn in sorted(have - want):
            fail(f"{os.path.basename(archive)}: exports {fn}, which arch/{arch}/{file} does "
                 f"not define")
        for fn in sorted(have):
            if not page_of(pages, fn):
                fail(f"{os.path.basename(archive)}: {fn} has no page")
        print(f"glue: {os.path.basename(archive)} exports {len(have)} functions, each with "
              f"its page")


# ------------------------------------------------------------ 4. rendering
def check_render(src, mandir, pages):
    version = re.search(r"version: '([^']+)'",
                        open(os.path.join(src, "meson.build"), encoding="utf-8").read()).group(1)
    missing = [t for t in ("man", "groff") if not shutil.which(t)]
    if missing:
        return f"{' and '.join(missing)} not installed (Debian: man-db, groff-base)"
    cwd = os.path.dirname(mandir)        # ".so man3/X.3" is relative to the man tree
    section1 = {f[:-2] for f in os.listdir(os.path.join(src, "docs", "man")) if f.endswith(".1")}
    for f, p in pages.items():
        g = run(["groff", "-man", "-Tutf8", "-ww", "-z", os.path.join("man3", f)], cwd=cwd)
        if g.returncode != 0 or g.stderr.strip():
            fail(f"{f}: groff -ww: {g.stderr.strip()}")
        m = run(["man", "-l", os.path.join("man3", f)], cwd=cwd)
        if m.returncode != 0 or m.stderr.strip():
            fail(f"{f}: man -l: exit {m.returncode}: {m.stderr.strip()}")
            continue
        t = re.sub(r".\x08", "", m.stdout)
        if p.link:
            continue
        if f"hwbp {version}" not in t:
            fail(f"{f}: no 'hwbp {version}' in the footer")
        secs = ["NAME", "SYNOPSIS", "DESCRIPTION", "SEE ALSO"] if set(p.names) & OVERVIEW \
            else SECTIONS
        for s in secs:
            if not re.search(rf"^{s}$", t, re.M):
                fail(f"{f}: no section {s}")
        if not (set(p.names) & OVERVIEW) and not re.search(
                r"^\s+(Link\s+with\s+lib|Defined\s+inline\s+in\s+<hwbp/)", t, re.M):
            fail(f"{f}: SYNOPSIS names no library to link")
        for name, sec in p.see_also:
            name = name.replace("\\-", "-")
            if (sec == "3" and name + ".3" not in pages) or (sec == "1" and name not in section1):
                fail(f"{f}: SEE ALSO {name}({sec}), no such page")
        if shutil.which("lexgrog"):
            lg = run(["lexgrog", os.path.join("man3", f)], cwd=cwd)
            if lg.returncode != 0 or f'"{p.names[0]} - ' not in lg.stdout:
                fail(f"{f}: lexgrog reads no NAME line: {lg.stdout.strip()} {lg.stderr.strip()}")
    print(f"rendering: {len(pages)} pages through man -l and groff -ww")
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--lib", nargs=2, action="append", default=[], metavar=("PC", "LIB"))
    ap.add_argument("--glue", nargs=2, metavar=("ARCH", "LIB"))
    ap.add_argument("--glue-sbi", metavar="LIB")
    args = ap.parse_args()
    src = os.path.abspath(args.src)
    mandir = os.path.join(src, "docs", "man3")
    libs = dict(args.lib)
    if set(libs) != set(MAPS):
        fail(f"--lib gives {sorted(libs)}, the libraries are {sorted(MAPS)}")
    check_drift(src, mandir)
    pages = load_pages(mandir)
    check_exports(libs, pages, src)
    check_glue(src, pages, args.glue, args.glue_sbi)
    skip = check_render(src, mandir, pages)
    print(f"{len(pages)} files, {len(fails)} failures")
    if fails:
        return 1
    if skip:
        print(f"SKIP: rendering not checked: {skip}")
        return 77
    return 0


sys.exit(main())
