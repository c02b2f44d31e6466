/* SPDX-License-Identifier: MIT */
/*
 * GDB's gdb.base/watchpoint-unaligned.exp, as a program: bytes 1 to 7 of
 * one doubleword, byte i read READS_PER_BYTE * i times and then written
 * once; byte 0, which nobody watches, read BYTE0_READS times.  Each load
 * and store is one byte (volatile), in main (shared_test.sh).
 */
#include <stdint.h>

#define READS_PER_BYTE 2
#define BYTE0_READS 5

volatile uint8_t data[8] __attribute__((aligned(8)));
volatile uint64_t sink;

int main(void)
{
	for (int i = 1; i <= 7; i++) {
		for (int k = 0; k < READS_PER_BYTE * i; k++)
			sink += data[i];
		data[i] = (uint8_t)i;
	}
	for (int k = 0; k < BYTE0_READS; k++)
		sink += data[0];
	return 0;
}
