/* SPDX-License-Identifier: MIT */
/*
 * The arm64 model's end of an instruction: software step (MDSCR_EL1.SS,
 * PSTATE.SS), the instructions that raise an exception of their own, BRK
 * and an MRS of a debug register from EL0, and what `resume` does after
 * each.
 *
 * Arm ARM (DDI 0487) D2.12 "Software Step exceptions": step is active
 * when MDSCR_EL1.SS = 1 and debug exceptions are enabled from the current
 * EL (AArch64.GenerateDebugExceptions(): the OS lock, and at EL1 KDE and
 * PSTATE.D; MDE is not needed).  An active step has two states:
 *   - active-not-pending (PSTATE.SS = 1): the next instruction runs; when
 *     it completes PSTATE.SS becomes 0 and a Software Step exception is
 *     taken before the following one (ELR = next), ESR ISV = 1, EX = 0;
 *   - active-pending (PSTATE.SS = 0): the step exception is taken before
 *     the instruction (ELR = it), ESR ISV = 0; it has the highest priority
 *     of the synchronous exceptions (D1 "Prioritization of synchronous
 *     exceptions"), so a breakpoint, BRK or UNDEFINED of that instruction
 *     is not taken.
 * An instruction that raises its own synchronous exception (watchpoint,
 * breakpoint, BRK, UNDEFINED) is not stepped: the exception is taken with
 * SPSR_EL1.SS = 1 (PSTATE.SS unchanged), so returning to it steps it
 * again.  ESR of a step exception: EC 0x32 (from EL0) / 0x33 (EL1 to
 * EL1), IL = 1, ISS ISV (24), EX (6, load-exclusive: never here), IFSC
 * 0x22: 0xca000022 / 0xce000022 before, 0xcb000022 / 0xcf000022 after.
 * FAR is not written by these exceptions (UNKNOWN for EC 0x32/0x33, 0x3C
 * and 0x00): the model leaves it as it was, and reports only "esr".
 *
 * The debugger.  `step on` is a debugger that single-steps: after each
 * step exception it returns with SPSR_EL1.SS = 1 (Linux
 * arch/arm64/kernel/debug-monitors.c user_enable_single_step() /
 * kernel_enable_single_step(): set_regs_spsr_ss()), so PSTATE.SS is 1
 * again at the next instruction.  Without it (a raw `set mdscr` SS bit),
 * the handler returns with SPSR.SS = 0 and the next instruction takes a
 * step exception before it.  c->s.arm64.stepping is that choice.
 *
 * QEMU 10.0 (target/arm/tcg/translate-a64.c: the active-pending check at
 * the start of each instruction with gen_swstep_exception(s, 0, 0), and
 * gen_step_complete_exception() after it with syndrome ISV = 1, EX =
 * is_ldex; target/arm/debug_helper.c arm_singlestep_active() = MDSCR.SS &&
 * arm_generate_debug_exceptions(); syn_swstep(); HELPER(exception_swstep)
 * raising EXCP_UDEF, which does not write FAR) does the same, except for
 * the OS lock it does not see (HWBPI_Q_ARM64_OSLOCK_IGNORED, as for
 * breakpoints).  Checked with tests/qemu/arm64 on QEMU 10.0.2.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arm64_model.h"

/* ESR_ELx (Arm ARM ESR_EL1): EC [31:26], IL 25, ISS [24:0]. */
#define ESR_EC_SHIFT 26
#define ESR_IL (1u << 25)
#define EC_UNKNOWN 0x00u            /* Unknown reason: UNDEFINED */
#define EC_SOFTSTEP_LOWER 0x32u     /* Software Step from a lower EL (EL0) */
#define EC_SOFTSTEP_SAME 0x33u      /* Software Step from the current EL */
#define EC_BRK 0x3cu                /* BRK instruction (AArch64) */
#define STEP_ISV (1u << 24)         /* the instruction was stepped */
#define FSC_DEBUG 0x22u             /* IFSC 0b100010 */

/* c->mflags: a step exception is due when resume completes the
 * instruction (a watchpoint or breakpoint taken while active-not-pending),
 * and from which EL. */
#define DUE_STEP 1u
#define DUE_FROM_EL1 2u

bool hwbpi_sim_arm64_step_active(int profile, const struct hwbpi_sim_cpu *c)
{
	/* D2.12.2 / AArch64.CheckSoftwareStep(): MDSCR_EL1.SS and
	 * AArch64.GenerateDebugExceptions(); MDE plays no part. */
	return (c->regs.u.arm64.mdscr & HWBPI_ARM64_MDSCR_SS) &&
	       hwbpi_sim_arm64_debug_allowed(profile, c);
}

static void take(struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
		 struct hwbp_sim_result *res, enum hwbp_sim_class cls,
		 enum hwbp_timing timing, uint32_t esr)
{
	/* ELR: the instruction for an exec before it; other instructions'
	 * addresses (and the next one's) are the runner's: 0. */
	uint64_t elr = a->op == HWBP_SIM_EXEC && timing == HWBP_TIMING_BEFORE ? a->addr : 0;

	c->s.arm64.esr = esr;
	c->s.arm64.elr = elr;
	res->cls = cls;
	res->timing = timing;
	res->st.ip = elr;
	res->st.u.arm64.esr = esr;
	res->st.u.arm64.far = c->s.arm64.far;
	hwbpi_sim_status(res, "esr", esr);
	c->last = *a;
	c->pending = true;
}

static uint32_t step_esr(int el, bool isv)
{
	return (uint32_t)(el ? EC_SOFTSTEP_SAME : EC_SOFTSTEP_LOWER) << ESR_EC_SHIFT | ESR_IL |
	       (isv ? STEP_ISV : 0) | FSC_DEBUG;
}

/* A step exception; then the debugger returns with SPSR.SS = stepping. */
static void step_exception(struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
			   enum hwbp_timing timing, uint32_t esr, struct hwbp_sim_result *res)
{
	take(c, a, res, HWBP_SIM_STEP, timing, esr);
	c->s.arm64.pstate_ss = c->s.arm64.stepping;
}

bool hwbpi_sim_arm64_step_start(int profile, struct hwbpi_sim_cpu *c,
				const struct hwbp_sim_access *a, struct hwbp_sim_result *res,
				bool *ss)
{
	/* A new instruction: the exception it replaces is not resumed. */
	c->mflags = 0;
	*ss = false;
	if (!hwbpi_sim_arm64_step_active(profile, c))
		return false;
	if (!c->s.arm64.pstate_ss) {
		/* Active-pending: taken before the instruction (D2.12.5). */
		step_exception(c, a, HWBP_TIMING_BEFORE, step_esr(c->s.arm64.el, false), res);
		return true;
	}
	*ss = true;
	return false;
}

void hwbpi_sim_arm64_step_end(struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
			      bool ss, struct hwbp_sim_result *res)
{
	if (!ss)
		return;
	if (res->cls == HWBP_SIM_WATCHPOINT || res->cls == HWBP_SIM_BREAKPOINT) {
		/*
		 * Taken with SPSR.SS = 1: the kernel's return steps over the
		 * instruction, which then completes and is stepped: a step
		 * exception is due, reported by `resume`.  A runner that goes
		 * on without `resume` has returned all the same, so PSTATE.SS
		 * is already what the debugger leaves after that step.
		 */
		c->mflags = DUE_STEP | (c->s.arm64.el ? DUE_FROM_EL1 : 0);
		c->s.arm64.pstate_ss = c->s.arm64.stepping;
		return;
	}
	/* BRK, UNDEFINED: SPSR.SS = 1, PSTATE.SS stays 1. */
	if (res->cls != HWBP_SIM_NONE)
		return;
	/* A misaligned `exec` takes a PC alignment fault (not modelled as a
	 * class, sim/arm64.c do_exec): its own exception, not stepped. */
	if (a->op == HWBP_SIM_EXEC && (a->addr & 3))
		return;
	/* Completed: PSTATE.SS = 0, the step exception before the next. */
	c->s.arm64.pstate_ss = 0;
	step_exception(c, a, HWBP_TIMING_AFTER, step_esr(c->s.arm64.el, true), res);
}

/*
 * BRK #imm (Arm ARM C6 BRK; D1 "Breakpoint instruction exceptions"): a
 * Breakpoint Instruction exception before the instruction (ELR = the
 * BRK), EC 0x3C, IL 1, ISS = imm16, to EL1 from EL0 or EL1.  It is not
 * masked by the OS lock, MDSCR_EL1 or PSTATE.D (D2.2: "Breakpoint
 * Instruction exceptions cannot be masked"); QEMU translate-a64.c
 * trans_BRK(): syn_aa64_bkpt(imm), EXCP_BKPT, no FAR.
 */
void hwbpi_sim_arm64_brk(struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
			 struct hwbp_sim_result *res)
{
	take(c, a, res, HWBP_SIM_BRK, HWBP_TIMING_BEFORE,
	     (uint32_t)EC_BRK << ESR_EC_SHIFT | ESR_IL | (a->size & 0xffffu));
}

/* ------------------------------------------------------------------ */
/* MRS                                                                 */
/* ------------------------------------------------------------------ */

/*
 * The registers `get` reads with MRS: the System registers of the debug
 * unit the model keeps, DBGBVR<n>_EL1, DBGBCR<n>_EL1, DBGWVR<n>_EL1,
 * DBGWCR<n>_EL1 (n below the preset's counts), MDSCR_EL1 and OSLSR_EL1.
 * Not OSLAR_EL1 (write-only), nor PSTATE fields (daif_d, pstate_ss: no
 * MRS of those names), nor ESR/FAR/ELR (a kernel's own exceptions write
 * them).  As a code for c->last: kind << 8 | n; 0x400 MDSCR, 0x401 OSLSR.
 */
#define CODE_MDSCR 0x400u
#define CODE_OSLSR 0x401u

static int reg_code(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c,
		    const char *name)
{
	static const char *const kinds[] = { "dbgbvr", "dbgbcr", "dbgwvr", "dbgwcr" };
	uint64_t v;

	if (strcmp(name, "mdscr") == 0)
		return CODE_MDSCR;
	if (strcmp(name, "oslsr") == 0)
		return CODE_OSLSR;
	for (unsigned k = 0; k < 4; k++) {
		size_t l = strlen(kinds[k]);
		unsigned n = 0;

		if (strncmp(name, kinds[k], l) != 0)
			continue;
		/* The register file decides whether the preset has it. */
		if (hwbpi_sim_arm64_get_reg(cpu, c, name, &v))
			return -ENOENT;
		for (const char *p = name + l; *p; p++)
			n = n * 10 + (unsigned)(*p - '0');
		return (int)(k << 8 | n);
	}
	return -ENOENT;
}

static void code_name(unsigned code, char *buf, size_t n)
{
	static const char *const kinds[] = { "dbgbvr", "dbgbcr", "dbgwvr", "dbgwcr" };

	if (code == CODE_MDSCR)
		snprintf(buf, n, "mdscr");
	else if (code == CODE_OSLSR)
		snprintf(buf, n, "oslsr");
	else
		snprintf(buf, n, "%s%u", kinds[(code >> 8) & 3], code & 0xffu);
}

/*
 * MRS <Xt>, <reg> (Arm ARM C5.2, the registers' "Accessibility"
 * pseudocode): at EL0 every one of these is UNDEFINED (EC 0x00, IL 1,
 * taken before the instruction: QEMU gen_sysreg_undef() with
 * syn_uncategorized(); no FEAT_IDST case for these encodings); at EL1 it
 * reads the register.  Stepped like any instruction.
 */
static void mrs(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		const char *name, unsigned code, uint64_t *value, struct hwbp_sim_result *res)
{
	struct hwbp_sim_access a = { code, 0, HWBPI_ARM64_OP_MRS };
	bool ss;

	memset(res, 0, sizeof(*res));
	if (hwbpi_sim_arm64_step_start(profile, c, &a, res, &ss))
		return;
	if (c->s.arm64.el == 0)
		take(c, &a, res, HWBP_SIM_UD, HWBP_TIMING_BEFORE,
		     (uint32_t)EC_UNKNOWN << ESR_EC_SHIFT | ESR_IL);
	else
		hwbpi_sim_arm64_get_reg(cpu, c, name, value);
	hwbpi_sim_arm64_step_end(c, &a, ss, res);
}

int hwbpi_sim_arm64_get_insn(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			     const char *name, uint64_t *value, struct hwbp_sim_result *res)
{
	int code = reg_code(cpu, c, name);

	memset(res, 0, sizeof(*res));
	if (code < 0)
		return -ENOENT;
	mrs(cpu, profile, c, name, (unsigned)code, value, res);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Resume                                                              */
/* ------------------------------------------------------------------ */

/*
 * After:
 *   - a watchpoint or breakpoint: the kernel steps over the instruction
 *     with the slots disabled (sim/arm64.c); if it was taken while
 *     active-not-pending, the completed instruction is stepped: the step
 *     exception (after) is this line's result;
 *   - a step exception before an instruction: the debugger returns to it,
 *     so it runs now, in the state the step exception left (stepped, so
 *     usually a step exception after it);
 *   - a step exception after an instruction: nothing is left to do;
 *   - BRK, or an UNDEFINED MRS: the debugger skips the instruction (ELR +=
 *     4) and returns with SPSR.SS as the exception saved it: nothing.
 *     Choice: a debugger's skip, not Linux's in-kernel emulation
 *     (arm64_skip_faulting_instruction() fast-forwards a user step,
 *     user_fastforward_single_step(), so that one would be taken at once).
 */
void hwbpi_sim_arm64_resume(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			    struct hwbp_sim_result *res)
{
	uint32_t due = c->mflags;
	struct hwbp_sim_access last = c->last;
	uint32_t ec = (uint32_t)(c->s.arm64.esr >> ESR_EC_SHIFT) & 0x3fu;
	bool before;

	memset(res, 0, sizeof(*res));
	c->mflags = 0;
	if (!c->pending)
		return;
	c->pending = false;
	if (due & DUE_STEP) {
		take(c, &last, res, HWBP_SIM_STEP, HWBP_TIMING_AFTER,
		     step_esr((due & DUE_FROM_EL1) != 0, true));
		return;
	}
	before = (ec == EC_SOFTSTEP_LOWER || ec == EC_SOFTSTEP_SAME) &&
		 !(c->s.arm64.esr & STEP_ISV);
	if (!before)
		return;
	if (last.op == HWBPI_ARM64_OP_MRS) {
		char name[16];
		uint64_t v = 0;

		code_name((unsigned)last.addr, name, sizeof(name));
		mrs(cpu, profile, c, name, (unsigned)last.addr, &v, res);
		/* A read that completed: its value, as on a `get` line. */
		if (res->cls == HWBP_SIM_NONE)
			hwbpi_sim_status(res, name, v);
		return;
	}
	hwbpi_sim_arm64_access(cpu, profile, c, &last, res);
}
