#!/usr/bin/env bash
# tests/trace/typed_live_test.sh HWBP PROG.c: typed names armed in a real
# process (suite hostbp: the debug registers must fire), with exact counts
# per field from tests/trace/typed_prog.c's known writes, on every backend
# of processes: ptrace, perf (sampled) and bpf (counted in the kernel).
# The program is started by hwbp (-- CMD) and held at its entry: a
# pointer chain is followed there, so it goes through a pointer set
# before main (self = &cfg, a relocation; typed_test.sh checks that one
# to the heap, not set yet, is refused with the hint to attach later).
set -euo pipefail
hwbp=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cc -O1 -g -fno-inline -o "$tmp/prog" "$src"
row() {  # FILE KIND SYMBOL FUNCTION COUNT
  awk -v k="$2" -v s="$3" -v f="$4" -v n="$5" '$1 == k && $2 == s && $3 == f && $4 == n { ok = 1 }
    END { exit !ok }' "$1" || bad "$6: expected '$2 $3 $4 $5' in: $(cat "$1")"
}
for b in ptrace perf bpf; do
  extra=()
  [ $b = ptrace ] && extra=(-e 'tls_lim.hi:-w-')   # each thread's copy: ptrace's alone
  st=0
  "$hwbp" trace --backend $b -e 'self->limits[2].hi:-w-' -e 'cfg.fl.mode:-w-' \
    -e 'bump::counter.hi:-w-' "${extra[@]}" -- "$tmp/prog" > "$tmp/$b" 2> "$tmp/$b.err" || st=$?
  cat "$tmp/$b" "$tmp/$b.err"
  [ $st = 0 ] || { bad "$b: status $st"; continue; }
  row "$tmp/$b" W 'self->limits[2].hi' writes 300 $b
  row "$tmp/$b" W 'cfg.fl.mode' writes 30 $b
  row "$tmp/$b" W 'bump::counter.hi' bump 10 $b
  [ $b = ptrace ] && row "$tmp/$b" W 'tls_lim.hi' writes 20 $b
  grep -q "'self->limits\[2\].hi:-w-': self = 0x[0-9a-f]* -> watching 0x[0-9a-f]*+0x38, 4 bytes (int, from DWARF)$" \
    "$tmp/$b.err" || bad "$b: the note of self->limits[2].hi"
done
# A bitfield's values (ptrace reads the watched byte around each store):
# mode = i & 7 for i = 0..29, the field's bits shown after the byte's.
st=0
"$hwbp" trace --backend ptrace -e 'cfg.fl.mode:-w-' --trace - -- "$tmp/prog" > "$tmp/values" 2>&1 || st=$?
[ $st = 0 ] && [ "$(grep -c ' cfg.fl.mode+0x0 W writes .* field [0-7] -> [0-7]$' "$tmp/values")" = 30 ] &&
  grep ' field ' "$tmp/values" | tail -1 | grep -q ' value 0x8 -> 0xa field 4 -> 5$' ||
  bad "the bitfield's values: status $st: $(cat "$tmp/values")"
[ $fail = 0 ] && echo "typed names, live: OK"
exit $fail
