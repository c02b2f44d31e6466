/* SPDX-License-Identifier: MIT */
/*
 * Both sides lock, but not the same lock: the reader takes the stats
 * lock, the writer the queue lock, around the same field.  Two mutexes
 * order nothing between each other.
 * expect: race enqueue report
 * runs: 5
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
struct { long length; long peak; } queue;
static atomic_int done;

static void *enqueue(void *arg)
{
	(void)arg;
	for (long i = 0; i < 3000000; i++) {
		pthread_mutex_lock(&queue_lock);
		queue.length = i & 1023;
		pthread_mutex_unlock(&queue_lock);
	}
	done = 1;
	return NULL;
}

static void *report(void *arg)
{
	(void)arg;
	while (!done) {
		pthread_mutex_lock(&stats_lock);
		if (queue.length > queue.peak)
			queue.peak = queue.length;
		pthread_mutex_unlock(&stats_lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, enqueue, NULL);
	pthread_create(&b, NULL, report, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("peak %ld\n", queue.peak);
	return 0;
}
