/* SPDX-License-Identifier: MIT */
/*
 * Ping-pong through two semaphores: the threads take turns on a shared
 * mailbox, each writing it only after the other posted, so every access
 * is ordered by a sem_post/sem_wait pair.
 * expect: none
 * runs: 5
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#define TURNS 100000

static sem_t ping, pong;
long mailbox;

static void *player(void *arg)
{
	(void)arg;
	for (long i = 0; i < TURNS; i++) {
		sem_wait(&ping);
		mailbox = mailbox * 3 + 1;
		sem_post(&pong);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;

	sem_init(&ping, 0, 0);
	sem_init(&pong, 0, 0);
	pthread_create(&t, NULL, player, NULL);
	for (long i = 0; i < TURNS; i++) {
		mailbox += i;
		sem_post(&ping);
		sem_wait(&pong);
	}
	pthread_join(t, NULL);
	printf("mailbox %ld\n", mailbox);
	return 0;
}
