/* SPDX-License-Identifier: MIT */
/*
 * A plain global incremented by two threads without a lock: the classic
 * lost update (counter++ is a load and a store, not one access).
 * expect: race bump bump
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

int counter;

static void *bump(void *arg)
{
	(void)arg;
	for (long i = 0; i < 40000000; i++)
		counter++;
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, bump, NULL);
	pthread_create(&b, NULL, bump, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("counter %d (80000000 without the race)\n", counter);
	return 0;
}
