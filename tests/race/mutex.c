/* SPDX-License-Identifier: MIT */
/*
 * A counter both threads update, always under the same mutex.
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
long total;

static void *add(void *arg)
{
	(void)arg;
	for (long i = 0; i < 4000000; i++) {
		pthread_mutex_lock(&lock);
		total += 1;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, add, NULL);
	pthread_create(&b, NULL, add, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("total %ld\n", total);
	return 0;
}
