#!/usr/bin/env bash
# sim = qemu-x86 for the tracer demo: `hwbp trace --demo` on the simulator
# (4 simulated CPUs, accesses known exactly) and on QEMU (the same table of
# tracer/backends/replay/demo.c compiled into the x86_64 bare-metal kernel as real code, one
# CPU, QEMU's emulated debug registers) must print the same histogram, for
# several watch sets, and the same events in the same order in trace mode
# (CPU and timestamp columns aside: the simulator's CPUs and clock are not
# the kernel's).  A watch set the CPU cannot hold fails the same way on both.
# Exit 77 (skipped) when qemu-system-x86_64 is missing.
# The demo kernel is the one installed with hwbp (LIBDIR/hwbp/qemu-x86);
# an hwbp of a build tree takes the build tree's (<build>/tracer/backends/qemu/qemu-x86)
# unless HWBP_DATADIR says where.
set -uo pipefail
hwbp=$1
if [ -z "${HWBP_DATADIR:-}" ]; then
  built=$(cd "$(dirname "$hwbp")/.." && pwd)/tracer/backends/qemu
  [ -f "$built/qemu-x86/kernel.elf" ] && export HWBP_DATADIR=$built
fi
command -v "${QEMU:-qemu-system-x86_64}" >/dev/null || {
  echo "qemu-system-x86_64 is missing (scripts/deps installs it): skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

compare() {  # compare ARGS...: same stdout, stderr and status
  "$hwbp" trace --demo "$@" >"$tmp/s.out" 2>"$tmp/s.err"; local s=$?
  "$hwbp" trace --demo --backend qemu-x86 "$@" >"$tmp/q.out" 2>"$tmp/q.err"; local q=$?
  if [ "$s" -ne "$q" ] || ! diff -u "$tmp/s.out" "$tmp/q.out" || ! diff -u "$tmp/s.err" "$tmp/q.err"; then
    echo "FAIL: trace --demo $* (sim status $s, qemu-x86 status $q)"; fail=1
  else
    echo "same: trace --demo $* (status $s)"
  fi
}

# The default watches, printed for the log.
"$hwbp" trace --demo --backend qemu-x86 | tee "$tmp/default.txt"
grep -q '^jiffies: 16 functions, overrun 107$' "$tmp/default.txt" || {
  echo "FAIL: the demo's jiffies overrun line"; fail=1; }
compare
compare --hist-entries 32
compare -e 'avenrun:rw-' -e 'pid_max:-w-'
compare -e 'nr_threads:r--' -e 'jiffies+4/4:rw-'
compare -e 'avenrun:rw-' -e 'jiffies:rw-' -e 'pid_max:rw-'   # 5 registers: ENOSPC

# Trace mode: the same events in the same order.
"$hwbp" trace --demo --trace - 2>/dev/null | awk '{ print $3, $4, $5 }' >"$tmp/s.ev"
"$hwbp" trace --demo --backend qemu-x86 --trace - 2>/dev/null | awk '{ print $3, $4, $5 }' >"$tmp/q.ev"
if [ -s "$tmp/s.ev" ] && cmp -s "$tmp/s.ev" "$tmp/q.ev"; then
  echo "same: $(wc -l <"$tmp/s.ev") trace events in the same order"
else
  echo "FAIL: trace-mode events differ ($(wc -l <"$tmp/s.ev") vs $(wc -l <"$tmp/q.ev"))"; fail=1
fi
[ $fail -eq 0 ] && echo "demo sim = qemu-x86: OK"
exit $fail
