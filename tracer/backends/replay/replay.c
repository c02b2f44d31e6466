/* SPDX-License-Identifier: MIT */
/*
 * The replay of an access stream through the simulator
 * (backends/replay/replay.h): what the sim and lackey backends run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/replay/replay.h"

/* Every watch installed on every CPU with request @flags, or none (the
 * first refusal said in @err). */
static int install_all(struct hwbp_ctx *ctx, struct hwbpi_tracer *t,
		       const struct hwbp_cpu *cpu_model, unsigned flags, char *err, size_t errlen)
{
	int ret = 0;

	for (unsigned i = 0; i < t->nw; i++)
		t->w[i].req = -1;
	for (unsigned i = 0; ret == 0 && i < t->nw; i++) {
		struct hwbpi_watch *w = &t->w[i];
		struct hwbp_request q = { w->addr, hwbpi_watch_len(w, cpu_model), w->type, HWBP_SCOPE_BOTH,
					  flags };

		/* X with R or W is two requests' worth; the tracer watches data
		 * or execution, as the entry's letters say. */
		if ((w->type & HWBP_X) && (w->type & HWBP_RW)) {
			hwbpi_say(err, errlen, "%s: watch data (rw) or execution (x), not both", w->name);
			ret = -EINVAL;
			break;
		}
		ret = hwbp_install(ctx, &q, HWBP_CPU_ALL, NULL, &w->req);
		if (ret) {
			char why[96];

			w->req = -1;
			snprintf(why, sizeof(why), ": %s (%s)", hwbp_errno_name(ret),
				 ret == -ENOSPC ? "not enough debug registers left" :
				 ret == -ERANGE ? "larger than this CPU can watch" :
				 ret == -EOPNOTSUPP ? "a type this CPU lacks" : "refused by the planner");
			hwbpi_say(err, errlen, "%s%s", w->name, why);
		}
	}
	for (unsigned i = 0; ret && i < t->nw; i++) {
		if (t->w[i].req >= 0)
			(void)hwbp_remove(ctx, t->w[i].req);
		t->w[i].req = -1;
	}
	return ret;
}

int hwbpi_replay(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu_model, unsigned ncpus,
		    bool (*next)(void *arg, struct hwbpi_work_access *a), void *arg,
		    char *err, size_t errlen)
{
	/* The context and its per-CPU slot sets: one allocation, at setup. */
	struct run {
		struct hwbp_ctx ctx;
		struct hwbp_slots percpu[HWBP_SIM_MAX_CPUS];
	} *run;
	struct hwbp_ctx *ctx;
	struct hwbp_sim *sim;
	struct hwbpi_work_access wa;
	uint64_t clock = 0;
	int ret;

	if (!t || !cpu_model || !next || ncpus == 0 || ncpus > HWBP_SIM_MAX_CPUS)
		return -EINVAL;
	run = calloc(1, sizeof(*run));
	sim = hwbp_sim_new(cpu_model, HWBP_SIM_SDM, ncpus, &ret);
	if (!run || !sim) {
		free(run);
		hwbp_sim_free(sim);
		return run ? ret : -ENOMEM;
	}
	ctx = &run->ctx;
	ret = hwbp_ctx_init(ctx, cpu_model, ncpus, run->percpu, hwbp_sim_glue(sim));
	/* Debug exceptions on, as a kernel does before it arms anything
	 * (whatever holds them off at reset: the model knows). */
	for (unsigned c = 0; ret == 0 && c < ncpus; c++)
		ret = hwbp_sim_debug_ready(sim, c);
	if (ret == 0)
		ret = install_all(ctx, t, cpu_model, HWBP_REQ_WIDEN, err, errlen);
	/* More watches than debug registers: nearby ones share registers
	 * (HWBP_REQ_SHARE); the simulator knows every access exactly, so
	 * each hit still goes to exactly the watches it touched. */
	if (ret == -ENOSPC) {
		char first[256];

		snprintf(first, sizeof(first), "%s", err && errlen ? err : "");
		ret = install_all(ctx, t, cpu_model, HWBP_REQ_WIDEN | HWBP_REQ_SHARE, err, errlen);
		if (err && errlen)
			snprintf(err, errlen, "%s", ret ? first : "");
		if (ret)
			ret = -ENOSPC;   /* the first reason is the one */
	}
	/* a workload that knows no callers (lackey) leaves them unset */
	while (ret == 0 && (wa.ncallers = 0, next(arg, &wa))) {
		struct hwbp_sim_access a = { wa.addr, wa.size, wa.op };
		struct hwbp_sim_result res;
		struct hwbp_hit hit;
		struct hwbp_access acc;

		clock++;
		if (wa.cpu >= ncpus || hwbp_sim_access(sim, wa.cpu, &a, &res) || res.cls == HWBP_SIM_NONE)
			continue;
		acc.addr = wa.addr;
		acc.size = wa.op == HWBP_SIM_EXEC ? 1 : wa.size;
		acc.kind = wa.op == HWBP_SIM_READ ? HWBP_R : wa.op == HWBP_SIM_WRITE ? HWBP_W : HWBP_X;
		acc.priv = hwbp_sim_priv(sim, wa.cpu);
		if (hwbp_decode(ctx, wa.cpu, NULL, &res.st, &acc, &hit) == 0) {
			if (hit.filtered)
				t->filtered++;
			for (unsigned i = 0; i < t->nw; i++) {
				struct hwbp_trace_event ev;

				if (t->w[i].req < 0 || !(hit.requests & (UINT64_C(1) << t->w[i].req)))
					continue;
				memset(&ev, 0, sizeof(ev));
				ev.ts = clock;   /* the simulator's clock: accesses so far */
				ev.ip = wa.ip;
				ev.addr = wa.addr;
				ev.cpu = wa.cpu;
				ev.bp = (uint16_t)i;
				/* The simulator knows the access exactly. */
				ev.kind = (uint8_t)acc.kind;
				ev.kind_how = HWBP_KIND_SIM;
				ev.size = (uint16_t)acc.size;
				hwbpi_tracer_hit_frames(t, &ev, wa.callers, wa.ncallers);
			}
		}
		hwbp_sim_resume(sim, wa.cpu, &res);
	}
	hwbp_sim_free(sim);
	free(run);
	return ret;
}
