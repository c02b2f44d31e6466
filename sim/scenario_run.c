/* SPDX-License-Identifier: MIT */
/*
 * The scenario runner: executes a file's commands, one line at a time as
 * the parser's second pass gives them, against a simulator of
 * HWBP_SIM_MAX_CPUS CPUs, through the generic API as a kernel would (watch:
 * plan -> slots -> encode -> the simulator's glue writes every CPU; an
 * exception: hwbp_decode()), and checks each `expect` against the result of
 * the command above it.  With opts->emit it prints one canonical line per
 * access instead (format.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "scenario.h"


const struct hwbpi_arenas hwbpi_scn_arenas = {
	HWBPI_SCN_ARENA_B, HWBPI_SCN_ARENA_C, HWBPI_SCN_ARENA_SIZE,
};

void hwbpi_scn_result_text(const struct hwbpi_scn_run *r, const struct hwbp_sim_result *res,
			   bool decoded, char *buf, size_t n)
{
	hwbpi_sim_result_text(&r->ps->cpu, decoded ? hwbpi_sim_regs(r->sim, r->cur) : NULL, res,
			      &hwbpi_scn_arenas, buf, n);
}

int hwbpi_scn_find_name(const struct hwbpi_scn_run *r, const char *name)
{
	for (int i = 0; i < HWBP_MAX_REQUESTS; i++)
		if (r->names[i][0] && strcmp(r->names[i], name) == 0)
			return i;
	return -1;
}

/* What a kernel's handler knows of the access, for hwbp_decode(). */
static void describe_access(struct hwbpi_scn_run *r, const struct hwbp_sim_access *a)
{
	static const unsigned kinds[HWBP_SIM_STI + 1] = {
		[HWBP_SIM_READ] = HWBP_R, [HWBP_SIM_WRITE] = HWBP_W, [HWBP_SIM_EXEC] = HWBP_X,
		[HWBP_SIM_IO] = 0, [HWBP_SIM_ZERO] = HWBP_W, [HWBP_SIM_MOVSS] = HWBP_R,
	};

	r->acc.addr = a->addr;
	r->acc.size = a->op == HWBP_SIM_EXEC ? 1 : a->size;
	if (a->op == HWBP_SIM_ZERO) {
		r->acc.addr = a->addr & ~(uint64_t)(r->zero_block - 1);
		r->acc.size = r->zero_block;
	}
	if (a->op == HWBP_SIM_IO || a->op >= HWBP_SIM_SWBP)
		/* a port, or no memory (a MOV SS from memory is its 2 bytes):
		 * nothing to filter by */
		r->acc.size = a->op == HWBP_SIM_MOVSS ? a->size : 0;
	r->acc.kind = kinds[a->op];
	r->acc.priv = hwbp_sim_priv(r->sim, r->cur);
	if (r->no_decoder) {
		/* Only the status: no bytes, no kind but what it says itself
		 * (arm64 WnR); the privilege is the handler's own knowledge. */
		r->acc.addr = 0;
		r->acc.size = 0;
		r->acc.kind = 0;
	}
}

/* Decode the exception through the generic API, as a kernel would. */
static void decode(struct hwbpi_scn_run *r, const struct hwbp_sim_access *a)
{
	r->decoded = false;
	/* Only a debug exception that can name slots is decoded (not #UD,
	 * #GP, INT3's #BP, BRK, a program interrupt or an arm64 step). */
	if (r->res.cls == HWBP_SIM_NONE || r->res.cls == HWBP_SIM_UD || r->res.cls == HWBP_SIM_GP ||
	    r->res.cls == HWBP_SIM_BP || r->res.cls == HWBP_SIM_BRK ||
	    r->res.cls == HWBP_SIM_PROGRAM || r->res.cls == HWBP_SIM_STEP || r->nlive == 0)
		return;
	describe_access(r, a);
	if (hwbp_decode(&r->ctx, r->cur, NULL, &r->res.st, &r->acc, &r->hit) == 0)
		r->decoded = true;
}

void hwbpi_scn_fail(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *e, const char *fmt, ...)
{
	va_list ap;

	r->st->failed++;
	if (!r->o->out || r->o->emit)
		return;
	fprintf(r->o->out, "%s:%u: ", r->ps->lx.file, e->line);
	va_start(ap, fmt);
	vfprintf(r->o->out, fmt, ap);
	va_end(ap);
	fputc('\n', r->o->out);
}

/* Does an `expect error` for this profile follow the command just run?
 * Asked only when it failed: the parser reads ahead and comes back. */
static bool error_expected(struct hwbpi_scn_run *r)
{
	return hwbpi_scn_error_follows(r->ps, (int)r->o->profile);
}

/* With emit: "LINE: " and the result as the bare-metal harnesses print it. */
static void emit(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *c)
{
	char buf[512];

	if (!r->o->emit || !r->o->out)
		return;
	hwbpi_scn_result_text(r, &r->res, true, buf, sizeof(buf));
	fprintf(r->o->out, "%u: %s\n", c->line, buf);
}

static void run_set(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *c)
{
	r->cmd_err = hwbp_sim_set_reg(r->sim, r->cur, c->name, c->a, &r->res);
	r->have_res = true;
	if (r->res.cls != HWBP_SIM_NONE)
		emit(r, c);
}

/* watch: install on every CPU (hwbp_install), remember the name. */
static void run_watch(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *c)
{
	struct hwbp_request q = { c->a, c->b, c->type, c->scope,
				  (c->widen ? HWBP_REQ_WIDEN : 0) | (c->share ? HWBP_REQ_SHARE : 0) };
	int id = -1;

	if (hwbpi_scn_find_name(r, c->name) >= 0)
		r->cmd_err = -EBUSY;
	else
		r->cmd_err = hwbp_install(&r->ctx, &q, HWBP_CPU_ALL, NULL, &id);
	if (r->cmd_err == 0) {
		snprintf(r->names[id], HWBPI_SCN_NAME_LEN, "%s", c->name);
		r->nlive++;
	} else if (!error_expected(r)) {
		hwbpi_scn_fail(r, c, "watch %s failed with %s (no 'expect error' follows)", c->name,
			       hwbp_errno_name(r->cmd_err));
	}
}

static void run_unwatch(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *c)
{
	int id = hwbpi_scn_find_name(r, c->name);

	r->cmd_err = id < 0 ? -ENOENT : hwbp_remove(&r->ctx, id);
	if (r->cmd_err == 0) {
		r->names[id][0] = '\0';
		r->nlive--;
	} else if (!error_expected(r)) {
		hwbpi_scn_fail(r, c, "unwatch %s failed with %s", c->name, hwbp_errno_name(r->cmd_err));
	}
}

/* mode: cpu=N picks the CPU of the lines below; other keys go to it. */
static void run_mode(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *c)
{
	for (unsigned k = 0; k < c->nmode; k++) {
		int ret;

		if (strcmp(c->mkey[k], "cpu") == 0)
			r->cur = (unsigned)c->mval[k];
		else if ((ret = hwbp_sim_mode(r->sim, r->cur, c->mkey[k], c->mval[k])))
			hwbpi_scn_fail(r, c, "mode %s=%" PRIu64 " failed with %s", c->mkey[k], c->mval[k],
				       hwbp_errno_name(ret));
	}
}

static void run_access(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *c)
{
	static const uint32_t ops[] = {
		[C_READ] = HWBP_SIM_READ, [C_WRITE] = HWBP_SIM_WRITE, [C_EXEC] = HWBP_SIM_EXEC,
		[C_IO] = HWBP_SIM_IO, [C_ZERO] = HWBP_SIM_ZERO,
	};
	struct hwbp_sim_access a = { c->a, (uint32_t)c->b, 0 };

	a.op = c->kind == C_INSN ? c->type : ops[c->kind];
	if (c->kind == C_EXEC)
		a.size = 1;
	if (c->kind == C_ZERO)
		a.size = r->zero_block;
	hwbp_sim_access(r->sim, r->cur, &a, &r->res);
	r->have_res = true;
	r->st->accesses++;
	decode(r, &a);
	emit(r, c);
}

/* get REG: the instruction; its value is the result's status. */
static void run_get(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *c)
{
	hwbp_sim_get_insn(r->sim, r->cur, c->name, &r->res);
	r->have_res = true;
	emit(r, c);
}

static void run_resume(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *c)
{
	hwbp_sim_resume(r->sim, r->cur, &r->res);
	r->have_res = true;
	emit(r, c);
}

/* A command: its result replaces the one expect lines check. */
static void run_cmd(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *c)
{
	r->have_res = false;
	r->decoded = false;
	r->cmd_err = 0;
	switch (c->kind) {
	case C_SET:
		run_set(r, c);
		break;
	case C_WATCH:
		run_watch(r, c);
		break;
	case C_UNWATCH:
		run_unwatch(r, c);
		break;
	case C_MODE:
		run_mode(r, c);
		break;
	case C_READ:
	case C_WRITE:
	case C_EXEC:
	case C_IO:
	case C_ZERO:
	case C_INSN:
		run_access(r, c);
		break;
	case C_GET:
		run_get(r, c);
		break;
	case C_RESUME:
		run_resume(r, c);
		break;
	case C_DECODER:
		r->no_decoder = !c->a;
		break;
	case C_CPU:
	case C_EXPECT:
		break;
	}
}

/* The second pass: each line run (or checked) as it is parsed. */
static int run_lines(struct hwbpi_scn_run *r)
{
	struct hwbpi_scn_cmd c;
	int ret;

	while ((ret = hwbpi_scn_next(r->ps, &c)) == 1) {
		if (c.kind == C_EXPECT)
			hwbpi_scn_check(r, &c);
		else
			run_cmd(r, &c);
	}
	return ret;
}

static int run_on_sim(struct hwbpi_scn_run *r)
{
	const struct hwbp_cpu *cpu = &r->ps->cpu;
	int ret;

	r->sim = hwbp_sim_new(cpu, r->o->profile, HWBP_SIM_MAX_CPUS, &ret);
	if (!r->sim)
		return ret;
	ret = hwbp_ctx_init(&r->ctx, cpu, HWBP_SIM_MAX_CPUS, r->percpu, hwbp_sim_glue(r->sim));
	if (ret) {
		hwbp_sim_free(r->sim);
		return ret;
	}
	/* The model's block (arm64 DC ZVA, powerpc dcbz), for the access and
	 * what a handler knows of it. */
	r->zero_block = hwbpi_sim_model(cpu->arch)->zero_block;
	ret = run_lines(r);
	hwbp_sim_free(r->sim);
	r->sim = NULL;
	return ret;
}

/* Both passes over @src: parse all, then run line by line. */
static int run_src(const char *file, struct hwbpi_scn_src *src,
		   const struct hwbp_scenario_opts *opts, struct hwbp_scenario_stats *stats,
		   char *errbuf, size_t errlen)
{
	struct hwbpi_scn_parser ps;
	struct hwbpi_scn_run *r;
	int ret;

	ret = hwbpi_scn_open(&ps, file, src, errbuf, errlen);
	if (ret)
		return ret;
	/* The struct hwbpi_scn_run state holds a context and per-CPU slot sets: heap, not
	 * stack (a few hundred KiB). */
	r = calloc(1, sizeof(*r));
	if (!r) {
		hwbpi_scn_close(&ps);
		return -ENOMEM;
	}
	r->ps = &ps;
	r->o = opts;
	r->st = stats;
	if (opts->emit && opts->out)
		fprintf(opts->out, "== %s\n", file);
	ret = run_on_sim(r);
	free(r);
	hwbpi_scn_close(&ps);
	return ret;
}

int hwbp_scenario_run(const char *file, const char *text, size_t len,
		      const struct hwbp_scenario_opts *opts, struct hwbp_scenario_stats *stats,
		      char *errbuf, size_t errlen)
{
	struct hwbpi_scn_src src;

	if (!opts || !stats || (!text && len))
		return -EINVAL;
	hwbpi_scn_src_text(&src, text ? text : "", len);
	return run_src(file, &src, opts, stats, errbuf, errlen);
}

int hwbp_scenario_run_file(const char *file, FILE *in, const struct hwbp_scenario_opts *opts,
			   struct hwbp_scenario_stats *stats, char *errbuf, size_t errlen)
{
	struct hwbpi_scn_src src;
	int ret;

	if (!in || !opts || !stats)
		return -EINVAL;
	hwbpi_scn_src_stream(&src, in);
	ret = run_src(file, &src, opts, stats, errbuf, errlen);
	hwbpi_scn_src_free(&src);
	return ret;
}
