/* SPDX-License-Identifier: MIT */
/*
 * Counting breakpoint hits in the kernel (tracer/bpf.c with the program
 * tracer/bpf/hist.bpf.c), on this machine's kernel and debug registers:
 * a forked child, held on a pipe until the events are open and the
 * program attached, writes watched variables from two known functions a
 * known number of times, so every count is exact and follows from the
 * loops below.  The events are user-only perf breakpoints on the child
 * (exclude_kernel: this host's kernel refuses kernel addresses, which
 * the guests cover), sample_period 1 as the program needs.
 *
 * The function table is built from the test's own function addresses
 * (the child has the same ones after fork), sorted; the IP adjust is the
 * arch's (hwbpi_linux_trap_ip_adjust).  Every test checks that nothing
 * of hwbp stays loaded in the kernel once it is done
 * (hwbpi_bpf_loaded_count()), refusals included.
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpf.h"
#include "linux.h"

static char err[512];

/* The watched variables, each in its own aligned word. */
static volatile uint64_t var1 __attribute__((aligned(64)));
static volatile uint64_t var2 __attribute__((aligned(64)));
/* Loop counts read through a volatile, so that no clone of the writers
 * specialised for a constant (another address) is called. */
static volatile unsigned n_arg;

static __attribute__((noinline)) void write_a(volatile uint64_t *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		*v = i;
}

static __attribute__((noinline)) void write_b(volatile uint64_t *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		*v = (uint64_t)i + 1;
}

/* Never called: a third start in the table. */
static __attribute__((noinline)) void never(void)
{
	var2 = 7;
}

/* What one child run does after its release. */
struct plan {
	unsigned na, nb;          /* write_a()'s and write_b()'s writes */
	volatile uint64_t *va, *vb;
};

/* ---------------------------------------------------- the table of starts */

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static uint64_t fn_addr(void (*f)(volatile uint64_t *, unsigned))
{
	return (uint64_t)(uintptr_t)f;
}

/* starts[3]: write_a, write_b and never(), sorted; *ia, *ib: the indexes
 * of write_a and write_b in it. */
static void make_starts(uint64_t starts[3], uint32_t *ia, uint32_t *ib)
{
	starts[0] = fn_addr(write_a);
	starts[1] = fn_addr(write_b);
	starts[2] = (uint64_t)(uintptr_t)never;
	qsort(starts, 3, sizeof(starts[0]), cmp_u64);
	for (uint32_t i = 0; i < 3; i++) {
		if (starts[i] == fn_addr(write_a))
			*ia = i;
		if (starts[i] == fn_addr(write_b))
			*ib = i;
	}
}

/* ------------------------------------------------------------ the child */

/* A child held on a pipe until go(); then it runs @p and exits 0. */
static pid_t child(const struct plan *p, int *go_fd)
{
	int fds[2];
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(1);
		n_arg = p->na;
		write_a(p->va, n_arg);
		n_arg = p->nb;
		write_b(p->vb, n_arg);
		_exit(0);
	}
	close(fds[0]);
	*go_fd = fds[1];
	return pid;
}

static void go_and_reap(pid_t pid, int go_fd)
{
	int st;

	assert_int_equal(write(go_fd, "g", 1), 1);
	close(go_fd);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A user-only write breakpoint on @v in @pid, one hit one sample
 * (sample_period 1: the kernel runs BPF on sampling events only). */
static int bp_event(pid_t pid, volatile uint64_t *v, uint64_t period)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)v;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_period = period;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
	if (fd < 0)
		fail_msg("perf_event_open: %s", strerror(errno));
	return fd;
}

static uint64_t event_count(int fd)
{
	uint64_t v = 0;

	assert_int_equal(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	return v;
}

/* ------------------------------------------------------ reading the maps */

struct entry {
	unsigned watch, tag;
	uint32_t func;
	uint64_t count;
};

struct got {
	struct entry e[16];
	unsigned n;
};

static void collect(void *arg, unsigned watch, unsigned tag, uint32_t func, uint64_t count)
{
	struct got *g = arg;

	assert_true(g->n < 16);
	g->e[g->n++] = (struct entry){ watch, tag, func, count };
}

/* @want[@n] must be exactly what the maps hold, in any order. */
static void expect_entries(const struct got *g, const struct entry *want, unsigned n)
{
	assert_int_equal(g->n, n);
	for (unsigned i = 0; i < n; i++) {
		unsigned found = 0;

		for (unsigned j = 0; j < g->n; j++)
			if (g->e[j].watch == want[i].watch && g->e[j].tag == want[i].tag &&
			    g->e[j].func == want[i].func) {
				assert_int_equal(g->e[j].count, want[i].count);
				found++;
			}
		if (found != 1)
			fail_msg("entry watch %u tag %u func %u: found %u times", want[i].watch,
			    want[i].tag, (unsigned)want[i].func, found);
	}
}

static int loaded(void)
{
	int n = hwbpi_bpf_loaded_count();

	if (n < 0)
		fail_msg("hwbpi_bpf_loaded_count: %s", strerror(-n));
	return n;
}

/* ---------------------------------------------------------------- tests */

static void test_log_tail(void **state)
{
	static const struct {
		const char *log;
		size_t outlen;
		const char *want;
	} cases[] = {
		{ "", 64, "" },
		{ "\n\n", 64, "" },
		{ "one line", 64, "one line" },
		{ "one line\n", 64, "one line" },
		{ "0: (b7) r1 = 0\nR1 invalid mem access 'scalar'\nprocessed 5 insns\n", 64,
		  "processed 5 insns" },
		{ "first\nlast\n\n\n", 64, "last" },
		{ "first\nlast  \n", 64, "last" },
		{ "first\nabcdefgh\n", 5, "abcd" },
		{ "x\n", 1, "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[64];

		memset(out, 'Z', sizeof(out));
		hwbpi_bpf_log_tail(cases[i].log, out, cases[i].outlen);
		assert_string_equal(out, cases[i].want);
	}
	hwbpi_bpf_log_tail(NULL, err, sizeof(err));
	assert_string_equal(err, "");
}

static void test_open_refused(void **state)
{
	static const uint64_t down[3] = { 0x2000, 0x1000, 0x3000 };
	static const uint64_t ok[2] = { 0x1000, 0x2000 };
	static const struct {
		unsigned nwatch, entries;
		const uint64_t *starts;
		size_t nfunc;
		int want;
		const char *says;
	} cases[] = {
		{ 0, 4, ok, 2, -EINVAL, "need 1 to 16777216 watches" },
		{ 1, 0, ok, 2, -EINVAL, "at least 1 entry" },
		{ (1u << 24) + 1, 1, ok, 2, -EINVAL, "need 1 to 16777216 watches" },
		{ 2, 0x80000000u, ok, 2, -EINVAL, "more than 4294967295 entries in all" },
		{ 1, 4, NULL, 2, -EINVAL, "no function table" },
		{ 1, 4, down, 3, -EINVAL, "function start 1 (0x1000) is below the one before it" },
		/* The kernel's refusal: a hash map of 2^31 buckets
		 * (kernel/bpf/hashtab.c htab_map_alloc(): E2BIG past
		 * U32_MAX / sizeof(struct bucket)), before any allocation. */
		{ 1, 0x80000000u, ok, 2, -E2BIG,
		  "cannot load the BPF program: map 'hwbp_counts': failed to create" },
	};
	int before = loaded();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hwbpi_bpf *b = (struct hwbpi_bpf *)&err;
		int ret;

		err[0] = 0;
		ret = hwbpi_bpf_open(&b, cases[i].nwatch, cases[i].entries, cases[i].starts,
				     cases[i].nfunc, 0, err, sizeof(err));
		if (ret != cases[i].want)
			fail_msg("case %zu: %d, want %d (%s)", i, ret, cases[i].want, err);
		assert_null(b);
		if (!strstr(err, cases[i].says) || !strstr(err, hwbp_errno_name(ret)))
			fail_msg("case %zu: \"%s\" does not say \"%s\" (%s)", i, err, cases[i].says,
			    hwbp_errno_name(ret));
		assert_null(strchr(err, '\n'));
		assert_int_equal(loaded(), before);
	}
	assert_int_equal(hwbpi_bpf_open(NULL, 1, 1, ok, 2, 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "EINVAL"));
}

/* As a user without capabilities (uid 65534 after setresuid(): the
 * capabilities go with uid 0, man 7 capabilities), the load is refused
 * with EPERM whatever kernel.unprivileged_bpf_disabled says, since a
 * perf_event program needs CAP_PERFMON (kernel/bpf/syscall.c
 * bpf_prog_load()); the child reports its result in its exit status. */
static void test_open_unprivileged(void **state)
{
	static const uint64_t ok[2] = { 0x1000, 0x2000 };
	int before = loaded(), fds[2], st;
	pid_t pid;
	char line[512] = { 0 };
	ssize_t r;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct hwbpi_bpf *b = NULL;
		int ret;

		close(fds[0]);
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		ret = hwbpi_bpf_open(&b, 1, 4, ok, 2, 0, err, sizeof(err));
		if (write(fds[1], err, strlen(err)) < 0)
			_exit(3);
		_exit(ret == -EPERM && b == NULL ? 0 : 1);
	}
	close(fds[1]);
	r = read(fds[0], line, sizeof(line) - 1);
	close(fds[0]);
	assert_true(r > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) != 0)
		fail_msg("unprivileged open: exit %d: %s", WEXITSTATUS(st), line);
	assert_string_equal(line, "bpf: the kernel refused to load the BPF program: it needs "
	    "CAP_BPF and CAP_PERFMON, or root (EPERM)");
	assert_int_equal(loaded(), before);
}

/*
 * One watch, W, one event: write_a's N1 writes in its entry, write_b's N2
 * in its own, with @entries per watch: 2 or more hold both; 1 holds
 * write_a's (the child calls it first) and write_b's go to the overrun.
 * The event's own count is every hit: N1 + N2.
 */
static void run_one_watch(unsigned entries)
{
	enum { N1 = 1000, N2 = 2500 };
	const struct plan p = { N1, N2, &var1, &var1 };
	uint64_t starts[3], overrun[1] = { 99 }, lost = 99;
	struct hwbpi_bpf *b;
	struct got g = { .n = 0 };
	uint32_t ia = 0, ib = 0;
	int before = loaded(), go, fd;
	pid_t pid;

	make_starts(starts, &ia, &ib);
	if (hwbpi_bpf_open(&b, 1, entries, starts, 3, hwbpi_linux_trap_ip_adjust, err,
			   sizeof(err)))
		fail_msg("open: %s", err);
	assert_int_equal(loaded(), before + 1);
	pid = child(&p, &go);
	fd = bp_event(pid, &var1, 1);
	if (hwbpi_bpf_attach(b, fd, 0, HWBP_W, err, sizeof(err)))
		fail_msg("attach: %s", err);
	go_and_reap(pid, go);
	assert_int_equal(event_count(fd), N1 + N2);
	assert_int_equal(hwbpi_bpf_read(b, collect, &g, overrun, &lost), 0);
	assert_int_equal(lost, 0);
	if (entries >= 2) {
		const struct entry want[] = { { 0, HWBP_W, ia, N1 }, { 0, HWBP_W, ib, N2 } };

		expect_entries(&g, want, 2);
		assert_int_equal(overrun[0], 0);
	} else {
		const struct entry want[] = { { 0, HWBP_W, ia, N1 } };

		expect_entries(&g, want, 1);
		assert_int_equal(overrun[0], N2);
	}
	close(fd);
	hwbpi_bpf_close(b);
	assert_int_equal(loaded(), before);
}

static void test_count_two_functions(void **state)
{
	(void)state;
	run_one_watch(4);
	run_one_watch(2);
}

static void test_overrun(void **state)
{
	(void)state;
	run_one_watch(1);
}

/*
 * A kernel-sized table: 200,000 starts (Debian's amd64 kernel has some
 * 150,000 text symbols), the three of make_starts() among starts 16 bytes
 * apart below them and above them (past the last one's body).  The
 * verifier accepts the search (its bounds unknown to it: see
 * hist.bpf.c), and the counts land on the same two functions, at their
 * indexes in the big table.
 */
static void test_large_table(void **state)
{
	enum { NFUNC = 200000, BELOW = 120000, N1 = 400, N2 = 600 };
	const struct plan p = { N1, N2, &var1, &var1 };
	uint64_t three[3], *starts, overrun[1], lost;
	struct hwbpi_bpf *b;
	struct got g = { .n = 0 };
	uint32_t ia = 0, ib = 0;
	int before = loaded(), go, fd;
	pid_t pid;

	(void)state;
	make_starts(three, &ia, &ib);
	starts = malloc(NFUNC * sizeof(*starts));
	assert_non_null(starts);
	for (uint32_t i = 0; i < BELOW; i++)
		starts[i] = three[0] - 16 * (uint64_t)(BELOW - i);
	for (uint32_t i = 0; i < 3; i++)
		starts[BELOW + i] = three[i];
	for (uint32_t i = BELOW + 3; i < NFUNC; i++)
		starts[i] = three[2] + 0x10000 + 16 * (uint64_t)i;
	if (hwbpi_bpf_open(&b, 1, 4, starts, NFUNC, hwbpi_linux_trap_ip_adjust, err, sizeof(err)))
		fail_msg("open: %s", err);
	free(starts);
	pid = child(&p, &go);
	fd = bp_event(pid, &var1, 1);
	if (hwbpi_bpf_attach(b, fd, 0, HWBP_W, err, sizeof(err)))
		fail_msg("attach: %s", err);
	go_and_reap(pid, go);
	assert_int_equal(event_count(fd), N1 + N2);
	assert_int_equal(hwbpi_bpf_read(b, collect, &g, overrun, &lost), 0);
	{
		const struct entry want[] = { { 0, HWBP_W, BELOW + ia, N1 },
					      { 0, HWBP_W, BELOW + ib, N2 } };

		expect_entries(&g, want, 2);
	}
	assert_int_equal(overrun[0], 0);
	assert_int_equal(lost, 0);
	close(fd);
	hwbpi_bpf_close(b);
	assert_int_equal(loaded(), before);
}

/*
 * IPs that no start covers count as HWBPI_BPF_UNKNOWN: a table whose
 * only start is above both writers, an adjust above every user IP (the
 * subtraction would wrap), and no table at all.
 */
static void test_unknown(void **state)
{
	enum { N1 = 300, N2 = 200 };
	const struct plan p = { N1, N2, &var1, &var1 };
	uint64_t above = (fn_addr(write_a) > fn_addr(write_b) ? fn_addr(write_a) :
			  fn_addr(write_b)) + 0x100000;
	const struct {
		const uint64_t *starts;
		size_t nfunc;
		uint64_t adjust;
	} cases[] = {
		{ &above, 1, hwbpi_linux_trap_ip_adjust },
		{ &above, 1, UINT64_MAX },
		{ NULL, 0, hwbpi_linux_trap_ip_adjust },
	};
	int before = loaded();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct entry want[] = { { 0, 0, HWBPI_BPF_UNKNOWN, N1 + N2 } };
		struct got g = { .n = 0 };
		uint64_t overrun[1], lost;
		struct hwbpi_bpf *b;
		int go, fd;
		pid_t pid;

		if (hwbpi_bpf_open(&b, 1, 2, cases[i].starts, cases[i].nfunc, cases[i].adjust, err,
				   sizeof(err)))
			fail_msg("case %zu: open: %s", i, err);
		pid = child(&p, &go);
		fd = bp_event(pid, &var1, 1);
		if (hwbpi_bpf_attach(b, fd, 0, 0, err, sizeof(err)))
			fail_msg("case %zu: attach: %s", i, err);
		go_and_reap(pid, go);
		assert_int_equal(event_count(fd), N1 + N2);
		assert_int_equal(hwbpi_bpf_read(b, collect, &g, overrun, &lost), 0);
		expect_entries(&g, want, 1);
		assert_int_equal(overrun[0], 0);
		assert_int_equal(lost, 0);
		close(fd);
		hwbpi_bpf_close(b);
		assert_int_equal(loaded(), before);
	}
}

/*
 * Two watches, two events on two variables: write_a writes var1 (watch 0,
 * tag W), write_b var2 (watch 1, tag 0 as for an RW event): the cookies
 * keep the counts apart, and each watch has its own share of entries.
 * The first event is closed before the trace: the link holds it.
 */
static void test_two_watches(void **state)
{
	enum { N1 = 700, N2 = 900 };
	const struct plan p = { N1, N2, &var1, &var2 };
	uint64_t starts[3], overrun[2] = { 99, 99 }, lost = 99;
	struct hwbpi_bpf *b;
	struct got g = { .n = 0 };
	uint32_t ia = 0, ib = 0;
	int before = loaded(), go, fd1, fd2;
	pid_t pid;

	(void)state;
	make_starts(starts, &ia, &ib);
	if (hwbpi_bpf_open(&b, 2, 1, starts, 3, hwbpi_linux_trap_ip_adjust, err, sizeof(err)))
		fail_msg("open: %s", err);
	pid = child(&p, &go);
	fd1 = bp_event(pid, &var1, 1);
	fd2 = bp_event(pid, &var2, 1);
	if (hwbpi_bpf_attach(b, fd1, 0, HWBP_W, err, sizeof(err)) ||
	    hwbpi_bpf_attach(b, fd2, 1, 0, err, sizeof(err)))
		fail_msg("attach: %s", err);
	/* One copy of the program per (watch, tag). */
	assert_int_equal(loaded(), before + 2);
	go_and_reap(pid, go);
	assert_int_equal(event_count(fd1), N1);
	assert_int_equal(event_count(fd2), N2);
	assert_int_equal(hwbpi_bpf_read(b, collect, &g, overrun, &lost), 0);
	{
		const struct entry want[] = { { 0, HWBP_W, ia, N1 }, { 1, 0, ib, N2 } };

		expect_entries(&g, want, 2);
	}
	assert_int_equal(overrun[0], 0);
	assert_int_equal(overrun[1], 0);
	assert_int_equal(lost, 0);
	close(fd1);
	close(fd2);
	hwbpi_bpf_close(b);
	assert_int_equal(loaded(), before);
}

/* The threads of the inherited test's child: write_a() each. */
static void *thread_a(void *arg)
{
	const struct plan *p = arg;

	write_a(p->va, p->na);
	return NULL;
}

/*
 * Events inherited by threads created after the attach (attr.inherit, as
 * for a traced process's later threads): the kernel gives them the
 * program but not the link's cookie, so the hits must still count under
 * the attached watch (1 here, so that cookie 0 would be wrong) and tag.
 * The child starts THREADS threads that each write var1 N1 times from
 * write_a, joins them, then writes it N2 times from write_b.  An
 * inherited event's count joins its parent's when the thread exits
 * (kernel/events/core.c perf_event_exit_task()), so read() sees them all.
 */
static void test_inherited(void **state)
{
	enum { THREADS = 4, N1 = 500, N2 = 300 };
	static const struct plan p = { N1, N2, &var1, &var1 };
	struct perf_event_attr a;
	uint64_t starts[3], overrun[2], lost;
	struct hwbpi_bpf *b;
	struct got g = { .n = 0 };
	uint32_t ia = 0, ib = 0;
	int before = loaded(), fds[2], fd, st;
	pid_t pid;

	(void)state;
	make_starts(starts, &ia, &ib);
	if (hwbpi_bpf_open(&b, 2, 4, starts, 3, hwbpi_linux_trap_ip_adjust, err, sizeof(err)))
		fail_msg("open: %s", err);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pthread_t t[THREADS];
		char c;

		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(1);
		for (int i = 0; i < THREADS; i++)
			if (pthread_create(&t[i], NULL, thread_a, (void *)&p))
				_exit(2);
		for (int i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
		n_arg = N2;
		write_b(&var1, n_arg);
		_exit(0);
	}
	close(fds[0]);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)&var1;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_period = 1;
	a.inherit = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
	if (fd < 0)
		fail_msg("perf_event_open: %s", strerror(errno));
	if (hwbpi_bpf_attach(b, fd, 1, HWBP_W, err, sizeof(err)))
		fail_msg("attach: %s", err);
	assert_int_equal(write(fds[1], "g", 1), 1);
	close(fds[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(event_count(fd), THREADS * N1 + N2);
	assert_int_equal(hwbpi_bpf_read(b, collect, &g, overrun, &lost), 0);
	{
		const struct entry want[] = { { 1, HWBP_W, ia, THREADS * N1 },
					      { 1, HWBP_W, ib, N2 } };

		expect_entries(&g, want, 2);
	}
	assert_int_equal(overrun[0], 0);
	assert_int_equal(overrun[1], 0);
	assert_int_equal(lost, 0);
	close(fd);
	hwbpi_bpf_close(b);
	assert_int_equal(loaded(), before);
}

/* Attach refusals: ours (watch, tag), the kernel's (a closed fd, an event
 * with a program already); the attachments made stay and count. */
static void test_attach_refused(void **state)
{
	uint64_t starts[3];
	struct hwbpi_bpf *b;
	uint32_t ia = 0, ib = 0;
	int before = loaded(), fd, go, ret;
	pid_t pid;
	const struct plan p = { 10, 20, &var1, &var1 };
	struct got g = { .n = 0 };
	char want[128];

	(void)state;
	make_starts(starts, &ia, &ib);
	if (hwbpi_bpf_open(&b, 2, 4, starts, 3, hwbpi_linux_trap_ip_adjust, err, sizeof(err)))
		fail_msg("open: %s", err);
	pid = child(&p, &go);
	fd = bp_event(pid, &var1, 1);
	assert_int_equal(hwbpi_bpf_attach(b, fd, 2, HWBP_W, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bpf: cannot attach watch 2 tag 0x2: no such watch or tag (EINVAL)");
	assert_int_equal(hwbpi_bpf_attach(b, fd, 0, 0x100, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bpf: cannot attach watch 0 tag 0x100: no such watch or tag (EINVAL)");
	assert_int_equal(hwbpi_bpf_attach(NULL, fd, 0, 0, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bpf: cannot attach watch 0 tag 0x0: no program (EINVAL)");
	ret = hwbpi_bpf_attach(b, 1000, 0, 0, err, sizeof(err));
	assert_int_equal(ret, -EBADF);
	assert_string_equal(err, "bpf: attach watch 0: fd 1000 is not a perf event (EBADF)");
	/* A file that is not a perf event: the pipe to the child. */
	ret = hwbpi_bpf_attach(b, go, 0, 0, err, sizeof(err));
	assert_int_equal(ret, -EBADF);
	snprintf(want, sizeof(want), "bpf: attach watch 0: fd %d is not a perf event (EBADF)", go);
	assert_string_equal(err, want);
	assert_int_equal(hwbpi_bpf_attach(b, fd, 1, HWBP_W, err, sizeof(err)), 0);
	assert_int_equal(hwbpi_bpf_attach(b, fd, 0, HWBP_W, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, "bpf: attach watch 0: the event has a BPF program already (EEXIST)");
	go_and_reap(pid, go);
	assert_int_equal(hwbpi_bpf_read(b, collect, &g, NULL, NULL), 0);
	{
		const struct entry want[] = { { 1, HWBP_W, ia, 10 }, { 1, HWBP_W, ib, 20 } };

		expect_entries(&g, want, 2);
	}
	assert_int_equal(hwbpi_bpf_read(b, NULL, NULL, NULL, NULL), -EINVAL);
	assert_int_equal(hwbpi_bpf_read(NULL, collect, &g, NULL, NULL), -EINVAL);
	close(fd);
	hwbpi_bpf_close(b);
	hwbpi_bpf_close(NULL);
	assert_int_equal(loaded(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_tail),
		cmocka_unit_test(test_open_refused),
		cmocka_unit_test(test_open_unprivileged),
		cmocka_unit_test(test_count_two_functions),
		cmocka_unit_test(test_overrun),
		cmocka_unit_test(test_large_table),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_two_watches),
		cmocka_unit_test(test_inherited),
		cmocka_unit_test(test_attach_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
