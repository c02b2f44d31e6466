/* SPDX-License-Identifier: MIT */
/*
 * Seized tracees (backends/linux/linux.h): a command started under
 * PTRACE_SEIZE, and every thread of a running process seized and
 * stopped.  Seized, not PTRACE_TRACEME'd or PTRACE_ATTACHed: only a
 * seized tracee can be stopped at will (PTRACE_INTERRUPT), and it reports
 * a group-stop as such (PTRACE_EVENT_STOP), so that a stop signal stops
 * it as under a debugger.  The ptrace backend and the race detector
 * (tracer/race/) start and attach through here.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/linux/linux.h"

pid_t hwbpi_proc_status_field(pid_t tid, const char *field)
{
	char p[64], line[256];
	size_t fl = strlen(field);
	pid_t v = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)tid);
	f = fopen(p, "re");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, field, fl) == 0 && line[fl] == ':') {
			v = (pid_t)atoi(line + fl + 1);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

bool hwbpi_proc_trap_pending(pid_t tid)
{
	char p[64], line[256];
	unsigned long long m = 0;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)tid);
	f = fopen(p, "re");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "SigPnd:", 7) == 0) {
			m = strtoull(line + 7, NULL, 16);
			break;
		}
	if (f)
		fclose(f);
	return m & (1ull << (SIGTRAP - 1));
}

/* The next stop of seized child @pid, other stops on the way passed
 * through: @ev (a PTRACE_EVENT_*), or with @ev 0 a signal-delivery stop
 * of @sig.  Errors: -EIO (it ended; @what says so), waitpid's. */
static int stop_at(pid_t pid, int ev, int sig, const char *what, int *st, char *err,
		   size_t errlen)
{
	for (;;) {
		int ret = hwbpi_child_wait(pid, st);

		if (ret)
			return ret;
		if (!WIFSTOPPED(*st)) {
			hwbpi_say(err, errlen, "%s ended before it could be traced", what);
			return -EIO;
		}
		if ((*st >> 16) == ev && (ev || WSTOPSIG(*st) == sig))
			return 0;
		/* SIGCONT (below) and other signals on the way: delivered;
		 * events: go on. */
		hwbpi_child_resume(pid, (*st >> 16) == 0 && WSTOPSIG(*st) != SIGSTOP ? WSTOPSIG(*st) : 0);
	}
}

/*
 * The forked child @pid, stopped by its own SIGSTOP: PTRACE_SEIZE with
 * @opts, then SIGCONT, and on to its exec (@cmd; PTRACE_EVENT_EXEC) or
 * its second SIGSTOP (@cmd NULL: before the function).  EXITKILL: the
 * program dies with the tracer.  Errors: -EPERM (not permitted: the
 * message says), -EIO (it ended), waitpid's.
 */
static int seize_child(pid_t pid, const char *cmd, unsigned long opts, int *st, char *err,
		       size_t errlen)
{
	int ret;

	do
		ret = waitpid(pid, st, WUNTRACED) < 0 ? -errno : 0;
	while (ret == -EINTR);
	if (ret == 0 && !WIFSTOPPED(*st)) {
		hwbpi_say(err, errlen, "%s ended before it could be traced", cmd ? cmd : "the child");
		return -EIO;
	}
	if (ret == 0 && ptrace(PTRACE_SEIZE, pid, NULL, (void *)(uintptr_t)(opts | PTRACE_O_EXITKILL))) {
		ret = -errno;
		hwbpi_say(err, errlen, "ptrace not permitted (PTRACE_SEIZE: %s): see "
		    "/proc/sys/kernel/yama/ptrace_scope", strerror(-ret));
	}
	if (ret) {
		kill(pid, SIGKILL);
		waitpid(pid, st, 0);
		return ret;
	}
	/* Seized while stopped: it reports a group-stop (PTRACE_EVENT_STOP),
	 * then runs on once continued; SIGCONT ends its job-control stop. */
	kill(pid, SIGCONT);
	ret = stop_at(pid, PTRACE_EVENT_STOP, 0, cmd ? cmd : "the child", st, err, errlen);
	if (ret == 0) {
		hwbpi_child_resume(pid, 0);
		ret = cmd ? stop_at(pid, PTRACE_EVENT_EXEC, 0, cmd, st, err, errlen)
			  : stop_at(pid, 0, SIGSTOP, "the child", st, err, errlen);
	}
	/* Not when it ended (-EIO): it is reaped, its pid free. */
	if (ret && ret != -EIO) {
		kill(pid, SIGKILL);
		hwbpi_child_wait(pid, st);
	}
	return ret;
}

/* The child's side: stopped until the parent has seized it, then @fn or
 * the exec, whose failure goes back through @ef (close-on-exec). */
static void spawn_child(char *const argv[], int (*fn)(void *), void *arg, int ef)
	__attribute__((noreturn));
static void spawn_child(char *const argv[], int (*fn)(void *), void *arg, int ef)
{
	int e[2];

	raise(SIGSTOP);
	if (fn) {
		close(ef);
		raise(SIGSTOP);   /* the first stop under ptrace */
		_exit(fn(arg));
	}
	execvp(argv[0], argv);
	e[0] = 2;
	e[1] = errno;
	if (write(ef, e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

int hwbpi_seize_spawn(char *const argv[], int (*fn)(void *), void *arg, unsigned long opts,
		      pid_t *out, char *err, size_t errlen)
{
	int pfd[2], e[2], st, ret;
	ssize_t n;
	pid_t pid;

	if (!out || (!argv && !fn) || (argv && !argv[0]))
		return -EINVAL;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return ret;
	}
	if (pid == 0) {
		close(pfd[0]);
		spawn_child(argv, fn, arg, pfd[1]);
	}
	close(pfd[1]);
	ret = seize_child(pid, fn ? NULL : argv[0], opts, &st, err, errlen);
	/* Past the exec, or ended (reaped) or killed: the write end is
	 * closed, the read does not block.  A failed execvp() said why. */
	do
		n = read(pfd[0], e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == (ssize_t)sizeof(e)) {
		hwbpi_say(err, errlen, "cannot run %s: %s", argv[0], strerror(e[1]));
		return -e[1];
	}
	if (ret == 0)
		*out = pid;
	return ret;
}

/* Why @pid cannot be seized (EPERM), in one line. */
static void say_perm(pid_t pid, char *err, size_t errlen)
{
	pid_t tracer = hwbpi_proc_status_field(pid, "TracerPid");
	char scope[16] = "?";
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");

	if (f) {
		if (!fgets(scope, sizeof(scope), f))
			strcpy(scope, "?");
		scope[strcspn(scope, "\n")] = '\0';
		fclose(f);
	}
	if (tracer > 0)
		hwbpi_say(err, errlen, "ptrace not permitted: process %d is already traced by process %d",
		    (int)pid, (int)tracer);
	else
		hwbpi_say(err, errlen, "ptrace not permitted on process %d (kernel.yama.ptrace_scope = %s, "
		    "or not your process)", (int)pid, scope);
}

/* One pass over /proc/PID/task: the threads not known yet seized and
 * stopped (hwbpi_seize_threads()); returns how many, or -errno. */
static int seize_pass(pid_t pid, unsigned long opts, const struct hwbpi_seize_cb *cb,
		      char *err, size_t errlen)
{
	char p[64];
	struct dirent *d;
	DIR *dir;
	int added = 0, ret = 0;

	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	dir = opendir(p);
	if (!dir) {
		hwbpi_say(err, errlen, "no process %d", (int)pid);
		return -ESRCH;
	}
	while (ret == 0 && (d = readdir(dir))) {
		pid_t tid = (pid_t)atoi(d->d_name);
		int st;

		if (tid <= 0 || cb->known(cb->arg, tid))
			continue;
		/* No EXITKILL: an attached process outlives the tracer. */
		if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)(uintptr_t)opts)) {
			int e = errno;

			if (e == ESRCH)
				continue;   /* exited meanwhile */
			/* A thread created since by a seized one is ours
			 * already (auto-attached, PTRACE_O_TRACECLONE): its
			 * first stop comes through the caller's loop. */
			if (e == EPERM && hwbpi_proc_status_field(tid, "TracerPid") == getpid()) {
				ret = cb->add(cb->arg, tid, -1);
				continue;
			}
			if (e == EPERM)
				say_perm(pid, err, errlen);
			else
				hwbpi_say(err, errlen, "cannot attach to process %d: %s", (int)pid,
				    strerror(e));
			ret = -e;
			break;
		}
		ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
		if (hwbpi_child_wait(tid, &st) == 0 && WIFSTOPPED(st))
			ret = cb->add(cb->arg, tid, st);
		added++;
	}
	closedir(dir);
	return ret ? ret : added;
}

int hwbpi_seize_threads(pid_t pid, unsigned long opts, const struct hwbpi_seize_cb *cb,
			char *err, size_t errlen)
{
	int ret;

	if (pid <= 0 || !cb || !cb->known || !cb->add)
		return -EINVAL;
	/* Threads may be created while we seize: again until none is new. */
	do
		ret = seize_pass(pid, opts, cb, err, errlen);
	while (ret > 0);
	return ret;
}
