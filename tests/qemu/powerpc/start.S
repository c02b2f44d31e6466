/* SPDX-License-Identifier: MIT */
/*
 * ppc64 (big-endian, ELFv2 ABI) harness: entry from skiboot, exception
 * vectors, OPAL calls, the access primitives and the privilege-state call.
 *
 * skiboot (QEMU's powernv firmware) runs the ELF in place where QEMU put the
 * -kernel file (0x20000000), in hypervisor real mode, with r3 = FDT,
 * r8 = OPAL base, r9 = OPAL entry.  The image is linked at 0 (as Linux is):
 * _start copies itself down to 0, so that its exception vectors are the
 * machine's, then runs C with the MMU still off; kmain() turns radix
 * translation on.
 *
 * SMP (smp.c): every thread's SPRG0 holds its struct ppc_percpu, through
 * which the entries below find their per-thread data (the debug
 * interrupt's record, ppc_mode_call's saved context, the stacks): the
 * vectors at 0 are shared by all threads, the data must not be.
 */
#include "smp.h"

#define SPRG0 PPC_SPRG_PERCPU
#define SPRG1 273
#define SPRG2 274
#define SPRN_DEC 22
#define SPRN_HSRR0 314
#define SPRN_HSRR1 315
#define SPRN_PSSCR 855

#define LOAD_ADDR(r, sym) lis r, sym@h; ori r, r, sym@l

	.machine power10
	.abiversion 2

/* ---------------------------------------------------------------- vectors */
	.section .head.text, "ax"
	.globl __head
__head:

/* Unexpected interrupt VEC: report it from C and power off. */
#define VEC_BAD(v) \
	. = v; \
	mtspr SPRG1, %r3; \
	mtspr SPRG2, %r4; \
	li %r4, v; \
	b bad_common

/* A debug interrupt: record it, step over the instruction, go back. */
#define VEC_HIT(v) \
	. = v; \
	mtspr SPRG1, %r3; \
	mtspr SPRG2, %r4; \
	li %r4, v; \
	b hit_common

	VEC_BAD(0x100)
	VEC_BAD(0x200)
	VEC_HIT(0x300)
	VEC_BAD(0x380)
	VEC_BAD(0x400)
	VEC_BAD(0x480)
	VEC_BAD(0x500)
	VEC_BAD(0x600)
	VEC_HIT(0x700)                  /* `trap`, and `get` refused (Program) */
	VEC_BAD(0x800)

	/* Decrementer (user mode may run with MSR[EE] = 1): push it away. */
	. = 0x900
	mtspr SPRG1, %r3
	lis %r3, 0x7fff
	ori %r3, %r3, 0xffff
	mtspr SPRN_DEC, %r3
	mfspr %r3, SPRG1
	rfid

	VEC_BAD(0x980)
	VEC_BAD(0xa00)
	VEC_BAD(0xb00)

	/* System call: `sc 1` from the state mode_call() entered brings us
	 * back here in hypervisor state. */
	. = 0xc00
	mfmsr %r11
	rldicl. %r11, %r11, 4, 63       /* MSR[HV] */
	bne 1f
	sc 1                            /* arrived with HV = 0: escalate */
1:	b mc_return

	VEC_HIT(0xd00)
	VEC_BAD(0xe00)
	VEC_BAD(0xe20)
	VEC_BAD(0xe40)
	VEC_BAD(0xe60)

	/* Hypervisor doorbell: smp.c's call to an idle thread. */
	. = 0xe80
	mtspr SPRG1, %r3
	mtspr SPRG2, %r4
	li %r4, 0xe80
	b doorbell_common

	VEC_BAD(0xea0)
	VEC_BAD(0xf00)
	VEC_BAD(0xf20)
	VEC_BAD(0xf40)
	VEC_BAD(0xf60)
	VEC_BAD(0xf80)
	VEC_BAD(0x1500)
	VEC_BAD(0x1600)
	VEC_BAD(0x1700)
	VEC_BAD(0x1800)

	. = 0x2000
/*
 * hit_common: r4 = vector (old r3/r4 in SPRG1/2).  Saves the vector, SRR0,
 * SRR1, DSISR and DAR in ppc_hit (kernel.c) and returns past the
 * instruction that raised it: an interrupt taken before its instruction
 * (DSI, Program, QEMU's CIABR trace: SRR0 = it) skips it (SRR0 + 4), so
 * the handler never needs the hypervisor-only debug SPRs (it also runs in
 * MSR[HV] = 0 state); a Trace interrupt without SRR1[43] (MSR[SE]/[BE])
 * came after its instruction and SRR0 is the next one already.  MSR[SE]
 * and MSR[BE] are cleared in SRR1: one interrupt per access, nothing after
 * it is traced.  Touches no stack; CR is kept in the thread's hit_cr.
 */
hit_common:
	mfspr %r3, SPRG0                /* this thread's ppc_percpu: PCPU_HIT = 0 */
	std %r4, 0(%r3)
	mfcr %r4
	std %r4, PCPU_HIT_CR(%r3)
	mfsrr0 %r4
	std %r4, 8(%r3)
	mfsrr1 %r4
	std %r4, 16(%r3)
	ori %r4, %r4, 0x600             /* MSR[SE] (0x400) | MSR[BE] (0x200) ... */
	xori %r4, %r4, 0x600            /* ... cleared */
	mtsrr1 %r4
	mfdsisr %r4
	std %r4, 24(%r3)
	mfdar %r4
	std %r4, 32(%r3)
	ld %r4, 40(%r3)
	addi %r4, %r4, 1
	std %r4, 40(%r3)
	ld %r4, 0(%r3)
	cmpdi %r4, 0xd00
	bne 1f
	ld %r4, 16(%r3)
	andis. %r4, %r4, 0x0010         /* SRR1[43]: a CIABR match */
	beq 2f
1:	mfsrr0 %r4
	addi %r4, %r4, 4
	mtsrr0 %r4
2:	ld %r4, PCPU_HIT_CR(%r3)
	mtcr %r4
	mfspr %r3, SPRG1
	mfspr %r4, SPRG2
	rfid

/* bad_common: r4 = vector.  C reports it (real mode, own stack). */
bad_common:
	mfspr %r1, SPRG0
	ld %r1, PCPU_EXC_STACK(%r1)
	LOAD_ADDR(%r2, .TOC.)
	mr %r3, %r4
	mfsrr0 %r4
	mfsrr1 %r5
	mfspr %r6, 314                  /* HSRR0 */
	mfspr %r7, 315                  /* HSRR1 */
	mfdar %r8
	mfdsisr %r9
	LOAD_ADDR(%r12, ppc_bad_interrupt)
	mtctr %r12
	bctrl
1:	b 1b

/*
 * doorbell_common: r4 = 0xe80.  Only an idle thread (ppc_idle, MSR[EE] = 1
 * in `stop`'s loop) takes a doorbell, so the interrupted context is not
 * kept: the thread restarts on its own stack in ppc_smp_doorbell with the
 * kernel's MSR (EE = 0), by hrfid (HSRR0/HSRR1: the Hypervisor Doorbell
 * interrupt is a hypervisor interrupt, Power ISA v3.1 Book III,
 * "Interrupts").  msgclr drops the pending doorbell whether or not
 * taking it did (QEMU: helper_book3s_msgclr); no doorbell can be lost by
 * it, as CPU 0 sends the next one only after this call's end.  CPU 0
 * never waits for one: a doorbell there is reported as unexpected.
 */
doorbell_common:
	mfspr %r3, SPRG0
	ld %r3, PCPU_INDEX(%r3)
	cmpdi %r3, 0
	beq bad_common
	lis %r3, 0x2800                 /* msgclr type 5: this thread's doorbell */
	msgclr %r3
	mfspr %r3, SPRG0
	ld %r1, PCPU_STACK(%r3)
	li %r0, 0
	std %r0, 0(%r1)
	LOAD_ADDR(%r2, .TOC.)
	LOAD_ADDR(%r12, ppc_smp_doorbell)
	mtspr SPRN_HSRR0, %r12
	LOAD_ADDR(%r11, ppc_kernel_msr)
	ld %r11, 0(%r11)
	mtspr SPRN_HSRR1, %r11
	hrfid

/* ------------------------------------------------------------------ entry */
	.globl _start
_start:
	mr %r27, %r3                    /* skiboot's device tree */
	mr %r28, %r8                    /* OPAL base */
	mr %r29, %r9                    /* OPAL entry */
	bcl 20, 31, 1f
1:	mflr %r10
	LOAD_ADDR(%r11, 1b)
	subf %r10, %r11, %r10           /* r10 = where address 0 of the image is now */
	/* copy [0, __data_end) down to 0 */
	li %r5, 0
	LOAD_ADDR(%r6, __data_end)
2:	ldx %r7, %r10, %r5
	stdx %r7, 0, %r5
	addi %r5, %r5, 8
	cmpld %r5, %r6
	blt 2b
	sync
	li %r5, 0
3:	dcbst 0, %r5
	addi %r5, %r5, 128
	cmpld %r5, %r6
	blt 3b
	sync
	li %r5, 0
4:	icbi 0, %r5
	addi %r5, %r5, 128
	cmpld %r5, %r6
	blt 4b
	sync
	isync
	LOAD_ADDR(%r12, 5f)
	mtctr %r12
	bctr
5:	/* running at the link address now: clear .bss */
	LOAD_ADDR(%r5, __bss_start)
	LOAD_ADDR(%r6, __bss_end)
	li %r7, 0
6:	cmpld %r5, %r6
	bge 7f
	std %r7, 0(%r5)
	addi %r5, %r5, 8
	b 6b
7:	LOAD_ADDR(%r1, stack_top)
	subi %r1, %r1, 128
	li %r0, 0
	std %r0, 0(%r1)
	LOAD_ADDR(%r2, .TOC.)
	LOAD_ADDR(%r5, ppc_opal)
	std %r28, 0(%r5)
	std %r29, 8(%r5)
	mr %r3, %r27
	LOAD_ADDR(%r12, kmain)
	mtctr %r12
	bctrl
8:	b 8b

/*
 * A thread OPAL_START_CPU started (smp.c): hypervisor real mode, r3 = its
 * PIR.  Its ppc_percpu is the one CPU 0 published in ppc_smp_booting
 * before the start (threads start one at a time).
 */
	.globl ppc_secondary_entry
ppc_secondary_entry:
	LOAD_ADDR(%r4, ppc_smp_booting)
	ld %r5, 0(%r4)
	mtspr SPRG0, %r5
	ld %r1, PCPU_STACK(%r5)
	li %r0, 0
	std %r0, 0(%r1)
	LOAD_ADDR(%r2, .TOC.)
	LOAD_ADDR(%r12, ppc_secondary_main)
	mtctr %r12
	bctrl
9:	b 9b

/*
 * ppc_idle: a thread's wait for the next call, on a fresh stack.  MSR[EE]
 * is set before `stop`, so that a doorbell sent before the stop is taken
 * at once, and one sent during it ends the stop (PSSCR = 0: EC = 0, ESL =
 * 0, the lightest stop, resumed at the next instruction: Power ISA v3.1
 * Book III, "Power Management", stop; QEMU target/ppc/excp_helper.c
 * p9_next_unmasked_interrupt: with PSSCR[EC] = 0 any interrupt ends a
 * stop) and is then taken.  The decrementer's 0x900
 * entry returns here.
 */
	.globl ppc_idle
ppc_idle:
	mfspr %r3, SPRG0
	ld %r1, PCPU_STACK(%r3)
	li %r0, 0
	std %r0, 0(%r1)
	li %r3, 0
	mtspr SPRN_PSSCR, %r3
	LOAD_ADDR(%r4, ppc_kernel_msr)
	ld %r4, 0(%r4)
	ori %r4, %r4, 0x8000            /* MSR[EE] */
1:	mtmsrd %r4
	isync
	stop
	b 1b

	.text
/*
 * int64_t ppc_opal_call(uint64_t token, uint64_t a, uint64_t b, uint64_t c)
 * in real mode (OPAL's ABI), back in the caller's MSR.
 */
	.globl ppc_opal_call
ppc_opal_call:
	mflr %r0
	std %r0, 16(%r1)
	stdu %r1, -128(%r1)
	std %r2, 32(%r1)
	std %r31, 40(%r1)
	mfmsr %r31
	mr %r0, %r3
	mr %r3, %r4
	mr %r4, %r5
	mr %r5, %r6
	li %r11, 0x30                   /* MSR[IR|DR] */
	ori %r11, %r11, 0x8000          /* MSR[EE] */
	andc %r11, %r31, %r11
	mtmsrd %r11
	isync
	LOAD_ADDR(%r11, ppc_opal)
	ld %r2, 0(%r11)
	ld %r12, 8(%r11)
	mtctr %r12
	bctrl
	mtmsrd %r31
	isync
	ld %r31, 40(%r1)
	ld %r2, 32(%r1)
	addi %r1, %r1, 128
	ld %r0, 16(%r1)
	mtlr %r0
	blr

/*
 * uint64_t ppc_mode_call(void (*fn)(uint64_t), uint64_t arg, uint64_t msr)
 * Runs fn(arg) with MSR = msr (another privilege state: problem state,
 * MSR[HV] = 0; MSR[SE]/[BE] for a traced access), entered by rfid; fn
 * returns to mc_user_ret, or ends in `sc 1` itself (the _s routines), and
 * the `sc 1` comes back through 0xc00 to mc_return in hypervisor real
 * mode, which restores the caller's context and MSR.  Returns fn's r3 as
 * the `sc 1` left it (nothing on the way back touches r3).  Not
 * reentrant.
 */
	.globl ppc_mode_call
ppc_mode_call:
	mfspr %r11, SPRG0               /* this thread's save area */
	addi %r11, %r11, PCPU_MC_SAVE
	std %r1, 0(%r11)
	std %r2, 8(%r11)
	mflr %r0
	std %r0, 16(%r11)
	mfmsr %r0
	std %r0, 24(%r11)
	mfcr %r0
	std %r0, 32(%r11)
	std %r13, 40(%r11)
	std %r14, 48(%r11)
	std %r15, 56(%r11)
	std %r16, 64(%r11)
	std %r17, 72(%r11)
	std %r18, 80(%r11)
	std %r19, 88(%r11)
	std %r20, 96(%r11)
	std %r21, 104(%r11)
	std %r22, 112(%r11)
	std %r23, 120(%r11)
	std %r24, 128(%r11)
	std %r25, 136(%r11)
	std %r26, 144(%r11)
	std %r27, 152(%r11)
	std %r28, 160(%r11)
	std %r29, 168(%r11)
	std %r30, 176(%r11)
	std %r31, 184(%r11)
	mtsrr0 %r3
	mtsrr1 %r5
	mr %r12, %r3
	mr %r3, %r4
	LOAD_ADDR(%r0, mc_user_ret)
	mtlr %r0
	rfid

mc_user_ret:
	sc 1
	b mc_user_ret

mc_return:
	mfspr %r11, SPRG0
	addi %r11, %r11, PCPU_MC_SAVE
	ld %r1, 0(%r11)
	ld %r2, 8(%r11)
	ld %r0, 16(%r11)
	mtsrr0 %r0
	ld %r0, 24(%r11)
	mtsrr1 %r0
	ld %r0, 32(%r11)
	mtcr %r0
	ld %r13, 40(%r11)
	ld %r14, 48(%r11)
	ld %r15, 56(%r11)
	ld %r16, 64(%r11)
	ld %r17, 72(%r11)
	ld %r18, 80(%r11)
	ld %r19, 88(%r11)
	ld %r20, 96(%r11)
	ld %r21, 104(%r11)
	ld %r22, 112(%r11)
	ld %r23, 120(%r11)
	ld %r24, 128(%r11)
	ld %r25, 136(%r11)
	ld %r26, 144(%r11)
	ld %r27, 152(%r11)
	ld %r28, 160(%r11)
	ld %r29, 168(%r11)
	ld %r30, 176(%r11)
	ld %r31, 184(%r11)
	rfid

/*
 * The access primitives: the access is the first instruction of each, so
 * a handler's SRR0 equal to the function's address means "before".
 * Leaf functions, no TOC, no stack: they also run in problem state.
 * Each has a twin NAME_s that ends in `sc 1` instead of blr, entered only
 * by ppc_mode_call: with MSR[BE] the blr would be traced, and with MSR[SE]
 * the access must be the only instruction that runs traced.
 */
#define PRIM(name, ...) \
	.globl name; \
	.p2align 4; \
name:	__VA_ARGS__; \
	blr; \
	.globl name##_s; \
	.p2align 4; \
name##_s: __VA_ARGS__; \
	sc 1

/* Instructions that are not accesses, each alone before `sc 1` (entered
 * by ppc_mode_call only): `trap` and mfspr of a debug SPR into r3. */
#define INSN(name, ...) \
	.globl name; \
	.p2align 4; \
name:	__VA_ARGS__; \
	sc 1

	INSN(ppc_trap_s, tw 31, 0, 0)
	INSN(ppc_mfdawr0_s, mfspr %r3, 180)
	INSN(ppc_mfdawr1_s, mfspr %r3, 181)
	INSN(ppc_mfciabr_s, mfspr %r3, 187)
	INSN(ppc_mfdawrx0_s, mfspr %r3, 188)
	INSN(ppc_mfdawrx1_s, mfspr %r3, 189)

	PRIM(ppc_ld1, lbz %r4, 0(%r3))
	PRIM(ppc_ld2, lhz %r4, 0(%r3))
	PRIM(ppc_ld4, lwz %r4, 0(%r3))
	PRIM(ppc_ld8, ld %r4, 0(%r3))
	PRIM(ppc_ld16, lxvd2x %vs0, 0, %r3)
	PRIM(ppc_st1, stb %r3, 0(%r3))
	PRIM(ppc_st2, sth %r3, 0(%r3))
	PRIM(ppc_st4, stw %r3, 0(%r3))
	PRIM(ppc_st8, std %r3, 0(%r3))
	PRIM(ppc_st16, stxvd2x %vs0, 0, %r3)
	PRIM(ppc_zero, dcbz 0, %r3)
	/* quadword-aligned 16 bytes: lq/stq, one 16-byte access in QEMU
	 * (lxvd2x/stxvd2x are two 8-byte accesses there) */
	PRIM(ppc_ld16q, lq %r4, 0(%r3))
	PRIM(ppc_st16q, stq %r4, 0(%r3))
	/* 32 bytes: the ISA 3.1 paired vector load/store */
	PRIM(ppc_ld32, lxvp %vs0, 0(%r3))
	PRIM(ppc_st32, stxvp %vs0, 0(%r3))

/* exec: call into arena C (a blr at every word). */
	.globl ppc_exec
	.p2align 4
ppc_exec:
	mflr %r0
	std %r0, 16(%r1)
	stdu %r1, -32(%r1)
	mtctr %r3
	mr %r12, %r3
	bctrl
	addi %r1, %r1, 32
	ld %r0, 16(%r1)
	mtlr %r0
	blr
