#!/usr/bin/env bash
# tests/qemu/powerpc/build.sh OUTDIR TABLE.c
# Builds the freestanding ppc64 (big-endian, ELFv2) harness kernel for
# qemu-system-ppc64 -M powernv10 and prints the image's path (last line).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=${1:?usage: build.sh OUTDIR TABLE.c}
table=${2:?usage: build.sh OUTDIR TABLE.c}
table=$(cd "$(dirname "$table")" && pwd)/$(basename "$table")
CC=${CC:-powerpc64-linux-gnu-gcc}
command -v "$CC" >/dev/null || { echo "build.sh: $CC not found (apt-get install gcc-powerpc64-linux-gnu)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$top"
# glibc's headers (errno.h, inttypes.h...) ask for the ELFv2 stubs file,
# which Debian's big-endian (ELFv1) libc6-dev-ppc64-cross lacks: an empty one.
mkdir -p "$out/inc/gnu"
: > "$out/inc/gnu/stubs-64-v2.h"

arch=(-mabi=elfv2 -mbig-endian -mcpu=power9 -mno-altivec -mno-vsx -msoft-float
      -mcmodel=medium -fno-pic -fno-pie)
base=(-ffreestanding -nostdlib -fno-builtin -fno-stack-protector -O2 -std=c11
      -Wall -Wextra -fno-asynchronous-unwind-tables
      -I include -I generic -I tests/qemu/common -I sim -I arch/powerpc -I "$out/inc")
strict=(-Werror)
# libhwbp and the glue as a kernel compiles them: the freestanding core's
# one flag list (generic/freestanding-flags.txt, as scripts/core-check).
read -r -a core_flags <<< "$(sed -n -e 's/^common: //p' -e 's/^ppc64: //p' generic/freestanding-flags.txt | tr '\n' ' ')"
core=("${core_flags[@]}" -O2 -Wall -Wextra -Werror -isystem "$("$CC" -print-file-name=include)"
      -I include -I generic -I arch/powerpc)

own=(tests/qemu/powerpc/kernel.c tests/qemu/powerpc/smp.c)
lib=(arch/powerpc/glue.c generic/*.c
     arch/*/caps.c arch/*/encode.c arch/*/decode.c)
common=(tests/qemu/common/runner.c tests/qemu/common/selftest.c tests/qemu/common/libc.c sim/format.c)

objs=()
cc() { # cc SRC FLAGS...
  local src=$1; shift
  local o="$out/obj/$(echo "$src" | tr / _).o"
  mkdir -p "$out/obj"
  "$CC" "${arch[@]}" "${base[@]}" ${HWBP_PPC_CFLAGS:-} "$@" -c "$src" -o "$o"
  objs+=("$o")
}
ccore() { # ccore SRC: a core or glue source, freestanding
  local o="$out/obj/$(echo "$1" | tr / _).o"
  mkdir -p "$out/obj"
  "$CC" "${arch[@]}" "${core[@]}" ${HWBP_PPC_CFLAGS:-} -c "$1" -o "$o"
  objs+=("$o")
}
cc tests/qemu/powerpc/start.S
for f in "${own[@]}"; do cc "$f" "${strict[@]}"; done
for f in "${lib[@]}"; do ccore "$f"; done
for f in "${common[@]}"; do cc "$f"; done
cc "$table" -Wno-error
"$CC" "${arch[@]}" -nostdlib -static -no-pie -Wl,--no-dynamic-linker -Wl,--build-id=none -Wl,-z,noexecstack \
  -Wl,--no-warn-rwx-segments -T tests/qemu/powerpc/kernel.ld "${objs[@]}" -o "$out/hwbp-ppc64.elf"
echo "$out/hwbp-ppc64.elf"
