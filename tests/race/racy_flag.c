/* SPDX-License-Identifier: MIT */
/*
 * A benign-looking flag: a worker sets `ready` once its result is in, and
 * main spins on it, both plain accesses.  "It is only a flag" -- but
 * without an atomic or a lock nothing orders the result before the flag,
 * and the compiler may hoist the load out of the loop.
 * expect: race produce main
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

int ready;
long result;

static void *produce(void *arg)
{
	long r = 0;

	(void)arg;
	for (long i = 0; i < 80000000; i++)
		r += i & 3;
	result = r;
	ready = 1;
	return NULL;
}

int main(void)
{
	pthread_t t;
	long spins = 0;

	pthread_create(&t, NULL, produce, NULL);
	while (!ready)
		spins++;
	pthread_join(t, NULL);
	printf("result %ld after %ld spins\n", result, spins > 0 ? 1L : 0L);
	return 0;
}
