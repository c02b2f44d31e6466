/* SPDX-License-Identifier: MIT */
/*
 * The riscv model's register file (the model: sim/riscv.c): the trigger
 * CSRs as M-mode software reaches them (tselect, tdata1-3 of the selected
 * trigger, tinfo, tcontrol), their WARL rules under each profile, the
 * status registers the breakpoint exception wrote (mcause, mtval, mepc),
 * the privilege level of `mode priv=`, and what a kernel's glue writes.
 *
 * Sources: RISC-V Debug Specification 1.0 (Sdtrig) §5.7 "Trigger Module
 * Registers" (xml/hwbp_registers.xml at tag 1.0: tselect 5.7.1, tdata1
 * 5.7.2, tdata2 5.7.3, tdata3 5.7.4, tinfo 5.7.5, tcontrol 5.7.6, mcontrol
 * 5.7.11, mcontrol6 5.7.12); QEMU 10.0 target/riscv/debug.c for the qemu
 * profile (rows of sim/quirks_riscv.def).
 */
#include <errno.h>
#include <string.h>

#include "riscv_model.h"

/* mcontrol6 (1.0) hit1:hit0, both bits. */
#define MC6_HITS (HWBP_RISCV_MC6_HIT0 | HWBP_RISCV_MC6_HIT1)
#define MC_ENABLES (HWBP_RISCV_MC_LOAD | HWBP_RISCV_MC_STORE | HWBP_RISCV_MC_EXECUTE | \
		    HWBP_RISCV_MC_U | HWBP_RISCV_MC_S | HWBP_RISCV_MC_M)
#define MC_MATCH_FIELD (HWBP_RISCV_MC_MATCH_MASK << HWBP_RISCV_MC_MATCH_SHIFT)
#define MC2_SIZE_FIELD (3ull << HWBP_RISCV_MC2_SIZELO_SHIFT | 3ull << HWBP_RISCV_MC2_SIZEHI_SHIFT)
#define MC2_MASKMAX_FIELD (HWBP_RISCV_MC2_MASKMAX_MASK << HWBP_RISCV_MC2_MASKMAX_SHIFT)

static uint64_t type_bits(unsigned t)
{
	return (uint64_t)t << HWBP_RISCV_TDATA1_TYPE_SHIFT;
}

/* Which of types 2 and 6 a trigger of this CPU accepts in tdata1. */
static bool type_ok(const struct hwbp_cpu *cpu, int profile, unsigned t)
{
	if (t != HWBP_RISCV_TYPE_MCONTROL && t != HWBP_RISCV_TYPE_MCONTROL6)
		return false;
	/* QEMU: tdata_csr_write() takes both, whatever tinfo (TINFO_FIXED). */
	if (hwbpi_quirk_on(profile, HWBPI_Q_RV_TINFO_FIXED))
		return true;
	return (cpu->u.riscv.tinfo >> t) & 1u;
}

/*
 * The disabled trigger, what writing 0 to tdata1 gives (Debug spec 1.0
 * §5.7.2: "Writing 0 to this register must result in a trigger that is
 * disabled.  If this trigger supports multiple types, then the hardware
 * should disable it by changing type to 15"), and the state at reset
 * (tdata1 reset "Preset": choice, the same disabled trigger).  A trigger of
 * one type (or a 0.13 CPU, which has no type 15) is that type with every
 * enable clear.  QEMU resets to type 2 with every field 0
 * (riscv_trigger_reset_hold()).
 */
static uint64_t disabled_tdata1(const struct hwbp_cpu *cpu, int profile)
{
	unsigned types = cpu->u.riscv.tinfo & ((1u << 2) | (1u << 6));

	if (hwbpi_quirk_on(profile, HWBPI_Q_RV_TINFO_FIXED))
		return type_bits(HWBP_RISCV_TYPE_MCONTROL);
	if ((cpu->u.riscv.tinfo >> HWBP_RISCV_TYPE_DISABLED) & 1u ||
	    (cpu->u.riscv.spec == 10 && types == ((1u << 2) | (1u << 6))))
		return type_bits(HWBP_RISCV_TYPE_DISABLED);
	if (types & (1u << 6) && !(types & (1u << 2)))
		return type_bits(HWBP_RISCV_TYPE_MCONTROL6);
	return type_bits(HWBP_RISCV_TYPE_MCONTROL);
}

/* A size encoding the model can match: any, 8, 16, 32 and 64 bits (the
 * accesses an RV64 hart makes with scalar loads and stores). */
static bool size_known(unsigned sz)
{
	return sz == 0 || sz == 1 || sz == 2 || sz == 3 || sz == 5;
}

/* Is this match value implemented under the CPU's features?  0 always;
 * the negated ones (8, 9, 12, 13) only in Debug spec 1.0, with their base. */
static bool match_ok(const struct hwbp_cpu *cpu, unsigned m)
{
	uint32_t f = cpu->u.riscv.features;

	if (m >= 8) {
		if (cpu->u.riscv.spec != 10 || (m != 8 && m != 9 && m != 12 && m != 13))
			return false;
		m -= 8;
	}
	switch (m) {
	case HWBP_RISCV_MATCH_EQUAL:
		return true;
	case HWBP_RISCV_MATCH_NAPOT:
		return f & HWBP_RISCV_F_NAPOT;
	case HWBP_RISCV_MATCH_GE:
	case HWBP_RISCV_MATCH_LT:
		return f & HWBP_RISCV_F_GE_LT;
	case HWBP_RISCV_MATCH_MASK_LOW:
	case HWBP_RISCV_MATCH_MASK_HIGH:
		return f & HWBP_RISCV_F_MASK;
	default:
		return false;
	}
}

/*
 * sdm: the value a tdata1 write of trigger @idx leaves (WARL, Debug spec
 * 1.0 §5.7: "If a debugger writes an unsupported configuration, the
 * register will read back a value that is supported (which may simply be
 * a disabled trigger)").  A type the trigger lacks gives the disabled
 * trigger.  Of a supported type, each field the CPU model lacks reads 0
 * (which is always a legal value): match other than those features allow,
 * chain (also on the last trigger, which has no next one to chain to),
 * timing = after, select, size, hit, u and s without U/S-mode.  action
 * other than 0 (1 needs dmode, 2-9 trace/external outputs) and dmode (only
 * writable from Debug Mode, tdata1.dmode) read 0; so do vu/vs (no H
 * extension) and uncertain/uncertainen.
 */
static uint64_t warl_sdm(const struct hwbp_cpu *cpu, unsigned idx, uint64_t v)
{
	unsigned t = hwbpi_rv_type(v), m, sz;
	uint32_t f = cpu->u.riscv.features;
	uint64_t out = type_bits(t) | (v & MC_ENABLES);

	if (!type_ok(cpu, HWBP_SIM_SDM, t))
		return disabled_tdata1(cpu, HWBP_SIM_SDM);
	if (!(f & HWBP_RISCV_F_UMODE))
		out &= ~HWBP_RISCV_MC_U;
	if (!(f & HWBP_RISCV_F_SMODE))
		out &= ~HWBP_RISCV_MC_S;
	m = (unsigned)(v >> HWBP_RISCV_MC_MATCH_SHIFT) & HWBP_RISCV_MC_MATCH_MASK;
	if (match_ok(cpu, m))
		out |= (uint64_t)m << HWBP_RISCV_MC_MATCH_SHIFT;
	if ((f & HWBP_RISCV_F_CHAIN) && idx + 1 < hwbpi_rv_ntrig(cpu))
		out |= v & HWBP_RISCV_MC_CHAIN;
	if (t == HWBP_RISCV_TYPE_MCONTROL) {
		sz = (unsigned)((v >> HWBP_RISCV_MC2_SIZELO_SHIFT) & 3u) |
		     (unsigned)((v >> HWBP_RISCV_MC2_SIZEHI_SHIFT) & 3u) << 2;
		if ((f & HWBP_RISCV_F_SIZE) && size_known(sz))
			out |= v & MC2_SIZE_FIELD;
		if (f & HWBP_RISCV_F_TIMING_AFTER)
			out |= v & HWBP_RISCV_MC2_TIMING;
		if (f & HWBP_RISCV_F_SELECT)
			out |= v & HWBP_RISCV_MC2_SELECT;
		if (f & HWBP_RISCV_F_HIT)
			out |= v & HWBP_RISCV_MC2_HIT;
		/* maskmax (read only): the largest NAPOT is 2^63 bytes. */
		if (f & HWBP_RISCV_F_NAPOT)
			out |= MC2_MASKMAX_FIELD;
		return out;
	}
	if (hwbpi_rv_mc6_v1(cpu, HWBP_SIM_SDM)) {
		sz = (unsigned)(v >> HWBP_RISCV_MC6_SIZE_SHIFT) & HWBP_RISCV_MC6_SIZE_MASK;
		if (f & HWBP_RISCV_F_HIT)
			out |= v & MC6_HITS;
	} else {
		/* version 0 layout: 4-bit size, timing 20, hit at hit0's place */
		sz = (unsigned)(v >> HWBP_RISCV_MC6_SIZE_SHIFT) & HWBPI_RV_MC6V0_SIZE_MASK;
		if (f & HWBP_RISCV_F_TIMING_AFTER)
			out |= v & HWBPI_RV_MC6V0_TIMING;
		if (f & HWBP_RISCV_F_HIT)
			out |= v & HWBP_RISCV_MC6_HIT0;
	}
	if ((f & HWBP_RISCV_F_SIZE) && size_known(sz))
		out |= (uint64_t)sz << HWBP_RISCV_MC6_SIZE_SHIFT;
	if (f & HWBP_RISCV_F_SELECT)
		out |= v & HWBP_RISCV_MC6_SELECT;
	return out;
}

/*
 * qemu: type2_mcontrol_validate() / type6_mcontrol6_validate() keep type,
 * size when access_size[] knows it, vu/vs (type 6), u/s/m and
 * load/store/execute; every other field reads 0 (TDATA1_WARL).  Another
 * type is not written at all (TDATA1_ZERO_IGNORED): *keep is set.
 */
static uint64_t warl_qemu(uint64_t v, bool *keep)
{
	unsigned t = hwbpi_rv_type(v), sz;
	uint64_t out = type_bits(t) | (v & MC_ENABLES);

	*keep = false;
	if (t == HWBP_RISCV_TYPE_MCONTROL) {
		sz = (unsigned)((v >> HWBP_RISCV_MC2_SIZELO_SHIFT) & 3u) |
		     (unsigned)((v >> HWBP_RISCV_MC2_SIZEHI_SHIFT) & 3u) << 2;
		if (size_known(sz))
			out |= v & MC2_SIZE_FIELD;
		return out;
	}
	if (t == HWBP_RISCV_TYPE_MCONTROL6) {
		sz = (unsigned)(v >> HWBP_RISCV_MC6_SIZE_SHIFT) & HWBPI_RV_MC6V0_SIZE_MASK;
		if (size_known(sz))
			out |= (uint64_t)sz << HWBP_RISCV_MC6_SIZE_SHIFT;
		return out | (v & (HWBP_RISCV_MC6_VU | HWBP_RISCV_MC6_VS));
	}
	*keep = true;
	return 0;
}

/* tdata3 (textra64): sdm implements none (reads 0); QEMU textra_validate()
 * keeps mhvalue and mhselect, mhselect 1-3 -> 0 and 5-7 -> 4 (TEXTRA). */
static uint64_t warl_tdata3(int profile, uint64_t v)
{
	uint64_t sel = (v >> HWBPI_RV_TEXTRA_MHSELECT_SHIFT) & HWBPI_RV_TEXTRA_MHSELECT_MASK;

	if (!hwbpi_quirk_on(profile, HWBPI_Q_RV_TEXTRA))
		return 0;
	return (v >> HWBPI_RV_TEXTRA_MHVALUE_SHIFT) << HWBPI_RV_TEXTRA_MHVALUE_SHIFT |
	       (sel & 4u) << HWBPI_RV_TEXTRA_MHSELECT_SHIFT;
}

/*
 * Write tdata1 of trigger @i through its WARL rule; false when the write
 * is dropped (QEMU).  A changed tdata1 or tdata2 moves the trigger's QEMU
 * watchpoint to the end of QEMU's list (type2_reg_write(): remove + insert
 * only when the value differs), which c->wseq records.
 */
static void write_tdata1(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			 unsigned i, uint64_t v)
{
	uint64_t *t1 = &c->regs.u.riscv.tdata1[i], nv;
	bool keep = false;

	nv = hwbpi_quirk_on(profile, HWBPI_Q_RV_TDATA1_WARL) ? warl_qemu(v, &keep)
							     : warl_sdm(cpu, i, v);
	if (keep || nv == *t1)
		return;
	*t1 = nv;
	c->wseq[i] = ++c->wclock;
}

static void write_tdata2(struct hwbpi_sim_cpu *c, unsigned i, uint64_t v)
{
	/* Any XLEN-bit address reads back as written (Debug spec 1.0 §5.5
	 * "Address Matches"); QEMU stores it as is. */
	if (c->regs.u.riscv.tdata2[i] == v)
		return;
	c->regs.u.riscv.tdata2[i] = v;
	c->wseq[i] = ++c->wclock;
}

void hwbpi_sim_riscv_reset(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c)
{
	memset(c, 0, sizeof(*c));
	c->regs.arch = HWBP_ARCH_RISCV;
	for (unsigned i = 0; i < HWBP_MAX_SLOTS; i++)
		c->regs.u.riscv.tdata1[i] = i < hwbpi_rv_ntrig(cpu) ? disabled_tdata1(cpu, profile) : 0;
	/* tselect resets to 0, tcontrol's mte and mpte to 0 (§5.7.1, §5.7.6);
	 * the bare-metal harness runs in M-mode. */
	c->s.riscv.profile = profile;
	c->s.riscv.priv = HWBPI_RV_PRIV_M;
}

int hwbpi_sim_riscv_set_reg(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			    const char *name, uint64_t value, struct hwbp_sim_result *res)
{
	unsigned sel = c->s.riscv.tselect;

	memset(res, 0, sizeof(*res));
	if (strcmp(name, "tselect") == 0) {
		/*
		 * WARL: "Writes of values greater than or equal to the number
		 * of supported triggers may result in a different value in this
		 * register than what was written" (§5.7.1).  Choice: such a write
		 * leaves tselect as it was, so it always names a trigger; QEMU
		 * tselect_csr_write() does the same (val < RV_MAX_TRIGGERS).
		 */
		if (value < hwbpi_rv_ntrig(cpu))
			c->s.riscv.tselect = (unsigned)value;
		return 0;
	}
	if (strcmp(name, "tdata1") == 0) {
		write_tdata1(cpu, profile, c, sel, value);
		return 0;
	}
	if (strcmp(name, "tdata2") == 0) {
		write_tdata2(c, sel, value);
		return 0;
	}
	if (strcmp(name, "tdata3") == 0) {
		c->regs.u.riscv.tdata3[sel] = warl_tdata3(profile, value);
		return 0;
	}
	if (strcmp(name, "tcontrol") == 0 && hwbpi_rv_has_tcontrol(cpu)) {
		/* Only mte (3) and mpte (7) exist; the rest reads 0. */
		c->s.riscv.tcontrol = value & (HWBP_RISCV_TCONTROL_MTE | HWBP_RISCV_TCONTROL_MPTE);
		return 0;
	}
	return -ENOENT;  /* the read-only names too */
}

/*
 * tinfo of the selected trigger (§5.7.5): info = the types it supports,
 * version 1 on a Debug spec 1.0 CPU, 0 before.  QEMU tinfo_csr_read():
 * 0x44 (TINFO_FIXED).
 */
static uint64_t tinfo(const struct hwbp_cpu *cpu, int profile)
{
	if (hwbpi_quirk_on(profile, HWBPI_Q_RV_TINFO_FIXED))
		return (1u << HWBP_RISCV_TYPE_MCONTROL) | (1u << HWBP_RISCV_TYPE_MCONTROL6);
	return (cpu->u.riscv.tinfo & HWBP_RISCV_TINFO_INFO_MASK) |
	       (cpu->u.riscv.spec == 10 ? 1ull << HWBP_RISCV_TINFO_VERSION_SHIFT : 0);
}

int hwbpi_sim_riscv_get_reg(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c,
			    const char *name, uint64_t *value)
{
	unsigned sel = c->s.riscv.tselect;
	const struct {
		const char *name;
		uint64_t v;
	} regs[] = {
		{ "tselect", sel },
		{ "tdata1", c->regs.u.riscv.tdata1[sel] },
		{ "tdata2", c->regs.u.riscv.tdata2[sel] },
		{ "tdata3", c->regs.u.riscv.tdata3[sel] },
		{ "tinfo", tinfo(cpu, c->s.riscv.profile) },
		{ "mcause", c->s.riscv.mcause },
		{ "mtval", c->s.riscv.mtval },
		{ "mepc", c->s.riscv.mepc },
		{ "priv", (uint64_t)c->s.riscv.priv },
		{ hwbpi_rv_has_tcontrol(cpu) ? "tcontrol" : NULL, c->s.riscv.tcontrol },
	};

	for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		if (regs[i].name && strcmp(regs[i].name, name) == 0) {
			*value = regs[i].v;
			return 0;
		}
	}
	return -ENOENT;
}

void hwbpi_sim_riscv_trap_m(const struct hwbp_cpu *cpu, struct hwbpi_sim_cpu *c)
{
	if (hwbpi_rv_has_tcontrol(cpu)) {
		uint64_t mte = c->s.riscv.tcontrol & HWBP_RISCV_TCONTROL_MTE;

		c->s.riscv.tcontrol = mte ? HWBP_RISCV_TCONTROL_MPTE : 0;
	}
}

/* The CSR numbers `get` reads with `csrr a0, CSR` (§5.7, Privileged spec). */
static int csr_of(const char *name)
{
	static const struct {
		const char *name;
		int csr;
	} csrs[] = {
		{ "tselect", 0x7a0 }, { "tdata1", 0x7a1 }, { "tdata2", 0x7a2 }, { "tdata3", 0x7a3 },
		{ "tinfo", 0x7a4 },   { "tcontrol", 0x7a5 }, { "mepc", 0x341 }, { "mcause", 0x342 },
		{ "mtval", 0x343 },
	};

	for (unsigned i = 0; i < sizeof(csrs) / sizeof(csrs[0]); i++)
		if (strcmp(csrs[i].name, name) == 0)
			return csrs[i].csr;
	return -1;
}

/*
 * `get`: csrr a0, CSR.  The trigger CSRs and mcause/mtval/mepc are
 * M-mode CSRs (CSR address bits 9:8 = 3): from U or S the instruction is
 * illegal (Privileged spec §2.1, "Attempts to access a CSR without
 * appropriate privilege level raise illegal-instruction exceptions"), and
 * so is a CSR the hart lacks (tcontrol on a CPU without it, QEMU 10).  The
 * exception: mcause 2, mtval the instruction's bits (QEMU writes them,
 * riscv_cpu_do_interrupt(); the Privileged spec allows them or 0), taken
 * to M-mode; the instruction does not complete.  mepc 0: the simulator
 * does not know the instruction's address.
 */
int hwbpi_sim_riscv_get_insn(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			     const char *name, uint64_t *value, struct hwbp_sim_result *res)
{
	int csr = csr_of(name), ret;
	uint64_t insn;

	memset(res, 0, sizeof(*res));
	if (csr < 0)
		return -ENOENT;
	ret = hwbpi_sim_riscv_get_reg(cpu, c, name, value);
	if (strcmp(name, "tcontrol") == 0 && hwbpi_quirk_on(profile, HWBPI_Q_RV_TCONTROL_ABSENT))
		ret = -ENOENT;
	if (ret == 0 && c->s.riscv.priv == 3)
		return 0;
	if (ret && strcmp(name, "tcontrol") != 0)
		return ret;
	/* csrr a0, CSR = csrrs x10, CSR, x0: funct3 2, rd 10, SYSTEM. */
	insn = (uint64_t)csr << 20 | 2u << 12 | 10u << 7 | 0x73u;
	res->cls = HWBP_SIM_UD;
	res->timing = HWBP_TIMING_BEFORE;
	hwbpi_sim_status(res, "mcause", HWBP_RISCV_CAUSE_ILLEGAL);
	hwbpi_sim_status(res, "mtval", insn);
	res->st.u.riscv.cause = HWBP_RISCV_CAUSE_ILLEGAL;
	res->st.u.riscv.tval = insn;
	c->s.riscv.mcause = HWBP_RISCV_CAUSE_ILLEGAL;
	c->s.riscv.mtval = insn;
	c->s.riscv.mepc = 0;
	c->pending = true;
	if (profile == HWBP_SIM_SDM)
		hwbpi_sim_riscv_trap_m(cpu, c);
	return 0;
}

int hwbpi_sim_riscv_mode(const struct hwbp_cpu *cpu, struct hwbpi_sim_cpu *c, const char *key,
			 uint64_t value)
{
	uint32_t f = cpu->u.riscv.features;

	if (strcmp(key, "priv") != 0)
		return -ENOENT;
	/* U and S exist only when the CPU model has them; 2 is reserved. */
	if (value != HWBPI_RV_PRIV_M &&
	    !(value == HWBPI_RV_PRIV_S && (f & HWBP_RISCV_F_SMODE)) &&
	    !(value == HWBPI_RV_PRIV_U && (f & HWBP_RISCV_F_UMODE)))
		return -EINVAL;
	c->s.riscv.priv = (int)value;
	return 0;
}

int hwbpi_sim_riscv_priv(const struct hwbpi_sim_cpu *c)
{
	return c->s.riscv.priv == HWBPI_RV_PRIV_U ? 1 : 0;
}

/*
 * The engine's glue copied a kernel's trigger registers over @old: a
 * kernel writes them with csrw, each through its WARL rule (tdata1 then
 * tdata2 and tdata3 of each trigger, after disabling it with tdata1 = 0
 * as §5.7 tells software to).  So each trigger's tdata1 is made legal,
 * and a trigger whose values changed moves to the end of QEMU's list
 * (after the engine's slot-order clock: the old order of unchanged
 * triggers is not known here, so they keep slot order).
 */
void hwbpi_sim_riscv_glue_wrote(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
				const struct hwbp_regs *old)
{
	for (unsigned i = 0; i < HWBP_MAX_SLOTS; i++) {
		uint64_t t1 = c->regs.u.riscv.tdata1[i], t2 = c->regs.u.riscv.tdata2[i];
		uint64_t t3 = c->regs.u.riscv.tdata3[i];

		c->regs.u.riscv.tdata1[i] = old->u.riscv.tdata1[i];
		c->regs.u.riscv.tdata2[i] = old->u.riscv.tdata2[i];
		c->regs.u.riscv.tdata3[i] = old->u.riscv.tdata3[i];
		if (i >= hwbpi_rv_ntrig(cpu))
			continue;
		write_tdata1(cpu, profile, c, i, 0);
		write_tdata2(c, i, t2);
		c->regs.u.riscv.tdata3[i] = warl_tdata3(profile, t3);
		write_tdata1(cpu, profile, c, i, t1);
	}
}
