/* SPDX-License-Identifier: MIT */
/*
 * powerpc decoders: registers -> piece, and DSI/Trace status -> slots.
 * Scope mapping is the inverse of encode.c's (see the comment there).
 */

#include "powerpc.h"

/*
 * Largest span one instruction's data access can cover, for locating the
 * slot when DAR lies outside every watched range.  128 bytes: dcbz zeroes
 * a whole cache block, 128 bytes on POWER7..POWER10, and Linux treats it as
 * a block-aligned store of l1_dcache_bytes() (hw_breakpoint_constraints.c
 * wp_get_instr_detail); lmw/stmw move up to 32 words = 128 bytes and
 * lswx/stswx up to 127 bytes.  (Vector and paired accesses are 16/32.)
 */
#define PPC_MAX_ACCESS 128ull
/* Data slots of any powerpc: DAWR0 and DAWR1 (or the one DABR). */
#define PPC_MAX_DATA 2u

static enum hwbp_scope scope_of(uint64_t priv, uint64_t user)
{
	if (!(priv & user))
		return HWBP_SCOPE_KERNEL;
	return (priv & ~user) ? HWBP_SCOPE_BOTH : HWBP_SCOPE_USER;
}

static void fill_piece(struct hwbp_piece *p, uint64_t addr, uint64_t len, unsigned type)
{
	memset(p, 0, sizeof(*p));
	p->addr = addr;
	p->len = len;
	p->cover_lo = addr;
	p->cover_len = len;
	p->type = type;
}

/*
 * A data unit is enabled when it matches some access type (DR or DW) in
 * some privilege state (a PRO/PNH/HYP or USER/KERNEL/HYP bit): with no
 * privilege bit set the hardware never matches, so such a slot is reported
 * as disabled.  Low address bits below the doubleword are ignored by the
 * hardware (DAWR[0:60] / DABR[0:60] hold the address).
 */
static int decode_data(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
		       unsigned slot, struct hwbp_piece *piece, enum hwbp_scope *scope)
{
	unsigned type = 0;

	if (hwbp_powerpc_has_dawr(cpu)) {
		int idx = hwbp_powerpc_dawr_index(cpu, slot);
		uint64_t x, addr, len, bnd = hwbp_powerpc_boundary(cpu);

		if (idx < 0)
			return -EINVAL;
		x = regs->u.ppc.dawrx[idx];
		if (x & HWBP_PPC_DAWRX_DR)
			type |= HWBP_R;
		if (x & HWBP_PPC_DAWRX_DW)
			type |= HWBP_W;
		if (!type || !(x & HWBP_PPC_DAWRX_PRIV))
			return 0;
		addr = regs->u.ppc.dawr[idx] & ~(HWBP_PPC_DW - 1);
		len = (((x >> HWBP_PPC_DAWRX_MRD_SHIFT) & HWBP_PPC_DAWRX_MRD_MASK) + 1) *
		      HWBP_PPC_DW;
		if (addr + (len - 1) < addr)
			return -EINVAL;  /* range would wrap */
		/* Before v3.1 a range crossing 512 bytes is not a valid setting. */
		if (bnd && addr / bnd != (addr + len - 1) / bnd)
			return -EINVAL;
		fill_piece(piece, addr, len, type);
		*scope = scope_of(x & HWBP_PPC_DAWRX_PRIV, HWBP_PPC_DAWRX_PRO);
		return 1;
	}
	if (!hwbp_powerpc_dabr_mode(cpu) || slot != 0)
		return -EINVAL;
	if (regs->u.ppc.dabr & HWBP_PPC_DABR_DR)
		type |= HWBP_R;
	if (regs->u.ppc.dabr & HWBP_PPC_DABR_DW)
		type |= HWBP_W;
	if (!type || !(regs->u.ppc.dabrx & HWBP_PPC_DABRX_PRIV))
		return 0;
	fill_piece(piece, regs->u.ppc.dabr & ~(HWBP_PPC_DW - 1), HWBP_PPC_DW, type);
	*scope = scope_of(regs->u.ppc.dabrx & HWBP_PPC_DABRX_PRIV, HWBP_PPC_DABRX_USER);
	return 1;
}

int hwbpi_powerpc_decode_slot(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			      unsigned slot, bool inst, struct hwbp_piece *piece,
			      enum hwbp_scope *scope)
{
	uint64_t c, priv;

	if (!inst)
		return decode_data(cpu, regs, slot, piece, scope);
	if (!hwbp_powerpc_has_ciabr(cpu) || slot != 0)
		return -EINVAL;
	c = regs->u.ppc.ciabr;
	priv = c & HWBP_PPC_CIABR_PRIV;
	if (!priv)
		return 0;  /* PRIV 00: disabled */
	fill_piece(piece, c & ~HWBP_PPC_CIABR_PRIV, 4, HWBP_X);
	/* 10 (guest kernel) and 11 (bare-metal kernel) are both kernel. */
	*scope = priv == HWBP_PPC_CIABR_PRIV_USER ? HWBP_SCOPE_USER : HWBP_SCOPE_KERNEL;
	return 1;
}

/* Does [lo, hi] (inclusive) overlap piece p? */
static bool overlaps(const struct hwbp_piece *p, uint64_t lo, uint64_t hi)
{
	uint64_t plast = p->addr + (p->len - 1);

	return p->addr <= hi && lo <= plast;
}

static int decode_dsi(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
		      const struct hwbp_status *st, struct hwbp_hit *hit)
{
	uint64_t dar = st->u.ppc.dar, dw = dar & ~(HWBP_PPC_DW - 1);
	unsigned kind = (st->u.ppc.dsisr & HWBP_PPC_DSISR_STORE) ? HWBP_W : HWBP_R;
	unsigned n = hwbp_powerpc_ndata(cpu);
	struct hwbp_piece p[PPC_MAX_DATA];
	uint32_t armed = 0, inside = 0, near = 0, typed;

	for (unsigned i = 0; i < n && i < PPC_MAX_DATA; i++) {
		enum hwbp_scope sc;

		if (decode_data(cpu, regs, i, &p[i], &sc) == 1)
			armed |= 1u << i;
	}

	/* The matching doubleword is DAR's (ranges are doubleword aligned). */
	for (unsigned i = 0; i < n && i < PPC_MAX_DATA; i++)
		if (((armed >> i) & 1) && overlaps(&p[i], dw, dw + (HWBP_PPC_DW - 1)))
			inside |= 1u << i;

	/*
	 * Before v3.1 DAR is the access's first byte, which lies before the
	 * watched range when the access starts below it and runs into it
	 * (e.g. an unaligned 8-byte store at range - 4).  Then the slot is one
	 * whose range starts less than PPC_MAX_ACCESS bytes after DAR.  dcbz
	 * zeroes the whole aligned block around its operand, so the block
	 * holding DAR counts too.  From v3.1 DAR is the first byte of overlap
	 * (v3.1 change log), so no fallback there.  Pre-v3.1 CPUs have a
	 * single data slot, so the order among candidates never matters.
	 */
	if (!inside && cpu->u.ppc.isa < 310) {
		uint64_t lo = dar & ~(PPC_MAX_ACCESS - 1);
		uint64_t hi = dar + (PPC_MAX_ACCESS - 1);

		if (hi < dar)
			hi = UINT64_MAX;
		for (unsigned i = 0; i < n && i < PPC_MAX_DATA; i++)
			if (((armed >> i) & 1) && overlaps(&p[i], lo, hi))
				near |= 1u << i;
		inside = near;
	}
	if (!inside)
		return -ENOENT;

	/*
	 * With two DAWRs on one doubleword, only a slot watching this access
	 * type fired.  A set DSISR[38] proves a store: keep the slots that
	 * watch writes (all of them if none does).  A clear one is a load on
	 * hardware, but QEMU TCG never sets DSISR[38] (it sets only DSISR[41],
	 * sim quirk HWBPI_Q_PPC_DSISR_STORE), so a clear bit proves nothing:
	 * report every covering slot and let hwbp_decode() drop requests by
	 * the access kind when the caller knows it.
	 */
	typed = 0;
	if (kind == HWBP_W)
		for (unsigned i = 0; i < n && i < PPC_MAX_DATA; i++)
			if (((inside >> i) & 1) && (p[i].type & HWBP_W))
				typed |= 1u << i;
	hit->data_slots = typed ? typed : inside;
	hit->kind = kind;
	hit->addr = dar;
	hit->addr_known = true;
	hit->ip = st->ip;
	return 0;
}

/*
 * Status decoding.
 *  - 0x300 DSI with DSISR[41] (DABR/DAWR match): a watchpoint.  Without
 *    that bit it is an ordinary storage fault: -EINVAL.
 *  - 0xD00 Trace: CIABR matches raise a Trace interrupt after the
 *    instruction completes; SRR0 then holds the NEXT instruction and the
 *    matched one is in SIAR.  st->ip must be the matched instruction's
 *    address (SIAR on hardware; SRR0 under QEMU TCG, which traps before
 *    executing it).  SRR1[43] flags a CIABR match (QEMU sets SRR1[33,43]):
 *    when the handler passes SRR1 (non-zero) and that bit is clear, the
 *    trace is an ordinary single step, not a debug-register event
 *    (-EINVAL); with SRR1 0 (not read) a single step of the very
 *    instruction CIABR names cannot be told apart.  A trace that matches
 *    no enabled CIABR is a debug event with no slot: -ENOENT.
 *  - Anything else: -EINVAL.
 */
int hwbpi_powerpc_decode_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
				const struct hwbp_status *st, struct hwbp_hit *hit)
{
	struct hwbp_piece p;
	enum hwbp_scope sc;

	if (st->u.ppc.vector == HWBP_PPC_VEC_DSI) {
		if (!(st->u.ppc.dsisr & HWBP_PPC_DSISR_DABRMATCH))
			return -EINVAL;
		return decode_dsi(cpu, regs, st, hit);
	}
	if (st->u.ppc.vector == HWBP_PPC_VEC_TRACE) {
		if (st->u.ppc.srr1 && !(st->u.ppc.srr1 & HWBP_PPC_SRR1_CIABR))
			return -EINVAL;
		if (!hwbp_powerpc_has_ciabr(cpu) ||
		    hwbpi_powerpc_decode_slot(cpu, regs, 0, true, &p, &sc) != 1 ||
		    p.addr != (st->ip & ~3ull))
			return -ENOENT;
		hit->inst_slots = 1;
		hit->kind = HWBP_X;
		hit->addr = p.addr;
		hit->addr_known = true;
		hit->ip = st->ip;
		return 0;
	}
	return -EINVAL;
}

/*
 * The interrupt's vector (0x300 DSI, 0xd00 trace) names the event; DSISR
 * and DAR come with a DSI, so either alone implies vector 0x300 while no
 * vector was given; SRR1 only qualifies a trace.
 */
const char *const hwbpi_powerpc_status_fields[] = { "vector", "dsisr", "dar", "srr1", NULL };

int hwbpi_powerpc_status_set(struct hwbp_status *st, const char *name, uint64_t value)
{
	if (hwbpi_streq(name, "vector")) {
		st->u.ppc.vector = value;
		return 1;
	}
	if (hwbpi_streq(name, "srr1")) {
		st->u.ppc.srr1 = value;
		return 0;
	}
	if (hwbpi_streq(name, "dsisr"))
		st->u.ppc.dsisr = value;
	else if (hwbpi_streq(name, "dar"))
		st->u.ppc.dar = value;
	else
		return -ENOENT;
	if (st->u.ppc.vector == 0)
		st->u.ppc.vector = HWBP_PPC_VEC_DSI;
	return 1;
}
