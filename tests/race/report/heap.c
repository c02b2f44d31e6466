/* SPDX-License-Identifier: MIT */
/*
 * A heap object reached through a global pointer: a race on one member
 * of one element of its array, and an _Atomic member written with
 * release and read with acquire stores and loads (plain MOVs on x86-64),
 * which is no race.  hwbp race must name the racing bytes as C does
 * ("table->rows[3].count": the pointer's DWARF type walked down) and know
 * the _Atomic member by the same type (tests/race/report/report_test.py).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct row {
	long id;
	long count;
};

struct table {
	int n;
	struct row rows[8];
	_Atomic int epoch;
} *table;

static void *writer(void *arg)
{
	(void)arg;
	for (long i = 0; i < 30000000; i++) {
		table->rows[3].count = i;
		atomic_store_explicit(&table->epoch, (int)i, memory_order_release);
	}
	return NULL;
}

static void *reader(void *arg)
{
	long s = 0;

	(void)arg;
	for (long i = 0; i < 30000000; i++) {
		s += table->rows[3].count;
		s += atomic_load_explicit(&table->epoch, memory_order_acquire);
	}
	return (void *)s;
}

int main(void)
{
	pthread_t a, b;

	table = calloc(1, sizeof(*table));
	pthread_create(&a, NULL, writer, NULL);
	pthread_create(&b, NULL, reader, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	free(table);
	return 0;
}
