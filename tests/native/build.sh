#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the native runner for this host.
#   tests/native/build.sh OUTDIR TABLE.c
# TABLE.c comes from `hwbp sim --compile FILES...`; libhwbp and the
# simulator's formatter come from the host build (build/host, which
# scripts/harness has just built).  Prints the program's path.
set -eu
if [ $# -ne 2 ]; then
	echo "usage: $0 OUTDIR TABLE.c" >&2
	exit 2
fi
out=$1
table=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CC=${CC:-cc}
host=$(uname -m)
[ -f "$here/$host.c" ] || { echo "$0: no native runner for a $host host" >&2; exit 1; }
b=$top/build/host
mkdir -p "$out"
# shellcheck disable=SC2086
$CC -std=gnu11 -O2 -Wall -Wextra -Werror -I "$top/include" -I "$top/generic" -I "$top/sim" \
	-I "$top/tests/qemu/common" -o "$out/native" "$here/$host.c" \
	"$top/tests/qemu/common/runner.c" "$top/tests/qemu/common/selftest.c" "$table" \
	"$b/libhwbp_core_internal.a" "$b/libhwbp_sim_internal.a"
echo "$out/native"
