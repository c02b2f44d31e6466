/* SPDX-License-Identifier: MIT */
/*
 * A benign-looking statistics word: a worker stores how far it got after
 * every step ("only for the progress display"), a monitor thread reads it
 * every 100 microseconds.  Plain store against plain load: a data race,
 * however harmless it looks.
 * expect: race crunch monitor
 * runs: 5
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

long progress;
static atomic_int done;

static void *crunch(void *arg)
{
	long acc = 0;

	(void)arg;
	for (long i = 0; i < 30000000; i++) {
		acc += i ^ (i >> 3);
		progress = i;
	}
	done = 1;
	return (void *)acc;
}

static void *monitor(void *arg)
{
	struct timespec tick = {0, 100000};
	long shown = 0;

	(void)arg;
	while (!done) {
		shown += progress > shown;
		nanosleep(&tick, NULL);
	}
	return (void *)shown;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, crunch, NULL);
	pthread_create(&b, NULL, monitor, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("progress %ld\n", progress);
	return 0;
}
