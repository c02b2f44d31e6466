/* SPDX-License-Identifier: MIT */
/*
 * One thread reads a buffer while another fills it with read(2): the
 * kernel writes the bytes on the second thread's behalf, a write no
 * user-space watch catches (ptrace's breakpoints exclude the kernel), so
 * the race shows as a value changed during the delay by an unseen writer.
 * expect: unseen consume
 * runs: 5
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

unsigned char buf[8];
static volatile int done;

static void *fill(void *arg)
{
	int fd = open("/dev/urandom", O_RDONLY);

	(void)arg;
	for (long i = 0; fd >= 0 && i < 1200000; i++)
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			break;
	if (fd >= 0)
		close(fd);
	done = 1;
	return NULL;
}

static void *consume(void *arg)
{
	long sum = 0;

	(void)arg;
	while (!done)
		sum += buf[3];
	return (void *)sum;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, fill, NULL);
	pthread_create(&b, NULL, consume, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("filled\n");
	return 0;
}
