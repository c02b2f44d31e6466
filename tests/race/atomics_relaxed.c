/* SPDX-License-Identifier: MIT */
/*
 * C11 relaxed atomics: one thread stores a sequence number with
 * memory_order_relaxed, another loads it relaxed; a relaxed counter is
 * added to relaxed too.  Relaxed atomic accesses never race (C11 5.1.2.4),
 * though on x86-64 the relaxed load and store are plain MOVs, as a racy
 * program's would be.
 * needs: dwarf
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

_Atomic int seq;
atomic_long events;
static atomic_int done;

static void *writer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 30000000; i++) {
		atomic_store_explicit(&seq, i, memory_order_relaxed);
		if ((i & 255) == 0)
			atomic_fetch_add_explicit(&events, 1, memory_order_relaxed);
	}
	atomic_store(&done, 1);
	return NULL;
}

static void *reader(void *arg)
{
	long sum = 0;

	(void)arg;
	while (!atomic_load(&done))
		sum += atomic_load_explicit(&seq, memory_order_relaxed) & 1;
	return (void *)sum;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, writer, NULL);
	pthread_create(&b, NULL, reader, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("seq %d events %ld\n", atomic_load(&seq), atomic_load(&events));
	return 0;
}
