/* SPDX-License-Identifier: MIT */
/*
 * The powerpc model's end of an instruction: MSR[SE] single-step and
 * MSR[BE] branch tracing (the Trace interrupt, 0xD00), the trap
 * instruction and mfspr of a debug SPR (the Program interrupt, 0x700),
 * and what `resume` completes.  QEMU 10's departures are rows of
 * quirks_powerpc.def.
 *
 * Sources: Power ISA v3.1 Book III, "Interrupts": "Trace Interrupt" (MSR[SE]
 * = 1: after every instruction that completes except rfid, hrfid, mtmsr[d]
 * and the like; MSR[BE] = 1: after every Branch that completes; SRR0 = the
 * next instruction to run, SRR1 bit 33, and bit 35 for a load / 36 for a
 * store; SIAR = the traced instruction, SDAR = its operand) and "Program
 * Interrupt" (SRR0 = the instruction; SRR1 bit 45 privileged instruction,
 * 46 trap); "Move To/From Special Purpose Register" and the SPR table
 * (DAWRn, DAWRXn, CIABR: privileged and hypervisor-privileged for
 * mfspr).  Microwatt execute1.vhdl implements the same trace SRR1 bits
 * (33; 35 for loads, icbi, dcbf; 36 for stores and dcbz; none of them on a
 * CIABR match).  Linux (for the record; the sim has no native powerpc
 * runner): single_step_exception() sends SIGTRAP TRAP_TRACE, a trap's
 * program check TRAP_BRKPT, a DAWR hit TRAP_HWBKPT.
 *
 * What the sim knows of addresses: the instruction of an `exec` (a blr in
 * arena C); a data access, `trap` and `get` have no instruction address
 * here, so only an exec's trace writes SIAR, and the step trace writes no
 * SRR0 (the blr's target is the runner's return address).  The timing
 * says where SRR0 points: `after` (the next instruction) for a trace,
 * `before` (the instruction itself) for a Program interrupt.
 */
#include <errno.h>
#include <string.h>

#include "powerpc_model.h"
#include <hwbp/powerpc.h>

#define PPC_VEC_PROGRAM 0x700ull

/* SRR1 bits, IBM numbering of the 64-bit register (bit n = 1 << (63 - n)). */
#define SRR1_TRACE (1ull << 30)   /* 33: every Trace interrupt */
#define SRR1_LOAD (1ull << 28)    /* 35: the traced instruction was a load */
#define SRR1_STORE (1ull << 27)   /* 36: ... a store (dcbz included) */
#define SRR1_PRIV (1ull << 18)    /* 45: privileged instruction */
#define SRR1_TRAP (1ull << 17)    /* 46: trap */

int hwbpi_sim_ppc_set_flag(struct hwbpi_sim_cpu *c, const char *name, uint64_t value)
{
	/* `step on|off` is a debugger setting MSR[SE] for the program. */
	if (strcmp(name, "msr_se") == 0 || strcmp(name, "step") == 0)
		c->s.ppc.se = value != 0;
	else if (strcmp(name, "msr_be") == 0)
		c->s.ppc.be = value != 0;
	else
		return -ENOENT;
	return 0;
}

int hwbpi_sim_ppc_get_flag(const struct hwbpi_sim_cpu *c, const char *name, uint64_t *value)
{
	if (strcmp(name, "msr_se") == 0 || strcmp(name, "step") == 0)
		*value = (uint64_t)c->s.ppc.se;
	else if (strcmp(name, "msr_be") == 0)
		*value = (uint64_t)c->s.ppc.be;
	else
		return -ENOENT;
	return 0;
}

/* The interrupt's common part: class, timing, SRR1 as the only status. */
static void interrupt(struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
		      enum hwbp_sim_class cls, uint64_t vector, uint64_t srr1,
		      struct hwbp_sim_result *res)
{
	res->cls = cls;
	res->timing = cls == HWBP_SIM_TRACE ? HWBP_TIMING_AFTER : HWBP_TIMING_BEFORE;
	res->data_slots = 0;
	res->inst_slots = 0;
	hwbpi_sim_status(res, "srr1", srr1);
	res->st.ip = a->op == HWBP_SIM_EXEC ? a->addr & ~3ull : 0;
	res->st.u.ppc.vector = vector;
	res->st.u.ppc.srr1 = srr1;
	c->s.ppc.srr1 = srr1;
	c->pending = true;
	c->last = *a;
	c->mflags = 0;   /* nothing left for resume to complete */
}

void hwbpi_sim_ppc_completed(int profile, struct hwbpi_sim_cpu *c,
			     const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	/* Every slot of arena C is a blr: an exec is a Branch that completes
	 * (MSR[BE] traces it; loads, stores, dcbz, mfspr are no branches). */
	bool branch = a->op == HWBP_SIM_EXEC;
	uint64_t srr1 = SRR1_TRACE;

	if (!c->s.ppc.se && !(c->s.ppc.be && branch))
		return;
	/*
	 * One Trace interrupt whether SE, BE or both asked for it: no SRR1
	 * bit tells single step from branch trace.  Bits 35/36 name a load or
	 * store; QEMU sets bit 33 only (quirk TRACE_LDST).
	 */
	if (!hwbpi_quirk_on(profile, HWBPI_Q_PPC_TRACE_LDST)) {
		if (a->op == HWBP_SIM_READ)
			srr1 |= SRR1_LOAD;
		else if (a->op == HWBP_SIM_WRITE || a->op == HWBP_SIM_ZERO)
			srr1 |= SRR1_STORE;
	}
	interrupt(c, a, HWBP_SIM_TRACE, HWBP_PPC_VEC_TRACE, srr1, res);
	/* SIAR = the traced instruction (QEMU helper_book3s_trace() too). */
	if (branch)
		c->s.ppc.siar = a->addr & ~3ull;
}

/*
 * tw 31,0,0 traps unconditionally: a Program interrupt before it completes
 * (SRR0 = the trap, SRR1 bit 46; QEMU helper_TW -> POWERPC_EXCP_TRAP,
 * powerpc_excp_books() msr |= 0x00020000).  No trace follows: it never
 * completes, and a debugger resumes past it (SRR0 + 4).
 */
void hwbpi_sim_ppc_trap(struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
			struct hwbp_sim_result *res)
{
	interrupt(c, a, HWBP_SIM_PROGRAM, PPC_VEC_PROGRAM, SRR1_TRAP, res);
}

/*
 * mfspr RT, SPR of a debug SPR.  Their SPR numbers have bit 0x10 set
 * (privileged) and they are hypervisor-privileged for mfspr (DAWRn,
 * DAWRXn, CIABR in v2.07..v3.1; DABR/DABRX from v2.05, as QEMU's
 * register_book3s_dbg_sprs() notes):
 *  - problem state: a Privileged Instruction type Program interrupt;
 *  - privileged non-hypervisor state: Choice: the same Program interrupt.
 *    ISA v3.0 made it depend on LPCR[EVIRT]: with EVIRT = 1 it is a
 *    Hypervisor Emulation Assistance interrupt (0xE40) with HSRR1 bit 45
 *    (Linux's nested KVM-HV support, book3s_hv.c, S. Jitindar Singh,
 *    2018, handles that case), with EVIRT = 0 (the reset value; the
 *    harness leaves it so) a privileged-instruction Program interrupt,
 *    which is what QEMU 10 gives (translate.c gen_op_mfspr(): an
 *    SPR_NOACCESS read -> gen_priv_exception(POWERPC_EXCP_PRIV_REG)).
 *    The sim has no LPCR and models EVIRT = 0;
 *  - hypervisor state: the value, and the instruction completes.
 * SRR1 keeps only the cause bits, as for every interrupt of the model.
 */
int hwbpi_sim_ppc_get_insn(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			   const char *name, uint64_t *value, struct hwbp_sim_result *res)
{
	struct hwbp_reg_nv nv[8];
	int n = hwbp_regs_list(cpu, &c->regs, nv, 8), i, state = hwbpi_ppc_state(c);
	struct hwbp_sim_access mfspr = { 0, 4, 0 };   /* neither access nor branch */

	memset(res, 0, sizeof(*res));
	for (i = 0; i < n; i++)
		if (strcmp(nv[i].name, name) == 0)
			break;
	if (i >= n)
		return -ENOENT;   /* only the debug SPRs of this CPU */
	if (state == 0 ||
	    (state == 1 && !(hwbpi_quirk_on(profile, HWBPI_Q_PPC_DABR_SUPER_READ) &&
			     strncmp(name, "dabr", 4) == 0))) {
		interrupt(c, &mfspr, HWBP_SIM_PROGRAM, PPC_VEC_PROGRAM, SRR1_PRIV, res);
		return 0;
	}
	*value = nv[i].value;
	hwbpi_sim_ppc_completed(profile, c, &mfspr, res);
	return 0;
}

/*
 * `resume`: the kernel returns from the last interrupt.  After a DSI (or
 * QEMU's CIABR trace, taken before the instruction) it steps the
 * instruction with the slot disabled (Linux hw_breakpoint_handler():
 * hw_breakpoint_disable + stepping_handler), so it completes now: with
 * MSR[SE] (or MSR[BE] and a branch) as they are now, its Trace interrupt
 * is this line's result.  After a trace the instruction had completed, and
 * after a Program interrupt the debugger skips the instruction (SRR0 + 4):
 * nothing more.
 */
void hwbpi_sim_ppc_resume(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			  struct hwbp_sim_result *res)
{
	bool complete = c->pending && (c->mflags & HWBPI_PPC_PEND_COMPLETE);
	struct hwbp_sim_access a = c->last;

	(void)cpu;
	memset(res, 0, sizeof(*res));
	c->pending = false;
	c->mflags = 0;
	if (complete)
		hwbpi_sim_ppc_completed(profile, c, &a, res);
}
