/* SPDX-License-Identifier: MIT */
/*
 * A target for the interrupt tests (tests/trace/interrupt_test.sh): it
 * writes `counter` once per millisecond, forever, and after every 10th
 * write prints the count so far ("N\n", one write(2) each) to stdout, so
 * that a test sees it go on writing.  Nothing else touches `counter`
 * (but the threads of "threads").
 *
 *   loop_prog            loop
 *   loop_prog final      on SIGINT/SIGTERM/SIGHUP print "final N" (the
 *                        writes done) and die of that signal
 *   loop_prog ignore     ignore SIGINT
 *   loop_prog threads    99 more threads, each writing it once a second
 *                        (99 hits a second: a stop per hit stays within
 *                        what ptrace serves in a TCG guest, about 1000)
 *   loop_prog fork       after every 10th write a child that writes it 10
 *                        times and exits (reaped)
 *   loop_prog stop       raise(SIGSTOP) after 20 writes, then loop
 *   loop_prog segv|kill  after 20 writes, die of SIGSEGV / SIGKILL
 *   loop_prog exit N     after 20 writes, exit with status N
 *   loop_prog burst N [FIFO]  (open FIFO, read a byte,) then write
 *                        `counter` N times as fast as it can, print
 *                        "final N", exit 0
 *   loop_prog mt T N     T threads, started together, each writing
 *                        `counter` N times as fast as it can (T * N
 *                        stores in all: the lost-sample benchmark), print
 *                        "final T*N", exit 0
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile long counter;

/* "PREFIXN\n" in one write(2); async-signal-safe (no stdio). */
static void say(const char *prefix, long n)
{
	char b[64], d[24];
	size_t k = strlen(prefix), nd = 0;

	memcpy(b, prefix, k);
	do
		d[nd++] = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	while (nd)
		b[k++] = d[--nd];
	b[k++] = '\n';
	if (write(1, b, k) < 0)
		_exit(3);
}

/* The writes done, then the default action of the signal. */
static void on_signal(int sig)
{
	say("final ", counter);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void *thread_loop(void *arg)
{
	struct timespec t = { 1, 0 };

	(void)arg;
	for (;;) {
		counter = counter + 1;
		nanosleep(&t, NULL);
	}
	return NULL;
}

/* A child that writes `counter` 10 times (its copy), reaped. */
static void fork_writer(void)
{
	pid_t p = fork();

	if (p == 0) {
		for (int i = 0; i < 10; i++)
			counter = counter + 1;
		_exit(0);
	}
	if (p > 0)
		waitpid(p, NULL, 0);
}

/* N writes, once a byte arrives on @fifo (if any: the test is ready then). */
static int burst(long n, const char *fifo)
{
	int fd = fifo ? open(fifo, O_RDONLY) : -1;
	char c;

	if (fifo && (fd < 0 || read(fd, &c, 1) != 1))
		return 2;
	for (long i = 0; i < n; i++)
		counter = counter + 1;
	say("final ", counter);
	return 0;
}

static long mt_n;
static pthread_barrier_t mt_go;

static void *mt_loop(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&mt_go);
	for (long i = 0; i < mt_n; i++)
		counter = counter + 1;
	return NULL;
}

static int mt(long t, long n)
{
	pthread_t th[64];

	if (t < 1 || t > 64 || n < 0)
		return 2;
	mt_n = n;
	if (pthread_barrier_init(&mt_go, NULL, (unsigned)t))
		return 2;
	for (long i = 0; i < t; i++)
		if (pthread_create(&th[i], NULL, mt_loop, NULL))
			return 2;
	for (long i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	say("final ", t * n);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "loop";
	struct timespec ms = { 0, 1000000 };
	long n = 0;

	if (strcmp(mode, "mt") == 0)
		return argc == 4 ? mt(atol(argv[2]), atol(argv[3])) : 2;
	if (strcmp(mode, "burst") == 0)
		return argc == 3 || argc == 4 ? burst(atol(argv[2]), argc == 4 ? argv[3] : NULL) : 2;
	if (strcmp(mode, "final") == 0) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		signal(SIGHUP, on_signal);
	}
	if (strcmp(mode, "ignore") == 0)
		signal(SIGINT, SIG_IGN);
	for (int i = 0; strcmp(mode, "threads") == 0 && i < 99; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, thread_loop, NULL))
			return 2;
	}
	for (;;) {
		counter = counter + 1;
		if (++n % 10 == 0)
			say("", counter);
		if (n % 10 == 0 && strcmp(mode, "fork") == 0)
			fork_writer();
		if (n == 20 && strcmp(mode, "stop") == 0)
			raise(SIGSTOP);
		if (n == 20 && strcmp(mode, "segv") == 0)
			raise(SIGSEGV);
		if (n == 20 && strcmp(mode, "kill") == 0)
			raise(SIGKILL);
		if (n == 20 && strcmp(mode, "exit") == 0)
			return argc > 2 ? atoi(argv[2]) : 0;
		nanosleep(&ms, NULL);
	}
}
