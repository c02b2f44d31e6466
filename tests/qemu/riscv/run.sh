#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the RISC-V bare-metal harness: run.sh IMAGE.elf
# Prints the serial output; exits with the kernel's status through QEMU's
# sifive_test device (0 = ran to the end; 3 = unexpected exception, see
# the FATAL line; 5 = libhwbp has no RISC-V preset yet, nothing run),
# 124 on timeout, 127 if QEMU is missing.
set -u
if [ $# -ne 1 ]; then
	echo "usage: $0 IMAGE.elf" >&2
	exit 2
fi
QEMU=${QEMU_RISCV64:-qemu-system-riscv64}
if ! command -v "$QEMU" >/dev/null 2>&1; then
	echo "$0: $QEMU not found (apt-get install qemu-system-misc)" >&2
	exit 127
fi
TIMEOUT=${HARNESS_TIMEOUT:-120}
# -M virt -bios none: no OpenSBI; every hart enters the ELF in M-mode at
# once (start.S).  HARNESS_SMP harts (scripts/harness: 4, or what
# `mode cpu=N` needs; at most 8, the harness's own limit).
SMP=${HARNESS_SMP:-4}
# HARNESS_SBI=1: QEMU's OpenSBI (-bios default) in M-mode, the kernel
# (built with HARNESS_SBI=1) entered in S-mode at 0x80200000.
BIOS=none
[ "${HARNESS_SBI:-0}" = 1 ] && BIOS=default
timeout -k 5 "$TIMEOUT" "$QEMU" -M virt -bios "$BIOS" -m 256M -smp "$SMP" -nodefaults \
	-serial stdio -display none -monitor none -no-reboot \
	-kernel "$1" </dev/null
rc=$?
case $rc in
0) ;;
124|137) echo "$0: QEMU timed out after ${TIMEOUT}s (kernel hung?)" >&2; rc=124 ;;
3) echo "$0: the kernel took an unexpected exception (see the FATAL line)" >&2 ;;
5) echo "$0: libhwbp has no RISC-V preset (arch/riscv/ not integrated): nothing run" >&2 ;;
*) echo "$0: QEMU/kernel exited with status $rc" >&2 ;;
esac
exit $rc
