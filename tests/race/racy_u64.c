/* SPDX-License-Identifier: MIT */
/*
 * A 64-bit timestamp written by one thread and read by another with
 * plain accesses: one instruction each on x86-64, still a data race in C
 * (and torn on a 32-bit target).
 * expect: race tick sample
 * runs: 5
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

uint64_t stamp;
static atomic_int done;

static void *tick(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < 40000000; i++)
		stamp = i << 20 | i;
	done = 1;
	return NULL;
}

static void *sample(void *arg)
{
	uint64_t last = 0;

	(void)arg;
	while (!done)
		last ^= stamp;
	return (void *)(uintptr_t)last;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, tick, NULL);
	pthread_create(&b, NULL, sample, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("stamp %llx\n", (unsigned long long)stamp);
	return 0;
}
