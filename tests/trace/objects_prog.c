/* SPDX-License-Identifier: MIT */
/*
 * tests/trace/objects_prog.c: a linked list whose nodes hwbp watches as
 * objects (tests/trace/objects_test.sh): make_node() returns each node,
 * free_node() frees it, and each node's value is written a known number
 * of times by known functions after make_node() returned.
 *
 *   objects_prog three [MS]       3 nodes live at once: node i (0..2) gets
 *                                 10 * (i + 1) set_value() and 5 bump_value(),
 *                                 MS ms after the nodes were made (default 0:
 *                                 at once; a backend that arms asynchronously
 *                                 sees the writes after its delay)
 *   objects_prog many N R LOG     N nodes live at once, R rounds of one
 *                                 set_value() per node, each write's node,
 *                                 address and CLOCK_MONOTONIC before and
 *                                 after it appended to LOG (the truth)
 *   objects_prog reuse [MS]       node A: 3 writes, freed; node B (malloc
 *                                 gives A's address again): 7 writes (each
 *                                 node's writes MS ms after it was made)
 *   objects_prog loop             until killed: a node made, written 4
 *                                 times and freed every millisecond (-p PID)
 *   objects_prog churn N          N nodes made and freed, one at a time,
 *                                 never written (scripts/bench-objects: the
 *                                 cost of an arming and a release)
 *   objects_prog writes N         one node written N times by set_value()
 *   objects_prog threads          a worker thread, running before the node
 *                                 is made, is handed it through a pipe and
 *                                 writes it 10 times; main then frees it
 *
 * Each node's address is printed ("node I 0xADDR").  Built -O1 -g
 * -fno-inline so that each function is one.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct node {
	struct node *next;
	int id;
	int value;
	long pad[2];
};

static void pause_ms(long ms);
struct node *make_node(int id);
void set_value(struct node *n, int v);
void bump_value(struct node *n);
void free_node(struct node *n);

__attribute__((noinline)) struct node *make_node(int id)
{
	struct node *n = malloc(sizeof(*n));

	if (!n)
		exit(1);
	memset(n, 0, sizeof(*n));
	n->id = id;
	return n;
}

__attribute__((noinline)) void set_value(struct node *n, int v)
{
	*(volatile int *)&n->value = v;
}

__attribute__((noinline)) void bump_value(struct node *n)
{
	(*(volatile int *)&n->value)++;
}

__attribute__((noinline)) void free_node(struct node *n)
{
	free(n);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void three(long ms)
{
	struct node *head = NULL;

	for (int i = 0; i < 3; i++) {
		struct node *n = make_node(i);

		n->next = head;
		head = n;
		printf("node %d %p\n", i, (void *)n);
	}
	pause_ms(ms);
	for (struct node *n = head; n; n = n->next) {
		for (int k = 0; k < 10 * (n->id + 1); k++)
			set_value(n, k);
		for (int k = 0; k < 5; k++)
			bump_value(n);
	}
	while (head) {
		struct node *next = head->next;

		free_node(head);
		head = next;
	}
}

static int many(int count, int rounds, const char *log)
{
	struct node **v = calloc((size_t)count, sizeof(*v));
	FILE *f = fopen(log, "w");

	if (!v || !f)
		return 1;
	for (int i = 0; i < count; i++) {
		v[i] = make_node(i);
		printf("node %d %p\n", i, (void *)v[i]);
	}
	for (int r = 0; r < rounds; r++) {
		uint64_t until = now_ns() + 200000;   /* 0.2 ms a round, so that slots rotate */

		for (int i = 0; i < count; i++) {
			uint64_t before = now_ns();

			set_value(v[i], r);
			fprintf(f, "%d %p %llu %llu\n", i, (void *)v[i], (unsigned long long)before,
				(unsigned long long)now_ns());
		}
		while (now_ns() < until)
			;
	}
	for (int i = 0; i < count; i++)
		free_node(v[i]);
	free(v);
	return fclose(f) ? 1 : 0;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	if (ms > 0)
		nanosleep(&ts, NULL);
}

static void reuse(long ms)
{
	struct node *a = make_node(0), *b;

	printf("node 0 %p\n", (void *)a);
	pause_ms(ms);
	for (int k = 0; k < 3; k++)
		set_value(a, k);
	free_node(a);
	b = make_node(1);
	printf("node 1 %p\n", (void *)b);
	pause_ms(ms);
	for (int k = 0; k < 7; k++)
		set_value(b, k);
	free_node(b);
}

static void loop(void)
{
	for (;;) {
		struct node *n = make_node(0);
		struct timespec ms = { 0, 1000000 };

		for (int k = 0; k < 4; k++)
			set_value(n, k);
		free_node(n);
		nanosleep(&ms, NULL);
	}
}

static void churn(long n)
{
	for (long i = 0; i < n; i++)
		free_node(make_node((int)i));
}

static void writes(long n)
{
	struct node *a = make_node(0);

	for (long k = 0; k < n; k++)
		set_value(a, (int)k);
	free_node(a);
}

static int handoff[2];

static void *worker(void *arg)
{
	struct node *n;

	(void)arg;
	if (read(handoff[0], &n, sizeof(n)) != (ssize_t)sizeof(n))
		return NULL;
	for (int k = 0; k < 10; k++)
		set_value(n, k);
	return n;
}

static int threads(void)
{
	pthread_t w;
	struct node *n;
	void *done;

	if (pipe(handoff) || pthread_create(&w, NULL, worker, NULL))
		return 1;
	n = make_node(0);
	printf("node 0 %p\n", (void *)n);
	if (write(handoff[1], &n, sizeof(n)) != (ssize_t)sizeof(n) || pthread_join(w, &done) ||
	    done != n)
		return 1;
	free_node(n);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((argc == 2 || argc == 3) && strcmp(argv[1], "three") == 0)
		three(argc == 3 ? atol(argv[2]) : 0);
	else if (argc == 5 && strcmp(argv[1], "many") == 0)
		return many(atoi(argv[2]), atoi(argv[3]), argv[4]);
	else if ((argc == 2 || argc == 3) && strcmp(argv[1], "reuse") == 0)
		reuse(argc == 3 ? atol(argv[2]) : 0);
	else if (argc == 2 && strcmp(argv[1], "loop") == 0)
		loop();
	else if (argc == 3 && strcmp(argv[1], "churn") == 0)
		churn(atol(argv[2]));
	else if (argc == 3 && strcmp(argv[1], "writes") == 0)
		writes(atol(argv[2]));
	else if (argc == 2 && strcmp(argv[1], "threads") == 0)
		return threads();
	else
		return 2;
	return 0;
}
