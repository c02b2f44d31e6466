/* SPDX-License-Identifier: MIT */
/*
 * Typed names' test program (tests/trace/typed_test.sh): known writes to
 * fields of nested structs, arrays of structs, a union, a bitfield, a
 * thread-local struct, a static local and, through pointers to pointers,
 * an object on the heap.  Every count below is exact: each store is a
 * volatile access of its own.
 *
 *   cfg.limits[2].hi        W 300     cfg.in.lim[1].lo    W 200
 *   cfg.u.b[2]              W 50      cfg.u.i             W 40
 *   cfg.fl.mode (bitfield)  W 30 (a read-modify-write: R 30 too)
 *   tls_lim.hi              W 20      bump::counter.hi    W 10
 *   heap->limits[3].lo      W 70 (heap = *cfgpp, a malloc'ed struct config)
 *   self->limits[2].hi      is cfg.limits[2].hi (self = &cfg, set before main)
 *   nothing else writes any of those bytes.
 *
 * With "wait", it prints its pid and the heap object's address, then
 * waits for SIGUSR1 before the writes (an attaching tracer reads the
 * pointers, which are set by then); it ends on SIGTERM after.  With
 * "offsets", it prints what the compiler says of the layout, the test's
 * oracle for the addresses hwbp resolves.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct limits {
	int lo, hi;
};

struct inner {
	short tag;
	struct limits lim[3];
};

union word {
	int i;
	unsigned char b[4];
};

struct flags {
	unsigned ready : 1;
	unsigned mode : 3;
	unsigned count : 12;
};

struct config {
	long id;
	struct inner in;
	struct limits limits[4];
	union word u;
	struct flags fl;
	struct config *next;
};

volatile struct config cfg;
struct config *heap;
struct config **cfgp = &heap;
struct config ***cfgpp = &cfgp;
struct config *bad = (struct config *)16;   /* a pointer to nothing mapped */
/* Set before main (a relocation the loader applies): a pointer chain a
 * tracer that starts the program can follow at its entry. */
volatile struct config *self = &cfg;
__thread volatile struct limits tls_lim;

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static int bump(int n)
{
	static volatile struct limits counter;

	for (int i = 0; i < n; i++)
		counter.hi = i;
	return counter.lo;   /* 0: no store to lo */
}

static void writes(void)
{
	volatile struct config *h = *cfgp;

	for (int i = 0; i < 300; i++)
		cfg.limits[2].hi = i;
	for (int i = 0; i < 200; i++)
		cfg.in.lim[1].lo = i;
	for (int i = 0; i < 50; i++)
		cfg.u.b[2] = (unsigned char)i;
	for (int i = 0; i < 40; i++)
		cfg.u.i = i;
	for (int i = 0; i < 30; i++)
		cfg.fl.mode = (unsigned)i & 7;
	for (int i = 0; i < 20; i++)
		tls_lim.hi = i;
	if (bump(10))
		abort();
	for (int i = 0; i < 70; i++)
		h->limits[3].lo = i;
}

static void offsets(void)
{
	printf("limits3lo %zu\n", offsetof(struct config, limits[3].lo));
	printf("limits2hi %zu\n", offsetof(struct config, limits[2].hi));
	printf("inlim1lo %zu\n", offsetof(struct config, in.lim[1].lo));
	printf("ub1 %zu\n", offsetof(struct config, u.b[1]));
	printf("fl %zu\n", offsetof(struct config, fl));
	printf("limitshi %zu\n", offsetof(struct limits, hi));
	printf("sizeof_limits %zu\n", sizeof(struct limits));
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "offsets") == 0) {
		offsets();
		return 0;
	}
	heap = calloc(1, sizeof(*heap));
	if (!heap)
		return 1;
	if (argc > 1) {
		sigset_t usr1, old;

		/* Blocked until sigsuspend(): a signal sent before it waits. */
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, &old);
		signal(SIGUSR1, on_usr1);
		printf("%ld %p\n", (long)getpid(), (void *)heap);
		fflush(stdout);
		while (!go)
			sigsuspend(&old);
	}
	writes();
	if (argc > 1)
		pause();
	return 0;
}
