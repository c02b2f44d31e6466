/* SPDX-License-Identifier: MIT */
/*
 * Call stacks (tracer/backends/linux/unwind.h) and the backends that collect them
 * (Linux on x86_64 or aarch64, real debug registers):
 *
 *   - the kernel's callchains parsed (contexts, markers, the sample IP),
 *     the frame-pointer walk on a made-up stack, --call-graph's words;
 *   - the ptrace and perf backends on tests/trace/stack_prog.c, built with
 *     frame pointers (argv[1]) and without (argv[2]): its 600 stores to
 *     `counter` come through three known paths, main -> a -> bump (300),
 *     main -> b -> bump (200), main -> bump (100).  Each hit's callers
 *     are named in the program's symbols; the program's own functions
 *     among them, innermost first up to the first one that is not the
 *     program's (libc's start code), are the hit's path, counted here.
 *     dwarf on both builds and fp on the frame-pointer build must give
 *     exactly those counts; dwarf must also reach _start (the program's
 *     entry, the outermost frame) through libc's frames.  fp without
 *     frame pointers is documented as short or wrong and not tested as
 *     right.
 *
 * The hits reach hwbpi_tracer_hit_frames() through a wrapper of this test
 * (linked with -Wl,--wrap=hwbpi_tracer_hit_frames): it records the path
 * and passes the hit on to the tracer's own function.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "backends/linux/glue.h"
#include "backends/perf/perf.h"
#include "symbols/proc_maps.h"
#include "backends/ptrace/ptrace.h"
#include "backends/linux/unwind.h"

/* ------------------------------------------------------ callchains */

#define U PERF_CONTEXT_USER
#define K PERF_CONTEXT_KERNEL

static const struct chain_case {
	const char *what;
	uint64_t ips[8];
	unsigned nr;
	uint64_t ip;
	bool kernel;
	unsigned max;
	uint64_t want[6];
	unsigned nwant;
} chains[] = {
	{ "user: marker and IP skipped", { U, 0x100, 0x200, 0x300 }, 4, 0x100, false, 8,
	  { 0x200, 0x300 }, 2 },
	{ "user of a chain with a kernel part", { K, 0xffff1, 0xffff2, U, 0x100, 0x200 }, 6, 0x100,
	  false, 8, { 0x200 }, 1 },
	{ "kernel part only", { K, 0xffff1, 0xffff2, 0xffff3, U, 0x100, 0x200 }, 7, 0xffff1, true,
	  8, { 0xffff2, 0xffff3 }, 2 },
	{ "kernel IP repeated by the unwinder", { K, 0xffff1, 0xffff1, 0xffff2 }, 4, 0xffff1, true,
	  8, { 0xffff2 }, 1 },
	{ "at most max", { U, 0x100, 0x200, 0x300, 0x400 }, 5, 0x100, false, 2, { 0x200, 0x300 },
	  2 },
	{ "a 0 ends it", { U, 0x100, 0x200, 0, 0x400 }, 5, 0x100, false, 8, { 0x200 }, 1 },
	{ "no context of ours", { K, 0xffff1, 0xffff2 }, 3, 0xffff1, false, 8, { 0 }, 0 },
	{ "empty", { 0 }, 0, 0x100, false, 8, { 0 }, 0 },
};

static void test_chain(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
		const struct chain_case *c = &chains[i];
		uint64_t out[8] = { 0 };
		unsigned n = hwbpi_unwind_chain(c->ips, c->nr, c->ip, c->kernel, out, c->max);

		if (n != c->nwant)
			fail_msg("%s: %u callers, not %u", c->what, n, c->nwant);
		for (unsigned k = 0; k < n; k++)
			if (out[k] != c->want[k])
				fail_msg("%s: caller %u is %#llx, not %#llx", c->what, k,
					 (unsigned long long)out[k], (unsigned long long)c->want[k]);
	}
}

/* ---------------------------------------------- frame-pointer walk */

/* A made-up stack at 0x1000: words by index from there. */
#define STK 0x1000u
static uint64_t stk[32];

static bool stk_read(void *arg, uint64_t addr, uint64_t *v)
{
	(void)arg;
	if (addr < STK || addr + 8 > STK + sizeof(stk) || (addr & 7))
		return false;
	*v = stk[(addr - STK) / 8];
	return true;
}

static uint64_t at(unsigned i)
{
	return STK + 8u * i;
}

static void test_fp(void **state)
{
	struct hwbpi_uregs u = { .pc = 0x500, .sp = at(0) };
	uint64_t out[8];

	(void)state;
	if (hwbpi_linux_fp_chain == HWBPI_FP_RECORD) {
		/* records at 2, 6, 10: {next, ret}; the last one's next is 0 */
		memset(stk, 0, sizeof(stk));
		stk[2] = at(6), stk[3] = 0x111;
		stk[6] = at(10), stk[7] = 0x222;
		stk[10] = 0, stk[11] = 0x333;
		u.fp = at(2);
		assert_int_equal(hwbpi_unwind_fp(stk_read, NULL, &u, out, 8), 3);
		assert_int_equal(out[0], 0x111);
		assert_int_equal(out[1], 0x222);
		assert_int_equal(out[2], 0x333);
		assert_int_equal(hwbpi_unwind_fp(stk_read, NULL, &u, out, 2), 2);
		/* a chain that goes down (a loop) ends after its record */
		stk[6] = at(2);
		assert_int_equal(hwbpi_unwind_fp(stk_read, NULL, &u, out, 8), 2);
		/* below SP, misaligned, unreadable: nothing */
		u.fp = at(0) - 16;
		assert_int_equal(hwbpi_unwind_fp(stk_read, NULL, &u, out, 8), 0);
		u.fp = at(2) + 4;
		assert_int_equal(hwbpi_unwind_fp(stk_read, NULL, &u, out, 8), 0);
		u.fp = at(40);
		assert_int_equal(hwbpi_unwind_fp(stk_read, NULL, &u, out, 8), 0);
	} else if (hwbpi_linux_fp_chain == HWBPI_FP_BACKCHAIN) {
		/* frames at 0 (SP), 4, 10; each saves its return address at
		 * +16 of its caller's frame */
		memset(stk, 0, sizeof(stk));
		stk[0] = at(4);
		stk[4 + 2] = 0x111;
		stk[4] = at(10);
		stk[10 + 2] = 0x222;
		u.fp = at(0);
		assert_int_equal(hwbpi_unwind_fp(stk_read, NULL, &u, out, 8), 2);
		assert_int_equal(out[0], 0x111);
		assert_int_equal(out[1], 0x222);
	}
}

static void test_callgraph_words(void **state)
{
	enum hwbpi_callgraph cg;
	char err[160];

	(void)state;
	assert_int_equal(hwbpi_callgraph_parse("fp", &cg, err, sizeof(err)), 0);
	assert_int_equal(cg, HWBPI_CG_FP);
	assert_int_equal(hwbpi_callgraph_parse(NULL, &cg, err, sizeof(err)), 0);
	assert_int_equal(cg, hwbpi_unwind_have_dwarf() ? HWBPI_CG_DWARF : HWBPI_CG_FP);
	assert_int_equal(hwbpi_callgraph_parse("dwarf", &cg, err, sizeof(err)),
			 hwbpi_unwind_have_dwarf() ? 0 : -EOPNOTSUPP);
	assert_int_equal(hwbpi_callgraph_parse("lbr", &cg, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bad --call-graph 'lbr' (fp, dwarf): EINVAL");
}

/* ------------------------------------------------ the real backends */

static const char *prog_fp, *prog_nofp;

/* The paths seen, as "a;main" (innermost first). */
#define MAXPATH 8
static struct {
	const struct hwbp_symtab *syms;
	char path[MAXPATH][64];
	uint64_t n[MAXPATH];
	unsigned npath;
	uint64_t hits, to_start, not_bump;
} R;

static bool ours(const char *name)
{
	return strcmp(name, "a") == 0 || strcmp(name, "b") == 0 || strcmp(name, "main") == 0 ||
	       strcmp(name, "bump") == 0;
}

void __real_hwbpi_tracer_hit_frames(struct hwbpi_tracer *t, struct hwbp_trace_event *ev,
				    const uint64_t *callers, unsigned n);
void __wrap_hwbpi_tracer_hit_frames(struct hwbpi_tracer *t, struct hwbp_trace_event *ev,
				    const uint64_t *callers, unsigned n);

void __wrap_hwbpi_tracer_hit_frames(struct hwbpi_tracer *t, struct hwbp_trace_event *ev,
				    const uint64_t *callers, unsigned n)
{
	const struct hwbp_sym *f = hwbpi_tracer_func(t, ev), *last = NULL;
	char path[64] = "";
	unsigned k;

	R.hits++;
	if (!f || strcmp(f->name, "bump") != 0)
		R.not_bump++;
	for (k = 0; k < n; k++) {
		/* a return address is after its call: the call is before it */
		const struct hwbp_sym *c = hwbp_symtab_func(R.syms, callers[k] - 1);

		if (!c || !ours(c->name))
			break;
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s%s", k ? ";" : "",
			 c->name);
	}
	if (n)
		last = hwbp_symtab_func(R.syms, callers[n - 1] - 1);
	if (last && strcmp(last->name, "_start") == 0)
		R.to_start++;
	for (k = 0; k < R.npath && strcmp(R.path[k], path) != 0; k++)
		;
	if (k == R.npath && k < MAXPATH)
		snprintf(R.path[R.npath++], sizeof(R.path[0]), "%s", path);
	if (k < MAXPATH)
		R.n[k]++;
	__real_hwbpi_tracer_hit_frames(t, ev, callers, n);
}

/* The three paths, exactly, and every stack through _start if @full. */
static void check_paths(const char *what, bool full)
{
	static const struct {
		const char *path;
		uint64_t n;
	} want[] = { { "a;main", 300 }, { "b;main", 200 }, { "main", 100 } };

	if (R.hits != 600 || R.not_bump)
		fail_msg("%s: %llu hits (%llu not in bump), not 600 in bump", what,
			 (unsigned long long)R.hits, (unsigned long long)R.not_bump);
	if (R.npath != 3)
		fail_msg("%s: %u paths (first \"%s\" %llu), not 3", what, R.npath, R.path[0],
			 (unsigned long long)R.n[0]);
	for (unsigned i = 0; i < 3; i++) {
		unsigned k;

		for (k = 0; k < R.npath && strcmp(R.path[k], want[i].path) != 0; k++)
			;
		if (k == R.npath || R.n[k] != want[i].n)
			fail_msg("%s: path %s: %llu hits, not %llu", what, want[i].path,
				 k < R.npath ? (unsigned long long)R.n[k] : 0ull,
				 (unsigned long long)want[i].n);
	}
	if (full && R.to_start != 600)
		fail_msg("%s: %llu of 600 stacks end in _start", what, (unsigned long long)R.to_start);
}

/* A tracer on the stopped process @pid: its symbols, counter:-w-. */
static struct hwbp_symtab *setup(struct hwbpi_tracer *t, pid_t pid, unsigned ncpus)
{
	struct hwbp_trace_entry e;
	struct hwbp_symtab *syms;
	char err[256] = "";
	const char *msg;
	unsigned col;
	int ret;

	syms = hwbp_symtab_new(&ret);
	assert_non_null(syms);
	assert_true(hwbpi_proc_load_symbols(syms, pid, NULL) >= 0);
	assert_int_equal(hwbp_symtab_finish(syms), 0);
	memset(t, 0, sizeof(*t));
	memset(&R, 0, sizeof(R));
	R.syms = syms;
	t->syms = syms;
	assert_int_equal(hwbp_trace_filter_parse("counter:-w-", &e, &col, &msg), 0);
	if (hwbpi_tracer_apply(t, &e, err, sizeof(err)))
		fail_msg("counter: %s", err);
	assert_int_equal(hwbpi_tracer_start(t, ncpus, false, 0, false), 0);
	t->stack_depth = 16;
	t->func_adjust = hwbpi_linux_trap_ip_adjust;
	return syms;
}

static void run_ptrace(const char *prog, enum hwbpi_callgraph cg, bool full)
{
	char *argv[] = { (char *)prog, NULL };
	struct hwbpi_ptrace *ps = NULL;
	struct hwbpi_tracer t;
	struct hwbp_symtab *syms;
	char err[256] = "", what[600];
	int status = -1;

	snprintf(what, sizeof(what), "ptrace %s %s", cg == HWBPI_CG_FP ? "fp" : "dwarf", prog);
	if (hwbpi_ptrace_start(&ps, argv, err, sizeof(err)))
		fail_msg("%s: %s", what, err);
	syms = setup(&t, hwbpi_ptrace_pid(ps), 1);
	hwbpi_ptrace_set_callgraph(ps, cg);
	if (hwbpi_ptrace_trace(ps, &t, NULL, &status, err, sizeof(err)))
		fail_msg("%s: %s", what, err);
	hwbpi_ptrace_free(ps);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check_paths(what, full);
	hwbpi_tracer_fini(&t);
	hwbp_symtab_free(syms);
}

static void run_perf(const char *prog, enum hwbpi_callgraph cg, bool full)
{
	char *argv[] = { (char *)prog, NULL };
	/* Rings that hold every sample (8 KiB of stack each with dwarf), so
	 * that no sample is lost, however late the consumer runs. */
	struct hwbpi_perf_opts o = { .sampling = true, .callgraph = cg, .ring_pages = 2048 };
	struct hwbpi_perf_result res;
	struct hwbpi_tracer t;
	struct hwbp_symtab *syms;
	struct hwbp_cpu cpu;
	char err[256] = "", what[600];
	pid_t pid;

	snprintf(what, sizeof(what), "perf %s %s", cg == HWBPI_CG_FP ? "fp" : "dwarf", prog);
	if (hwbpi_child_cpu(&cpu, err, sizeof(err)))
		fail_msg("%s: %s", what, err);
	if (hwbpi_child_start(argv, &pid, err, sizeof(err)))
		fail_msg("%s: %s", what, err);
	syms = setup(&t, pid, hwbpi_kernel_ncpus());
	if (hwbpi_perf_trace(&t, &cpu, pid, true, &o, &res, err, sizeof(err)))
		fail_msg("%s: %s", what, err);
	assert_true(WIFEXITED(res.wstatus) && WEXITSTATUS(res.wstatus) == 0);
	assert_int_equal(res.samples, 600);
	assert_int_equal(res.lost, 0);
	check_paths(what, full);
	if (cg == HWBPI_CG_DWARF) {
		/* one unwind per sample asked; the cost, for the record */
		assert_int_equal(res.unwind.unwinds, 600);
		print_message("%s: %llu unwinds, %llu from the cache; %.1f us per unwind, "
			      "%.2f us per cached one\n", what,
			      (unsigned long long)res.unwind.unwinds,
			      (unsigned long long)res.unwind.cached,
			      res.unwind.unwinds > res.unwind.cached ?
			      res.unwind.ns_unwound / 1e3 / (double)(res.unwind.unwinds - res.unwind.cached) : 0.0,
			      res.unwind.cached ? res.unwind.ns_cached / 1e3 / (double)res.unwind.cached : 0.0);
	}
	hwbpi_tracer_fini(&t);
	hwbp_symtab_free(syms);
}

static void test_ptrace_fp(void **state)
{
	(void)state;
	run_ptrace(prog_fp, HWBPI_CG_FP, false);
}

static void test_ptrace_dwarf(void **state)
{
	(void)state;
	if (!hwbpi_unwind_have_dwarf())
		return;   /* refused: test_callgraph_words */
	run_ptrace(prog_fp, HWBPI_CG_DWARF, true);
	run_ptrace(prog_nofp, HWBPI_CG_DWARF, true);
}

static void test_perf_fp(void **state)
{
	(void)state;
	run_perf(prog_fp, HWBPI_CG_FP, false);
}

static void test_perf_dwarf(void **state)
{
	(void)state;
	if (!hwbpi_unwind_have_dwarf())
		return;   /* refused: test_callgraph_words */
	run_perf(prog_fp, HWBPI_CG_DWARF, true);
	run_perf(prog_nofp, HWBPI_CG_DWARF, true);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_fp),
		cmocka_unit_test(test_callgraph_words),
		cmocka_unit_test(test_ptrace_fp),
		cmocka_unit_test(test_ptrace_dwarf),
		cmocka_unit_test(test_perf_fp),
		cmocka_unit_test(test_perf_dwarf),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: %s STACK_PROG_FP STACK_PROG_NOFP\n", argv[0]);
		return 2;
	}
	prog_fp = argv[1];
	prog_nofp = argv[2];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
