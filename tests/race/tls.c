/* SPDX-License-Identifier: MIT */
/*
 * Thread-local counters: each thread has its own copy, so the same code
 * in two threads touches different bytes; main adds them up after the
 * joins.
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

static _Thread_local long mine;
long totals[2];

static void *count(void *arg)
{
	long *out = arg;

	for (long i = 0; i < 200000000; i++)
		mine++;
	*out = mine;
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, count, &totals[0]);
	pthread_create(&b, NULL, count, &totals[1]);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("totals %ld %ld\n", totals[0], totals[1]);
	return 0;
}
