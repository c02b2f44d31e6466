/* SPDX-License-Identifier: MIT */
/*
 * Counting breakpoint hits in the kernel (tracer/backends/perf/bpf.c with the program
 * tracer/backends/perf/bpf/hist.bpf.c), on this machine's kernel and debug registers:
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
#include <signal.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/perf/bpf.h"
#include "backends/perf/bpf_abi.h"
#include "backends/linux/glue.h"

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
	unsigned threads;         /* write_a() runs in that many threads (na writes
				     each), joined before write_b(); 0: in the child */
};

#define MAX_THREADS 4

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

/* The threads of a plan with threads: write_a() each. */
static void *thread_a(void *arg)
{
	const struct plan *p = arg;

	write_a(p->va, p->na);
	return NULL;
}

/* The child's part of @p (exit 2: a thread could not be created). */
static void run_plan(const struct plan *p) __attribute__((noreturn));
static void run_plan(const struct plan *p)
{
	pthread_t t[MAX_THREADS];

	if (p->threads) {
		for (unsigned i = 0; i < p->threads; i++)
			if (pthread_create(&t[i], NULL, thread_a, (void *)p))
				_exit(2);
		for (unsigned i = 0; i < p->threads; i++)
			pthread_join(t[i], NULL);
	} else {
		n_arg = p->na;
		write_a(p->va, n_arg);
	}
	n_arg = p->nb;
	write_b(p->vb, n_arg);
	_exit(0);
}

/* A child held on a pipe until go(); then it runs @p and exits 0. */
static pid_t child(const struct plan *p, int *go_fd)
{
	int fds[2];
	pid_t pid;

	assert_true(p->threads <= MAX_THREADS);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(1);
		run_plan(p);
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
	/* A data hit's debug exception that came without its status (DR6
	 * naming no slot: a hypervisor's departure under load, seen on this
	 * project's Firecracker hosts) is taken by Linux for INT1 and kills
	 * the child with a SIGTRAP it never raised (docs/fidelity.md, "Hosts
	 * whose debug exception loses its status"): its counts cannot be
	 * checked here, this time. */
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGTRAP) {
		printf("SKIP: the child died of a SIGTRAP it did not raise: a debug exception "
		       "without its status (this host's departure, docs/fidelity.md)\n");
		skip();
	}
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A user-only write breakpoint on @v in @pid, one hit one sample
 * (sample_period 1: the kernel runs BPF on sampling events only), with
 * @inherit also in the threads @pid creates later. */
static int bp_event(pid_t pid, volatile uint64_t *v, bool inherit)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)v;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_period = 1;
	a.inherit = inherit;
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
	uint64_t ip;      /* func HWBPI_BPF_UNKNOWN: the hit's IP (else 0); in a
			     want, the start of the writer it must lie in */
	uint64_t count;
};

/* How far past its writer's start a hit's IP may lie: up to the next of
 * the three functions' starts, at most WRITER_SPAN (write_a and write_b
 * are a few instructions, more under a sanitizer). */
#define WRITER_SPAN 256

static bool in_writer(uint64_t ip, uint64_t start)
{
	uint64_t s[3], end = start + WRITER_SPAN;
	uint32_t ia, ib;

	make_starts(s, &ia, &ib);
	for (unsigned i = 0; i < 3; i++)
		if (s[i] > start && s[i] < end)
			end = s[i];
	return ip >= start && ip <= end;   /* (<=: a trap IP after the last instruction) */
}

struct got {
	struct entry e[16];
	unsigned n;
};

static void collect(void *arg, unsigned watch, unsigned tag, uint32_t func, uint64_t ip,
		    uint64_t count)
{
	struct got *g = arg;

	assert_true(g->n < 16);
	g->e[g->n++] = (struct entry){ watch, tag, func, ip, count };
}

/* Whether map entry @e is the one @w wants: a known function's entry has
 * no IP, an unknown one's IP lies in the writer @w names. */
static bool entry_is(const struct entry *e, const struct entry *w)
{
	if (e->watch != w->watch || e->tag != w->tag || e->func != w->func)
		return false;
	return w->ip ? in_writer(e->ip, w->ip) : e->ip == 0;
}

/* @want[@n] must be exactly what the maps hold, in any order. */
static void expect_entries(const struct got *g, const struct entry *want, unsigned n)
{
	assert_int_equal(g->n, n);
	for (unsigned i = 0; i < n; i++) {
		unsigned found = 0;

		for (unsigned j = 0; j < g->n; j++)
			if (entry_is(&g->e[j], &want[i])) {
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

/* ------------------------------------------------------ counting runs */

/* Where a run's table of starts comes from. */
enum starts {
	STARTS_THREE,   /* make_starts()'s */
	STARTS_LARGE,   /* a kernel-sized table around them (large_starts()) */
	STARTS_ABOVE,   /* one start, above both writers */
	STARTS_NONE,    /* no table */
};

/* A function of an expected entry. */
enum fn { FN_A, FN_B, FN_IN_A, FN_IN_B };  /* FN_IN_*: no function, an IP in it */

/* One counting run: open with nwatch and entries, the child of plan held,
 * its events attached, released and reaped; then the events' own counts,
 * exactly the entries want, the overruns, nothing lost; nothing stays
 * loaded. */
struct count_case {
	const char *name;
	unsigned nwatch, entries;      /* hwbpi_bpf_open()'s */
	enum starts starts;
	bool wrap;                     /* an IP adjust above every user IP (the
					  subtraction would wrap), not the arch's */
	struct plan plan;
	bool inherit;                  /* the events are inherited (attr.inherit) */
	unsigned nev;
	struct {
		volatile uint64_t *var;
		unsigned watch, tag;   /* hwbpi_bpf_attach()'s */
		uint64_t count;        /* the event's own count: every hit */
	} ev[2];
	/* programs loaded after the open, after the attaches (0: not checked) */
	unsigned loaded_open, loaded_attached;
	unsigned nwant;
	struct {
		unsigned watch, tag;
		enum fn fn;
		uint64_t count;
	} want[2];
	uint64_t overrun[2];           /* per watch */
};

#define ONE_W_EVENT(n) .nev = 1, .ev = { { &var1, 0, HWBP_W, (n) } }

static const struct count_case count_cases[] = {
	/*
	 * One watch, W, one event: write_a's 1000 writes in its entry,
	 * write_b's 2500 in its own, with 4 or 2 entries per watch: both
	 * held; with 1, write_a's (the child calls it first) and write_b's
	 * go to the overrun.  The event's own count is every hit.
	 */
	{ .name = "two functions, 4 entries", .nwatch = 1, .entries = 4,
	  .starts = STARTS_THREE, .plan = { 1000, 2500, &var1, &var1, 0 },
	  ONE_W_EVENT(1000 + 2500), .loaded_open = 1,
	  .nwant = 2, .want = { { 0, HWBP_W, FN_A, 1000 }, { 0, HWBP_W, FN_B, 2500 } } },
	{ .name = "two functions, 2 entries", .nwatch = 1, .entries = 2,
	  .starts = STARTS_THREE, .plan = { 1000, 2500, &var1, &var1, 0 },
	  ONE_W_EVENT(1000 + 2500), .loaded_open = 1,
	  .nwant = 2, .want = { { 0, HWBP_W, FN_A, 1000 }, { 0, HWBP_W, FN_B, 2500 } } },
	{ .name = "overrun, 1 entry", .nwatch = 1, .entries = 1,
	  .starts = STARTS_THREE, .plan = { 1000, 2500, &var1, &var1, 0 },
	  ONE_W_EVENT(1000 + 2500), .loaded_open = 1,
	  .nwant = 1, .want = { { 0, HWBP_W, FN_A, 1000 } }, .overrun = { 2500 } },
	/* A kernel-sized table (large_starts()): the counts land on the same
	 * two functions, at their indexes in the big table. */
	{ .name = "large table", .nwatch = 1, .entries = 4,
	  .starts = STARTS_LARGE, .plan = { 400, 600, &var1, &var1, 0 },
	  ONE_W_EVENT(400 + 600),
	  .nwant = 2, .want = { { 0, HWBP_W, FN_A, 400 }, { 0, HWBP_W, FN_B, 600 } } },
	/* IPs that no start covers count as HWBPI_BPF_UNKNOWN, one entry per
	 * IP (each writer's store): a table whose only start is above both
	 * writers, an adjust above every user IP, and no table at all (the
	 * event attached with tag 0). */
	{ .name = "unknown: a start above", .nwatch = 1, .entries = 2,
	  .starts = STARTS_ABOVE, .plan = { 300, 200, &var1, &var1, 0 },
	  .nev = 1, .ev = { { &var1, 0, 0, 300 + 200 } },
	  .nwant = 2, .want = { { 0, 0, FN_IN_A, 300 }, { 0, 0, FN_IN_B, 200 } } },
	{ .name = "unknown: the adjust wraps", .nwatch = 1, .entries = 2,
	  .starts = STARTS_ABOVE, .wrap = true, .plan = { 300, 200, &var1, &var1, 0 },
	  .nev = 1, .ev = { { &var1, 0, 0, 300 + 200 } },
	  .nwant = 2, .want = { { 0, 0, FN_IN_A, 300 }, { 0, 0, FN_IN_B, 200 } } },
	{ .name = "unknown: no table", .nwatch = 1, .entries = 2,
	  .starts = STARTS_NONE, .plan = { 300, 200, &var1, &var1, 0 },
	  .nev = 1, .ev = { { &var1, 0, 0, 300 + 200 } },
	  .nwant = 2, .want = { { 0, 0, FN_IN_A, 300 }, { 0, 0, FN_IN_B, 200 } } },
	/*
	 * Two watches, two events on two variables: write_a writes var1
	 * (watch 0, tag W), write_b var2 (watch 1, tag 0 as for an RW
	 * event): the cookies keep the counts apart, and each watch has its
	 * own share of entries.  One copy of the program per (watch, tag).
	 */
	{ .name = "two watches", .nwatch = 2, .entries = 1,
	  .starts = STARTS_THREE, .plan = { 700, 900, &var1, &var2, 0 },
	  .nev = 2, .ev = { { &var1, 0, HWBP_W, 700 }, { &var2, 1, 0, 900 } },
	  .loaded_attached = 2,
	  .nwant = 2, .want = { { 0, HWBP_W, FN_A, 700 }, { 1, 0, FN_B, 900 } } },
	/*
	 * Events inherited by threads created after the attach (attr.inherit,
	 * as for a traced process's later threads): the kernel gives them the
	 * program but not the link's cookie, so the hits must still count
	 * under the attached watch (1 here, so that cookie 0 would be wrong)
	 * and tag.  The child starts 4 threads that each write var1 500 times
	 * from write_a, joins them, then writes it 300 times from write_b.
	 * An inherited event's count joins its parent's when the thread exits
	 * (kernel/events/core.c perf_event_exit_task()), so read() sees them
	 * all.
	 */
	{ .name = "inherited", .nwatch = 2, .entries = 4,
	  .starts = STARTS_THREE, .plan = { 500, 300, &var1, &var1, 4 }, .inherit = true,
	  .nev = 1, .ev = { { &var1, 1, HWBP_W, 4 * 500 + 300 } },
	  .nwant = 2, .want = { { 1, HWBP_W, FN_A, 4 * 500 }, { 1, HWBP_W, FN_B, 300 } } },
};

/*
 * A kernel-sized table: 200,000 starts (Debian's amd64 kernel has some
 * 150,000 text symbols), the three of make_starts() among starts 16 bytes
 * apart below them and above them (past the last one's body).  The
 * verifier accepts the search (its bounds unknown to it: see
 * hist.bpf.c).  *@below: the index of the first of the three.
 */
static uint64_t *large_starts(const uint64_t three[3], size_t *nfunc, uint32_t *below)
{
	enum { NFUNC = 200000, BELOW = 120000 };
	uint64_t *starts = malloc(NFUNC * sizeof(*starts));

	assert_non_null(starts);
	for (uint32_t i = 0; i < BELOW; i++)
		starts[i] = three[0] - 16 * (uint64_t)(BELOW - i);
	for (uint32_t i = 0; i < 3; i++)
		starts[BELOW + i] = three[i];
	for (uint32_t i = BELOW + 3; i < NFUNC; i++)
		starts[i] = three[2] + 0x10000 + 16 * (uint64_t)i;
	*nfunc = NFUNC;
	*below = BELOW;
	return starts;
}

/* A run's table of starts and write_a's and write_b's indexes in it. */
struct starts_of {
	uint64_t three[3], above;
	uint64_t *large;            /* STARTS_LARGE's, to free */
	const uint64_t *starts;
	size_t nfunc;
	uint32_t ia, ib;
};

static void build_starts(enum starts how, struct starts_of *s)
{
	uint32_t below = 0;

	make_starts(s->three, &s->ia, &s->ib);
	s->large = NULL;
	s->starts = s->three;
	s->nfunc = 3;
	if (how == STARTS_LARGE) {
		s->starts = s->large = large_starts(s->three, &s->nfunc, &below);
		s->ia += below;
		s->ib += below;
	} else if (how == STARTS_ABOVE) {
		s->above = (fn_addr(write_a) > fn_addr(write_b) ? fn_addr(write_a) :
			    fn_addr(write_b)) + 0x100000;
		s->starts = &s->above;
		s->nfunc = 1;
	} else if (how == STARTS_NONE) {
		s->starts = NULL;
		s->nfunc = 0;
	}
}

/* The maps must hold exactly @c's entries. */
static void expect_case(const struct count_case *c, const struct starts_of *s,
			const struct got *g)
{
	struct entry want[2];

	for (unsigned i = 0; i < c->nwant; i++) {
		enum fn fn = c->want[i].fn;

		want[i] = (struct entry){ c->want[i].watch, c->want[i].tag,
					  fn == FN_A ? s->ia : fn == FN_B ? s->ib : HWBPI_BPF_UNKNOWN,
					  fn == FN_IN_A ? fn_addr(write_a) :
					  fn == FN_IN_B ? fn_addr(write_b) : 0,
					  c->want[i].count };
	}
	expect_entries(g, want, c->nwant);
}

static void run_count(const struct count_case *c)
{
	uint64_t overrun[2] = { 99, 99 }, lost = 99;
	struct starts_of st;
	struct hwbpi_bpf *b;
	struct got g = { .n = 0 };
	int before = loaded(), go, fd[2];
	pid_t pid;

	build_starts(c->starts, &st);
	if (hwbpi_bpf_open(&b, c->nwatch, c->entries, st.starts, st.nfunc,
			   c->wrap ? UINT64_MAX : hwbpi_linux_trap_ip_adjust, err, sizeof(err)))
		fail_msg("%s: open: %s", c->name, err);
	free(st.large);
	if (c->loaded_open)
		assert_int_equal(loaded(), before + (int)c->loaded_open);
	pid = child(&c->plan, &go);
	for (unsigned i = 0; i < c->nev; i++)
		fd[i] = bp_event(pid, c->ev[i].var, c->inherit);
	for (unsigned i = 0; i < c->nev; i++)
		if (hwbpi_bpf_attach(b, fd[i], c->ev[i].watch, c->ev[i].tag, err, sizeof(err)))
			fail_msg("%s: attach: %s", c->name, err);
	if (c->loaded_attached)
		assert_int_equal(loaded(), before + (int)c->loaded_attached);
	go_and_reap(pid, go);
	for (unsigned i = 0; i < c->nev; i++)
		assert_int_equal(event_count(fd[i]), c->ev[i].count);
	assert_int_equal(hwbpi_bpf_read(b, collect, &g, overrun, &lost), 0);
	assert_int_equal(lost, 0);
	expect_case(c, &st, &g);
	for (unsigned w = 0; w < c->nwatch; w++)
		assert_int_equal(overrun[w], c->overrun[w]);
	for (unsigned i = 0; i < c->nev; i++)
		close(fd[i]);
	hwbpi_bpf_close(b);
	assert_int_equal(loaded(), before);
}

static void test_counts(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(count_cases) / sizeof(count_cases[0]); i++) {
		print_message("counts: %s\n", count_cases[i].name);
		run_count(&count_cases[i]);
	}
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
	const struct plan p = { 10, 20, &var1, &var1, 0 };
	struct got g = { .n = 0 };
	char want[128];

	(void)state;
	make_starts(starts, &ia, &ib);
	if (hwbpi_bpf_open(&b, 2, 4, starts, 3, hwbpi_linux_trap_ip_adjust, err, sizeof(err)))
		fail_msg("open: %s", err);
	pid = child(&p, &go);
	fd = bp_event(pid, &var1, false);
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
		const struct entry want[] = { { 1, HWBP_W, ia, 0, 10 }, { 1, HWBP_W, ib, 0, 20 } };

		expect_entries(&g, want, 2);
	}
	assert_int_equal(hwbpi_bpf_read(b, NULL, NULL, NULL, NULL), -EINVAL);
	assert_int_equal(hwbpi_bpf_read(NULL, collect, &g, NULL, NULL), -EINVAL);
	close(fd);
	hwbpi_bpf_close(b);
	hwbpi_bpf_close(NULL);
	assert_int_equal(loaded(), before);
}

/* ---------------------------------------------------------- values mode */

/* A perf event on CPU 0: a kernel-only RW breakpoint on @v for this
 * thread (sampling every hit), or the BPF output event (pid -1). */
static int values_event(bool output, volatile uint64_t *v)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sample_period = 1;
	a.wakeup_events = 1;
	if (output) {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_BPF_OUTPUT;
		a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_RAW;
		return (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, 0);
	}
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_RW;
	a.bp_addr = (uintptr_t)v;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
	a.exclude_user = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, 0, -1, 0);
}

/*
 * The values program on a breakpoint, through perf as the kernel tracer
 * sets it up: the CPU's output event writing into the breakpoint's ring.
 * CALLS write(2)s of var1 into a pipe by this thread on CPU 0: the
 * kernel's copy_from_user() reads it, kernel-mode hits of an RW
 * breakpoint of this thread's (no other thread's hits count).  The ring
 * must hold pairs, each the program's record then the hit's sample of
 * the same IP, as many as the event counted; var1 is user memory, which bpf_probe_read_kernel()
 * refuses (mm/maccess.c copy_from_kernel_nofault()), so no record has a
 * value: the kernel tracer's watches are kernel memory, whose values
 * tests/trace/kernel_test.sh checks in the guests.  Only where a trap
 * follows the access (hwbpi_linux_step_over false): on the others the
 * kernel tracer does not load values mode.
 */
static void test_values(void **state)
{
	enum { CALLS = 10, PAGES = 8 };
	uint64_t addr = (uintptr_t)&var1, id_bp = 0, id_out = 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned len = 8, recs = 0, samples = 0;
	int pipe_fd[2];
	struct perf_event_mmap_page *mp;
	struct hwbpi_bpf *b;
	cpu_set_t one, was;
	int bp, out, before = loaded();
	unsigned char *data;
	uint64_t tail, head, last_ip = 0;

	(void)state;
	if (hwbpi_linux_step_over) {
		print_message("values mode: not on this arch (its breakpoints stop before the "
			      "access; the kernel tracer does not load it)\n");
		return;
	}
	assert_int_equal(pipe(pipe_fd), 0);
	assert_int_equal(hwbpi_bpf_open_values(NULL, 1, &addr, &len, 1, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbpi_bpf_open_values(&b, 0, &addr, &len, 1, err, sizeof(err)), -EINVAL);
	assert_null(b);
	assert_int_equal(hwbpi_bpf_open_values(&b, 1, &addr, &len, 0, err, sizeof(err)), -EINVAL);
	if (hwbpi_bpf_open_values(&b, 1, &addr, &len, 1, err, sizeof(err)))
		fail_msg("open_values: %s", err);
	assert_int_equal(loaded(), before + 1);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	assert_int_equal(sched_getaffinity(0, sizeof(was), &was), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	bp = values_event(false, &var1);
	out = values_event(true, NULL);
	if (bp < 0 || out < 0)
		fail_msg("perf_event_open: %s", strerror(errno));
	assert_int_equal(ioctl(bp, PERF_EVENT_IOC_ID, &id_bp), 0);
	assert_int_equal(ioctl(out, PERF_EVENT_IOC_ID, &id_out), 0);
	mp = mmap(NULL, (PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, bp, 0);
	assert_true(mp != MAP_FAILED);
	assert_int_equal(ioctl(out, PERF_EVENT_IOC_SET_OUTPUT, bp), 0);
	assert_int_equal(hwbpi_bpf_set_output(b, 1, out, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbpi_bpf_set_output(NULL, 0, out, err, sizeof(err)), -EINVAL);
	if (hwbpi_bpf_set_output(b, 0, out, err, sizeof(err)) ||
	    hwbpi_bpf_attach(b, bp, 0, 0, err, sizeof(err)))
		fail_msg("values: %s", err);
	for (int i = 0; i < CALLS; i++)
		assert_int_equal(write(pipe_fd[1], (const void *)&var1, 8), 8);
	assert_int_equal(sched_setaffinity(0, sizeof(was), &was), 0);
	/* The ring, in order: (record, sample) CALLS times. */
	data = (unsigned char *)mp + mp->data_offset;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	for (tail = mp->data_tail; tail < head;) {
		struct perf_event_header h;
		uint64_t f[2];

		/* (PAGES pages hold far more than CALLS pairs: no wrap) */
		memcpy(&h, data + tail, sizeof(h));
		memcpy(f, data + tail + sizeof(h), sizeof(f));
		if (h.type == PERF_RECORD_SAMPLE && f[0] == id_out) {
			struct hwbpi_bpf_rec r;
			uint32_t size;

			assert_int_equal(recs, samples);
			memcpy(&size, data + tail + sizeof(h) + 8, sizeof(size));
			assert_true(size >= sizeof(r));
			memcpy(&r, data + tail + sizeof(h) + 12, sizeof(r));
			assert_int_equal(r.watch, 0);
			assert_int_equal(r.flags, 0);
			assert_true(r.ip != 0);
			last_ip = r.ip;
			recs++;
		} else if (h.type == PERF_RECORD_SAMPLE && f[0] == id_bp) {
			assert_int_equal(samples + 1, recs);
			assert_int_equal(f[1], last_ip);
			samples++;
		} else {
			fail_msg("ring: a record of type %u", h.type);
		}
		tail += h.size;
	}
	/* One hit per access of the copy: per write(2), one for an 8-byte
	 * load, eight for a "rep movsb" (a trap after each iteration that
	 * touched the bytes, Intel SDM Vol. 3B 17.3.1.2): a whole number of
	 * hits per write, each with its record, and no hit without. */
	print_message("values: %u hits for %d writes of the 8 watched bytes\n", samples, CALLS);
	assert_true(samples >= CALLS && samples % CALLS == 0);
	assert_int_equal(recs, samples);
	assert_int_equal(event_count(bp), samples);
	munmap(mp, (PAGES + 1) * page);
	close(pipe_fd[0]);
	close(pipe_fd[1]);
	close(out);
	close(bp);
	hwbpi_bpf_close(b);
	assert_int_equal(loaded(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_tail),
		cmocka_unit_test(test_open_refused),
		cmocka_unit_test(test_open_unprivileged),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_attach_refused),
		cmocka_unit_test(test_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
