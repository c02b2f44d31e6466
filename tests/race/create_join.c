/* SPDX-License-Identifier: MIT */
/*
 * Happens-before through thread creation and join: main writes the data,
 * starts a worker that updates it, joins it, starts a second one, joins
 * it, and reads the result.  The same bytes, never at the same time.
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

long data;

static void *work(void *arg)
{
	(void)arg;
	for (long i = 0; i < 40000000; i++)
		data += 1;
	return NULL;
}

int main(void)
{
	pthread_t t;

	data = 7;
	for (int round = 0; round < 2; round++) {
		pthread_create(&t, NULL, work, NULL);
		pthread_join(t, NULL);
		data *= 2;
	}
	printf("data %ld\n", data);
	return 0;
}
