#!/usr/bin/env bash
# Build a program against the installed hwbp (headers + hwbp.pc) and run it
# with the installed shared library.
set -euo pipefail
stage=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/consumer.c" <<'C'
#include <hwbp/hwbp.h>
#include <stdio.h>
int main(void)
{
	struct hwbp_cpu cpu;
	struct hwbp_plan p;
	struct hwbp_request r = { 0x1001, 13, HWBP_RW, HWBP_SCOPE_USER, 0 };

	if (hwbp_cpu_preset("cortex-a57", &cpu) || hwbp_plan(&cpu, &r, 0, &p))
		return 1;
	printf("pieces %u\n", p.n);
	return p.n == 2 ? 0 : 1;
}
C
cc -std=c11 -Wall -Wextra -Werror "$tmp/consumer.c" -o "$tmp/consumer" $(pkg-config --cflags --libs hwbp)
LD_LIBRARY_PATH="$stage/lib" "$tmp/consumer"
# The static library works too.
cc -std=c11 "$tmp/consumer.c" -o "$tmp/consumer-static" $(pkg-config --cflags hwbp) "$stage/lib/libhwbp.a"
"$tmp/consumer-static"
