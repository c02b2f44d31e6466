/* SPDX-License-Identifier: MIT */
/*
 * The ptrace backend's processes (tracer/backends/ptrace/ptrace.h): start a command and
 * stop it at its ELF entry point (a hardware execute breakpoint, no code
 * byte changed), attach to a running process (PTRACE_SEIZE every thread),
 * and let go of one at the end (kill what we started, detach what we
 * attached).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>

#include "backends/linux/linux.h"
#include "session/backend.h"
#include "backends/ptrace/ptrace_int.h"

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
 * The forked child @pid, stopped by its own SIGSTOP: PTRACE_SEIZE (not
 * PTRACE_TRACEME: only a seized tracee reports group-stops as
 * PTRACE_EVENT_STOP and can be left stopped with PTRACE_LISTEN, so that
 * a stop signal stops it, as under a debugger), then SIGCONT, and on to
 * its exec (@cmd; PTRACE_EVENT_EXEC) or its second SIGSTOP (@cmd NULL:
 * before the function).  EXITKILL: the program dies with the tracer.
 * Errors: -EPERM (not permitted: the message says), -EIO (it ended),
 * waitpid's.
 */
static int seize_child(pid_t pid, const char *cmd, int *st, char *err, size_t errlen)
{
	int ret;

	do
		ret = waitpid(pid, st, WUNTRACED) < 0 ? -errno : 0;
	while (ret == -EINTR);
	if (ret == 0 && !WIFSTOPPED(*st)) {
		hwbpi_say(err, errlen, "%s ended before it could be traced", cmd ? cmd : "the child");
		return -EIO;
	}
	if (ret == 0 && ptrace(PTRACE_SEIZE, pid, NULL, (void *)(uintptr_t)(OPTS | PTRACE_O_EXITKILL))) {
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

int hwbpi_ptrace_spawn(struct hwbpi_ptrace **out, char *const argv[], int (*fn)(void *), void *arg,
		 char *err, size_t errlen)
{
	int pfd[2], e[2], st, ret;
	struct hwbp_cpu cpu;
	ssize_t n;
	pid_t pid;

	if (!out || (!argv && !fn) || (argv && !argv[0]))
		return -EINVAL;
	*out = NULL;
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
		/* The child stops until the parent has seized it (below), then
		 * reports a failure through the pipe; a successful execve()
		 * closes it (O_CLOEXEC): the parent reads EOF. */
		close(pfd[0]);
		raise(SIGSTOP);
		if (fn) {
			close(pfd[1]);
			raise(SIGSTOP);   /* the first stop under ptrace */
			_exit(fn(arg));
		}
		execvp(argv[0], argv);
		e[0] = 2;
		e[1] = errno;
		if (write(pfd[1], e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	ret = seize_child(pid, fn ? NULL : argv[0], &st, err, errlen);
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
	if (ret)
		return ret;
	if (ret == 0)
		ret = hwbpi_child_model(pid, &cpu, err, errlen);
	if (ret == 0 && !fn)
		ret = hwbpi_child_run_to_entry(pid, argv[0], err, errlen);
	if (ret == 0) {
		*out = hwbpi_ptrace_session_new(pid, false, &cpu);
		if (!*out || !hwbpi_ptrace_thr_add(*out, pid, pid)) {
			hwbpi_ptrace_free(*out);
			*out = NULL;
			return -ENOMEM;
		}
		(*out)->thr[0].armed = true;   /* its first stop is behind us */
		return 0;
	}
	if (ret != -ECHILD) {   /* not when it ended before its entry point */
		kill(pid, SIGKILL);
		hwbpi_child_wait(pid, &st);
	}
	if (err && !err[0])
		hwbpi_say(err, errlen, "%s: ptrace: %s", fn ? "the child" : argv[0], strerror(-ret));
	return ret;
}


int hwbpi_ptrace_start(struct hwbpi_ptrace **out, char *const argv[], char *err, size_t errlen)
{
	int ret;

	hwbpi_ptrace_stop_reset();
	ret = hwbpi_ptrace_selftest(err, errlen);

	return ret ? ret : hwbpi_ptrace_spawn(out, argv, NULL, NULL, err, errlen);
}

int hwbpi_ptrace_start_fn(struct hwbpi_ptrace **out, int (*fn)(void *), void *arg,
			  char *err, size_t errlen)
{
	int ret;

	hwbpi_ptrace_stop_reset();
	ret = hwbpi_ptrace_selftest(err, errlen);
	return ret ? ret : hwbpi_ptrace_spawn(out, NULL, fn, arg, err, errlen);
}

static void say_perm(pid_t pid, char *err, size_t errlen)
{
	pid_t tracer = hwbpi_ptrace_status_field(pid, "TracerPid");
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

/* Seize and stop the threads of @pid not known yet; returns how many. */
static int seize_threads(struct hwbpi_ptrace *s, char *err, size_t errlen)
{
	char p[64];
	struct dirent *d;
	DIR *dir;
	int added = 0;

	snprintf(p, sizeof(p), "/proc/%d/task", (int)s->pid);
	dir = opendir(p);
	if (!dir) {
		hwbpi_say(err, errlen, "no process %d", (int)s->pid);
		return -ESRCH;
	}
	while ((d = readdir(dir))) {
		pid_t tid = (pid_t)atoi(d->d_name);
		struct thr *t;
		int st;

		if (tid <= 0 || hwbpi_ptrace_thr_find(s, tid))
			continue;
		/* No EXITKILL: an attached process outlives the tracer. */
		if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)(uintptr_t)OPTS)) {
			int e = errno;

			if (e == ESRCH)
				continue;   /* exited meanwhile */
			/* A thread created since by a seized one is ours
			 * already (auto-attached, PTRACE_O_TRACECLONE): its
			 * first stop comes through the tracing loop. */
			if (e == EPERM && hwbpi_ptrace_status_field(tid, "TracerPid") == getpid()) {
				if (!hwbpi_ptrace_thr_add(s, tid, s->pid)) {
					closedir(dir);
					return -ENOMEM;
				}
				continue;
			}
			closedir(dir);
			if (e == EPERM)
				say_perm(s->pid, err, errlen);
			else
				hwbpi_say(err, errlen, "cannot attach to process %d: %s", (int)s->pid,
				    strerror(e));
			return -e;
		}
		t = hwbpi_ptrace_thr_add(s, tid, s->pid);
		if (!t) {
			closedir(dir);
			return -ENOMEM;
		}
		ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
		if (hwbpi_child_wait(tid, &st) == 0 && WIFSTOPPED(st)) {
			t = hwbpi_ptrace_thr_find(s, tid);
			t->armed = true;
			/* A signal-delivery stop came first: delivered later. */
			if ((st >> 16) == 0)
				t->pending = WSTOPSIG(st);
		} else {
			hwbpi_ptrace_thr_del(s, tid);
		}
		added++;
	}
	closedir(dir);
	return added;
}

/* hwbpi_ptrace_attach(), with the self-test when @check. */
static int attach(struct hwbpi_ptrace **out, pid_t pid, bool check, char *err, size_t errlen)
{
	struct hwbpi_ptrace *s;
	struct hwbp_cpu cpu;
	int ret;

	if (!out || pid <= 0)
		return -EINVAL;
	*out = NULL;
	hwbpi_ptrace_stop_reset();
	ret = check ? hwbpi_ptrace_selftest(err, errlen) : 0;
	if (ret)
		return ret;
	/* A placeholder model until a thread is stopped to ask the kernel
	 * (GETREGSET needs a stopped tracee); no register is written before. */
	ret = hwbp_cpu_preset("x86_64", &cpu);
	s = ret ? NULL : hwbpi_ptrace_session_new(pid, true, &cpu);
	if (!s)
		return ret ? ret : -ENOMEM;
	/* Threads may be created while we seize: again until none is new. */
	do
		ret = seize_threads(s, err, errlen);
	while (ret > 0);
	if (ret == 0 && !hwbpi_ptrace_thr_find(s, pid)) {
		hwbpi_say(err, errlen, "process %d ended while being attached", (int)pid);
		ret = -ESRCH;
	}
	if (ret == 0)
		ret = hwbpi_child_model(pid, &cpu, err, errlen);
	if (ret == 0) {
		s->cpu = cpu;
		hwbp_regs_reset(&cpu, &s->off);
	}
	if (ret) {
		hwbpi_ptrace_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void hwbpi_ptrace_free(struct hwbpi_ptrace *s)
{
	if (!s)
		return;
	if (s->attached) {
		/* Stopped (never traced, or a stop was requested): let go. */
		for (size_t i = 0; i < s->nthr; i++) {
			hwbpi_ptrace_disarm(s, s->thr[i].tid);
			ptrace(PTRACE_DETACH, s->thr[i].tid, NULL, NULL);
		}
	} else {
		int st;

		/* Only tracees not reaped yet: their pids cannot have been
		 * reused (a reaped process's could). */
		for (size_t i = 0; i < s->nthr; i++)
			kill(s->thr[i].tgid, SIGKILL);
		while (s->nthr) {
			if (hwbpi_child_wait(s->thr[0].tid, &st) || WIFEXITED(st) || WIFSIGNALED(st))
				hwbpi_ptrace_thr_del(s, s->thr[0].tid);
		}
	}
	for (size_t i = 0; i < s->nproc; i++)
		free(s->proc[i].shadow);
	free(s->proc);
	for (size_t i = 0; i < s->nthr; i++)
		free(s->thr[i].shadow);
	free(s->thr);
	free(s);
}

int hwbpi_ptrace_attach(struct hwbpi_ptrace **out, pid_t pid, char *err, size_t errlen)
{
	return attach(out, pid, true, err, errlen);
}

int hwbpi_ptrace_open_unarmed(struct hwbpi_ptrace **out, char *const argv[], pid_t pid,
			      char *err, size_t errlen)
{
	if (pid)
		return attach(out, pid, false, err, errlen);
	hwbpi_ptrace_stop_reset();
	return hwbpi_ptrace_spawn(out, argv, NULL, NULL, err, errlen);
}
