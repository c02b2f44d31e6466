/* SPDX-License-Identifier: MIT */
/*
 * Do the debug registers fire here (backends/linux/linux.h,
 * hwbpi_linux_fires())?  Some hypervisors do not pass them through: the
 * kernel programs DR7 and no exception ever comes, and a tool that only
 * waits for hits would report nothing, which a race detector must not
 * mistake for "no race".  A forked child is given a write watch through
 * the arch's glue (the very writes a caller will make) and stores three
 * times; three traps must come.  Asked once per process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/linux/linux.h"

#define STORES 3

static volatile uint64_t fires_var;
static int fires_result = 1;       /* 1: not asked yet */
static char fires_msg[256];

static void child(void) __attribute__((noreturn));
static void child(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0) {
		raise(SIGSTOP);
		for (int i = 0; i < STORES; i++)
			fires_var = fires_var + 1;
	}
	_exit(0);
}

/* The write watch on fires_var, as the caller would plan one. */
static int watch_regs(const struct hwbp_cpu *cpu, struct hwbp_regs *regs)
{
	static struct hwbp_ctx ctx;
	static struct hwbp_slots percpu[1];
	struct hwbp_task task;
	struct hwbp_request q = { (uint64_t)(uintptr_t)&fires_var, sizeof(fires_var), HWBP_W,
				  HWBP_SCOPE_USER, HWBP_REQ_LOCAL };
	int id, ret = hwbp_ctx_init(&ctx, cpu, 1, percpu, NULL);

	if (ret == 0)
		ret = hwbp_task_init(&ctx, &task);
	if (ret == 0)
		ret = hwbp_install(&ctx, &q, 0, &task, &id);
	return ret ? ret : hwbp_task_regs(&ctx, 0, &task, regs);
}

/* Where the exception comes before the store and the kernel leaves the
 * step to the tracer (hwbpi_linux_step_over: arm64's watchpoint_handler()
 * steps only for perf's default overflow handler, not ptrace's), stopped
 * child @pid would trap on the same store for good: it runs that one
 * instruction with its watch off, then gets it back.  0, or -1 when it
 * did not stop after the step (it ended). */
static int step_over(pid_t pid, const struct hwbp_cpu *cpu, const struct hwbp_regs *regs)
{
	struct hwbp_regs off;
	int st;

	if (hwbp_regs_reset(cpu, &off) || hwbpi_linux_write(pid, cpu, &off) ||
	    ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) || hwbpi_child_wait(pid, &st) ||
	    !WIFSTOPPED(st))
		return -1;
	return hwbpi_linux_write(pid, cpu, regs) ? -1 : 0;
}

/* Run the stopped child @pid to its end, counting its watch's traps. */
static int count_hits(pid_t pid, const struct hwbp_cpu *cpu, const struct hwbp_regs *regs)
{
	int hits = 0, st;

	hwbpi_child_resume(pid, 0);
	while (hwbpi_child_wait(pid, &st) == 0 && WIFSTOPPED(st)) {
		struct hwbp_status hs;
		siginfo_t si;
		int sig = WSTOPSIG(st);

		if (sig == SIGTRAP && ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) == 0 &&
		    hwbpi_linux_hit(pid, cpu, regs, &si, &hs) >= 0) {
			hits++;
			hwbpi_linux_hit_done(pid);
			sig = 0;
			if (hwbpi_linux_step_over && step_over(pid, cpu, regs))
				break;
		}
		hwbpi_child_resume(pid, sig);
	}
	return hits;
}

int hwbpi_linux_fires(char *err, size_t errlen)
{
	struct hwbp_regs regs;
	struct hwbp_cpu cpu;
	int st, ret, hits = 0;
	pid_t pid;

	if (fires_result <= 0) {
		if (fires_result)
			hwbpi_say(err, errlen, "%s", fires_msg);
		return fires_result;
	}
	if ((ret = hwbpi_linux_glue_check(err, errlen)))
		return ret;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		hwbpi_say(err, errlen, "fork: %s", strerror(-ret));
		return ret;   /* not remembered: a later fork may work */
	}
	if (pid == 0)
		child();
	ret = hwbpi_child_wait(pid, &st);
	if (ret == 0 && !WIFSTOPPED(st)) {
		hwbpi_say(err, errlen, "ptrace not permitted (PTRACE_TRACEME failed)");
		ret = -EPERM;
	}
	if (ret == 0)
		ret = hwbpi_child_model(pid, &cpu, err, errlen);
	if (ret == 0 && (ret = watch_regs(&cpu, &regs)) == 0)
		ret = hwbpi_linux_write(pid, &cpu, &regs);
	if (ret == 0) {
		hits = count_hits(pid, &cpu, &regs);
		hwbpi_child_reap(pid, NULL);
		if (hits != STORES) {
			hwbpi_say(err, errlen, "hardware breakpoints do not fire on this machine "
			    "(%d of %d writes seen; some hypervisors do not pass them through)",
			    hits, STORES);
			ret = -ENODEV;
		}
	} else {
		hwbpi_child_kill(pid);
	}
	if (ret && err && errlen && !err[0])
		hwbpi_say(err, errlen, "debug registers: %s", strerror(-ret));
	fires_result = ret;
	snprintf(fires_msg, sizeof(fires_msg), "%s", ret && err ? err : "");
	return ret;
}
