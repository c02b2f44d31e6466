/* SPDX-License-Identifier: MIT */
/*
 * False sharing, not a race: four threads each update their own byte of
 * one 4-byte array, all in one cache line (and one word).  Different
 * bytes are different memory locations; only the cache is shared.
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

unsigned char lanes[4];

static void *lane(void *arg)
{
	unsigned char *mine = arg;

	for (long i = 0; i < 15000000; i++)
		*mine += 1;
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, lane, &lanes[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("lanes %u %u %u %u\n", lanes[0], lanes[1], lanes[2], lanes[3]);
	return 0;
}
