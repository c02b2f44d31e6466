#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the arm64 bare-metal harness: run.sh IMAGE.elf
# Prints the serial output; exits with the kernel's semihosting SYS_EXIT
# status (0 = ran to the end), 124 on timeout, 127 if QEMU is missing.
set -u
if [ $# -ne 1 ]; then
	echo "usage: $0 IMAGE.elf" >&2
	exit 2
fi
QEMU=${QEMU_AARCH64:-qemu-system-aarch64}
if ! command -v "$QEMU" >/dev/null 2>&1; then
	echo "$0: $QEMU not found (apt-get install -t bookworm-backports qemu-system-arm)" >&2
	exit 127
fi
TIMEOUT=${HARNESS_TIMEOUT:-120}
# -M virt without virtualization/secure: the ELF is entered at EL1, PSCI
# through HVC; the other CPUs start powered off (smp.c: PSCI CPU_ON).
# HARNESS_SMP CPUs (scripts/harness: 4, or what `mode cpu=N` needs; at
# most 8, the GICv2's CPU interfaces).
SMP=${HARNESS_SMP:-4}
timeout -k 5 "$TIMEOUT" "$QEMU" -M virt -cpu cortex-a57 -m 256M -smp "$SMP" -nodefaults \
	-serial stdio -display none -monitor none -no-reboot -semihosting \
	-kernel "$1" </dev/null
rc=$?
case $rc in
0) ;;
124|137) echo "$0: QEMU timed out after ${TIMEOUT}s (kernel hung?)" >&2 ;;
3) echo "$0: the kernel took an unexpected exception (see the FATAL line)" >&2 ;;
*) echo "$0: QEMU/kernel exited with status $rc" >&2 ;;
esac
exit $rc
