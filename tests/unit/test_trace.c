/* SPDX-License-Identifier: MIT */
/*
 * The tracer session: filter entries resolved against symbols, the demo
 * workload through the simulator into the histogram (exact counts and
 * overrun), and trace mode's accounting; the public session API and the
 * backend registry (include/hwbp/trace.h).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/sim/sim_int.h"
#include "output/output.h"

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

/* Counts of the demo's (function, kind) rows, from its table (tracer/backends/replay/demo.c:
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
		if (hwbpi_replay(&T, &cpu, HWBPI_DEMO_CPUS, hwbpi_demo_next, &st, err, sizeof(err)))
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
	assert_int_equal(hwbpi_replay(&T, &cpu, 4, hwbpi_demo_next, &st, err, sizeof(err)), -ERANGE);
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
		assert_int_equal(hwbpi_replay(&T, &cpu, 4, hwbpi_demo_next, &st, err, sizeof(err)), 0);
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

/* ------------------------------------------------ registry, sessions */

static void test_registry(void **state)
{
	static const char *const names[] = {
		"sim", "lackey", "qemu-x86",
#ifdef __linux__
		"ptrace", "perf", "bpf", "module",
#endif
	};
	unsigned n = 0;

	(void)state;
	for (; hwbp_trace_backend_at(n); n++) {
		const struct hwbp_trace_backend *b = hwbp_trace_backend_at(n);

		assert_true(n < sizeof(names) / sizeof(names[0]));   /* one not listed here */
		assert_string_equal(b->name, names[n]);
		assert_ptr_equal(hwbp_trace_backend_find(b->name), b);
		assert_true(b->description[0] && b->workload[0]);
		assert_non_null(b->run);
		/* every backend takes exactly the options it lists */
		for (const struct hwbp_trace_backend_option *o = b->options; o->name; o++) {
			assert_ptr_equal(hwbp_trace_backend_option(b, o->name), o);
			assert_non_null(o->help);
		}
		assert_null(hwbp_trace_backend_option(b, "no-such-option"));
	}
	assert_int_equal(n, sizeof(names) / sizeof(names[0]));
	assert_null(hwbp_trace_backend_find("gdb"));
	assert_null(hwbp_trace_backend_find(NULL));
	assert_null(hwbp_trace_backend_option(NULL, "demo"));
}

static void test_session_options(void **state)
{
	static const struct {
		const char *backend, *name, *value;
		int want;
	} cases[] = {
		{ "sim", "demo", NULL, 0 },
		{ "sim", "demo", "x", -EINVAL },       /* a flag takes no value */
		{ "sim", "lackey", "x.log", -ENOENT }, /* not the sim backend's */
		{ "sim", "cmd", "x", -ENOENT },        /* -- CMD is hwbp_trace_session_command */
		{ "lackey", "lackey", "x.log", 0 },
		{ "lackey", "lackey", NULL, -EINVAL },
		{ "lackey", "load-bias", "0x1000", 0 },
		{ "qemu-x86", "demo", NULL, 0 },
		{ "qemu-x86", "elf", "x", -ENOENT },
#ifdef __linux__
		{ "ptrace", "pid", "1", 0 },
		{ "perf", "demo", NULL, -ENOENT },
#endif
	};
	char *argv[] = { "true", NULL }, *empty[] = { NULL };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hwbp_trace_session *s = hwbp_trace_session_new(
			hwbp_trace_backend_find(cases[i].backend), NULL);
		bool input = false;

		assert_non_null(s);
		if (hwbp_trace_session_option(s, cases[i].name, cases[i].value) != cases[i].want)
			fail_msg("%s --%s: expected %s", cases[i].backend, cases[i].name,
				 hwbp_errno_name(cases[i].want));
		if (cases[i].want) {
			assert_true(hwbp_trace_session_message(s, &input)[0] != '\0');
			assert_true(input);
		} else {
			/* the same option twice */
			assert_int_equal(hwbp_trace_session_option(s, cases[i].name, cases[i].value),
					 -EBUSY);
		}
		hwbp_trace_session_free(s);
	}
	{
		int err = 0;
		struct hwbp_trace_session *s;

		assert_null(hwbp_trace_session_new(NULL, &err));
		assert_int_equal(err, -EINVAL);
		s = hwbp_trace_session_new(hwbp_trace_backend_find("sim"), NULL);
		assert_int_equal(hwbp_trace_session_command(s, argv), -ENOENT);
		assert_int_equal(hwbp_trace_session_command(s, empty), -EINVAL);
		assert_int_equal(hwbp_trace_session_cpu(s, "z80"), -EINVAL);
		assert_int_equal(hwbp_trace_session_cpu(s, "cortex-a57"), 0);
		assert_int_equal(hwbp_trace_session_cpu(s, "x86_64"), -EBUSY);
		hwbp_trace_session_free(s);
		s = hwbp_trace_session_new(hwbp_trace_backend_find("qemu-x86"), NULL);
		assert_int_equal(hwbp_trace_session_cpu(s, "x86_64"), -ENOENT);   /* a fixed CPU */
		hwbp_trace_session_free(s);
		hwbp_trace_session_free(NULL);
	}
}

/* A sim --demo session's results, as text. */
struct run_out {
	char *out, *diag;
	size_t nout, ndiag;
	int ret;
	bool input;
	char msg[512];
};

static void run_demo(const char *backend, const char *const *entries, bool trace, bool stop,
		     struct run_out *r)
{
	struct hwbp_trace_session *s = hwbp_trace_session_new(hwbp_trace_backend_find(backend), NULL);
	FILE *out = open_memstream(&r->out, &r->nout), *diag = open_memstream(&r->diag, &r->ndiag);
	struct hwbp_trace_mode m = { trace, 0, 0, false };
	struct hwbp_trace_output o = { trace ? NULL : out, trace ? out : NULL, NULL, diag, "note: " };

	assert_non_null(s);
	assert_non_null(out);
	assert_non_null(diag);
	assert_int_equal(hwbp_trace_session_option(s, "demo", NULL), 0);
	for (unsigned i = 0; entries && entries[i]; i++)
		assert_int_equal(hwbp_trace_session_entry(s, entries[i], "-e"), 0);
	assert_int_equal(hwbp_trace_session_mode(s, &m), 0);
	assert_int_equal(hwbp_trace_session_output(s, &o), 0);
	if (stop)
		hwbp_trace_session_stop(s);
	r->ret = hwbp_trace_session_run(s);
	snprintf(r->msg, sizeof(r->msg), "%s", hwbp_trace_session_message(s, &r->input));
	if (r->ret == 0)
		assert_int_equal(hwbp_trace_session_run(s), -EBUSY);   /* once */
	assert_false(hwbp_trace_session_wait_status(s, NULL));     /* no command */
	hwbp_trace_session_free(s);
	fclose(out);
	fclose(diag);
}

static void run_free(struct run_out *r)
{
	free(r->out);
	free(r->diag);
}

static void test_session_run(void **state)
{
	static const char *const pid_max[] = { "pid_max:rw-", NULL };
	struct run_out r;
	unsigned long long p, rec, l;
	const char *c;

	(void)state;
	/* the default watches: the demo's four variables */
	run_demo("sim", NULL, false, false, &r);
	assert_int_equal(r.ret, 0);
	assert_non_null(strstr(r.out, "jiffies: 16 functions, overrun 107\n"));
	assert_non_null(strstr(r.out, "total_forks: 1 functions, overrun 0\n"));
	run_free(&r);
	run_demo("sim", pid_max, false, false, &r);
	assert_int_equal(r.ret, 0);
	assert_non_null(strstr(r.out, "pid_max: 2 functions, overrun 0\n"));
	assert_null(strstr(r.out, "jiffies"));
	run_free(&r);
	/* trace mode: every event a line, produced = recorded + lost */
	run_demo("sim", pid_max, true, false, &r);
	assert_int_equal(r.ret, 0);
	c = strstr(r.diag, "note: ");
	assert_non_null(c);
	assert_int_equal(sscanf(c, "note: %llu events produced, %llu recorded, %llu lost", &p, &rec, &l), 3);
	assert_int_equal(p, rec + l);
	assert_int_equal(l, 0);
	{
		unsigned long long lines = 0;

		for (const char *q = r.out; *q; q++)
			lines += *q == '\n';
		assert_int_equal(lines, rec);
	}
	run_free(&r);
	/* stopped at once: the run ends early and still writes the summary */
	run_demo("sim", NULL, true, true, &r);
	assert_int_equal(r.ret, 0);
	c = strstr(r.diag, "note: ");
	assert_non_null(c);
	assert_int_equal(sscanf(c, "note: %llu events produced, %llu recorded", &p, &rec), 2);
	assert_true(p == rec && p < 6510);
	run_free(&r);
}

static void test_session_errors(void **state)
{
	static const char *const bad_letter[] = { "pid_max:rq-", NULL };
	static const char *const nosuch[] = { "nosuch:rw-", NULL };
	static const char *const none[] = { "*:---", NULL };
	static const char *const too_long[] = { "jiffies/4096:rw-", NULL };
	static const char *const five[] = { "avenrun:rw-", "jiffies:rw-", "pid_max:rw-", NULL };
	static const char *const wrap_len[] = { "jiffies+18446744073709551615/2:rw-", NULL };
	static const char *const wrap_off[] = { "jiffies+18446744073709551615:rw-", NULL };
	static const struct {
		const char *const *entries;
		int ret;
		bool input;
		const char *msg;
	} cases[] = {
		{ bad_letter, -EINVAL, true, "-e 'pid_max:rq-': column 10: bad type letter" },
		{ nosuch, -ENOENT, true, "-e 'nosuch:rw-': no symbol 'nosuch' in the symbol table" },
		{ none, -EINVAL, true, "nothing to watch (give -e SYM:rw-)" },
		{ too_long, -ERANGE, false, "cannot watch jiffies: ERANGE" },
		{ five, -ENOSPC, false, "cannot watch pid_max: ENOSPC" },
		{ wrap_len, -ERANGE, true,
		  "-e 'jiffies+18446744073709551615/2:rw-': column 30: offset + length wraps past 2^64 (ERANGE)" },
		{ wrap_off, -ERANGE, true,
		  "-e 'jiffies+18446744073709551615:rw-': jiffies+18446744073709551615: address range wraps past 2^64 (ERANGE)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run_out r;

		run_demo("sim", cases[i].entries, false, false, &r);
		assert_int_equal(r.ret, cases[i].ret);
		assert_int_equal(r.input, cases[i].input);
		if (strncmp(r.msg, cases[i].msg, strlen(cases[i].msg)) != 0)
			fail_msg("case %zu: '%s' does not start with '%s'", i, r.msg, cases[i].msg);
		assert_int_equal(r.nout, 0);   /* nothing printed on failure */
		run_free(&r);
	}
	/* a backend's own checks: its workload, its option values */
	{
		struct hwbp_trace_session *s = hwbp_trace_session_new(hwbp_trace_backend_find("lackey"), NULL);
		bool input = false;

		assert_int_equal(hwbp_trace_session_option(s, "lackey", "/nonexistent.log"), 0);
		assert_int_equal(hwbp_trace_session_run(s), -EINVAL);
		assert_string_equal(hwbp_trace_session_message(s, &input),
				    "--lackey needs --elf PROG (for its symbols)");
		assert_true(input);
		hwbp_trace_session_free(s);
		s = hwbp_trace_session_new(hwbp_trace_backend_find("sim"), NULL);
		assert_int_equal(hwbp_trace_session_run(s), -EINVAL);   /* no --demo */
		assert_string_equal(hwbp_trace_session_message(s, NULL), "--backend sim traces --demo");
		hwbp_trace_session_free(s);
		/* a ring size in histogram mode: only for a backend with kernel rings */
		{
			struct hwbp_trace_mode m = { false, 4, 4096, false };

			s = hwbp_trace_session_new(hwbp_trace_backend_find("sim"), NULL);
			assert_int_equal(hwbp_trace_session_option(s, "demo", NULL), 0);
			assert_int_equal(hwbp_trace_session_entry(s, "jiffies:rw-", "-e"), 0);
			assert_int_equal(hwbp_trace_session_mode(s, &m), 0);
			assert_int_equal(hwbp_trace_session_run(s), -EINVAL);
			assert_string_equal(hwbp_trace_session_message(s, &input),
					    "--buffer-kb applies only with --trace FILE, or with a backend "
					    "whose hits wait in the kernel's rings (not sim)");
			assert_true(input);
			hwbp_trace_session_free(s);
			assert_false(hwbp_trace_backend_find("sim")->flags & HWBP_TRACE_BACKEND_RINGS);
			assert_true(hwbp_trace_backend_find("perf")->flags & HWBP_TRACE_BACKEND_RINGS);
		}
#ifdef __linux__
		s = hwbp_trace_session_new(hwbp_trace_backend_find("ptrace"), NULL);
		assert_int_equal(hwbp_trace_session_option(s, "pid", "0"), 0);
		assert_int_equal(hwbp_trace_session_run(s), -EINVAL);
		assert_string_equal(hwbp_trace_session_message(s, NULL), "bad process id '0'");
		hwbp_trace_session_free(s);
#endif
	}
}

/* prepare, then hits from outside (a benchmark's path), then the run: the
 * histogram counts both. */
static void test_session_prepare(void **state)
{
	struct hwbp_trace_session *s = hwbp_trace_session_new(hwbp_trace_backend_find("sim"), NULL);
	char *out = NULL, kind[8], sym[32], fn[64];
	size_t nout = 0;
	FILE *f = open_memstream(&out, &nout);
	struct hwbp_trace_output o = { f, NULL, NULL, NULL, NULL };
	int err;
	struct hwbp_symtab *syms = hwbpi_demo_symtab(&err);
	const struct hwbp_sym *alloc_pid = hwbp_symtab_find(syms, "alloc_pid");
	struct hwbp_trace_event ev = { 0 };
	unsigned long long n = 0;
	bool found = false;

	(void)state;
	assert_non_null(alloc_pid);
	assert_int_equal(hwbp_trace_session_option(s, "demo", NULL), 0);
	assert_int_equal(hwbp_trace_session_entry(s, "pid_max:rw-", "-e"), 0);
	assert_int_equal(hwbp_trace_session_output(s, &o), 0);
	assert_int_equal(hwbp_trace_session_prepare(s), 0);
	assert_int_equal(hwbp_trace_session_prepare(s), -EBUSY);
	assert_int_equal(hwbp_trace_session_entry(s, "jiffies:rw-", "-e"), -EBUSY);  /* too late */
	ev.ip = alloc_pid->addr + 4;
	ev.kind = HWBP_R;
	ev.kind_how = HWBP_KIND_SIM;
	for (unsigned i = 0; i < 10; i++)
		hwbp_trace_session_hit(s, &ev);
	assert_int_equal(hwbp_trace_session_run(s), 0);
	fclose(f);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
		if (sscanf(line, "%7s %31s %63s %llu", kind, sym, fn, &n) == 4 &&
		    strcmp(fn, "alloc_pid") == 0 && strcmp(kind, "R") == 0) {
			found = true;
			assert_int_equal(n, 200 + 10);   /* the demo's 200 reads, and ours */
		}
	assert_true(found);
	free(out);
	hwbp_trace_session_free(s);
	hwbp_symtab_free(syms);
}

/* hwbp_trace_session_hist and _ring: NULL until prepared and in the other
 * mode; once prepared, the very histogram and rings the hit path feeds. */
static void test_session_accessors(void **state)
{
	const struct hwbp_trace_backend *sim = hwbp_trace_backend_find("sim");
	static const struct {
		bool trace;
		unsigned cpu;     /* the event's CPU (the demo has HWBPI_DEMO_CPUS) */
	} cases[] = { { false, 0 }, { false, 3 }, { true, 0 }, { true, 3 } };

	(void)state;
	assert_null(hwbp_trace_session_hist(NULL));
	assert_null(hwbp_trace_session_ring(NULL, 0));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hwbp_trace_session *s = hwbp_trace_session_new(sim, NULL);
		struct hwbp_trace_mode m = { cases[i].trace, 4, cases[i].trace ? 4096 : 0, false };
		char *text = NULL;
		size_t ntext = 0;
		FILE *f = open_memstream(&text, &ntext);
		struct hwbp_trace_output o = { NULL, f, NULL, NULL, NULL };
		struct hwbp_trace_event ev = { 0 }, got[4];
		const struct hwbp_hist *h;
		struct hwbp_ring *r;
		uint64_t produced, lost;

		assert_non_null(f);
		assert_int_equal(hwbp_trace_session_option(s, "demo", NULL), 0);
		assert_int_equal(hwbp_trace_session_entry(s, "pid_max:rw-", "-e"), 0);
		assert_int_equal(hwbp_trace_session_entry(s, "jiffies:rw-", "-e"), 0);
		assert_int_equal(hwbp_trace_session_mode(s, &m), 0);
		assert_int_equal(hwbp_trace_session_output(s, &o), 0);
		assert_null(hwbp_trace_session_hist(s));           /* not prepared */
		assert_null(hwbp_trace_session_ring(s, 0));
		assert_int_equal(hwbp_trace_session_prepare(s), 0);
		h = hwbp_trace_session_hist(s);
		r = hwbp_trace_session_ring(s, cases[i].cpu);
		assert_null(hwbp_trace_session_ring(s, HWBPI_DEMO_CPUS));  /* no such CPU */
		ev.cpu = (uint16_t)cases[i].cpu;
		ev.bp = 1;
		ev.ip = 0x1234;
		ev.kind = HWBP_W;
		for (unsigned k = 0; k < 3; k++)
			hwbp_trace_session_hit(s, &ev);
		if (cases[i].trace) {
			assert_null(h);
			assert_non_null(r);
			/* The caller as the consumer: the three events, in order. */
			assert_int_equal(hwbp_ring_pop(r, got, 4), 3);
			assert_int_equal(got[2].ip, 0x1234);
			assert_int_equal(got[2].cpu, cases[i].cpu);
			hwbp_ring_stats(r, &produced, &lost);
			assert_int_equal(produced, 3);
			assert_int_equal(lost, 0);
		} else {
			assert_null(r);
			assert_non_null(h);
			assert_int_equal(h->nbp, 2);
			assert_int_equal(h->n, 4);
			assert_int_equal(h->hits[0], 0);
			assert_int_equal(h->hits[1], 3);
			/* Still the session's after the run: the demo's hits added. */
			assert_int_equal(hwbp_trace_session_run(s), 0);
			assert_ptr_equal(hwbp_trace_session_hist(s), h);
			assert_true(h->hits[1] > 3);
		}
		hwbp_trace_session_free(s);
		fclose(f);
		free(text);
	}
}

/* hwbp_trace_lackey_scan: what the lackey backend reads, counted. */
static void test_lackey_scan(void **state)
{
	static const struct {
		const char *text;
		uint64_t lines, bad, accesses;
	} cases[] = {
		{ "", 0, 0, 0 },
		{ "I  04012a3,3\n L 1ffefffd48,8\n S 1ffefffd40,4\n M 0601040,8\n", 4, 0, 3 },
		{ "I  04012a3,3\r\n L 1ffefffd48,8\r\n", 2, 0, 1 },          /* CRLF */
		{ "I  04012a3,3\n L 1ffefffd48,8", 2, 0, 1 },                  /* no last newline */
		{ "==1234== Lackey, an example Valgrind tool\n", 1, 1, 0 },
		{ "I  zz,3\n L -1,8\n L 0x10,8\n L 10,0\n L 10,65\n", 5, 5, 0 },
		{ " X 10,8\n L 10,8 \n L 10,64\n", 3, 2, 1 },
		{ "I  04012a3,3\n L 1000,8\n L 1000,8\n\n", 4, 1, 2 },      /* an empty line */
	};
	struct hwbp_trace_lackey_counts c;
	FILE *w;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i].text);
		char buf[256];
		/* fmemopen() refuses 0 bytes: the empty trace is /dev/null. */
		FILE *f = len ? fmemopen(memcpy(buf, cases[i].text, len), len, "r")
			      : fopen("/dev/null", "r");

		assert_non_null(f);
		memset(&c, 0xff, sizeof(c));
		assert_int_equal(hwbp_trace_lackey_scan(f, &c), 0);
		assert_int_equal(c.bytes, len);
		if (c.lines != cases[i].lines || c.bad != cases[i].bad ||
		    c.accesses != cases[i].accesses)
			fail_msg("case %zu: lines %llu bad %llu accesses %llu", i,
				 (unsigned long long)c.lines, (unsigned long long)c.bad,
				 (unsigned long long)c.accesses);
		fclose(f);
	}
	assert_int_equal(hwbp_trace_lackey_scan(NULL, &c), -EINVAL);
	assert_int_equal(hwbp_trace_lackey_scan(stdin, NULL), -EINVAL);
	/* A stream that cannot be read: its error, not an empty trace. */
	w = fopen("/dev/null", "w");
	assert_non_null(w);
	assert_int_equal(hwbp_trace_lackey_scan(w, &c), -EIO);
	fclose(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_demo_histogram),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_trace_accounting),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_session_options),
		cmocka_unit_test(test_session_run),
		cmocka_unit_test(test_session_errors),
		cmocka_unit_test(test_session_prepare),
		cmocka_unit_test(test_session_accessors),
		cmocka_unit_test(test_lackey_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
