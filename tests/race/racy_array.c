/* SPDX-License-Identifier: MIT */
/*
 * Two threads count values into a shared histogram, each bucket an
 * element of a global array, without a lock: both update the same
 * elements.
 * expect: race tally tally
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

long hist[4];

static void *tally(void *arg)
{
	unsigned seed = (unsigned)(long)arg;

	for (long n = 0; n < 60000000; n++) {
		seed = seed * 1103515245u + 12345u;
		hist[(seed >> 16) & 3]++;
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, tally, (void *)1L);
	pthread_create(&b, NULL, tally, (void *)2L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("buckets %ld %ld %ld %ld\n", hist[0], hist[1], hist[2], hist[3]);
	return 0;
}
