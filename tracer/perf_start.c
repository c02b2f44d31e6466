/* SPDX-License-Identifier: MIT */
/*
 * The perf backend's start of a command (tracer/perf.h): fork, exec under
 * PTRACE_TRACEME, and run the program to its ELF entry point (as the
 * ptrace backend does: hwbpi_ptrace_run_to_entry()), where it is left
 * stopped for hwbpi_perf_trace() to open the events on and let go.
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

/* The child's side of a start: wait for @go (if >= 0), exec, or report
 * the exec's errno on @ef (close-on-exec) and exit 127. */
void hwbpi_pf_child(char *const argv[], int go, int ef, bool traceme)
{
	int e;
	char c;

	if (go >= 0 && read(go, &c, 1) != 1)
		_exit(127);     /* the parent gave up */
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
		hwbpi_pf_child(argv, -1, ef[1], true);
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

