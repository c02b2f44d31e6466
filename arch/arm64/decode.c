/* SPDX-License-Identifier: MIT */
/*
 * arm64 decoders: what a slot watches, and which slots a debug exception
 * (ESR_ELx + FAR_ELx + ELR_ELx) reports.
 */

#include "arm64.h"

/* ESR_ELx: EC [31:26]; ISS of watchpoint / breakpoint exceptions. */
#define ESR_EC_SHIFT 26
#define ESR_EC_MASK 0x3fu
#define EC_BREAKPOINT_LOWER 0x30u
#define EC_BREAKPOINT_SAME 0x31u
#define EC_WATCHPOINT_LOWER 0x34u
#define EC_WATCHPOINT_SAME 0x35u
#define ESR_FSC_MASK 0x3fu /* DFSC / IFSC [5:0] */
#define FSC_DEBUG 0x22u    /* 0b100010: Debug exception */
#define ESR_WNR (1u << 6)
#define ESR_FNV (1u << 10)  /* FAR not valid */
#define ESR_WPTV (1u << 17) /* WPT valid */
#define ESR_WPT_SHIFT 18    /* WPT [23:18]: watchpoint number */
#define ESR_WPT_MASK 0x3fu

/*
 * FAR's imprecision window: FAR and the watched byte accessed lie in one
 * naturally aligned block no larger than the DC ZVA block, and DC ZVA
 * blocks are at most 2 KiB (DCZID_EL0.BS, log2 of the size in words, is at
 * most 9).  hwbp does not know this CPU's DCZID_EL0, so it uses the
 * architectural maximum.
 */
#define FAR_WINDOW 2048ull

static int scope_of(unsigned pac, enum hwbp_scope *scope)
{
	/*
	 * PAC/PMC with HMC = 0, SSC = 0b00: 0b01 EL1, 0b10 EL0, 0b11 both,
	 * 0b00 reserved.  HMC/SSC are not decoded: hwbp folds EL2 (HMC = 1,
	 * as Linux sets for a VHE kernel) into "kernel" and does not model
	 * the Security state, so the scope is read from PAC alone.
	 */
	switch (pac) {
	case HWBP_ARM64_PAC_EL1:
		*scope = HWBP_SCOPE_KERNEL;
		return 0;
	case HWBP_ARM64_PAC_EL0:
		*scope = HWBP_SCOPE_USER;
		return 0;
	case HWBP_ARM64_PAC_BOTH:
		*scope = HWBP_SCOPE_BOTH;
		return 0;
	}
	return -EINVAL;
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

/* 1 enabled (piece/scope filled), 0 disabled, -EINVAL reserved/unpredictable. */
static int wp_decode(uint64_t wvr, uint64_t wcr, struct hwbp_piece *p, enum hwbp_scope *scope)
{
	unsigned lsc, mask, bas, first;
	uint64_t base;

	if (!(wcr & HWBP_ARM64_CR_E))
		return 0;
	/* LSC 0b00 is reserved (behaves as disabled, but never valid). */
	lsc = (unsigned)(wcr >> HWBP_ARM64_WCR_LSC_SHIFT) & HWBP_ARM64_WCR_LSC_MASK;
	if (lsc == 0)
		return -EINVAL;
	if (scope_of((unsigned)(wcr >> HWBP_ARM64_CR_PAC_SHIFT) & HWBP_ARM64_CR_PAC_MASK, scope))
		return -EINVAL;
	if (wcr & HWBP_ARM64_WCR_WT)
		return -EINVAL; /* linked to a context breakpoint: not a plain address watch */

	mask = (unsigned)(wcr >> HWBP_ARM64_WCR_MASK_SHIFT) & HWBP_ARM64_WCR_MASK_MASK;
	bas = (unsigned)(wcr >> HWBP_ARM64_WCR_BAS_SHIFT) & HWBP_ARM64_WCR_BAS_MASK;
	if (mask) {
		uint64_t len = 1ull << mask;

		/*
		 * MASK 0b00001/0b00010 are reserved; with MASK != 0, BAS other
		 * than 0xFF and DBGWVR bits below the mask that are not zero
		 * are CONSTRAINED UNPREDICTABLE (Arm ARM DBGWCR.MASK).
		 */
		if (mask < 3 || bas != HWBP_ARM64_WCR_BAS_MASK || (wvr & (len - 1)))
			return -EINVAL;
		fill(p, wvr, len, lsc);
		return 1;
	}

	/* DBGWVR bits [1:0] are RES0: ignore them. */
	base = wvr & ~3ull;
	if (wvr & 4) {
		/*
		 * Deprecated word-aligned DBGWVR (bit 2 set): only BAS[3:0]
		 * select bytes, from the word at DBGWVR.  Choice: follow QEMU
		 * hw_watchpoint_update() and ignore BAS[7:4] rather than
		 * reject the value.
		 */
		bas &= 0xf;
	}
	/* No byte selected: the watchpoint can never match (as disabled). */
	if (bas == 0)
		return 0;
	first = 0;
	while (!((bas >> first) & 1))
		first++;
	/* Non-contiguous BAS is CONSTRAINED UNPREDICTABLE. */
	if (((bas >> first) & ((bas >> first) + 1)) != 0)
		return -EINVAL;
	{
		unsigned len = 0;

		for (unsigned b = bas >> first; b; b >>= 1)
			len++;
		fill(p, base + first, len, lsc);
	}
	return 1;
}

static int bp_decode(uint64_t bvr, uint64_t bcr, struct hwbp_piece *p, enum hwbp_scope *scope)
{
	if (!(bcr & HWBP_ARM64_CR_E))
		return 0;
	/*
	 * Only BT = 0b0000 (unlinked instruction address match) is an address
	 * breakpoint hwbp can express; context/VMID/linked/mismatch types are
	 * not.  BAS must be 0b1111 for A64 (0b0011/0b1100 are T32 halfword
	 * forms, other values reserved).
	 */
	if (((bcr >> HWBP_ARM64_BCR_BT_SHIFT) & HWBP_ARM64_BCR_BT_MASK) != 0)
		return -EINVAL;
	if (((bcr >> HWBP_ARM64_BCR_BAS_SHIFT) & HWBP_ARM64_BCR_BAS_MASK) != HWBP_ARM64_BCR_BAS_A64)
		return -EINVAL;
	if (scope_of((unsigned)(bcr >> HWBP_ARM64_CR_PAC_SHIFT) & HWBP_ARM64_CR_PAC_MASK, scope))
		return -EINVAL;
	/* DBGBVR bits [1:0] are RES0. */
	fill(p, bvr & ~3ull, HWBP_ARM64_INST_LEN, HWBP_X);
	return 1;
}

int hwbpi_arm64_decode_slot(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			    unsigned slot, bool inst, struct hwbp_piece *piece,
			    enum hwbp_scope *scope)
{
	struct hwbp_piece p;
	enum hwbp_scope s;
	int ret;

	if (inst) {
		if (slot >= hwbp_arm64_nbrp(cpu))
			return -EINVAL;
		ret = bp_decode(regs->u.arm64.bvr[slot], regs->u.arm64.bcr[slot], &p, &s);
	} else {
		if (slot >= hwbp_arm64_nwrp(cpu))
			return -EINVAL;
		ret = wp_decode(regs->u.arm64.wvr[slot], regs->u.arm64.wcr[slot], &p, &s);
	}
	if (ret == 1) {
		*piece = p;
		*scope = s;
	}
	return ret;
}

/*
 * Candidates: enabled watchpoints whose LSC includes the access kind
 * (WnR: 1 store, 0 load; a DC ZVA or cache maintenance instruction
 * that hits reports WnR = 1).  Linux watchpoint_handler() applies
 * the same type filter.
 */
static uint32_t wp_candidates(const struct hwbp_regs *regs, unsigned nw, unsigned kind)
{
	uint32_t cand = 0;

	for (unsigned i = 0; i < nw; i++) {
		struct hwbp_piece p;
		enum hwbp_scope s;

		if (wp_decode(regs->u.arm64.wvr[i], regs->u.arm64.wcr[i], &p, &s) == 1 &&
		    (p.type & kind))
			cand |= 1u << i;
	}
	return cand;
}

/*
 * The candidates of @cand that FAR @far blames.
 *
 * FAR lies between the lowest accessed byte and the highest watched
 * byte accessed, in one naturally aligned block of at most 2 KiB
 * (Arm ARM "Determining the memory location that caused a Watchpoint
 * exception").  So the watchpoint that fired has a watched byte h
 * with FAR <= h, h in FAR's 2 KiB block.  Exact containment first;
 * otherwise the nearest such watchpoint(s) above FAR.
 *
 * Choice: Linux get_distance_from_watchpoint() measures distance in
 * both directions; hwbp uses the one-sided reading of the
 * architecture (FAR never exceeds the highest watched byte accessed),
 * which never blames a watchpoint that lies wholly below FAR.
 */
static uint32_t far_slots(const struct hwbp_regs *regs, unsigned nw, uint32_t cand, uint64_t far)
{
	uint64_t win_end = (far & ~(FAR_WINDOW - 1)) + (FAR_WINDOW - 1);
	uint64_t best = UINT64_MAX;
	uint32_t slots = 0;

	for (unsigned i = 0; i < nw; i++) {
		struct hwbp_piece p;
		enum hwbp_scope s;
		uint64_t lo, hi, dist;

		/* Decoded again rather than kept from the first pass: an array
		 * of 16 pieces would not fit a kernel-sized stack frame. */
		if (!(cand & (1u << i)) ||
		    wp_decode(regs->u.arm64.wvr[i], regs->u.arm64.wcr[i], &p, &s) != 1)
			continue;
		lo = p.addr;
		hi = lo + (p.len - 1);
		if (lo <= far && far <= hi)
			dist = 0;
		else if (far < lo && lo <= win_end)
			dist = lo - far;
		else
			continue;
		if (dist < best) {
			best = dist;
			slots = 0;
		}
		if (dist == best)
			slots |= 1u << i;
	}
	return slots;
}

static int decode_watchpoint(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			     const struct hwbp_status *st, struct hwbp_hit *hit)
{
	uint32_t esr = (uint32_t)st->u.arm64.esr;
	unsigned kind = (esr & ESR_WNR) ? HWBP_W : HWBP_R;
	uint64_t far = st->u.arm64.far;
	unsigned nw = hwbp_arm64_nwrp(cpu);
	uint32_t cand = wp_candidates(regs, nw, kind), slots;

	hit->kind = kind;
	hit->ip = st->ip;

	/*
	 * FEAT_Debugv8p9 (optional earlier): WPTV = 1 means WPT names the
	 * watchpoint; bits are RES0 (so 0) on CPUs without it.
	 */
	if (esr & ESR_WPTV) {
		unsigned n = (esr >> ESR_WPT_SHIFT) & ESR_WPT_MASK;

		if (n < nw && (cand & (1u << n))) {
			hit->data_slots = 1u << n;
			hit->addr = far;
			hit->addr_known = !(esr & ESR_FNV);
			return 0;
		}
	}

	if (esr & ESR_FNV) {
		/*
		 * FAR is UNKNOWN: no address to match.  Choice: report every
		 * candidate (a superset) rather than none; the generic
		 * filter can narrow it with the caller's access record.
		 */
		if (!cand)
			return -ENOENT;
		hit->data_slots = cand;
		hit->addr = 0;
		hit->addr_known = false;
		return 0;
	}

	slots = far_slots(regs, nw, cand, far);
	if (!slots)
		return -ENOENT;
	hit->data_slots = slots;
	hit->addr = far;
	hit->addr_known = true;
	return 0;
}

static int decode_breakpoint(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			     const struct hwbp_status *st, struct hwbp_hit *hit)
{
	unsigned nb = hwbp_arm64_nbrp(cpu);
	uint32_t slots = 0;

	/*
	 * A breakpoint exception leaves FAR UNKNOWN; ELR_ELx is the
	 * instruction.  Match it against each enabled breakpoint's DBGBVR
	 * (A64 instructions are 4-aligned, so compare the word address, as
	 * Linux breakpoint_handler() does).
	 */
	for (unsigned i = 0; i < nb; i++) {
		struct hwbp_piece p;
		enum hwbp_scope s;

		if (bp_decode(regs->u.arm64.bvr[i], regs->u.arm64.bcr[i], &p, &s) == 1 &&
		    p.addr == (st->ip & ~3ull))
			slots |= 1u << i;
	}
	if (!slots)
		return -ENOENT;
	hit->inst_slots = slots;
	hit->kind = HWBP_X;
	hit->addr = st->ip;
	hit->addr_known = true;
	hit->ip = st->ip;
	return 0;
}

int hwbpi_arm64_decode_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			      const struct hwbp_status *st, struct hwbp_hit *hit)
{
	uint32_t esr = (uint32_t)st->u.arm64.esr;
	unsigned ec = (esr >> ESR_EC_SHIFT) & ESR_EC_MASK;

	/*
	 * EC 0x34/0x35 watchpoint from a lower / the same EL, 0x30/0x31
	 * breakpoint; both carry DFSC/IFSC = 0b100010 (Debug exception) in
	 * ISS[5:0] (QEMU syn_watchpoint()/syn_breakpoint()).  Other debug
	 * classes (software step 0x32/0x33, BRK 0x3C, vector catch) are not
	 * hwbp's and, like every other EC, are -EINVAL.
	 */
	switch (ec) {
	case EC_WATCHPOINT_LOWER:
	case EC_WATCHPOINT_SAME:
		if ((esr & ESR_FSC_MASK) != FSC_DEBUG)
			return -EINVAL;
		return decode_watchpoint(cpu, regs, st, hit);
	case EC_BREAKPOINT_LOWER:
	case EC_BREAKPOINT_SAME:
		if ((esr & ESR_FSC_MASK) != FSC_DEBUG)
			return -EINVAL;
		return decode_breakpoint(cpu, regs, st, hit);
	}
	return -EINVAL;
}

/* ESR_ELx names the class; FAR (watchpoints) the address. */
const char *const hwbpi_arm64_status_fields[] = { "esr", "far", NULL };

int hwbpi_arm64_status_set(struct hwbp_status *st, const char *name, uint64_t value)
{
	if (hwbpi_streq(name, "esr")) {
		st->u.arm64.esr = value;
		return 1;
	}
	if (hwbpi_streq(name, "far")) {
		st->u.arm64.far = value;
		return 0;
	}
	return -ENOENT;
}
