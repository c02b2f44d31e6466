/* SPDX-License-Identifier: MIT */
/*
 * Double-checked lazy initialisation without atomics: a table of lazily
 * made entries, each looked up first without the lock and made under it
 * if missing.  The unlocked check reads a pointer that another thread may
 * be storing under the lock, and nothing orders the entry's fields before
 * the pointer.  Each round uses a fresh table, so entries keep being made
 * while both threads look them up.
 * expect: race lookup lookup
 * runs: 5
 */
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 20000
#define SLOTS 64

struct entry {
	int key;
	int value;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry store[ROUNDS][SLOTS];
struct entry *table[ROUNDS][SLOTS];

static struct entry *lookup(int round, int key)
{
	if (!table[round][key]) {
		pthread_mutex_lock(&lock);
		if (!table[round][key]) {
			struct entry *e = &store[round][key];

			e->key = key;
			e->value = key * 3;
			table[round][key] = e;
		}
		pthread_mutex_unlock(&lock);
	}
	return table[round][key];
}

static void *user(void *arg)
{
	long sum = 0;

	(void)arg;
	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < SLOTS; k++)
			for (int n = 0; n < 8; n++)
				sum += lookup(r, k)->value;
	return (void *)sum;
}

int main(void)
{
	pthread_t a, b;
	void *ra, *rb;

	pthread_create(&a, NULL, user, NULL);
	pthread_create(&b, NULL, user, NULL);
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	printf("sums %ld %ld\n", (long)ra, (long)rb);
	return 0;
}
