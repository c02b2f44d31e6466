#!/usr/bin/env bash
# tests/trace/tls_test.sh HWBP TLS_PROG.C TLS_LIB.C: a thread-local
# variable (__thread long tcount) watched by the ptrace backend in each
# thread's own copy.  tls_prog's main and its three threads, made after
# the trace started, write their own tcount 50, 100, 200 and 300 times
# (650) and the global gcount 10 times each (40).  Exact: the histogram's
# counts, trace mode's per-thread counts and values (each copy counts
# 0 -> 1 ... up to its own writes), and every event's address (CTF) the
# one its thread printed for &tcount.  Refused with one line: a shared
# library's thread-local variable, the perf backend, and a static program
# (no thread pointer at its entry point).
set -uo pipefail
# Or, where there is no compiler (the guests): tls_test.sh HWBP --prebuilt
# PROG LIBPROG STATIC, tls_prog.c built as it is below (LIBPROG with
# libtlsx.so in its own directory, found through $ORIGIN).
hwbp=$1
# (the guests: Debian's programs of the second initramfs, babeltrace2 here,
# are in /usr/bin, which their PATH leaves out)
[ -z "${HWBP_GUEST:-}" ] || export PATH=$PATH:/usr/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
if [ "$2" = --prebuilt ]; then
  prog=$3 libprog=$4 static=$5
else
  src=$2 libsrc=$3 cc=${CC:-cc}
  prog=$tmp/prog libprog=$tmp/libprog static=$tmp/static
  $cc -O2 -g -pthread -o "$prog" "$src" || exit 1
  $cc -O2 -fPIC -shared -o "$tmp/libtlsx.so" "$libsrc" || exit 1
  $cc -O2 -g -pthread -DTLS_LIB -o "$libprog" "$src" -L"$tmp" -ltlsx -Wl,-rpath,'$ORIGIN' || exit 1
  $cc -O2 -static -pthread -o "$static" "$src" || { echo "FAIL: cannot link a static program (libc6-dev's libc.a)"; exit 1; }
fi
lib=$(cd "$(dirname "$libprog")" && pwd -P)/libtlsx.so

# The histogram: every write of every thread's copy, the global's beside.
"$hwbp" trace --backend ptrace -e tcount:-w- -e gcount:-w- -- "$prog" >"$tmp/hist" 2>"$tmp/err" ||
  bad "histogram run exited $?: $(cat "$tmp/err")"
sum() { awk -v s="$1" '$1 == "W" && $2 == s { n += $NF } END { print n + 0 }' "$tmp/hist"; }
[ "$(sum tcount)" = 650 ] || bad "tcount: $(sum tcount) writes, want 650: $(cat "$tmp/hist")"
[ "$(sum gcount)" = 40 ] || bad "gcount: $(sum gcount) writes, want 40: $(cat "$tmp/hist")"
grep -q '^W  *tcount  *bump_tls  *650$' "$tmp/hist" || bad "no row 'W tcount bump_tls 650'"

# Trace mode: the program prints "TID ADDRESS WRITES" per thread.
"$hwbp" trace --backend ptrace -e tcount:-w- -e gcount:-w- --trace "$tmp/ev.txt" -- "$prog" addr \
  >"$tmp/threads" 2>"$tmp/err" || bad "trace run exited $?: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/threads")" = 4 ] || bad "the program printed $(wc -l <"$tmp/threads") threads, not 4"
[ "$(awk '{ print $3 }' "$tmp/threads" | sort -n | tr '\n' ' ')" = "50 100 200 300 " ] ||
  bad "the threads' writes: $(cat "$tmp/threads")"
[ "$(awk '{ print $1 }' "$tmp/threads" | sort -u | wc -l)" = 4 ] || bad "4 distinct threads"
grep -qx 'hwbp: trace: 690 events produced, 690 recorded, 0 lost' "$tmp/err" ||
  bad "summary: $(cat "$tmp/err")"
# The field after "tid" of each line of watch $1, counted per thread: "TID N" lines.
per_tid() {
  awk -v w="$1+0x0" '$3 == w { for (i = 1; i < NF; i++) if ($i == "tid") n[$(i + 1)]++ }
    END { for (t in n) print t, n[t] }' "$tmp/ev.txt" | sort
}
[ "$(per_tid tcount)" = "$(awk '{ print $1, $3 }' "$tmp/threads" | sort)" ] ||
  bad "tcount per thread: $(per_tid tcount | tr '\n' ' '), want $(awk '{ print $1, $3 }' "$tmp/threads" | tr '\n' ' ')"
[ "$(per_tid gcount)" = "$(awk '{ print $1, 10 }' "$tmp/threads" | sort)" ] ||
  bad "gcount per thread: $(per_tid gcount | tr '\n' ' ')"
# Each thread's values, in order: its own copy going 0 -> 1 ... N-1 -> N.
while read -r tid addr n; do
  got=$(awk -v t="$tid" '$3 == "tcount+0x0" && $(NF - 4) == t { print $(NF - 2), $NF }' "$tmp/ev.txt" | md5sum)
  want=$(for ((k = 0; k < n; k++)); do printf '0x%x 0x%x\n' $k $((k + 1)); done | md5sum)
  [ "$got" = "$want" ] || bad "thread $tid's values are not 0x0 -> 0x1 ... -> 0x$(printf %x "$n")"
done <"$tmp/threads"

# CTF: every tcount event at the address its thread printed.
if command -v babeltrace2 >/dev/null; then
  "$hwbp" trace --backend ptrace -e tcount:-w- --trace "$tmp/ctf" --format ctf -- "$prog" addr \
    >"$tmp/threads" 2>"$tmp/err" || bad "CTF run exited $?: $(cat "$tmp/err")"
  babeltrace2 "$tmp/ctf" 2>/dev/null |
    sed -n 's/.*addr = 0x\([0-9A-F]*\),.* tid = \([0-9]*\),.*/\2 \1/p' | sort | uniq -c |
    awk '{ print $2, tolower($3), $1 }' >"$tmp/addrs"
  [ "$(cat "$tmp/addrs")" = "$(awk '{ sub(/^0x/, "", $2); print $1, $2, $3 }' "$tmp/threads" | sort)" ] ||
    bad "CTF (tid, address, events): $(tr '\n' ' ' <"$tmp/addrs"), the threads say $(tr '\n' ' ' <"$tmp/threads")"
else
  bad "babeltrace2 is missing (scripts/deps installs it)"
fi

# Refused, one line each, nothing left running.
refuse() {
  local want=$1 text=$2; shift 2
  timeout 60 "$hwbp" trace "$@" >"$tmp/out" 2>"$tmp/err"; local st=$?
  [ "$st" = "$want" ] && [ "$(cat "$tmp/err")" = "$text" ] ||
    bad "trace $*: status $st (want $want), stderr '$(cat "$tmp/err")' (want '$text')"
}
refuse 2 "hwbp: trace: -e 'lib_tcount:-w-': thread-local variable 'lib_tcount' of a shared library ($lib): not supported (EOPNOTSUPP)" \
  --backend ptrace -e lib_tcount:-w- -- "$libprog"
refuse 2 "hwbp: trace: thread-local variable 'tcount': the ptrace backend watches each thread's copy; perf cannot (EOPNOTSUPP)" \
  --backend perf -e tcount:-w- -- "$prog"
timeout 60 "$hwbp" trace --backend ptrace -e tcount:-w- -- "$static" >"$tmp/out" 2>"$tmp/err"; st=$?
[ "$st" = 1 ] && grep -Eqx "hwbp: trace: thread-local variable 'tcount': thread [0-9]+ has no thread pointer yet \(a statically linked program at its entry point\?\): EOPNOTSUPP" "$tmp/err" ||
  bad "a static program: status $st, stderr '$(cat "$tmp/err")'"
# (/proc, not pgrep: the guests' busybox has none)
running() {
  local f c
  for f in /proc/[0-9]*/cmdline; do
    c=$( { tr '\0' ' ' < "$f"; } 2>/dev/null )   # (gone meanwhile: empty)
    case $c in "$1 "*) return 0 ;; esac
  done
  return 1
}
for p in "$prog" "$libprog" "$static"; do
  running "$p" && bad "a traced program was left running: $p"
done
exit $fail
