# SPDX-License-Identifier: MIT
# Sourced by build.sh and build_demo.sh: how an x86_64 kernel of ours is
# compiled and linked.  Needs $here, $top, $out, $CC, $LD, $OBJCOPY.
#   kbuild SRC...   compile SRC... with libhwbp and platform.c, link with
#                   boot.S into $out/kernel64.elf and $out/kernel.elf
kcflags="-ffreestanding -nostdlib -fno-builtin -fno-stack-protector -O2 -std=c11
	-Wall -Wextra -Werror -m64 -mno-red-zone -mgeneral-regs-only -fno-pic -fno-pie
	-mcmodel=small -fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns
	-I $top/include -I $top/generic -I $top/sim -I $top/tests/qemu/common -I $here"

# libhwbp as the kernels use it: all three arches' encoders (generic/arch.c
# references them), no glue but x86's.
klib="$here/platform.c $top/arch/x86/glue.c $top/tests/qemu/common/libc.c
	$top/generic/arch.c $top/generic/cpu.c $top/generic/plan.c $top/generic/slots.c
	$top/arch/x86/caps.c $top/arch/x86/encode.c $top/arch/x86/decode.c
	$top/arch/arm64/caps.c $top/arch/arm64/encode.c $top/arch/arm64/decode.c
	$top/arch/powerpc/caps.c $top/arch/powerpc/encode.c $top/arch/powerpc/decode.c"

kbuild() {
	for t in "$CC" "$LD" "$OBJCOPY"; do
		command -v "$t" >/dev/null 2>&1 || { echo "$0: $t not found" >&2; exit 1; }
	done
	mkdir -p "$out/obj"
	objs=""
	i=0
	for s in "$@" $klib; do
		i=$((i + 1))
		o="$out/obj/$i-$(basename "$s" .c).o"
		# shellcheck disable=SC2086
		$CC $kcflags -c "$s" -o "$o"
		objs="$objs $o"
	done
	$CC -m64 -c "$here/boot.S" -o "$out/obj/boot.o"
	# shellcheck disable=SC2086
	$LD -m elf_x86_64 -nostdlib -static -z max-page-size=0x1000 -z noexecstack \
		--no-warn-rwx-segments -T "$here/kernel.ld" -o "$out/kernel64.elf" \
		"$out/obj/boot.o" $objs
	# QEMU's multiboot loader refuses ELF64: the same image as elf32-i386.
	$OBJCOPY -O elf32-i386 "$out/kernel64.elf" "$out/kernel.elf"
	echo "$out/kernel.elf"
}
