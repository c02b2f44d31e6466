/* SPDX-License-Identifier: MIT */
/*
 * RISC-V decoders: what a trigger watches, and which triggers a
 * breakpoint exception (mcause/scause 3, mtval/stval, the triggers' hit
 * bits) reports.
 */

#include "riscv.h"

#define TYPE_OF(t1) ((unsigned)((t1) >> HWBP_RISCV_TDATA1_TYPE_SHIFT) & \
		     (unsigned)HWBP_RISCV_TDATA1_TYPE_MASK)
#define MATCH_OF(t1) ((unsigned)((t1) >> HWBP_RISCV_MC_MATCH_SHIFT) & \
		      (unsigned)HWBP_RISCV_MC_MATCH_MASK)
#define ACCESS (HWBP_RISCV_MC_LOAD | HWBP_RISCV_MC_STORE | HWBP_RISCV_MC_EXECUTE)
#define MODES (HWBP_RISCV_MC_U | HWBP_RISCV_MC_S | HWBP_RISCV_MC_M)

static bool is_mc(unsigned type)
{
	return type == HWBP_RISCV_TYPE_MCONTROL || type == HWBP_RISCV_TYPE_MCONTROL6;
}

/* The size field, whichever the type. */
static unsigned size_of(uint64_t t1)
{
	if (TYPE_OF(t1) == HWBP_RISCV_TYPE_MCONTROL6)
		return (unsigned)(t1 >> HWBP_RISCV_MC6_SIZE_SHIFT) & (unsigned)HWBP_RISCV_MC6_SIZE_MASK;
	return ((unsigned)(t1 >> HWBP_RISCV_MC2_SIZELO_SHIFT) & 3u) |
	       ((unsigned)(t1 >> HWBP_RISCV_MC2_SIZEHI_SHIFT) & 3u) << 2;
}

/* Armed at all: an address trigger with an access bit and a mode bit. */
static bool armed(uint64_t t1)
{
	return is_mc(TYPE_OF(t1)) && (t1 & ACCESS) && (t1 & MODES);
}

/* The second trigger of a chained pair (the one before it has chain). */
static bool second_of_pair(const struct hwbp_regs *regs, unsigned slot)
{
	uint64_t prev;

	if (slot == 0)
		return false;
	prev = regs->u.riscv.tdata1[slot - 1];
	return armed(prev) && (prev & HWBP_RISCV_MC_CHAIN);
}

static int scope_of(uint64_t t1, enum hwbp_scope *scope)
{
	bool u = t1 & HWBP_RISCV_MC_U, k = t1 & (HWBP_RISCV_MC_S | HWBP_RISCV_MC_M);

	*scope = u && k ? HWBP_SCOPE_BOTH : u ? HWBP_SCOPE_USER : HWBP_SCOPE_KERNEL;
	return 0;
}

static int type_of(uint64_t t1, unsigned *type)
{
	switch (t1 & ACCESS) {
	case HWBP_RISCV_MC_LOAD:
		*type = HWBP_R;
		return 0;
	case HWBP_RISCV_MC_STORE:
		*type = HWBP_W;
		return 0;
	case HWBP_RISCV_MC_LOAD | HWBP_RISCV_MC_STORE:
		*type = HWBP_RW;
		return 0;
	case HWBP_RISCV_MC_EXECUTE:
		*type = HWBP_X;
		return 0;
	}
	return -EINVAL;   /* execute with a data access: not a hwbp piece */
}

static void fill(struct hwbp_piece *p, uint64_t addr, uint64_t len, unsigned type)
{
	memset(p, 0, sizeof(*p));
	p->addr = addr;
	p->len = len;
	p->cover_lo = addr;
	p->cover_len = len;
	p->type = type;
}

/* 1 armed (piece/scope filled), 0 not (or the second of a pair), -EINVAL. */
static int trig_decode(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs, unsigned slot,
		       struct hwbp_piece *p, enum hwbp_scope *scope)
{
	uint64_t t1 = regs->u.riscv.tdata1[slot], t2 = regs->u.riscv.tdata2[slot];
	unsigned type = TYPE_OF(t1), ptype, size;

	/* 0: no trigger; 15: disabled (1.0). */
	if (type == HWBP_RISCV_TYPE_NONE || type == HWBP_RISCV_TYPE_DISABLED)
		return 0;
	if (!is_mc(type))
		return -EINVAL;
	if (!armed(t1))
		return 0;
	if (second_of_pair(regs, slot))
		return 0;   /* reported at the pair's first trigger */
	/*
	 * What hwbp never writes and cannot express: dmode (debug mode
	 * only), an action other than the breakpoint exception, a data
	 * value match (select), mcontrol's timing = 1 (after), the
	 * negated and masked matches.
	 */
	if ((t1 & HWBP_RISCV_TDATA1_DMODE) ||
	    ((t1 >> HWBP_RISCV_MC_ACTION_SHIFT) & HWBP_RISCV_MC_ACTION_MASK) != 0)
		return -EINVAL;
	if (type == HWBP_RISCV_TYPE_MCONTROL6 ? (t1 & HWBP_RISCV_MC6_SELECT)
					      : (t1 & (HWBP_RISCV_MC2_SELECT | HWBP_RISCV_MC2_TIMING)))
		return -EINVAL;
	if (type_of(t1, &ptype) || scope_of(t1, scope))
		return -EINVAL;
	size = size_of(t1);

	if (t1 & HWBP_RISCV_MC_CHAIN) {
		uint64_t u1, u2;

		/* A pair: >= here, < on the next trigger, same access and
		 * modes, the next one ending the chain. */
		if (slot + 1 >= hwbpi_riscv_ntrig(cpu) || MATCH_OF(t1) != HWBP_RISCV_MATCH_GE || size)
			return -EINVAL;
		u1 = regs->u.riscv.tdata1[slot + 1];
		u2 = regs->u.riscv.tdata2[slot + 1];
		if (TYPE_OF(u1) != type || MATCH_OF(u1) != HWBP_RISCV_MATCH_LT ||
		    (u1 & HWBP_RISCV_MC_CHAIN) || (u1 & (ACCESS | MODES)) != (t1 & (ACCESS | MODES)) ||
		    size_of(u1) || u2 <= t2 ||
		    (ptype == HWBP_X && ((t2 | u2) & (HWBP_RISCV_INST_LEN - 1))))
			return -EINVAL;
		fill(p, t2, u2 - t2, ptype);
		return 1;
	}
	switch (MATCH_OF(t1)) {
	case HWBP_RISCV_MATCH_EQUAL:
		if (ptype == HWBP_X) {
			if (size || (t2 & 1))
				return -EINVAL;
			fill(p, t2, HWBP_RISCV_INST_LEN, ptype);
			return 1;
		}
		if (hwbpi_riscv_has(cpu, HWBP_RISCV_F_SIZE_AS_LEN)) {
			/* QEMU: size 1 and 2 bytes, 0 eight (RV64). */
			uint64_t len = size == 0 ? 8 : size;

			if (size > 2 || t2 % len)
				return -EINVAL;
			fill(p, t2, len, ptype);
			return 1;
		}
		if (size)
			return -EINVAL;   /* an access-size filter: not a piece */
		fill(p, t2, 1, ptype);
		return 1;
	case HWBP_RISCV_MATCH_NAPOT: {
		unsigned ones = 0;
		uint64_t len;

		/* Execute too: the instruction's address is the compare value. */
		if (!hwbpi_riscv_has(cpu, HWBP_RISCV_F_NAPOT) || size)
			return -EINVAL;
		while (ones < 63 && ((t2 >> ones) & 1))
			ones++;
		if (ones + 1 > hwbpi_riscv_maskmax(cpu))
			return -EINVAL;
		len = UINT64_C(1) << (ones + 1);
		fill(p, t2 & ~(len - 1), len, ptype);
		return 1;
	}
	case HWBP_RISCV_MATCH_GE:
		/* Alone: [tdata2, 2^64). */
		if (!hwbpi_riscv_has(cpu, HWBP_RISCV_F_GE_LT) || size || t2 == 0 ||
		    (ptype == HWBP_X && (t2 & (HWBP_RISCV_INST_LEN - 1))))
			return -EINVAL;
		fill(p, t2, 0 - t2, ptype);
		return 1;
	}
	return -EINVAL;
}

int hwbpi_riscv_decode_slot(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			    unsigned slot, bool inst, struct hwbp_piece *piece,
			    enum hwbp_scope *scope)
{
	struct hwbp_piece p;
	enum hwbp_scope s;
	int ret;

	(void)inst;   /* one pool */
	if (slot >= hwbpi_riscv_ntrig(cpu))
		return -EINVAL;
	ret = trig_decode(cpu, regs, slot, &p, &s);
	if (ret == 1) {
		*piece = p;
		*scope = s;
	}
	return ret;
}

/*
 * Which triggers a breakpoint exception (cause 3) reports, best first:
 *  1. the hit bits (F_HIT), as the handler read them into st->hits:
 *     set by the trigger that fired (§5.5.10, §5.5.11; a pair's second
 *     trigger stands for its first).  They live in the CPU's tdata1, not
 *     in the registers hwbp wrote (@regs), so the status carries them,
 *     as DR6 does on x86 (hwbp_glue_read_status() reads and clears them).
 *  2. tval (F_TVAL, nonzero): the triggers whose piece holds it (for an
 *     execute trigger, tval is the instruction's address).
 *  3. neither: every armed trigger (data, and execute ones at @ip):
 *     imprecise, the caller's access record narrows it.
 * The access kind is not known (mcause 3 for loads and stores alike),
 * except that a report of execute triggers only is an execute hit.
 * cause 3 also comes from EBREAK: with no armed trigger matching, -ENOENT.
 */
int hwbpi_riscv_decode_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			      const struct hwbp_status *st, struct hwbp_hit *hit)
{
	unsigned n = hwbpi_riscv_ntrig(cpu);
	uint64_t tval = st->u.riscv.tval;
	uint32_t slots = 0, xonly = 0, any = 0;
	bool by_tval = hwbpi_riscv_has(cpu, HWBP_RISCV_F_TVAL) && tval != 0;

	if (st->u.riscv.cause != HWBP_RISCV_CAUSE_BREAKPOINT)
		return -EINVAL;
	if (hwbpi_riscv_has(cpu, HWBP_RISCV_F_HIT)) {
		for (unsigned k = 0; k < n; k++) {
			struct hwbp_piece p;
			enum hwbp_scope s;
			unsigned head = second_of_pair(regs, k) ? k - 1 : k;

			if ((st->u.riscv.hits & (UINT64_C(1) << k)) &&
			    trig_decode(cpu, regs, head, &p, &s) == 1)
				slots |= 1u << head;
		}
	}
	for (unsigned k = 0; k < n && !slots; k++) {
		struct hwbp_piece p;
		enum hwbp_scope s;

		if (trig_decode(cpu, regs, k, &p, &s) != 1)
			continue;
		if (by_tval ? (tval >= p.addr && tval - p.addr < p.len)
			    : (p.type != HWBP_X || st->ip == 0 || st->ip == p.addr))
			any |= 1u << k;
	}
	if (!slots)
		slots = any;
	if (!slots)
		return -ENOENT;
	for (unsigned k = 0; k < n; k++) {
		struct hwbp_piece p;
		enum hwbp_scope s;

		if ((slots & (1u << k)) && trig_decode(cpu, regs, k, &p, &s) == 1 &&
		    p.type == HWBP_X)
			xonly |= 1u << k;
	}
	hit->data_slots = slots;   /* one pool, reported in data_slots (as x86) */
	hit->kind = xonly == slots ? HWBP_X : 0;
	hit->addr = by_tval ? tval : 0;
	hit->addr_known = by_tval;
	hit->ip = st->ip;
	return 0;
}

/* mcause (or scause) says breakpoint; mtval (stval) the address; hits the
 * triggers whose hit bits the handler found set. */
const char *const hwbpi_riscv_status_fields[] = { "cause", "tval", "hits", NULL };

int hwbpi_riscv_status_set(struct hwbp_status *st, const char *name, uint64_t value)
{
	if (hwbpi_streq(name, "cause")) {
		st->u.riscv.cause = value;
		return 1;
	}
	if (hwbpi_streq(name, "tval")) {
		st->u.riscv.tval = value;
		return 0;
	}
	if (hwbpi_streq(name, "hits")) {
		st->u.riscv.hits = value;
		return 0;
	}
	return -ENOENT;
}
