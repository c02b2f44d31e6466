#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the x86_64 bare-metal harness kernel.
#   tests/qemu/x86/build.sh OUTDIR TABLE.c
# TABLE.c comes from `hwbp sim --compile FILES...`.  Output: OUTDIR/kernel.elf
# (elf32-i386 wrapper of the x86_64 kernel, loadable by QEMU's multiboot
# -kernel) and OUTDIR/kernel64.elf (the same, ELF64, for gdb/objdump).
set -eu

if [ $# -ne 2 ]; then
	echo "usage: $0 OUTDIR TABLE.c" >&2
	exit 2
fi
out=$1
table=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
CC=${CC:-gcc}
LD=${LD:-ld}
OBJCOPY=${OBJCOPY:-objcopy}

[ -f "$table" ] || { echo "$0: no table $table" >&2; exit 1; }
table_abs=$(cd "$(dirname "$table")" && pwd)/$(basename "$table")

. "$here/kbuild.sh"
kbuild "$here/kernel.c" "$here/step.c" "$top/tests/qemu/common/runner.c" "$top/tests/qemu/common/selftest.c" \
	"$top/sim/format.c" "$table_abs"
