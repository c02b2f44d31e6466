#!/usr/bin/env bash
# hwbp trace -- CMD on this machine's real debug registers (ptrace and perf):
# tests/trace/lackey_prog.c, built as a PIE, is known to write `counter`
# 1000 times in bump() (after reading it there: bump's reads come out as
# '?', since x86 does not say and the value did not change) and to read it
# 250 times in peek().
set -euo pipefail
hwbp=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O0 -g -o "$tmp/prog" "$src"
fail=0
expect() {  # expect FILE KIND FUNCTION COUNT
  awk -v k="$2" -v f="$3" -v n="$4" '$1 == k && $2 == "counter" && $3 == f && $4 == n { ok = 1 } END { exit !ok }' "$1" ||
    { echo "FAIL: expected '$2 counter $3 $4' in:"; cat "$1"; fail=1; }
}
"$hwbp" trace -e 'counter:rw-' -- "$tmp/prog" > "$tmp/rw.txt"
expect "$tmp/rw.txt" W bump 1000
expect "$tmp/rw.txt" '?' bump 1000
expect "$tmp/rw.txt" '?' peek 250
"$hwbp" trace -e 'counter:-w-' -- "$tmp/prog" > "$tmp/w.txt"
expect "$tmp/w.txt" W bump 1000
[ "$(awk '$2 == "counter"' "$tmp/w.txt" | wc -l)" -eq 1 ] || { echo "FAIL: a W watch saw reads"; fail=1; }
# the perf backend: samples, no stop per hit; an RW breakpoint counts the
# read and the write of bump()'s counter = counter + 1 (kind unknown)
"$hwbp" trace --backend perf -e 'counter:rw-' -- "$tmp/prog" > "$tmp/perf-rw.txt"
expect "$tmp/perf-rw.txt" '?' bump 2000
expect "$tmp/perf-rw.txt" '?' peek 250
"$hwbp" trace --backend perf -e 'counter:-w-' -- "$tmp/prog" > "$tmp/perf-w.txt"
expect "$tmp/perf-w.txt" W bump 1000
# errors a user meets: one line each
if "$hwbp" trace -e 'nosuch:rw-' -- "$tmp/prog" 2> "$tmp/err.txt"; then fail=1; fi
grep -q "no symbol 'nosuch'" "$tmp/err.txt" || { echo "FAIL: unknown symbol message"; cat "$tmp/err.txt"; fail=1; }
if "$hwbp" trace -e 'counter:rw-' -- "$tmp/no-such-program" 2> "$tmp/err2.txt"; then fail=1; fi
grep -q "cannot run" "$tmp/err2.txt" || { echo "FAIL: missing program message"; cat "$tmp/err2.txt"; fail=1; }
[ $fail -eq 0 ] && echo "ptrace and perf backends through hwbp trace: OK"
exit $fail
