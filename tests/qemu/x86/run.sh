#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the x86_64 harness kernel under QEMU (TCG) and print its serial output.
#   tests/qemu/x86/run.sh OUTDIR/kernel.elf [QEMU ARGS...]
# (extra arguments go to QEMU, e.g. -append CMDLINE for the tracer demo)
# Machine: -machine pc -cpu qemu64 -m 512M, COM1 on stdio, isa-debug-exit at
# 0xf4.  The kernel leaves through isa-debug-exit writing code + 32: QEMU's
# status is then ((code + 32) << 1) | 1 (65 for code 0); this script exits
# with the kernel's code (0 = all files ran, 3 = unexpected exception).  Any
# other QEMU end is an error: 124 timeout (hang), 125 QEMU missing, 126 QEMU
# ended without the kernel's exit (QEMU error such as a bad image, triple
# fault with -no-reboot, ...).
set -u

if [ $# -lt 1 ]; then
	echo "usage: $0 KERNEL [QEMU ARGS...]" >&2
	exit 2
fi
img=$1
shift
QEMU=${QEMU:-qemu-system-x86_64}
TIMEOUT=${HARNESS_TIMEOUT:-120}

if ! command -v "$QEMU" >/dev/null 2>&1; then
	echo "$0: $QEMU not found (apt-get install -t bookworm-backports qemu-system-x86)" >&2
	exit 125
fi
[ -f "$img" ] || { echo "$0: no kernel image $img" >&2; exit 2; }

timeout --foreground -k 5 "$TIMEOUT" "$QEMU" \
	-nodefaults -machine pc,accel=tcg -cpu qemu64 -m 512M -smp "${HARNESS_SMP:-4}" \
	-display none -no-reboot -monitor none \
	-chardev stdio,id=ser0,signal=off -serial chardev:ser0 \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-kernel "$img" "$@" </dev/null
rc=$?
case $rc in
124)
	echo "$0: QEMU timed out after ${TIMEOUT}s (the kernel hangs)" >&2
	exit 124 ;;
137)
	echo "$0: QEMU killed after the timeout" >&2
	exit 124 ;;
esac
if [ $((rc % 2)) -eq 1 ] && [ "$rc" -ge 65 ] && [ "$rc" -lt 124 ]; then
	code=$(((rc >> 1) - 32))
	[ "$code" -eq 0 ] || echo "$0: kernel exited with code $code" >&2
	exit "$code"
fi
echo "$0: QEMU ended with status $rc without the kernel's isa-debug-exit (crash, triple fault or QEMU error)" >&2
exit 126
