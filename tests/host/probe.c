/* SPDX-License-Identifier: MIT */
/*
 * hostbp_probe: do hardware watchpoints fire on this host?
 *
 * The suites' oracle for "this machine's debug registers work", and so it
 * shares no code with hwbp: a regression in hwbp's backends must make
 * their tests fail, never make this probe say "do not fire" and the
 * tests skip.  It asks the kernel directly, twice:
 *   ptrace  a child stopped at its start gets a write watchpoint on an
 *           8-byte variable that it then writes N times (x86_64: DR0/DR7
 *           through PTRACE_POKEUSER, arch/x86/kernel/ptrace.c
 *           ptrace_set_debugreg(); aarch64: NT_ARM_HW_WATCH through
 *           PTRACE_SETREGSET, arch/arm64/kernel/ptrace.c hw_break_set());
 *           each SIGTRAP stop is one hit;
 *   perf    a counting PERF_TYPE_BREAKPOINT event (HW_BREAKPOINT_W, 8
 *           bytes) on this process while it writes the variable N times.
 * N hits each: the registers fire.  No hit on either (or one that cannot
 * even be opened): they do not, as on hosts whose hypervisor does not pass
 * debug registers through (the kernel programs DR7, and no #DB comes).
 * Anything else is a partial answer: the tests then run as they would
 * without the probe, and fail where something is wrong.
 *
 * Output: one line on stdout,
 *   host debug registers: fire (ptrace, perf); CPU MODEL
 *   host debug registers: do not fire (ptrace 0 of N, perf 0 of N: ...); CPU MODEL
 *   host debug registers: partly fire (ptrace N of N, perf 0 of N); CPU MODEL
 * Exit status: 0 fire, 1 do not fire, 3 partly, 2 usage; killed by
 * SIGALRM after 60 s whatever happens.
 * HWBP_HOST_BP_FORCE=none answers "do not fire" whatever was seen (and
 * says so, with what was seen): to try the suites' skips on a machine
 * whose registers work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__aarch64__)
#include <elf.h>
#include <asm/ptrace.h>
#endif

#define N_WRITES 100

static volatile uint64_t var __attribute__((aligned(8)));

/* One line of what was seen by one interface. */
struct seen {
	long hits;      /* -1: the interface could not be used */
	char why[160];  /* when hits < 0 */
};

static void child_writes(void)
{
	for (int i = 0; i < N_WRITES; i++)
		var = var + 1;
}

#if defined(__x86_64__)
/* DR0 = &var; DR7: L0 (bit 0), R/W0 = 01 write (bits 17:16), LEN0 = 10
 * 8 bytes (bits 19:18) (Intel SDM Vol. 3B §17.2.4). */
/* x86 data breakpoints trap after the access: nothing to step over. */
#define STEP_OVER 0

static int arm_watch(pid_t pid, int on, char *why, size_t n)
{
	unsigned long dr7 = on ? 1ul | (1ul << 16) | (2ul << 18) : 0;

	if (ptrace(PTRACE_POKEUSER, pid, offsetof(struct user, u_debugreg[0]), (void *)&var) ||
	    ptrace(PTRACE_POKEUSER, pid, offsetof(struct user, u_debugreg[7]), (void *)dr7)) {
		snprintf(why, n, "PTRACE_POKEUSER u_debugreg: %s (%s)", strerror(errno),
			 strerrorname_np(errno));
		return -1;
	}
	return 0;
}
#elif defined(__aarch64__)
/* Watchpoint 0: DBGWVR = &var, DBGWCR = E (bit 0) | PAC EL0 (0b10, bits
 * 2:1) | LSC store (0b10, bits 4:3) | BAS 0xff (bits 12:5) (Arm ARM
 * D19.3.x DBGWCR<n>_EL1); Linux checks the privilege bits
 * (arch/arm64/kernel/ptrace.c ptrace_hbp_fill_attr_ctrl()). */
/* An arm64 watchpoint is taken before the access, and for a ptrace
 * watchpoint Linux leaves the step over it to the debugger (arch/arm64/
 * kernel/hw_breakpoint.c watchpoint_handler() steps only for the default
 * overflow handler): disable, single-step, re-enable, as GDB does. */
#define STEP_OVER 1

static int arm_watch(pid_t pid, int on, char *why, size_t n)
{
	struct user_hwdebug_state st;
	struct iovec iov;

	memset(&st, 0, sizeof(st));
	st.dbg_regs[0].addr = (uint64_t)(uintptr_t)&var;
	st.dbg_regs[0].ctrl = on ? 1u | (2u << 1) | (2u << 3) | (0xffu << 5) : 0;
	iov.iov_base = &st;
	iov.iov_len = offsetof(struct user_hwdebug_state, dbg_regs) + sizeof(st.dbg_regs[0]);
	if (ptrace(PTRACE_SETREGSET, pid, NT_ARM_HW_WATCH, &iov)) {
		snprintf(why, n, "PTRACE_SETREGSET NT_ARM_HW_WATCH: %s (%s)", strerror(errno),
			 strerrorname_np(errno));
		return -1;
	}
	return 0;
}
#else
#define STEP_OVER 0

static int arm_watch(pid_t pid, int on, char *why, size_t n)
{
	(void)pid;
	(void)on;
	snprintf(why, n, "no ptrace watchpoint probe for this architecture");
	return -1;
}
#endif

/* The child: stop for the tracer, write, leave. */
static void ptrace_child(void)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(10);
	raise(SIGSTOP);
	child_writes();
	_exit(0);
}

static void probe_ptrace(struct seen *s)
{
	int st;
	pid_t pid = fork();

	s->hits = -1;
	if (pid < 0) {
		snprintf(s->why, sizeof(s->why), "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0)
		ptrace_child();
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		snprintf(s->why, sizeof(s->why), "the child did not stop (PTRACE_TRACEME refused?)");
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return;
	}
	if (arm_watch(pid, 1, s->why, sizeof(s->why))) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return;
	}
	/* Each SIGTRAP is one hit; the child ends after N writes whether
	 * or not any fired, so this loop ends too -- bounded all the same:
	 * a child that stops without progress is killed, and the answer is
	 * "unusable", never a hang. */
	s->hits = 0;
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	while (waitpid(pid, &st, 0) == pid && WIFSTOPPED(st)) {
		int sig = WSTOPSIG(st);

		if (sig == SIGTRAP && ++s->hits > 10 * N_WRITES) {
			snprintf(s->why, sizeof(s->why), "more than %d stops for %d writes: the child "
				 "makes no progress", 10 * N_WRITES, N_WRITES);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			s->hits = -1;
			return;
		}
		if (sig == SIGTRAP && STEP_OVER &&
		    (arm_watch(pid, 0, s->why, sizeof(s->why)) ||
		     ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) || waitpid(pid, &st, 0) != pid ||
		     !WIFSTOPPED(st) || arm_watch(pid, 1, s->why, sizeof(s->why)))) {
			if (!s->why[0])
				snprintf(s->why, sizeof(s->why), "the step over a hit failed");
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			s->hits = -1;
			return;
		}
		if (sig == SIGTRAP)
			sig = 0;
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(s->why, sizeof(s->why), "the child ended with status %#x", st);
		s->hits = -1;
	}
}

static void probe_perf(struct seen *s)
{
	struct perf_event_attr a;
	uint64_t count = 0;
	int fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uint64_t)(uintptr_t)&var;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	s->hits = -1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		snprintf(s->why, sizeof(s->why), "perf_event_open: %s (%s)", strerror(errno),
			 strerrorname_np(errno));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	child_writes();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count)) {
		snprintf(s->why, sizeof(s->why), "read of the perf counter: %s", strerror(errno));
		close(fd);
		return;
	}
	close(fd);
	s->hits = (long)count;
}

/* "model name" (x86), "cpu" (powerpc), or arm64's "CPU implementer" and
 * "CPU part" (its /proc/cpuinfo has no name); "unknown CPU" */
static void cpu_model(char *buf, size_t n, int *hypervisor)
{
	char line[512], impl[32] = "", part[32] = "";
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(buf, n, "unknown CPU");
	*hypervisor = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!c)
			continue;
		c += 1 + strspn(c + 1, " \t");
		c[strcspn(c, "\n")] = 0;
		if (!strncmp(line, "flags", 5) && strstr(c, "hypervisor"))
			*hypervisor = 1;
		if (!strncmp(line, "CPU implementer", 15) && !impl[0])
			snprintf(impl, sizeof(impl), "%s", c);
		if (!strncmp(line, "CPU part", 8) && !part[0])
			snprintf(part, sizeof(part), "%s", c);
		if ((!strncmp(line, "model name", 10) || !strncmp(line, "cpu\t", 4)) &&
		    !strcmp(buf, "unknown CPU"))
			snprintf(buf, n, "%s", c);
	}
	fclose(f);
	if (!strcmp(buf, "unknown CPU") && impl[0])
		snprintf(buf, n, "CPU implementer %s, part %s", impl, part[0] ? part : "?");
}

static void describe(char *buf, size_t n, const char *name, const struct seen *s)
{
	if (s->hits < 0)
		snprintf(buf, n, "%s unusable: %s", name, s->why);
	else
		snprintf(buf, n, "%s %ld of %d", name, s->hits, N_WRITES);
}

int main(int argc, char **argv)
{
	struct seen pt, pf;
	char model[256], a[256], b[256];
	const char *force = getenv("HWBP_HOST_BP_FORCE");
	int hyp;

	if (argc > 1) {
		fprintf(stderr, "usage: %s (no arguments; HWBP_HOST_BP_FORCE=none forces the answer)\n",
			argv[0]);
		return 2;
	}
	if (force && *force && strcmp(force, "none")) {
		fprintf(stderr, "hostbp_probe: HWBP_HOST_BP_FORCE=%s: only 'none' (EINVAL)\n", force);
		return 2;
	}
	/* The last bound: whatever the kernel does, no caller waits more
	 * than this for the answer (SIGALRM ends the probe, an exit status
	 * that is neither 0 nor 1: "not known"). */
	alarm(60);
	probe_ptrace(&pt);
	probe_perf(&pf);
	cpu_model(model, sizeof(model), &hyp);
	describe(a, sizeof(a), "ptrace", &pt);
	describe(b, sizeof(b), "perf", &pf);
	if (force && *force) {
		printf("host debug registers: do not fire (forced by HWBP_HOST_BP_FORCE=none; "
		       "seen: %s, %s); %s\n", a, b, model);
		return 1;
	}
	if (pt.hits == N_WRITES && pf.hits == N_WRITES) {
		printf("host debug registers: fire (ptrace, perf); %s\n", model);
		return 0;
	}
	if (pt.hits <= 0 && pf.hits <= 0) {
		printf("host debug registers: do not fire (%s, %s: %s); %s\n", a, b,
		       hyp && pt.hits == 0 && pf.hits == 0
			   ? "the hypervisor does not pass them through"
			   : "no hit through either interface", model);
		return 1;
	}
	printf("host debug registers: partly fire (%s, %s); %s\n", a, b, model);
	return 3;
}
