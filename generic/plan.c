/* SPDX-License-Identifier: MIT */
/*
 * Request checks and the planner.
 *
 * The planner first asks the arch for the exact tiling of the request (the
 * fewest hardware pieces, GDB-style).  When that needs more slots than are
 * free it looks for the smallest enlargement that fits (LLDB-style): the
 * union of the pieces of a minimal enlargement is one interval [lo, hi)
 * whose first piece contains the request's first byte and whose last piece
 * contains its last byte, so lo is the request start rounded down to some
 * power of two and hi the end rounded up to some power of two.  Trying every
 * such pair (64 x 64) and keeping the smallest that fits is therefore
 * complete; tests check it against brute force.
 */

#include "internal.h"

/* Does [addr, addr + len) stay inside one half of the address space? */
static int check_scope(const struct hwbp_caps *caps, const struct hwbp_request *req)
{
	uint64_t last = req->addr + (req->len - 1);
	bool in_user = last <= caps->user_max;
	bool in_kernel = req->addr >= caps->kernel_min;

	switch (req->scope) {
	case HWBP_SCOPE_USER:
		return in_user ? 0 : -EFAULT;
	case HWBP_SCOPE_KERNEL:
		return in_kernel ? 0 : -EFAULT;
	case HWBP_SCOPE_BOTH:
		/* A range in the non-canonical hole, or straddling it, can
		 * never be accessed: refuse it rather than arm a dead slot. */
		return (in_user || in_kernel) ? 0 : -EFAULT;
	}
	return -EINVAL;
}

/* Can [lo, hi) possibly fit in @slots pieces of at most max_piece bytes?
 * Keeps split() cheap: it is never asked to tile a huge range. */
static bool may_fit(const struct hwbp_caps *caps, bool inst, uint64_t len, unsigned slots)
{
	uint64_t maxp = inst ? caps->inst_len : caps->max_piece;

	/* ceil(len / maxp) <= slots, without overflow. */
	return len / maxp + (len % maxp != 0) <= slots;
}

/*
 * Checks shared by hwbp_request_check() and the planner.  On success
 * *hwtype is the type the hardware will watch and *widened says whether it
 * differs from the request's.
 */
static int check(const struct hwbp_cpu *cpu, const struct hwbp_caps *caps,
		 const struct hwbp_request *req, unsigned *hwtype, bool *widened)
{
	const struct hwbpi_arch_ops *ops = hwbpi_arch_ops(cpu->arch);
	unsigned t = req->type, slots;
	int ret;

	if (req->len == 0)
		return -EINVAL;
	if (t != HWBP_R && t != HWBP_W && t != HWBP_RW && t != HWBP_X)
		return -EINVAL;
	if (req->flags & ~HWBP_REQ_FLAGS_MASK)
		return -EINVAL;
	if ((unsigned)req->scope > HWBP_SCOPE_KERNEL)
		return -EINVAL;
	/* Overflow: the last byte must exist in this address space. */
	if (req->addr > caps->addr_max || req->len - 1 > caps->addr_max - req->addr)
		return -ERANGE;
	ret = check_scope(caps, req);
	if (ret)
		return ret;

	*widened = false;
	if (!((caps->types >> t) & 1u)) {
		/* Only a missing read-only type can be widened (x86 has no
		 * R: DR7 RW=10 means I/O, SDM Vol.3 §17.2.4), to RW; hits
		 * by writes are dropped at decode when the kind is known. */
		if (t == HWBP_R && (req->flags & HWBP_REQ_WIDEN) &&
		    ((caps->types >> HWBP_RW) & 1u)) {
			t = HWBP_RW;
			*widened = true;
		} else {
			return -EOPNOTSUPP;
		}
	}
	/* Execute: one breakpoint per instruction slot, each at an
	 * instruction boundary of the arch (x86: any byte; arm64, ppc: 4). */
	if (t == HWBP_X && (req->addr % caps->inst_align || req->len % caps->inst_len))
		return -EINVAL;
	if (ops->check) {
		ret = ops->check(cpu, req, t);
		if (ret)
			return ret;
	}
	/*
	 * Nothing can hold a request longer than every slot's largest piece:
	 * a limit of the CPU, not of the current load.  An execute piece is
	 * one instruction (inst_len) unless the arch counts its own tilings
	 * (split_slots: its execute slots may match ranges, as RISC-V's
	 * triggers do; that count is bounded, runs are counted at once).
	 */
	slots = (t == HWBP_X && !caps->shared) ? caps->inst_slots : caps->data_slots;
	if (t == HWBP_X && ops->split_slots ? ops->split_slots(cpu, true, req->addr, req->len) > slots
					    : !may_fit(caps, t == HWBP_X, req->len, slots))
		return -ERANGE;
	*hwtype = t;
	return 0;
}

int hwbp_request_check(const struct hwbp_cpu *cpu, const struct hwbp_request *req)
{
	struct hwbp_caps caps;
	unsigned t;
	bool w;
	int ret;

	if (!req)
		return -EINVAL;
	ret = hwbp_caps_get(cpu, &caps);
	if (ret)
		return ret;
	return check(cpu, &caps, req, &t, &w);
}

/* Bytes the pieces watch in all (pieces never overlap). */
static uint64_t watched(const struct hwbp_piece *p, unsigned n)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++)
		sum += p[i].len;
	return sum;
}

/* Fill the pieces' coverage of the request and the plan's totals. */
static void finish(struct hwbp_plan *out, unsigned hwtype)
{
	uint64_t lo = out->req.addr, hi_last = out->req.addr + (out->req.len - 1);

	for (unsigned i = 0; i < out->n; i++) {
		struct hwbp_piece *p = &out->piece[i];
		uint64_t plast = p->addr + (p->len - 1);
		uint64_t clo = p->addr > lo ? p->addr : lo;
		uint64_t chi = plast < hi_last ? plast : hi_last;

		p->type = hwtype;
		if (clo <= chi) {
			p->cover_lo = clo;
			p->cover_len = chi - clo + 1;
		} else {
			p->cover_lo = clo;
			p->cover_len = 0;
		}
	}
	out->extra_bytes = watched(out->piece, out->n) - out->req.len;
	out->exact = out->extra_bytes == 0;
}

/* A plan for @req before its pieces are filled in. */
static void plan_init(struct hwbp_plan *out, const struct hwbp_request *req, unsigned hwtype,
		      bool widened, bool inst, bool enlarged)
{
	memset(out, 0, sizeof(*out));
	out->req = *req;
	out->type = hwtype;
	out->widened = widened;
	out->inst = inst;
	out->enlarged = enlarged;
}

/*
 * Bytes the data tiling of [lo, lo + len) watches: the tiling covers that
 * range widened to the matching granule and nothing else (the split op's
 * contract, internal.h), so no piece array is needed to count them.  Only
 * asked for tilings of at most HWBP_MAX_PIECES pieces, which cannot reach
 * 2^64 bytes.
 */
static uint64_t tiling_bytes(const struct hwbp_caps *caps, uint64_t lo, uint64_t len)
{
	uint64_t g = caps->granule ? caps->granule : 1;
	uint64_t last = lo + (len - 1);

	return (last | (g - 1)) - (lo & ~(g - 1)) + 1;
}

/*
 * Slots the tiling of [addr, addr + len) takes: one per piece, unless the
 * arch's pieces may take several (internal.h, split_slots).  Counted only:
 * @none has room for no piece.
 */
static unsigned tiling_slots(const struct hwbp_cpu *cpu, const struct hwbpi_arch_ops *ops,
			     bool inst, uint64_t addr, uint64_t len, struct hwbp_piece *none)
{
	if (ops->split_slots)
		return ops->split_slots(cpu, inst, addr, len);
	return ops->split(cpu, inst, addr, len, none, 0);
}

/*
 * The smallest enlargement [*lo, *lo + *len) around @req that tiles into at
 * most @free_slots slots; ties go to fewer slots.  Candidates are
 * only counted (split with room for none) and measured (tiling_bytes()):
 * nothing is written, so a failed plan leaves the caller's plan alone and
 * no piece array sits on the stack.  False when none fits.
 */
static bool enlarge(const struct hwbp_cpu *cpu, const struct hwbpi_arch_ops *ops,
		    const struct hwbp_caps *caps, const struct hwbp_request *req,
		    unsigned free_slots, struct hwbp_piece *none, uint64_t *best_lo,
		    uint64_t *best_len)
{
	uint64_t best_w = 0, end = req->addr + req->len; /* may be 0 (wrap) */
	unsigned best_n = 0;
	bool found = false;

	for (unsigned j = 0; j < 64; j++) {
		uint64_t lo = req->addr & ~((UINT64_C(1) << j) - 1);

		for (unsigned k = 0; k < 64; k++) {
			uint64_t m = (UINT64_C(1) << k) - 1;
			uint64_t hi, len, w;
			unsigned cnt;
			bool top;

			/*
			 * hi = end rounded up to 2^k.  When that is 2^64
			 * (end == 0: the request reaches the top of a 64-bit
			 * space; or the rounding carries out of 64 bits) hi is
			 * the top, len = 2^64 - lo, and no larger k gives
			 * anything new.  Missing the carry case made requests
			 * just below the top of the address space unplannable
			 * (fuzz_plan, regress/fuzz_plan/enlarge-to-top-of-space).
			 */
			top = end == 0 || end > UINT64_MAX - m;
			if (top) {
				if (caps->addr_max != UINT64_MAX)
					break;
				len = 0 - lo;
			} else {
				hi = (end + m) & ~m;
				len = hi - lo;
				if (len == 0 || hi - 1 > caps->addr_max)
					break;
			}
			if (len != 0 && may_fit(caps, false, len, free_slots)) {
				cnt = tiling_slots(cpu, ops, false, lo, len, none);
				w = cnt <= free_slots ? tiling_bytes(caps, lo, len) : 0;
				if (cnt <= free_slots &&
				    (!found || w < best_w || (w == best_w && cnt < best_n))) {
					found = true;
					best_w = w;
					best_n = cnt;
					*best_lo = lo;
					*best_len = len;
				}
			}
			if (top)
				break;
		}
		if (lo == 0)
			break;
	}
	return found;
}

/*
 * Tilings are counted first and written straight into @out only once the
 * plan is known to succeed: no copy of a plan or of a piece array on the
 * stack (the core's frames stay small enough for a kernel stack), and a
 * failed call leaves *out as it was.
 */
int hwbp_plan(const struct hwbp_cpu *cpu, const struct hwbp_request *req,
	      unsigned free_slots, struct hwbp_plan *out)
{
	const struct hwbpi_arch_ops *ops;
	struct hwbp_caps caps;
	unsigned hwtype, pool, n;
	uint64_t lo = 0, len = 0;
	bool widened, inst;
	int ret;

	if (!req || !out)
		return -EINVAL;
	ret = hwbp_caps_get(cpu, &caps);
	if (ret)
		return ret;
	ret = check(cpu, &caps, req, &hwtype, &widened);
	if (ret)
		return ret;
	ops = hwbpi_arch_ops(cpu->arch);

	inst = hwtype == HWBP_X;
	pool = (inst && !caps.shared) ? caps.inst_slots : caps.data_slots;
	if (pool > HWBP_MAX_PIECES)
		pool = HWBP_MAX_PIECES;
	if (free_slots == 0 || free_slots > pool)
		free_slots = pool;
	/* n: the slots of the exact tiling (its pieces, on most arches). */
	n = tiling_slots(cpu, ops, inst, req->addr, req->len, out->piece);
	if (n <= free_slots) {
		plan_init(out, req, hwtype, widened, inst, false);
		out->n = ops->split(cpu, inst, req->addr, req->len, out->piece, HWBP_MAX_PIECES);
		finish(out, hwtype);
		return 0;
	}
	/* Execute breakpoints cannot be enlarged (x86 needs LEN=00, arm64
	 * and ppc match one instruction); callers may also forbid it. */
	if (inst || (req->flags & HWBP_REQ_EXACT))
		return n <= pool ? -ENOSPC : -ERANGE;

	if (!enlarge(cpu, ops, &caps, req, free_slots, out->piece, &lo, &len)) {
		/*
		 * -ENOSPC promises that the request fits once slots are free
		 * (hwbp.h): exactly, or enlarged within the whole pool.  When
		 * even the whole pool cannot hold it the answer is -ERANGE
		 * whatever is free now.
		 */
		if (free_slots < pool &&
		    (n <= pool || enlarge(cpu, ops, &caps, req, pool, out->piece, &lo, &len)))
			return -ENOSPC;
		return -ERANGE;
	}
	plan_init(out, req, hwtype, widened, false, true);
	out->n = ops->split(cpu, false, lo, len, out->piece, HWBP_MAX_PIECES);
	finish(out, hwtype);
	return 0;
}

int hwbp_plan_slots(const struct hwbp_cpu *cpu, const struct hwbp_plan *plan)
{
	unsigned n = 0;

	if (!cpu || !plan || !hwbpi_arch_ops(cpu->arch) || plan->n > HWBP_MAX_PIECES)
		return -EINVAL;
	for (unsigned i = 0; i < plan->n; i++)
		n += hwbpi_piece_slots(cpu, plan->inst, &plan->piece[i]);
	return (int)n;
}
