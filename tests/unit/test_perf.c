/* SPDX-License-Identifier: MIT */
/*
 * The perf_event_open backend (tracer/backends/perf/perf.c) on this machine's own
 * hardware breakpoints (Linux x86_64, or aarch64: in the guest of
 * scripts/guest-tests): children forked inside the test run known loops,
 * so every count is exact; after fork the child has the test's
 * addresses, so its functions and variables are known here.  The counts
 * are the same on both but for a read-only watch, which x86 widens to RW
 * and arm64 has (LSC = load).
 *
 * Each child stops itself (PTRACE_TRACEME, SIGSTOP) before its loop, like
 * a child of hwbpi_child_start() after exec: hwbpi_perf_trace(started)
 * opens the events and detaches it.  When the self-test says breakpoints
 * cannot be used here (perf_event_paranoid, a VM without debug registers)
 * every test is skipped with the reason.
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/linux/glue.h"
#include "backends/perf/perf.h"
#include "backends/linux/linux.h"

#if defined(__x86_64__) || defined(__aarch64__)

/*
 * The CPU model the watches are planned for: x86_64 (4 debug registers);
 * on arm64 Cortex-A57's 6 breakpoints and 4 watchpoints, which QEMU's
 * -cpu max (the guest's) has too.  The kernel refuses more than it has.
 */
#if defined(__x86_64__)
#define CPU_MODEL "x86_64"
#else
#define CPU_MODEL "cortex-a57"
#endif

static struct hwbpi_tracer T;
static struct hwbp_cpu CPU;
static char skip_why[256];
static char err[256];

/* The watched variables: each in its own 8-byte-aligned word. */
static volatile uint64_t v64 __attribute__((aligned(64)));
static volatile uint64_t v64b __attribute__((aligned(64)));
static volatile uint8_t bytes[64] __attribute__((aligned(64)));
static volatile uint64_t five[5][8] __attribute__((aligned(64)));

static int setup(void **state)
{
	(void)state;
	assert_int_equal(hwbp_cpu_preset(CPU_MODEL, &CPU), 0);
	if (hwbpi_perf_selftest(skip_why, sizeof(skip_why)) != 0)
		fprintf(stderr, "test_perf: skipping: %s\n", skip_why);
	else
		skip_why[0] = 0;
	return 0;
}

static void need_breakpoints(void)
{
	if (skip_why[0])
		skip();
}

static void watches_clear(void)
{
	hwbpi_tracer_fini(&T);
	memset(&T, 0, sizeof(T));
}

static void watch(const char *name, const volatile void *addr, uint64_t len, unsigned type)
{
	struct hwbpi_watch *w = &T.w[T.nw++];

	snprintf(w->name, sizeof(w->name), "%s", name);
	w->addr = (uintptr_t)addr;
	w->len = len;
	w->type = type;
	w->req = -1;
}

/* Fork a child that stops itself, then runs @fn and exits; trace it. */
static int trace_child(void (*fn)(void), const struct hwbpi_perf_opts *o,
		       struct hwbpi_perf_result *res)
{
	pid_t p = fork();
	int st;

	assert_true(p >= 0);
	if (p == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(120);
		raise(SIGSTOP);
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP);
	err[0] = 0;
	return hwbpi_perf_trace(&T, &CPU, p, true, o, res, err, sizeof(err));
}

static void ok_exit(const struct hwbpi_perf_result *res)
{
	assert_true(WIFEXITED(res->wstatus));
	assert_int_equal(WEXITSTATUS(res->wstatus), 0);
}

/* ------------------------------------------------------- the children */

static __attribute__((noinline)) void write_1000(void)
{
	for (int i = 0; i < 1000; i++)
		v64 = (uint64_t)i;
}

/* 300 loads, 700 stores of v64. */
static __attribute__((noinline)) void read_300_write_700(void)
{
	uint64_t s = 0;

	for (int i = 0; i < 300; i++)
		s += v64;
	for (int i = 0; i < 700; i++)
		v64 = s + (uint64_t)i;
}

/* Byte k of bytes[] is written k+10 times for k = 0..31 (the byte, word,
 * dword and qword watches see exactly their own bytes' writes). */
static __attribute__((noinline)) void write_bytes(void)
{
	for (int k = 0; k < 32; k++)
		for (int i = 0; i < k + 10; i++)
			bytes[k] = (uint8_t)i;
}

static void *thread_250(void *arg)
{
	(void)arg;
	for (int i = 0; i < 250; i++)
		v64 = (uint64_t)i;
	return NULL;
}

/* Four threads, created after the events were opened, 250 writes each,
 * one at a time (joined in turn), so the count is exact. */
static __attribute__((noinline)) void four_threads(void)
{
	for (int k = 0; k < 4; k++) {
		pthread_t th;

		if (pthread_create(&th, NULL, thread_250, NULL) != 0)
			_exit(3);
		pthread_join(th, NULL);
	}
}

/* A program that forks: the child writes 500 times, then the parent. */
static __attribute__((noinline)) void fork_500_500(void)
{
	pid_t p = fork();

	if (p < 0)
		_exit(3);
	if (p == 0) {
		for (int i = 0; i < 500; i++)
			v64 = (uint64_t)i;
		_exit(0);
	}
	waitpid(p, NULL, 0);
	for (int i = 0; i < 500; i++)
		v64 = (uint64_t)i;
}

static __attribute__((noinline)) void write_five(void)
{
	for (int k = 0; k < 5; k++)
		five[k][0] = 1;
}

/* ---------------------------------------------------------- the tests */

static void test_selftest(void **state)
{
	(void)state;
	need_breakpoints();
	assert_int_equal(hwbpi_perf_selftest(err, sizeof(err)), 0);
	assert_true(hwbpi_kernel_ncpus() >= 1);
}

static void test_count_w(void **state)
{
	struct hwbpi_perf_opts o = { 0 };
	struct hwbpi_perf_result res;

	(void)state;
	need_breakpoints();
	watches_clear();
	watch("v64", &v64, 8, HWBP_W);
	if (trace_child(write_1000, &o, &res))
		fail_msg("%s", err);
	ok_exit(&res);
	assert_int_equal(res.pieces, 1);
	assert_int_equal(res.events, 1);
	assert_int_equal(res.count[0], 1000);
	assert_int_equal(res.samples, 0);
}

/*
 * RW, W and R on the same variable: 1000 accesses, 700 writes, and 1000
 * (x86 widens R to RW) or 300 loads (arm64 has R).  One trace per type,
 * not three overlapping breakpoints at once: QEMU TCG's x86 sets only the
 * DR6 bit of the first matching data breakpoint (cpu_check_watchpoint()
 * stops at the first match), so in the x86 guest overlapping ones would
 * count 0; real CPUs set every matching B bit.
 */
static void test_count_rw_and_w(void **state)
{
	const struct { const char *name; unsigned type; uint64_t n; } t[] = {
		{ "v64:rw", HWBP_RW, 1000 },
		{ "v64:w", HWBP_W, 700 },
		{ "v64:r", HWBP_R, hwbp_type_supported(&CPU, HWBP_R) ? 300 : 1000 },
	};
	struct hwbpi_perf_opts o = { 0 };
	struct hwbpi_perf_result res;

	(void)state;
	need_breakpoints();
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		watches_clear();
		watch(t[i].name, &v64, 8, t[i].type);
		watch("v64b", &v64b, 8, HWBP_RW);       /* untouched */
		if (trace_child(read_300_write_700, &o, &res))
			fail_msg("%s", err);
		ok_exit(&res);
		assert_int_equal(res.count[0], t[i].n);
		assert_int_equal(res.count[1], 0);
	}
	watches_clear();
}

static void test_lengths(void **state)
{
	struct hwbpi_perf_opts o = { 0 };
	struct hwbpi_perf_result res;

	(void)state;
	need_breakpoints();
	watches_clear();
	watch("bytes+3/1", &bytes[3], 1, HWBP_W);     /* 13 */
	watch("bytes+6/2", &bytes[6], 2, HWBP_W);     /* 16 + 17 */
	watch("bytes+12/4", &bytes[12], 4, HWBP_W);   /* 22 + 23 + 24 + 25 */
	watch("bytes+24/8", &bytes[24], 8, HWBP_W);   /* 34 + ... + 41 */
	if (trace_child(write_bytes, &o, &res))
		fail_msg("%s", err);
	ok_exit(&res);
	assert_int_equal(res.pieces, 4);
	assert_int_equal(res.count[0], 13);
	assert_int_equal(res.count[1], 16 + 17);
	assert_int_equal(res.count[2], 22 + 23 + 24 + 25);
	assert_int_equal(res.count[3], 34 + 35 + 36 + 37 + 38 + 39 + 40 + 41);
}

/* A 3-byte watch is planned as two pieces on x86 (2 + 1, one slot each),
 * as one on arm64 (BAS: any contiguous bytes of a doubleword). */
static void test_split_watch(void **state)
{
	struct hwbpi_perf_opts o = { 0 };
	struct hwbpi_perf_result res;

	(void)state;
	need_breakpoints();
	watches_clear();
	watch("bytes+4/3", &bytes[4], 3, HWBP_W);     /* 14 + 15 + 16 */
	if (trace_child(write_bytes, &o, &res))
		fail_msg("%s", err);
	ok_exit(&res);
	assert_int_equal(res.pieces, CPU.arch == HWBP_ARCH_ARM64 ? 1 : 2);
	assert_int_equal(res.count[0], 14 + 15 + 16);
}

static void test_threads(void **state)
{
	struct hwbpi_perf_opts o = { 0 };
	struct hwbpi_perf_result res;

	(void)state;
	need_breakpoints();
	watches_clear();
	watch("v64", &v64, 8, HWBP_W);
	if (trace_child(four_threads, &o, &res))
		fail_msg("%s", err);
	ok_exit(&res);
	assert_int_equal(res.count[0], 1000);
}

static void test_fork(void **state)
{
	struct hwbpi_perf_opts o = { 0 };
	struct hwbpi_perf_result res;

	(void)state;
	need_breakpoints();
	for (int pass = 0; pass < 2; pass++) {
		watches_clear();
		watch("v64", &v64, 8, HWBP_W);
		o.sampling = pass == 1;
		if (o.sampling)
			assert_int_equal(hwbpi_tracer_start(&T, hwbpi_kernel_ncpus(), false, 0, false), 0);
		if (trace_child(fork_500_500, &o, &res))
			fail_msg("%s", err);
		ok_exit(&res);
		assert_int_equal(res.count[0], 1000);
		if (o.sampling) {
			assert_int_equal(res.samples, 1000);
			assert_int_equal(res.lost, 0);
		}
	}
	watches_clear();
}

static void test_threads_sampling(void **state)
{
	struct hwbpi_perf_opts o = { .sampling = true };
	struct hwbpi_perf_result res;

	(void)state;
	need_breakpoints();
	watches_clear();
	watch("v64", &v64, 8, HWBP_W);
	assert_int_equal(hwbpi_tracer_start(&T, hwbpi_kernel_ncpus(), false, 0, false), 0);
	if (trace_child(four_threads, &o, &res))
		fail_msg("%s", err);
	ok_exit(&res);
	assert_int_equal(res.count[0], 1000);
	assert_int_equal(res.samples, 1000);
	assert_int_equal(res.lost, 0);
	assert_int_equal(T.hist.hits[0], 1000);
	watches_clear();
}

/* Sampling into the histogram: every sample's IP is in write_1000(). */
static void test_sampling_hist(void **state)
{
	struct hwbpi_perf_opts o = { .sampling = true, .ring_pages = 32 };
	struct hwbpi_perf_result res;
	struct hwbp_symtab *syms;
	int e;

	(void)state;
	need_breakpoints();
	watches_clear();
	syms = hwbp_symtab_new(&e);
	assert_non_null(syms);
	/* The loop is far shorter than 256 bytes; nothing else writes v64. */
	assert_int_equal(hwbp_symtab_add(syms, "write_1000", (uintptr_t)write_1000, 256, 'T'), 0);
	assert_int_equal(hwbp_symtab_finish(syms), 0);
	T.syms = syms;
	watch("v64", &v64, 8, HWBP_W);
	assert_int_equal(hwbpi_tracer_start(&T, hwbpi_kernel_ncpus(), false, 0, false), 0);
	if (trace_child(write_1000, &o, &res))
		fail_msg("%s", err);
	ok_exit(&res);
	assert_int_equal(res.count[0], 1000);
	assert_int_equal(res.samples, 1000);
	assert_int_equal(res.lost, 0);
	assert_int_equal(res.unknown, 0);
	assert_int_equal(T.hits, 1000);
	assert_int_equal(T.hist.hits[0], 1000);
	assert_int_equal(T.hist.used[0], 1);
	assert_true(T.hist.e[0].func == (uintptr_t)write_1000);
	assert_int_equal(T.hist.e[0].count, 1000);
	assert_int_equal(T.hist.e[0].kind, HWBP_W);       /* a W-only watch */
	assert_int_equal(T.hist.overrun[0], 0);
	watches_clear();
	hwbp_symtab_free(syms);
}

/* Sampling into the rings: the events themselves. */
static void test_sampling_events(void **state)
{
	struct hwbpi_perf_opts o = { .sampling = true, .ring_pages = 64, .wakeup = 1,
				     .kinds = HWBPI_KINDS_OFF };
	struct hwbpi_perf_result res;
	struct hwbp_trace_event ev[256];
	uint64_t n = 0, last_ts = 0;
	unsigned ncpus = hwbpi_kernel_ncpus();

	(void)state;
	need_breakpoints();
	watches_clear();
	watch("v64", &v64, 8, HWBP_RW);
	assert_int_equal(hwbpi_tracer_start(&T, ncpus, true, 1u << 16, false), 0);
	if (trace_child(read_300_write_700, &o, &res))
		fail_msg("%s", err);
	ok_exit(&res);
	assert_int_equal(res.count[0], 1000);
	assert_int_equal(res.samples, 1000);
	assert_int_equal(res.lost, 0);
	for (unsigned c = 0; c < ncpus; c++) {
		size_t k;

		last_ts = 0;
		while ((k = hwbp_ring_pop(T.ring[c], ev, 256)) > 0) {
			for (size_t i = 0; i < k; i++) {
				assert_true(ev[i].ip - (uintptr_t)read_300_write_700 < 512);
				assert_true(ev[i].addr == (uintptr_t)&v64);
				assert_int_equal(ev[i].cpu, c);
				assert_int_equal(ev[i].bp, 0);
				assert_int_equal(ev[i].kind, 0);         /* RW: unknown */
				assert_int_equal(ev[i].kind_how, HWBP_KIND_UNKNOWN);
				assert_true(ev[i].ts >= last_ts);
				last_ts = ev[i].ts;
			}
			n += k;
		}
	}
	assert_int_equal(n, 1000);
	watches_clear();
}

/* Sampling a read watch: arm64 has R (300 samples of the loads, kind R
 * by type); x86 widens it to RW (1000 samples, kind unknown, without kind
 * events: test_sampling_kinds has them). */
static void test_sampling_read(void **state)
{
	struct hwbpi_perf_opts o = { .sampling = true, .kinds = HWBPI_KINDS_OFF };
	struct hwbpi_perf_result res;
	bool native = hwbp_type_supported(&CPU, HWBP_R);
	uint64_t n = native ? 300 : 1000;

	(void)state;
	need_breakpoints();
	watches_clear();
	watch("v64:r", &v64, 8, HWBP_R);
	assert_int_equal(hwbpi_tracer_start(&T, hwbpi_kernel_ncpus(), false, 0, false), 0);
	if (trace_child(read_300_write_700, &o, &res))
		fail_msg("%s", err);
	ok_exit(&res);
	assert_int_equal(res.count[0], n);
	assert_int_equal(res.samples, n);
	assert_int_equal(T.hist.hits[0], n);
	/* No symbols: a hit is keyed by its IP, the load's (native R) or
	 * the load's and the store's (RW). */
	assert_int_equal(T.hist.used[0], native ? 1 : 2);
	assert_int_equal(T.hist.e[0].kind, native ? HWBP_R : 0);
	watches_clear();
}

/*
 * Kind events (--kinds auto): an RW or r-- watch of 300 loads and 700
 * stores gets exact kinds from events that see one kind (arm64, powerpc:
 * R and W events, 1000 samples; x86: the RW event and a W twin, 1700
 * samples paired into 1000 events), unless the kind self-test found that
 * this CPU cannot (QEMU's x86 TCG): then kinds stay unknown, said in
 * kinds_why.  Each row: the watch type, the events expected by kind.
 */
static void test_sampling_kinds(void **state)
{
	const struct { unsigned type; uint64_t r, w; } rows[] = {
		{ HWBP_RW, 300, 700 },
		{ HWBP_R, 300, 0 },      /* stores filtered out */
	};
	unsigned ncpus = hwbpi_kernel_ncpus();

	(void)state;
	need_breakpoints();
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct hwbpi_perf_opts o = { .sampling = true, .ring_pages = 64, .wakeup = 1,
					     .kinds = HWBPI_KINDS_AUTO };
		struct hwbpi_perf_result res;
		struct hwbp_trace_event ev[256];
		uint64_t nr = 0, nw = 0, other = 0;
		bool native_r = hwbp_type_supported(&CPU, HWBP_R);

		watches_clear();
		watch(rows[i].type == HWBP_RW ? "v64" : "v64:r", &v64, 8, rows[i].type);
		assert_int_equal(hwbpi_tracer_start(&T, ncpus, true, 1u << 16, false), 0);
		if (trace_child(read_300_write_700, &o, &res))
			fail_msg("%s", err);
		ok_exit(&res);
		assert_int_equal(res.lost, 0);
		for (unsigned c = 0; c < ncpus; c++) {
			size_t k;

			while ((k = hwbp_ring_pop(T.ring[c], ev, 256)) > 0)
				for (size_t j = 0; j < k; j++) {
					nr += ev[j].kind == HWBP_R;
					nw += ev[j].kind == HWBP_W;
					other += ev[j].kind != HWBP_R && ev[j].kind != HWBP_W;
				}
		}
		if (res.kinds_broken) {
			/* Only a twin split has a self-test to fail. */
			assert_int_equal(hwbpi_linux_kind_split, HWBPI_SPLIT_TWIN);
			assert_true(res.kinds_why[0] != '\0');
			assert_int_equal(res.split, 0);
			assert_int_equal(res.unsplit, 1);
			assert_int_equal(res.samples, 1000);
			assert_int_equal(other, 1000);
		} else if (rows[i].type == HWBP_R && native_r) {
			/* A load-only breakpoint needs no split. */
			assert_int_equal(res.split, 0);
			assert_int_equal(nr, 300);
			assert_int_equal(nw + other, 0);
		} else {
			assert_int_equal(res.split, 1);
			assert_int_equal(res.unsplit, 0);
			assert_int_equal(res.split_how[0], hwbpi_linux_kind_split);
			/* A twin sees each of the 700 stores again. */
			assert_int_equal(res.samples, hwbpi_linux_kind_split == HWBPI_SPLIT_TWIN ? 1700
										      : 1000);
			assert_int_equal(nr, rows[i].r);
			assert_int_equal(nw, rows[i].w);
			assert_int_equal(other, 0);
			assert_int_equal(res.count[0], 1000);
		}
		hwbpi_tracer_fini(&T);
	}
	watches_clear();
}

/* Byte i of bytes[] for i = 1..4 read 10 i times and written once (the
 * read-only watches of test_sampling_decoded). */
static __attribute__((noinline)) void read_four(void)
{
	uint64_t s = 0;

	for (int i = 1; i <= 4; i++) {
		for (int k = 0; k < 10 * i; k++)
			s += bytes[8 * i];
		bytes[8 * i] = (uint8_t)s;
	}
}

/*
 * Each sample's access decoded from its trap frame and its function's
 * code (x86): four read-only watches in four debug registers, each
 * counting exactly its reads, with no twin (there is no register left
 * for one), the stores filtered.  Without the decoder only two of them
 * could have twins.
 */
static void test_sampling_decoded(void **state)
{
	struct hwbpi_perf_opts o = { .sampling = true, .ring_pages = 64, .wakeup = 1,
				     .kinds = HWBPI_KINDS_AUTO, .decode = true };
	struct hwbpi_perf_result res;
	struct hwbp_trace_event ev[256];
	unsigned ncpus = hwbpi_kernel_ncpus();
	uint64_t nr[4] = { 0 }, other = 0;
	struct hwbp_symtab *syms;
	int ret;
	char name[16];

	(void)state;
	need_breakpoints();
	if (!hwbpi_insn_arch(CPU.arch) || !hwbpi_insn_available()) {
		snprintf(skip_why, sizeof(skip_why), "no decoder for this CPU's hits (arm64 and "
			 "powerpc report them; a build without Capstone)");
		printf("SKIP: %s\n", skip_why);
		skip();
	}
	syms = hwbp_symtab_new(&ret);
	assert_non_null(syms);
	assert_true(hwbpi_proc_load_symbols(syms, getpid(), NULL) > 0);
	assert_int_equal(hwbp_symtab_finish(syms), 0);
	o.syms = syms;
	watches_clear();
	for (int i = 1; i <= 4; i++) {
		snprintf(name, sizeof(name), "b%d:r", i);
		watch(name, &bytes[8 * i], 1, HWBP_R);
	}
	assert_int_equal(hwbpi_tracer_start(&T, ncpus, true, 1u << 16, false), 0);
	if (trace_child(read_four, &o, &res))
		fail_msg("%s", err);
	ok_exit(&res);
	assert_int_equal(res.lost, 0);
	for (unsigned c = 0; c < ncpus; c++) {
		size_t k;

		while ((k = hwbp_ring_pop(T.ring[c], ev, 256)) > 0)
			for (size_t j = 0; j < k; j++) {
				if (ev[j].kind == HWBP_R && ev[j].kind_how == HWBP_KIND_INSN &&
				    ev[j].bp < 4)
					nr[ev[j].bp]++;
				else
					other++;
			}
	}
	assert_int_equal(res.split, 0);
	assert_int_equal(res.undecoded, 0);
	/* Every hit decoded: 100 reads, and the 4 stores (RW on x86). */
	assert_int_equal(res.decoded, 104);
	for (unsigned w = 0; w < 4; w++)
		if (nr[w] != 10 * (w + 1))
			fail_msg("b%u: %llu decoded reads, want %u", w + 1, (unsigned long long)nr[w],
				 10 * (w + 1));
	assert_int_equal(other, 0);
	assert_int_equal(T.filtered, 4);
	printf("perf, decoded: 4 read-only watches in 4 registers, 100 reads exact, 4 stores "
	       "filtered, no twin\n");
	hwbpi_tracer_fini(&T);
	watches_clear();
	hwbp_symtab_free(syms);
}

/* A one-page ring loses samples when it is not drained in time: counted,
 * so that samples + lost is the count, exactly.  Drained while the child
 * runs, the loss depends on scheduling; drained only at the end, a page
 * (per CPU) holds at most 4096 / 56 samples. */
static void test_sampling_lost(void **state)
{
	struct hwbpi_perf_opts o = { .sampling = true, .ring_pages = 1, .wakeup = 100000 };
	struct hwbpi_perf_result res;

	(void)state;
	need_breakpoints();
	for (int pass = 0; pass < 2; pass++) {
		watches_clear();
		watch("v64", &v64, 8, HWBP_W);
		assert_int_equal(hwbpi_tracer_start(&T, hwbpi_kernel_ncpus(), false, 0, false), 0);
		o.drain_at_end = pass == 1;
		if (trace_child(write_1000, &o, &res))
			fail_msg("%s", err);
		ok_exit(&res);
		assert_int_equal(res.count[0], 1000);
		assert_int_equal(res.samples + res.lost, 1000);
		assert_int_equal(T.hist.hits[0], res.samples);
		if (pass == 1) {
			/* one ring per CPU: the child may move */
			uint64_t most = (uint64_t)hwbpi_kernel_ncpus() * (4096 / 56);

			assert_true(res.samples <= most);
			assert_true(res.lost >= 1000 - most);
		}
	}
	watches_clear();
}

static void test_fifth_watch(void **state)
{
	struct hwbpi_perf_opts o = { 0 };
	struct hwbpi_perf_result res;
	char name[16];

	(void)state;
	need_breakpoints();
	watches_clear();
	for (int k = 0; k < 4; k++) {
		snprintf(name, sizeof(name), "five%d", k);
		watch(name, &five[k][0], 8, HWBP_W);
	}
	if (trace_child(write_five, &o, &res))
		fail_msg("%s", err);
	for (int k = 0; k < 4; k++)
		assert_int_equal(res.count[k], 1);
	watch("five4", &five[4][0], 8, HWBP_W);
	assert_int_equal(trace_child(write_five, &o, &res), -ENOSPC);
	assert_non_null(strstr(err, "five4: no free debug register"));
	assert_non_null(strstr(err, "ENOSPC"));
	/* The child was killed and reaped. */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

/* Attach to a running process (-p): its two threads exist already and
 * wait for a flag, which a thread of ours sets once the events are open
 * (seen as perf_event fds in /proc/self/fd). */
static volatile int *go_flag;

static void *attach_worker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(go_flag, __ATOMIC_ACQUIRE))
		usleep(1000);
	/* Both threads write v64 at once: relaxed atomic stores (one plain
	 * store each on x86_64 and arm64, so one hit each), not a data race
	 * for TSan. */
	for (int i = 0; i < 500; i++)
		__atomic_store_n(&v64, (uint64_t)i, __ATOMIC_RELAXED);
	return NULL;
}

static unsigned perf_fds(void)
{
	char path[64], link[64];
	unsigned n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		ssize_t k;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		k = readlink(path, link, sizeof(link) - 1);
		if (k > 0) {
			link[k] = 0;
			n += strstr(link, "perf_event") != NULL;
		}
	}
	return n;
}

static void *releaser(void *arg)
{
	unsigned want = *(unsigned *)arg;

	for (int i = 0; i < 10000 && perf_fds() < want; i++)
		usleep(1000);
	__atomic_store_n(go_flag, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Threads of @pid. */
static unsigned task_count(pid_t pid)
{
	char path[64], line[64];
	unsigned n = 0;
	FILE *f;

	/* "Threads:" of /proc/PID/status (man 5 proc_pid_status). */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %u", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void test_attach(void **state)
{
	struct hwbpi_perf_opts o = { 0 };
	struct hwbpi_perf_result res;
	/* One event per thread (one piece): main and two workers, and the
	 * sanitizer's own thread when there is one (TSan's background
	 * thread): counted once the workers exist. */
	unsigned want;
	int ready[2], st;
	pthread_t rel;
	char c;
	pid_t p;

	(void)state;
	need_breakpoints();
	watches_clear();
	watch("v64", &v64, 8, HWBP_W);
	go_flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(go_flag != MAP_FAILED);
	*go_flag = 0;
	assert_int_equal(pipe(ready), 0);
	p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		pthread_t th[2];

		for (int k = 0; k < 2; k++)
			if (pthread_create(&th[k], NULL, attach_worker, NULL) != 0)
				_exit(3);
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		for (int k = 0; k < 2; k++)
			pthread_join(th[k], NULL);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	close(ready[1]);
	want = task_count(p);
	assert_true(want >= 3);
	assert_int_equal(pthread_create(&rel, NULL, releaser, &want), 0);
	if (hwbpi_perf_run(&T, &CPU, NULL, p, &o, &res, err, sizeof(err)))
		fail_msg("%s", err);
	pthread_join(rel, NULL);
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(res.events, want);
	assert_int_equal(res.count[0], 1000);
	assert_int_equal(res.wstatus, 0);     /* not our child to wait for */
	munmap((void *)go_flag, 4096);
}

/* The load address of this test's executable in @pid (0: self). */
static uint64_t exe_base(pid_t pid)
{
	char path[64], exe[512], line[1024];
	uint64_t base = 0;
	ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;

	assert_true(k > 0);
	exe[k] = 0;
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, off;
		char *name = strchr(line, '/');

		if (!name || sscanf(line, "%lx-%*x %*s %lx", &lo, &off) != 2)
			continue;
		name[strcspn(name, "\n")] = 0;
		if (strcmp(name, exe) == 0 && off == 0) {
			base = lo;
			break;
		}
	}
	fclose(f);
	assert_true(base != 0);
	return base;
}

/*
 * A real command: this test program run again with --perf-child (it then
 * runs write_1000() and exits).  hwbpi_child_start() stops it after exec;
 * its load address (PIE: not ours) from /proc/PID/maps moves the watch and
 * the function, as the CLI does with a program's symbols.
 */
static void test_exec_pie(void **state)
{
	char exe[512];
	char *argv[] = { exe, "--perf-child", NULL };
	struct hwbpi_perf_opts o = { .sampling = true };
	struct hwbpi_perf_result res;
	struct hwbp_symtab *syms;
	uint64_t bias;
	ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	pid_t p;
	int e;

	(void)state;
	need_breakpoints();
	assert_true(k > 0);
	exe[k] = 0;
	if (hwbpi_child_start(argv, &p, err, sizeof(err)))
		fail_msg("%s", err);
	bias = exe_base(p) - exe_base(0);
	watches_clear();
	syms = hwbp_symtab_new(&e);
	assert_non_null(syms);
	assert_int_equal(hwbp_symtab_add(syms, "write_1000", (uintptr_t)write_1000 + bias, 256, 'T'), 0);
	assert_int_equal(hwbp_symtab_finish(syms), 0);
	T.syms = syms;
	watch("v64", (const volatile void *)((uintptr_t)&v64 + bias), 8, HWBP_W);
	assert_int_equal(hwbpi_tracer_start(&T, hwbpi_kernel_ncpus(), false, 0, false), 0);
	if (hwbpi_perf_trace(&T, &CPU, p, true, &o, &res, err, sizeof(err)))
		fail_msg("%s", err);
	ok_exit(&res);
	assert_int_equal(res.count[0], 1000);
	assert_int_equal(res.samples, 1000);
	assert_int_equal(T.hist.used[0], 1);
	assert_true(T.hist.e[0].func == (uintptr_t)write_1000 + bias);
	assert_int_equal(T.hist.e[0].count, 1000);
	watches_clear();
	hwbp_symtab_free(syms);
}

/*
 * hwbpi_perf_run() on a command: the events are opened before exec with
 * enable_on_exec.  The addresses must be known before the exec: with
 * ADDR_NO_RANDOMIZE (inherited through fork and exec) a first start shows
 * where the program will load.  Skipped where personality() is refused
 * (container seccomp profiles).
 */
static void test_run_enable_on_exec(void **state)
{
	char exe[512];
	char *argv[] = { exe, "--perf-child", NULL };
	struct hwbpi_perf_opts o = { 0 };
	struct hwbpi_perf_result res;
	int old = personality(0xffffffff);
	uint64_t bias;
	ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	pid_t p;

	(void)state;
	need_breakpoints();
	assert_true(k > 0);
	exe[k] = 0;
	if (old < 0 || personality((unsigned long)old | ADDR_NO_RANDOMIZE) < 0 ||
	    !(personality(0xffffffff) & ADDR_NO_RANDOMIZE)) {
		print_message("personality(ADDR_NO_RANDOMIZE) refused: skipped\n");
		skip();
	}
	if (hwbpi_child_start(argv, &p, err, sizeof(err)))
		fail_msg("%s", err);
	bias = exe_base(p) - exe_base(0);
	hwbpi_child_kill(p);
	watches_clear();
	watch("v64", (const volatile void *)((uintptr_t)&v64 + bias), 8, HWBP_W);
	for (int pass = 0; pass < 2; pass++) {
		o.sampling = pass == 1;
		if (o.sampling)
			assert_int_equal(hwbpi_tracer_start(&T, hwbpi_kernel_ncpus(), false, 0, false), 0);
		if (hwbpi_perf_run(&T, &CPU, argv, 0, &o, &res, err, sizeof(err)))
			fail_msg("%s", err);
		ok_exit(&res);
		assert_int_equal(res.count[0], 1000);
		assert_int_equal(res.samples, o.sampling ? 1000 : 0);
	}
	personality((unsigned long)old);
	watches_clear();
}

static void test_exec(void **state)
{
	char *argv_true[] = { "true", NULL };
	char *argv_bad[] = { "/nonexistent/hwbp-no-such-command", NULL };
	struct hwbpi_perf_opts o = { 0 };
	struct hwbpi_perf_result res;
	pid_t p;

	(void)state;
	need_breakpoints();
	watches_clear();
	watch("v64", &v64, 8, HWBP_W);
	/* enable_on_exec path */
	if (hwbpi_perf_run(&T, &CPU, argv_true, 0, &o, &res, err, sizeof(err)))
		fail_msg("%s", err);
	ok_exit(&res);
	assert_int_equal(res.events, 1);
	assert_int_equal(hwbpi_perf_run(&T, &CPU, argv_bad, 0, &o, &res, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot run the command"));
	/* start (stopped after exec) + trace */
	if (hwbpi_child_start(argv_true, &p, err, sizeof(err)))
		fail_msg("%s", err);
	if (hwbpi_perf_trace(&T, &CPU, p, true, &o, &res, err, sizeof(err)))
		fail_msg("%s", err);
	ok_exit(&res);
	assert_int_equal(hwbpi_child_start(argv_bad, &p, err, sizeof(err)), -ENOENT);
	/* Every data slot free after a start: the stop at the entry point
	 * takes none (it did, with a ptrace breakpoint the kernel keeps
	 * reserved: ENOSPC at the last x86 slot, the first arm64 one). */
	{
		struct hwbp_caps caps;
		char name[16];
		unsigned n;

		assert_int_equal(hwbp_caps_get(&CPU, &caps), 0);
		n = caps.data_slots < 5 ? caps.data_slots : 5;
		watches_clear();
		for (unsigned k = 0; k < n; k++) {
			snprintf(name, sizeof(name), "five%u", k);
			watch(name, &five[k][0], 8, HWBP_W);
		}
		if (hwbpi_child_start(argv_true, &p, err, sizeof(err)))
			fail_msg("%s", err);
		if (hwbpi_perf_trace(&T, &CPU, p, true, &o, &res, err, sizeof(err)))
			fail_msg("%u watches after a start: %s", n, err);
		ok_exit(&res);
		assert_int_equal(res.events, n);
	}
	/* start + abort */
	assert_int_equal(hwbpi_child_start(argv_true, &p, err, sizeof(err)), 0);
	hwbpi_child_kill(p);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

static void test_errors(void **state)
{
	struct hwbpi_perf_opts o = { 0 };
	struct hwbpi_perf_result res;

	(void)state;
	watches_clear();
	assert_int_equal(hwbpi_perf_trace(&T, &CPU, getpid(), false, &o, &res, err, sizeof(err)),
			 -EINVAL);       /* nothing to watch */
	watch("both", &v64, 8, HWBP_RW | HWBP_X);
	assert_int_equal(hwbpi_perf_trace(&T, &CPU, getpid(), false, &o, &res, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "not both"));
	watches_clear();
	watch("kernel", (const volatile void *)(uintptr_t)0xffffffff81000000ull, 8, HWBP_W);
	assert_int_equal(hwbpi_perf_trace(&T, &CPU, getpid(), false, &o, &res, err, sizeof(err)),
			 -EFAULT);
	assert_non_null(strstr(err, "not a user-space address"));
	watches_clear();
	/* 64 bytes: x86 would need 8 debug registers (-ERANGE); arm64 one
	 * MASK block, which Linux's breakpoints cannot express. */
	watch("bytes/64", bytes, 64, HWBP_W);
	assert_int_equal(hwbpi_perf_trace(&T, &CPU, getpid(), false, &o, &res, err, sizeof(err)),
			 CPU.arch == HWBP_ARCH_ARM64 ? -EOPNOTSUPP : -ERANGE);
	assert_non_null(strstr(err, CPU.arch == HWBP_ARCH_ARM64 ? "bytes/64: a 64-byte block needs "
			       "DBGWCR.MASK" : "larger than this CPU can watch"));
	watches_clear();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selftest),
		cmocka_unit_test(test_count_w),
		cmocka_unit_test(test_count_rw_and_w),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_split_watch),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_threads_sampling),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_sampling_hist),
		cmocka_unit_test(test_sampling_events),
		cmocka_unit_test(test_sampling_lost),
		cmocka_unit_test(test_sampling_read),
		cmocka_unit_test(test_sampling_kinds),
		cmocka_unit_test(test_sampling_decoded),
		cmocka_unit_test(test_fifth_watch),
		cmocka_unit_test(test_attach),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_exec_pie),
		cmocka_unit_test(test_run_enable_on_exec),
		cmocka_unit_test(test_errors),
	};

	/* Run again by test_exec_pie / test_run_enable_on_exec. */
	if (argc == 2 && strcmp(argv[1], "--perf-child") == 0) {
		write_1000();
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, NULL);
}

#else /* !__x86_64__ */

static void test_not_x86_64(void **state)
{
	(void)state;
	skip();   /* the exact counts below are planned for x86_64 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_x86_64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
