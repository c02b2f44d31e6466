/* SPDX-License-Identifier: MIT */
/*
 * Semantic model of the RISC-V trigger module (the Sdtrig extension of the
 * RISC-V Debug Specification) as M-mode or S-mode software sees it on an
 * RV64 hart: address match triggers of type 2 (mcontrol) and 6
 * (mcontrol6) whose action is 0, raising a breakpoint exception (cause 3)
 * taken to M-mode.
 *
 * Sources: Debug spec 1.0 (tag 1.0 of github.com/riscv/riscv-debug-spec):
 * §5.3 "Priority", §5.4 "Native Triggers", §5.5 "Memory Access
 * Triggers", §5.7 "Trigger Module Registers" (mcontrol §5.7.11,
 * mcontrol6 §5.7.12); QEMU 10.0 target/riscv/debug.c, cpu_helper.c
 * (riscv_cpu_do_interrupt()) and accel/tcg/watchpoint.c for the qemu
 * profile, whose departures are the rows of sim/quirks_riscv.def.
 *
 * What is modelled, and the choices where the spec leaves one (sdm):
 *  - compare values (select = 0): "at least one compare value and it
 *    contains the lowest virtual address of the access.  It is
 *    recommended that there are additional compare values for the other
 *    accessed virtual addresses" (mcontrol.select): the recommended one,
 *    every byte of a load or store is a compare value; an instruction's is
 *    its address.  select = 1 (data value) never matches: the simulator
 *    has no data values (and only CPU models with HWBP_RISCV_F_SELECT keep
 *    the bit at all).
 *  - size != 0: only accesses of that size (8/16/32/64-bit = 1, 2, 4, 8
 *    bytes; other access sizes match only size = 0); `exec` is a 32-bit
 *    instruction.
 *  - chain: the triggers of a chain fire together when every one matches
 *    the same access and they share a timing (mcontrol.chain, §5.7.11);
 *    an execute trigger chained with a load/store trigger never fires (an
 *    access here is one or the other).
 *  - timing: mcontrol.timing 0 before, 1 after; mcontrol6 (1.0) fires
 *    before (hit1:hit0 = 1).  When triggers of both timings match, the
 *    before ones fire and the after ones do not (implementation-dependent,
 *    mcontrol.timing).
 *  - hit bits (CPU models with HWBP_RISCV_F_HIT): set for every trigger
 *    that fired, chains included (§5.3: "hit (if implemented) is set for
 *    all of them").
 *  - mtval: with HWBP_RISCV_F_TVAL, "the address being accessed and which
 *    caused that trigger to fire" (mcontrol, mcontrol6): tdata2 for an
 *    equal match, the lowest matching byte for a range, the instruction's
 *    address for execute; of several triggers (which one is UNSPECIFIED,
 *    §5.3) the lowest-numbered.  Without it, 0 (the Privileged spec's
 *    "either zero or the faulting virtual address").
 *  - mepc: the instruction for timing before, the next one (+4) after;
 *    for loads and stores 0, as arm64's ELR: the simulator does not know
 *    the instruction's address.
 *  - re-entrancy (§5.4): a Debug spec 1.0 CPU has tcontrol, so M-mode
 *    triggers need tcontrol.mte = 1 (reset 0) and the trap clears it;
 *    a 0.13 CPU has neither tcontrol nor the MIE rule modelled: its M-mode
 *    triggers always fire.  The exception is always taken to M-mode
 *    (medeleg[3] = 0): the status names are mcause/mtval/mepc.
 * Not modelled: action != 0, icount/itrigger/etrigger/tmexttrigger, the H
 * extension (vu/vs), textra matching (sdm), cbo.zero, ebreak.
 */
#include <string.h>

#include "riscv_model.h"

/* One trigger as it matches. */
struct trig {
	unsigned type;
	bool load, store, exec, chain, after, select;
	unsigned match;   /* 0..13 */
	unsigned size;    /* size encoding, 0 any */
	uint64_t t1, t2;
};

static void decode(const struct hwbp_cpu *cpu, int profile, uint64_t t1, uint64_t t2,
		   struct trig *t)
{
	t->type = hwbpi_rv_type(t1);
	t->t1 = t1;
	t->t2 = t2;
	t->load = (t1 & HWBP_RISCV_MC_LOAD) != 0;
	t->store = (t1 & HWBP_RISCV_MC_STORE) != 0;
	t->exec = (t1 & HWBP_RISCV_MC_EXECUTE) != 0;
	t->chain = (t1 & HWBP_RISCV_MC_CHAIN) != 0;
	t->match = (unsigned)(t1 >> HWBP_RISCV_MC_MATCH_SHIFT) & HWBP_RISCV_MC_MATCH_MASK;
	if (t->type == HWBP_RISCV_TYPE_MCONTROL) {
		t->size = (unsigned)((t1 >> HWBP_RISCV_MC2_SIZELO_SHIFT) & 3u) |
			  (unsigned)((t1 >> HWBP_RISCV_MC2_SIZEHI_SHIFT) & 3u) << 2;
		t->after = (t1 & HWBP_RISCV_MC2_TIMING) != 0;
		t->select = (t1 & HWBP_RISCV_MC2_SELECT) != 0;
	} else if (hwbpi_rv_mc6_v1(cpu, profile)) {
		t->size = (unsigned)(t1 >> HWBP_RISCV_MC6_SIZE_SHIFT) & HWBP_RISCV_MC6_SIZE_MASK;
		t->after = false;
		t->select = (t1 & HWBP_RISCV_MC6_SELECT) != 0;
	} else {
		t->size = (unsigned)(t1 >> HWBP_RISCV_MC6_SIZE_SHIFT) & HWBPI_RV_MC6V0_SIZE_MASK;
		t->after = (t1 & HWBPI_RV_MC6V0_TIMING) != 0;
		t->select = (t1 & HWBP_RISCV_MC6_SELECT) != 0;
	}
}

static bool is_match_type(unsigned type)
{
	return type == HWBP_RISCV_TYPE_MCONTROL || type == HWBP_RISCV_TYPE_MCONTROL6;
}

/* The u/s/m bit of the current privilege (bit 3 + priv: u 3, s 4, m 6). */
static bool priv_bit(uint64_t t1, int priv)
{
	return (t1 >> (3 + priv)) & 1u;
}

/* sdm: may trigger t match in the current mode?  With tcontrol, M-mode
 * needs mte = 1 (§5.7.6: "Triggers with action=0 do not match/fire while
 * the hart is in M-mode" while mte = 0). */
static bool sdm_mode_ok(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c, uint64_t t1)
{
	if (!priv_bit(t1, c->s.riscv.priv))
		return false;
	return c->s.riscv.priv != HWBPI_RV_PRIV_M || !hwbpi_rv_has_tcontrol(cpu) ||
	       (c->s.riscv.tcontrol & HWBP_RISCV_TCONTROL_MTE);
}

/* The size encoding of an access of @bytes (0: none matches it). */
static unsigned size_code(uint32_t bytes)
{
	switch (bytes) {
	case 1: return 1;
	case 2: return 2;
	case 4: return 3;
	case 8: return 5;
	default: return 0;
	}
}

/* NAPOT range of tdata2 (match = 1): the top M bits compare, M = XLEN-1
 * minus the index of tdata2's lowest 0 bit.  All ones: everything. */
static void napot(uint64_t t2, uint64_t *base, uint64_t *last)
{
	unsigned k = 0;

	while (k < 64 && ((t2 >> k) & 1u))
		k++;
	if (k >= 63) {
		*base = 0;
		*last = UINT64_MAX;
		return;
	}
	*base = t2 & ~((2ull << k) - 1);
	*last = *base + ((2ull << k) - 1);
}

/* match 4/5 of one compare value (mcontrol.match): a half ANDed with
 * tdata2's high half equals tdata2's low half. */
static bool mask_one(unsigned m, uint64_t a, uint64_t t2)
{
	uint64_t half = m == HWBP_RISCV_MATCH_MASK_LOW ? a & 0xffffffffull : a >> 32;

	return (half & (t2 >> 32)) == (t2 & 0xffffffffull);
}

/*
 * Does the address condition hold for compare values [lo, hi]?  *at: the
 * compare value that matched (the lowest one).  Negated matches (8..13)
 * hold when the base match holds for none of them; *at is then lo.
 */
static bool addr_match(unsigned m, uint64_t t2, uint64_t lo, uint64_t hi, uint64_t *at)
{
	uint64_t b, l;

	if (m >= 8) {
		*at = lo;
		return !addr_match(m - 8, t2, lo, hi, &b);
	}
	switch (m) {
	case HWBP_RISCV_MATCH_EQUAL:
		*at = t2;
		return t2 >= lo && t2 <= hi;
	case HWBP_RISCV_MATCH_NAPOT:
		napot(t2, &b, &l);
		*at = lo > b ? lo : b;
		return lo <= l && hi >= b;
	case HWBP_RISCV_MATCH_GE:
		*at = lo > t2 ? lo : t2;
		return hi >= t2;
	case HWBP_RISCV_MATCH_LT:
		*at = lo;
		return lo < t2;
	case HWBP_RISCV_MATCH_MASK_LOW:
	case HWBP_RISCV_MATCH_MASK_HIGH:
		for (uint64_t a = lo;; a++) {
			if (mask_one(m, a, t2)) {
				*at = a;
				return true;
			}
			if (a == hi)
				return false;
		}
	default:
		return false;
	}
}

/* sdm: does trigger t match access @a (compare values [lo, hi])? */
static bool sdm_match(const struct trig *t, const struct hwbp_sim_access *a, uint64_t lo,
		      uint64_t hi, uint64_t *at)
{
	if (!is_match_type(t->type) || t->select)
		return false;
	if (a->op == HWBP_SIM_EXEC) {
		if (!t->exec || (t->size && t->size != 3))
			return false;
	} else {
		if (!(a->op == HWBP_SIM_READ ? t->load : t->store))
			return false;
		if (t->size && t->size != size_code(a->size))
			return false;
	}
	return addr_match(t->match, t->t2, lo, hi, at);
}

/* Fill the breakpoint exception (cause 3) in *res and the status CSRs. */
static void take(struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a, bool after,
		 uint32_t slots, uint64_t tval, uint64_t epc, struct hwbp_sim_result *res)
{
	res->cls = HWBP_SIM_BREAKPOINT;
	res->timing = after ? HWBP_TIMING_AFTER : HWBP_TIMING_BEFORE;
	res->data_slots = slots;  /* one pool: every trigger that fired */
	hwbpi_sim_status(res, "mcause", HWBP_RISCV_CAUSE_BREAKPOINT);
	hwbpi_sim_status(res, "mtval", tval);
	res->addr = tval;
	res->addr_known = a->op != HWBP_SIM_EXEC && tval != 0;
	res->st.ip = epc;
	res->st.u.riscv.cause = HWBP_RISCV_CAUSE_BREAKPOINT;
	res->st.u.riscv.tval = tval;
	c->s.riscv.mcause = HWBP_RISCV_CAUSE_BREAKPOINT;
	c->s.riscv.mtval = tval;
	c->s.riscv.mepc = epc;
	c->last = *a;
	c->pending = true;
}

/* The hit bits a firing sets in trigger @i's tdata1 (F_HIT only). */
static void set_hit(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c, unsigned i)
{
	uint64_t *t1 = &c->regs.u.riscv.tdata1[i];

	if (!(cpu->u.riscv.features & HWBP_RISCV_F_HIT))
		return;
	if (hwbpi_rv_type(*t1) == HWBP_RISCV_TYPE_MCONTROL)
		*t1 |= HWBP_RISCV_MC2_HIT;
	else
		/* 1.0: hit1:hit0 = 1 "before"; version 0: hit0 is mcontrol's hit */
		*t1 = (*t1 & ~HWBP_RISCV_MC6_HIT1) | HWBP_RISCV_MC6_HIT0;
	(void)profile;
}

static void sdm_access(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		       const struct hwbp_sim_access *a, uint64_t lo, uint64_t hi,
		       struct hwbp_sim_result *res)
{
	unsigned n = hwbpi_rv_ntrig(cpu), i = 0;
	uint32_t fired[2] = { 0, 0 };          /* [after] */
	uint64_t tval[2] = { 0, 0 };

	while (i < n) {
		unsigned first = i, last = i;
		bool all = true, after = false;
		uint64_t at = 0;

		/* A chain: from a trigger after one with chain = 0, to the
		 * first with chain = 0 (mcontrol.chain). */
		while (last + 1 < n && (c->regs.u.riscv.tdata1[last] & HWBP_RISCV_MC_CHAIN))
			last++;
		for (unsigned k = first; k <= last; k++) {
			struct trig t;

			decode(cpu, profile, c->regs.u.riscv.tdata1[k], c->regs.u.riscv.tdata2[k], &t);
			if (!sdm_mode_ok(cpu, c, t.t1) || !sdm_match(&t, a, lo, hi, &at) ||
			    (k > first && t.after != after)) {
				all = false;
				break;
			}
			after = t.after;
		}
		if (all) {
			uint32_t bits = (uint32_t)(((2ull << last) - 1) & ~((1ull << first) - 1));

			if (!fired[after])
				tval[after] = at;  /* the lowest chain's final compare value */
			fired[after] |= bits;
		}
		i = last + 1;
	}
	if (!fired[0] && !fired[1])
		return;
	{
		bool after = !fired[0];
		uint64_t tv = (cpu->u.riscv.features & HWBP_RISCV_F_TVAL) ? tval[after] : 0;
		uint64_t epc = a->op == HWBP_SIM_EXEC ? a->addr + (after ? 4 : 0) : 0;

		for (unsigned k = 0; k < n; k++)
			if (fired[after] & (1u << k))
				set_hit(cpu, profile, c, k);
		if (a->op == HWBP_SIM_EXEC)
			tv = (cpu->u.riscv.features & HWBP_RISCV_F_TVAL) ? a->addr : 0;
		take(c, a, after, fired[after], tv, epc, res);
		/* What a handler that reads and clears them (the glue) finds. */
		if (cpu->u.riscv.features & HWBP_RISCV_F_HIT)
			res->st.u.riscv.hits = fired[after];
	}
	hwbpi_sim_riscv_trap_m(cpu, c);
}

/* ------------------------------------------------------------------ */
/* qemu profile                                                        */
/* ------------------------------------------------------------------ */

/* trigger_common_match(): type 2/6, u/s/m of env->priv (no virt here),
 * and textra's mhselect = 4 against mcontext (0). */
static bool qemu_common(uint64_t t1, uint64_t t3, int priv)
{
	uint64_t sel = (t3 >> HWBPI_RV_TEXTRA_MHSELECT_SHIFT) & HWBPI_RV_TEXTRA_MHSELECT_MASK;

	if (!is_match_type(hwbpi_rv_type(t1)) || !priv_bit(t1, priv))
		return false;
	return sel != 4 || (t3 >> HWBPI_RV_TEXTRA_MHVALUE_SHIFT) == 0;
}

/* type2/6_breakpoint_enabled(): a mode bit and an access bit. */
static bool qemu_enabled(uint64_t t1)
{
	uint64_t modes = HWBP_RISCV_MC_U | HWBP_RISCV_MC_S | HWBP_RISCV_MC_M;

	if (hwbpi_rv_type(t1) == HWBP_RISCV_TYPE_MCONTROL6)
		modes |= HWBP_RISCV_MC6_VU | HWBP_RISCV_MC6_VS;
	return is_match_type(hwbpi_rv_type(t1)) && (t1 & modes) &&
	       (t1 & (HWBP_RISCV_MC_LOAD | HWBP_RISCV_MC_STORE | HWBP_RISCV_MC_EXECUTE));
}

/* QEMU's watchpoint of trigger @i: [t2, t2 + len) and BP_MEM_READ (1) /
 * BP_MEM_WRITE (2) flags; false when it has none. */
static bool qemu_wp(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c, unsigned i,
		    uint64_t *lo, uint64_t *last, unsigned *flags)
{
	uint64_t t1 = c->regs.u.riscv.tdata1[i];
	struct trig t;

	if (!qemu_enabled(t1))
		return false;
	decode(cpu, HWBP_SIM_QEMU, t1, c->regs.u.riscv.tdata2[i], &t);
	*flags = (t.load ? 1u : 0u) | (t.store ? 2u : 0u);
	if (!*flags)
		return false;
	/* SIZE_ANY_8 / SIZE_AS_LENGTH: the encoding is the length. */
	*lo = t.t2;
	*last = t.t2 + ((t.size ? t.size : 8u) - 1);
	if (*last < *lo)
		*last = UINT64_MAX;
	return true;
}

/* QEMU's breakpoint of trigger @j: type 2/6 with execute and a mode bit
 * (type2/6_breakpoint_insert()). */
static bool qemu_bp(const struct hwbpi_sim_cpu *c, unsigned j)
{
	uint64_t t1 = c->regs.u.riscv.tdata1[j];

	return qemu_enabled(t1) && (t1 & HWBP_RISCV_MC_EXECUTE);
}

/*
 * An instruction at a QEMU breakpoint (HWBPI_Q_RV_EXEC_FIRST_BP):
 * riscv_cpu_debug_check_breakpoint() walks every breakpoint of the CPU in
 * list order (a trigger's is inserted at the tail whenever its tdata1 or
 * tdata2 changes: c->wseq) and, for each, every trigger in index order;
 * the first trigger with execute, tdata2 equal to that breakpoint's pc
 * and the current mode fires, and env->badaddr (mtval) is that pc - not
 * necessarily the instruction's, nor the trigger of the instruction's.
 */
static void qemu_exec(const struct hwbp_cpu *cpu, struct hwbpi_sim_cpu *c,
		      const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	unsigned n = hwbpi_rv_ntrig(cpu);
	int priv = c->s.riscv.priv;
	uint32_t done = 0;
	bool at_pc = false;

	for (unsigned j = 0; j < n; j++)
		at_pc |= qemu_bp(c, j) && c->regs.u.riscv.tdata2[j] == a->addr;
	if (!at_pc)
		return;
	for (unsigned k = 0; k < n; k++) {
		int first = -1;
		uint64_t pc;

		for (unsigned j = 0; j < n; j++)
			if (qemu_bp(c, j) && !(done & (1u << j)) &&
			    (first < 0 || c->wseq[j] < c->wseq[first]))
				first = (int)j;
		if (first < 0)
			return;
		done |= 1u << first;
		pc = c->regs.u.riscv.tdata2[first];
		for (unsigned i = 0; i < n; i++) {
			uint64_t t1 = c->regs.u.riscv.tdata1[i];

			if ((t1 & HWBP_RISCV_MC_EXECUTE) && c->regs.u.riscv.tdata2[i] == pc &&
			    qemu_common(t1, c->regs.u.riscv.tdata3[i], priv)) {
				take(c, a, false, 1u << i, pc, a->addr, res);
				return;
			}
		}
	}
}

static void qemu_access(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			const struct hwbp_sim_access *a, uint64_t lo, uint64_t hi,
			struct hwbp_sim_result *res)
{
	unsigned n = hwbpi_rv_ntrig(cpu);
	int priv = c->s.riscv.priv, first = -1;
	uint32_t fired = 0;
	uint64_t tval = 0;

	for (unsigned j = 0; j < n; j++) {
		uint64_t t1 = c->regs.u.riscv.tdata1[j], t2 = c->regs.u.riscv.tdata2[j];
		uint64_t wlo, wlast;
		unsigned wflags, need = a->op == HWBP_SIM_READ ? 1u : 2u;
		bool ok = false;

		if (a->op == HWBP_SIM_EXEC) {
			if (hwbpi_quirk_on(profile, HWBPI_Q_RV_EXEC_FIRST_BP))
				break;   /* qemu_exec() */
			/* an exact pc, any size */
			if (qemu_common(t1, c->regs.u.riscv.tdata3[j], priv) &&
			    (t1 & HWBP_RISCV_MC_EXECUTE) && t2 == a->addr)
				fired |= 1u << j;
			continue;
		}
		if (!qemu_wp(cpu, c, j, &wlo, &wlast, &wflags) || !(wflags & need) ||
		    hi < wlo || lo > wlast)
			continue;
		/* riscv_cpu_debug_check_watchpoint(): any trigger with the same
		 * tdata2, an access bit of the watchpoint's and its mode. */
		for (unsigned i = 0; i < n && !ok; i++) {
			uint64_t u1 = c->regs.u.riscv.tdata1[i];
			unsigned f = ((u1 & HWBP_RISCV_MC_LOAD) ? 1u : 0u) |
				     ((u1 & HWBP_RISCV_MC_STORE) ? 2u : 0u);

			ok = qemu_common(u1, c->regs.u.riscv.tdata3[i], priv) && (f & wflags) &&
			     c->regs.u.riscv.tdata2[i] == t2;
		}
		if (!ok)
			continue;
		fired |= 1u << j;
		/* FIRST_WATCHPOINT: the list's first; hitaddr = MAX(addr, vaddr) */
		if (first < 0 || c->wseq[j] < c->wseq[first]) {
			first = (int)j;
			tval = lo > wlo ? lo : wlo;
		}
	}
	if (a->op == HWBP_SIM_EXEC && hwbpi_quirk_on(profile, HWBPI_Q_RV_EXEC_FIRST_BP)) {
		qemu_exec(cpu, c, a, res);
		return;
	}
	if (!fired)
		return;
	/* riscv_cpu_do_interrupt(): tval = env->badaddr (= pc) or hitaddr;
	 * the exception comes before the access (BP_STOP_BEFORE_ACCESS). */
	if (a->op == HWBP_SIM_EXEC)
		take(c, a, false, fired, a->addr, a->addr, res);
	else
		take(c, a, false, fired, tval, 0, res);
}

/* ------------------------------------------------------------------ */
/* Model operations                                                    */
/* ------------------------------------------------------------------ */

static void access_(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		    const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	uint64_t lo = a->addr, hi = a->addr;

	memset(res, 0, sizeof(*res));
	if (a->op == HWBP_SIM_READ || a->op == HWBP_SIM_WRITE) {
		hi = a->addr + (a->size - 1);
		if (hi < lo)
			hi = UINT64_MAX;
	} else if (a->op != HWBP_SIM_EXEC) {
		return;  /* no io, zero (cbo.zero) or ebreak in this model */
	}
	if (hwbpi_quirk_on(profile, HWBPI_Q_RV_TDATA1_WARL))
		qemu_access(cpu, profile, c, a, lo, hi, res);
	else
		sdm_access(cpu, profile, c, a, lo, hi, res);
}

/*
 * The kernel returns from the breakpoint exception: before the access, it
 * disarms, steps the instruction and re-arms (as on arm64/powerpc), which
 * raises nothing; after it, nothing is left to do.  Its mret sets
 * tcontrol.mte = mpte (§5.7.6).
 */
static void resume(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		   struct hwbp_sim_result *res)
{
	memset(res, 0, sizeof(*res));
	if (!c->pending)
		return;
	c->pending = false;
	if (!hwbpi_rv_has_tcontrol(cpu) || hwbpi_quirk_on(profile, HWBPI_Q_RV_TCONTROL_ABSENT))
		return;
	if (c->s.riscv.tcontrol & HWBP_RISCV_TCONTROL_MPTE)
		c->s.riscv.tcontrol |= HWBP_RISCV_TCONTROL_MTE;
	else
		c->s.riscv.tcontrol &= ~HWBP_RISCV_TCONTROL_MTE;
}

/* A trigger's conservative window for loads/stores: false when it cannot
 * match one now. */
static bool sdm_window(const struct hwbp_cpu *cpu, int profile, const struct hwbpi_sim_cpu *c,
		       unsigned i, uint64_t *lo, uint64_t *last)
{
	struct trig t;

	decode(cpu, profile, c->regs.u.riscv.tdata1[i], c->regs.u.riscv.tdata2[i], &t);
	if (!is_match_type(t.type) || t.select || !(t.load || t.store) ||
	    !sdm_mode_ok(cpu, c, t.t1))
		return false;
	switch (t.match) {
	case HWBP_RISCV_MATCH_EQUAL:
		*lo = *last = t.t2;
		return true;
	case HWBP_RISCV_MATCH_NAPOT:
		napot(t.t2, lo, last);
		return true;
	case HWBP_RISCV_MATCH_GE:
		*lo = t.t2;
		*last = UINT64_MAX;
		return true;
	case HWBP_RISCV_MATCH_LT:
		if (!t.t2)
			return false;
		*lo = 0;
		*last = t.t2 - 1;
		return true;
	default:  /* masks and negations: anywhere */
		*lo = 0;
		*last = UINT64_MAX;
		return true;
	}
}

/*
 * The filter: one window per trigger that could match a load or store
 * now (its own condition; a chain needs every member, so each member's
 * window covers the chain's).  Exact for equal matches, whole ranges
 * otherwise.  qemu: each watchpoint's [tdata2, tdata2 + len), whatever
 * the mode (the check may borrow another trigger's).
 */
static void refilter(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c)
{
	unsigned n = hwbpi_rv_ntrig(cpu);
	uint64_t lo = UINT64_MAX, last = 0;

	c->nwin = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t wlo, wlast;
		unsigned flags;
		bool ok = hwbpi_quirk_on(profile, HWBPI_Q_RV_TDATA1_WARL)
				  ? qemu_wp(cpu, c, i, &wlo, &wlast, &flags)
				  : sdm_window(cpu, profile, c, i, &wlo, &wlast);

		if (!ok)
			continue;
		c->wlo[c->nwin] = wlo;
		c->whi[c->nwin] = wlast == UINT64_MAX ? UINT64_MAX : wlast + 1;
		c->nwin++;
		if (wlo < lo)
			lo = wlo;
		if (wlast > last)
			last = wlast;
	}
	if (!c->nwin) {
		c->flo = c->fhi = 0;
		return;
	}
	c->flo = lo;
	c->fhi = last == UINT64_MAX ? UINT64_MAX : last + 1;
}

const struct hwbpi_sim_model hwbpi_sim_riscv = {
	.arch = HWBP_ARCH_RISCV,
	.io_ports = false,
	.zero_block = 0,
	.swbp = NULL,
	.shadows = false,
	.reset = hwbpi_sim_riscv_reset,
	.set_reg = hwbpi_sim_riscv_set_reg,
	.get_reg = hwbpi_sim_riscv_get_reg,
	.get_insn = hwbpi_sim_riscv_get_insn,
	.mode = hwbpi_sim_riscv_mode,
	.access = access_,
	.resume = resume,
	.glue_wrote = hwbpi_sim_riscv_glue_wrote,
	.refilter = refilter,
	.priv = hwbpi_sim_riscv_priv,
};
