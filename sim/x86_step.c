/* SPDX-License-Identifier: MIT */
/*
 * The x86 model's end of an instruction: single step (RFLAGS.TF, DR6.BS),
 * the MOV SS shadow, and the instructions that raise an exception of
 * their own, INT3 (#BP) and INT1 (ICEBP), with QEMU 10's departures under
 * the qemu profile and what a Linux tracer sees under the linux profile.
 *
 * Intel SDM Vol. 3 §17.3.1.4 (single step: a trap after each instruction
 * that starts with TF = 1; none after INT n, INT3, INTO or INT1, whose
 * handler is entered with TF clear), §6.8.3 (MOV SS and POP SS inhibit
 * debug exceptions and the single-step trap until the boundary after the
 * next instruction; of consecutive SS loads only the first does), §17.2.3
 * (DR6: B0-B3 rewritten, BD/BS/BT never cleared by the processor; INT1
 * sets no DR6 bit).  The cases are those of kvm-unit-tests x86/debug.c
 * (tests/scenarios/x86/kvm_unit_tests_step.hws).
 */
#include "x86_model.h"

/* Linux si_code values of SIGTRAP (include/uapi/asm-generic/siginfo.h). */
#define SI_KERNEL 0x80
#define TRAP_BRKPT 1
#define TRAP_TRACE 2
#define TRAP_HWBKPT 4

/*
 * What a tracer's PTRACE_GETSIGINFO shows of a #DB (linux profile): Linux
 * arch/x86/kernel/traps.c exc_debug_user() sends SIGTRAP with
 * get_si_code(dr6): TRAP_TRACE when BS is set, else TRAP_HWBKPT when a
 * B bit is, else (INT1) TRAP_BRKPT.
 */
void hwbpi_sim_x86_si_code(int profile, struct hwbp_sim_result *res, uint64_t cond)
{
	int code = TRAP_BRKPT;

	if (!hwbpi_quirk_on(profile, HWBPI_Q_X86_LINUX_SIGINFO))
		return;
	if (cond & DR6_BS)
		code = TRAP_TRACE;
	else if (cond & HWBP_X86_DR6_B_MASK)
		code = TRAP_HWBKPT;
	hwbpi_sim_status(res, "si_code", (uint64_t)code);
}

/* A #DB trap with DR6 as it now is. */
static void db_trap(int profile, struct hwbpi_sim_cpu *c, uint32_t en, uint64_t cond,
		    struct hwbp_sim_result *res)
{
	hwbpi_sim_x86_db_entry(profile, c);
	db_result(c, HWBP_TIMING_AFTER, en & hwbp_x86_enabled_slots(c->regs.u.x86.dr7), 0, res);
	hwbpi_sim_x86_si_code(profile, res, cond);
}

/* Drop what a MOV SS held (its boundary passed without a #DB). */
static void drop_held(struct hwbpi_sim_cpu *c)
{
	c->s.x86.held_b = 0;
	c->s.x86.held_bs = false;
}

void hwbpi_sim_x86_end(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		       struct hwbpi_x86_start st, uint32_t en, uint32_t b, bool movss,
		       struct hwbp_sim_result *res)
{
	bool bs = st.tf;
	uint64_t dr6 = c->regs.u.x86.dr6;

	(void)cpu;
	if (movss && st.shadow != HWBP_SIM_MOVSS) {
		/*
		 * The first MOV SS inhibits: its data breakpoint and its step
		 * trap wait for the boundary after the next instruction (SDM
		 * §6.8.3).  QEMU delays only the step (it translates the MOV
		 * SS with TF clear, gen_movl_seg()); its watchpoint fires at
		 * once (breakpoint_handler(): "FIXME: #DB should be delayed by
		 * one instruction if INHIBIT_IRQ is set").
		 */
		c->s.x86.shadow = HWBP_SIM_MOVSS;
		c->s.x86.held_bs = bs;
		if (!hwbpi_quirk_on(profile, HWBPI_Q_X86_MOVSS_DB_AT_ONCE)) {
			c->s.x86.held_b = b;
			return;
		}
		c->s.x86.held_b = 0;
		bs = false;
	} else if (st.shadow == HWBP_SIM_MOVSS) {
		/* The boundary after the shadowed instruction: one #DB. */
		en |= c->s.x86.held_b;
		b |= c->s.x86.held_b;
		bs = bs || c->s.x86.held_bs;
		drop_held(c);
	}
	if (!en && !bs)
		return;
	if (bs && hwbpi_quirk_on(profile, HWBPI_Q_X86_STEP_DR6_RECHECK)) {
		/*
		 * QEMU helper_single_step(): check_hw_breakpoints(env, true)
		 * rewrites B0-B3 from every watchpoint whose hit flag is still
		 * set (the qemu list's c->mflags, stale ones included) and
		 * every execute slot equal to the next RIP (never an arena
		 * instruction here: the next RIP of a scenario line is the
		 * runner's), then ORs in BS.
		 */
		b |= c->mflags;
		en |= c->mflags;
	}
	/*
	 * B0-B3 are rewritten; BS is added.  Choice for a step trap with no
	 * breakpoint ("certain debug exceptions may clear bits 0-3",
	 * §17.2.3): the sdm profile clears them, as for general detect and
	 * as KVM's kvm_deliver_exception_payload() does for every #DB
	 * (kvm-unit-tests x86/debug.c: 0xffff4ff0 after each step).
	 */
	/*
	 * A tracer's DR6 is rebuilt at each #DB from this one's BS and
	 * B bits (the linux row HWBPI_Q_X86_LINUX_VIRTUAL_DR6: Linux clears
	 * the real DR6 in debug_read_clear_dr6()), so nothing sticks.
	 */
	if (hwbpi_quirk_on(profile, HWBPI_Q_X86_LINUX_VIRTUAL_DR6))
		dr6 = HWBP_X86_DR6_RESET;
	dr6 = (dr6 & ~HWBP_X86_DR6_B_MASK) | b;
	if (bs)
		dr6 |= DR6_BS;
	c->regs.u.x86.dr6 = dr6;
	db_trap(profile, c, en, (bs ? DR6_BS : 0) | b, res);
}

/* INT3 (#BP, a trap: the saved RIP is the next instruction). */
static void int3(int profile, struct hwbpi_sim_cpu *c, struct hwbp_sim_result *res)
{
	/*
	 * The handler is entered through a gate that clears TF: no step trap
	 * follows INT3 (§17.3.1.4).  Choice: a #DB that a MOV SS held for
	 * this boundary would arrive at the handler's first instruction
	 * (§6.8.3), outside the line; the model drops it.
	 */
	drop_held(c);
	res->cls = HWBP_SIM_BP;
	res->timing = HWBP_TIMING_AFTER;
	/* A #BP names no slot: no status for a decoder (st stays clear). */
	/* Linux do_int3_user() -> do_trap(): force_sig(SIGTRAP), SI_KERNEL. */
	if (hwbpi_quirk_on(profile, HWBPI_Q_X86_LINUX_SIGINFO))
		hwbpi_sim_status(res, "si_code", SI_KERNEL);
}

/* INT1 (ICEBP): a #DB trap that sets no DR6 bit (§17.2.3). */
static void icebp(int profile, struct hwbpi_sim_cpu *c, struct hwbp_sim_result *res)
{
	uint32_t held = c->s.x86.held_b;

	/*
	 * In a MOV SS shadow the held data breakpoint fuses with the INT1
	 * into one #DB (§6.8.3; kvm-unit-tests "MOV SS + watchpoint +
	 * ICEBP": one #DB); its step trap does not, as after any INT n
	 * (kvm-unit-tests "Single-Step + ICEBP #DB w/ MOVSS blocking":
	 * 0xffff0ff0).  Under QEMU nothing is held (the MOV SS's #DB was
	 * its own).
	 */
	drop_held(c);
	if (hwbpi_quirk_on(profile, HWBPI_Q_X86_LINUX_VIRTUAL_DR6))
		/* Linux: a DR6 with no reason is INT1 (exc_debug_user():
		 * icebp = !dr6), and the tracer's is rebuilt empty. */
		c->regs.u.x86.dr6 = HWBP_X86_DR6_RESET;
	if (held)
		c->regs.u.x86.dr6 = (c->regs.u.x86.dr6 & ~HWBP_X86_DR6_B_MASK) | held;
	/* The slots it names are what DR6 holds, old B bits included. */
	db_trap(profile, c, (uint32_t)(c->regs.u.x86.dr6 & HWBP_X86_DR6_B_MASK), held, res);
}

void hwbpi_sim_x86_insn(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	struct hwbpi_x86_start st = hwbpi_sim_x86_start(c);

	/* Each completes, so RF is cleared (§17.3.1.1). */
	c->s.x86.rf = 0;
	switch (a->op) {
	case HWBP_SIM_SWBP:
		if (st.shadow != HWBP_SIM_MOVSS)
			drop_held(c);
		int3(profile, c, res);
		break;
	case HWBP_SIM_ICEBP:
		if (st.shadow != HWBP_SIM_MOVSS)
			drop_held(c);
		icebp(profile, c, res);
		break;
	case HWBP_SIM_STI:
		/*
		 * STI blocks interrupts for one instruction but not the step
		 * trap of either (kvm-unit-tests "Single-step #DB w/ STI
		 * blocking"; QEMU since 10.0.1, "do not block singlestep for
		 * STI").  A MOV SS it follows delivers what it held.
		 */
		hwbpi_sim_x86_end(cpu, profile, c, st, 0, 0, false, res);
		c->s.x86.shadow = HWBP_SIM_STI;
		break;
	}
}
