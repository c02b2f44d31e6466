/* SPDX-License-Identifier: MIT */
/*
 * Two bitfields of one struct, each written by its own thread: in C they
 * are one memory location, and the machine writes a bitfield by loading
 * and storing the bytes around it, so each thread's update can undo the
 * other's ("different fields" is not "different memory").
 * expect: race set_low set_high
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

struct flags {
	unsigned low : 4;
	unsigned high : 4;
} f;

static void *set_low(void *arg)
{
	(void)arg;
	for (long i = 0; i < 30000000; i++)
		f.low = (unsigned)i;
	return NULL;
}

static void *set_high(void *arg)
{
	(void)arg;
	for (long i = 0; i < 30000000; i++)
		f.high = (unsigned)i;
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, set_low, NULL);
	pthread_create(&b, NULL, set_high, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("low %u high %u\n", f.low, f.high);
	return 0;
}
