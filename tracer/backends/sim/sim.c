/* SPDX-License-Identifier: MIT */
/*
 * The simulator's backends (registry/registry.c): `sim`, the built-in
 * demo kernel, and `lackey`, a valgrind lackey trace of a program, both
 * replayed through the simulator (backends/replay/replay.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backends/sim/sim_int.h"

struct sim_state {
	struct hwbpi_view *s;
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

static int sim_state_new(struct hwbpi_view *s)
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

static int sim_open(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
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
	s->default_entries = hwbpi_demo_watches;
	st->next = hwbpi_demo_next;
	st->arg = &st->demo;
	return 0;
}

/* A wrong guess of the load bias looks like a watch nothing touched:
 * one line naming the watches without a hit, the guess and the way out.
 * (Trace mode counts no hits per watch: there, when none had any.) */
static void warn_guessed_bias(struct hwbpi_view *s, const struct sim_state *st)
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

static int sim_run(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	struct sim_state *st = s->bstate;
	char err[256] = "";
	int ret = hwbpi_replay(&s->t, &s->cpu, s->ncpus, next_and_drain, st, err, sizeof(err));

	if (ret)
		return hwbpi_fail(s, ret, false, "cannot watch %s", err[0] ? err : hwbp_errno_name(ret));
	if (st->lk.in && st->lk.bad > st->lk.lines / 2)
		hwbpi_note(s, "%" PRIu64 " of %" PRIu64 " lackey lines were not accesses", st->lk.bad,
			   st->lk.lines);
	if (st->bias_guessed)
		warn_guessed_bias(s, st);
	return 0;
}

static void sim_close(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	struct sim_state *st = s->bstate;

	if (st && st->lk.in)
		fclose(st->lk.in);
	free(st);
	s->bstate = NULL;
}

/* The trace, open for the replay; a directory is refused: fopen() opens
 * one for reading on Linux, and its first read fails with EISDIR, which
 * would look like an empty trace. */
static int open_trace(struct hwbpi_view *s, struct sim_state *st, const char *path)
{
	struct stat sb;
	int err;

	st->lk.in = fopen(path, "r");
	if (!st->lk.in) {
		err = -errno;   /* once: the name's lookup may not keep errno */
		return hwbpi_fail(s, err, true, "cannot read --lackey '%s': %s", path,
				  hwbp_errno_name(err));
	}
	if (fstat(fileno(st->lk.in), &sb) == 0 && S_ISDIR(sb.st_mode))
		return hwbpi_fail(s, -EISDIR, true, "cannot read --lackey '%s': EISDIR", path);
	return 0;
}

static int lackey_open(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	const char *path = hwbpi_session_opt(s, "lackey"), *elf = hwbpi_session_opt(s, "elf");
	const char *bias_s = hwbpi_session_opt(s, "load-bias");
	struct sim_state *st;
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
	/* The trace first: a missing one or a directory is said as such,
	 * not as a bias that cannot be found in it.  No guess is better
	 * than a wrong one, whose replay would only find nothing. */
	if ((ret = open_trace(s, st, path)))
		return ret;
	if (!bias_s && (ret = hwbpi_lackey_bias(path, elf, &bias)))
		return hwbpi_fail(s, ret, false, "cannot guess the load bias of %s from the trace: "
				  "give --load-bias (%s)", elf, hwbp_errno_name(ret));
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

