/* SPDX-License-Identifier: MIT */
/*
 * A reader-writer lock: two readers look up a table under the read lock,
 * one writer updates it under the write lock.  Readers may overlap with
 * each other (reads only), never with the writer.
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
long table[32];

static void *writer(void *arg)
{
	(void)arg;
	for (long i = 0; i < 400000; i++) {
		pthread_rwlock_wrlock(&rw);
		table[i & 31] += i;
		pthread_rwlock_unlock(&rw);
	}
	return NULL;
}

static void *reader(void *arg)
{
	long sum = 0;

	(void)arg;
	for (long i = 0; i < 400000; i++) {
		pthread_rwlock_rdlock(&rw);
		sum += table[(i * 7) & 31];
		pthread_rwlock_unlock(&rw);
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t w, r1, r2;

	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r1, NULL, reader, NULL);
	pthread_create(&r2, NULL, reader, NULL);
	pthread_join(w, NULL);
	pthread_join(r1, NULL);
	pthread_join(r2, NULL);
	printf("table[5] %ld\n", table[5]);
	return 0;
}
