/* SPDX-License-Identifier: MIT */
/*
 * Two threads read a shared table that main filled before creating them:
 * reads never race with reads, and thread creation orders main's writes
 * before them.
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

int table[16];

static void *sum(void *arg)
{
	long s = 0;

	(void)arg;
	for (long n = 0; n < 2500000; n++)
		for (int i = 0; i < 16; i++)
			s += table[i];
	return (void *)s;
}

int main(void)
{
	pthread_t a, b;
	void *ra, *rb;

	for (int i = 0; i < 16; i++)
		table[i] = i;
	pthread_create(&a, NULL, sum, NULL);
	pthread_create(&b, NULL, sum, NULL);
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	printf("sums %ld %ld\n", (long)ra, (long)rb);
	return 0;
}
