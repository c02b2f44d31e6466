#!/usr/bin/env bash
# tests/trace/values_test.sh HWBP VALUES_PROG.C: trace mode's values with
# the ptrace backend.  values_prog writes 1 ... 10 into the long val, reads
# it 3 times, and writes 0x12345678 then 0x9abcdef0 into the 4-byte word:
# each write's line ends "value OLD -> NEW" (the bytes before and after,
# in hex), each read's "value 0xa" (after only: a read has no before),
# every line of the program's one thread ("tid PID").
set -uo pipefail
hwbp=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# (VALUES_PROG built already, where there is no compiler: the guests)
case $src in
  *.c) prog=$tmp/prog; ${CC:-cc} -O2 -g -o "$prog" "$src" || exit 1 ;;
  *) prog=$src ;;
esac

# --kinds off: a read of an RW watch is '?' (its bytes unchanged), the
# same on every CPU.
"$hwbp" trace --backend ptrace --kinds off -e val:rw- -e word:-w- --trace "$tmp/ev.txt" \
  -- "$prog" 2>"$tmp/err" || { echo "FAIL: trace exited $?: $(cat "$tmp/err")"; exit 1; }
# The fields after CPU and time, the thread's id as TID.
awk '{ $1 = $2 = ""; for (i = 3; i < NF; i++) if ($i == "tid") $(i + 1) = "TID"; print substr($0, 3) }' \
  "$tmp/ev.txt" >"$tmp/got"
{
  for ((i = 1; i <= 10; i++)); do printf 'val+0x0 W main tid TID value 0x%x -> 0x%x\n' $((i - 1)) $i; done
  for ((k = 0; k < 3; k++)); do echo 'val+0x0 ? main tid TID value 0xa'; done
  echo 'word+0x0 W main tid TID value 0x0 -> 0x12345678'
  echo 'word+0x0 W main tid TID value 0x12345678 -> 0x9abcdef0'
} >"$tmp/want"
if ! cmp -s "$tmp/got" "$tmp/want"; then
  echo "FAIL: the events' values differ (got, want):"
  diff "$tmp/got" "$tmp/want"
  exit 1
fi
[ "$(awk '{ for (i = 3; i < NF; i++) if ($i == "tid") print $(i + 1) }' "$tmp/ev.txt" | sort -u | wc -l)" = 1 ] ||
  { echo "FAIL: not one thread id on every line"; exit 1; }
grep -qx 'hwbp: trace: 15 events produced, 15 recorded, 0 lost' "$tmp/err" ||
  { echo "FAIL: summary: $(cat "$tmp/err")"; exit 1; }
