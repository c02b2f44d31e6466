/* SPDX-License-Identifier: MIT */
/*
 * Once-only initialisation with pthread_once: whichever thread comes
 * first fills the configuration, the others wait in pthread_once until it
 * is done; afterwards everyone only reads it.
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
struct config {
	int limits[8];
	long scale;
} config;

static void init_config(void)
{
	for (int i = 0; i < 8; i++)
		config.limits[i] = 100 * (i + 1);
	config.scale = 3;
}

static void *use(void *arg)
{
	long sum = 0;

	(void)arg;
	for (long n = 0; n < 4000000; n++) {
		pthread_once(&once, init_config);
		sum += config.limits[n & 7] * config.scale;
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, use, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("scale %ld\n", config.scale);
	return 0;
}
