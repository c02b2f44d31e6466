/* SPDX-License-Identifier: MIT */
/* guest-arch: x86_64 (scripts/guest builds this file for these guests only: it programs u_debugreg) */
/*
 * tests/guest/hwbreak.c: does this Linux kernel + CPU give exact hardware
 * breakpoint hit counts?  A static x86_64 program (gcc -static), run in the
 * guest by scripts/guest (and runnable on any x86_64 Linux host: no hwbp
 * code involved, it checks the kernel interfaces the backends build on).
 * One line per check, "ok"/"FAIL"; exit status 0 only if all passed.
 *
 * (a) ptrace: a forked child (PTRACE_TRACEME, then SIGSTOP) runs a known
 *     loop; the parent programs u_debugreg[slot] and u_debugreg[7] with
 *     PTRACE_POKEUSER and counts SIGTRAP stops.  Data watches: all four
 *     slots, LEN 1/2/4/8, R/W 01 (write) and 11 (read/write); the child
 *     writes the watched bytes 1000 times (and an adjacent, unwatched
 *     8-byte word 1000 times), then reads them 1000 times: W must give
 *     exactly 1000 hits, RW exactly 2000.  Each stop must carry si_code
 *     TRAP_HWBKPT and DR6 (u_debugreg[6]) with exactly the slot's B bit.
 *     Execute: R/W 00, LEN 00 on a function called 1000 times: exactly 1000
 *     stops, each at the function's first instruction.
 *
 *     RF (resume flag): an instruction breakpoint is a fault, reported
 *     before the instruction runs, so resuming at the same IP would hit
 *     again forever unless EFLAGS.RF is set on the return to user mode
 *     (Intel SDM vol. 3, 17.3.1.1 "Instruction-Breakpoint Exception
 *     Condition").  The tracer does NOT have to do this on x86: the
 *     kernel's #DB handler sets RF in the saved user regs for every
 *     execute breakpoint it handles (arch/x86/kernel/hw_breakpoint.c,
 *     hw_breakpoint_handler(): "Set up resume flag to avoid breakpoint
 *     recursion when returning back to origin": `if (bpx) regs->flags |=
 *     X86_EFLAGS_RF`), before ptrace's trigger turns the hit into the
 *     SIGTRAP stop.  So PTRACE_CONT just works, and PTRACE_GETREGS at the
 *     stop shows RF set (checked below).  A tracer that rewrites eflags
 *     (PTRACE_SETREGS / POKEUSER of eflags; RF is in the writable
 *     FLAG_MASK of arch/x86/kernel/ptrace.c) without RF gets the same
 *     breakpoint again at once: checked below too ("RF cleared" gives
 *     exactly one extra hit).
 *     Threads: a thread created by the tracee does NOT inherit the
 *     tracer's debug registers (arch/x86/kernel/process.c, copy_thread():
 *     the new task's ptrace_bps are cleared), so its 1000 writes give 0
 *     hits unless the tracer, auto-attached by PTRACE_O_TRACECLONE, arms
 *     the new thread at its first stop: then exactly 1000.
 *
 * (b) perf_event_open(PERF_TYPE_BREAKPOINT), counting, exclude_kernel = 1
 *     (needed at perf_event_paranoid 2): the same loops on the process
 *     itself (W 1000, RW 2000 for every length, X 1000), then on a forked
 *     child with inherit = 1 that starts 4 threads (4 x 1000), and on a
 *     child that forks (2 x 1000) (man 2 perf_event_open: inherit;
 *     kernel/events/hw_breakpoint.c reserves one slot per inherited task).
 *     Sampling (sample_period 1, PERF_SAMPLE_IP, the mmap ring): the W loop
 *     gives 1000 PERF_RECORD_SAMPLEs all with one IP (a data breakpoint is
 *     a trap: the IP is the instruction after the one store), the X loop
 *     1000 samples all at the function's address (a fault: before it).
 *
 * `hwbreak --x-stress N` runs only the ptrace execute check, N rounds, and
 * prints every round that was not exact (see check_ptrace() on the rare
 * missed stop seen in the TCG guest).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOOPS 1000
#define THREADS 4

/* The watched word is buf + 8 (aligned for every length); buf + 0 is the
 * adjacent, unwatched word the loop also writes. */
static volatile unsigned char buf[32] __attribute__((aligned(16)));
static volatile uint64_t sink;
static volatile long calls; /* hwbreak_target's calls, read by the tracer */

static int n_pass, n_fail;

static void report(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (ok)
		n_pass++;
	else
		n_fail++;
}

/* noinline: one store (load) instruction per length whatever the compiler
 * does to the loops (unrolled, they would spread the samples' IPs). */
__attribute__((noinline)) static void store(volatile void *p, int len, uint64_t v)
{
	switch (len) {
	case 1: *(volatile uint8_t *)p = (uint8_t)v; break;
	case 2: *(volatile uint16_t *)p = (uint16_t)v; break;
	case 4: *(volatile uint32_t *)p = (uint32_t)v; break;
	default: *(volatile uint64_t *)p = v; break;
	}
}

__attribute__((noinline)) static uint64_t load(volatile void *p, int len)
{
	switch (len) {
	case 1: return *(volatile uint8_t *)p;
	case 2: return *(volatile uint16_t *)p;
	case 4: return *(volatile uint32_t *)p;
	default: return *(volatile uint64_t *)p;
	}
}

/* The data loop: LOOPS writes of the watched bytes, LOOPS writes of the
 * neighbour word, LOOPS reads of the watched bytes. */
static void data_loop(int len)
{
	for (int i = 0; i < LOOPS; i++) {
		store(buf + 8, len, (uint64_t)i);
		store(buf, 8, (uint64_t)i);
	}
	for (int i = 0; i < LOOPS; i++)
		sink += load(buf + 8, len);
}

__attribute__((noinline)) void hwbreak_target(void)
{
	__asm__ volatile("" ::: "memory");
	calls++;
}

static void exec_loop(void)
{
	calls = 0;
	for (int i = 0; i < LOOPS; i++)
		hwbreak_target();
}

/* ---- (a) ptrace ---------------------------------------------------- */

/* DR7 fields (Intel SDM vol. 3, 17.2.4): L<n> at bit 2n, R/W<n> at
 * 16 + 4n, LEN<n> at 18 + 4n; LEN 00 = 1, 01 = 2, 11 = 4, 10 = 8. */
static unsigned long dr7_for(int slot, int rw, int len)
{
	unsigned long lenbits = len == 1 ? 0 : len == 2 ? 1 : len == 8 ? 2 : 3;

	return (1UL << (2 * slot)) | ((unsigned long)rw << (16 + 4 * slot)) |
	       (lenbits << (18 + 4 * slot));
}

#define DR_OFF(n) (offsetof(struct user, u_debugreg) + (n) * sizeof(long))

enum { WORK_DATA, WORK_EXEC };

struct ptrace_result {
	int hits, bad_code, bad_dr6, bad_ip, no_rf;
	long missed_call; /* X: calls made at the first stop that had more than
			   expected, i.e. a call ran without its stop (-1: none) */
	int status_ok; /* child exited 0 */
	char err[128];
};

/* Fork a traced child that runs the workload; program slot `slot` with
 * address `addr` and DR7 `dr7`; count SIGTRAP stops.  clear_rf_once: at
 * the first stop, clear RF in the child's eflags (PTRACE_SETREGS). */
static void ptrace_run(int work, int len, int slot, unsigned long addr, unsigned long dr7,
		       int clear_rf_once, struct ptrace_result *r)
{
	int st;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->missed_call = -1;
	pid = fork();
	if (pid < 0) {
		snprintf(r->err, sizeof(r->err), "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(100);
		raise(SIGSTOP);
		if (work == WORK_DATA)
			data_loop(len);
		else
			exec_loop();
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP) {
		snprintf(r->err, sizeof(r->err), "child did not stop (status 0x%x)", st);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return;
	}
	/* Address first, then DR7: the kernel validates the address (alignment
	 * for LEN, user range) when DR7 enables the slot
	 * (arch/x86/kernel/ptrace.c, ptrace_write_dr7()). */
	if (ptrace(PTRACE_POKEUSER, pid, (void *)DR_OFF(slot), (void *)addr) != 0 ||
	    ptrace(PTRACE_POKEUSER, pid, (void *)DR_OFF(7), (void *)dr7) != 0) {
		snprintf(r->err, sizeof(r->err), "POKEUSER: %s", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return;
	}
	int sig = 0;
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) != 0) {
			snprintf(r->err, sizeof(r->err), "PTRACE_CONT: %s", strerror(errno));
			break;
		}
		sig = 0;
		if (waitpid(pid, &st, 0) != pid) {
			snprintf(r->err, sizeof(r->err), "waitpid: %s", strerror(errno));
			break;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			r->status_ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
			return;
		}
		if (WSTOPSIG(st) != SIGTRAP) {
			sig = WSTOPSIG(st);
			continue;
		}
		r->hits++;
		if (r->hits > 10 * LOOPS) {
			snprintf(r->err, sizeof(r->err), "more than %d stops: runaway", 10 * LOOPS);
			break;
		}
		siginfo_t si;
		if (ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) != 0 || si.si_code != TRAP_HWBKPT)
			r->bad_code++;
		errno = 0;
		long dr6 = ptrace(PTRACE_PEEKUSER, pid, (void *)DR_OFF(6), NULL);
		if (errno != 0 || (dr6 & 0xf) != (1L << slot))
			r->bad_dr6++;
		if (work == WORK_EXEC) {
			struct user_regs_struct regs;
			if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0) {
				r->bad_ip++;
				continue;
			}
			if (regs.rip != addr)
				r->bad_ip++;
			/* At the k-th stop the function has run k - 1 times (it is
			 * stopped before its first instruction). */
			errno = 0;
			long c = ptrace(PTRACE_PEEKDATA, pid, (void *)&calls, NULL);
			if (errno == 0 && r->missed_call < 0 &&
			    c != r->hits - 1 - (clear_rf_once && r->hits >= 2))
				r->missed_call = c;
			if (!(regs.eflags & 0x10000)) /* X86_EFLAGS_RF */
				r->no_rf++;
			if (clear_rf_once && r->hits == 1) {
				regs.eflags &= ~0x10000ULL;
				if (ptrace(PTRACE_SETREGS, pid, NULL, &regs) != 0)
					r->bad_ip++;
			}
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

static void check_ptrace(void)
{
	static const int lens[] = { 1, 2, 4, 8 };
	struct ptrace_result r;

	for (int slot = 0; slot < 4; slot++) {
		for (int li = 0; li < 4; li++) {
			for (int rw = 1; rw <= 3; rw += 2) {
				int len = lens[li];
				int want = rw == 1 ? LOOPS : 2 * LOOPS;
				ptrace_run(WORK_DATA, len, slot, (unsigned long)(buf + 8),
					   dr7_for(slot, rw, len), 0, &r);
				report(!r.err[0] && r.status_ok && r.hits == want && !r.bad_code &&
					       !r.bad_dr6,
				       "ptrace slot %d len %d %-2s: %d hits (want %d)%s%s%s", slot,
				       len, rw == 1 ? "W" : "RW", r.hits, want,
				       r.bad_code ? ", si_code not TRAP_HWBKPT" : "",
				       r.bad_dr6 ? ", DR6 B bits wrong" : "", r.err);
			}
		}
	}
	for (int slot = 0; slot < 4; slot++) {
		char missed[96] = "";
		ptrace_run(WORK_EXEC, 0, slot, (unsigned long)hwbreak_target, dr7_for(slot, 0, 1),
			   0, &r);
		/* In the QEMU TCG guest (Debian 6.1 kernel) a call now and then
		 * runs without its stop, at a random call: 5 in 300,000 calls in
		 * some boots, 0 in 400,000 in another; 0 in 600,000 with Debian's
		 * 6.12 kernel under TCG and 0 in 2,000,000 on the KVM host (Linux
		 * 6.18): cause not established (TCG timing or the 6.1 kernel),
		 * measured with --x-stress N.  Data breakpoints (traps, no RF) and
		 * perf's execute counts (no stop) never missed.  So one such round
		 * is retried, once, and said so on the check's line. */
		if (r.missed_call >= 0 && r.hits == LOOPS - 1 && !r.err[0]) {
			long first = r.missed_call;
			ptrace_run(WORK_EXEC, 0, slot, (unsigned long)hwbreak_target,
				   dr7_for(slot, 0, 1), 0, &r);
			snprintf(missed, sizeof(missed),
				 " (retried: call %ld of the first round ran without a stop)", first);
		}
		if (r.missed_call >= 0)
			snprintf(missed, sizeof(missed), ", a call ran without a stop (%ld calls made)",
				 r.missed_call);
		report(!r.err[0] && r.status_ok && r.hits == LOOPS && !r.bad_code && !r.bad_dr6 &&
			       !r.bad_ip && !r.no_rf && r.missed_call < 0,
		       "ptrace slot %d X: %d hits (want %d), RF set by the kernel at %d of "
		       "them%s%s%s%s%s",
		       slot, r.hits, LOOPS, r.hits - r.no_rf, missed,
		       r.bad_code ? ", si_code not TRAP_HWBKPT" : "",
		       r.bad_dr6 ? ", DR6 B bits wrong" : "", r.bad_ip ? ", IP not the target" : "",
		       r.err);
	}
	ptrace_run(WORK_EXEC, 0, 0, (unsigned long)hwbreak_target, dr7_for(0, 0, 1), 1, &r);
	if (r.missed_call >= 0 && r.hits == LOOPS && !r.err[0]) /* the same TCG retry */
		ptrace_run(WORK_EXEC, 0, 0, (unsigned long)hwbreak_target, dr7_for(0, 0, 1), 1, &r);
	report(!r.err[0] && r.status_ok && r.hits == LOOPS + 1 && r.missed_call < 0,
	       "ptrace X, tracer clears RF at the first stop: %d hits (want %d: one refire)%s%s",
	       r.hits, LOOPS + 1, r.missed_call >= 0 ? ", a call ran without a stop" : "", r.err);
}

/* A tracee that starts one thread doing the W loop (1000 writes); the
 * main thread's slot 0 watches the word.  arm_new: program the same slot
 * in the new thread at its first stop (PTRACE_O_TRACECLONE). */
static void *thread_body(void *arg);

static int ptrace_thread_run(int arm_new, char *err, size_t errsz)
{
	int st, hits = 0;
	unsigned long addr = (unsigned long)(buf + 8), dr7 = dr7_for(0, 1, 8);
	pid_t pid = fork();

	if (pid == 0) {
		pthread_t th;
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(100);
		raise(SIGSTOP);
		if (pthread_create(&th, NULL, thread_body, NULL) != 0)
			_exit(101);
		pthread_join(th, NULL);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		snprintf(err, errsz, ", child did not stop");
		return -1;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACECLONE) != 0 ||
	    ptrace(PTRACE_POKEUSER, pid, (void *)DR_OFF(0), (void *)addr) != 0 ||
	    ptrace(PTRACE_POKEUSER, pid, (void *)DR_OFF(7), (void *)dr7) != 0 ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL) != 0) {
		snprintf(err, errsz, ", setup: %s", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	for (;;) {
		pid_t t = waitpid(-1, &st, __WALL);
		if (t < 0) {
			snprintf(err, errsz, ", waitpid: %s", strerror(errno));
			return -1;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (t == pid) {
				if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
					snprintf(err, errsz, ", tracee status 0x%x", st);
				return hits;
			}
			continue;
		}
		int sig = WSTOPSIG(st);
		if (sig == SIGTRAP && (st >> 16) == PTRACE_EVENT_CLONE) {
			sig = 0;
		} else if (sig == SIGSTOP && t != pid) {
			/* the new thread's first stop (man 2 ptrace: PTRACE_O_TRACECLONE) */
			if (arm_new &&
			    (ptrace(PTRACE_POKEUSER, t, (void *)DR_OFF(0), (void *)addr) != 0 ||
			     ptrace(PTRACE_POKEUSER, t, (void *)DR_OFF(7), (void *)dr7) != 0))
				snprintf(err, errsz, ", arming the thread: %s", strerror(errno));
			sig = 0;
		} else if (sig == SIGTRAP) {
			hits++;
			sig = 0;
		}
		ptrace(PTRACE_CONT, t, NULL, (void *)(long)sig);
	}
}

static void check_ptrace_threads(void)
{
	char err[96];

	for (int arm = 0; arm < 2; arm++) {
		err[0] = 0;
		int want = arm ? LOOPS : 0;
		int hits = ptrace_thread_run(arm, err, sizeof(err));
		report(hits == want && !err[0],
		       "ptrace new thread, %s: %d hits (want %d)%s",
		       arm ? "armed at its clone stop" : "not armed (DRs not inherited)", hits,
		       want, err);
	}
}

/* ---- (b) perf_event_open -------------------------------------------- */

static int bp_open(pid_t pid, int type, unsigned long addr, int len, int inherit)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = type;
	a.bp_addr = addr;
	a.bp_len = len;
	a.sample_period = 1;
	a.disabled = 1;
	a.exclude_kernel = 1; /* required at perf_event_paranoid >= 2 */
	a.exclude_hv = 1;
	a.inherit = inherit;
	return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
}

static long long bp_read(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return -1;
	return (long long)v;
}

static void check_perf_self(void)
{
	static const int lens[] = { 1, 2, 4, 8 };

	for (int li = 0; li < 4; li++) {
		for (int t = 0; t < 2; t++) {
			int len = lens[li];
			int type = t == 0 ? HW_BREAKPOINT_W : HW_BREAKPOINT_RW;
			long long want = t == 0 ? LOOPS : 2 * LOOPS;
			int fd = bp_open(0, type, (unsigned long)(buf + 8), len, 0);
			if (fd < 0) {
				report(0, "perf self len %d %s: perf_event_open: %s", len,
				       t ? "RW" : "W", strerror(errno));
				continue;
			}
			ioctl(fd, PERF_EVENT_IOC_RESET, 0);
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			data_loop(len);
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			long long n = bp_read(fd);
			close(fd);
			report(n == want, "perf self len %d %-2s: count %lld (want %lld)", len,
			       t ? "RW" : "W", n, want);
		}
	}
	int fd = bp_open(0, HW_BREAKPOINT_X, (unsigned long)hwbreak_target, sizeof(long), 0);
	if (fd < 0) {
		report(0, "perf self X: perf_event_open: %s", strerror(errno));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	exec_loop();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	long long n = bp_read(fd);
	close(fd);
	report(n == LOOPS, "perf self X: count %lld (want %d)", n, LOOPS);
}

/* Sampling: every hit a PERF_RECORD_SAMPLE { header, u64 ip } in the ring
 * (man 2 perf_event_open: "MMAP layout"; data_head read with acquire
 * ordering as the man page asks). */
static void check_perf_sample(int x)
{
	const char *what = x ? "X" : "W len 8";
	long page = sysconf(_SC_PAGESIZE);
	size_t data_size = 16 * (size_t)page;
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = x ? HW_BREAKPOINT_X : HW_BREAKPOINT_W;
	a.bp_addr = x ? (unsigned long)hwbreak_target : (unsigned long)(buf + 8);
	a.bp_len = x ? sizeof(long) : 8;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		report(0, "perf sample %s: perf_event_open: %s", what, strerror(errno));
		return;
	}
	void *ring = mmap(NULL, (size_t)page + data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		report(0, "perf sample %s: mmap: %s", what, strerror(errno));
		close(fd);
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	if (x)
		exec_loop();
	else
		data_loop(8);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	struct perf_event_mmap_page *meta = ring;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	const unsigned char *data = (const unsigned char *)ring + page;
	int samples = 0, other = 0, elsewhere = 0, bad_ip = 0;
	uint64_t first_ip = 0;
	if (head > data_size) {
		other = -1; /* wrapped: more data than expected */
		head = 0;
	}
	for (uint64_t off = 0; off + sizeof(struct perf_event_header) <= head;) {
		const struct perf_event_header *h = (const void *)(data + off);
		if (h->size == 0)
			break;
		if (h->type == PERF_RECORD_SAMPLE) {
			uint64_t ip;
			memcpy(&ip, data + off + sizeof(*h), sizeof(ip));
			if (samples++ == 0)
				first_ip = ip;
			else if (ip != first_ip)
				elsewhere++;
			if (x && ip != (uint64_t)(uintptr_t)hwbreak_target)
				bad_ip++;
		} else {
			other++;
		}
		off += h->size;
	}
	munmap(ring, (size_t)page + data_size);
	close(fd);
	report(samples == LOOPS && other == 0 && !elsewhere && !bad_ip,
	       "perf sample %s: %d samples (want %d), %d not at the first one's IP (want 0)%s%s",
	       what, samples, LOOPS, elsewhere, x ? (bad_ip ? ", IP not the target" : ", IP = target") : "",
	       other ? ", other records or ring overflow" : "");
}

static void *thread_body(void *arg)
{
	(void)arg;
	data_loop(8); /* W: LOOPS hits per thread (RW: 2 * LOOPS) */
	return NULL;
}

enum { CHILD_THREADS, CHILD_FORKS };

/* A child that waits on a pipe until the counter is attached, then runs
 * the W loop in THREADS threads, or in itself and a forked grandchild. */
static void check_perf_inherit(int kind)
{
	int p[2], st;
	const char *what = kind == CHILD_THREADS ? "threads" : "fork";
	long long want = kind == CHILD_THREADS ? (long long)THREADS * LOOPS : 2LL * LOOPS;

	if (pipe(p) != 0) {
		report(0, "perf inherit %s: pipe: %s", what, strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(101);
		if (kind == CHILD_THREADS) {
			pthread_t th[THREADS];
			for (int i = 0; i < THREADS; i++)
				if (pthread_create(&th[i], NULL, thread_body, NULL) != 0)
					_exit(102);
			for (int i = 0; i < THREADS; i++)
				pthread_join(th[i], NULL);
		} else {
			pid_t g = fork();
			if (g < 0)
				_exit(103);
			data_loop(8);
			if (g == 0)
				_exit(0);
			if (waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
				_exit(104);
		}
		_exit(0);
	}
	close(p[0]);
	int fd = pid < 0 ? -1 : bp_open(pid, HW_BREAKPOINT_W, (unsigned long)(buf + 8), 8, 1);
	int err = errno;
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	if (write(p[1], "g", 1) != 1)
		err = errno;
	close(p[1]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (fd < 0) {
		report(0, "perf inherit %s: perf_event_open: %s", what, strerror(err));
		return;
	}
	/* After the exit of every inheriting task their counts are folded into
	 * this event (kernel/events/core.c, perf_event_exit_task() ->
	 * sync_child_event()). */
	long long n = bp_read(fd);
	close(fd);
	report(n == want && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "perf inherit %s: count %lld (want %lld), child status %d", what, n, want,
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* hwbreak --x-stress N: only the ptrace execute check, N rounds of LOOPS
 * calls (to measure how often a stop is missed). */
static int x_stress(int rounds)
{
	struct ptrace_result r;
	int bad = 0;

	for (int i = 0; i < rounds; i++) {
		ptrace_run(WORK_EXEC, 0, i % 4, (unsigned long)hwbreak_target,
			   dr7_for(i % 4, 0, 1), 0, &r);
		if (r.hits != LOOPS || r.missed_call >= 0 || r.err[0]) {
			bad++;
			printf("round %d slot %d: %d hits, call %ld ran without a stop%s\n", i, i % 4,
			       r.hits, r.missed_call, r.err);
		}
	}
	printf("hwbreak: x-stress: %d of %d rounds of %d calls exact\n", rounds - bad, rounds, LOOPS);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && strcmp(argv[1], "--x-stress") == 0)
		return x_stress(atoi(argv[2]));
	check_ptrace();
	check_ptrace_threads();
	check_perf_self();
	check_perf_sample(0);
	check_perf_sample(1);
	check_perf_inherit(CHILD_THREADS);
	check_perf_inherit(CHILD_FORKS);
	printf("hwbreak: %d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
