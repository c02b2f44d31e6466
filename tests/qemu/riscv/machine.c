// SPDX-License-Identifier: MIT
/*
 * What the M-mode harness (smp.c, harness_riscv.c) and the S-mode one
 * (HARNESS_SBI: smp_sbi.c, harness_sbi.c) share: the console and the exit
 * (OpenSBI leaves the UART and sifive_test to S-mode: its domain's regions
 * are R/W), QEMU's order of the triggers' watchpoints (rv_moved), the
 * mailbox of arch_on_cpu's calls, and the harness.h answers that depend
 * only on the machine.  Only the wake-up differs (smp.c: the CLINT's msip; smp_sbi.c:
 * the SBI's send_ipi), passed in as a function.
 *
 * The mailbox: one call in flight (only hart 0 sends, and waits for its
 * end).  The sender writes fn/arg/target, then wakes the target, whose
 * wake-up orders the mailbox before it (each kick fences first); the
 * target clears its pending bit, then reads the mailbox (so no call is
 * lost: it was written before the bit was set), runs the call in thread
 * context on its own stack, stores the result and sets `done` (release);
 * the sender waits for `done` (acquire).
 */
#include <errno.h>
#include <stdint.h>

#include "harness.h"
#include "rv.h"

#ifdef HARNESS_SBI
#define MODEL "rv64-qemu-sbi"
#define TOO_FEW "more triggers than the firmware offers (OpenSBI on QEMU 10: 2)"
#else
#define MODEL "rv64-qemu"
#define TOO_FEW "more triggers than this hart has (QEMU 10: 2)"
#endif

#define UART_THR 0
#define UART_LSR 5
#define UART_LSR_THRE 0x20

#define TEST_PASS 0x5555u
#define TEST_FAIL 0x3333u

#define TIME_HZ 10000000ull      /* -M virt's timebase (mtime, rdtime) */
#define CALL_TIMEOUT_S 60        /* a call's end (one scenario command) */

static struct {
	int (*volatile fn)(void *);
	void *volatile arg;
	volatile unsigned target;
	volatile int ret;
	volatile int done;
} call;

void rv_mailbox_serve(unsigned me)
{
	if (call.fn && call.target == me) {
		int (*fn)(void *) = call.fn;

		call.ret = fn(call.arg);
		call.fn = 0;
		__atomic_store_n(&call.done, 1, __ATOMIC_RELEASE);
	}
}

int rv_mailbox_call(unsigned hart, int (*fn)(void *), void *arg, void (*kick)(unsigned hart))
{
	uint64_t t0;

	if (hart >= rv_ncpus())
		return -EINVAL;
	if (hart == rv_this_hart())
		return fn(arg);
	call.arg = arg;
	call.target = hart;
	call.done = 0;
	call.fn = fn;
	kick(hart);
	t0 = rv_mtime();
	while (!__atomic_load_n(&call.done, __ATOMIC_ACQUIRE)) {
		if (rv_mtime() - t0 > TIME_HZ * CALL_TIMEOUT_S) {
			h_printf("\n# FATAL: riscv SMP: a call to hart %u did not end\n", hart);
			arch_exit(3);
		}
	}
	return call.ret;
}

/* ------------------------------------------------------------------ */
/* harness.h                                                           */
/* ------------------------------------------------------------------ */
uint64_t arch_arena_b(void)
{
	return (uint64_t)__arena_b;
}

uint64_t arch_arena_c(void)
{
	return (uint64_t)__arena_c;
}

const char *arch_machine_model(void)
{
	return MODEL;
}

const char *arch_cpu_unsupported(const struct hwbp_cpu *cpu)
{
	if (cpu->arch != HWBP_ARCH_RISCV)
		return "not a RISC-V CPU";
	if (cpu->u.riscv.ntrig > rv_ntrig)
		return TOO_FEW;
	return NULL;
}

unsigned arch_ncpus(void)
{
	return rv_ncpus();
}

int arch_on_cpu(unsigned cpu, int (*fn)(void *), void *arg)
{
	return rv_smp_call(cpu, fn, arg);
}

/* ---- the console, the exit ------------------------------------------ */

void arch_putc(char c)
{
	volatile uint8_t *u = (volatile uint8_t *)RV_UART_BASE;

	if (c == '\n')
		arch_putc('\r');
	while (!(u[UART_LSR] & UART_LSR_THRE))
		;
	u[UART_THR] = (uint8_t)c;
}

void rv_puts(const char *s)
{
	while (*s)
		arch_putc(*s++);
}

void rv_puthex(uint64_t v)
{
	rv_puts("0x");
	for (int i = 60; i >= 0; i -= 4)
		arch_putc("0123456789abcdef"[(v >> i) & 0xf]);
}

/* sifive_test (QEMU hw/misc/sifive_test.c): 0x5555 exits QEMU with 0,
 * (code << 16) | 0x3333 with status code. */
__attribute__((noreturn)) void arch_exit(int code)
{
	uint32_t v = code == 0 ? TEST_PASS : ((uint32_t)(code & 0xffff) << 16) | TEST_FAIL;

	__asm__ volatile("fence rw, rw" ::: "memory");
	*(volatile uint32_t *)RV_TEST_BASE = v;
	for (;;)
		__asm__ volatile("wfi");
}

void rv_moved(struct rv_hart *p, unsigned n)
{
	if (n < HWBP_MAX_SLOTS)
		p->seq[n] = ++p->seq_now;
}
