/* SPDX-License-Identifier: MIT */
/*
 * The PC platform pieces both x86_64 kernels use (kernel.c: the scenario
 * harness; trace_kernel.c: the tracer's demo kernel): port I/O, COM1,
 * the IDT over boot.S's vectors, and the isa-debug-exit port.
 */
#ifndef HWBP_X86_PLATFORM_H
#define HWBP_X86_PLATFORM_H

#include <stdint.h>

#define COM1 0x3f8
#define DEBUG_EXIT_PORT 0xf4
#define EXIT_BIAS 32

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

/* COM1 at 115200 8N1, FIFO on, no interrupts. */
void x86_serial_init(void);
/* One character, waiting (bounded) for the transmitter. */
void x86_serial_putc(char c);
/* An IDT of 256 interrupt gates over boot.S's x86_vectors (DPL 0 but
 * X86_VEC_USER_EXIT and X86_VEC_BP, DPL 3: INT3 from ring 3 is #BP, not
 * #GP, SDM Vol. 3 §6.12.1.1). */
#define X86_VEC_BP 3
void x86_idt_init(void);

/* Ring 3 (boot.S's GDT): user code and data selectors (RPL 3), the TSS,
 * and the vector whose INT leaves ring 3 (x86_user_call). */
#define X86_SEL_UCODE 0x23
#define X86_SEL_UDATA 0x1b
#define X86_SEL_TSS(cpu) (0x28 + 16 * (cpu))
#define X86_VEC_USER_EXIT 0x81
/* Fill CPU @cpu's TSS descriptor and load it (on that CPU): RSP0, the
 * stack for traps from ring 3. */
void x86_user_init(unsigned cpu);
/* Load the IDT x86_idt_init() built (on another CPU). */
void x86_idt_load(void);
/*
 * isa-debug-exit: QEMU exits with (value << 1) | 1.  The value is
 * code + EXIT_BIAS so that QEMU's own failure status (1) never reads as
 * success: run.sh maps status 2 * (code + 32) + 1 back to code.
 * Disarms the debug registers first (arch/x86/glue.c).
 */
__attribute__((noreturn)) void x86_debug_exit(int code);

#endif /* HWBP_X86_PLATFORM_H */
