/* SPDX-License-Identifier: MIT */
/*
 * The arm64 model's register file (the model: sim/arm64.c): state at cold
 * reset, `set` and `get` of the debug registers, MDSCR_EL1, the OS lock
 * (OSLAR_EL1/OSLSR_EL1), PSTATE.D and the syndrome registers, the EL of
 * `mode`, and what Linux does before it relies on debug exceptions.
 */
#include <errno.h>
#include <string.h>

#include "arm64_model.h"

/*
 * Reading the OS Lock Status register: OSLM = 0b10 (bit 3 = OSLM[1]:
 * "OS lock implemented, no OSLSR_EL1.OSLM[0]"), OSLK bit 1.  The same
 * value QEMU resets OSLSR_EL1 to (resetvalue 10 = 0b1010).
 */
#define OSLSR_OSLM 0x8u
#define OSLSR_OSLK_SHIFT 1

void hwbpi_sim_arm64_reset(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c)
{
	(void)profile;
	memset(c, 0, sizeof(*c));
	hwbp_regs_reset(cpu, &c->regs);
	/*
	 * Cold reset: the OS lock is set (OSLSR_EL1.OSLK resets to 1), MDSCR
	 * MDE/KDE are 0 and the control registers are written 0 (their E bits
	 * are UNKNOWN at reset; hwbp_regs_reset() gives the value software
	 * writes).  The scenario contract starts at EL1.
	 *
	 * PSTATE.D: the reset pseudocode (AArch64.TakeReset) sets
	 * PSTATE.{D,A,I,F} to 1, and so does every exception entry to
	 * AArch64; a kernel clears D when it is ready for debug exceptions
	 * (Linux local_daif_restore / debug_exception_exit).  So daif_d
	 * starts at 1: same-EL (EL1) debugging needs `set daif_d 0`.
	 */
	/* PSTATE.SS = 0 and MDSCR_EL1.SS = 0: no software step (the
	 * memset; `step on` is a debugger's). */
	c->s.arm64.el = 1;
	c->s.arm64.oslock = 1;
	c->s.arm64.daif_d = 1;
}

int hwbpi_sim_arm64_set_reg(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			    const char *name, uint64_t value, struct hwbp_sim_result *res)
{
	int ret;

	memset(res, 0, sizeof(*res));
	if (strcmp(name, "oslar") == 0) {
		/* OSLAR_EL1.OSLK (bit 0): 1 locks, 0 unlocks. */
		c->s.arm64.oslock = (int)(value & 1);
		return 0;
	}
	if (strcmp(name, "daif_d") == 0) {
		c->s.arm64.daif_d = value != 0;
		return 0;
	}
	if (strcmp(name, "pstate_ss") == 0) {
		/* PSTATE.SS as an ERET would set it from SPSR_EL1.SS. */
		c->s.arm64.pstate_ss = value != 0;
		return 0;
	}
	if (strcmp(name, "step") == 0) {
		/*
		 * `step on|off`: a debugger that single-steps sets MDSCR_EL1.SS
		 * and returns with SPSR_EL1.SS = 1, and keeps doing so after
		 * each step exception (Linux debug-monitors.c
		 * user_enable_single_step(): set_regs_spsr_ss(); sim/arm64_step.c).
		 */
		if (value)
			c->regs.u.arm64.mdscr |= HWBPI_ARM64_MDSCR_SS;
		else
			c->regs.u.arm64.mdscr &= ~HWBPI_ARM64_MDSCR_SS;
		c->s.arm64.pstate_ss = value != 0;
		c->s.arm64.stepping = value != 0;
		return 0;
	}
	if (hwbpi_quirk_on(profile, HWBPI_Q_ARM64_DBG_READ_NORMALISED)) {
		/*
		 * QEMU target/arm/debug_helper.c dbgwvr_write() stores DBGWVR
		 * with bits [1:0] cleared, dbgbcr_write() DBGBCR with BAS[1] :=
		 * BAS[0] and BAS[3] := BAS[2]: that is what MRS reads back.
		 * Matching is the same either way (sim/arm64.c ignores
		 * DBGWVR[1:0] and tests BAS[0] only).
		 */
		if (strncmp(name, "dbgwvr", 6) == 0)
			value &= ~3ull;
		else if (strncmp(name, "dbgbcr", 6) == 0)
			value = (value & ~0x140ull) | (value & 0x20ull) << 1 | (value & 0x80ull) << 1;
	}
	/*
	 * dbg[bw][vc]rN (N below the CPU's counts) and mdscr.  Values are
	 * stored as written; RES0 bits (DBGWVR/DBGBVR [1:0]) are ignored
	 * when matching.  MSR from EL0 would trap: the scenario's `set` is
	 * always the kernel writing.  A DBGWVR/DBGWCR write moves that
	 * watchpoint to the end of QEMU's list (HWBPI_Q_ARM64_FAR_FIRST_WP).
	 */
	ret = hwbp_regs_set(cpu, &c->regs, name, value);
	if (ret == 0 && strncmp(name, "dbgw", 4) == 0) {
		unsigned n = (unsigned)(name[6] - '0');

		if (name[7])
			n = n * 10 + (unsigned)(name[7] - '0');
		if (n < HWBP_MAX_SLOTS)
			c->wseq[n] = ++c->wclock;
	}
	return ret;
}

int hwbpi_sim_arm64_get_reg(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c,
			    const char *name, uint64_t *value)
{
	struct hwbp_reg_nv nv[4 * HWBP_MAX_SLOTS + 1];
	int n;

	if (strcmp(name, "oslar") == 0) {
		/* OSLAR_EL1 is write-only: reading it gives the lock state. */
		*value = (uint64_t)c->s.arm64.oslock;
		return 0;
	}
	if (strcmp(name, "oslsr") == 0) {
		*value = OSLSR_OSLM | (uint64_t)c->s.arm64.oslock << OSLSR_OSLK_SHIFT;
		return 0;
	}
	if (strcmp(name, "daif_d") == 0) {
		*value = (uint64_t)c->s.arm64.daif_d;
		return 0;
	}
	if (strcmp(name, "el") == 0) {
		*value = (uint64_t)c->s.arm64.el;
		return 0;
	}
	if (strcmp(name, "pstate_ss") == 0) {
		*value = (uint64_t)c->s.arm64.pstate_ss;
		return 0;
	}
	if (strcmp(name, "step") == 0) {
		*value = (uint64_t)c->s.arm64.stepping;
		return 0;
	}
	if (strcmp(name, "esr") == 0) {
		*value = c->s.arm64.esr;
		return 0;
	}
	if (strcmp(name, "far") == 0) {
		*value = c->s.arm64.far;
		return 0;
	}
	if (strcmp(name, "elr") == 0) {
		*value = c->s.arm64.elr;
		return 0;
	}
	n = hwbp_regs_list(cpu, &c->regs, nv, (int)(sizeof(nv) / sizeof(nv[0])));
	for (int i = 0; i < n; i++) {
		if (strcmp(nv[i].name, name) == 0) {
			*value = nv[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

int hwbpi_sim_arm64_mode(const struct hwbp_cpu *cpu, struct hwbpi_sim_cpu *c, const char *key,
			 uint64_t value)
{
	(void)cpu;
	if (strcmp(key, "el") != 0)
		return -ENOENT;
	if (value > 1)
		return -EINVAL;
	/*
	 * Only the EL changes: PSTATE.D is left as it is (an ERET to EL0
	 * restores SPSR.D, which matters only for same-EL debugging anyway).
	 */
	c->s.arm64.el = (int)value;
	return 0;
}

int hwbpi_sim_arm64_priv(const struct hwbpi_sim_cpu *c)
{
	return c->s.arm64.el == 0 ? 1 : 0;
}

/*
 * What Linux does before it relies on debug exceptions: clear the OS lock
 * (clear_os_lock() in arch/arm64/kernel/debug-monitors.c) and run with
 * PSTATE.D clear (local_daif_restore()).  MDSCR's MDE/KDE come with each
 * request through the glue.
 */
void hwbpi_sim_arm64_debug_ready(struct hwbpi_sim_cpu *c)
{
	c->s.arm64.oslock = 0;
	c->s.arm64.daif_d = 0;
}
