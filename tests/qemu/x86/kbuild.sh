# SPDX-License-Identifier: MIT
# Sourced by build.sh and build_demo.sh: how an x86_64 kernel of ours is
# compiled and linked.  Needs $here, $top, $out, $CC, $LD, $OBJCOPY.
#   kbuild SRC...   compile SRC... with libhwbp and platform.c, link with
#                   boot.S into $out/kernel64.elf and $out/kernel.elf

# What every object of the kernel needs: 64-bit, no red zone (interrupts
# run on the same stack), no PIC, no unwind tables, no FP/SIMD.
kcommon="-O2 -Wall -Wextra -Werror -m64 -mno-red-zone -mgeneral-regs-only -fno-pic -fno-pie
	-mcmodel=small -fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns"

# libhwbp and the glue, as a kernel compiles them: the freestanding core's
# one flag list (generic/freestanding-flags.txt, as scripts/core-check),
# the compiler's own headers only.
kcore_flags() {
	sed -n -e 's/^common: //p' -e 's/^x86_64: //p' "$top/generic/freestanding-flags.txt"
}
kcoreflags="$(kcore_flags) $kcommon -isystem $($CC -print-file-name=include)
	-I $top/include -I $top/generic -I $top/arch/x86"

# The harness's own files (the runner, its small libc, the table) use the
# C library's headers for errno.h/string.h declarations, nothing more.
kcflags="-ffreestanding -nostdlib -fno-builtin -fno-stack-protector -std=c11 $kcommon
	-I $top/include -I $top/generic -I $top/sim -I $top/tests/qemu/common
	-I $top/arch/x86 -I $here"

# libhwbp as the kernels use it: every arch's encoders (generic/arch.c
# references them: each arch/<a>/ folder, no list), no glue but x86's.
kcore="$top/arch/x86/glue.c
	$(echo "$top"/generic/*.c)
	$(echo "$top"/arch/*/caps.c "$top"/arch/*/encode.c "$top"/arch/*/decode.c)"
klib="$here/platform.c $here/smp.c $top/tests/qemu/common/libc.c"

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
	for s in $kcore; do
		i=$((i + 1))
		o="$out/obj/$i-$(basename "$s" .c).o"
		# shellcheck disable=SC2086
		$CC $kcoreflags -c "$s" -o "$o"
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
