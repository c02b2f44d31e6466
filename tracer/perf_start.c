/* SPDX-License-Identifier: MIT */
/*
 * The perf backend's start of a command (tracer/perf.h): fork, exec under
 * PTRACE_TRACEME, and run the program to its ELF entry point (as the
 * ptrace backend does: hwbpi_ptrace_run_to_entry()), where it is left
 * stopped for hwbpi_perf_trace() to open the events on and let go; and
 * hwbpi_pf_held(), a child held on a pipe before it runs (the self-tests,
 * a command traced per CPU: tracer/perf.c, perf_sample.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "perf_int.h"
#include "ptrace.h"

/* The child's side of a start: exec, or report the exec's errno on @ef
 * (close-on-exec) and exit 127. */
void hwbpi_pf_child(char *const argv[], int ef, bool traceme)
{
	int e;

	/* Either failure's errno goes back the same way. */
	if (!traceme || ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
		execvp(argv[0], argv);
	e = errno;
	if (write(ef, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int hwbpi_perf_start(char *const argv[], pid_t *pid, char *err, size_t errlen)
{
	int ef[2], st, e = 0;
	pid_t p;
	ssize_t r;

	if (!argv || !argv[0] || !pid)
		return -EINVAL;
	if (pipe2(ef, O_CLOEXEC) < 0)
		return -errno;
	p = fork();
	if (p < 0) {
		e = errno;
		close(ef[0]);
		close(ef[1]);
		hwbpi_say(err, errlen, "fork: %s", strerror(e));
		return -e;
	}
	if (p == 0) {
		close(ef[0]);
		hwbpi_pf_child(argv, ef[1], true);
	}
	close(ef[1]);
	while ((r = read(ef[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(ef[0]);
	if (r == (ssize_t)sizeof(e)) {
		hwbpi_pf_reap(p, NULL);
		hwbpi_say(err, errlen, "%s: %s", argv[0], strerror(e));
		return -e;
	}
	/* The SIGTRAP stop after a successful execve under PTRACE_TRACEME. */
	while (waitpid(p, &st, 0) < 0) {
		if (errno != EINTR) {
			hwbpi_say(err, errlen, "%s: waitpid: %s", argv[0], strerror(errno));
			return -ECHILD;
		}
	}
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP) {
		if (WIFSTOPPED(st))
			hwbpi_perf_abort(p);
		hwbpi_say(err, errlen, "%s: did not stop after exec", argv[0]);
		return -ECHILD;
	}
	/* Symbols of shared libraries are there only once ld.so has mapped
	 * them: at the entry point, as for the ptrace backend.  On an error
	 * the child either ended (-ECHILD: reaped) or is still stopped. */
	e = hwbpi_ptrace_run_to_entry(p, argv[0], err, errlen);
	if (e) {
		if (e != -ECHILD)
			hwbpi_perf_abort(p);
		return e;
	}
	*pid = p;
	return 0;
}


/* ------------------------------------------------------- a held child */

/* The child of hwbpi_pf_held(): it runs once a byte comes on @go, so
 * that the parent's events are open by then; EOF means the parent gave
 * up (and kills it). */
static void held_child(const struct hwbpi_held *h, const int go[2], const int ef[2])
	__attribute__((noreturn));
static void held_child(const struct hwbpi_held *h, const int go[2], const int ef[2])
{
	char c;

	close(go[1]);
	close(ef[0]);
	if (read(go[0], &c, 1) != 1)
		_exit(127);
	h->run(h->arg, ef[1]);
	_exit(127);     /* (run does not return) */
}

/* The pipes and the fork of hwbpi_pf_held(); the parent keeps go[1] and
 * ef[0]. */
static int held_fork(struct hwbpi_held *h, int go[2], int ef[2], char *err, size_t n)
{
	int e;

	h->pid = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ef, O_CLOEXEC) < 0) {
		e = errno;
		close(go[0]);
		close(go[1]);
		return -e;
	}
	h->pid = fork();
	if (h->pid < 0) {
		e = errno;
		hwbpi_say(err, n, "fork: %s", strerror(e));
		close(go[0]);
		close(go[1]);
		close(ef[0]);
		close(ef[1]);
		return h->fork_err ? h->fork_err : -e;
	}
	if (h->pid == 0)
		held_child(h, go, ef);
	close(go[0]);
	close(ef[1]);
	return 0;
}

/* Let the held child run.  The exec pipe is close-on-exec: EOF means the
 * exec happened (or a child that does not exec ended), an errno that it
 * failed. */
static int held_release(int go, int ef, char *err, size_t n)
{
	int e = 0;
	ssize_t r;

	if (write(go, "g", 1) != 1) {
		hwbpi_say(err, n, "perf: cannot release the child: %s", strerror(errno));
		return -EIO;
	}
	while ((r = read(ef, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	if (r == (ssize_t)sizeof(e)) {
		hwbpi_say(err, n, "cannot run the command: %s", strerror(e));
		return -e;
	}
	return 0;
}

int hwbpi_pf_held(struct hwbpi_held *h, char *err, size_t n)
{
	int go[2], ef[2], ret;

	ret = held_fork(h, go, ef, err, n);
	if (ret)
		return ret;
	ret = h->open(h->arg, h->pid);
	if (ret == 0)
		ret = held_release(go[1], ef[0], err, n);
	close(go[1]);
	close(ef[0]);
	if (ret) {
		hwbpi_perf_abort(h->pid);
		return ret;
	}
	if (h->wait)
		h->wait(h->arg, h->pid);
	else
		hwbpi_pf_reap(h->pid, &h->wstatus);
	return 0;
}
