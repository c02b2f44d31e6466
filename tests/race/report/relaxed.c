/* SPDX-License-Identifier: MIT */
/*
 * C11 atomics with relaxed and acquire/release orders only: on x86-64
 * each load and store is a plain MOV, yet none races (every access is
 * atomic).  A global _Atomic scalar and an _Atomic element of an array
 * in a struct: hwbp race must know them atomic by their DWARF types and
 * stay silent (tests/race/report/report_test.py, at -O0 and -O2).
 */
#include <pthread.h>
#include <stdatomic.h>

_Atomic long counter;

struct stats {
	int version;
	_Atomic int hits[4];
} st;

static void *writer(void *arg)
{
	(void)arg;
	for (long i = 0; i < 30000000; i++) {
		atomic_store_explicit(&counter, i, memory_order_relaxed);
		atomic_store_explicit(&st.hits[2], (int)i, memory_order_release);
	}
	return NULL;
}

static void *reader(void *arg)
{
	long s = 0;

	(void)arg;
	for (long i = 0; i < 30000000; i++) {
		s += atomic_load_explicit(&counter, memory_order_relaxed);
		s += atomic_load_explicit(&st.hits[2], memory_order_acquire);
	}
	return (void *)s;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, writer, NULL);
	pthread_create(&b, NULL, reader, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
