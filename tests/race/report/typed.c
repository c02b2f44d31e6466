/* SPDX-License-Identifier: MIT */
/*
 * A race on one member of one element of an array inside a global struct,
 * reached through two calls on each side: hwbp race must name the bytes
 * as their type does ("cfg.limits[2].hi") and give each access's callers
 * (tests/race/report/report_test.py; the marked lines are its answers).
 */
#include <pthread.h>

struct limit {
	long lo, hi;
};

struct config {
	int version;
	struct limit limits[4];
	char name[16];
} cfg;

__attribute__((noinline)) static void set_hi(struct limit *l, long v)
{
	l->hi = v;
}

__attribute__((noinline)) static long get_hi(const struct limit *l)
{
	return l->hi;
}

static void *writer(void *arg)
{
	(void)arg;
	for (long i = 0; i < 40000000; i++)
		set_hi(&cfg.limits[2], i);   /* caller: writer */
	return NULL;
}

static void *reader(void *arg)
{
	long s = 0;

	(void)arg;
	for (long i = 0; i < 40000000; i++)
		s += get_hi(&cfg.limits[2]);   /* caller: reader */
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
