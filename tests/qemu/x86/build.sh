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

for t in "$CC" "$LD" "$OBJCOPY"; do
	command -v "$t" >/dev/null 2>&1 || { echo "$0: $t not found" >&2; exit 1; }
done
[ -f "$table" ] || { echo "$0: no table $table" >&2; exit 1; }

mkdir -p "$out/obj"
table_abs=$(cd "$(dirname "$table")" && pwd)/$(basename "$table")

common="-ffreestanding -nostdlib -fno-builtin -fno-stack-protector -O2 -std=c11
	-Wall -Wextra -Werror -m64 -mno-red-zone -mgeneral-regs-only -fno-pic -fno-pie
	-mcmodel=small -fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns
	-I $top/include -I $top/generic -I $top/sim -I $top/tests/qemu/common"

# The harness's own files and libhwbp (all three arches' encoders: generic/
# arch.c references them; no glue but x86's).
srcs="$here/kernel.c $top/arch/x86/glue.c
	$top/tests/qemu/common/runner.c $top/tests/qemu/common/libc.c $top/sim/format.c
	$top/generic/arch.c $top/generic/cpu.c $top/generic/plan.c $top/generic/slots.c
	$top/arch/x86/caps.c $top/arch/x86/encode.c $top/arch/x86/decode.c
	$top/arch/arm64/caps.c $top/arch/arm64/encode.c $top/arch/arm64/decode.c
	$top/arch/powerpc/caps.c $top/arch/powerpc/encode.c $top/arch/powerpc/decode.c"

objs=""
i=0
for s in $srcs "$table_abs"; do
	i=$((i + 1))
	o="$out/obj/$i-$(basename "$s" .c).o"
	# shellcheck disable=SC2086
	$CC $common -c "$s" -o "$o"
	objs="$objs $o"
done
$CC -m64 -c "$here/boot.S" -o "$out/obj/boot.o"

# shellcheck disable=SC2086
$LD -m elf_x86_64 -nostdlib -static -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments \
	-T "$here/kernel.ld" -o "$out/kernel64.elf" "$out/obj/boot.o" $objs
# QEMU's multiboot loader refuses ELF64: the same image as elf32-i386.
$OBJCOPY -O elf32-i386 "$out/kernel64.elf" "$out/kernel.elf"
echo "$out/kernel.elf"
