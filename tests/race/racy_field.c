/* SPDX-License-Identifier: MIT */
/*
 * One field of a global struct written by one thread and read by another
 * without a lock; the struct's other fields are the writer's alone.
 * expect: race publish poll
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

struct stats {
	long started;
	long hits;          /* the racy field */
	long misses;
} stats;

static volatile int done;

static void *publish(void *arg)
{
	(void)arg;
	for (long i = 0; i < 200000000; i++)
		stats.hits = i;
	done = 1;
	return NULL;
}

static void *poll(void *arg)
{
	long seen = 0;

	(void)arg;
	while (!done)
		seen += stats.hits & 1;
	return (void *)seen;
}

int main(void)
{
	pthread_t a, b;

	stats.started = 1;
	pthread_create(&a, NULL, publish, NULL);
	pthread_create(&b, NULL, poll, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("hits %ld\n", stats.hits);
	return 0;
}
