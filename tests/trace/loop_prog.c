/* SPDX-License-Identifier: MIT */
/*
 * A target for the interrupt tests (tests/trace/interrupt_test.sh): it
 * writes `counter` once per millisecond, forever, and after every 10th
 * write prints the count so far ("N\n", one write(2) each) to stdout, so
 * that a test sees it go on writing.  Nothing else touches `counter`.
 *
 *   loop_prog            loop
 *   loop_prog final      on SIGINT/SIGTERM/SIGHUP print "final N" (the
 *                        writes done) and die of that signal
 *   loop_prog ignore     ignore SIGINT
 *   loop_prog stop       raise(SIGSTOP) after 20 writes, then loop
 *   loop_prog segv|kill  after 20 writes, die of SIGSEGV / SIGKILL
 */
#include <signal.h>
#include <string.h>
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

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "loop";
	struct timespec ms = { 0, 1000000 };

	if (strcmp(mode, "final") == 0) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		signal(SIGHUP, on_signal);
	}
	if (strcmp(mode, "ignore") == 0)
		signal(SIGINT, SIG_IGN);
	for (;;) {
		counter = counter + 1;
		if (counter % 10 == 0)
			say("", counter);
		if (counter == 20 && strcmp(mode, "stop") == 0)
			raise(SIGSTOP);
		if (counter == 20 && strcmp(mode, "segv") == 0)
			raise(SIGSEGV);
		if (counter == 20 && strcmp(mode, "kill") == 0)
			raise(SIGKILL);
		nanosleep(&ms, NULL);
	}
}
