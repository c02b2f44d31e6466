/* SPDX-License-Identifier: MIT */
/*
 * A race through a pointer given to the threads: main passes the address
 * of its own local variable to two workers, which both add to it.  The
 * variable is on main's stack (an access through RBP there), but the
 * workers reach it through the pointer.
 * expect: race work work
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

static void *work(void *arg)
{
	long *sum = arg;

	for (long i = 0; i < 30000000; i++)
		*sum += i & 1;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	long sum = 0;

	pthread_create(&a, NULL, work, &sum);
	pthread_create(&b, NULL, work, &sum);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("sum %ld (30000000 without the race)\n", sum);
	return 0;
}
