#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the arm64 bare-metal harness: build.sh OUTDIR TABLE.c
# -> OUTDIR/hwbp-harness-arm64.elf (for run.sh / qemu-system-aarch64 -kernel).
set -eu
if [ $# -ne 2 ]; then
	echo "usage: $0 OUTDIR TABLE.c" >&2
	exit 2
fi
OUT=$1
TABLE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
CC=${CC_AARCH64:-aarch64-linux-gnu-gcc}
if ! command -v "$CC" >/dev/null 2>&1; then
	echo "$0: $CC not found (apt-get install gcc-aarch64-linux-gnu)" >&2
	exit 1
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
case $TABLE in /*) ;; *) TABLE=$(pwd)/$TABLE ;; esac

# -mgeneral-regs-only: C never touches FP/SIMD registers (the exception
# entry does not save them; only the 32/64-byte access routines use v0-v3).
# -mstrict-align: C code runs before the MMU is on (Device memory).
KCOMMON="-O2 -Wall -Wextra -Werror -mgeneral-regs-only -mstrict-align -fno-pic -fno-pie
 -mcmodel=small -ffunction-sections -fdata-sections"
CFLAGS="-ffreestanding -nostdlib -fno-builtin -fno-stack-protector -std=c11 $KCOMMON
 -I $ROOT/include -I $ROOT/generic -I $ROOT/tests/qemu/common -I $ROOT/sim -I $ROOT/arch/arm64"
# libhwbp and the glue as a kernel compiles them: the freestanding core's
# one flag list (generic/freestanding-flags.txt, as scripts/core-check).
CORE_FLAGS="$(sed -n -e 's/^common: //p' -e 's/^aarch64: //p' "$ROOT/generic/freestanding-flags.txt")
 $KCOMMON -isystem $($CC -print-file-name=include) -I $ROOT/include -I $ROOT/generic -I $ROOT/arch/arm64"
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
cc tests/qemu/arm64/start.S start.o $CFLAGS
cc tests/qemu/arm64/harness_arm64.c harness_arm64.o $CFLAGS
cc tests/qemu/arm64/insn.c insn.o $CFLAGS
cc tests/qemu/arm64/smp.c smp.o $CFLAGS
cc arch/arm64/glue.c glue.o $CORE_FLAGS
# libhwbp: every generic/*.c and each arch's caps, encode and decode
# (every arch/<a>/ folder: no list).
for f in generic/*.c arch/*/caps.c arch/*/encode.c arch/*/decode.c; do
	cc "$f" "$(echo "$f" | tr / _ | sed 's/\.c$/.o/')" $CORE_FLAGS
done
cc tests/qemu/common/runner.c runner.o $CFLAGS_COMMON
cc tests/qemu/common/selftest.c selftest.o $CFLAGS_COMMON
cc tests/qemu/common/libc.c libc.o $CFLAGS_COMMON
cc sim/format.c sim_format.o $CFLAGS_COMMON
cc "$TABLE" table.o $CFLAGS_COMMON
$CC -nostdlib -static -Wl,--gc-sections -Wl,-T,tests/qemu/arm64/kernel.ld \
	-Wl,--no-warn-rwx-segments -Wl,--build-id=none -o "$OUT/hwbp-harness-arm64.elf" $OBJS -lgcc
echo "$OUT/hwbp-harness-arm64.elf"
