#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the tracer demo kernel of `hwbp trace --backend qemu-x86 --demo`.
#   tests/qemu/x86/build_demo.sh OUTDIR
# The workload is generated from tracer/demo.c (gen_demo.py).  Output:
# OUTDIR/kernel.elf (elf32-i386, for QEMU's multiboot -kernel) and
# OUTDIR/kernel64.elf (the same, ELF64: the host reads its symbols).
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 OUTDIR" >&2
	exit 2
fi
out=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
# gcc flags (as build.sh); not $CC: `hwbp trace` may run where CC=clang.
CC=${HARNESS_CC:-gcc}
LD=${LD:-ld}
OBJCOPY=${OBJCOPY:-objcopy}
PYTHON=${PYTHON:-python3}

for t in "$CC" "$LD" "$OBJCOPY" "$PYTHON"; do
	command -v "$t" >/dev/null 2>&1 || { echo "$0: $t not found" >&2; exit 1; }
done

mkdir -p "$out/obj"
"$PYTHON" "$here/gen_demo.py" "$top/tracer/demo.c" "$out/demo_work.c"

common="-ffreestanding -nostdlib -fno-builtin -fno-stack-protector -O2 -std=c11
	-Wall -Wextra -Werror -m64 -mno-red-zone -mgeneral-regs-only -fno-pic -fno-pie
	-mcmodel=small -fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns
	-I $top/include -I $top/generic -I $top/sim -I $top/tests/qemu/common -I $here"

srcs="$here/trace_kernel.c $out/demo_work.c $top/arch/x86/glue.c
	$top/tests/qemu/common/libc.c
	$top/generic/arch.c $top/generic/cpu.c $top/generic/plan.c $top/generic/slots.c
	$top/arch/x86/caps.c $top/arch/x86/encode.c $top/arch/x86/decode.c
	$top/arch/arm64/caps.c $top/arch/arm64/encode.c $top/arch/arm64/decode.c
	$top/arch/powerpc/caps.c $top/arch/powerpc/encode.c $top/arch/powerpc/decode.c"

objs=""
i=0
for s in $srcs; do
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
$OBJCOPY -O elf32-i386 "$out/kernel64.elf" "$out/kernel.elf"
echo "$out/kernel.elf"
