#!/usr/bin/env bash
# tests/qemu/powerpc/run.sh IMAGE
# Boots the ppc64 harness kernel on qemu-system-ppc64 -M powernv10 (POWER10,
# hypervisor state) under QEMU's skiboot firmware (-kernel: skiboot runs the
# ELF in place), prints the harness's serial output (skiboot's own log
# lines, "[  time,level] ...", and everything before the harness's start
# line are left out; the full log is kept in IMAGE.serial.log) and exits
# with the harness's exit status.  Power-off: OPAL_CEC_POWER_DOWN, which
# skiboot sends to QEMU's IPMI BMC simulator (the BMC and BT interface
# devices below), so QEMU itself exits 0: the status comes from the
# harness's last line "hwbp-ppc64: exit N".  CPUs: HARNESS_SMP (default 4)
# cores of one thread each on chip 0, spelt out (cores=N,threads=1) so that
# the PIRs are 0x0, 0x4, ... (README.md: "CPUs").
set -uo pipefail
image=${1:?usage: run.sh IMAGE}
QEMU=${QEMU:-qemu-system-ppc64}
TIMEOUT=${HWBP_QEMU_TIMEOUT:-120}
if ! command -v "$QEMU" >/dev/null; then
  echo "run.sh: $QEMU not found: install QEMU >= 8.2 (Debian bookworm-backports: qemu-system-ppc)" >&2
  exit 127
fi
[ -f "$image" ] || { echo "run.sh: no image '$image'" >&2; exit 2; }
log=$image.serial.log
timeout --foreground -k 5 "$TIMEOUT" "$QEMU" -M powernv10 -smp "${HARNESS_SMP:-4},cores=${HARNESS_SMP:-4},threads=1" -m 1G \
  -nodefaults -display none -no-reboot -serial stdio \
  -device ipmi-bmc-sim,id=bmc0 -device isa-ipmi-bt,bmc=bmc0,irq=10 \
  -kernel "$image" </dev/null > "$log"
rc=$?
# The harness's lines: after its start line, without skiboot's log lines.
sed -n '/^hwbp-ppc64: harness start/,$p' "$log" | tr -d '\r' |
  grep -v -E '^\[ *[0-9]' | grep -v '^hwbp-ppc64: harness start' |
  grep -v '^hwbp-ppc64: exit '
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
  echo "run.sh: QEMU timed out after ${TIMEOUT}s (harness hung?); last serial lines:" >&2
  tail -n 15 "$log" >&2
  exit 124
fi
if [ $rc -ne 0 ]; then
  echo "run.sh: QEMU failed (status $rc); last serial lines:" >&2
  tail -n 15 "$log" >&2
  exit $rc
fi
code=$(sed -n 's/^hwbp-ppc64: exit \([0-9]*\).*/\1/p' "$log" | tail -n 1)
if [ -z "$code" ]; then
  echo "run.sh: QEMU exited without the harness's exit line (crash?); last serial lines:" >&2
  tail -n 15 "$log" >&2
  exit 1
fi
exit "$code"
