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

/*
 * RISC-V's own functions (glue.c): csrr/csrw to the trigger CSRs of the
 * hart they run on.
 *
 * hwbp_rv_select - tselect = @n (n must exist), as before reading or
 *   writing trigger @n's tdata1-3.  No errors.
 *
 * hwbp_rv_read_tdata - trigger @n's tdata1, tdata2 or tdata3 (@which: 1,
 *   2, 3; 0 for another), tselect = n first (n must exist; tselect stays
 *   n).  No errors.
 *
 * hwbp_rv_ntrig - this hart's triggers: the tselect values that read back
 *   as written (tselect is WARL, §5.5.1) up to the first of type 0 (no
 *   trigger), at most HWBP_MAX_SLOTS.  tselect is left changed.
 *   No errors.
 *
 * Context: in M-mode, on the hart they act on, with interrupts off
 * (tselect is shared by all trigger accesses); no allocation, no lock.
 */
void hwbp_rv_select(unsigned n);
uint64_t hwbp_rv_read_tdata(unsigned which, unsigned n);
unsigned hwbp_rv_ntrig(void);

/*
 * The glue interface, the same in every arch/<a>/glue.h: what a kernel
 * links to reach this CPU's debug registers, behind hwbp's struct
 * hwbp_glue (its write_regs calls hwbp_glue_write_regs() on the CPU that
 * on_cpu runs it on).  Context: every function acts on the hart it runs
 * on: call it with interrupts off (tselect is shared by all trigger
 * accesses).  No allocation, no lock; safe in exception context.
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
 *   No errors.
 *
 * hwbp_glue_read_status - first thing in the breakpoint exception
 *   handler: mcause, mtval and the triggers whose hit bits are set into
 *   @st (@st->ip, the handler's mepc, is left as it is); the hit bits
 *   it reads it clears, so that each exception reports its own.
 *   No errors.
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
 * handler that steps over an access.  What differs (glue_sbi.c):
 *
 * hwbp_glue_write_regs (S-mode) - make this hart's slots what @regs says:
 *   slots whose tdata1-3 did not change are not touched; each changed
 *   slot that had an SBI trigger is uninstalled, then each changed slot
 *   whose tdata1 can match is installed, both in slot order.  If the
 *   firmware refuses anything, what this call changed is undone and the
 *   first error is returned: the previous state stays.
 *   Errors: -EINVAL (@regs NULL or of another arch; a trigger number the
 *   firmware does not know), -EOPNOTSUPP (no DBTR, or a chained trigger:
 *   the SBI does not say which hardware triggers back two logical ones),
 *   -ENODEV (hwbp_rv_sbi_this_cpu() past HWBP_RV_SBI_MAX_HARTS), -EBUSY
 *   (this hart's DBTR shared memory is someone else's), -EIO
 *   (install_triggers failed: OpenSBI refuses the m bit and dmode, and
 *   fails when no trigger is free), or another SBI error as an errno
 *   (-EPERM, -EFAULT, -ENOMEM).
 *
 * hwbp_glue_read_regs (S-mode) - this hart's slots into @regs: an
 *   installed slot's tdata1-3 as the firmware's read_triggers gives them
 *   (a disabled trigger reads without its mode bits), an empty one as it
 *   was last written, and where read_triggers refuses, the glue's own
 *   copy of what it installed.  No hit bits.  No errors.
 *
 * hwbp_glue_read_status (S-mode) - first thing in the S-mode handler of a
 *   breakpoint exception (the firmware delegates cause 3): scause and
 *   stval into @st, hits 0 (@st->ip, the handler's sepc, is left as it
 *   is).  No errors.
 *
 * hwbp_rv_sbi_disable - disable_triggers for the installed slots of
 *   @slots (bit n: slot n): the firmware clears their mode bits (OpenSBI:
 *   u, s, vu, vs) and keeps them installed.  For a breakpoint handler
 *   that lets the access complete.  Errors: as hwbp_glue_write_regs()
 *   (S-mode): -ENODEV, -EOPNOTSUPP, -EBUSY, or the firmware's error as an
 *   errno.
 *
 * hwbp_rv_sbi_enable - enable_triggers for the installed slots of @slots,
 *   in slot order (the firmware restores the mode bits it recorded at
 *   install).  Errors: as hwbp_rv_sbi_disable().
 *
 * Context: on the hart they act on (hwbp_rv_sbi_this_cpu(), the kernel's
 * number for it, indexes the glue's table), with interrupts off; no
 * allocation, no lock.  An ecall from S-mode traps to M-mode and returns:
 * they may be called from S-mode exception context.
 */
unsigned hwbp_rv_sbi_this_cpu(void);           /* this hart's number, < HWBP_RV_SBI_MAX_HARTS */
unsigned long hwbp_rv_sbi_pa(const void *p);   /* the physical address of a glue static */
int hwbp_rv_sbi_disable(uint32_t slots);       /* bit n: slot n; 0 or -errno */
int hwbp_rv_sbi_enable(uint32_t slots);

#endif /* HWBP_ARCH_RISCV_GLUE_H */
