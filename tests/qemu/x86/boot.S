/* SPDX-License-Identifier: MIT */
/*
 * x86_64 bare-metal harness: multiboot (v1) entry in 32-bit protected mode,
 * identity-mapped page tables (2 MiB pages, the first 4 GiB), PAE + long
 * mode, a flat GDT, then 64-bit code: the IDT entry stubs, the debug
 * register accessors with fault fix-ups, and the access stubs.
 */
#define MB_MAGIC 0x1badb002
#define MB_FLAGS 0x00000003          /* page-aligned modules, memory info */

#define CR0_PE (1 << 0)
#define CR0_MP (1 << 1)
#define CR0_EM (1 << 2)
#define CR0_PG (1 << 31)
#define CR4_PAE (1 << 5)
#define CR4_OSFXSR (1 << 9)
#define CR4_OSXMMEXCPT (1 << 10)
#define MSR_EFER 0xc0000080
#define LOWWIN_PHYS 0x1000000         /* RAM behind 0xA0000-0xFFFFF (kernel.c) */
#define EFER_LME (1 << 8)
/*
 * Every page present, writable and user (US): ring 3 (`mode cpl=3`) runs
 * the same access stubs on the same arenas.  CR4 leaves SMEP and SMAP
 * off, so ring 0 reaches user pages as before.
 */
#define PTE_FLAGS 0x7

	.section .multiboot, "a"
	.balign 4
	.long MB_MAGIC
	.long MB_FLAGS
	.long -(MB_MAGIC + MB_FLAGS)

/* ------------------------------------------------------------ 32-bit */
	.section .boot, "ax"
	.code32
	.globl _start
_start:
	cli
	movl $boot_stack_top, %esp

	/* PML4[0] -> PDPT; PDPT[0..3] -> PD0..PD3; PDn: 512 x 2 MiB. */
	movl $pdpt, %eax
	orl $PTE_FLAGS, %eax
	movl %eax, pml4
	movl $0, pml4 + 4

	movl $pd, %eax
	orl $PTE_FLAGS, %eax
	xorl %ecx, %ecx
1:	movl %eax, pdpt(,%ecx,8)
	movl $0, pdpt + 4(,%ecx,8)
	addl $0x1000, %eax
	incl %ecx
	cmpl $4, %ecx
	jb 1b

	/* 2048 entries: address i << 21, present | writable | user | PS. */
	xorl %ecx, %ecx
2:	movl %ecx, %eax
	shll $21, %eax
	orl $(PTE_FLAGS | 0x80), %eax
	movl %eax, pd(,%ecx,8)
	movl %ecx, %eax
	shrl $11, %eax                  /* high dword: (i << 21) >> 32 */
	movl %eax, pd + 4(,%ecx,8)
	incl %ecx
	cmpl $2048, %ecx
	jb 2b

	/*
	 * The first 2 MiB in 4 KiB pages: identity, except the legacy window
	 * 0xA0000-0xFFFFF (VGA hole, option and BIOS ROMs), which maps to RAM
	 * at LOWWIN_PHYS that kmain fills with 0xC3, so that scenario accesses
	 * at those absolute addresses (and `exec` there) hit plain RAM.
	 */
	movl $pt_low, %eax
	orl $PTE_FLAGS, %eax
	movl %eax, pd
	movl $0, pd + 4
	xorl %ecx, %ecx
4:	movl %ecx, %eax
	shll $12, %eax
	cmpl $0xa0, %ecx
	jb 5f
	cmpl $0x100, %ecx
	jae 5f
	addl $(LOWWIN_PHYS - 0xa0000), %eax
5:	orl $PTE_FLAGS, %eax
	movl %eax, pt_low(,%ecx,8)
	movl $0, pt_low + 4(,%ecx,8)
	incl %ecx
	cmpl $512, %ecx
	jb 4b

	movl $pml4, %eax
	movl %eax, %cr3

	/* CR4: PAE and SSE (for 16-byte accesses); DE stays clear. */
	movl $(CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT), %eax
	movl %eax, %cr4

	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	wrmsr

	movl %cr0, %eax
	andl $~CR0_EM, %eax
	orl $(CR0_PE | CR0_MP | CR0_PG), %eax
	movl %eax, %cr0

	lgdt gdt_ptr
	ljmp $0x08, $long_entry

/* ------------------------------------------------------------ 64-bit */
	.code64
long_entry:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movw %ax, %fs
	movw %ax, %gs
	movq $boot_stack_top, %rsp
	xorl %ebp, %ebp
	/* The multiboot info pointer (EBX, untouched since entry) as kmain's
	 * argument: the tracer demo kernel reads its command line. */
	movl %ebx, %edi
	call kmain
3:	hlt
	jmp 3b

	.section .data
	.balign 16
	.globl x86_gdt
x86_gdt:
gdt:
	.quad 0
	.quad 0x00af9a000000ffff        /* 0x08: 64-bit code, DPL 0 */
	.quad 0x00cf92000000ffff        /* 0x10: data, DPL 0 */
	.quad 0x00cff2000000ffff        /* 0x18: data, DPL 3 (user SS 0x1b) */
	.quad 0x00affa000000ffff        /* 0x20: 64-bit code, DPL 3 (user CS 0x23) */
	.skip 16 * 8                    /* 0x28 + 16 * CPU: each CPU's TSS (x86_user_init) */
gdt_end:
gdt_ptr:
	.word gdt_end - gdt - 1
	.long gdt

	.section .bss
	.balign 4096
pml4:	.skip 4096
pdpt:	.skip 4096
pd:	.skip 4096 * 4
pt_low:	.skip 4096
	.balign 16
	.globl boot_stack_top
boot_stack:
	.skip 65536
boot_stack_top:

/* ------------------------------------------------------------ IDT stubs */
/*
 * Each vector: push a dummy error code when the CPU pushes none, push the
 * vector, save the GPRs and call x86_exception(struct x86_frame *).
 */
	.text
	.code64
.macro VEC n
	.balign 16
vec_\n:
	.if (\n == 8 || (\n >= 10 && \n <= 14) || \n == 17 || \n == 21 || \n == 29 || \n == 30)
	.else
	pushq $0
	.endif
	pushq $\n
	jmp exc_common
.endm

	.globl x86_vectors
x86_vectors:
	.altmacro
	.set i, 0
	.rept 256
	VEC %i
	.set i, i + 1
	.endr
	.noaltmacro

exc_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, %rdi
	cld
	call x86_exception
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp
	iretq

/* ------------------------------------------------------------ fix-ups */
/*
 * An instruction that may fault (MOV DRn: #DB general detect, #UD, #GP;
 * WRMSR: #GP) is listed in x86_fixup as (instruction, continuation): the
 * exception handler stores the vector in x86_fixup_vec and resumes at the
 * continuation.  Each helper returns the vector (0: no fault) in %eax and,
 * for reads, the value through *%rsi.
 */
.macro FIXUP insn, cont
	.pushsection x86_fixup, "a"
	.quad \insn, \cont
	.popsection
.endm

.macro DR_TO n
	.globl hwbp_x86_movdr_to\n
hwbp_x86_movdr_to\n:
	movl $0, x86_fixup_vec(%rip)
1:	movq %rdi, %dr\n
2:	movl x86_fixup_vec(%rip), %eax
	ret
	FIXUP 1b, 2b
.endm

.macro DR_FROM n
	.globl hwbp_x86_movdr_from\n
hwbp_x86_movdr_from\n:
	movl $0, x86_fixup_vec(%rip)
	xorl %eax, %eax
1:	movq %dr\n, %rax
	movq %rax, (%rdi)
2:	movl x86_fixup_vec(%rip), %eax
	ret
	FIXUP 1b, 2b
.endm

	DR_TO 0
	DR_TO 1
	DR_TO 2
	DR_TO 3
	DR_TO 4
	DR_TO 5
	DR_TO 6
	DR_TO 7
	DR_FROM 0
	DR_FROM 1
	DR_FROM 2
	DR_FROM 3
	DR_FROM 4
	DR_FROM 5
	DR_FROM 6
	DR_FROM 7

/* int x86_wrmsr_safe(uint32_t msr, uint64_t value) */
	.globl x86_wrmsr_safe
x86_wrmsr_safe:
	movl $0, x86_fixup_vec(%rip)
	movl %edi, %ecx
	movl %esi, %eax
	movq %rsi, %rdx
	shrq $32, %rdx
1:	wrmsr
2:	movl x86_fixup_vec(%rip), %eax
	ret
	FIXUP 1b, 2b

/* ------------------------------------------------------------ accesses */
/*
 * One instruction per access, the address in %rdi.  Stores write 0xC3
 * bytes, so a store into the code arena keeps it all `ret`.
 */
	.globl acc_read1, acc_read2, acc_read4, acc_read8, acc_read16
	.globl acc_write1, acc_write2, acc_write4, acc_write8, acc_write16
	.globl acc_in1, acc_in2, acc_in4
acc_read1:
	movzbl (%rdi), %eax
	ret
acc_read2:
	movzwl (%rdi), %eax
	ret
acc_read4:
	movl (%rdi), %eax
	ret
acc_read8:
	movq (%rdi), %rax
	ret
acc_read16:
	movdqu (%rdi), %xmm0
	ret
acc_write1:
	movb $0xc3, (%rdi)
	ret
acc_write2:
	movw $0xc3c3, (%rdi)
	ret
acc_write4:
	movl $0xc3c3c3c3, (%rdi)
	ret
acc_write8:
	movq $0xc3c3c3c3c3c3c3c3, %rax
	movq %rax, (%rdi)
	ret
acc_write16:
	movq $0xc3c3c3c3c3c3c3c3, %rax
	movq %rax, %xmm0
	punpcklqdq %xmm0, %xmm0
	movdqu %xmm0, (%rdi)
	ret
acc_in1:
	movl %edi, %edx
	inb %dx, %al
	ret
acc_in2:
	movl %edi, %edx
	inw %dx, %ax
	ret
acc_in4:
	movl %edi, %edx
	inl %dx, %eax
	ret

/*
 * uint64_t x86_flags_call(uint64_t target, uint64_t arg, uint64_t orflags)
 * Enter @target (an access stub, a `ret` in the code arena, or step.c's
 * generated instruction) through an IRETQ frame whose RFLAGS has @orflags
 * added (RF: its first instruction runs with RFLAGS.RF = 1, Intel SDM Vol.
 * 3 §17.3.1.1; TF: it is single-stepped, §17.3.1.4); it returns to
 * x86_flags_back, here, with the target's %rax.  The target gets @arg in
 * %rdi and x86_code_rsi/_rdx/_rcx in those registers (step.c's operands),
 * set before the IRETQ so that no instruction of ours is stepped.
 */
	.globl x86_flags_call, x86_flags_back
x86_flags_call:
	pushq %rbp
	movq %rsp, %rbp
	andq $-16, %rsp
	leaq x86_flags_back(%rip), %rax
	pushq %rax                      /* the target's `ret` comes back here */
	movq %rsp, %rax
	pushq $0x10                     /* SS */
	pushq %rax                      /* RSP */
	pushfq
	orq %rdx, (%rsp)                /* RF, TF */
	pushq $0x08                     /* CS */
	pushq %rdi                      /* RIP */
	movq %rsi, %rdi
	movq x86_code_rsi(%rip), %rsi
	movq x86_code_rdx(%rip), %rdx
	movq x86_code_rcx(%rip), %rcx
	iretq
x86_flags_back:
	movq %rbp, %rsp
	popq %rbp
	ret

/*
 * uint64_t x86_user_call(uint64_t target, uint64_t arg, uint64_t rflags)
 * Run @target(@arg) in ring 3 (`mode cpl=3`): an IRETQ into it with the
 * user selectors, @rflags (RF, TF, IOPL as the access needs) and the user
 * stack, whose top holds the return address x86_user_exit.  That stub's
 * INT 0x81 (a DPL 3 gate) enters kernel.c's handler, which IRETQs to
 * x86_user_back in ring 0 on the stack saved here (x86_user_ret_rsp).
 * Callee-saved registers are kept across the round trip.
 */
	.globl x86_user_call, x86_user_exit, x86_user_back
x86_user_call:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, x86_user_ret_rsp(%rip)
	leaq user_stack_top(%rip), %rax
	subq $8, %rax
	leaq x86_user_exit(%rip), %rcx
	movq %rcx, (%rax)               /* the target's `ret` goes there */
	pushq $0x1b                     /* SS: user data, RPL 3 */
	pushq %rax                      /* RSP */
	pushq %rdx                      /* RFLAGS */
	pushq $0x23                     /* CS: user code, RPL 3 */
	pushq %rdi                      /* RIP */
	movq %rsi, %rdi
	movq x86_code_rsi(%rip), %rsi   /* step.c's operands, as x86_flags_call */
	movq x86_code_rdx(%rip), %rdx
	movq x86_code_rcx(%rip), %rcx
	iretq
x86_user_exit:
	int $0x81
	ud2
x86_user_back:
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret

	.section .bss
	.balign 16
	.globl x86_code_rsi, x86_code_rdx, x86_code_rcx
x86_code_rsi:
	.skip 8
x86_code_rdx:
	.skip 8
x86_code_rcx:
	.skip 8
	.globl x86_user_ret_rsp
x86_user_ret_rsp:
	.skip 8
	.balign 16
user_stack:
	.skip 16384
user_stack_top:
	.balign 16
	.globl x86_ring0_stack_top
ring0_stack:
	.skip 16384
x86_ring0_stack_top:

/* ------------------------------------------------------------ APs */
/*
 * The application processors' start (smp.c sends INIT-SIPI-SIPI, Intel
 * SDM Vol. 3 §8.4.4): x86_ap_tramp is copied to X86_AP_TRAMP (SIPI vector
 * X86_AP_TRAMP >> 12) and entered in real mode at CS:IP = 0800:0000.  It
 * needs no stack: to 32-bit protected mode through its own GDT, then the
 * BSP's path to long mode (the same page tables, EFER.LME, paging, the
 * kernel's GDT) and a far jump to ap_long in the kernel's own text.
 */
#define X86_AP_TRAMP 0x8000
#define TR(x) (X86_AP_TRAMP + ((x) - x86_ap_tramp))
	.text
	.globl x86_ap_tramp, x86_ap_tramp_end
	.code16
x86_ap_tramp:
	cli
	movw %cs, %ax
	movw %ax, %ds
	lgdtl ap_gdt_ptr - x86_ap_tramp
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $0x08, $TR(ap_pm32)
	.code32
ap_pm32:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl $pml4, %eax
	movl %eax, %cr3
	movl $(CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT), %eax
	movl %eax, %cr4
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	wrmsr
	movl %cr0, %eax
	andl $~CR0_EM, %eax
	orl $(CR0_PE | CR0_MP | CR0_PG), %eax
	movl %eax, %cr0
	lgdt gdt_ptr
	ljmp $0x08, $ap_long
	.balign 8
ap_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff        /* 0x08: 32-bit code */
	.quad 0x00cf92000000ffff        /* 0x10: data */
ap_gdt_ptr:
	.word ap_gdt_ptr - ap_gdt - 1
	.long TR(ap_gdt)
x86_ap_tramp_end:

	.code64
/* An AP in long mode: its stack from its local APIC ID (ap_stacks, 16 KiB
 * each), then x86_ap_main(id), which never returns. */
ap_long:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movw %ax, %fs
	movw %ax, %gs
	movl $0xfee00020, %edx          /* the local APIC's ID register */
	movl (%rdx), %edi
	shrl $24, %edi
	leal 1(%rdi), %eax
	shll $14, %eax
	leaq ap_stacks(%rip), %rsp
	addq %rax, %rsp
	xorl %ebp, %ebp
	call x86_ap_main
4:	cli
	hlt
	jmp 4b

	.section .bss
	.balign 16
ap_stacks:
	.skip 16384 * 8

	.section .note.GNU-stack, "", @progbits
