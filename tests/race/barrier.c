/* SPDX-License-Identifier: MIT */
/*
 * Phases ordered by a pthread barrier: in each round every thread writes
 * its own cell, all wait, every thread reads all the cells, all wait
 * again before the next round's writes.  The barriers order each write
 * before the reads of its round and each read before the next write.
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 3
#define ROUNDS 20000

static pthread_barrier_t phase;
long cell[THREADS];

static void *step(void *arg)
{
	long me = (long)arg, seen = 0;

	for (long r = 0; r < ROUNDS; r++) {
		cell[me] = r * (me + 1);
		pthread_barrier_wait(&phase);
		for (int i = 0; i < THREADS; i++)
			seen += cell[i];
		pthread_barrier_wait(&phase);
	}
	return (void *)seen;
}

int main(void)
{
	pthread_t t[THREADS];
	long total = 0;

	pthread_barrier_init(&phase, NULL, THREADS);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, step, (void *)i);
	for (int i = 0; i < THREADS; i++) {
		void *seen;

		pthread_join(t[i], &seen);
		total += (long)seen;
	}
	pthread_barrier_destroy(&phase);
	printf("seen %ld\n", total);
	return 0;
}
