/* SPDX-License-Identifier: MIT */
/*
 * C11 atomics (sequentially consistent): one thread adds (a locked
 * read-modify-write), the other loads (a plain load on x86-64) and
 * stores (XCHG, always locked).  Atomic accesses do not race.
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

atomic_long hits;
atomic_int phase;

static void *adder(void *arg)
{
	(void)arg;
	for (long i = 0; i < 10000000; i++)
		atomic_fetch_add(&hits, 1);
	return NULL;
}

static void *watcher(void *arg)
{
	long seen = 0;

	(void)arg;
	for (long i = 0; i < 10000000; i++) {
		seen += atomic_load(&hits) & 1;
		atomic_store(&phase, (int)(i & 7));
	}
	return (void *)seen;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, adder, NULL);
	pthread_create(&b, NULL, watcher, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("hits %ld phase %d\n", atomic_load(&hits), atomic_load(&phase));
	return 0;
}
