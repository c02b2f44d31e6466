/* SPDX-License-Identifier: MIT */
/* PC platform pieces shared by the x86_64 kernels (see platform.h). */
#include "platform.h"

#include "glue.h"

/* boot.S: 256 entry points, 16 bytes apart. */
extern char x86_vectors[];

void x86_serial_init(void)
{
	outb(COM1 + 1, 0x00);   /* no interrupts */
	outb(COM1 + 3, 0x80);   /* DLAB */
	outb(COM1 + 0, 0x01);   /* 115200 */
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03);   /* 8N1 */
	outb(COM1 + 2, 0xc7);   /* FIFO */
	outb(COM1 + 4, 0x03);
}

void x86_serial_putc(char c)
{
	for (unsigned i = 0; i < 100000 && !(inb(COM1 + 5) & 0x20); i++)
		;
	outb(COM1, (uint8_t)c);
}

struct idt_entry {
	uint16_t off0, sel;
	uint8_t ist, attr;
	uint16_t off1;
	uint32_t off2, zero;
} __attribute__((packed));

static struct idt_entry idt[256] __attribute__((aligned(16)));

void x86_idt_init(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint64_t a = (uint64_t)(uintptr_t)(x86_vectors + 16 * i);

		idt[i].off0 = (uint16_t)a;
		idt[i].sel = 0x08;
		idt[i].ist = 0;
		/* present, DPL 0, 64-bit interrupt gate; the ring-3 exit's
		 * vector DPL 3, so that INT from ring 3 may use it */
		idt[i].attr = i == X86_VEC_USER_EXIT || i == X86_VEC_BP ? 0xee : 0x8e;
		idt[i].off1 = (uint16_t)(a >> 16);
		idt[i].off2 = (uint32_t)(a >> 32);
		idt[i].zero = 0;
	}
	x86_idt_load();
}

void x86_idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) ptr;

	ptr.limit = sizeof(idt) - 1;
	ptr.base = (uint64_t)(uintptr_t)idt;
	__asm__ volatile("lidt %0" : : "m"(ptr));
}

/* The 64-bit TSS (Intel SDM Vol. 3 §8.7): only RSP0 is used, the stack
 * an exception or INT from ring 3 switches to; no I/O bitmap (its offset
 * past the limit: ring 3 reaches ports only with IOPL 3).  One TSS, one
 * descriptor per CPU (LTR marks a descriptor busy): only one CPU at a
 * time runs a scenario's access, so they can share RSP0's stack. */
static struct {
	uint32_t rsvd0;
	uint64_t rsp[3];
	uint64_t rsvd1;
	uint64_t ist[7];
	uint64_t rsvd2;
	uint16_t rsvd3, iomap;
} __attribute__((packed, aligned(16))) tss;

extern uint64_t x86_gdt[];
extern char x86_ring0_stack_top[];

void x86_user_init(unsigned cpu)
{
	uint64_t base = (uint64_t)(uintptr_t)&tss, limit = sizeof(tss) - 1;
	unsigned sel = X86_SEL_TSS(cpu);

	tss.rsp[0] = (uint64_t)(uintptr_t)x86_ring0_stack_top;
	tss.iomap = sizeof(tss);
	/* A system descriptor of 16 bytes (§8.2.3): type 9 (available
	 * 64-bit TSS), present, DPL 0. */
	x86_gdt[sel / 8] = (limit & 0xffff) | (base & 0xffffff) << 16 | 0x89ull << 40 |
			   ((limit >> 16) & 0xf) << 48 | ((base >> 24) & 0xff) << 56;
	x86_gdt[sel / 8 + 1] = base >> 32;
	__asm__ volatile("ltr %w0" : : "r"((uint16_t)sel) : "memory");
}

__attribute__((noreturn)) void x86_debug_exit(int code)
{
	hwbp_x86_dr_reset();
	outl(DEBUG_EXIT_PORT, (uint32_t)(code + EXIT_BIAS));
	for (;;)
		__asm__ volatile("cli; hlt");
}
