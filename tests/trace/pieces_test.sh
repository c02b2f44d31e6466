#!/usr/bin/env bash
# tests/trace/pieces_test.sh HWBP PIECES_PROG.C: a watch of two pieces on
# a real process, every store counted once by each backend (ptrace, perf,
# bpf where this build has it): tests/trace/pieces_prog.c's flag_d() makes 27 stores to
# `flags` (16 bytes: two 8-byte debug registers on x86), flag_loop() 8
# from one instruction over both pieces.
# Why: under QEMU's TCG a piece that an earlier store matched is reported
# again in DR6 with every store that the other piece matches (QEMU's
# cpu_check_watchpoint() stops at the first match of its list and leaves a
# later watchpoint's hit flag set; check_hw_breakpoints() reports every
# flagged one), and Linux's hw_breakpoint_handler() raises a perf event
# for each DR6 bit: perf's own counters count those extra events (printed
# below, `perf stat` on both pieces: the independent count), and hwbp's
# perf and bpf backends count each access once (one debug exception, the
# same registers: tracer/backends/perf/perf_sample.c and tracer/backends/perf/bpf/hist.bpf.c
# same_access()).  An access across the
# two pieces, which real CPUs report on both, is counted once the same way.
set -uo pipefail
hwbp=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prog=$tmp/prog
${CC:-cc} -O1 -g -o "$prog" "$src" || exit 1
fail=0
backends=(ptrace perf)
# (bpf: where this build lists it; a kernel that refuses the program
# gets perf's samples counted instead, with a note: the same counts)
if "$hwbp" trace --backend list 2>/dev/null | grep -q '^bpf '; then backends+=(bpf); fi
for backend in "${backends[@]}"; do
  if ! "$hwbp" trace --backend "$backend" -e 'flags:-w-' -- "$prog" > "$tmp/$backend.txt" 2> "$tmp/$backend.err"; then
    echo "FAIL: $backend: hwbp trace failed: $(cat "$tmp/$backend.err")"; fail=1; continue
  fi
  for want in "flag_d 27" "flag_loop 8"; do
    read -r fn n <<< "$want"
    if ! awk -v f="$fn" -v n="$n" '$1 == "W" && $2 == "flags" && $3 == f && $4 == n { ok = 1 } END { exit !ok }' "$tmp/$backend.txt"; then
      echo "FAIL: $backend: want 'W flags $fn $n' in:"; cat "$tmp/$backend.txt" "$tmp/$backend.err"; fail=1
    fi
  done
  echo "$backend: $(awk '$1 == "W" { printf "%s %s; ", $3, $4 }' "$tmp/$backend.txt")$(grep -oE '[0-9]+ (samples|events) were a second piece.s report' "$tmp/$backend.err" || true)"
done
# The same stores as perf's own counters see them, one event per piece
# (printed, not asserted: the extra events' number depends on when the
# kernel rewrites DR7, at each context switch).
# (a non-PIE build: its symbol's address is the running one)
if command -v perf > /dev/null && command -v nm > /dev/null; then
  ${CC:-cc} -O1 -g -no-pie -o "$tmp/prog-nopie" "$src" || exit 1
  base=$(nm "$tmp/prog-nopie" | awk '$3 == "flags" { print $1 }')
  if perf stat -x, -e "mem:0x$base/8:w:u" -e "mem:0x$(printf '%x' $((0x$base + 8)))/8:w:u" \
       -o "$tmp/stat" "$tmp/prog-nopie" 2> "$tmp/stat.err"; then
    echo "perf stat, piece 0 and piece 1 (35 stores): $(awk -F, '$1 ~ /^[0-9]+$/ { printf "%s ", $1 }' "$tmp/stat")"
  else
    echo "perf stat: not run: $(head -n 1 "$tmp/stat.err")"
  fi
fi
exit $fail
