/* SPDX-License-Identifier: MIT */
/*
 * 16-bit sequence numbers in an array of ports, each port's number bumped
 * by two threads without a lock (a load and a store of 2 bytes each).
 * expect: race next_seq next_seq
 * runs: 5
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

uint16_t seq[4];

static void *next_seq(void *arg)
{
	(void)arg;
	for (long i = 0; i < 20000000; i++)
		seq[i & 3]++;
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, next_seq, NULL);
	pthread_create(&b, NULL, next_seq, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("seq %u %u %u %u\n", seq[0], seq[1], seq[2], seq[3]);
	return 0;
}
