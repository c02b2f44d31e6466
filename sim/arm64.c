/* SPDX-License-Identifier: MIT */
/*
 * Semantic model of the AArch64 self-hosted debug unit (Arm ARM D2
 * "AArch64 Self-hosted Debug", register descriptions in D19 / the
 * AArch64 System register chapter): breakpoints DBGBVR/DBGBCR, watchpoints
 * DBGWVR/DBGWCR, MDSCR_EL1, the OS lock, PSTATE.D and the current EL.
 *
 * What is modelled: a Non-secure EL0/EL1 system without EL2/EL3 routing,
 * debug exceptions taken to EL1 (AArch64), address-match breakpoints
 * (BT = 0b0000) and unlinked watchpoints.  Context/VMID matching, linked
 * breakpoints/watchpoints (WT, LBN, BT other than 0b0000), EL2/EL3 (HMC)
 * and Security states (SSC) are not: such slots never match (SSC 0b10,
 * Secure only, never matches in this Non-secure model).
 *
 * Profiles.  sdm follows the architecture; where it leaves a choice
 * (CONSTRAINED UNPREDICTABLE, IMPLEMENTATION DEFINED, UNKNOWN) the choice
 * is written next to the code.  qemu follows QEMU 10.0 TCG
 * (target/arm/debug_helper.c, accel/tcg/watchpoint.c,
 * target/arm/tcg/helper-a64.c); its departures are the rows of
 * quirks_arm64.def.
 *
 * This file is the execution and the model's table; the register file
 * (reset, set_reg/get_reg, mode, the OS lock and PSTATE.D) is
 * sim/arm64_regs.c; software step, BRK, MRS and resume are
 * sim/arm64_step.c; what they share is in sim/arm64_model.h.
 */
#include <string.h>

#include "arm64_model.h"

/* ESR_ELx (Arm ARM ESR_EL1): EC [31:26], IL 25, ISS [24:0]. */
#define ESR_EC_SHIFT 26
#define EC_BREAKPOINT_LOWER 0x30u /* Breakpoint from a lower EL (EL0) */
#define EC_BREAKPOINT_SAME 0x31u  /* Breakpoint from the current EL */
#define EC_WATCHPOINT_LOWER 0x34u /* Watchpoint from a lower EL (EL0) */
#define EC_WATCHPOINT_SAME 0x35u  /* Watchpoint from the current EL */
#define ESR_IL (1u << 25)         /* 32-bit instruction (A64) */
#define ESR_WNR (1u << 6)         /* watchpoint ISS: write not read */
#define FSC_DEBUG 0x22u           /* DFSC/IFSC 0b100010: debug exception */

/*
 * DC ZVA block: DCZID_EL0.BS = 4, log2 of the block size in words, so
 * 4 << 4 = 64 bytes.  That is the value of the Cortex-A57 and Cortex-A53
 * (their TRMs: DCZID_EL0 reads 0x4) and of QEMU's models
 * (cpu->dcz_blocksize = 4); the model uses it for every preset.  The
 * scenario runner's zero_block() assumes the same 64 bytes.
 */
#define ZVA_BLOCK 64ull

/* ------------------------------------------------------------------ */
/* Enabling                                                            */
/* ------------------------------------------------------------------ */

/*
 * May a breakpoint or watchpoint generate a debug exception now?
 * Arm ARM D2 "Enabling debug exceptions" and the pseudocode
 * AArch64.GenerateDebugExceptionsFrom() + AArch64.CheckBreakpoint() /
 * AArch64.CheckWatchpoint():
 *   - the OS lock (OSLSR_EL1.OSLK) suppresses every debug exception other
 *     than BRK (and the Double Lock, not modelled);
 *   - MDSCR_EL1.MDE must be 1 for breakpoints and watchpoints at all;
 *   - the debug target here is EL1: from EL0 (a lower EL) nothing more is
 *     needed; from EL1 itself (same EL, "kernel debugging") MDSCR_EL1.KDE
 *     must be 1 and PSTATE.D 0.
 * QEMU: check_watchpoints() / arm_debug_check_breakpoint() test MDE, then
 * arm_generate_debug_exceptions(), whose OS-lock test reads OSLSR_EL1
 * bit 0 instead of OSLK (bit 1): see HWBPI_Q_ARM64_OSLOCK_IGNORED.
 */
bool hwbpi_sim_arm64_debug_allowed(int profile, const struct hwbpi_sim_cpu *c)
{
	if (c->s.arm64.oslock && !hwbpi_quirk_on(profile, HWBPI_Q_ARM64_OSLOCK_IGNORED))
		return false;
	if (c->s.arm64.el == 1)
		return (c->regs.u.arm64.mdscr & HWBP_ARM64_MDSCR_KDE) && !c->s.arm64.daif_d;
	return true;
}

static bool debug_enabled(int profile, const struct hwbpi_sim_cpu *c)
{
	return (c->regs.u.arm64.mdscr & HWBP_ARM64_MDSCR_MDE) &&
	       hwbpi_sim_arm64_debug_allowed(profile, c);
}

/*
 * PAC (watchpoints) / PMC (breakpoints) against the current EL, with the
 * HMC/SSC combinations this Non-secure EL0/EL1 model can meet (Arm ARM
 * "Execution conditions for which a breakpoint/watchpoint generates debug
 * events", the HMC/SSC/PxC table): PxC bit 0 = EL1, bit 1 = EL0.  HMC only
 * adds EL2/EL3 (not modelled).  SSC 0b10 is "Secure state only": never in
 * this model.  The reserved PxC = 0b00 (with HMC = 0, SSC = 0b00) may
 * behave as disabled or as a valid combination (CONSTRAINED
 * UNPREDICTABLE): choice, as QEMU bp_wp_matches(), it matches no EL.
 */
static bool el_matches(uint64_t cr, int el)
{
	unsigned pxc = (unsigned)(cr >> HWBP_ARM64_CR_PAC_SHIFT) & HWBP_ARM64_CR_PAC_MASK;
	unsigned ssc = (unsigned)(cr >> HWBP_ARM64_CR_SSC_SHIFT) & HWBP_ARM64_CR_SSC_MASK;

	if (ssc == 2)
		return false;
	return el == 0 ? (pxc & HWBP_ARM64_PAC_EL0) != 0 : (pxc & HWBP_ARM64_PAC_EL1) != 0;
}

/* ------------------------------------------------------------------ */
/* Watchpoint shapes                                                   */
/* ------------------------------------------------------------------ */

/*
 * The bytes a watchpoint watches: either a MASK block [lo, lo + len) or
 * a byte mask m over the doubleword at lo (bas = true, len = 8).
 */
struct shape {
	uint64_t lo, len;
	unsigned m;
	bool bas;
	unsigned lsc;
};

static unsigned ctz8(unsigned m)
{
	unsigned k = 0;

	while (k < 8 && !((m >> k) & 1u))
		k++;
	return k;
}

/*
 * A MASK watchpoint: 2^MASK bytes, naturally aligned: address bits below
 * MASK are not compared.  Two CONSTRAINED UNPREDICTABLE cases, both
 * chosen as QEMU does: BAS other than 0xFF is ignored (every byte of the
 * block matches), and non-zero DBGWVR bits below the mask are ignored (the
 * watchpoint still fires).
 */
static void mask_shape(uint64_t wvr, unsigned mask, struct shape *s)
{
	s->len = 1ull << mask;
	s->lo = wvr & ~(s->len - 1);
	s->bas = false;
	s->m = 0;
}

/* QEMU hw_watchpoint_update() keeps only the first run of ones of a
 * non-contiguous BAS. */
static unsigned bas_first_run(unsigned m)
{
	unsigned first = ctz8(m), run = m >> first, len = 0;

	while (run & 1u) {
		len++;
		run >>= 1;
	}
	return ((1u << len) - 1) << first;
}

/*
 * A BAS watchpoint: byte-select bits over the doubleword at DBGWVR.
 * Returns false when it selects no byte.
 */
static bool bas_shape(int profile, uint64_t wvr, uint64_t wcr, struct shape *s)
{
	unsigned bas = (unsigned)(wcr >> HWBP_ARM64_WCR_BAS_SHIFT) & HWBP_ARM64_WCR_BAS_MASK;

	/* DBGWVR[1:0] are RES0: never compared. */
	s->lo = wvr & ~7ull;
	s->len = 8;
	s->bas = true;
	/*
	 * Deprecated word-aligned DBGWVR (bit 2 = 1): only BAS[3:0] count,
	 * selecting bytes of the word at DBGWVR, i.e. bytes 4..7 of the
	 * doubleword (AArch64.WatchpointByteMatch: bottom = 2).
	 */
	s->m = wvr & 4 ? (bas & 0xfu) << 4 : bas;
	if (!s->m)
		return false;
	if (hwbpi_quirk_on(profile, HWBPI_Q_ARM64_BAS_FIRST_RUN))
		s->m = bas_first_run(s->m);
	/*
	 * sdm: a non-contiguous BAS is CONSTRAINED UNPREDICTABLE per byte of
	 * the doubleword.  Choice: each byte matches exactly when its BAS
	 * bit is 1 (the plain byte-select rule of WatchpointByteMatch).
	 */
	return true;
}

/*
 * Decode DBGWVR/DBGWCR into the bytes they watch (Arm ARM DBGWCR<n>_EL1,
 * DBGWVR<n>_EL1; pseudocode AArch64.WatchpointByteMatch()).  Returns false
 * for a watchpoint that can never match.
 */
static bool wp_shape(int profile, uint64_t wvr, uint64_t wcr, struct shape *s)
{
	unsigned mask;

	if (!(wcr & HWBP_ARM64_CR_E))
		return false;
	/* LSC 0b00 is reserved; the match requires LSC<load/store> = 1. */
	s->lsc = (unsigned)(wcr >> HWBP_ARM64_WCR_LSC_SHIFT) & HWBP_ARM64_WCR_LSC_MASK;
	if (!s->lsc)
		return false;
	/* Linked to a context breakpoint (WT = 1): not modelled, no match. */
	if (wcr & HWBP_ARM64_WCR_WT)
		return false;
	mask = (unsigned)(wcr >> HWBP_ARM64_WCR_MASK_SHIFT) & HWBP_ARM64_WCR_MASK_MASK;
	/*
	 * Reserved MASK values (1, 2): CONSTRAINED UNPREDICTABLE, behaves as
	 * disabled, as no mask, or as some valid mask.  Choice: disabled (the
	 * same as QEMU hw_watchpoint_update()).
	 */
	if (mask == 1 || mask == 2)
		return false;
	if (mask) {
		mask_shape(wvr, mask, s);
		return true;
	}
	return bas_shape(profile, wvr, wcr, s);
}

/*
 * Does the access [a, hi] touch a byte the shape watches?  If so, the
 * lowest such byte goes to *low.
 */
static bool shape_hit(const struct shape *s, uint64_t a, uint64_t hi, uint64_t *low)
{
	uint64_t shi = s->lo + (s->len - 1);
	uint64_t olo, ohi;
	unsigned b0, b1, sel;

	if (hi < s->lo || a > shi)
		return false;
	olo = a > s->lo ? a : s->lo;
	ohi = hi < shi ? hi : shi;
	if (!s->bas) {
		*low = olo;
		return true;
	}
	b0 = (unsigned)(olo - s->lo);
	b1 = (unsigned)(ohi - s->lo);
	sel = s->m & ((2u << b1) - 1u) & ~((1u << b0) - 1u);
	if (!sel)
		return false;
	*low = s->lo + ctz8(sel);
	return true;
}

/* ------------------------------------------------------------------ */
/* Model operations                                                    */
/* ------------------------------------------------------------------ */

static void take(struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
		  struct hwbp_sim_result *res, uint64_t esr, uint64_t far, uint64_t elr)
{
	c->s.arm64.esr = esr;
	c->s.arm64.far = far;
	c->s.arm64.elr = elr;
	res->timing = HWBP_TIMING_BEFORE;
	res->st.ip = elr;
	res->st.u.arm64.esr = esr;
	res->st.u.arm64.far = far;
	hwbpi_sim_status(res, "esr", esr);
	hwbpi_sim_status(res, "far", far);
	c->last = *a;
	c->pending = true;
}

/*
 * Breakpoint (Arm ARM D2 "Breakpoint exceptions"; pseudocode
 * AArch64.BreakpointValueMatch): taken before the instruction executes,
 * ELR = the instruction, ESR EC 0x31 (same EL) / 0x30 (from EL0) with
 * IFSC 0b100010.  FAR is UNKNOWN: choice, 0 (QEMU arm_debug_excp_handler()
 * clears exception.vaddress for breakpoints, so FAR_EL1 reads 0 there too).
 */
static void do_exec(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		    const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	unsigned nb = hwbp_arm64_nbrp(cpu);
	uint32_t slots = 0;
	uint64_t esr;

	/*
	 * A misaligned PC raises a PC alignment fault, which has priority
	 * over breakpoints (Arm ARM "Prioritization of synchronous
	 * exceptions"; QEMU arm_debug_check_breakpoint() returns false):
	 * no debug event.
	 */
	if (a->addr & 3)
		return;
	if (!debug_enabled(profile, c))
		return;
	for (unsigned i = 0; i < nb; i++) {
		uint64_t bvr = c->regs.u.arm64.bvr[i], bcr = c->regs.u.arm64.bcr[i];

		if (!(bcr & HWBP_ARM64_CR_E))
			continue;
		/* Only BT = 0b0000, unlinked instruction address match. */
		if ((bcr >> HWBP_ARM64_BCR_BT_SHIFT) & HWBP_ARM64_BCR_BT_MASK)
			continue;
		/*
		 * An A64 instruction sits at byte 0 of its word: the match needs
		 * BAS[0] = 1 (BreakpointValueMatch: byte_select_match =
		 * BAS<vaddress<1:0>>).  BAS 0b1111 is what A64 software writes;
		 * QEMU normalises BAS[1] := BAS[0], BAS[3] := BAS[2] and then
		 * matches at DBGBVR when BAS[0] is set: the same outcome.
		 */
		if (!((bcr >> HWBP_ARM64_BCR_BAS_SHIFT) & 1u))
			continue;
		if (!el_matches(bcr, c->s.arm64.el))
			continue;
		/* DBGBVR[1:0] are RES0: compare bits [63:2]. */
		if ((bvr & ~3ull) != a->addr)
			continue;
		slots |= 1u << i;
	}
	if (!slots)
		return;
	esr = (uint64_t)(c->s.arm64.el == 1 ? EC_BREAKPOINT_SAME : EC_BREAKPOINT_LOWER) << ESR_EC_SHIFT |
	      ESR_IL | FSC_DEBUG;
	res->cls = HWBP_SIM_BREAKPOINT;
	res->inst_slots = slots;
	/* No data address: FAR is UNKNOWN for a breakpoint. */
	res->addr = 0;
	res->addr_known = false;
	take(c, a, res, esr, 0, a->addr);
}

/* The bytes [lo, hi] an access touches (DC ZVA: its whole block); false
 * for an empty access. */
static bool data_range(const struct hwbp_sim_access *a, uint64_t *lo, uint64_t *hi)
{
	if (a->op == HWBP_SIM_ZERO) {
		*lo = a->addr & ~(ZVA_BLOCK - 1);
		*hi = *lo + (ZVA_BLOCK - 1);
		return true;
	}
	if (a->size == 0)
		return false;
	*lo = a->addr;
	*hi = a->addr + (a->size - 1);
	if (*hi < *lo)
		*hi = UINT64_MAX; /* no wrap past the top of the address space */
	return true;
}

/* What the enabled watchpoints make of an access to [lo, hi]. */
struct wp_match {
	uint32_t slots;           /* every watchpoint that matches */
	uint64_t far;             /* the lowest matching byte of any */
	uint64_t first_low;       /* ... of the one QEMU's list holds first */
};

static void match_wps(const struct hwbp_cpu *cpu, int profile, const struct hwbpi_sim_cpu *c,
		      bool store, uint64_t lo, uint64_t hi, struct wp_match *m)
{
	unsigned need = store ? 2u : 1u; /* LSC bit: 01 load, 10 store */
	int first = -1;

	m->slots = 0;
	m->far = UINT64_MAX;
	m->first_low = 0;
	for (unsigned i = 0; i < hwbp_arm64_nwrp(cpu); i++) {
		uint64_t wcr = c->regs.u.arm64.wcr[i], low;
		struct shape s;

		if (!wp_shape(profile, c->regs.u.arm64.wvr[i], wcr, &s))
			continue;
		if (!(s.lsc & need) || !el_matches(wcr, c->s.arm64.el))
			continue;
		if (!shape_hit(&s, lo, hi, &low))
			continue;
		m->slots |= 1u << i;
		if (low < m->far)
			m->far = low;
		/* QEMU's list order: the watchpoint written longest ago. */
		if (first < 0 || c->wseq[i] < c->wseq[first]) {
			first = (int)i;
			m->first_low = low;
		}
	}
}

/*
 * QEMU helper_dc_zva() first probes one byte at the operand address, then
 * the whole block: a watchpoint of @slots covering the operand byte fires
 * on the first probe with FAR = operand.
 */
static bool zva_operand_hit(const struct hwbp_cpu *cpu, int profile,
			    const struct hwbpi_sim_cpu *c, uint32_t slots, uint64_t addr)
{
	for (unsigned i = 0; i < hwbp_arm64_nwrp(cpu); i++) {
		uint64_t low;
		struct shape s;

		if ((slots & (1u << i)) &&
		    wp_shape(profile, c->regs.u.arm64.wvr[i], c->regs.u.arm64.wcr[i], &s) &&
		    shape_hit(&s, addr, addr, &low))
			return true;
	}
	return false;
}

/*
 * Watchpoint (Arm ARM D2 "Watchpoint exceptions"): a load/store (or
 * DC ZVA, which behaves as a store of every byte of its block: DC ZVA
 * description) that touches any watched byte faults before the access,
 * ELR = the instruction (unknown here: 0), ESR EC 0x35 (same EL) / 0x34
 * (from EL0), IL = 1, WnR = 1 for stores and DC ZVA, CM = 0, DFSC 0x22.
 *
 * FAR ("Determining the memory location that caused a Watchpoint
 * exception"): any address from the lowest address the instruction
 * accesses up to the highest watched address it accesses, inside a
 * naturally aligned block, no larger than the DC ZVA block, that holds a
 * watched byte it accesses.  sdm choice: the lowest accessed byte that any
 * matching watchpoint watches (always inside the window, and a 1-byte
 * block).  For DC ZVA the access is the whole block.
 */
static void do_data(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		    const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	bool store = a->op != HWBP_SIM_READ;
	struct wp_match m;
	uint64_t lo, hi, esr;

	if (!data_range(a, &lo, &hi) || !debug_enabled(profile, c))
		return;
	match_wps(cpu, profile, c, store, lo, hi, &m);
	if (!m.slots)
		return;
	/*
	 * QEMU cpu_check_watchpoint() stops at the first watchpoint of its
	 * list that matches and records MAX(access address, watchpoint
	 * start): the lowest accessed byte of that one watchpoint.  The list
	 * is in DBGWCR/DBGWVR write order (each write re-inserts the
	 * watchpoint at the end), kept in wseq[].
	 */
	if (hwbpi_quirk_on(profile, HWBPI_Q_ARM64_FAR_FIRST_WP))
		m.far = m.first_low;
	if (a->op == HWBP_SIM_ZERO && hwbpi_quirk_on(profile, HWBPI_Q_ARM64_ZVA_FAR_OPERAND) &&
	    zva_operand_hit(cpu, profile, c, m.slots, a->addr))
		m.far = a->addr;

	esr = (uint64_t)(c->s.arm64.el == 1 ? EC_WATCHPOINT_SAME : EC_WATCHPOINT_LOWER) << ESR_EC_SHIFT |
	      ESR_IL | (store ? ESR_WNR : 0) | FSC_DEBUG;
	res->cls = HWBP_SIM_WATCHPOINT;
	res->data_slots = m.slots;
	res->addr = m.far;
	res->addr_known = true;
	/* The load/store's own address is not modelled: ELR 0. */
	take(c, a, res, esr, m.far, 0);
}

/* The instruction itself: its own exception in *res, or none. */
static void run_insn(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		     const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	switch (a->op) {
	case HWBP_SIM_EXEC:
		do_exec(cpu, profile, c, a, res);
		return;
	case HWBP_SIM_READ:
	case HWBP_SIM_WRITE:
		if (a->size > 16 && hwbpi_quirk_on(profile, HWBPI_Q_ARM64_VECTOR_SPLIT)) {
			/*
			 * QEMU performs an LD1/ST1 of several registers as 8-byte
			 * accesses in address order: the first piece that meets a
			 * watchpoint raises it (the earlier ones are done).
			 */
			for (uint32_t off = 0; off < a->size; off += 8) {
				struct hwbp_sim_access piece = *a;

				piece.addr = a->addr + off;
				piece.size = a->size - off < 8 ? a->size - off : 8;
				do_data(cpu, profile, c, &piece, res);
				if (res->cls != HWBP_SIM_NONE) {
					c->last = *a;
					return;
				}
			}
			return;
		}
		do_data(cpu, profile, c, a, res);
		return;
	case HWBP_SIM_ZERO:
		do_data(cpu, profile, c, a, res);
		return;
	case HWBP_SIM_SWBP:
		hwbpi_sim_arm64_brk(c, a, res);
		return;
	default:
		/* No port I/O on arm64: nothing to match. */
		return;
	}
}

/*
 * One instruction, single-stepped when software step is active
 * (sim/arm64_step.c): an active-pending step exception comes before it
 * and it does not run; else it runs, and if it completes a step
 * exception follows it.
 */
void hwbpi_sim_arm64_access(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			    const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	bool ss;

	memset(res, 0, sizeof(*res));
	if (hwbpi_sim_arm64_step_start(profile, c, a, res, &ss))
		return;
	run_insn(cpu, profile, c, a, res);
	hwbpi_sim_arm64_step_end(c, a, ss, res);
}

/*
 * Resume: Linux arch/arm64/kernel/hw_breakpoint.c watchpoint_handler() /
 * breakpoint_handler() disable the slots of that EL, single-step the
 * instruction and re-enable; the step completes the access with no
 * further breakpoint or watchpoint exception.  What a software step, BRK
 * or MRS left is sim/arm64_step.c's.
 */
static void resume(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		   struct hwbp_sim_result *res)
{
	hwbpi_sim_arm64_resume(cpu, profile, c, res);
}

/*
 * Conservative filter: the union of what every watchpoint that can fire
 * now (debug enabled, EL allowed) watches, one window per slot; nothing
 * when debug exceptions are disabled.
 */
static void refilter(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c)
{
	unsigned nw = hwbp_arm64_nwrp(cpu);
	uint64_t lo = UINT64_MAX, hi = 0;
	bool any = false;

	c->flo = c->fhi = 0;
	c->nwin = 0;
	/*
	 * While software step is active every instruction changes PSTATE.SS
	 * and may raise a step exception; while a step exception is due on
	 * resume, the next instruction cancels it (sim/arm64_step.c): every
	 * access must reach the model.
	 */
	if (hwbpi_sim_arm64_step_active(profile, c) || c->mflags) {
		c->fhi = UINT64_MAX;
		return;
	}
	if (!debug_enabled(profile, c))
		return;
	for (unsigned i = 0; i < nw; i++) {
		uint64_t wcr = c->regs.u.arm64.wcr[i], shi;
		struct shape s;

		if (!wp_shape(profile, c->regs.u.arm64.wvr[i], wcr, &s) ||
		    !el_matches(wcr, c->s.arm64.el))
			continue;
		shi = s.lo + (s.len - 1);
		if (s.lo < lo)
			lo = s.lo;
		if (shi > hi)
			hi = shi;
		any = true;
		if (c->nwin < HWBPI_SIM_MAXWIN && shi != UINT64_MAX) {
			c->wlo[c->nwin] = s.lo;
			c->whi[c->nwin] = shi + 1;
			c->nwin++;
		} else {
			c->nwin = HWBPI_SIM_MAXWIN + 1; /* no list: [flo, fhi) alone */
		}
	}
	if (!any) {
		c->nwin = 0;
		return;
	}
	if (c->nwin > HWBPI_SIM_MAXWIN)
		c->nwin = 0;
	c->flo = lo;
	/* A watchpoint on the very last byte: keep fhi non-zero. */
	c->fhi = hi == UINT64_MAX ? UINT64_MAX : hi + 1;
}

const struct hwbpi_sim_model hwbpi_sim_arm64 = {
	.arch = HWBP_ARCH_ARM64,
	.io_ports = false,
	.zero_block = ZVA_BLOCK,
	.swbp = "brk",
	.reset = hwbpi_sim_arm64_reset,
	.set_reg = hwbpi_sim_arm64_set_reg,
	.debug_ready = hwbpi_sim_arm64_debug_ready,
	.get_reg = hwbpi_sim_arm64_get_reg,
	.get_insn = hwbpi_sim_arm64_get_insn,
	.mode = hwbpi_sim_arm64_mode,
	.access = hwbpi_sim_arm64_access,
	.resume = resume,
	.refilter = refilter,
	.priv = hwbpi_sim_arm64_priv,
};
