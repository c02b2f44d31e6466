/* SPDX-License-Identifier: MIT */
/*
 * Producer and consumer through a bounded queue guarded by one mutex and
 * two condition variables: every access to the ring and its indices is
 * made holding the lock, and the items' contents are written before the
 * producer's unlock and read after the consumer's lock.
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

#define SIZE 16
#define ITEMS 200000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
long ring[SIZE];
int head, tail, count;

static void *producer(void *arg)
{
	(void)arg;
	for (long i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&lock);
		while (count == SIZE)
			pthread_cond_wait(&not_full, &lock);
		ring[head] = i * 7;
		head = (head + 1) % SIZE;
		count++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	long sum = 0;

	(void)arg;
	for (long i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&lock);
		while (count == 0)
			pthread_cond_wait(&not_empty, &lock);
		sum += ring[tail];
		tail = (tail + 1) % SIZE;
		count--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t p, c;
	void *sum;

	pthread_create(&p, NULL, producer, NULL);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, &sum);
	printf("sum %ld\n", (long)sum);
	return 0;
}
