/* SPDX-License-Identifier: MIT */
/*
 * RISC-V (RV64) bare-metal harness: entry of every hart, the M-mode trap
 * entry (mtvec, direct mode), the trampoline that enters one scenario
 * instruction by MRET at the scenario's privilege (rv_run) and comes back
 * from its ECALL, and the instruction stubs (one access, or one CSR read,
 * each followed by `ecall`).
 *
 * QEMU -M virt -bios none starts every hart at once in M-mode at the ELF
 * entry, a0 = mhartid (its reset vector in the MROM).  tp holds this
 * hart's number for the whole run: no C code and no stub writes it
 * (freestanding, no TLS).  mscratch holds the top of this hart's trap
 * stack whenever the hart is outside the trap handler.
 *
 * Trap frame (struct rv_frame in rv.h): x0..x31 (x0's slot unused, x2 =
 * the interrupted sp), mepc, mstatus = 34 * 8 = 272 bytes.
 *
 * No compressed instructions anywhere in this file (.option norvc): the
 * stubs are 4 bytes each, so the trap handler knows every length.
 *
 * HARNESS_SBI (build.sh): the same in S-mode under OpenSBI (-bios
 * default): the boot hart enters _start at 0x80200000 (a0 = hartid), the
 * others rv_sbi_secondary through SBI HSM hart_start (a1 = their number);
 * sscratch/sepc/sstatus/stvec/SRET in place of the M-mode CSRs and MRET,
 * sstatus.SPP (U or S) in place of MPP.  A stub ends with `ebreak`, not
 * `ecall` (an S-mode ecall is an SBI call, handled by the firmware): the
 * trap entry turns a breakpoint exception AT an ebreak into cause 9, the
 * stub's return, before rv_trap() sees it (a trigger's breakpoint has
 * sepc at the access, never at an ebreak).
 */
	.option	norvc

#ifdef HARNESS_SBI
#define XSCRATCH sscratch
#define XEPC sepc
#define XSTATUS sstatus
#define XTVEC stvec
#define XRET sret
#define STUB_RET ebreak
#else
#define XSCRATCH mscratch
#define XEPC mepc
#define XSTATUS mstatus
#define XTVEC mtvec
#define XRET mret
#define STUB_RET ecall
#endif

	.equ	MAX_HARTS, 8		/* rv.h RV_MAX_HARTS */
	.equ	STACK_SHIFT, 14		/* 16 KiB stack per hart */
	.equ	TSTACK_SHIFT, 13	/* 8 KiB trap stack per hart */
	.equ	FRAME, 272
	.equ	CTX, 128		/* rv_run's saved context per hart */

	.section .text.boot, "ax"
	.global	_start
_start:
#ifdef HARNESS_SBI
	csrw	sie, zero
	csrw	sstatus, zero
	la	t0, rv_boot_hartid
	sd	a0, 0(t0)		/* in .data: before .bss is cleared */
	li	a0, 0			/* the boot hart is number 0 */
#else
	csrw	mie, zero
	csrw	mstatus, zero
	csrr	a0, mhartid
	li	t0, MAX_HARTS
	bgeu	a0, t0, 9f		/* a hart beyond the harness's: parked */
#endif
_start_common:
	mv	tp, a0
	la	sp, __stacks_top
	slli	t0, a0, STACK_SHIFT
	sub	sp, sp, t0
	la	t0, __tstacks_top
	slli	t1, a0, TSTACK_SHIFT
	sub	t0, t0, t1
	csrw	XSCRATCH, t0
	la	t0, rv_trap_entry
	csrw	XTVEC, t0
	bnez	a0, 2f
	/* Hart 0: .bss, then C. */
	la	t0, __bss_start
	la	t1, __bss_end
1:	bgeu	t0, t1, 3f
	sd	zero, 0(t0)
	addi	t0, t0, 8
	j	1b
3:	call	rv_main
9:	wfi
	j	9b

	/* The others: wait (without touching .bss, which hart 0 clears) until
	 * hart 0 says go, then fence.i (hart 0 wrote arena C) and C. */
2:	la	t0, rv_go
4:	lw	t1, 0(t0)
	bnez	t1, 5f
	nop
	j	4b
5:	fence	rw, rw
	fence.i
	call	rv_secondary_main
	j	9b

#ifdef HARNESS_SBI
	/* hart_start's entry: a0 = hartid, a1 = its number (smp_sbi.c),
	 * S-mode, satp = 0, sstatus.SIE = 0. */
	.global	rv_sbi_secondary
rv_sbi_secondary:
	csrw	sie, zero
	mv	a0, a1
	j	_start_common
#endif

/* ------------------------------------------------------------------ */
/* Trap entry                                                          */
/* ------------------------------------------------------------------ */
	.text
	.balign	4
	.global	rv_trap_entry
rv_trap_entry:
	csrrw	sp, XSCRATCH, sp	/* sp = trap stack, the scratch CSR = old sp */
	addi	sp, sp, -FRAME
	sd	x1, 8(sp)
	sd	x3, 24(sp)
	sd	x4, 32(sp)
	sd	x5, 40(sp)
	sd	x6, 48(sp)
	sd	x7, 56(sp)
	sd	x8, 64(sp)
	sd	x9, 72(sp)
	sd	x10, 80(sp)
	sd	x11, 88(sp)
	sd	x12, 96(sp)
	sd	x13, 104(sp)
	sd	x14, 112(sp)
	sd	x15, 120(sp)
	sd	x16, 128(sp)
	sd	x17, 136(sp)
	sd	x18, 144(sp)
	sd	x19, 152(sp)
	sd	x20, 160(sp)
	sd	x21, 168(sp)
	sd	x22, 176(sp)
	sd	x23, 184(sp)
	sd	x24, 192(sp)
	sd	x25, 200(sp)
	sd	x26, 208(sp)
	sd	x27, 216(sp)
	sd	x28, 224(sp)
	sd	x29, 232(sp)
	sd	x30, 240(sp)
	sd	x31, 248(sp)
	csrr	t0, XSCRATCH
	sd	t0, 16(sp)
	csrr	t0, XEPC
	sd	t0, 256(sp)
	csrr	t0, XSTATUS
	sd	t0, 264(sp)
#ifdef HARNESS_SBI
	/* A stub's `ebreak` (its return): cause 9, as an ecall from S. */
	csrr	t1, scause
	li	t2, 3
	bne	t1, t2, 1f
	ld	t0, 256(sp)
	lwu	t1, 0(t0)
	li	t2, 0x00100073		/* ebreak */
	bne	t1, t2, 1f
	li	t1, 9
	csrw	scause, t1
1:
#endif
	mv	a0, sp
	call	rv_trap			/* 0: back to the frame; 1: rv_run returns */
	bnez	a0, rv_run_back
	ld	t0, 256(sp)
	csrw	XEPC, t0
	ld	t0, 264(sp)
	csrw	XSTATUS, t0
	addi	t0, sp, FRAME
	csrw	XSCRATCH, t0
	ld	x1, 8(sp)
	ld	x3, 24(sp)
	ld	x4, 32(sp)
	ld	x5, 40(sp)
	ld	x6, 48(sp)
	ld	x7, 56(sp)
	ld	x8, 64(sp)
	ld	x9, 72(sp)
	ld	x10, 80(sp)
	ld	x11, 88(sp)
	ld	x12, 96(sp)
	ld	x13, 104(sp)
	ld	x14, 112(sp)
	ld	x15, 120(sp)
	ld	x16, 128(sp)
	ld	x17, 136(sp)
	ld	x18, 144(sp)
	ld	x19, 152(sp)
	ld	x20, 160(sp)
	ld	x21, 168(sp)
	ld	x22, 176(sp)
	ld	x23, 184(sp)
	ld	x24, 192(sp)
	ld	x25, 200(sp)
	ld	x26, 208(sp)
	ld	x27, 216(sp)
	ld	x28, 224(sp)
	ld	x29, 232(sp)
	ld	x30, 240(sp)
	ld	x31, 248(sp)
	ld	x2, 16(sp)
	XRET

/*
 * uint64_t rv_run(a0 = operand, a1 = store value, a2 = pc, a3 = priv):
 * MRET to the instruction at pc at privilege a3 (0 U, 1 S, 3 M:
 * mstatus.MPP) with a0/a1 as given and ra = rv_exec_back (an `exec`
 * target in arena C is a `ret`: it returns to that `ecall`).  The stub
 * makes its one access (or CSR read) and `ecall`s; rv_trap() then
 * returns 1 and we come back through rv_run_back to our caller with ra,
 * sp and s0..s11 restored (this hart's context, CTX bytes at rv_ctx +
 * tp * CTX) and a0 as the stub left it (a CSR read's value).  Interrupts
 * stay off throughout (mstatus.MIE = MPIE = 0).
 */
	.global	rv_run
rv_run:
	la	t0, rv_ctx
	slli	t1, tp, 7		/* CTX = 128 */
	add	t0, t0, t1
	sd	ra, 0(t0)
	sd	sp, 8(t0)
	sd	s0, 16(t0)
	sd	s1, 24(t0)
	sd	s2, 32(t0)
	sd	s3, 40(t0)
	sd	s4, 48(t0)
	sd	s5, 56(t0)
	sd	s6, 64(t0)
	sd	s7, 72(t0)
	sd	s8, 80(t0)
	sd	s9, 88(t0)
	sd	s10, 96(t0)
	sd	s11, 104(t0)
	csrw	XEPC, a2
#ifdef HARNESS_SBI
	li	t1, 0x120		/* SPP (8) and SPIE (5) */
	csrc	sstatus, t1
	andi	a3, a3, 1		/* 0 U, 1 S (M refused before: insn.c) */
	slli	t2, a3, 8
	csrs	sstatus, t2
#else
	li	t1, 0x1880		/* MPP (12:11) and MPIE (7) */
	csrc	mstatus, t1
	andi	a3, a3, 3
	slli	t2, a3, 11
	csrs	mstatus, t2
#endif
	la	ra, rv_exec_back
	XRET

	.global	rv_exec_back
rv_exec_back:
	STUB_RET

rv_run_back:
	/* sp = the trap frame of the stub's ecall (or of what ended it). */
	ld	a0, 80(sp)
	addi	t0, sp, FRAME
	csrw	XSCRATCH, t0
	la	t0, rv_ctx
	slli	t1, tp, 7
	add	t0, t0, t1
	ld	ra, 0(t0)
	ld	sp, 8(t0)
	ld	s0, 16(t0)
	ld	s1, 24(t0)
	ld	s2, 32(t0)
	ld	s3, 40(t0)
	ld	s4, 48(t0)
	ld	s5, 56(t0)
	ld	s6, 64(t0)
	ld	s7, 72(t0)
	ld	s8, 80(t0)
	ld	s9, 88(t0)
	ld	s10, 96(t0)
	ld	s11, 104(t0)
	ret

/* ------------------------------------------------------------------ */
/* Stubs: 8 bytes each, one instruction then `ecall`.                  */
/* rv_acc: a0 = address, a1 = the value to store.  Order: r1 r2 r4 r8  */
/* w1 w2 w4 w8.  rv_csr: `csrr a0, CSR` for tselect tdata1 tdata2       */
/* tdata3 tinfo tcontrol (0x7a0..0x7a5).                               */
/* ------------------------------------------------------------------ */
	.balign	8
	.global	rv_acc
rv_acc:
	lb	t0, 0(a0)
	STUB_RET
	lh	t0, 0(a0)
	STUB_RET
	lw	t0, 0(a0)
	STUB_RET
	ld	t0, 0(a0)
	STUB_RET
	sb	a1, 0(a0)
	STUB_RET
	sh	a1, 0(a0)
	STUB_RET
	sw	a1, 0(a0)
	STUB_RET
	sd	a1, 0(a0)
	STUB_RET

	.balign	8
	.global	rv_csr
rv_csr:
	csrr	a0, 0x7a0
	STUB_RET
	csrr	a0, 0x7a1
	STUB_RET
	csrr	a0, 0x7a2
	STUB_RET
	csrr	a0, 0x7a3
	STUB_RET
	csrr	a0, 0x7a4
	STUB_RET
	csrr	a0, 0x7a5
	STUB_RET

	.data
	.balign	8
	.global	rv_go
rv_go:
	.word	0		/* in .data: the others read it before .bss is clear */
	.word	0
#ifdef HARNESS_SBI
	.global	rv_boot_hartid
rv_boot_hartid:
	.dword	0
#endif

	.bss
	.balign	16
rv_ctx:
	.space	CTX * MAX_HARTS
