/* SPDX-License-Identifier: MIT */
/*
 * arm64 glue for a kernel running at EL1: the real debug registers
 * (DBGBVR/DBGBCR/DBGWVR/DBGWCR<n>_EL1, MDSCR_EL1, OSLAR_EL1, PSTATE.D)
 * through MSR/MRS, for an AArch64 kernel (the bare-metal harness,
 * tests/qemu/arm64/, is the first).  Built freestanding for an aarch64
 * build machine and installed as libhwbp-glue.a with this header as
 * <hwbp/glue.h>; never part of the hosted libraries.
 * The hwbp_a64_* functions are arm64's own primitives; what hwbp and a
 * kernel use is the common glue interface at the end.
 */
#ifndef HWBP_ARCH_ARM64_GLUE_H
#define HWBP_ARCH_ARM64_GLUE_H

#include <stdint.h>

#include <hwbp/hwbp.h>

enum hwbp_a64_dbg {
	HWBP_A64_BVR = 0,
	HWBP_A64_BCR = 1,
	HWBP_A64_WVR = 2,
	HWBP_A64_WCR = 3,
};

/*
 * arm64's own functions (glue.c): MSR/MRS to the registers of the CPU
 * they run on.
 *
 * hwbp_a64_read_dbg - debug register @n (0..15) of @kind: DBGBVR, DBGBCR,
 *   DBGWVR or DBGWCR<n>_EL1 (n must exist on this CPU: else UNDEFINED;
 *   0 for @n above 15).  No errors.
 *
 * hwbp_a64_write_dbg - write @v to debug register @n of @kind (n must
 *   exist on this CPU: else UNDEFINED; nothing for @n above 15).
 *   No errors.
 *
 * hwbp_a64_read_mdscr - MDSCR_EL1.  No errors.
 *
 * hwbp_a64_write_mdscr - write @v to MDSCR_EL1, then ISB.  No errors.
 *
 * hwbp_a64_write_oslar - write @v to OSLAR_EL1 (the OS lock), then ISB.
 *   No errors.
 *
 * hwbp_a64_read_oslsr - OSLSR_EL1 (the OS lock's status).  No errors.
 *
 * hwbp_a64_read_dfr0 - ID_AA64DFR0_EL1.  No errors.
 *
 * hwbp_a64_set_daif_d - set PSTATE.D to @d, then ISB: 1 masks debug
 *   exceptions targeting the current EL.  No errors.
 *
 * hwbp_a64_get_daif_d - PSTATE.D: 1 masks debug exceptions targeting the
 *   current EL.  No errors.
 *
 * hwbp_a64_nbrp - this CPU's breakpoint count (ID_AA64DFR0_EL1).
 *   No errors.
 *
 * hwbp_a64_nwrp - this CPU's watchpoint count (ID_AA64DFR0_EL1).
 *   No errors.
 *
 * hwbp_a64_write_regs - write the registers of the first @nb breakpoints
 *   and @nw watchpoints and MDSCR_EL1 from @regs (then ISB); @regs is not
 *   checked (hwbp_glue_write_regs() is the checked write).  No errors.
 *
 * hwbp_a64_read_regs - read the registers of the first @nb breakpoints
 *   and @nw watchpoints and MDSCR_EL1 into @regs (the other slots 0).
 *   No errors.
 *
 * Context: at EL1, on the CPU they act on, with preemption (or
 * interrupts) off, as for the glue interface; no allocation, no lock.
 */
uint64_t hwbp_a64_read_dbg(enum hwbp_a64_dbg kind, unsigned n);
void hwbp_a64_write_dbg(enum hwbp_a64_dbg kind, unsigned n, uint64_t v);
uint64_t hwbp_a64_read_mdscr(void);
void hwbp_a64_write_mdscr(uint64_t v);
void hwbp_a64_write_oslar(uint64_t v);
uint64_t hwbp_a64_read_oslsr(void);
uint64_t hwbp_a64_read_dfr0(void);
void hwbp_a64_set_daif_d(int d);
int hwbp_a64_get_daif_d(void);
unsigned hwbp_a64_nbrp(void);
unsigned hwbp_a64_nwrp(void);
void hwbp_a64_write_regs(const struct hwbp_regs *regs, unsigned nb, unsigned nw);
void hwbp_a64_read_regs(struct hwbp_regs *regs, unsigned nb, unsigned nw);

/*
 * The glue interface, the same in every arch/<a>/glue.h: what a kernel
 * links to reach this CPU's debug registers, behind hwbp's struct
 * hwbp_glue (its write_regs calls hwbp_glue_write_regs() on the CPU that
 * on_cpu runs it on).  Context: every function acts on the CPU it runs
 * on: call it with preemption (or interrupts) off.  No allocation, no
 * lock; safe in exception context.
 *
 * hwbp_glue_write_regs - write this CPU's address and control registers
 *   from @regs, never a status register (x86 DR6), with enables shared by
 *   other users OR-ed in (arm64 MDSCR_EL1 MDE/KDE): the effect
 *   hwbp_regs_apply() models.  Address registers are written before the
 *   controls that enable them, in slot order.
 *   Errors: -EINVAL (@regs NULL or of another arch), -EIO (a write raised
 *   an exception: x86 with DR7.GD armed twice in a row).
 *
 * hwbp_glue_read_regs - read this CPU's debug registers into @regs (every
 *   field of this arch, status registers included).  No errors.
 *
 * hwbp_glue_read_status - first thing in a debug exception handler: the
 *   arch's status registers into @st (x86 DR6; arm64 ESR_EL1, FAR_EL1;
 *   powerpc DSISR, DAR, SRR1), for hwbp_decode().  @st->ip and powerpc's
 *   vector are left as they are: the handler has them from its exception
 *   frame and vector.  Only the fields named are written.  No errors.
 */
int hwbp_glue_write_regs(const struct hwbp_regs *regs);
void hwbp_glue_read_regs(struct hwbp_regs *regs);
void hwbp_glue_read_status(struct hwbp_status *st);

#endif /* HWBP_ARCH_ARM64_GLUE_H */
