/* SPDX-License-Identifier: MIT */
/*
 * The tracer session: filter entries resolved against symbols, the demo
 * workload through the simulator into the histogram (exact counts and
 * overrun), and trace mode's accounting.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tracer.h"

static struct hwbpi_tracer T;

static void entry(struct hwbpi_tracer *t, const char *s, int want)
{
	struct hwbp_trace_entry e;
	const char *msg;
	unsigned col;
	char err[128];

	assert_int_equal(hwbp_trace_filter_parse(s, &e, &col, &msg), 0);
	if (hwbpi_tracer_apply(t, &e, err, sizeof(err)) != want)
		fail_msg("%s: expected %s (%s)", s, hwbp_errno_name(want), err);
}

static void test_apply(void **state)
{
	int err;
	struct hwbp_symtab *syms = hwbpi_demo_symtab(&err);
	const struct hwbp_sym *j, *p;

	(void)state;
	assert_non_null(syms);
	j = hwbp_symtab_find(syms, "jiffies");
	p = hwbp_symtab_find(syms, "pid_max");
	assert_non_null(j);
	assert_non_null(p);
	memset(&T, 0, sizeof(T));
	T.syms = syms;
	entry(&T, "jiffies:rw-", 0);
	assert_int_equal(T.nw, 1);
	assert_true(T.w[0].addr == j->addr && T.w[0].len == 8);  /* the symbol's own size */
	assert_int_equal(T.w[0].type, HWBP_RW);
	entry(&T, "avenrun+8/8:-w-", 0);
	assert_string_equal(T.w[1].name, "avenrun+8");
	assert_int_equal(T.w[1].type, HWBP_W);
	entry(&T, "pid_max:r--", 0);
	assert_true(T.w[2].addr == p->addr && T.w[2].len == 4);
	entry(&T, "pid_max:rw-", 0);           /* same name: replaced */
	assert_int_equal(T.nw, 3);
	assert_int_equal(T.w[2].type, HWBP_RW);
	entry(&T, "0x1000/8:rw-", 0);
	assert_string_equal(T.w[3].name, "0x1000");
	entry(&T, "nosuch:rw-", -ENOENT);
	entry(&T, "0x2000:rw-", -EINVAL);      /* an address needs /LEN */
	entry(&T, "jiffies:---", 0);           /* remove */
	assert_int_equal(T.nw, 3);
	assert_string_equal(T.w[0].name, "avenrun+8");
	entry(&T, "*:---", 0);                 /* clear */
	assert_int_equal(T.nw, 0);

	/* Execution of a symbol without /LEN: a breakpoint on its first
	 * instruction, whose length is the CPU's (caps.inst_len); with /LEN
	 * or on data, the length given or the symbol's size. */
	{
		static const struct { const char *cpu; uint64_t len; } rows[] = {
			{ "x86_64", 1 },       /* DR7 LEN=00: one byte (SDM 17.2.5) */
			{ "cortex-a57", 4 },   /* A64 instructions: 4 bytes */
			{ "power9", 4 },       /* CIABR: one word */
		};
		struct hwbp_cpu cpu;

		entry(&T, "do_timer:--x", 0);
		assert_true(T.w[0].entry && T.w[0].len == 0);
		entry(&T, "do_timer+4/8:--x", 0);
		assert_false(T.w[1].entry);
		entry(&T, "jiffies:rw-", 0);
		assert_false(T.w[2].entry);
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			assert_int_equal(hwbp_cpu_preset(rows[i].cpu, &cpu), 0);
			assert_true(hwbpi_watch_len(&T.w[0], &cpu) == rows[i].len);
			assert_true(hwbpi_watch_len(&T.w[1], &cpu) == 8);
			assert_true(hwbpi_watch_len(&T.w[2], &cpu) == 8);
		}
		entry(&T, "*:---", 0);
	}
	hwbp_symtab_free(syms);
}

/* Counts of the demo's (function, kind) rows, from its table (tracer/demo.c:
 * 1200 rounds, a step runs when round % every == 0). */
static uint64_t runs(unsigned every)
{
	return (1200 - 1) / every + 1;
}

static uint64_t count(const struct hwbpi_tracer *t, unsigned bp, const char *func, unsigned kind)
{
	const struct hwbp_sym *f = hwbp_symtab_find(t->syms, func);

	for (unsigned i = 0; f && i < t->hist.used[bp]; i++) {
		const struct hwbp_hist_entry *e = &t->hist.e[bp * t->hist.n + i];

		if (e->func == f->addr && e->kind == kind)
			return e->count;
	}
	return 0;
}

static void test_demo_histogram(void **state)
{
	static const char *const presets[] = { "x86_64", "cortex-a57", "power10" };

	(void)state;
	for (size_t pi = 0; pi < 3; pi++) {
		struct hwbpi_demo_state st = { 0, 0, 0, 0 };
		struct hwbp_cpu cpu;
		char err[128] = "";
		int e;

		memset(&T, 0, sizeof(T));
		T.syms = hwbpi_demo_symtab(&e);
		T.hist_entries = 16;
		entry(&T, "jiffies:rw-", 0);
		entry(&T, "pid_max:rw-", 0);
		hwbp_cpu_preset(presets[pi], &cpu);
		assert_int_equal(hwbpi_tracer_start(&T, HWBPI_DEMO_CPUS, false, 0, false), 0);
		if (hwbpi_trace_sim(&T, &cpu, HWBPI_DEMO_CPUS, hwbpi_demo_next, &st, err, sizeof(err)))
			fail_msg("%s: %s", presets[pi], err);
		/* do_timer's jiffies++ every round: one write access each. */
		assert_true(count(&T, 0, "do_timer", HWBP_W) == runs(1));
		assert_true(count(&T, 0, "tick_do_update_jiffies64", HWBP_R) == runs(1));
		assert_true(count(&T, 0, "get_jiffies_64", HWBP_R) == runs(2));
		assert_true(count(&T, 0, "calc_global_load", HWBP_R) == runs(5));
		/* 20 functions read or write jiffies; the first 16 (in the
		 * order of their first hit, round 0's step order) get entries,
		 * the other four's hits are overrun. */
		assert_int_equal(T.hist.used[0], 16);
		assert_true(T.hist.overrun[0] == runs(41) + runs(43) + runs(47) + runs(53));
		assert_true(count(&T, 0, "usleep_range_state", HWBP_R) == 0);
		/* pid_max: read by alloc_pid, read and written by the sysctl. */
		assert_true(count(&T, 1, "alloc_pid", HWBP_R) == runs(6));
		assert_true(count(&T, 1, "proc_dointvec_minmax", HWBP_R) == runs(97));
		assert_true(count(&T, 1, "proc_dointvec_minmax", HWBP_W) == runs(97));
		assert_true(T.hist.overrun[1] == 0);
		/* every hit is in an entry or in the overrun */
		for (unsigned bp = 0; bp < 2; bp++) {
			uint64_t sum = T.hist.overrun[bp];

			for (unsigned i = 0; i < T.hist.used[bp]; i++)
				sum += T.hist.e[bp * T.hist.n + i].count;
			assert_true(sum == T.hist.hits[bp]);
		}
		hwbpi_tracer_fini(&T);
		hwbp_symtab_free((struct hwbp_symtab *)T.syms);
	}
}

/* A watch the CPU cannot hold fails with the planner's reason. */
static void test_refused(void **state)
{
	struct hwbpi_demo_state st = { 0, 0, 0, 0 };
	struct hwbp_cpu cpu;
	char err[128] = "";
	int e;

	(void)state;
	memset(&T, 0, sizeof(T));
	T.syms = hwbpi_demo_symtab(&e);
	entry(&T, "jiffies/4096:rw-", 0);
	hwbp_cpu_preset("x86_64", &cpu);
	assert_int_equal(hwbpi_tracer_start(&T, 4, false, 0, false), 0);
	assert_int_equal(hwbpi_trace_sim(&T, &cpu, 4, hwbpi_demo_next, &st, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "jiffies: ERANGE"));
	hwbpi_tracer_fini(&T);
	hwbp_symtab_free((struct hwbp_symtab *)T.syms);
}

/* Trace mode: per-CPU rings, produced = recorded + lost exactly, both policies. */
static void test_trace_accounting(void **state)
{
	(void)state;
	for (int ow = 0; ow < 2; ow++) {
		struct hwbpi_demo_state st = { 0, 0, 0, 0 };
		struct hwbp_cpu cpu;
		char err[128] = "";
		uint64_t produced = 0, lost = 0, popped = 0;
		struct hwbp_trace_event buf[256];
		int e;

		memset(&T, 0, sizeof(T));
		T.syms = hwbpi_demo_symtab(&e);
		entry(&T, "jiffies:rw-", 0);
		hwbp_cpu_preset("x86_64", &cpu);
		/* 4 KiB rings (128 events) and nobody draining during the run:
		 * most events are lost, and exactly accounted for. */
		assert_int_equal(hwbpi_tracer_start(&T, 4, true, 4096, ow), 0);
		assert_int_equal(hwbpi_trace_sim(&T, &cpu, 4, hwbpi_demo_next, &st, err, sizeof(err)), 0);
		for (unsigned c = 0; c < 4; c++) {
			uint64_t p, l;
			size_t n;

			while ((n = hwbp_ring_pop(T.ring[c], buf, 256)) > 0) {
				for (size_t i = 0; i < n; i++)
					assert_int_equal(buf[i].cpu, c);
				popped += n;
			}
			hwbp_ring_stats(T.ring[c], &p, &l);
			produced += p;
			lost += l;
		}
		assert_true(produced == hwbpi_tracer_hits(&T));
		assert_true(produced == popped + lost);
		assert_true(lost > 0);
		hwbpi_tracer_fini(&T);
		hwbp_symtab_free((struct hwbp_symtab *)T.syms);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_demo_histogram),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_trace_accounting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
