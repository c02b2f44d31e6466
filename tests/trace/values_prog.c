/* SPDX-License-Identifier: MIT */
/*
 * tests/trace/values_prog.c: known values, for values_test.sh.  main
 * writes 1, 2, ... 10 into the long `val`, then reads it 3 times, and
 * writes 0x12345678 then 0x9abcdef0 into the 4-byte `word`.
 */
#include <stdint.h>

long val;
uint32_t word;
volatile long sink;

/* One access per statement: the empty asm with a memory clobber keeps the
 * compiler from merging or dropping the stores. */
#define FENCE() __asm__ volatile("" ::: "memory")

int main(void)
{
	for (long i = 1; i <= 10; i++) {
		val = i;
		FENCE();
	}
	for (int k = 0; k < 3; k++) {
		sink = val;
		FENCE();
	}
	word = 0x12345678u;
	FENCE();
	word = 0x9abcdef0u;
	FENCE();
	return 0;
}
