/* SPDX-License-Identifier: MIT */
/*
 * A heap object shared by pointer: both workers update its count without
 * a lock.  No symbol holds it: the report names the mapping.
 * expect: race worker worker
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct job {
	char name[16];
	int count;
};

static void *worker(void *arg)
{
	struct job *j = arg;

	for (long i = 0; i < 200000000; i++)
		j->count += 1;
	return NULL;
}

int main(void)
{
	struct job *j = calloc(1, sizeof(*j));
	pthread_t a, b;

	if (!j)
		return 1;
	pthread_create(&a, NULL, worker, j);
	pthread_create(&b, NULL, worker, j);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("count %d\n", j->count);
	free(j);
	return 0;
}
