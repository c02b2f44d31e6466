/* SPDX-License-Identifier: MIT */
/*
 * Between the arm64 harness's two halves (private to tests/qemu/arm64):
 *   harness_arm64.c  boot, PL011, MMU and memory map, the register
 *                    shadow, the harness.h functions that set a scenario
 *                    up (arch_reset, arch_set_reg, arch_mode,
 *                    arch_write_regs, ...), the SMP self-check;
 *   insn.c           one scenario instruction: entered by ERET with the
 *                    scenario's SPSR.SS and MDSCR.SS (software step), the
 *                    debug exceptions it takes (a64_exception()), its
 *                    result, and arch_access() (accesses, `exec`, BRK
 *                    from a64_brk_table), arch_get_reg() (MRS from
 *                    a64_mrs_table) and arch_resume().
 */
#ifndef HWBP_A64_INSN_H
#define HWBP_A64_INSN_H

#include <stdint.h>

#include "harness.h"
#include "glue.h"
#include "smp.h"

/*
 * Per CPU, the one piece of state both halves share (defined in
 * harness_arm64.c).  Each CPU's own: only that CPU reads or writes its
 * entry (its arch_* calls and its exception handler run on it), so no
 * locking; `volatile` for the fields the debug exception handler writes
 * behind the back of arch_access() on the same CPU.
 */
struct a64_pcpu {
	/* harness_arm64.c's (insn.c reads shadow.u.arm64.mdscr and cur_el). */
	struct hwbp_regs shadow;     /* mdscr: with SS as the scenario has it */
	uint64_t wp_seq[HWBP_MAX_SLOTS], wp_seq_now;  /* wp_written() */
	int cur_el;                                   /* `mode el=` */
	/*
	 * Software step, set by arch_set_reg() (`pstate_ss`, `step`) and
	 * arch_reset(), followed by insn.c.  The real MDSCR_EL1.SS is 1 only
	 * from the ERET into the scenario's instruction to the first step
	 * exception (or the return to the harness): this code is never
	 * stepped.  pstate_ss is the PSTATE.SS the instruction is entered
	 * with (SPSR_EL1.SS); after every step exception the harness, a
	 * debugger, sets it to stepping (`step on`: it returns with
	 * SPSR.SS = 1, sim/arm64_step.c).
	 */
	int pstate_ss, stepping;
	/* insn.c's: the instruction and what its exception handler saw. */
	uint64_t insn;               /* the instruction of this access */
	volatile unsigned exc_count;
	volatile uint64_t exc_esr, exc_far, exc_elr;
	volatile int exc_armed;
	volatile int stepped;        /* a step exception was taken */
	volatile int rs_valid;       /* ... after a watchpoint/breakpoint: resume's */
	volatile uint64_t rs_esr;
	/* For arch_resume(): the step exception due, or the instruction a
	 * step exception before it left to run (an access, or a get).
	 * arch_reset() clears it. */
	enum { LAST_NONE, LAST_STEP_DUE, LAST_REDO } last_kind;
	struct hwbp_sim_access last_acc;
	const char *last_get;
};

extern struct a64_pcpu a64_pcpu[A64_MAX_CPUS];

/* This CPU's entry. */
static inline struct a64_pcpu *a64_me(void)
{
	return &a64_pcpu[a64_this_cpu()];
}

/* harness_arm64.c, for insn.c: */

/* A string on the PL011 (no formatting: safe in the exception handler). */
void a64_puts(const char *s);

/*
 * Whether the scenario's access @a can be made on this memory map (data
 * below 2^39 and outside the GIC's and the PL011's blocks; `exec` only
 * inside arena C): 1, else 0 (the file is skipped).
 */
int a64_access_mapped(const struct hwbp_sim_access *a);

/* Clear E in every DBGBCR/DBGWCR of this CPU (stepping over an access),
 * and re-arm them from the shadow afterwards. */
void a64_disarm_all(void);
void a64_rearm_all(void);

/*
 * "dbg[bw][vc]rN" -> *kind, *n: 0; -ENOENT for another name or a slot
 * the scenario's CPU lacks, -EOPNOTSUPP for one this CPU lacks.
 */
int a64_dbg_slot(const char *name, enum hwbp_a64_dbg *kind, unsigned *n);

#endif /* HWBP_A64_INSN_H */
