/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces (HWBP_REQ_SHARE): requests whose bytes one slot can watch
 * together use one slot, armed with the smallest piece that covers them
 * all; slots.c's apply() asks hwbpi_share_join() where a piece may go and
 * unapply() asks hwbpi_share_shrink() for the piece of those left.
 *
 * Invariants, which hit dispatch and the shrink rely on:
 *  - every request of a shared slot has HWBP_REQ_SHARE, the slot's scope
 *    and enable bit (x86 Ln/Gn), and exactly one of its plan's pieces lies
 *    inside the slot's piece (so "the piece of request r in slot k" needs
 *    no record of its own: hwbp_slot stays as it was);
 *  - the slot's piece is what cover() makes of the span of the bytes they
 *    asked for and the union of their types (with one request left, that
 *    request's own piece), which does not depend on the order they came
 *    in: a removal and the same install again give the same registers.
 * A hit on such a slot names every request in it; hwbp_decode() keeps
 * those whose bytes the access touched (hit.c).
 */
#include "hwbp_libc.h"
#include "slots.h"

/* A shared piece never watches more than a doubleword, or than twice the
 * bytes of the two pieces it joins: the bytes nobody asked for cost a
 * trap each time they are accessed (filtered, but taken). */
#define SHARE_SMALL 8u

static bool inside(const struct hwbp_piece *p, const struct hwbp_piece *m)
{
	return p->addr >= m->addr && p->addr + (p->len - 1) <= m->addr + (m->len - 1) &&
	       !(p->type & ~m->type);
}

/*
 * The smallest single data piece holding [lo, last] with type @type: the
 * span itself when the arch tiles it in one piece (arm64 BAS bytes inside
 * a doubleword, a powerpc DAWR range), else the smallest aligned
 * power-of-two block around it that one piece watches (x86 LEN, arm64
 * MASK).  Returns false when none does.
 */
static bool cover(const struct hwbp_ctx *ctx, uint64_t lo, uint64_t last, unsigned type,
		  struct hwbp_piece *out)
{
	const struct hwbpi_arch_ops *ops = hwbpi_arch_ops(ctx->cpu.arch);
	uint64_t len = last - lo + 1;

	if (!ops || !((ctx->caps.types >> type) & 1u) || len > ctx->caps.max_piece)
		return false;
	/* One piece of one slot: a piece of several (a RISC-V chained pair)
	 * is never shared, its slots could not grow or shrink with it. */
	if (ops->split(&ctx->cpu, false, lo, len, out, 1) != 1 ||
	    hwbpi_piece_slots(&ctx->cpu, false, out) != 1) {
		uint64_t size = 1;

		/* Aligned blocks of growing size; the first that holds the
		 * span in one piece is the smallest. */
		for (;;) {
			uint64_t a = lo & ~(size - 1);

			if (last - a < size && ops->split(&ctx->cpu, false, a, size, out, 1) == 1 &&
			    hwbpi_piece_slots(&ctx->cpu, false, out) == 1)
				break;
			if (size >= ctx->caps.max_piece || size >= (UINT64_C(1) << 63))
				return false;
			size <<= 1;
		}
	}
	if (out->addr > lo || out->addr + (out->len - 1) < last)
		return false;
	out->type = type;
	out->cover_lo = lo;
	out->cover_len = len;
	return true;
}

/* The index of the one piece of @plan inside @m, or -1 if none or more. */
static int piece_inside(const struct hwbp_plan *plan, const struct hwbp_piece *m)
{
	int at = -1;

	for (unsigned j = 0; j < plan->n; j++) {
		if (!inside(&plan->piece[j], m))
			continue;
		if (at >= 0)
			return -1;
		at = (int)j;
	}
	return at;
}

/* The smallest piece over @a and @b's requested bytes (their cover). */
static bool cover_two(const struct hwbp_ctx *ctx, const struct hwbp_piece *a,
		      const struct hwbp_piece *b, struct hwbp_piece *out)
{
	uint64_t lo = a->cover_lo < b->cover_lo ? a->cover_lo : b->cover_lo;
	uint64_t alast = a->cover_lo + (a->cover_len - 1), blast = b->cover_lo + (b->cover_len - 1);

	return cover(ctx, lo, alast > blast ? alast : blast, a->type | b->type, out);
}

bool hwbpi_share_join(const struct hwbp_ctx *ctx, const struct hwbp_slot *s, int id,
		      const struct hwbp_plan *plan, unsigned i, struct hwbp_piece *merged)
{
	const struct hwbp_piece *pc = &plan->piece[i];
	bool local = plan->req.flags & HWBP_REQ_LOCAL;
	uint64_t bound;

	if (!s->refs || (s->requests & (UINT64_C(1) << id)) || plan->inst || !s->piece.len ||
	    hwbpi_piece_slots(&ctx->cpu, false, &s->piece) != 1 ||
	    hwbpi_piece_slots(&ctx->cpu, false, pc) != 1 ||
	    !(plan->req.flags & HWBP_REQ_SHARE) || s->scope != plan->req.scope || s->local != local)
		return false;
	for (unsigned r = 0; r < HWBP_MAX_REQUESTS; r++)
		if ((s->requests & (UINT64_C(1) << r)) &&
		    (!ctx->req[r].live || !(ctx->req[r].plan.req.flags & HWBP_REQ_SHARE)))
			return false;
	if (!cover_two(ctx, &s->piece, pc, merged))
		return false;
	bound = 2 * (s->piece.len + pc->len);
	if (merged->len > (bound > SHARE_SMALL ? bound : SHARE_SMALL))
		return false;
	/* Each request keeps exactly one piece inside the slot's. */
	if (piece_inside(plan, merged) != (int)i)
		return false;
	for (unsigned r = 0; r < HWBP_MAX_REQUESTS; r++)
		if ((s->requests & (UINT64_C(1) << r)) && piece_inside(&ctx->req[r].plan, merged) < 0)
			return false;
	return true;
}

void hwbpi_share_shrink(const struct hwbp_ctx *ctx, struct hwbp_slot *s)
{
	struct hwbp_piece cur, next;
	bool first = true;

	for (unsigned r = 0; r < HWBP_MAX_REQUESTS; r++) {
		const struct hwbp_plan *plan = &ctx->req[r].plan;
		int j;

		if (!(s->requests & (UINT64_C(1) << r)))
			continue;
		j = piece_inside(plan, &s->piece);
		if (j < 0)
			return;  /* cannot happen (the invariant): keep the piece */
		if (first) {
			cur = plan->piece[j];
			first = false;
		} else if (!inside(&plan->piece[j], &cur) ||
			   plan->piece[j].cover_lo < cur.cover_lo ||
			   plan->piece[j].cover_lo + plan->piece[j].cover_len >
				   cur.cover_lo + cur.cover_len) {
			if (!cover_two(ctx, &cur, &plan->piece[j], &next))
				return;
			cur = next;
		}
	}
	if (!first)
		s->piece = cur;
}
