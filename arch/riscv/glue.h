/* SPDX-License-Identifier: MIT */
/*
 * RISC-V glue for a kernel running in M-mode (a bare-metal kernel): the
 * trigger CSRs (tselect, tdata1-3, Debug spec 1.0 §5.5) and mcause/mtval
 * through csrr/csrw; an S-mode kernel's is glue_sbi.c (below).  Built
 * freestanding for a riscv64 build machine and installed as
 * libhwbp-glue.a with this header as <hwbp/glue.h>; never part of the
 * hosted libraries.  The hwbp_rv_* functions are RISC-V's own
 * primitives; what hwbp and a kernel use is the common glue interface at
 * the end.
 */
#ifndef HWBP_ARCH_RISCV_GLUE_H
#define HWBP_ARCH_RISCV_GLUE_H

#include <stdint.h>

#include <hwbp/hwbp.h>

/* Trigger @n's tdata1-3 (tselect = n first; n must exist). */
void hwbp_rv_select(unsigned n);
uint64_t hwbp_rv_read_tdata(unsigned which, unsigned n);   /* which: 1, 2, 3 */

/*
 * This hart's triggers: the tselect values that read back as written
 * (tselect is WARL, §5.5.1), at most HWBP_MAX_SLOTS.
 */
unsigned hwbp_rv_ntrig(void);

/*
 * The glue interface, the same in every arch/<a>/glue.h: what a kernel
 * links to reach this CPU's debug registers, behind hwbp's struct
 * hwbp_glue (its write_regs calls hwbp_glue_write_regs() on the CPU that
 * on_cpu runs it on).  Every function acts on the hart it runs on: call
 * it with interrupts off (tselect is shared by all trigger accesses).  No
 * allocation, no lock; safe in exception context.
 *
 * hwbp_glue_write_regs - for each trigger n: tselect = n, tdata1 = its
 *   type alone (nothing enabled), tdata2, tdata3, then tdata1: a trigger
 *   is never armed with a half-written address (§5.5: "write tdata1
 *   first so that no spurious trigger fires"), and the first trigger of
 *   a chained pair is written before the second.  Not tdata1 = 0: QEMU
 *   10.0 ignores a type-0 write, leaving the old trigger armed.
 *   Errors: -EINVAL (@regs NULL or of another arch).
 *
 * hwbp_glue_read_regs - read every trigger's tdata1-3 into @regs.
 *
 * hwbp_glue_read_status - first thing in the breakpoint exception
 *   handler: mcause, mtval and the triggers whose hit bits are set into
 *   @st (@st->ip, the handler's mepc, is left as it is); the hit bits
 *   it reads it clears, so that each exception reports its own.
 *
 * All three leave tselect as they found it.
 */
int hwbp_glue_write_regs(const struct hwbp_regs *regs);
void hwbp_glue_read_regs(struct hwbp_regs *regs);
void hwbp_glue_read_status(struct hwbp_status *st);

/*
 * An S-mode kernel links glue_sbi.c instead of glue.c: the same three
 * functions through its firmware's SBI Debug Triggers extension (SBI 3.0
 * "Debug Triggers Extension"; OpenSBI 1.5's draft of it too), slot n
 * being the SBI trigger the glue installed for it on this hart (each
 * function's comment there says what differs: no chain, no m bit where
 * the firmware refuses it, no hit bits, scause/stval).  Which file a
 * kernel links decides CSRs or SBI; hwbp itself is the same.  The kernel
 * provides the two primitives below; the glue adds two for a breakpoint
 * handler that steps over an access.
 */
unsigned hwbp_rv_sbi_this_cpu(void);           /* this hart's number, < HWBP_RV_SBI_MAX_HARTS */
unsigned long hwbp_rv_sbi_pa(const void *p);   /* the physical address of a glue static */
int hwbp_rv_sbi_disable(uint32_t slots);       /* bit n: slot n; 0 or -errno */
int hwbp_rv_sbi_enable(uint32_t slots);

#endif /* HWBP_ARCH_RISCV_GLUE_H */
