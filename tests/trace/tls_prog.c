/* SPDX-License-Identifier: MIT */
/*
 * tests/trace/tls_prog.c: known accesses to a thread-local variable, for
 * tls_test.sh.  The threads are made by main, after the tracer stopped
 * the program at its entry point: each is a new thread the tracer arms at
 * its first stop.  Thread i (0..2) writes its own tcount (i + 1) * 100 times
 * and main 50 times: 650 writes, each thread's to its own copy; each of
 * the four also writes the global gcount 10 times (40), under a mutex.
 * "tls_prog addr" also prints, per thread, "TID ADDRESS WRITES": its
 * thread id, the address of its tcount and how many times it writes it.
 * Built with -DTLS_LIB it also writes lib_tcount, a thread-local variable
 * of tls_lib.c's shared library, once.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread long tcount;
long gcount;

#ifdef TLS_LIB
void lib_touch(void);
#endif

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int print_addr;

/* One store per iteration: the empty asm with a memory clobber keeps the
 * compiler from folding the loop into one add. */
static __attribute__((noinline)) void bump_tls(long n)
{
	for (long k = 0; k < n; k++) {
		tcount = tcount + 1;
		__asm__ volatile("" ::: "memory");
	}
}

static __attribute__((noinline)) void bump_global(long n)
{
	for (long k = 0; k < n; k++) {
		pthread_mutex_lock(&mu);
		gcount = gcount + 1;
		pthread_mutex_unlock(&mu);
	}
}

static void work(long n)
{
	if (print_addr) {
		pthread_mutex_lock(&mu);
		printf("%ld %p %ld\n", (long)syscall(SYS_gettid), (void *)&tcount, n);
		fflush(stdout);
		pthread_mutex_unlock(&mu);
	}
	bump_tls(n);
	bump_global(10);
}

static void *thread_main(void *arg)
{
	work(((long)(intptr_t)arg + 1) * 100);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[3];

	print_addr = argc > 1 && strcmp(argv[1], "addr") == 0;
	for (int i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, thread_main, (void *)(intptr_t)i))
			return 1;
	work(50);
#ifdef TLS_LIB
	lib_touch();
#endif
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	return tcount == 50 && gcount == 40 ? 0 : 2;
}
