/* SPDX-License-Identifier: MIT */
/*
 * The racy global lives in the program's own shared library
 * (racy_shlib_lib.c, libracy_shlib_lib.so): two threads of the program
 * call its hit() and hits(), which update and read the library's
 * counter without a lock.  hwbp race is told to sample the library's code.
 * lib: racy_shlib_lib.c
 * options: --only libracy_shlib_lib.so
 * expect: race lib_hit lib_hits
 * runs: 20
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

void lib_hit(void);
long lib_hits(void);

static atomic_int done;

static void *hitter(void *arg)
{
	(void)arg;
	for (long i = 0; i < 100000000; i++)
		lib_hit();
	done = 1;
	return NULL;
}

static void *reader(void *arg)
{
	long sum = 0;

	(void)arg;
	while (!done)
		sum += lib_hits() & 1;
	return (void *)sum;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, hitter, NULL);
	pthread_create(&b, NULL, reader, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("hits %ld\n", lib_hits());
	return 0;
}
