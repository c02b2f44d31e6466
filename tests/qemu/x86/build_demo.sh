#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the tracer demo kernel of `hwbp trace --backend qemu-x86 --demo`.
#   tests/qemu/x86/build_demo.sh OUTDIR
# The workload is generated from tracer/backends/replay/demo.c (gen_demo.py).  Output:
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

command -v "$PYTHON" >/dev/null 2>&1 || { echo "$0: $PYTHON not found" >&2; exit 1; }

mkdir -p "$out/obj"
"$PYTHON" "$here/gen_demo.py" "$top/tracer/backends/replay/demo.c" "$out/demo_work.c"

. "$here/kbuild.sh"
kbuild "$here/trace_kernel.c" "$out/demo_work.c"
