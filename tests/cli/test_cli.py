#!/usr/bin/env python3
"""Table-driven tests of the hwbp command line: exit codes, one-line errors
naming the bad argument, --help and --version everywhere, --opt=value,
options that do not apply, JSON shape (read back by python3 -m json.tool
and jq), write errors, errno names."""
import glob
import json
import os
import re
import subprocess
import sys

HWBP = sys.argv[1]
# "--host": only the checks of --cpu host, which asks this machine's
# kernel through the ptrace backend and so needs its debug registers to
# fire (meson's test cli-host, suite hostbp); without it, every other
# check.
HOST_ONLY = sys.argv[2:] == ["--host"]
HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = sorted(glob.glob(os.path.join(HERE, "..", "scenarios", "x86", "*.hws")))[0]
COMMANDS = ["caps", "plan", "encode", "decode", "sim", "trace", "race", "bench"]

# (argv, exit status, regex that stdout+stderr must match)
CASES = [
    (["--help"], 0, r"caps.*plan.*encode.*decode"),
    ([], 2, r"missing COMMAND"),
    (["frobnicate"], 2, r"unknown command 'frobnicate'"),
    (["caps", "--help"], 0, r"usage: hwbp caps"),
    (["plan", "--help"], 0, r"usage: hwbp plan"),
    (["encode", "--help"], 0, r"usage: hwbp encode"),
    (["decode", "--help"], 0, r"usage: hwbp decode"),
    (["caps", "--list"], 0, r"x86_64.*i386.*cortex-a57.*arm64-max16.*power7.*power8.*power9.*power10"),
    (["caps", "--cpu", "cortex-a57"], 0, r"4 data \(watchpoints\), 6 execute"),
    (["caps", "--cpu", "x86_64"], 0, r"4, shared by execute and data"),
    (["caps", "--cpu", "arm64:0x10305106"], 0, r"4 data \(watchpoints\), 6 execute"),
    (["caps", "--cpu", "arm64:0x5"], 2, r"bad --cpu 'arm64:0x5'"),
    (["caps", "--cpu", "z80"], 2, r"unknown --cpu 'z80'"),
    (["caps", "--bogus"], 2, r"unexpected argument '--bogus'"),
    (["plan", "--cpu", "x86_64", "0x1001", "13", "rw"], 0, r"enlarged, 3 pieces"),
    (["plan", "--cpu", "x86_64", "0x1001", "13", "r"], 1, r"EOPNOTSUPP"),
    (["plan", "--cpu", "x86_64", "--widen", "0x1000", "4", "r"], 0, r"widened to RW"),
    (["plan", "--cpu", "x86_64", "0x1000", "0", "w"], 1, r"EINVAL"),
    (["plan", "--cpu", "x86_64", "0x10zz", "4", "w"], 2, r"bad ADDR '0x10zz'"),
    (["plan", "--cpu", "x86_64", "0x1000", "-4", "w"], 2, r"bad LEN '-4'"),
    (["plan", "--cpu", "x86_64", "0x1000", "4", "q"], 2, r"bad TYPE 'q'"),
    (["plan", "--cpu", "x86_64", "0x1000", "4"], 2, r"expected ADDR LEN TYPE"),
    (["plan", "--cpu", "x86_64", "--scope", "root", "0x1000", "4", "w"], 2, r"bad --scope 'root'"),
    (["plan", "--cpu", "x86_64", "--free", "0", "0x1000", "4", "w"], 2, r"bad --free '0'"),
    (["plan", "0x1000", "4", "w"], 2, r"missing --cpu"),
    (["plan", "--cpu", "x86_64", "--scope", "user", "0xffffffff81000000", "8", "w"], 1, r"EFAULT"),
    (["plan", "--cpu", "power9", "0x11f8", "16", "w"], 1, r"ERANGE"),
    (["plan", "--cpu", "power10", "0x11f8", "16", "w"], 0, r"exact, 1 piece"),
    (["encode", "--cpu", "x86_64", "0xa0001", "1", "rw", "0xa0002", "1", "w",
      "0xb0002", "2", "rw", "0xc0000", "4", "w"], 0, r"dr7\s+= 0x0000000071d304aa|dr7"),
    (["encode", "--cpu", "x86_64", "0x1000", "4"], 2, r"triples"),
    (["encode", "--cpu", "x86_64", "0x1000", "8", "w", "0x2000", "8", "w", "0x3000", "8", "w",
      "0x4000", "8", "w", "0x5000", "8", "w"], 1, r"request 4 .*ENOSPC"),
    (["decode", "--cpu", "x86_64", "--watch", "0x1000,4,w", "dr6=0xffff0ff1"], 0, r"dr0.*#0\(0x1000/4:W\)"),
    (["decode", "--cpu", "x86_64", "dr7=0x1", "dr0=0x1000", "dr6=0xffff0ff1"], 0, r"slots\s+dr0"),
    (["decode", "--cpu", "x86_64", "dr6=0xffff0ff0"], 1, r"not a debug event"),
    (["decode", "--cpu", "x86_64", "esr=0x1"], 2, r"unknown register in 'esr=0x1'"),
    (["decode", "--cpu", "x86_64", "--watch", "0x1000,4"], 2, r"bad --watch '0x1000,4'"),
    (["decode", "--cpu", "x86_64", "--watch", "0x1000,4,w"], 2, r"missing the status register"),
    (["trace", "--help"], 0, r"usage: hwbp trace"),
    (["trace"], 2, r"give one workload: --demo, --lackey FILE --elf PROG, -- CMD, -p PID or --kernel"),
    (["trace", "--kernel", "-p", "1", "-e", "x:rw-"], 2, r"give one workload"),
    (["trace", "--kernel", "--demo"], 2, r"give one workload"),
    (["trace", "--kernel", "--cpus", "0-4095", "-e", "x:rw-"], 2, r"--cpus 0-4095: CPU 4095 is not online .*EINVAL"),
    (["trace", "--kernel", "--cpus", "1-0", "-e", "x:rw-"], 2, r"bad --cpus '1-0'"),
    (["trace", "--kernel", "--cpus", "0,", "-e", "x:rw-"], 2, r"bad --cpus '0,'"),
    (["trace", "--kernel", "--kinds", "some", "-e", "x:rw-"], 2, r"bad --kinds 'some' \(exact, auto, off\): EINVAL"),
    (["trace", "--backend", "perf", "--cpus", "0", "-e", "x:rw-", "--", "true"], 2, r"--cpus needs --kernel"),
    (["trace", "--backend", "sim", "--kernel"], 2, r"--backend sim/qemu-x86 traces --demo"),
    (["trace", "--demo", "--", "true"], 2, r"give one workload"),
    (["trace", "-e", "x:rw-", "--"], 2, r"-- needs a command to run"),
    (["trace", "-p", "0"], 2, r"bad process id '0'"),
    (["trace", "--backend", "ptrace", "--demo"], 2, r"--backend ptrace traces -- CMD or -p PID"),
    (["trace", "--backend", "gdb", "--demo"], 2, r"backend 'gdb' is not available"),
    (["trace", "--demo", "-e", "pid_max:rq-"], 2, r"-e 'pid_max:rq-': column 10: bad type letter"),
    (["trace", "--demo", "-e", "pid_max"], 2, r"-e 'pid_max': column 8: expected '\+', '/' or ':'"),
    (["trace", "--demo", "-e", "nosuch:rw-"], 2, r"no symbol 'nosuch'"),
    (["trace", "--demo", "-e", "jiffies/4096:rw-"], 1, r"cannot watch jiffies: ERANGE"),
    (["trace", "--demo", "--cpu", "z80"], 2, r"unknown --cpu 'z80'"),
    (["trace", "--demo", "--hist-entries", "0"], 2, r"bad --hist-entries '0'"),
    (["trace", "--lackey", "x.log"], 2, r"--lackey needs --elf PROG"),
    (["trace", "--demo", "-e", "*:---"], 2, r"nothing to watch"),
    (["trace", "--demo", "-e", "pid_max:rw-"], 0, r"R\s+pid_max\s+alloc_pid\s+200\n.*pid_max: 2 functions, overrun 0"),
    (["trace", "--demo", "--hist-entries", "4", "-e", "jiffies:rw-"], 0, r"jiffies: 4 functions, overrun \d+"),
    (["trace", "--demo", "--cpu", "cortex-a57", "-e", "pid_max:r--"], 0, r"R\s+pid_max\s+alloc_pid\s+200"),
    (["trace", "--demo", "-e", "pid_max:rw-", "--trace", "-"], 0, r"\s+2\s+\d+ pid_max\+0x0 R alloc_pid"),
    (["race", "--help"], 0, r"usage: hwbp race.*-p PID.*Exit status: 66"),
    (["race"], 2, r"give a command \(-- CMD\), a process \(-p PID\) or --kernel: EINVAL"),
    (["race", "--"], 2, r"-- needs a command to run: EINVAL"),
    (["race", "./prog"], 2, r"unexpected argument './prog' \(the command goes after --\): EINVAL"),
    (["race", "--frob", "--", "true"], 2, r"unexpected option '--frob'"),
    (["race", "-p"], 2, r"-p needs a process id: EINVAL"),
    (["race", "-p", "0"], 2, r"bad --pid '0': expected 1..2147483647: ERANGE"),
    (["race", "-p", "12x"], 2, r"bad --pid '12x': not a number: EINVAL"),
    (["race", "-p", "1", "--", "true"], 2, r"-p and -- CMD: give one: EINVAL"),
    (["race", "--rate", "0", "--", "true"], 2, r"bad --rate '0' \(traps per second with up to 3 decimals, more than 0\): EINVAL"),
    (["race", "--rate", "0.0001", "--", "true"], 2, r"bad --rate '0.0001' \(traps per second.*: EINVAL"),
    (["race", "--rate", "100000.001", "--", "true"], 2, r"bad --rate '100000.001': at most 100000: ERANGE"),
    (["race", "--rate", "5", "--rate", "6", "--", "true"], 2, r"--rate given twice: EBUSY"),
    (["race", "--delay", "0", "--", "true"], 2, r"bad --delay '0' \(milliseconds.*: EINVAL"),
    (["race", "--delay", "1.2345", "--", "true"], 2, r"bad --delay '1.2345'.*: EINVAL"),
    (["race", "--delay", "1001", "--", "true"], 2, r"bad --delay '1001': at most 1000: ERANGE"),
    (["race", "--duration", "-1", "--", "true"], 2, r"bad --duration '-1'.*: EINVAL"),
    (["race", "--only", "", "--", "true"], 2, r"bad --only '': .*: EINVAL"),
    (["race", "--stack", "17", "--", "true"], 2, r"bad --stack '17': expected 0..16: ERANGE"),
    (["race", "--stack", "x", "--", "true"], 2, r"bad --stack 'x': not a number: EINVAL"),
    # A run that fails is JSON too: no such process (or, on a machine whose
    # debug registers do not fire, ENODEV: the check comes first).
    (["race", "--json", "-p", "999999"], 1, r'^\{"error": "E[A-Z]+", "message": ".*"\}\n'),
    (["race", "--output", "/nonexistent/dir/r.json", "--", "true"], 2,
     r"cannot write --output '/nonexistent/dir/r.json': .*: ENOENT"),
    (["bench", "--help"], 0, r"usage: hwbp bench sim.*hwbp bench trace"),
    (["bench", "nosuch"], 2, r"unknown benchmark 'nosuch'"),
    (["bench", "trace", "--hits", "0"], 2, r"bad --hits '0'"),
    (["bench", "trace", "--lookups"], 2, r"--lookups needs a number"),
    (["bench", "trace", "--bogus", "1"], 2, r"unexpected argument '--bogus'"),
]

# --version: hwbp, every command and benchmark, and after other options.
CASES += [(argv + ["--version"], 0, r"\Ahwbp 0\.2\.0\n\Z") for argv in
          [[]] + [[c] for c in COMMANDS] + [["bench", "sim"], ["bench", "trace"],
                                           ["plan", "--cpu", "x86_64"], ["sim", "--emit"]]]

# hwbp alone names every command; --help gives each a summary line.
CASES += [
    ([], 2, r"missing COMMAND: " + ", ".join(COMMANDS[:-1]) + " or " + COMMANDS[-1]),
    (["help"], 0, "".join(rf"\n  {c}\s+\w[^\n]+" for c in COMMANDS)),
    (["help", "plan"], 0, r"usage: hwbp plan"),
    (["help", "nosuch"], 2, r"unknown command 'nosuch'"),
]

# --opt=value as well as --opt value; options before, between or after words.
CASES += [
    (["caps", "--cpu=x86_64"], 0, r"4, shared by execute and data"),
    (["caps", "--cpu=arm64:0x10305106", "--json"], 0, r'"data_slots": 4'),
    (["plan", "--cpu=x86_64", "--scope=user", "--free=2", "0x1000", "8", "w"], 0, r"exact, 1 piece"),
    (["plan", "0x1000", "8", "w", "--cpu", "x86_64"], 0, r"exact, 1 piece"),
    (["plan", "0x1000", "--cpu=power9", "16", "--exact", "w"], 0, r"exact, 1 piece"),
    (["plan", "--cpu=x86_64", "--scope=root", "0x1000", "4", "w"], 2, r"bad --scope 'root'"),
    (["plan", "--cpu=z80", "0x1000", "4", "w"], 2, r"unknown --cpu 'z80'"),
    (["plan", "--cpu", "x86_64", "--free=17", "0x1000", "4", "w"], 2, r"bad --free '17': expected 1\.\.16"),
    (["plan", "--cpu", "x86_64", "0x1000", "-44", "w"], 2, r"bad LEN '-44'"),
    (["plan", "--cpu", "x86_64", "--", "0x1000", "4", "w"], 0, r"exact, 1 piece"),
    (["encode", "--cpu=cortex-a57", "--scope=kernel", "0xffff000000001000", "8", "w"], 0, r"-> wp0"),
    (["decode", "--cpu=x86_64", "--watch=0x1000,4,w", "dr6=0xffff0ff1"], 0, r"dr0.*#0\(0x1000/4:W\)"),
    (["decode", "--cpu", "power9", "--watch", "0x1000,8,w", "--access=0x1000,8,w",
      "dsisr=0x02400000", "dar=0x1000"], 0, r"dawr0.*#0\(0x1000/8:W\)"),
    (["sim", "--profile=qemu", SCENARIO], 0, r"\d+ passed, 0 failed"),
    (["sim", "--profile=z80", SCENARIO], 2, r"bad --profile 'z80'"),
    (["bench", "trace", "--hits=0"], 2, r"bad --hits '0'"),
    (["bench", "sim", "--accesses=x"], 2, r"bad --accesses 'x'"),
    (["bench", "sim", "--accesses=0x"], 2, r"bad --accesses '0x'"),
    (["bench", "sim", "--accesses"], 2, r"--accesses needs a number"),
    (["plan", "--cpu"], 2, r"plan: --cpu needs a PRESET"),
]

# An option that does not apply to a command is an error, never ignored.
CASES += [
    (["encode", "--cpu", "x86_64", "--free", "1", "0x1000", "8", "w"], 2,
     r"encode: unexpected argument '--free' \(not an option of encode"),
    (["encode", "--cpu", "x86_64", "--free=1", "0x1000", "8", "w"], 2, r"unexpected argument '--free=1'"),
    (["caps", "--cpu", "x86_64", "--widen"], 2, r"caps: unexpected argument '--widen'"),
    (["caps", "--list", "--json"], 2, r"--list takes no --cpu or --json"),
    (["caps", "--cpu", "x86_64", "--json=yes"], 2, r"'--json=yes' \(that option takes no value\)"),
    (["plan", "--cpu", "x86_64", "--local", "0x1000", "4", "w"], 2, r"unexpected argument '--local'"),
    (["plan", "--cpu", "x86_64", "-x", "0x1000", "4", "w"], 2, r"unexpected argument '-x'"),
    (["decode", "--cpu", "x86_64", "--scope", "user", "dr6=0xffff0ff1"], 2, r"unexpected argument '--scope'"),
    (["decode", "--cpu", "x86_64", "--access", "0x1000,4,w", "dr7=0x1", "dr0=0x1000",
      "dr6=0xffff0ff1"], 2, r"--access filters --watch requests"),
    (["decode", "--cpu", "x86_64", "0x1000"], 2, r"unexpected argument '0x1000'"),
    (["sim", "--json", SCENARIO], 2, r"sim: unexpected argument '--json'"),
    (["sim", "--quirks", SCENARIO], 2, r"--quirks takes no FILE"),
    (["sim", "--compile", "--emit", SCENARIO], 2, r"--compile takes no --profile or --emit"),
    (["bench", "sim", "--hits", "5"], 2, r"bench sim: unexpected argument '--hits'"),
    (["bench", "trace", "--accesses", "5"], 2, r"bench trace: unexpected argument '--accesses'"),
    (["bench", "sim", "extra"], 2, r"bench sim: unexpected argument 'extra'"),
]

# Errno names beyond the library's own few (strerrorname_np).  sim still
# prints its summary for the files it could read, so not one line.
ERRNO_CASES = [
    (["sim", "/"], 2, r"cannot read '/': EISDIR"),
    (["sim", "/etc/passwd/x.hws"], 2, r"cannot read '/etc/passwd/x.hws': ENOTDIR"),
]

# --json: (argv, exit status, [(jq filter, its -r output)]).  64-bit
# addresses come back exactly (strings, not numbers that jq rounds).
KERNEL = "0xffffffff81001003"
JSON_CASES = [
    (["plan", "--cpu", "x86_64", "--json", KERNEL, "1", "w"], 0,
     [(".addr", KERNEL), (".pieces[0].addr", KERNEL), (".pieces[0].cover_addr", KERNEL),
      (".pieces | length", "1"), (".len | type", "number"), (".exact", "true")]),
    (["plan", "--cpu", "x86_64", "--json", "0x1000", "4", "r"], 1,
     [(".error", "EOPNOTSUPP"), (".message | test(\"--widen\")", "true")]),
    (["caps", "--cpu", "x86_64", "--json"], 0,
     [(".types | join(\",\")", "W,RW,X"), (".kernel_min", "0xffff800000000000"),
      (".addr_max", "0xffffffffffffffff"), (".data_slots", "4"), (".shared", "true"),
      (".status_fields | length > 0", "true")]),
    (["caps", "--cpu", "power9", "--json"], 0, [(".types | join(\",\")", "R,W,RW,X"), (".boundary", "512")]),
    (["encode", "--cpu", "x86_64", "--json", "0xffffffff81001000", "8", "w", "0x2000", "1", "rw"], 0,
     [(".registers.dr0", "0xffffffff81001000"), (".registers.dr1", "0x2000"),
      (".requests[0].slots | join(\",\")", "dr0"), (".requests[1].addr", "0x2000"),
      (".requests | length", "2"), (".registers.dr7 | test(\"^0x[0-9a-f]+$\")", "true")]),
    (["encode", "--cpu", "x86_64", "--json"] + [w for a in range(5) for w in (hex(0x1000 * (a + 1)), "8", "w")],
     1, [(".error", "ENOSPC"), (".message", "not enough free slots")]),
    (["decode", "--cpu", "power9", "--json", "--watch", "0xc000000001001000,8,w",
      "dsisr=0x02400000", "dar=0xc000000001001003"], 0,
     [(".address", "0xc000000001001003"), (".requests[0].addr", "0xc000000001001000"),
      (".slots | join(\",\")", "dawr0"), (".kind", "W"), (".filtered", "false")]),
    (["decode", "--cpu", "x86_64", "--json", "dr7=0x1", "dr0=0x1000", "dr6=0xffff0ff1"], 0,
     [(".slots | join(\",\")", "dr0"), (".address", "0x1000"), (".requests", "null")]),
    (["decode", "--cpu", "x86_64", "--json", "dr6=0xffff0ff0"], 1, [(".error", "EINVAL")]),
]
HEX_KEYS = {"addr", "cover_addr", "address", "user_max", "kernel_min", "addr_max"}

# A failed write to stdout is an error naming its errno.
FULL_CASES = [["--help"], ["--version"], ["caps", "--list"], ["caps", "--version"],
              ["plan", "--cpu", "x86_64", "--json", "0x1000", "4", "w"],
              ["encode", "--cpu", "x86_64", "0x1000", "4", "w"],
              ["decode", "--cpu", "x86_64", "--watch", "0x1000,4,w", "dr6=0xffff0ff1"],
              ["sim", "--quirks"], ["sim", SCENARIO], ["bench", "--help"],
              ["trace", "--demo", "-e", "pid_max:rw-"], ["race", "--help"]]

# `hwbp bench trace` with tiny counts: every figure is a "bench NAME VALUE
# UNIT" line with a number (the values are the machine's, not checked).
BENCH_TRACE = ["bench", "trace", "--hits", "2000", "--lookups", "2000", "--dwfl-lookups", "10",
               "--symbols", "2000", "--lackey-mb", "1"]
BENCH_TRACE_FIGURES = ["trace_hit_empty", "trace_hit_lookup", "trace_hit_hist", "trace_hit_ring",
                       "trace_hit_hist_ratio", "trace_hit_ring_ratio", "trace_lookup_hwbp",
                       "trace_lackey_read", "trace_lackey_parse", "trace_lackey_replay",
                       "trace_lackey_replay_ratio", "trace_hit_hist_sim", "trace_hit_stack",
                       "trace_hit_stack_ratio"]
# Only when built with libdw; otherwise the output says it skipped them.
BENCH_TRACE_DWFL = ["trace_lookup_dwfl", "trace_lookup_ratio"]



def run(args):
    p = subprocess.run([HWBP] + args, capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout + p.stderr, p


def json_values(v, key=None):
    """(key, value) of every scalar in a parsed JSON document."""
    if isinstance(v, dict):
        for k, x in v.items():
            yield from json_values(x, k)
    elif isinstance(v, list):
        for x in v:
            yield from json_values(x, key)
    else:
        yield key, v


def check_json(args, code, checks):
    rc, out, p = run(args)
    fails = []
    if rc != code:
        fails.append(f"exit {rc}, want {code}")
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        return [f"not JSON ({e}): {p.stdout!r}"]
    tool = subprocess.run([sys.executable, "-m", "json.tool"], input=p.stdout,
                          capture_output=True, text=True)
    if tool.returncode != 0:
        fails.append(f"python3 -m json.tool: {tool.stderr.strip()}")
    for key, v in json_values(doc):
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2 ** 53:
            fails.append(f"{key}: {v} is a number jq would round")
        if key in HEX_KEYS and v is not None and not re.fullmatch(r"0x[0-9a-f]+", str(v)):
            fails.append(f"{key}: {v!r} is not a \"0x...\" string")
    for key, v in json_values(doc.get("registers", {})):
        if not re.fullmatch(r"0x[0-9a-f]+", str(v)):
            fails.append(f"register {key}: {v!r} is not a \"0x...\" string")
    for flt, want in checks:
        jq = subprocess.run(["jq", "-r", flt], input=p.stdout, capture_output=True, text=True)
        if jq.returncode != 0 or jq.stdout.strip() != want:
            fails.append(f"jq -r '{flt}': {jq.stdout.strip()!r} {jq.stderr.strip()}, want {want!r}")
    return fails


def check_full(args):
    with open("/dev/full", "w") as full:
        p = subprocess.run([HWBP] + args, stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    if p.returncode == 1 and re.search(r"write error on stdout: ENOSPC", p.stderr) \
            and p.stderr.count("\n") == 1:
        return []
    return [f"exit {p.returncode}, stderr {p.stderr!r}"]


def size_text(v):
    """A piece size as the label spells it: "8-byte", "2 GiB"."""
    if v < 1024 or v % 1024:
        return f"{v}-byte"
    v //= 1024
    units = ["KiB", "MiB", "GiB", "TiB"]
    u = 0
    while v >= 1024 and v % 1024 == 0 and u + 1 < len(units):
        v //= 1024
        u += 1
    return f"{v} {units[u]}"


def la57():
    """Does this kernel run with 5-level paging (cpuinfo's flags)?"""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return "la57" in line.split()
    except OSError:
        pass
    return False


def host_label(j):
    """The name --cpu host has, from its own JSON fields."""
    if j["shared"]:
        slots = f"{j['data_slots']} slot" + ("" if j["data_slots"] == 1 else "s")
    else:
        slots = (f"{j['data_slots']} watchpoint" + ("" if j["data_slots"] == 1 else "s") +
                 f", {j['inst_slots']} breakpoint" + ("" if j["inst_slots"] == 1 else "s"))
    return f"host ({j['model']}, {slots}, {size_text(j['max_piece'])} pieces)"


def check_host():
    """--cpu host: on Linux the kernel's model, the one the ptrace backend
    reports for this machine (its --cpu check names it: "here MODEL with N
    watchpoints and M breakpoints"), shown as host (MODEL, ...); every
    field the model's preset's, when it is one (x86_64); plan and encode
    with it as with that preset; the child it asked reaped (this test is
    a subreaper: an orphan would be ours).  Off Linux: exit 2, one line.
    Returns the number of failures."""
    if sys.platform != "linux":
        rc, out, p = run(["caps", "--cpu", "host"])
        ok = rc == 2 and p.stderr == "hwbp: caps: --cpu host: needs Linux (EOPNOTSUPP)\n"
        if not ok:
            print(f"FAIL caps --cpu host off Linux: exit {rc}: {out}")
        return 0 if ok else 1
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)   # PR_SET_CHILD_SUBREAPER
    fails = 0

    def fail(msg):
        nonlocal fails
        fails += 1
        print("FAIL --cpu host:", msg)

    rc, out, p = run(["caps", "--cpu", "host", "--json"])
    if rc != 0:
        fail(f"caps --json exit {rc}: {out}")
        return fails
    j = json.loads(p.stdout)
    if j["cpu"] != host_label(j):
        fail(f"name {j['cpu']!r}, want {host_label(j)!r}")
    # What the ptrace backend says the kernel can program: a model of
    # another arch is refused with it.
    rc, out, _ = run(["caps", "--list"])
    presets = {l.split()[0]: l.split()[1] for l in out.splitlines()}
    other = next(n for n, a in presets.items() if a != j["arch"])
    rc, out, p = run(["trace", "--backend", "ptrace", "--cpu", other, "-e", "0x1000/8:rw-",
                      "--", "true"])
    m = re.search(r"\(here (\S+) with (\d+) watchpoints and (\d+) breakpoints\)", p.stderr)
    if rc != 1 or not m:
        fail(f"trace --backend ptrace --cpu {other}: exit {rc}: {out}")
    elif (m.group(1), int(m.group(2)), int(m.group(3))) != (j["model"], j["data_slots"], j["inst_slots"]):
        fail(f"caps says {j['model']} {j['data_slots']}/{j['inst_slots']}, ptrace says {m.groups()}")
    rc, out, p = run(["caps", "--cpu", "host"])
    first = p.stdout.split("\n", 1)[0]
    if rc != 0 or first != f"cpu         {j['cpu']} ({j['arch']})":
        fail(f"caps text: exit {rc}, first line {first!r}")
    if j["model"] in presets:
        rc, out, p = run(["caps", "--cpu", j["model"], "--json"])
        want = json.loads(p.stdout)
        got = {k: v for k, v in j.items() if k != "model"}
        want["cpu"] = j["cpu"]
        # A kernel with 5-level paging (x86's "la57" flag in /proc/cpuinfo,
        # which the kernel clears when it does not use it) has the 57-bit
        # canonical split (SDM Vol. 3A 4.5); the preset is 48-bit.
        if j["arch"] == "x86" and la57():
            want["user_max"], want["kernel_min"] = "0xffffffffffffff", "0xff00000000000000"
        if got != want:
            fail(f"fields differ from --cpu {j['model']}: {got} != {want}")
        for cmd in (["plan", "--json", "0x1003", "8", "rw"], ["encode", "0x1000", "8", "w", "0x2000", "4", "rw"],
                    ["encode", "--json", "0x1000", "8", "w"]):
            rc, a, pa = run([cmd[0], "--cpu", "host"] + cmd[1:])
            rc2, b, pb = run([cmd[0], "--cpu", j["model"]] + cmd[1:])
            if "--json" in cmd:
                ja, jb = json.loads(pa.stdout), json.loads(pb.stdout)
                ok = ja.pop("cpu") == j["cpu"] and jb.pop("cpu") == j["model"] and ja == jb
            else:
                ok = a == b
            if rc != 0 or rc2 != 0 or not ok:
                fail(f"{' '.join(cmd)}: host and {j['model']} differ:\n{a}\n{b}")
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
        fail(f"a process was left behind (pid {pid})")
    except ChildProcessError:
        pass
    return fails


def main():
    if HOST_ONLY:
        fails = check_host()
        print(f"{1 - min(fails, 1)} passed, {min(fails, 1)} failed")
        return 1 if fails else 0
    fails = 0
    for args, code, pattern in ERRNO_CASES:
        rc, out, p = run(args)
        if rc != code or not re.search(pattern, p.stderr):
            fails += 1
            print(f"FAIL hwbp {' '.join(args)}: exit {rc} (want {code}), output:\n{out}")
    for args, code, checks in JSON_CASES:
        for f in check_json(args, code, checks):
            fails += 1
            print(f"FAIL hwbp {' '.join(args)}: {f}")
    for args in FULL_CASES:
        for f in check_full(args):
            fails += 1
            print(f"FAIL hwbp {' '.join(args)} > /dev/full: {f}")
    for args, code, pattern in CASES:
        rc, out, p = run(args)
        ok = rc == code and re.search(pattern, out, re.S)
        # Errors are exactly one line on stderr.
        if ok and code == 2:
            ok = p.stderr.count("\n") == 1 and p.stdout == ""
        if not ok:
            fails += 1
            print(f"FAIL hwbp {' '.join(args)}: exit {rc} (want {code}), output:\n{out}")
    # The SDM Table 17-1 configuration encodes to the documented DR7 fields.
    rc, out, _ = run(["encode", "--cpu", "x86_64", "0xa0001", "1", "rw", "0xa0002", "1", "w",
                      "0xb0002", "2", "rw", "0xc0000", "4", "w"])
    m = re.search(r"dr7\s+= 0x([0-9a-f]+)", out)
    dr7 = int(m.group(1), 16) if m else 0
    for n, (rw, ln) in enumerate([(3, 0), (1, 0), (3, 1), (1, 3)]):
        if (dr7 >> (16 + 4 * n)) & 3 != rw or (dr7 >> (18 + 4 * n)) & 3 != ln or not (dr7 >> (2 * n + 1)) & 1:
            fails += 1
            print(f"FAIL SDM example slot {n}: dr7={dr7:#x}")
    # JSON: plan output has the contract's fields; errors are JSON too.
    rc, out, _ = run(["plan", "--cpu", "cortex-a57", "--json", "0x1001", "13", "rw"])
    j = json.loads(out)
    if rc != 0 or j["exact"] is not True or j["extra_bytes"] != 0 or \
            [(int(p["addr"], 16), p["len"]) for p in j["pieces"]] != [(0x1001, 7), (0x1008, 6)]:
        fails += 1
        print("FAIL plan --json cortex-a57:", out)
    rc, out, _ = run(["plan", "--cpu", "x86_64", "--json", "0x1000", "4", "r"])
    j = json.loads(out)
    if rc != 1 or j.get("error") != "EOPNOTSUPP" or not j.get("message"):
        fails += 1
        print("FAIL plan --json error:", out)
    rc, out, _ = run(["caps", "--cpu", "power10", "--json"])
    j = json.loads(out)
    if j["data_slots"] != 2 or j["inst_slots"] != 1 or j["boundary"] != 0:
        fails += 1
        print("FAIL caps --json power10:", out)
    # Every preset answers caps and plan.
    rc, out, _ = run(["caps", "--list"])
    for name in [l.split()[0] for l in out.splitlines()]:
        for cmd in (["caps", "--cpu", name], ["plan", "--cpu", name, "0x1000", "8", "w"]):
            rc, o, _ = run(cmd)
            if rc != 0:
                fails += 1
                print(f"FAIL {' '.join(cmd)}: {o}")
    rc, out, _ = run(BENCH_TRACE)
    figures = dict(re.findall(r"^bench (\S+) ([0-9]+(?:\.[0-9]+)?) \S+$", out, re.M))
    want = BENCH_TRACE_FIGURES + ([] if "dwfl skipped" in out else BENCH_TRACE_DWFL)
    missing = [n for n in want if n not in figures]
    if rc != 0 or missing:
        fails += 1
        print(f"FAIL hwbp {' '.join(BENCH_TRACE)}: exit {rc}, missing {missing}, output:\n{out}")
    total = len(CASES) + len(ERRNO_CASES) + len(JSON_CASES) + len(FULL_CASES) + 6
    print(f"{total - fails} passed, {fails} failed")
    return 1 if fails else 0


sys.exit(main())
