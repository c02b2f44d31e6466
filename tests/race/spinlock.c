/* SPDX-License-Identifier: MIT */
/*
 * A counter under a pthread spinlock (a locked exchange to take it, a
 * plain store to release it): every access to the counter is inside it.
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

static pthread_spinlock_t spin;
long counter;

static void *bump(void *arg)
{
	(void)arg;
	for (long i = 0; i < 2000000; i++) {
		pthread_spin_lock(&spin);
		counter++;
		pthread_spin_unlock(&spin);
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	pthread_create(&a, NULL, bump, NULL);
	pthread_create(&b, NULL, bump, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_spin_destroy(&spin);
	printf("counter %ld\n", counter);
	return 0;
}
