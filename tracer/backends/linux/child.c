/* SPDX-License-Identifier: MIT */
/*
 * Children and tracees, what the Linux backends share to start a program
 * (backends/linux/linux.h): fork and exec it, held on a pipe before it
 * runs or under PTRACE_TRACEME; run a tracee to its ELF entry point; reap
 * or kill a child; and ask the kernel for its debug registers' model on a
 * child of our own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "backends/linux/linux.h"

/* The child's side of a start: exec, or report the exec's errno on @ef
 * (close-on-exec) and exit 127. */
void hwbpi_child_exec(char *const argv[], int ef, bool traceme)
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

int hwbpi_child_start(char *const argv[], pid_t *pid, char *err, size_t errlen)
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
		hwbpi_child_exec(argv, ef[1], true);
	}
	close(ef[1]);
	while ((r = read(ef[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(ef[0]);
	if (r == (ssize_t)sizeof(e)) {
		hwbpi_child_reap(p, NULL);
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
			hwbpi_child_kill(p);
		hwbpi_say(err, errlen, "%s: did not stop after exec", argv[0]);
		return -ECHILD;
	}
	/* Symbols of shared libraries are there only once ld.so has mapped
	 * them: at the entry point, as for the ptrace backend.  On an error
	 * the child either ended (-ECHILD: reaped) or is still stopped. */
	e = hwbpi_child_run_to_entry(p, argv[0], err, errlen);
	if (e) {
		if (e != -ECHILD)
			hwbpi_child_kill(p);
		return e;
	}
	*pid = p;
	return 0;
}


/* ------------------------------------------------------- a held child */

/* The child of hwbpi_child_held(): it runs once a byte comes on @go, so
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

/* The pipes and the fork of hwbpi_child_held(); the parent keeps go[1] and
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

int hwbpi_child_held(struct hwbpi_held *h, char *err, size_t n)
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
		hwbpi_child_kill(h->pid);
		return ret;
	}
	if (h->wait)
		h->wait(h->arg, h->pid);
	else
		hwbpi_child_reap(h->pid, &h->wstatus);
	return 0;
}

void hwbpi_child_reap(pid_t pid, int *wstatus)
{
	int st = 0;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (wstatus)
		*wstatus = st;
}

void hwbpi_child_kill(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	hwbpi_child_reap(pid, NULL);
}

void hwbpi_child_resume(pid_t tid, int sig)
{
	/* ESRCH: killed meanwhile (its exit is reported by waitpid). */
	ptrace(PTRACE_CONT, tid, NULL, (void *)(uintptr_t)sig);
}

/* Wait for @pid's next stop or end, retrying EINTR. */
int hwbpi_child_wait(pid_t pid, int *st)
{
	pid_t w;

	do
		w = waitpid(pid, st, __WALL);
	while (w < 0 && errno == EINTR);
	return w < 0 ? -errno : 0;
}

/*
 * From the stop after execve() to the program's entry point (AT_ENTRY),
 * where ld.so has mapped every DT_NEEDED library: a trap instruction
 * planted there (PTRACE_POKETEXT into the child's private copy of the
 * page; the file is untouched), taken, the word put back and the PC set
 * to the entry again, so that the instruction runs when the child goes
 * on, as a watch's first hit.  Not a debug register: Linux keeps a slot
 * a tracer ever wrote reserved for the task until its next exec, enabled
 * or not (ptrace_register_bp(): the breakpoint is only modified, never
 * unregistered), which would take a slot from the perf backend's events
 * (ENOSPC with four x86 watches; with any arm64 one, since writing the
 * registers claims them all); and x86 sets RF after an execute
 * breakpoint (hw_breakpoint_handler()), which would hide a watch on the
 * entry's own instruction.  Signals on the way are delivered (a seized
 * child's event stops passed through); the trap's SIGTRAP is dropped by
 * the resume or detach with signal 0 that follows.
 */
int hwbpi_child_run_to_entry(pid_t pid, const char *cmd, char *err, size_t errlen)
{
	uint64_t entry = 0, pc = 0;
	long orig, patched;
	int st, ret = hwbpi_proc_entry(pid, &entry);

	if (ret == 0 && hwbpi_linux_trap_len == 0)
		ret = -EOPNOTSUPP;
	errno = 0;
	orig = ret ? 0 : ptrace(PTRACE_PEEKTEXT, pid, (void *)(uintptr_t)entry, NULL);
	if (ret == 0 && errno)
		ret = -errno;
	patched = orig;
	memcpy(&patched, hwbpi_linux_trap, hwbpi_linux_trap_len);
	if (ret == 0 && ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)entry, (void *)patched))
		ret = -errno;
	if (ret) {
		hwbpi_say(err, errlen, "%s: cannot stop at its entry point: %s", cmd, strerror(-ret));
		return -EIO;
	}
	hwbpi_child_resume(pid, 0);
	for (;;) {
		ret = hwbpi_child_wait(pid, &st);
		if (ret)
			return ret;
		if (!WIFSTOPPED(st)) {
			hwbpi_say(err, errlen, "%s %s before its entry point", cmd,
			    WIFEXITED(st) ? "exited" : "was killed");
			return -ECHILD;   /* reaped: its pid is free */
		}
		/* Ours: a SIGTRAP with the PC on the trap (or, x86, after it). */
		if (WSTOPSIG(st) == SIGTRAP && (st >> 16) == 0 && hwbpi_linux_pc(pid, &pc) == 0 &&
		    (pc == entry || pc == entry + hwbpi_linux_trap_len))
			break;
		/* A signal the program gets on the way: delivered. */
		hwbpi_child_resume(pid, (st >> 16) == 0 ? WSTOPSIG(st) : 0);
	}
	if (ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)entry, (void *)orig))
		return -errno;
	return hwbpi_linux_set_pc(pid, entry);
}

int hwbpi_linux_glue_check(char *err, size_t errlen)
{
#ifdef HWBP_LINUX_NO_GLUE
	hwbpi_say(err, errlen, "hwbp has no Linux debug-register support for this CPU (%s): "
	    "no hardware breakpoints to program", HWBP_LINUX_NO_GLUE);
	return -EOPNOTSUPP;
#else
	(void)err;
	(void)errlen;
	return 0;
#endif
}

int hwbpi_child_model(pid_t tid, struct hwbp_cpu *cpu, char *err, size_t errlen)
{
	int ret = hwbpi_linux_glue_check(err, errlen);

	if (ret)
		return ret;
	ret = hwbpi_linux_cpu(tid, cpu);

	if (ret == -EOPNOTSUPP)
		hwbpi_say(err, errlen, "this kernel offers no hardware breakpoints to ptrace on this "
		    "CPU");
	else if (ret)
		hwbpi_say(err, errlen, "cannot read the debug registers' model: %s", strerror(-ret));
	return ret;
}

/*
 * The model needs a stopped tracee (arm64 reads it from the
 * NT_ARM_HW_BREAK/WATCH regsets): a child of our own that stops itself
 * under PTRACE_TRACEME, asked, then killed and reaped.  No debug register
 * is written.  PR_SET_PDEATHSIG: it does not outlive us if we die between.
 */
int hwbpi_child_cpu(struct hwbp_cpu *cpu, char *err, size_t errlen)
{
	pid_t pid;
	int st = 0, ret;

	if (!cpu)
		return -EINVAL;
	if ((ret = hwbpi_linux_glue_check(err, errlen)))
		return ret;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		hwbpi_say(err, errlen, "fork: %s", strerror(-ret));
		return ret;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
			raise(SIGSTOP);
		_exit(127);
	}
	ret = hwbpi_child_wait(pid, &st);
	if (ret == 0 && !WIFSTOPPED(st)) {
		/* PTRACE_TRACEME failed: the child exited. */
		hwbpi_say(err, errlen, "the child: ptrace: %s", strerror(EPERM));
		return -EPERM;
	}
	if (ret == 0)
		ret = hwbpi_child_model(pid, cpu, err, errlen);
	else
		hwbpi_say(err, errlen, "the child: waitpid: %s", strerror(-ret));
	hwbpi_child_kill(pid);
	return ret;
}
