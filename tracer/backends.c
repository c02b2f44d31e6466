/* SPDX-License-Identifier: MIT */
/*
 * The backend registry (include/hwbp/trace.h) and the backends that need
 * no operating-system tracing facility: `sim` (the demo kernel on the
 * simulator), `lackey` (a valgrind lackey trace replayed on the
 * simulator) and `qemu-x86` (the demo kernel as real code under QEMU).
 * The Linux backends are in tracer/backend_linux.c (ptrace, perf, bpf)
 * and tracer/backend_module.c (module: hwbp_ksym.ko).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dwarf.h"
#include "qemu_x86.h"
#include "session.h"

/* ------------------------------------------------------ the registry */

extern const struct hwbp_trace_backend hwbpi_backend_sim, hwbpi_backend_lackey,
	hwbpi_backend_qemu_x86;
#ifdef __linux__
extern const struct hwbp_trace_backend hwbpi_backend_ptrace, hwbpi_backend_perf,
	hwbpi_backend_bpf, hwbpi_backend_module;
#endif

/* In the order a default is chosen: the first whose selecting option
 * (HWBP_TRACE_OPT_SELECTS) was given. */
static const struct hwbp_trace_backend *const registry[] = {
	&hwbpi_backend_sim,
	&hwbpi_backend_lackey,
	&hwbpi_backend_qemu_x86,
#ifdef __linux__
	&hwbpi_backend_ptrace,
	&hwbpi_backend_perf,
	&hwbpi_backend_bpf,
	&hwbpi_backend_module,
#endif
};

const struct hwbp_trace_backend *hwbp_trace_backend_at(unsigned i)
{
	return i < sizeof(registry) / sizeof(registry[0]) ? registry[i] : NULL;
}

const struct hwbp_trace_backend *hwbp_trace_backend_find(const char *name)
{
	for (unsigned i = 0; name && i < sizeof(registry) / sizeof(registry[0]); i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

const struct hwbp_trace_backend_option *
hwbp_trace_backend_option(const struct hwbp_trace_backend *b, const char *name)
{
	for (const struct hwbp_trace_backend_option *o = b && name ? b->options : NULL; o && o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

/* ------------------------------------------- simulator: demo, lackey */

static const char *const demo_watches[] = {
	"jiffies:rw-", "pid_max:rw-", "nr_threads:rw-", "total_forks:-w-", NULL,
};

struct sim_state {
	struct hwbp_trace_session *s;
	bool (*next)(void *, struct hwbpi_work_access *);
	void *arg;
	struct hwbpi_demo_state demo;
	struct hwbpi_lackey lk;
	bool bias_guessed;        /* lackey: no --load-bias, the guess was used */
	uint64_t bias;
	uint64_t count;
};

/* The workload, with the trace-mode consumer between batches, until it
 * ends or the session is stopped. */
static bool next_and_drain(void *arg, struct hwbpi_work_access *a)
{
	struct sim_state *st = arg;

	if ((++st->count & 1023) == 0) {
		if (st->s->stop)
			return false;
		hwbpi_session_drain(st->s);
	}
	return st->next(st->arg, a);
}

static int sim_state_new(struct hwbp_trace_session *s)
{
	struct sim_state *st = calloc(1, sizeof(*st));

	if (!st)
		return hwbpi_fail(s, -ENOMEM, false, "out of memory");
	st->s = s;
	s->bstate = st;
	if (!s->have_cpu)
		hwbp_cpu_preset("x86_64", &s->cpu);   /* the simulator's default */
	return 0;
}

static int sim_open(struct hwbp_trace_session *s)
{
	struct sim_state *st;
	int ret = 0;

	if (!hwbpi_session_opt(s, "demo"))
		return hwbpi_fail(s, -EINVAL, true, "--backend %s traces %s", s->backend->name,
				  s->backend->workload);
	if ((ret = sim_state_new(s)))
		return ret;
	st = s->bstate;
	s->syms = hwbpi_demo_symtab(&ret);
	if (!s->syms)
		return hwbpi_fail(s, ret, false, "cannot build the symbol table");
	s->syms_finished = true;
	s->ncpus = HWBPI_DEMO_CPUS;
	s->default_entries = demo_watches;
	st->next = hwbpi_demo_next;
	st->arg = &st->demo;
	return 0;
}

/* A wrong guess of the load bias looks like a watch nothing touched:
 * one line naming the watches without a hit, the guess and the way out.
 * (Trace mode counts no hits per watch: there, when none had any.) */
static void warn_guessed_bias(struct hwbp_trace_session *s, const struct sim_state *st)
{
	char names[256] = "";
	size_t len = 0;
	unsigned zero = 0;

	for (unsigned i = 0; i < s->t.nw; i++) {
		if (s->t.trace ? hwbpi_tracer_hits(&s->t) != 0 : s->t.hist.hits[i] != 0)
			continue;
		if (len < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
						zero ? ", " : "", s->t.w[i].name);
		zero++;
	}
	if (zero)
		hwbpi_note(s, "warning: 0 hits for %s with the load bias 0x%" PRIx64
			   " guessed for --elf: if the trace ran it elsewhere, give --load-bias",
			   names, st->bias);
}

static int sim_run(struct hwbp_trace_session *s)
{
	struct sim_state *st = s->bstate;
	char err[256] = "";
	int ret = hwbpi_trace_sim(&s->t, &s->cpu, s->ncpus, next_and_drain, st, err, sizeof(err));

	if (ret)
		return hwbpi_fail(s, ret, false, "cannot watch %s", err[0] ? err : hwbp_errno_name(ret));
	if (st->lk.in && st->lk.bad > st->lk.lines / 2)
		hwbpi_note(s, "%" PRIu64 " of %" PRIu64 " lackey lines were not accesses", st->lk.bad,
			   st->lk.lines);
	if (st->bias_guessed)
		warn_guessed_bias(s, st);
	return 0;
}

static void sim_close(struct hwbp_trace_session *s)
{
	struct sim_state *st = s->bstate;

	if (st && st->lk.in)
		fclose(st->lk.in);
	free(st);
	s->bstate = NULL;
}

static int lackey_open(struct hwbp_trace_session *s)
{
	const char *path = hwbpi_session_opt(s, "lackey"), *elf = hwbpi_session_opt(s, "elf");
	const char *bias_s = hwbpi_session_opt(s, "load-bias");
	struct sim_state *st;
	struct stat sb;
	uint64_t bias = 0;
	int ret;

	if (!path)
		return hwbpi_fail(s, -EINVAL, true, "--backend %s traces %s", s->backend->name,
				  s->backend->workload);
	if (!elf)
		return hwbpi_fail(s, -EINVAL, true, "--lackey needs --elf PROG (for its symbols)");
	if (bias_s && hwbp_parse_u64(bias_s, &bias))
		return hwbpi_fail(s, -EINVAL, true, "bad --load-bias '%s'", bias_s);
	/* An ET_EXEC program runs at its link addresses: a bias other than
	 * 0 for it would only move its symbols away from the trace's. */
	if (bias && !hwbpi_lackey_movable(elf))
		return hwbpi_fail(s, -EINVAL, true, "--load-bias %s does not apply: --elf '%s' is not "
				  "position-independent (it runs at its link addresses: bias 0)",
				  bias_s, elf);
	if ((ret = sim_state_new(s)))
		return ret;
	st = s->bstate;
	if (!bias_s)
		bias = hwbpi_lackey_guess_bias(path, elf);
	st->bias_guessed = !bias_s;
	st->bias = bias;
	s->syms = hwbp_symtab_new(&ret);
	if (!s->syms)
		return hwbpi_fail(s, ret, false, "cannot build the symbol table");
	hwbpi_symtab_set_dwarf(s->syms, s->dwarf);   /* debug files, lines (srcline.c) */
	ret = hwbp_symtab_load_elf(s->syms, elf, bias);
	if (ret < 0)
		return hwbpi_fail(s, ret, true, "cannot read symbols of --elf '%s': %s", elf,
				  hwbp_errno_name(ret));
	st->lk.in = fopen(path, "r");
	if (!st->lk.in)
		return hwbpi_fail(s, -errno, true, "cannot read --lackey '%s': %s", path,
				  hwbp_errno_name(-errno));
	/* fopen() opens a directory for reading on Linux; its first read
	 * fails with EISDIR, which would look like an empty trace. */
	if (fstat(fileno(st->lk.in), &sb) == 0 && S_ISDIR(sb.st_mode))
		return hwbpi_fail(s, -EISDIR, true, "cannot read --lackey '%s': EISDIR", path);
	st->next = hwbpi_lackey_next;
	st->arg = &st->lk;
	return 0;
}

static const struct hwbp_trace_backend_option sim_options[] = {
	{ "demo", 0, NULL, HWBP_TRACE_OPT_WORKLOAD | HWBP_TRACE_OPT_SELECTS, NULL,
	  "the built-in demo: a 4-CPU kernel of 36 functions" },
	{ NULL, 0, NULL, 0, NULL, NULL },
};

const struct hwbp_trace_backend hwbpi_backend_sim = {
	.name = "sim",
	.description = "the simulator running the built-in demo kernel",
	.workload = "--demo",
	.options = sim_options,
	.flags = HWBP_TRACE_BACKEND_CPU | HWBP_TRACE_BACKEND_STACKS,
	.open = sim_open,
	.run = sim_run,
	.close = sim_close,
};

static const struct hwbp_trace_backend_option lackey_options[] = {
	{ "lackey", 0, "FILE", HWBP_TRACE_OPT_WORKLOAD | HWBP_TRACE_OPT_SELECTS, "elf",
	  "a valgrind --tool=lackey --trace-mem=yes trace" },
	{ "elf", 0, "PROG", 0, NULL, "the traced program (its symbols)" },
	{ "load-bias", 0, "B", 0, NULL, "PROG's load bias (default: guessed from the trace)" },
	{ NULL, 0, NULL, 0, NULL, NULL },
};

const struct hwbp_trace_backend hwbpi_backend_lackey = {
	.name = "lackey",
	.description = "the simulator replaying a valgrind lackey trace of a program",
	.workload = "--lackey FILE --elf PROG",
	.options = lackey_options,
	.flags = HWBP_TRACE_BACKEND_CPU,
	.open = lackey_open,
	.run = sim_run,
	.close = sim_close,
};

/* ------------------------------------------------------------ qemu-x86 */

struct qemu_state {
	char kernel[4096], symbols[4096];
};

static int qemu_open(struct hwbp_trace_session *s)
{
	struct qemu_state *q;
	char err[512] = "";
	int ret;

	if (!hwbpi_session_opt(s, "demo"))
		return hwbpi_fail(s, -EINVAL, true, "--backend %s traces %s", s->backend->name,
				  s->backend->workload);
	q = calloc(1, sizeof(*q));
	if (!q)
		return hwbpi_fail(s, -ENOMEM, false, "out of memory");
	s->bstate = q;
	ret = hwbpi_qemu_x86_files(q->kernel, q->symbols, sizeof(q->kernel), err, sizeof(err));
	if (ret)
		return hwbpi_fail(s, ret, false, "qemu-x86: %s", err[0] ? err : hwbp_errno_name(ret));
	/* The demo as real code: its symbols are the kernel ELF's own. */
	s->syms = hwbp_symtab_new(&ret);
	if (s->syms && (ret = hwbp_symtab_load_elf(s->syms, q->symbols, 0)) >= 0)
		ret = 0;
	if (ret)
		return hwbpi_fail(s, ret, false, "qemu-x86: cannot read %s: %s", q->symbols,
				  hwbp_errno_name(ret));
	hwbp_cpu_preset("x86_64", &s->cpu);
	s->ncpus = 1;
	s->default_entries = demo_watches;
	return 0;
}

static int qemu_run(struct hwbp_trace_session *s)
{
	struct qemu_state *q = s->bstate;
	char err[512] = "";
	uint64_t disagree = 0;
	int ret = hwbpi_trace_qemu_x86(&s->t, q->kernel, &s->stop, &disagree, err, sizeof(err));

	/* A watch the planner refused, as the sim backend says it; anything
	 * else is QEMU or the demo kernel failing (a missing image, an exec
	 * error, a crash). */
	if (ret == -ENOSPC || ret == -ERANGE || ret == -EOPNOTSUPP || ret == -EFAULT)
		return hwbpi_fail(s, ret, false, "cannot watch %s", err[0] ? err : hwbp_errno_name(ret));
	if (ret)
		return hwbpi_fail(s, ret, false, "qemu-x86: %s", err[0] ? err : hwbp_errno_name(ret));
	if (disagree)
		hwbpi_note(s, "qemu-x86: %" PRIu64 " loads (by the access site table) changed the "
			   "watched bytes", disagree);
	return 0;
}

static void qemu_close(struct hwbp_trace_session *s)
{
	free(s->bstate);
	s->bstate = NULL;
}

static const struct hwbp_trace_backend_option qemu_options[] = {
	{ "demo", 0, NULL, HWBP_TRACE_OPT_WORKLOAD, NULL,
	  "the built-in demo, as real code in a bare-metal kernel" },
	{ NULL, 0, NULL, 0, NULL, NULL },
};

const struct hwbp_trace_backend hwbpi_backend_qemu_x86 = {
	.name = "qemu-x86",
	.description = "the demo kernel as real code under QEMU (an x86_64 CPU)",
	.workload = "--demo",
	.options = qemu_options,
#ifdef HWBP_HAVE_QEMU_X86_DEMO
	.flags = 0,
#else
	.flags = HWBP_TRACE_BACKEND_MISSING,
#endif
	.open = qemu_open,
	.run = qemu_run,
	.close = qemu_close,
};
