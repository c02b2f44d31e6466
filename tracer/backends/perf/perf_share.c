/* SPDX-License-Identifier: MIT */
/*
 * The perf backend's shared debug registers (tracer/backends/perf/perf_int.h,
 * hwbpi_perf_plan_shared()): more watches than registers, where each hit
 * is decoded, plan as requests that share slots (HWBP_REQ_SHARE) and
 * open one event per armed slot; perf_sample.c gives each sample of such
 * a piece to the watches its decoded access touched.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/linux/linux.h"
#include "backends/perf/perf_int.h"

/*
 * More watches than debug registers, each hit decoded (s->dec): plan them
 * all as requests that may share registers (HWBP_REQ_SHARE) in one
 * thread's slots, and make each armed slot one piece for its watches.
 * Not for watches bound to one CPU (per-CPU copies), kind events or the
 * kernel's counting program (none decodes).  Returns 0 with the pieces in
 * s->pc, -ENOSPC when even sharing does not fit (nothing kept), or an error.
 */
/* One thread's slots, pure accounting. */
struct shared {
	struct hwbp_ctx ctx;
	struct hwbp_slots set[1];
};

/* Every watch of @t installed in @a as a request that may share
 * (req_watch[id]: its watch); -ENOSPC for one that cannot share. */
static int install_shared(const struct hwbpi_tracer *t, const struct hwbp_cpu *cpu,
			  enum hwbp_scope scope, struct shared *a, int *req_watch)
{
	int ret = hwbp_ctx_init(&a->ctx, cpu, 1, a->set, NULL);

	for (unsigned i = 0; ret == 0 && i < t->nw; i++) {
		const struct hwbpi_watch *w = &t->w[i];
		struct hwbp_request q = { w->addr, hwbpi_watch_len(w, cpu), w->type, scope,
					  HWBP_REQ_WIDEN | HWBP_REQ_SHARE };
		int id;

		if (w->on_cpu || (w->type & HWBP_X))
			ret = -ENOSPC;
		else if ((ret = hwbp_install(&a->ctx, &q, 0, NULL, &id)) == 0)
			req_watch[id] = (int)i;
	}
	return ret;
}

bool hwbpi_perf_share_fits(const struct hwbpi_tracer *t, const struct hwbp_cpu *cpu,
			   enum hwbp_scope scope)
{
	struct shared *a = calloc(1, sizeof(*a));
	int req_watch[HWBP_MAX_REQUESTS];
	bool fits = a && install_shared(t, cpu, scope, a, req_watch) == 0;

	free(a);
	return fits;
}

int hwbpi_perf_plan_shared(struct sess *s, const struct hwbp_cpu *cpu, enum hwbp_scope scope)
{
	struct shared *a = calloc(1, sizeof(*a));
	uint64_t watches_of[HWBP_MAX_SLOTS] = { 0 };
	int req_watch[HWBP_MAX_REQUESTS];
	int ret;

	if (!a)
		return -ENOMEM;
	ret = install_shared(s->t, cpu, scope, a, req_watch);
	s->npc = 0;
	for (unsigned k = 0; ret == 0 && k < HWBP_MAX_SLOTS; k++) {
		const struct hwbp_slot *sl = &a->set[0].data[k];
		struct piece *p;
		char why[160];

		if (!sl->refs)
			continue;
		if (hwbpi_linux_piece_ok(cpu, false, &sl->piece, why, sizeof(why))) {
			ret = -ENOSPC;   /* a shared piece Linux cannot program */
			break;
		}
		for (unsigned id = 0; id < HWBP_MAX_REQUESTS; id++)
			if (sl->requests & (UINT64_C(1) << id))
				watches_of[k] |= UINT64_C(1) << req_watch[id];
		p = &s->pc[s->npc++];
		memset(p, 0, sizeof(*p));
		p->watch = (unsigned)__builtin_ctzll(watches_of[k]);
		p->watches = sl->refs > 1 ? watches_of[k] : 0;
		p->addr = sl->piece.addr;
		p->len = sl->piece.len;
		p->type = sl->piece.type;
		p->tag = p->type == HWBP_R || p->type == HWBP_W ? p->type : 0;
		p->twin = -1;
		if (p->watches) {
			s->res->shared += (unsigned)__builtin_popcountll(p->watches);
			s->res->shared_slots++;
		}
	}
	if (ret)
		s->npc = 0;
	free(a);
	return ret;
}
