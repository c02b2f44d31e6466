/* SPDX-License-Identifier: MIT */
/*
 * For tests/race/attach_test.py: two threads race on a counter for the
 * seconds given (argv[1]), or until a line comes on standard input (argv[1]
 * "stdin": as long as the test needs, however slow the machine: under
 * TCG an attach takes seconds), after saying "ready" once both run; then
 * main exits 0.  A trap left in its code, or a watch left armed, would end
 * it with SIGTRAP instead.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

long counter;
static volatile int stop;

static void *spin_bump(void *arg)
{
	(void)arg;
	while (!stop)
		counter++;
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec ts = { argc > 1 ? atoi(argv[1]) : 5, 0 };
	pthread_t a, b;

	pthread_create(&a, NULL, spin_bump, NULL);
	pthread_create(&b, NULL, spin_bump, NULL);
	printf("ready\n");
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "stdin") == 0) {
		char line[16];

		if (!fgets(line, sizeof(line), stdin))
			line[0] = '\0';
	} else {
		nanosleep(&ts, NULL);
	}
	stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("done %ld\n", counter > 0 ? 1L : 0L);
	return 0;
}
