/* SPDX-License-Identifier: MIT */
/*
 * The ptrace backend's processes (tracer/backends/ptrace/ptrace.h): start a command and
 * stop it at its ELF entry point, attach to a running process
 * (PTRACE_SEIZE every thread: both through backends/linux/seize.c), and
 * let go of one at the end (kill what we started, detach what we
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

#include "backends/linux/linux.h"
#include "session/backend.h"
#include "backends/ptrace/ptrace_int.h"

int hwbpi_ptrace_spawn(struct hwbpi_ptrace **out, char *const argv[], int (*fn)(void *), void *arg,
		 char *err, size_t errlen)
{
	struct hwbp_cpu cpu;
	int st, ret;
	pid_t pid = -1;

	if (!out || (!argv && !fn) || (argv && !argv[0]))
		return -EINVAL;
	*out = NULL;
	ret = hwbpi_seize_spawn(argv, fn, arg, OPTS, &pid, err, errlen);
	if (ret)
		return ret;
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

/* The attach's threads (hwbpi_seize_threads()): known ones, and each
 * one seized into the table, stopped (a signal-delivery stop that came
 * first is delivered later) or, status -1, auto-attached already. */
static bool thr_known(void *arg, pid_t tid)
{
	return hwbpi_ptrace_thr_find(arg, tid) != NULL;
}

static int thr_seized(void *arg, pid_t tid, int st)
{
	struct hwbpi_ptrace *s = arg;
	struct thr *t = hwbpi_ptrace_thr_add(s, tid, s->pid);

	if (!t)
		return -ENOMEM;
	if (st != -1) {
		t->armed = true;
		if ((st >> 16) == 0)
			t->pending = WSTOPSIG(st);
	}
	return 0;
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
	{
		struct hwbpi_seize_cb cb = { thr_known, thr_seized, s };

		ret = hwbpi_seize_threads(pid, OPTS, &cb, err, errlen);
	}
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
