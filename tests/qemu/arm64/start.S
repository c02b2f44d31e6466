/* SPDX-License-Identifier: MIT */
/*
 * arm64 bare-metal harness: entry, exception vectors, EL0 trampolines,
 * the access routines (one real load/store/DC ZVA per routine) and the
 * code arena C (64 KiB of `ret`).
 *
 * Exception frame (struct a64_frame in insn.c): x0..x30, ELR,
 * SPSR, 8 bytes pad = 34 * 8 = 272 bytes.
 *
 * Every CPU's number (MPIDR_EL1.Aff0) is in TPIDR_EL1 before any C runs:
 * smp.h a64_this_cpu(), and the per-CPU EL0 context below, use it.
 */
	.section .text.boot, "ax"
	.global _start
_start:
	/* QEMU -M virt without EL2/EL3 enters here at EL1h. */
	msr	daifset, #0xf
	ldr	x0, =__stack_top
	mov	sp, x0
	/* Clear .bss: 16-byte aligned bounds (the linker script), aligned
	 * stores only, as the MMU is still off (Device memory). */
	ldr	x0, =__bss_start
	ldr	x1, =__bss_end
1:	cmp	x0, x1
	b.hs	2f
	stp	xzr, xzr, [x0], #16
	b	1b
2:	ldr	x0, =a64_vectors
	msr	vbar_el1, x0
	msr	tpidr_el1, xzr		/* CPU 0 (its reset value is UNKNOWN) */
	isb
	bl	a64_main
3:	wfi
	b	3b

/*
 * A secondary CPU, started by PSCI CPU_ON (smp.c) at EL1h with the MMU
 * off, DAIF masked and x0 = the context_id = its stack's top.  Nothing
 * here reads memory CPU 0 wrote (MMU off: the loads would be
 * non-cacheable); the literal pool is the loaded image's.  VBAR_EL1 and
 * TPIDR_EL1 are this CPU's own (per-PE System registers): the same
 * vector table, its own number.  The ISB makes both take effect before
 * the C code (Arm ARM DDI 0487, "Synchronization requirements for AArch64
 * System registers": a direct write is guaranteed to be seen by later
 * instructions only after a context synchronization event).
 */
	.balign	4
	.global	a64_secondary_entry
a64_secondary_entry:
	msr	daifset, #0xf
	mov	sp, x0
	ldr	x1, =a64_vectors
	msr	vbar_el1, x1
	mrs	x1, mpidr_el1
	and	x1, x1, #0xff		/* Aff0: QEMU virt, GICv2: CPUs 0..7 */
	msr	tpidr_el1, x1
	isb
	bl	a64_secondary_main
4:	wfi
	b	4b

/* ------------------------------------------------------------------ */
/* Vectors                                                             */
/* ------------------------------------------------------------------ */
.macro	SAVE_FRAME
	sub	sp, sp, #272
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x19, [sp, #144]
	stp	x20, x21, [sp, #160]
	stp	x22, x23, [sp, #176]
	stp	x24, x25, [sp, #192]
	stp	x26, x27, [sp, #208]
	stp	x28, x29, [sp, #224]
	mrs	x0, elr_el1
	stp	x30, x0, [sp, #240]
	mrs	x0, spsr_el1
	str	x0, [sp, #256]
.endm

.macro	VENTRY kind
	.balign	0x80
	SAVE_FRAME
	mov	x0, sp
	mov	x1, #\kind
	b	a64_exc_common
.endm

	.text
	.balign	2048
	.global	a64_vectors
a64_vectors:
	VENTRY	0	/* current EL, SP0: sync */
	VENTRY	1	/* irq */
	VENTRY	2	/* fiq */
	VENTRY	3	/* serror */
	VENTRY	4	/* current EL, SPx: sync */
	VENTRY	5
	VENTRY	6
	VENTRY	7
	VENTRY	8	/* lower EL, AArch64: sync */
	VENTRY	9
	VENTRY	10
	VENTRY	11
	VENTRY	12	/* lower EL, AArch32 */
	VENTRY	13
	VENTRY	14
	VENTRY	15

a64_exc_common:
	bl	a64_exception		/* returns 0: eret; 1: back from EL0 */
	cbnz	x0, a64_el0_back
	ldr	x0, [sp, #256]
	msr	spsr_el1, x0
	ldp	x30, x0, [sp, #240]
	msr	elr_el1, x0
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldp	x18, x19, [sp, #144]
	ldp	x20, x21, [sp, #160]
	ldp	x22, x23, [sp, #176]
	ldp	x24, x25, [sp, #192]
	ldp	x26, x27, [sp, #208]
	ldp	x28, x29, [sp, #224]
	add	sp, sp, #272
	eret

/*
 * a64_el0_run(x0 = operand, x1 = pc, x2 = SPSR bits, x3 = x30, x4 = MDSCR):
 * eret to the EL0 instruction at pc with x0 = operand and x30 = x3 (the
 * `svc #0` of a stub, for an `exec` target's `ret`), SPSR = EL0t with A I
 * F masked | x2 (SPSR.SS: PSTATE.SS at the instruction).  MDSCR_EL1 is
 * written with x4 (its SS bit set only here, with PSTATE.D = 1 so that
 * this code is not stepped; a64_el0_back clears it again).  The stub
 * makes its access and `svc #0`s, which comes back through a64_el0_back
 * to our caller with the callee-saved registers, SP and DAIF restored; so
 * does a debug exception that must not return to EL0 (a64_exception()
 * returns 1).  The context is this CPU's (EL0_CTX bytes at a64_el0_ctx +
 * TPIDR_EL1 * EL0_CTX): each CPU can be inside a64_el0_run on its own
 * stack.
 */
	.equ	EL0_CTX, 112
	.global	a64_el0_run
a64_el0_run:
	adrp	x9, a64_el0_ctx
	add	x9, x9, :lo12:a64_el0_ctx
	mrs	x10, tpidr_el1
	mov	x11, #EL0_CTX
	madd	x9, x10, x11, x9
	stp	x19, x20, [x9, #0]
	stp	x21, x22, [x9, #16]
	stp	x23, x24, [x9, #32]
	stp	x25, x26, [x9, #48]
	stp	x27, x28, [x9, #64]
	stp	x29, x30, [x9, #80]
	mov	x10, sp
	mrs	x11, daif
	stp	x10, x11, [x9, #96]
	msr	daifset, #8		/* D: no step of this code once SS is set */
	msr	mdscr_el1, x4
	msr	elr_el1, x1
	mov	x10, #0x1c0		/* EL0t, A I F masked (D is irrelevant from EL0) */
	orr	x10, x10, x2
	msr	spsr_el1, x10
	mov	x30, x3
	isb
	eret

a64_el0_back:
	/* PSTATE.D = 1 (exception entry): clear MDSCR_EL1.SS before the
	 * restored DAIF could let a step exception through. */
	mrs	x9, mdscr_el1
	bic	x9, x9, #1
	msr	mdscr_el1, x9
	isb
	adrp	x9, a64_el0_ctx
	add	x9, x9, :lo12:a64_el0_ctx
	mrs	x10, tpidr_el1
	mov	x11, #EL0_CTX
	madd	x9, x10, x11, x9
	ldp	x19, x20, [x9, #0]
	ldp	x21, x22, [x9, #16]
	ldp	x23, x24, [x9, #32]
	ldp	x25, x26, [x9, #48]
	ldp	x27, x28, [x9, #64]
	ldp	x29, x30, [x9, #80]
	ldp	x10, x11, [x9, #96]
	mov	sp, x10
	msr	daif, x11
	isb
	ret

/*
 * a64_el1_run(x0 = operand, x1 = pc, x2 = SPSR, x4 = MDSCR) -> x0: eret to
 * the EL1 instruction at pc with SPSR = x2 (EL1h, A I F masked, D and SS
 * as the scenario has them) and x30 = the label below, so that the
 * instruction's routine (or an `exec` target's `ret`) comes back here; so
 * does a debug exception that must not return to it (a64_exception() sets
 * ELR to x30).  MDSCR_EL1 is written with x4 while PSTATE.D = 1 (this code
 * is never stepped) and its SS bit cleared again on the way out; DAIF is
 * restored.  Returns x0 as the routine left it (the MRS routines' value).
 */
	.global	a64_el1_run
a64_el1_run:
	stp	x29, x30, [sp, #-16]!
	mrs	x9, daif
	str	x9, [sp, #-16]!
	msr	daifset, #8
	msr	mdscr_el1, x4
	isb
	msr	elr_el1, x1
	msr	spsr_el1, x2
	adr	x30, 1f
	eret
1:	msr	daifset, #8
	mrs	x9, mdscr_el1
	bic	x9, x9, #1
	msr	mdscr_el1, x9
	isb
	ldr	x9, [sp], #16
	msr	daif, x9
	isb
	ldp	x29, x30, [sp], #16
	ret

/* a64_semihost(op, param): AArch64 semihosting call. */
	.global	a64_semihost
a64_semihost:
	hlt	#0xf000
	ret

/* ------------------------------------------------------------------ */
/* The access routines: x0 = address.  EL1 ones end with ret, EL0 ones  */
/* (in .el0text, mapped EL0-executable) with svc #0.  Order: r1 r2 r4   */
/* r8 r16 r32 r64 w1 w2 w4 w8 w16 w32 w64 zero exec.                   */
/* ------------------------------------------------------------------ */
.macro	ACCESSES end
	.balign	16
	ldrb	w9, [x0]
	\end
	.balign	16
	ldrh	w9, [x0]
	\end
	.balign	16
	ldr	w9, [x0]
	\end
	.balign	16
	ldr	x9, [x0]
	\end
	.balign	16
	ldp	x9, x10, [x0]
	\end
	.balign	16
	ld1	{v0.2d, v1.2d}, [x0]
	\end
	.balign	16
	ld1	{v0.2d, v1.2d, v2.2d, v3.2d}, [x0]
	\end
	.balign	16
	strb	wzr, [x0]
	\end
	.balign	16
	strh	wzr, [x0]
	\end
	.balign	16
	str	wzr, [x0]
	\end
	.balign	16
	str	xzr, [x0]
	\end
	.balign	16
	stp	xzr, xzr, [x0]
	\end
	.balign	16
	st1	{v0.2d, v1.2d}, [x0]
	\end
	.balign	16
	st1	{v0.2d, v1.2d, v2.2d, v3.2d}, [x0]
	\end
	.balign	16
	dc	zva, x0
	\end
	.balign	16
	mov	x9, x30
	blr	x0
	mov	x30, x9
	\end
.endm

	.text
	.balign	16
	.global	a64_acc_el1
a64_acc_el1:
	ACCESSES ret

	.section .el0text, "ax"
	.balign	16
	.global	a64_acc_el0
a64_acc_el0:
	ACCESSES "svc #0"

/*
 * `brk IMM`: one `brk #n` for every immediate (a64_brk_table + 4 * n), and
 * `get NAME`: one `mrs x0, <reg>; ret` per register (8 bytes each; order
 * DBGBVR0..15, DBGBCR0..15, DBGWVR0..15, DBGWCR0..15, MDSCR_EL1,
 * OSLSR_EL1).  Both in .el0text: executable at EL0 and EL1, and never
 * written (no code to patch, no I-cache maintenance).
 */
	.section .el0text, "ax"
	.balign	16
	.global	a64_brk_table
a64_brk_table:
	.set	brkn, 0
	.rept	65536
	brk	#brkn
	.set	brkn, brkn + 1
	.endr

.macro	MRS_ENTRY reg
	.balign	8
	mrs	x0, \reg
	ret
.endm
	.balign	16
	.global	a64_mrs_table
a64_mrs_table:
	.irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	MRS_ENTRY dbgbvr\n\()_el1
	.endr
	.irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	MRS_ENTRY dbgbcr\n\()_el1
	.endr
	.irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	MRS_ENTRY dbgwvr\n\()_el1
	.endr
	.irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	MRS_ENTRY dbgwcr\n\()_el1
	.endr
	MRS_ENTRY mdscr_el1
	MRS_ENTRY oslsr_el1

/* The code arena C: 64 KiB, every instruction slot `ret`. */
	.section .arena_c, "ax"
	.balign	65536
	.global	a64_arena_c
a64_arena_c:
	.rept	16384
	ret
	.endr

	.bss
	.balign	16
a64_el0_ctx:
	.space	EL0_CTX * 8		/* A64_MAX_CPUS (smp.h) */
