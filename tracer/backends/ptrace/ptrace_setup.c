/* SPDX-License-Identifier: MIT */
/*
 * The ptrace backend's setup (tracer/backends/ptrace/ptrace_int.h,
 * hwbpi_pt_setup()): the watches planned into one task's slots, each
 * piece one Linux can program, sharing debug registers where they do not
 * fit one each and each hit's access is known, then the store-only twins
 * in the slots left.  The event loop (ptrace.c) then writes the slots to
 * every thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backends/linux/linux.h"
#include "backends/ptrace/ptrace_int.h"

/* Where the plan's requests for @w are now (retarget()). */
uint64_t hwbpi_pt_plan_addr(const struct hwbpi_pt_loop *L, const struct hwbpi_watch *w)
{
	return w->tls ? L->tls_at + w->addr : w->addr;
}

/* (ptrace_int.h); its store-only twin is hwbpi_pt_twin_req()'s (add_twins()). */
struct hwbp_request hwbpi_pt_watch_req(const struct hwbpi_pt_loop *L, const struct hwbpi_watch *w,
				      uint64_t addr)
{
	struct hwbp_request q = { addr, hwbpi_watch_len(w, &L->ctx.cpu), w->type,
				  HWBP_SCOPE_USER, HWBP_REQ_WIDEN | HWBP_REQ_LOCAL };

	if (L->share)
		q.flags |= HWBP_REQ_SHARE;
	return q;
}

struct hwbp_request hwbpi_pt_twin_req(const struct hwbpi_watch *w, uint64_t addr)
{
	struct hwbp_request q = { addr, w->len, HWBP_W, HWBP_SCOPE_USER, HWBP_REQ_LOCAL };

	return q;
}

/*
 * Kinds from DR6 (hwbpi_ptrace_set_kinds): each RW watch that reads gets,
 * in a slot the watches left free, a store-only twin on the same bytes; a
 * store sets both slots' DR6 bits (SDM Vol. 3B 18.2.3: B0-B3 for every
 * matching breakpoint), a load only the RW one's, so emit() knows the
 * kind without comparing values.  After every watch is installed, so
 * that twins never take a watch's slot.  Errors (@err): -ENOSPC (kinds
 * exact and no slot free for a twin), the planner's.
 */
static int add_twins(struct hwbpi_pt_loop *L, char *err, size_t errlen)
{
	struct hwbpi_ptrace *s = L->s;

	for (unsigned i = 0; i < L->t->nw; i++) {
		const struct hwbpi_watch *w = &L->t->w[i];
		const struct hwbp_plan *pl = hwbp_plan_of(&L->ctx, w->req);
		struct hwbp_request q = hwbpi_pt_twin_req(w, hwbpi_pt_plan_addr(L, w));
		int ret;

		L->twin[i] = -1;
		if (!s->twins || !pl || pl->type != HWBP_RW || !(w->type & HWBP_R))
			continue;
		ret = hwbp_install(&L->ctx, &q, 0, &L->task, &L->twin[i]);
		if (ret == -ENOSPC && !s->kinds_exact) {
			L->twin[i] = -1;
			s->twin_unsplit++;
			continue;
		}
		if (ret) {
			hwbpi_say(err, errlen, "%s: %s (%s)", w->name, hwbp_errno_name(ret),
				  ret == -ENOSPC ? "--kinds exact: no debug register free for its "
				  "store-only twin" : "its store-only twin was refused");
			return ret;
		}
		s->twin_split++;
	}
	return 0;
}

/* Install watch @w (w->req), saying in @err why not. */
static int install_watch(struct hwbpi_pt_loop *L, const struct hwbp_cpu *cpu,
			 struct hwbpi_watch *w, char *err, size_t errlen)
{
	struct hwbp_request q = hwbpi_pt_watch_req(L, w, hwbpi_pt_plan_addr(L, w));
	const struct hwbp_plan *pl;
	char why[160];
	int ret = hwbp_install(&L->ctx, &q, 0, &L->task, &w->req);

	if (ret == -ENOSPC) {
		bool inst = (w->type & HWBP_X) && !L->ctx.caps.shared;
		unsigned n = inst ? L->ctx.caps.inst_slots : L->ctx.caps.data_slots;
		int fr = hwbp_free_slots(&L->ctx, 0, &L->task, inst);

		hwbpi_say(err, errlen, "%s: no free debug register: %d of %u in use by the other "
		    "watches (%u %s per thread here)", w->name, fr >= 0 ? (int)n - fr : -1, n, n,
		    inst ? "instruction breakpoints" : L->ctx.caps.shared ? "debug registers" :
		    "watchpoints");
	} else if (ret) {
		hwbpi_say(err, errlen, "%s: %s (%s)", w->name, hwbp_errno_name(ret),
		    ret == -ERANGE ? "larger than this CPU can watch" :
		    ret == -EOPNOTSUPP ? "a type this CPU lacks" :
		    ret == -EFAULT ? "not a user-space address" : "refused by the planner");
	}
	if (ret)
		return ret;
	/* Pieces the kernel cannot program through ptrace (arm64 MASK
	 * blocks): refused here rather than watched wrongly.  A shared slot's
	 * piece (grown by this watch) too. */
	pl = hwbp_plan_of(&L->ctx, w->req);
	for (unsigned k = 0; ret == 0 && k < pl->n; k++)
		ret = hwbpi_linux_piece_ok(cpu, pl->inst, &pl->piece[k], why, sizeof(why));
	for (unsigned k = 0; ret == 0 && k < HWBP_MAX_SLOTS; k++)
		if (L->task.slots.data[k].refs)
			ret = hwbpi_linux_piece_ok(cpu, false, &L->task.slots.data[k].piece, why,
						   sizeof(why));
	if (ret)
		hwbpi_say(err, errlen, "%s: %s", w->name, why);
	return ret;
}

/* Every watch with an address installed, or none (the first error). */
static int install_watches(struct hwbpi_pt_loop *L, const struct hwbp_cpu *cpu, char *err,
			   size_t errlen)
{
	struct hwbpi_tracer *t = L->t;
	int ret = 0;

	for (unsigned i = 0; ret == 0 && i < t->nw; i++) {
		struct hwbpi_watch *w = &t->w[i];

		w->req = -1;
		/* A watch of objects has no address yet: each object gets its
		 * request when a function gives it (ptrace_objects.c). */
		if (w->object)
			continue;
		if ((w->type & HWBP_X) && (w->type & HWBP_RW)) {
			hwbpi_say(err, errlen, "%s: watch data (rw) or execution (x), not both", w->name);
			return -EINVAL;
		}
		L->off[i] = L->shadow_len;
		L->shadow_len += w->len <= sizeof(L->cur) ? w->len : 0;
		ret = install_watch(L, cpu, w, err, errlen);
	}
	for (unsigned i = 0; ret && i < t->nw; i++) {
		if (t->w[i].req >= 0)
			(void)hwbp_remove(&L->ctx, t->w[i].req);
		t->w[i].req = -1;
	}
	if (ret)
		L->shadow_len = 0;
	return ret;
}

int hwbpi_pt_setup(struct hwbpi_pt_loop *L, const struct hwbp_cpu *cpu, char *err, size_t errlen)
{
	int ret = hwbp_ctx_init(&L->ctx, cpu, 1, L->percpu, NULL);

	if (ret == 0)
		ret = hwbp_task_init(&L->ctx, &L->task);
	if (ret == 0)
		ret = install_watches(L, cpu, err, errlen);
	/*
	 * More watches than debug registers: nearby ones share registers
	 * (HWBP_REQ_SHARE), where each hit's address will be known to give
	 * it to the right watch: decoded (x86) or reported (arm64's FAR, as
	 * si_addr).  Only then: a shared register also traps on the bytes
	 * between its watches, and a wide access reported by its FAR alone
	 * names one of them.
	 */
	if (ret == -ENOSPC && (L->dec || L->ctx.caps.precision == HWBP_ADDR_WINDOW)) {
		char first[256];

		/* Sharing failing too (a shared piece Linux cannot program,
		 * as arm64's MASK blocks): the first reason is the one. */
		snprintf(first, sizeof(first), "%s", errlen ? err : "");
		L->share = true;
		if (install_watches(L, cpu, err, errlen)) {
			L->share = false;
			if (errlen)
				snprintf(err, errlen, "%s", first);
		} else {
			ret = 0;
			if (errlen)
				err[0] = '\0';   /* the first attempt's reason no longer holds */
			for (unsigned k = 0; k < HWBP_MAX_SLOTS; k++)
				if (L->task.slots.data[k].refs > 1) {
					L->s->shared += L->task.slots.data[k].refs;
					L->s->shared_slots++;
				}
		}
	}
	if (ret == 0)
		ret = add_twins(L, err, errlen);
	if (ret == 0)
		ret = hwbp_task_regs(&L->ctx, 0, &L->task, &L->regs);
	return ret;
}
