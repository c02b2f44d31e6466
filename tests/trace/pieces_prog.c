/* SPDX-License-Identifier: MIT */
/*
 * A watch of two pieces: `flags` is 16 bytes, two 8-byte debug registers
 * (x86 LEN 8; arm64 and powerpc take it in one, and the test says so).
 * flag_d() makes 27 four-byte stores: one to each element, then 23 to
 * flags[0]; flag_loop() makes 8 from one store instruction, over every
 * element in turn (the same IP on both pieces, one access each).
 * Exact counts: W flags flag_d 27, W flags flag_loop 8.
 */
#include <stdio.h>

volatile int flags[4] __attribute__((aligned(16)));

__attribute__((noinline)) static void flag_d(void)
{
	for (int i = 0; i < 4; i++)
		flags[i] = i;
	for (int i = 0; i < 23; i++)
		flags[0] = i;
}

__attribute__((noinline)) static void flag_loop(void)
{
	for (int i = 0; i < 8; i++)
		flags[i & 3] = i;
}

int main(void)
{
	flag_d();
	flag_loop();
	return flags[0] == 4 && flags[3] == 7 ? 0 : 1;
}
