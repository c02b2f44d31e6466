/* SPDX-License-Identifier: MIT */
/*
 * Counters in a loop that yields and sleeps: each of three threads adds
 * to a shared total, gives up the CPU every few hundred steps and sleeps
 * briefly now and then (as a worker waiting for I/O would).  The threads
 * interleave less often than in a tight loop, but still many times a
 * second.
 * expect: race account account
 * runs: 5
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

long total;

static void *account(void *arg)
{
	struct timespec nap = {0, 50000};

	(void)arg;
	for (long i = 0; i < 6000000; i++) {
		total += 1;
		if (i % 256 == 0)
			sched_yield();
		if (i % 100000 == 0)
			nanosleep(&nap, NULL);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, account, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("total %ld (18000000 without the race)\n", total);
	return 0;
}
