#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the RISC-V bare-metal harness: build.sh OUTDIR TABLE.c
# -> OUTDIR/hwbp-harness-riscv64.elf (for run.sh / qemu-system-riscv64 -kernel).
# HARNESS_SBI=1: the S-mode kernel under OpenSBI instead (README.md):
# start.S with -DHARNESS_SBI, harness_sbi.c, smp_sbi.c and hwbp's
# arch/riscv/glue_sbi.c in place of harness_riscv.c, smp.c and glue.c,
# linked at 0x80200000.
set -eu
if [ $# -ne 2 ]; then
	echo "usage: $0 OUTDIR TABLE.c" >&2
	exit 2
fi
OUT=$1
TABLE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
CC=${CC_RISCV64:-riscv64-linux-gnu-gcc}
if ! command -v "$CC" >/dev/null 2>&1; then
	echo "$0: $CC not found (apt-get install gcc-riscv64-linux-gnu)" >&2
	exit 1
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
case $TABLE in /*) ;; *) TABLE=$(pwd)/$TABLE ;; esac

# RV64IMAC with Zicsr (CSR instructions) and Zifencei (fence.i after
# writing arena C): no F/D, so C can touch no FP register (the trap entry
# saves none).  -mcmodel=medany: the image lives at 0x80000000, outside
# medlow's +-2 GiB around 0.
KCOMMON="-O2 -Wall -Wextra -Werror -march=rv64imac_zicsr_zifencei -mabi=lp64 -mcmodel=medany
 -fno-pic -fno-pie -ffunction-sections -fdata-sections"
CFLAGS="-ffreestanding -nostdlib -fno-builtin -fno-stack-protector -std=c11 $KCOMMON
 -I $ROOT/include -I $ROOT/generic -I $ROOT/tests/qemu/common -I $ROOT/sim
 -I $ROOT/tests/qemu/riscv/include -I $ROOT/arch/riscv"
# libhwbp as a kernel compiles it: the freestanding core's one flag list
# (generic/freestanding-flags.txt; it has no riscv64 line yet: common only).
CORE_FLAGS="$(sed -n -e 's/^common: //p' -e 's/^riscv64: //p' "$ROOT/generic/freestanding-flags.txt")
 $KCOMMON -isystem $($CC -print-file-name=include) -I $ROOT/include -I $ROOT/generic"
# The lead's common files (and the table) are built with warnings, not errors.
CFLAGS_COMMON=$(echo "$CFLAGS" | sed 's/-Werror//')

cd "$ROOT"
OBJS=""
cc() { # cc SRC OBJNAME FLAGS...
	src=$1 obj=$OUT/$2
	shift 2
	$CC $* -c "$src" -o "$obj"
	OBJS="$OBJS $obj"
}
if [ "${HARNESS_SBI:-0}" = 1 ]; then
	CFLAGS="$CFLAGS -DHARNESS_SBI"
	HARNESS=harness_sbi SMP=smp_sbi GLUE=glue_sbi LDBASE=-Wl,--defsym=__kernel_base=0x80200000
else
	HARNESS=harness_riscv SMP=smp GLUE=glue LDBASE=
fi
cc tests/qemu/riscv/start.S start.o $CFLAGS
cc tests/qemu/riscv/$HARNESS.c $HARNESS.o $CFLAGS
cc tests/qemu/riscv/insn.c insn.o $CFLAGS
cc tests/qemu/riscv/$SMP.c $SMP.o $CFLAGS
cc tests/qemu/riscv/machine.c machine.o $CFLAGS
cc arch/riscv/$GLUE.c $GLUE.o $CORE_FLAGS
# libhwbp: every generic/*.c and every arch's caps, encode and decode.
for f in generic/*.c arch/*/caps.c arch/*/encode.c arch/*/decode.c; do
	cc "$f" "$(echo "$f" | tr / _ | sed 's/\.c$/.o/')" $CORE_FLAGS
done
cc tests/qemu/common/runner.c runner.o $CFLAGS_COMMON
cc tests/qemu/common/selftest.c selftest.o $CFLAGS_COMMON
cc tests/qemu/common/libc.c libc.o $CFLAGS_COMMON
cc sim/format.c sim_format.o $CFLAGS_COMMON
cc "$TABLE" table.o $CFLAGS_COMMON
$CC -nostdlib -static -march=rv64imac_zicsr_zifencei -mabi=lp64 -Wl,--gc-sections \
	$LDBASE -Wl,-T,tests/qemu/riscv/kernel.ld -Wl,--no-warn-rwx-segments -Wl,--build-id=none \
	-o "$OUT/hwbp-harness-riscv64.elf" $OBJS -lgcc
echo "$OUT/hwbp-harness-riscv64.elf"
