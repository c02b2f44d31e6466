// SPDX-License-Identifier: MIT
/*
 * The other harts of QEMU's -M virt (rv.h), and arch_on_cpu's calls.
 *
 * Start: with -bios none every hart runs QEMU's reset vector and enters
 * _start at once (start.S), a0 = mhartid; hart 0 clears .bss and runs
 * rv_main(), the others wait for rv_go (in .data), then come here.  QEMU
 * -M virt numbers the harts of its one socket 0..N-1.
 *
 * The count of harts: the CLINT's MSIP registers (msip[h] at
 * RV_CLINT_BASE + 4 * h, bit 0 the hart's machine software interrupt
 * pending bit, mip.MSIP) exist for the harts QEMU made and read as 0
 * beyond them (hw/intc/riscv_aclint.c: an access past num_harts is a
 * guest error, reads 0, writes are dropped).  Hart 0 writes 1 to
 * msip[1], msip[2], ... and reads it back until it reads 0, writing 0
 * back each time (the raised IPI is cleared before any hart waits for
 * one), then checks that exactly those harts came up.  Chosen over the
 * DTB QEMU leaves in RAM (a1 at entry): no FDT parser.
 *
 * Calls: hart 0 puts fn/arg/target in the mailbox, `fence rw, rw` then
 * `fence w, o` (the mailbox before the device write, RISC-V unprivileged
 * ISA, "Memory Ordering Instructions"), msip[target] = 1.  The target
 * waits in WFI with mie.MSIE = 1 and mstatus.MIE = 0: the pending
 * interrupt wakes it (the privileged ISA, "Wait for Interrupt": WFI
 * resumes when an interrupt enabled in mie is pending, whatever
 * mstatus.MIE), but it is never taken as a trap: the call runs in thread
 * context, on the hart's own stack, where a trigger's breakpoint
 * exception or an ECALL traps as on hart 0.  The target clears
 * msip[self] first, then serves the mailbox (machine.c, shared with the
 * S-mode harness).
 */
#include <errno.h>
#include <stdint.h>

#include "harness.h"
#include "rv.h"

#define MIP_MSIP (1ull << 3)
#define MIE_MSIE (1ull << 3)

#define MTIME (RV_CLINT_BASE + 0xbff8)  /* the ACLINT MTIMER's mtime (virt) */
#define MTIME_HZ 10000000ull            /* virt: 10 MHz */
#define UP_TIMEOUT_S 10                 /* a hart must be up by then */

static unsigned ncpus = 1;
static volatile uint8_t up[RV_MAX_HARTS];

extern volatile uint32_t rv_go;

static inline void msip_w(unsigned hart, uint32_t v)
{
	__asm__ volatile("fence rw, rw; fence w, o" ::: "memory");
	*(volatile uint32_t *)(RV_CLINT_BASE + 4ul * hart) = v;
	__asm__ volatile("fence o, rw" ::: "memory");
}

static inline uint32_t msip_r(unsigned hart)
{
	uint32_t v = *(volatile uint32_t *)(RV_CLINT_BASE + 4ul * hart);

	__asm__ volatile("fence i, rw" ::: "memory");
	return v;
}

uint64_t rv_mtime(void)
{
	return *(volatile uint64_t *)MTIME;
}

unsigned rv_ncpus(void)
{
	return ncpus;
}

__attribute__((noreturn)) static void fatal(const char *what, unsigned hart, long v)
{
	h_printf("\n# FATAL: riscv SMP: %s (hart %u, %ld)\n", what, hart, v);
	arch_exit(3);
}

/* A secondary, from start.S once rv_go is set: M-mode, its own stack,
 * mtvec and mscratch, tp = its number. */
void rv_secondary_main(void)
{
	unsigned me = rv_this_hart();
	uint64_t mip;

	/* PMP entry 0 over all memory for S/U (harness_riscv.c does hart 0). */
	__asm__ volatile("csrw pmpaddr0, %0; csrw pmpcfg0, %1; sfence.vma"
			 : : "r"(~0ull), "r"(0x1full) : "memory");
	__asm__ volatile("csrw mie, %0" : : "r"(MIE_MSIE));
	__atomic_store_n(&up[me], 1, __ATOMIC_RELEASE);
	for (;;) {
		__asm__ volatile("csrr %0, mip" : "=r"(mip));
		if (!(mip & MIP_MSIP)) {
			__asm__ volatile("wfi" ::: "memory");
			continue;
		}
		msip_w(me, 0);
		rv_mailbox_serve(me);
	}
}

/* The wake-up: msip_w fences the mailbox before the device write. */
static void kick(unsigned hart)
{
	msip_w(hart, 1);
}

int rv_smp_call(unsigned hart, int (*fn)(void *), void *arg)
{
	return rv_mailbox_call(hart, fn, arg, kick);
}

unsigned rv_smp_init(void)
{
	unsigned n = 1, h;
	uint64_t t0;

	/* The harts QEMU made: their msip reads back what is written. */
	for (h = 1; h < RV_MAX_HARTS; h++) {
		uint32_t v;

		msip_w(h, 1);
		v = msip_r(h);
		msip_w(h, 0);
		if ((v & 1) == 0)
			break;
		n++;
	}
	/* Let them go (start.S: they fence.i after seeing it). */
	__atomic_store_n(&rv_go, 1, __ATOMIC_RELEASE);
	t0 = rv_mtime();
	for (h = 1; h < n; h++)
		while (!__atomic_load_n(&up[h], __ATOMIC_ACQUIRE))
			if (rv_mtime() - t0 > MTIME_HZ * UP_TIMEOUT_S)
				fatal("a hart whose CLINT msip exists never came up", h, 0);
	/* And no hart beyond them did (one that read msip 0 but runs). */
	for (h = n; h < RV_MAX_HARTS; h++)
		if (__atomic_load_n(&up[h], __ATOMIC_ACQUIRE))
			fatal("a hart came up beyond the CLINT's count", h, (long)n);
	ncpus = n;
	return n;
}
