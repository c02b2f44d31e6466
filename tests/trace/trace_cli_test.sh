#!/usr/bin/env bash
# tests/trace/trace_cli_test.sh HWBP: the conventions of `hwbp trace`
# (cli/cmd_trace.c over include/hwbp/trace.h): --version, --help and
# --backend list from the registry, --opt=value as --opt value, options
# that do not apply to the chosen backend refused (exit 2, one line), and
# a failed write to any output an error with its errno's name (exit 1).
set -uo pipefail
hwbp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# run WANT-STATUS WANT-STDERR-REGEX ARGS...: the status, and stderr one line
run() {
  local want=$1 re=$2; shift 2
  "$hwbp" trace "$@" >"$tmp/out" 2>"$tmp/err"; local st=$?
  if [ "$st" -ne "$want" ]; then bad "trace $* exited $st, not $want: $(cat "$tmp/err")"; return; fi
  if [ -n "$re" ]; then
    grep -Eq -- "$re" "$tmp/err" || bad "trace $*: stderr '$(cat "$tmp/err")' lacks /$re/"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "trace $*: more than one line on stderr"
  fi
}

run 0 '' --version
grep -qx 'hwbp [0-9]*\.[0-9]*\.[0-9]*' "$tmp/out" || bad "--version printed '$(cat "$tmp/out")'"
run 0 '' --help
grep -q '^usage: hwbp trace' "$tmp/out" || bad "--help has no usage line"
run 0 '' --backend list
for b in sim lackey qemu-x86; do
  grep -q "^$b " "$tmp/out" || bad "--backend list lacks $b"
done
if [ "$(uname -s)" = Linux ]; then
  for b in ptrace perf; do grep -q "^$b " "$tmp/out" || bad "--backend list lacks $b"; done
fi

# --opt=value is --opt value
"$hwbp" trace --demo -e pid_max:rw- --hist-entries 4 >"$tmp/a" 2>&1
"$hwbp" trace --demo --event=pid_max:rw- --hist-entries=4 >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b" || bad "--opt=value differs from --opt value"
grep -q '^pid_max: 2 functions, overrun 0$' "$tmp/b" || bad "--event=... histogram: $(cat "$tmp/b")"
"$hwbp" trace --demo --backend=sim --cpu=cortex-a57 -e pid_max:r-- >"$tmp/c" 2>&1 ||
  bad "--backend=sim --cpu=cortex-a57 failed: $(cat "$tmp/c")"

# options that do not apply: errors, never ignored
run 2 'does not apply to --backend sim' --demo --elf /bin/true
run 2 'does not apply to --backend qemu-x86' --backend qemu-x86 --demo --cpu x86_64
run 2 '--overwrite applies only with --trace' --demo --overwrite
run 2 '--buffer-kb applies only with --trace' --demo --buffer-kb 4
run 2 '--format applies only with --trace' --demo --format text
run 2 '--hist-entries does not apply with --trace' --demo --trace - --hist-entries 4
run 2 'traces --demo' --backend sim --lackey x.log --elf /bin/true
run 2 "unexpected argument 'extra'" --demo extra
run 2 '--trace needs a value' --demo --trace
run 2 "unexpected option '--bogus'" --demo --bogus
run 0 '' --demo -e jiffies:rw- --duration 0.5
grep -q '^jiffies: 16 functions, overrun [0-9]*$' "$tmp/out" || bad "--duration 0.5 --demo: $(cat "$tmp/out")"

# exactly: status STATUS, stderr the one line TEXT
exact() {
  local want=$1 text=$2; shift 2
  # bounded: reading /dev/zero once never ended
  timeout 20 "$hwbp" trace "$@" >"$tmp/out" 2>"$tmp/err"; local st=$?
  [ "$st" -eq "$want" ] && [ "$(cat "$tmp/err")" = "$text" ] ||
    bad "trace $*: status $st (want $want), stderr '$(cat "$tmp/err")' (want '$text')"
}

# filter files: lines of any length up to 65536 bytes, never cut; a
# longer one, a NUL byte (/dev/zero) or a directory a clear error
{ printf '# %0600d\n' 0; echo 'jiffies:rw-'; } >"$tmp/long-comment"
"$hwbp" trace --demo --filter-file "$tmp/long-comment" >"$tmp/out" 2>"$tmp/err"; st=$?
[ $st -eq 0 ] && [ "$(awk '$2 == "jiffies" { print $1 }' "$tmp/out" | sort -u | tr -d '\n')" = RW ] ||
  bad "a 600-byte comment line: status $st, $(cat "$tmp/out" "$tmp/err")"
{ printf '# %065534d\n' 0; echo 'jiffies:rw-'; } >"$tmp/max-line"   # 65536 bytes
"$hwbp" trace --demo --filter-file "$tmp/max-line" >"$tmp/out" 2>"$tmp/err"; st=$?
[ $st -eq 0 ] && grep -q '^W  *jiffies ' "$tmp/out" ||
  bad "a 65536-byte line: status $st, $(cat "$tmp/err")"
{ printf '# %065535d\n' 0; echo 'jiffies:rw-'; } >"$tmp/over-line"  # 65537 bytes
exact 2 "hwbp: trace: --filter-file $tmp/over-line:1: line longer than 65536 bytes: EOVERFLOW" \
  --demo --filter-file "$tmp/over-line"
exact 2 'hwbp: trace: --filter-file /dev/zero:1: a NUL byte (not a text file): EINVAL' \
  --demo --filter-file /dev/zero
exact 2 "hwbp: trace: cannot read --filter-file '$tmp': EISDIR" --demo --filter-file "$tmp"
exact 2 "hwbp: trace: cannot read --filter-file '$tmp/none': ENOENT" --demo --filter-file "$tmp/none"

# offset + length past 2^64
exact 2 "hwbp: trace: -e 'odd+18446744073709551615/2:rw-': column 26: offset + length wraps past 2^64 (ERANGE)" \
  --demo -e 'odd+18446744073709551615/2:rw-'

# --duration: decimal seconds, to the millisecond, up to a year
for d in 0 0.0 x -1 1.2345 1. .5 31536001; do
  exact 2 "hwbp: trace: bad --duration '$d' (seconds, such as 10 or 0.5)" --demo --duration "$d"
done
# --buffer-kb: at most 64 MiB per CPU
exact 2 'hwbp: trace: --buffer-kb 65537: at most 65536 (64 MiB per CPU): ERANGE' \
  --demo --trace "$tmp/t.txt" --buffer-kb 65537
exact 2 'hwbp: trace: --buffer-kb 1048576: at most 65536 (64 MiB per CPU): ERANGE' \
  --demo --trace "$tmp/t.txt" --buffer-kb 1048576
exact 0 'hwbp: trace: 6510 events produced, 6510 recorded, 0 lost' \
  --demo --trace "$tmp/t.txt" --buffer-kb 65536

# write errors: stdout, --trace FILE, CTF files
"$hwbp" trace --demo -e pid_max:rw- >/dev/full 2>"$tmp/err"; st=$?
[ $st -eq 1 ] && grep -q 'write error on stdout: ENOSPC' "$tmp/err" ||
  bad "histogram to /dev/full: status $st, $(cat "$tmp/err")"
"$hwbp" trace --demo -e pid_max:rw- --trace - >/dev/full 2>"$tmp/err"; st=$?
[ $st -eq 1 ] && grep -q 'write error on stdout: ENOSPC' "$tmp/err" ||
  bad "--trace - to /dev/full: status $st, $(cat "$tmp/err")"
"$hwbp" trace --demo -e pid_max:rw- --trace /dev/full 2>"$tmp/err"; st=$?
[ $st -eq 1 ] && grep -q "write error on --trace '/dev/full': ENOSPC" "$tmp/err" ||
  bad "--trace /dev/full: status $st, $(cat "$tmp/err")"
# a full filesystem (a 64 KiB tmpfs): exit 1 with the errno's name, and
# the summary says what was written: "recorded" is exactly the whole lines
# (CTF: the events babeltrace2 reads), produced = recorded + lost + not
# written, never "0 lost" alone.
full=$tmp/full
mkdir "$full"
if mount -t tmpfs -o size=64k tmpfs "$full"; then
  trap 'umount "$full"; rm -rf "$tmp"' EXIT
  "$hwbp" trace --demo --trace "$full/t.txt" 2>"$tmp/err"; st=$?
  whole=$(tr -cd '\n' <"$full/t.txt" | wc -c)
  read -r p r nw <<<"$(sed -n '1s/^hwbp: trace: \([0-9]*\) events produced, \([0-9]*\) recorded, 0 lost, \([0-9]*\) not written (ENOSPC)$/\1 \2 \3/p' "$tmp/err")"
  [ $st -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 2 ] && [ -n "${p:-}" ] && [ "$r" -eq "$whole" ] &&
    [ "$nw" -gt 0 ] && [ $((r + nw)) -eq "$p" ] &&
    [ "$(sed -n 2p "$tmp/err")" = "hwbp: write error on --trace '$full/t.txt': ENOSPC (No space left on device)" ] ||
    bad "--trace onto a full tmpfs: status $st, $whole lines in the file, $(cat "$tmp/err")"
  rm -f "$full/t.txt"
  umount "$full" && mount -t tmpfs -o size=256k tmpfs "$full" || bad "cannot remount the tmpfs"
  "$hwbp" trace --demo --trace "$full/c" --format ctf 2>"$tmp/err"; st=$?
  read -r p r nw <<<"$(sed -n '1s/^hwbp: trace: \([0-9]*\) events produced, \([0-9]*\) recorded, 0 lost, \([0-9]*\) not written (ENOSPC)$/\1 \2 \3/p' "$tmp/err")"
  got=$(babeltrace2 "$full/c" 2>/dev/null | grep -c ' hwbp_hit: ')
  [ $st -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 2 ] && [ -n "${p:-}" ] && [ "$r" -eq "$got" ] &&
    [ "$nw" -gt 0 ] && [ $((r + nw)) -eq "$p" ] &&
    [ "$(sed -n 2p "$tmp/err")" = "hwbp: trace: writing CTF --trace '$full/c' failed: ENOSPC" ] ||
    bad "CTF onto a full tmpfs: status $st, babeltrace2 reads $got, $(cat "$tmp/err")"
  umount "$full"
  trap 'rm -rf "$tmp"' EXIT
else
  bad "cannot mount a tmpfs (this test runs as root)"
fi

# a stream file planted as a symlink: never written through
mkdir "$tmp/ctf" && ln -s /dev/full "$tmp/ctf/stream_0"
exact 2 "hwbp: trace: CTF --trace '$tmp/ctf' holds files that are not an hwbp trace: nothing replaced: ENOTEMPTY" \
  --demo --trace "$tmp/ctf" --format ctf --force
[ -L "$tmp/ctf/stream_0" ] && [ "$(ls "$tmp/ctf")" = stream_0 ] || bad "the planted stream_0 was touched"

# --lackey of a directory: EISDIR, not an empty histogram
exact 2 "hwbp: trace: cannot read --lackey '$tmp': EISDIR" --lackey "$tmp" --elf "$hwbp" -e 'main:rw-'

# -p of a process that cannot be traced for a reason of its own says which,
# with both backends: none, a zombie, a kernel thread.
if [ "$(uname -s)" = Linux ]; then
  # a zombie: `sleep 0`, the child of a shell that exec'd into sleep 30
  sh -c 'sleep 0 & exec sleep 30' & parent=$!
  zombie=
  for _ in $(seq 250); do
    zombie=$(cat "/proc/$parent/task/$parent/children" 2>/dev/null | tr -d ' ')
    [ -n "$zombie" ] && [ "$(awk '{print $3}' "/proc/$zombie/stat" 2>/dev/null)" = Z ] && break
    zombie=; sleep 0.02
  done
  kthread=
  for st in /proc/[0-9]*/stat; do
    f=$(awk '{ print $9 }' "$st" 2>/dev/null) || continue
    if [ -n "$f" ] && [ $(( f & 0x00200000 )) -ne 0 ]; then kthread=$(basename "$(dirname "$st")"); break; fi
  done
  for b in ptrace perf; do
    exact 1 "hwbp: trace: no process 999999999: ESRCH" --backend "$b" -e x:rw- -p 999999999
    if [ -n "$zombie" ]; then
      exact 1 "hwbp: trace: process $zombie is a zombie: it has exited, nothing is left to trace: ESRCH" \
        --backend "$b" -e x:rw- -p "$zombie"
    else
      bad "no zombie to try (the child of $parent)"
    fi
    if [ -n "$kthread" ]; then
      exact 1 "hwbp: trace: process $kthread is a kernel thread: it has no user space to watch: EPERM" \
        --backend "$b" -e x:rw- -p "$kthread"
    else
      bad "no kernel thread visible in /proc"
    fi
  done
  kill "$parent" 2>/dev/null; wait "$parent" 2>/dev/null || true
fi

[ $fail -eq 0 ] && echo "hwbp trace conventions: OK"
exit $fail
