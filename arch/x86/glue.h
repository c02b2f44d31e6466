/* SPDX-License-Identifier: MIT */
/*
 * x86 glue: the part of hwbp that touches the real debug registers, for an
 * x86_64 kernel (the bare-metal harness, tests/qemu/x86/, is the first).
 * Built freestanding for an x86_64 build machine and installed as
 * libhwbp-glue.a with this header as <hwbp/glue.h>; never part of the
 * hosted libraries.
 *
 * The host kernel provides the instruction-level primitives below: one MOV
 * to/from each DRn that returns the vector it raised (0: none, 1: #DB
 * general detect, 6: #UD, 13: #GP) instead of taking it, i.e. each MOV sits
 * on an exception fix-up (as tests/qemu/x86/boot.S does).  On top of them glue.c
 * keeps a shadow of DR0-DR3/DR6/DR7 so that, while DR7.GD is armed, reading
 * the registers (arch_read_regs(), for hwbp_decode_status()) does not
 * itself raise a general-detect #DB and disarm GD.  The x86_* functions
 * are x86's own primitives; what hwbp and a kernel use is the common glue
 * interface at the end.
 */
#ifndef HWBP_ARCH_X86_GLUE_H
#define HWBP_ARCH_X86_GLUE_H

#include <stdint.h>

#include <hwbp/hwbp.h>

/* Primitives (host kernel): return the vector raised, 0 if none. */
int hwbp_x86_movdr_to0(uint64_t v);
int hwbp_x86_movdr_to1(uint64_t v);
int hwbp_x86_movdr_to2(uint64_t v);
int hwbp_x86_movdr_to3(uint64_t v);
int hwbp_x86_movdr_to4(uint64_t v);
int hwbp_x86_movdr_to5(uint64_t v);
int hwbp_x86_movdr_to6(uint64_t v);
int hwbp_x86_movdr_to7(uint64_t v);
int hwbp_x86_movdr_from0(uint64_t *v);
int hwbp_x86_movdr_from1(uint64_t *v);
int hwbp_x86_movdr_from2(uint64_t *v);
int hwbp_x86_movdr_from3(uint64_t *v);
int hwbp_x86_movdr_from4(uint64_t *v);
int hwbp_x86_movdr_from5(uint64_t *v);
int hwbp_x86_movdr_from6(uint64_t *v);
int hwbp_x86_movdr_from7(uint64_t *v);

/* The index of the CPU the caller runs on (host kernel: its own CPU
 * number, e.g. from the local APIC ID), below HWBP_X86_GLUE_MAX_CPUS:
 * the glue keeps each CPU's shadow apart. */
#define HWBP_X86_GLUE_MAX_CPUS 8
unsigned hwbp_x86_this_cpu(void);

#define HWBP_X86_GLUE_VEC_DB 1
#define HWBP_X86_GLUE_VEC_UD 6
#define HWBP_X86_GLUE_VEC_GP 13

#define HWBP_X86_GLUE_DR7_GD (1ull << 13)
#define HWBP_X86_GLUE_DR6_BD (1ull << 13)

/*
 * x86's own functions (glue.c), on top of those primitives: each acts on
 * the debug registers, and the shadow, of the CPU it runs on.
 *
 * hwbp_x86_dr_write - MOV to DRn (n = 0..7; 4 and 5 are the aliases of 6
 *   and 7 with CR4.DE = 0 and raise #UD with DE = 1).  Returns the vector
 *   raised (the register is then unchanged, except that a general-detect
 *   #DB cleared DR7.GD and set DR6.BD) or 0.  @de is CR4.DE as the caller
 *   set it (for the alias).  Errors: -EINVAL (@n above 7).
 *
 * hwbp_x86_dr_read - DRn (n = 0..3, 6, 7): the live value, or the shadow
 *   while GD is armed (0 for another @n).  No errors.
 *
 * hwbp_x86_dr6_read_raw - DR6 from inside the #DB handler: the real
 *   register.  With DR7.GD armed the MOV raises a general-detect #DB; the
 *   value is read again and GD re-armed, BD cleared unless it was set
 *   before.  No errors.
 *
 * hwbp_x86_dr7_shadow - DR7 as last written (GD included): no MOV.
 *   No errors.
 *
 * hwbp_x86_dr_reset - DR0-DR3 = 0, DR7 = 0x400, DR6 = 0xFFFF0FF0
 *   (disarming GD first).  No errors.
 *
 * hwbp_x86_db_entry - the #DB entry helper: the status a handler passes to
 *   hwbp_decode(), into @st: DR6 (hwbp_glue_read_status()) and the
 *   instruction pointer of the exception frame, @rip.  DR6 is left as it
 *   is (the processor rewrites B0-B3 on every breakpoint #DB).  No errors.
 *
 * Context: on the CPU they act on, with preemption (or interrupts) off,
 * as for the glue interface; no allocation, no lock; safe in exception
 * context.
 */
int hwbp_x86_dr_write(unsigned n, uint64_t v, int de);
uint64_t hwbp_x86_dr_read(unsigned n);
uint64_t hwbp_x86_dr6_read_raw(void);
uint64_t hwbp_x86_dr7_shadow(void);
void hwbp_x86_dr_reset(void);
void hwbp_x86_db_entry(uint64_t rip, struct hwbp_status *st);

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

#endif /* HWBP_ARCH_X86_GLUE_H */
