/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: request validation, the planner and the encoder.
 *
 * The input is decoded into a CPU model (any preset, or arm64 from a raw
 * ID_AA64DFR0_EL1), a request (addr, len, type, scope, flags; each either
 * raw or shaped near the address-space edges the caps name) and a number
 * of free slots.  Properties checked (a violation traps):
 *
 *  - hwbp_request_check() and hwbp_plan() return 0 or one of their
 *    documented errors, agree with each other, and a failed hwbp_plan()
 *    leaves the output plan byte for byte as it was;
 *  - -ENOSPC means "not now": the same request plans with the whole pool;
 *  - a plan's pieces are in address order, do not overlap, cover every
 *    byte of the request (cover_lo/cover_len add up to the request), stay
 *    in the address space and in the request's half of it (user or
 *    kernel), number at most the free slots of the pool the
 *    request needs (data or instruction), and extra_bytes/exact/enlarged
 *    agree with the pieces and the flags;
 *  - every piece encodes with hwbp_encode_piece() into a fresh
 *    hwbp_regs_reset() set at its own slot, hwbp_decode_slot() gives each
 *    piece back (address, length, type, scope) and every other slot reads
 *    disabled; an encode the API must refuse (bad slot, bad scope) fails
 *    with -EINVAL and leaves the registers as they were.
 */
#include <stdbool.h>

#include "fuzz_common.h"

/* An address shaped by the input: raw, small, or near an edge of the
 * address space where the range and scope checks change their answer. */
static uint64_t fz_addr(struct fz *f, const struct hwbp_caps *caps)
{
	unsigned mode = fz_u8(f) % 7;
	uint64_t d = fz_u16(f);

	switch (mode) {
	case 0:
		return fz_u64(f);
	case 1:
		return d;
	case 2:
		return caps->kernel_min + d - 0x8000;
	case 3:
		return caps->user_max + d - 0x8000;
	case 4:
		return caps->addr_max - d;
	case 5:
		return fz_u64(f) & ~((UINT64_C(1) << (d % 64)) - 1);
	default:
		return UINT64_MAX - d;
	}
}

static uint64_t fz_len(struct fz *f)
{
	unsigned mode = fz_u8(f) % 5;
	unsigned b = fz_u8(f);

	switch (mode) {
	case 0:
		return fz_u64(f);
	case 1:
		return (uint64_t)b + 1;
	case 2:
		return UINT64_C(1) << (b % 64);
	case 3:
		return (uint64_t)fz_u16(f) + 1;
	default:
		return (UINT64_C(1) << (b % 64)) + (int8_t)fz_u8(f);
	}
}

static bool plan_err_ok(int ret)
{
	return ret == -EINVAL || ret == -ERANGE || ret == -EFAULT || ret == -EOPNOTSUPP ||
	       ret == -ENOSPC;
}

/* The properties of a successful plan (see the top of the file). */
static void check_plan(const struct hwbp_cpu *cpu, const struct hwbp_caps *caps,
		       const struct hwbp_request *req, unsigned free_slots,
		       const struct hwbp_plan *pl)
{
	uint64_t rlast = req->addr + (req->len - 1), next = req->addr, watched = 0, covered = 0;
	unsigned pool, ndata, ninst;
	bool done = false;

	CHECK(memcmp(&pl->req, req, sizeof(*req)) == 0);
	CHECK(pl->inst == (pl->type == HWBP_X));
	if (pl->widened)
		CHECK(req->type == HWBP_R && pl->type == HWBP_RW && (req->flags & HWBP_REQ_WIDEN));
	else
		CHECK(pl->type == req->type);
	pool = (pl->inst && !caps->shared) ? caps->inst_slots : caps->data_slots;
	if (pool > HWBP_MAX_PIECES)
		pool = HWBP_MAX_PIECES;
	CHECK(pl->n >= 1 && pl->n <= pool);
	if (free_slots && free_slots < pool)
		CHECK(pl->n <= free_slots);
	if (req->flags & HWBP_REQ_EXACT)
		CHECK(!pl->enlarged);
	if (pl->inst)
		CHECK(!pl->enlarged);

	for (unsigned i = 0; i < pl->n; i++) {
		const struct hwbp_piece *p = &pl->piece[i];
		uint64_t plast = p->addr + (p->len - 1);

		CHECK(p->len >= 1 && plast >= p->addr && plast <= caps->addr_max);
		CHECK(p->type == pl->type);
		/* enlargement never reaches the other half of the address
		 * space or the non-canonical hole between them */
		if (rlast <= caps->user_max)
			CHECK(plast <= caps->user_max);
		if (req->addr >= caps->kernel_min)
			CHECK(p->addr >= caps->kernel_min);
		if (i > 0) {
			const struct hwbp_piece *q = &pl->piece[i - 1];

			/* address order, no overlap */
			CHECK(p->addr > q->addr + (q->len - 1) && q->addr + (q->len - 1) >= q->addr);
		}
		/* the part of the request this piece covers */
		if (p->cover_len) {
			CHECK(p->cover_lo >= p->addr && p->cover_lo >= req->addr);
			CHECK(p->cover_lo + (p->cover_len - 1) <= plast);
			CHECK(p->cover_lo + (p->cover_len - 1) <= rlast);
		}
		covered += p->cover_len;
		watched += p->len;
		/* walk the request's bytes: the next uncovered one must be here
		 * or after this piece */
		if (!done && p->addr <= next && next <= plast) {
			if (plast >= rlast)
				done = true;
			else
				next = plast + 1;
		}
	}
	CHECK(done);                  /* every request byte is watched */
	CHECK(covered == req->len);   /* and counted once */
	CHECK(pl->extra_bytes == watched - req->len);
	CHECK(pl->exact == (pl->extra_bytes == 0));

	/* Encode every piece at its own slot of fresh registers. */
	{
		struct hwbp_regs regs, copy;
		bool local = (req->flags & HWBP_REQ_LOCAL) != 0;

		CHECK(hwbp_regs_reset(cpu, &regs) == 0);
		for (unsigned i = 0; i < pl->n; i++)
			CHECK(hwbp_encode_piece(cpu, &regs, i, pl->inst, &pl->piece[i], req->scope,
						local) == 0);
		/* Refused encodes leave the registers alone. */
		copy = regs;
		CHECK(hwbp_encode_piece(cpu, &regs, HWBP_MAX_SLOTS, pl->inst, &pl->piece[0],
					req->scope, local) == -EINVAL);
		CHECK(memcmp(&regs, &copy, sizeof(regs)) == 0);
		CHECK(hwbp_encode_piece(cpu, &regs, 0, pl->inst, &pl->piece[0],
					(enum hwbp_scope)7, local) == -EINVAL);
		CHECK(memcmp(&regs, &copy, sizeof(regs)) == 0);

		fz_pools(caps, &ndata, &ninst);
		for (unsigned pi = 0; pi < 2; pi++) {
			bool inst = pi == 1;
			unsigned n = inst ? ninst : ndata;

			for (unsigned s = 0; s < n; s++) {
				struct hwbp_piece d;
				enum hwbp_scope sc;
				int ret = hwbp_decode_slot(cpu, &regs, s, inst, &d, &sc);
				/* x86 has one pool, numbered as data slots */
				bool mine = s < pl->n && (caps->shared || inst == pl->inst);

				if (!mine) {
					CHECK(ret == 0);
					continue;
				}
				CHECK(ret == 1);
				CHECK(d.addr == pl->piece[s].addr && d.len == pl->piece[s].len &&
				      d.type == pl->piece[s].type);
				/* DR7 has no privilege field: x86 reads back "both" */
				CHECK(sc == (cpu->arch == HWBP_ARCH_X86 ? HWBP_SCOPE_BOTH : req->scope));
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned types[] = { HWBP_R, HWBP_W, HWBP_RW, HWBP_X };
	struct fz f = { data, size };
	struct hwbp_cpu cpu;
	struct hwbp_caps caps;
	struct hwbp_request req;
	struct hwbp_plan plan, before;
	unsigned free_slots, tb, fb, sb;
	int rc, rp;

	if (size > 256 || fz_cpu(&f, &cpu))
		return 0;
	CHECK(hwbp_caps_get(&cpu, &caps) == 0);
	CHECK(caps.data_slots >= 1 && caps.data_slots <= HWBP_MAX_SLOTS);
	CHECK(caps.inst_slots <= HWBP_MAX_SLOTS);

	memset(&req, 0, sizeof(req));
	req.addr = fz_addr(&f, &caps);
	req.len = fz_len(&f);
	tb = fz_u8(&f);
	req.type = tb < 0xf0 ? types[tb % 4] : fz_u32(&f);
	fb = fz_u8(&f);
	req.flags = fb < 0xf0 ? (fb & HWBP_REQ_FLAGS_MASK) : fz_u32(&f);
	sb = fz_u8(&f);
	req.scope = (enum hwbp_scope)(sb < 0xf0 ? sb % 3 : sb);
	free_slots = fz_u8(&f) % (HWBP_MAX_SLOTS + 2);

	rc = hwbp_request_check(&cpu, &req);
	CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE || rc == -EFAULT || rc == -EOPNOTSUPP);

	memset(&plan, 0x5a, sizeof(plan));
	before = plan;
	rp = hwbp_plan(&cpu, &req, free_slots, &plan);
	if (rc) {
		/* the planner runs the same checks first */
		CHECK(rp == rc);
	}
	if (rp) {
		CHECK(plan_err_ok(rp));
		CHECK(memcmp(&plan, &before, sizeof(plan)) == 0);
		if (rp == -ENOSPC) {
			/* Only a lack of free slots: the whole pool must do. */
			struct hwbp_plan whole;

			CHECK(hwbp_plan(&cpu, &req, 0, &whole) == 0);
			check_plan(&cpu, &caps, &req, 0, &whole);
		}
		return 0;
	}
	check_plan(&cpu, &caps, &req, free_slots, &plan);
	return 0;
}
