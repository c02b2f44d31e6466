/* SPDX-License-Identifier: MIT */
/*
 * What slots.c (accounting, install/modify/remove) and hit.c (the
 * registers a task needs, hit dispatch) share: the pools of a slot set.
 * Internal to libhwbp.
 */
#ifndef HWBP_GENERIC_SLOTS_H
#define HWBP_GENERIC_SLOTS_H

#include "internal.h"

/* One pool of a slot set: its slots and how many this CPU has. */
struct hwbpi_pool {
	struct hwbp_slot *s;
	unsigned n;
};

/* Slots of the pool execute (@inst) or data requests use, on this CPU. */
static inline unsigned hwbpi_pool_size(const struct hwbp_ctx *ctx, bool inst)
{
	unsigned n = (inst && !ctx->caps.shared) ? ctx->caps.inst_slots : ctx->caps.data_slots;

	return n > HWBP_MAX_SLOTS ? HWBP_MAX_SLOTS : n;
}

/* x86 shares one pool between execute and data: both live in data[]. */
static inline struct hwbpi_pool hwbpi_pool_of(const struct hwbp_ctx *ctx, struct hwbp_slots *set,
					     bool inst)
{
	struct hwbpi_pool p;

	p.s = (inst && !ctx->caps.shared) ? set->inst : set->data;
	p.n = hwbpi_pool_size(ctx, inst);
	return p;
}

/* Whether @task is on @ctx's list (hwbp_task_init()). */
static inline bool hwbpi_task_registered(const struct hwbp_ctx *ctx,
					 const struct hwbp_task *task)
{
	for (const struct hwbp_task *t = ctx->tasks; t; t = t->next)
		if (t == task)
			return true;
	return false;
}

/*
 * The ctx's scratch is zero between calls, so that a call that fails
 * leaves the ctx byte for byte as it was (and nothing stale is kept).
 */
static inline void hwbpi_scrub(void *p, size_t n)
{
	memset(p, 0, n);
}

/*
 * Encode the armed slots @s[0..n) of one pool into @regs, slot k at
 * hardware slot @slotno[k] (skipped when negative).
 */
void hwbpi_encode_pool(const struct hwbp_ctx *ctx, const struct hwbp_slot *s,
		       const int *slotno, unsigned n, struct hwbp_regs *regs);

/*
 * Shared pieces (share.c, HWBP_REQ_SHARE).  hwbpi_share_join: may piece
 * @i of request @id's @plan join slot @s (armed, holding other requests)?
 * On true, *@merged is the slot's piece with it.  hwbpi_share_shrink: the
 * piece of slot @s again, after a request left it (refs still > 0).  Both
 * read the live request records of @ctx.
 */
bool hwbpi_share_join(const struct hwbp_ctx *ctx, const struct hwbp_slot *s, int id,
		      const struct hwbp_plan *plan, unsigned i, struct hwbp_piece *merged);
void hwbpi_share_shrink(const struct hwbp_ctx *ctx, struct hwbp_slot *s);

#endif /* HWBP_GENERIC_SLOTS_H */
