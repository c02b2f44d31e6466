/* SPDX-License-Identifier: MIT */
/*
 * One thread stores a single byte of a 32-bit status word (its "mode"
 * byte, through a byte pointer), the other reads the whole word: the
 * accesses differ in size and start, yet overlap in one byte.
 * expect: race set_mode read_status
 * runs: 5
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

uint32_t status;
static atomic_int done;

static void *set_mode(void *arg)
{
	unsigned char *mode = (unsigned char *)&status + 2;

	(void)arg;
	for (long i = 0; i < 40000000; i++)
		*mode = (unsigned char)i;
	done = 1;
	return NULL;
}

static void *read_status(void *arg)
{
	unsigned long sum = 0;

	(void)arg;
	while (!done)
		sum += status;
	return (void *)sum;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, set_mode, NULL);
	pthread_create(&b, NULL, read_status, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("status %08x\n", (unsigned)status);
	return 0;
}
