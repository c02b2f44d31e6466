/* SPDX-License-Identifier: MIT */
/*
 * A balance guarded by a mutex in one function and updated without it in
 * another: the lock protects nothing, since only one side takes it.
 * expect: race deposit withdraw
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
long balance;

static void *deposit(void *arg)
{
	(void)arg;
	for (long i = 0; i < 4000000; i++) {
		pthread_mutex_lock(&lock);
		balance += 2;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void *withdraw(void *arg)
{
	(void)arg;
	for (long i = 0; i < 40000000; i++)
		balance -= 1;   /* the lock forgotten */
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, deposit, NULL);
	pthread_create(&b, NULL, withdraw, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("balance %ld\n", balance);
	return 0;
}
