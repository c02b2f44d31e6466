/* SPDX-License-Identifier: MIT */
/*
 * powerpc (Book III-S) debug-unit model: DABR/DABRX (ISA v2.06), DAWR0/
 * DAWRX0 and CIABR (ISA v2.07/v3.0), DAWR1/DAWRX1 (ISA v3.1).
 *
 * Sources: Power ISA v3.1 Book III ch. 9 "Debug Facilities" (and v2.06
 * Book III-S §9.3 for DABR); Linux arch/powerpc/kernel/hw_breakpoint.c,
 * hw_breakpoint_constraints.c, dawr.c and the commits cited below; QEMU 10.0
 * target/ppc/{cpu.c,tcg-excp_helper.c} and accel/tcg/watchpoint.c for the
 * qemu profile (each departure is a row of quirks_powerpc.def).
 *
 * Choices where the manuals leave one (sdm profile), each explained where
 * it is made:
 *  - translation: the sim has no MSR[DR]; it runs with data relocation on
 *    (MSR[DR]=1, how Linux kernels and programs run), so a DAWR matches when
 *    DAWRX[WTI] = 1 or DAWRX[WT] = 1 (DABR: DABRX[BTI] or DABR[BT]).  hwbp's
 *    encoder sets WTI|WT (BTI|BT), which matches with relocation on or off.
 *  - pre-v3.1 DAWR range across a 512-byte boundary: cut at the block end.
 *  - DAR: first byte of overlap (v3.1 rule; also what POWER8/9 do for all
 *    but quadword accesses), access address for pre-v3.1 quadwords.
 *  - dcbz: a 128-byte store of the aligned block, DAR = first byte of
 *    overlap.
 *
 * MSR[SE]/MSR[BE] tracing, `trap`, mfspr (`get`) and what `resume`
 * completes are sim/powerpc_trace.c.
 */
#include <errno.h>
#include <string.h>

#include "powerpc_model.h"
#include <hwbp/powerpc.h>

/* Power ISA bits 33 and 43 of SRR1 on a Trace interrupt (IBM numbering). */
#define PPC_SRR1_TRACE 0x40000000ull           /* bit 33: every Trace interrupt */
#define PPC_TRACE_SRR1 (PPC_SRR1_TRACE | HWBP_PPC_SRR1_CIABR)

/*
 * dcbz zeroes one cache block: 128 bytes on POWER7..POWER10 (Linux treats
 * it as a block-aligned store of l1 dcache block size,
 * hw_breakpoint_constraints.c; QEMU dcache_line_size is 128 for these).
 */
#define PPC_DCBZ_BLOCK 128ull
#define PPC_QUADWORD 16ull

/* One data slot as it can match now (mode, profile). */
struct wslot {
	uint64_t lo, last;  /* watched bytes, inclusive */
	bool r, w;          /* matches loads / stores */
};

/*
 * DAWRX PRO/PNH/HYP and DABRX USER/KERNEL/HYP share bit positions 0/1/2:
 * one enable bit per privilege state (Book III ch. 9 DAWRXn, v2.06 DABRX).
 */
static bool priv_ok(int profile, const struct hwbpi_sim_cpu *c, uint64_t x)
{
	if (hwbpi_quirk_on(profile, HWBPI_Q_PPC_DAWRX_PRIV)) {
		/*
		 * QEMU ppc_cpu_debug_check_watchpoint(): its "pr" bit is ISA bit
		 * 62 (PNH), so PNH is needed in every state and HYP on top of it
		 * whenever MSR[HV] = 1, also in problem state.
		 */
		if (!(x & HWBP_PPC_DAWRX_PNH))
			return false;
		return !(c->s.ppc.hv && !(x & HWBP_PPC_DAWRX_HYP));
	}
	return (x >> hwbpi_ppc_state(c)) & 1;
}

/*
 * Data slot @i as it can match now.  Returns false when it cannot fire at
 * all (no access type, privilege or translation mismatch, absent unit).
 * The range is the one the profile matches, before any per-access widening.
 */
/*
 * Bytes a DAWR watches: (MRD + 1) doublewords, MRD = DAWRX bits 10..15
 * (ISA bits 48:53).  QEMU 10.0 extracts six bits from bit 15 instead
 * (ISA bits 43:48), so it watches 8 bytes, or 16 when MRD >= 32
 * (quirk HWBPI_Q_PPC_MRD_BITS).
 */
static uint64_t dawr_len(int profile, uint64_t dawrx)
{
	unsigned shift = hwbpi_quirk_on(profile, HWBPI_Q_PPC_MRD_BITS) ? 15 : HWBP_PPC_DAWRX_MRD_SHIFT;

	return (((dawrx >> shift) & HWBP_PPC_DAWRX_MRD_MASK) + 1) * HWBP_PPC_DW;
}

/* DAWRn/DAWRXn (@idx) as the doublewords they watch. */
static bool dawr_slot(const struct hwbp_cpu *cpu, int profile, const struct hwbpi_sim_cpu *c,
		      int idx, struct wslot *s)
{
	uint64_t x = c->regs.u.ppc.dawrx[idx], bnd;

	s->r = (x & HWBP_PPC_DAWRX_DR) != 0;
	s->w = (x & HWBP_PPC_DAWRX_DW) != 0;
	if (!s->r && !s->w)
		return false;
	/* Translation: MSR[DR] = 1 in the sim (see the top comment). */
	if (!(x & (HWBP_PPC_DAWRX_WTI | HWBP_PPC_DAWRX_WT)))
		return false;
	if (!priv_ok(profile, c, x & HWBP_PPC_DAWRX_PRIV))
		return false;
	/* DAWR[0:60] is the doubleword address; MRD = doublewords - 1. */
	s->lo = c->regs.u.ppc.dawr[idx] & ~(HWBP_PPC_DW - 1);
	s->last = s->lo + (dawr_len(profile, x) - 1);
	if (s->last < s->lo)
		s->last = UINT64_MAX;  /* wraps: the top of memory ends it */
	/*
	 * Before v3.1 the match criteria include DAWR's 512-byte block
	 * (Linux: "ISA still includes 512B boundary in match criteria",
	 * which v3.1 lifted).  Hardware behaviour for a range programmed
	 * across the boundary is undefined in practice (Linux refuses such
	 * ranges); we take the criteria literally: only doublewords of DAWR's
	 * own block match, the rest of the range is cut off.  QEMU watches
	 * the whole range (quirk DAWR_512).
	 */
	bnd = hwbp_powerpc_boundary(cpu);
	if (bnd && !hwbpi_quirk_on(profile, HWBPI_Q_PPC_DAWR_512) && (s->lo | (bnd - 1)) < s->last)
		s->last = s->lo | (bnd - 1);
	return true;
}

/* DABR/DABRX as the one doubleword they watch. */
static bool dabr_slot(int profile, const struct hwbpi_sim_cpu *c, struct wslot *s)
{
	const struct hwbp_regs *g = &c->regs;

	/* QEMU keeps DABR/DABRX as plain SPRs: nothing ever matches. */
	if (hwbpi_quirk_on(profile, HWBPI_Q_PPC_DABR_INERT))
		return false;
	s->r = (g->u.ppc.dabr & HWBP_PPC_DABR_DR) != 0;
	s->w = (g->u.ppc.dabr & HWBP_PPC_DABR_DW) != 0;
	if (!s->r && !s->w)
		return false;
	if (!(g->u.ppc.dabrx & HWBP_PPC_DABRX_BTI) && !(g->u.ppc.dabr & HWBP_PPC_DABR_BT))
		return false;
	/* DABRX privilege bits sit where DAWRX's do; QEMU never gets here. */
	if (!((g->u.ppc.dabrx & HWBP_PPC_DABRX_PRIV) >> hwbpi_ppc_state(c) & 1))
		return false;
	s->lo = g->u.ppc.dabr & ~(HWBP_PPC_DW - 1);   /* DABR[0:60]: one doubleword */
	s->last = s->lo + (HWBP_PPC_DW - 1);
	return true;
}

/* Data slot @i as what it watches in the current state (false: it cannot
 * match now).  Slots are the DAWRs present, else the one DABR. */
static bool data_slot(const struct hwbp_cpu *cpu, int profile, const struct hwbpi_sim_cpu *c,
		      unsigned i, struct wslot *s)
{
	if (hwbp_powerpc_has_dawr(cpu)) {
		int idx = hwbp_powerpc_dawr_index(cpu, i);

		return idx >= 0 && dawr_slot(cpu, profile, c, idx, s);
	}
	return hwbp_powerpc_dabr_mode(cpu) && i == 0 && dabr_slot(profile, c, s);
}

static void reset(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c)
{
	(void)profile;
	memset(c, 0, sizeof(*c));
	hwbp_regs_reset(cpu, &c->regs);
	/* docs/scenarios.md: a bare-metal kernel, MSR[PR] = 0, MSR[HV] = 1. */
	c->s.ppc.pr = 0;
	c->s.ppc.hv = 1;
}

static int set_reg(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		   const char *name, uint64_t value, struct hwbp_sim_result *res)
{
	(void)profile;
	memset(res, 0, sizeof(*res));
	if (hwbpi_sim_ppc_set_flag(c, name, value) == 0)
		return 0;   /* msr_se, msr_be, step */
	/* Only the units this CPU has: -ENOENT otherwise (encoder's table). */
	return hwbp_regs_set(cpu, &c->regs, name, value);
}

static int get_reg(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c,
		   const char *name, uint64_t *value)
{
	struct hwbp_reg_nv nv[8];
	int n = hwbp_regs_list(cpu, &c->regs, nv, 8);

	if (hwbpi_sim_ppc_get_flag(c, name, value) == 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(nv[i].name, name) == 0) {
			*value = nv[i].value;
			return 0;
		}
	}
	/* The interrupt registers the last exception wrote (read-only). */
	if (strcmp(name, "dsisr") == 0)
		*value = c->s.ppc.dsisr;
	else if (strcmp(name, "dar") == 0)
		*value = c->s.ppc.dar;
	else if (strcmp(name, "srr0") == 0)
		*value = c->s.ppc.srr0;
	else if (strcmp(name, "srr1") == 0)
		*value = c->s.ppc.srr1;
	else if (strcmp(name, "siar") == 0)
		*value = c->s.ppc.siar;
	else
		return -ENOENT;
	return 0;
}

static int mode(const struct hwbp_cpu *cpu, struct hwbpi_sim_cpu *c, const char *key,
		uint64_t value)
{
	(void)cpu;
	if (strcmp(key, "pr") != 0 && strcmp(key, "hv") != 0)
		return -ENOENT;
	if (value > 1)
		return -EINVAL;
	if (key[0] == 'p')
		c->s.ppc.pr = (int)value;
	else
		c->s.ppc.hv = (int)value;
	return 0;
}

static void fill_dsi(struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
		     uint32_t slots, uint64_t dsisr, uint64_t dar, struct hwbp_sim_result *res)
{
	res->cls = HWBP_SIM_DSI;
	/* Book III ch. 9: the DSI is taken before the access is performed. */
	res->timing = HWBP_TIMING_BEFORE;
	res->data_slots = slots;
	hwbpi_sim_status(res, "dsisr", dsisr);
	hwbpi_sim_status(res, "dar", dar);
	res->addr = dar;
	res->addr_known = true;
	res->st.ip = 0;  /* the sim models no instruction address for data */
	res->st.u.ppc.vector = HWBP_PPC_VEC_DSI;
	res->st.u.ppc.dsisr = dsisr;
	res->st.u.ppc.dar = dar;
	c->s.ppc.dsisr = dsisr;
	c->s.ppc.dar = dar;
	c->pending = true;
	c->last = *a;
	/* The access did not complete: resume() completes it. */
	c->mflags = HWBPI_PPC_PEND_COMPLETE;
}

/* The bytes [lo, last] an access touches (dcbz: its whole cache block). */
static void access_range(const struct hwbp_sim_access *a, uint64_t *lo, uint64_t *last)
{
	if (a->op == HWBP_SIM_ZERO) {
		*lo = a->addr & ~(PPC_DCBZ_BLOCK - 1);
		*last = *lo + (PPC_DCBZ_BLOCK - 1);
		return;
	}
	*lo = a->addr;
	*last = a->addr + (a->size - 1);
	if (*last < *lo)
		*last = UINT64_MAX;
}

/*
 * Does slot @s match the access [alo, alast]?  Doubleword granular: any
 * access byte in a watched doubleword.  *dar: the first byte of overlap
 * between the access and the watched range (ISA v3.1; POWER8/9 for
 * non-quadword accesses); the access's first byte for a pre-v3.1 @quad.
 */
static bool slot_hit(const struct wslot *s, uint64_t alo, uint64_t alast, bool quad,
		     uint64_t *dar)
{
	uint64_t lo = s->lo, last = s->last;

	if (quad) {
		lo &= ~(PPC_QUADWORD - 1);
		last |= PPC_QUADWORD - 1;
	}
	if (alo > last || lo > alast)
		return false;
	*dar = quad ? alo : (alo > s->lo ? alo : s->lo);
	return true;
}

static void data_access(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	bool store = a->op != HWBP_SIM_READ;  /* write, or dcbz (a store) */
	uint64_t alo, alast, dar = UINT64_MAX, dsisr;
	unsigned n = hwbp_powerpc_ndata(cpu);
	uint32_t hit = 0;
	bool quad;

	access_range(a, &alo, &alast);
	/*
	 * Pre-v3.1 hardware compares a quadword access at quadword length and
	 * reports DAR = the access's first byte (Linux 4759c11ed204,
	 * f6780ce619f8); QEMU does neither (quirk QUADWORD).
	 */
	quad = cpu->u.ppc.isa < 310 && a->op != HWBP_SIM_ZERO && a->size == PPC_QUADWORD &&
	       !hwbpi_quirk_on(profile, HWBPI_Q_PPC_QUADWORD);
	for (unsigned i = 0; i < n && i < 32; i++) {
		struct wslot s;
		uint64_t d;

		if (!data_slot(cpu, profile, c, i, &s))
			continue;
		if (store ? !s.w : !s.r)
			continue;  /* DW matches stores, DR loads */
		if (!slot_hit(&s, alo, alast, quad, &d))
			continue;
		hit |= 1u << i;
		if (d < dar)
			dar = d;
		/* QEMU stops at the first matching watchpoint (quirk FIRST_DAWR). */
		if (hwbpi_quirk_on(profile, HWBPI_Q_PPC_FIRST_DAWR))
			break;
	}
	if (!hit)
		return;
	dsisr = HWBP_PPC_DSISR_DABRMATCH;
	if (store && !hwbpi_quirk_on(profile, HWBPI_Q_PPC_DSISR_STORE))
		dsisr |= HWBP_PPC_DSISR_STORE;
	fill_dsi(c, a, hit, dsisr, dar, res);
}

/*
 * CIABR (Book III §9.3): CIEA = CIABR[0:61], PRIV = CIABR[62:63] names one
 * state: 01 problem, 10 privileged non-hypervisor, 11 hypervisor; 00 off.
 */
static void exec_access(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	uint64_t ciabr = c->regs.u.ppc.ciabr, priv = ciabr & HWBP_PPC_CIABR_PRIV;
	uint64_t ip = a->addr & ~3ull;
	static const uint64_t want[3] = {
		HWBP_PPC_CIABR_PRIV_USER, HWBP_PPC_CIABR_PRIV_SUPER, HWBP_PPC_CIABR_PRIV_HYPER,
	};

	if (!hwbp_powerpc_has_ciabr(cpu) || !priv)
		return;
	if ((ciabr & ~HWBP_PPC_CIABR_PRIV) != ip || priv != want[hwbpi_ppc_state(c)])
		return;
	res->cls = HWBP_SIM_TRACE;
	res->inst_slots = 1;
	hwbpi_sim_status(res, "srr1", PPC_TRACE_SRR1);
	res->st.ip = ip;  /* the matched instruction: SIAR (hw) / SRR0 (QEMU) */
	res->st.u.ppc.vector = HWBP_PPC_VEC_TRACE;
	res->st.u.ppc.srr1 = PPC_TRACE_SRR1;
	c->s.ppc.srr1 = PPC_TRACE_SRR1;
	if (hwbpi_quirk_on(profile, HWBPI_Q_PPC_CIABR_BEFORE)) {
		/* QEMU: before the instruction, SRR0 = it, SIAR untouched. */
		res->timing = HWBP_TIMING_BEFORE;
		c->s.ppc.srr0 = ip;
		c->mflags = HWBPI_PPC_PEND_COMPLETE;
	} else {
		/*
		 * Completed-instruction breakpoint: the Trace interrupt follows
		 * completion, SRR0 = the next instruction (the sequential one:
		 * the sim does not model branches), SIAR = the matched one.
		 * With MSR[SE] or MSR[BE] this is also the instruction's trace:
		 * one interrupt, SRR1 bits 33 and 43 (and no load/store bit:
		 * Microwatt execute1.vhdl).
		 */
		res->timing = HWBP_TIMING_AFTER;
		c->s.ppc.srr0 = ip + 4;
		c->s.ppc.siar = ip;
		c->mflags = 0;
	}
	c->pending = true;
	c->last = *a;
}

/*
 * How QEMU 10.0 performs some vector loads/stores: as several memory
 * operations in address order, each checked on its own by accel/tcg/
 * watchpoint.c cpu_check_watchpoint(), so the first piece that meets a
 * watchpoint raises the DSI, DAR from that piece:
 *  - 16 bytes not quadword aligned are lxvd2x/stxvd2x (lq/stq need
 *    quadword alignment): two 8-byte pieces, EA then EA + 8
 *    (target/ppc/translate/vsx-impl.c.inc trans_LXVD2X()/trans_STXVD2X(),
 *    quirk VSX_SPLIT);
 *  - 32 bytes are lxvp/stxvp: two 16-byte pieces, EA then EA + 16, each a
 *    single 16-byte access whatever its alignment (do_lstxv() with
 *    tcg_gen_qemu_ld/st_i128, quirk PAIRED_SPLIT).
 * Both found with the bare-metal harness (tests/qemu/powerpc).  When a
 * later piece raises the DSI the earlier ones have been performed; the sim
 * keeps no memory, so only the exception differs.
 */
static void split_access(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			 const struct hwbp_sim_access *a, uint32_t piece,
			 struct hwbp_sim_result *res)
{
	for (uint32_t off = 0; off < a->size; off += piece) {
		struct hwbp_sim_access part = *a;

		part.addr = a->addr + off;
		part.size = piece;
		data_access(cpu, profile, c, &part, res);
		if (res->cls != HWBP_SIM_NONE) {
			c->last = *a;  /* resume() steps the whole instruction */
			return;
		}
	}
}

static void access_(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		    const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	memset(res, 0, sizeof(*res));
	switch (a->op) {
	case HWBP_SIM_READ:
	case HWBP_SIM_WRITE:
		if (a->size == PPC_QUADWORD && (a->addr & (PPC_QUADWORD - 1)) &&
		    hwbpi_quirk_on(profile, HWBPI_Q_PPC_VSX_SPLIT)) {
			split_access(cpu, profile, c, a, HWBP_PPC_DW, res);
			break;
		}
		if (a->size == 2 * PPC_QUADWORD && hwbpi_quirk_on(profile, HWBPI_Q_PPC_PAIRED_SPLIT)) {
			split_access(cpu, profile, c, a, PPC_QUADWORD, res);
			break;
		}
		data_access(cpu, profile, c, a, res);
		break;
	case HWBP_SIM_ZERO:
		data_access(cpu, profile, c, a, res);
		break;
	case HWBP_SIM_EXEC:
		exec_access(cpu, profile, c, a, res);
		break;
	case HWBP_SIM_SWBP:
		hwbpi_sim_ppc_trap(c, a, res);
		return;
	default:
		return;  /* no port I/O on powerpc */
	}
	/* Completed with no debug interrupt: MSR[SE]/[BE] may trace it. */
	if (res->cls == HWBP_SIM_NONE)
		hwbpi_sim_ppc_completed(profile, c, a, res);
}

/*
 * Conservative filter: the union of what every slot that can fire now
 * could match, padded to 16-byte alignment for pre-v3.1 quadword widening,
 * using the uncut programmed range.
 */
static void refilter(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c)
{
	unsigned n = hwbp_powerpc_ndata(cpu);
	uint64_t lo = UINT64_MAX, last = 0;
	bool any = false;

	/* Tracing: every instruction that completes raises a Trace
	 * interrupt, so every access must reach the model. */
	c->nwin = 0;
	if (hwbpi_ppc_tracing(c)) {
		c->flo = 0;
		c->fhi = UINT64_MAX;
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct wslot s;
		int idx;

		if (!data_slot(cpu, profile, c, i, &s))
			continue;
		idx = hwbp_powerpc_dawr_index(cpu, i);
		if (idx >= 0) {
			/* the uncut range, in case the 512-byte cut applied */
			uint64_t x = c->regs.u.ppc.dawrx[idx];
			uint64_t len = dawr_len(profile, x);

			s.last = s.lo + (len - 1);
			if (s.last < s.lo)
				s.last = UINT64_MAX;
		}
		any = true;
		if ((s.lo & ~(PPC_QUADWORD - 1)) < lo)
			lo = s.lo & ~(PPC_QUADWORD - 1);
		if ((s.last | (PPC_QUADWORD - 1)) > last)
			last = s.last | (PPC_QUADWORD - 1);
	}
	if (!any) {
		c->flo = c->fhi = 0;
		return;
	}
	c->flo = lo;
	c->fhi = last == UINT64_MAX ? UINT64_MAX : last + 1;
}

static int priv(const struct hwbpi_sim_cpu *c)
{
	return c->s.ppc.pr ? 1 : 0;
}

const struct hwbpi_sim_model hwbpi_sim_powerpc = {
	.arch = HWBP_ARCH_POWERPC,
	.io_ports = false,
	.zero_block = PPC_DCBZ_BLOCK,
	.swbp = "trap",
	.reset = reset,
	.set_reg = set_reg,
	.get_reg = get_reg,
	.get_insn = hwbpi_sim_ppc_get_insn,
	.mode = mode,
	.access = access_,
	.resume = hwbpi_sim_ppc_resume,
	.refilter = refilter,
	.priv = priv,
};
