/* SPDX-License-Identifier: MIT */
/*
 * powerpc glue for a kernel in hypervisor state (the bare-metal harness,
 * tests/qemu/powerpc/, is the first): writes and reads this thread's real
 * DAWR0/DAWRX0, DAWR1/DAWRX1 and CIABR with mtspr/mfspr (POWER10: every
 * one of those SPRs exists and is writable; a pseries guest would go
 * through H_SET_MODE instead).  Built freestanding for a ppc64 build
 * machine and installed as libhwbp-glue.a with this header as
 * <hwbp/glue.h>; never part of the hosted libraries.  DABR/DABRX
 * are kept in a shadow only (POWER8 and later lack them).
 */
#ifndef HWBP_ARCH_POWERPC_GLUE_H
#define HWBP_ARCH_POWERPC_GLUE_H

#include <hwbp/hwbp.h>

/* Primitive (host kernel): the index of the hardware thread the caller
 * runs on (its own CPU number, e.g. from its PIR or a per-thread SPRG),
 * below HWBP_PPC_GLUE_MAX_CPUS: the glue keeps each thread's shadow
 * apart. */
#define HWBP_PPC_GLUE_MAX_CPUS 8
unsigned hwbp_ppc_this_cpu(void);

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

/* hwbp_ppc_glue_shadow - the last values written on this thread, into
 * @regs (DABR/DABRX, which POWER10 lacks, only live here).  No errors.
 * Context: as for the glue interface: on the thread it acts on, with
 * preemption (or interrupts) off; no allocation, no lock. */
void hwbp_ppc_glue_shadow(struct hwbp_regs *regs);

#endif
