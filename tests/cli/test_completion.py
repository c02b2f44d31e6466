#!/usr/bin/env python3
"""The bash completion: sourced into plain bash (no bash-completion
package), asked for each command line of a table, compared with what hwbp
itself says (its commands, each command's --help, `caps --list`).
argv: HWBP COMPLETION_FILE"""
import re
import shlex
import subprocess
import sys

HWBP, SCRIPT = sys.argv[1], sys.argv[2]
# References to other commands ("see hwbp caps --list") and valgrind's
# own options in a --help are not the command's options.
NOT_OPTIONS = re.compile(r"hwbp \w+ --\w[\w-]*|valgrind( --[\w=-]+)+")
OPTION = re.compile(r"(?:^|(?<=[\s\[(|,]))(--?[a-z][a-z0-9-]*[a-z0-9]|-[a-z])(?![\w-])", re.M)


def out(args):
    return subprocess.run([HWBP] + args, capture_output=True, text=True, timeout=30).stdout


def complete(words):
    """COMPREPLY for a command line whose last word is being typed; words
    split as readline does by default ("=" is a word of its own)."""
    line = " ".join(shlex.quote(w) for w in [HWBP] + words)
    script = (f"source {shlex.quote(SCRIPT)} || exit 3\n"
              f"COMP_WORDS=({line}); COMP_CWORD={len(words)}\n"
              "_hwbp; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True,
                       text=True, timeout=30)
    return p.returncode, set(filter(None, p.stdout.split("\n"))), p.stderr


COMMANDS = re.findall(r"^  (\w+)\s+\S", out(["--help"]).split("commands:", 1)[1], re.M)
PRESETS = {l.split()[0] for l in out(["caps", "--list"]).splitlines()}


def help_options(cmd, prefix):
    text = NOT_OPTIONS.sub("", out(cmd + ["--help"]))
    return {o for o in OPTION.findall(text) if o.startswith(prefix)}


# (words, expected set, or a callable giving it).  Exact, but for trace
# (whose options its own helper owns): there every option its --help
# lists must be completed, and --help, --version and the long forms of
# -e and -p may be completed too.
TRACE_EXTRA = {"--help", "--version", "--event", "--pid"}
CASES = [
    ([""], lambda: set(COMMANDS) | {"help", "--help", "--version"}),
    (["pl"], {"plan"}),
    (["--v"], {"--version"}),
    (["help", "en"], {"encode"}),
    (["bench", ""], {"sim", "trace", "--help", "--version"}),
    (["caps", "--cpu", ""], lambda: PRESETS | {"host"}),
    (["plan", "--cpu", "=", ""], lambda: PRESETS | {"host"}),
    (["encode", "--cpu", "h"], {"host"}),
    (["trace", "--cpu", ""], lambda: PRESETS),
    (["plan", "--cpu", "=", "cortex"], lambda: {p for p in PRESETS if p.startswith("cortex")}),
    (["trace", "--cpu", "power1"], lambda: {p for p in PRESETS if p.startswith("power1")}),
    (["plan", "--scope", "k"], {"kernel"}),
    (["encode", "--scope", "=", ""], {"user", "kernel", "both"}),
    (["sim", "--profile", ""], {"sdm", "qemu"}),
    (["trace", "--format", ""], {"text", "ctf"}),
    (["trace", "--backend", "p"], {"ptrace", "perf"}),
    (["bench", "trace", "--l"], {"--lookups", "--lackey-mb"}),
    (["bench", "sim", "--a"], {"--accesses"}),
    (["plan", "0x1000", "4", ""], set()),
]
# Each command's options are exactly those its --help lists.
for cmd in [[c] for c in COMMANDS if c != "bench"] + [["bench", "sim"], ["bench", "trace"]]:
    CASES.append((cmd + ["--"], (lambda c: lambda: help_options(c, "--"))(cmd)))
CASES.append((["trace", "-"], lambda: help_options(["trace"], "-") | {"--"}))


def main():
    fails = 0
    if not PRESETS or len(COMMANDS) < 7:
        print(f"FAIL: hwbp gave commands {COMMANDS}, presets {PRESETS}")
        fails += 1
    for words, want in CASES:
        want = want() if callable(want) else want
        rc, got, err = complete(words)
        # "--" of trace's synopsis is a word of its own, not an option.
        if words[-1] == "--" and words[0] == "trace":
            got.discard("--")
        ok = got == want
        if words[0] == "trace" and words[-1].startswith("-"):
            ok = want <= got and got - want <= TRACE_EXTRA
        if rc != 0 or err or not ok:
            fails += 1
            print(f"FAIL hwbp {' '.join(words)}<TAB>: exit {rc} {err.strip()}\n"
                  f"  got  {sorted(got)}\n  want {sorted(want)}")
    print(f"{len(CASES)} completions, {fails} failed")
    return 1 if fails else 0


sys.exit(main())
