// SPDX-License-Identifier: MIT
/*
 * The other harts of the S-mode harness (HARNESS_SBI, in place of smp.c),
 * and arch_on_cpu's calls, through SBI: HSM (EID 0x48534D) to count and
 * start them, IPI (EID 0x735049) to wake them.
 *
 * Numbers: the boot hart (whichever OpenSBI's lottery chose; its hartid
 * in rv_boot_hartid, start.S) is 0; every other hart that hart_get_status
 * knows (hartids 0..RV_MAX_HARTS-1; -M virt numbers them from 0) gets the
 * next number, started by hart_start(hartid, rv_sbi_secondary, number):
 * it enters S-mode there with a1 = its number (SBI spec, "Hart State
 * Management Extension", HART_START).
 *
 * Calls: the mailbox (machine.c), then send_ipi(mask, base): the firmware
 * raises sip.SSIP on the target (SBI spec, "IPI Extension").  The target
 * waits in WFI with sie.SSIE = 1 and sstatus.SIE = 0: the pending
 * interrupt wakes it and is never taken (the privileged ISA, "Wait for
 * Interrupt"), so the call runs in thread context on its own stack.  It
 * clears sip.SSIP first, then reads the mailbox.
 */
#include <errno.h>
#include <stdint.h>

#include "harness.h"
#include "rv.h"

#define SIP_SSIP (1ull << 1)
#define SIE_SSIE (1ull << 1)
#define TIME_HZ 10000000ull   /* virt's timebase */
#define UP_TIMEOUT_S 10

#define SBI_HSM 0x48534Dul
#define SBI_IPI 0x735049ul
#define HSM_START 0
#define HSM_STATUS 2

extern uint64_t rv_boot_hartid;
extern volatile uint32_t rv_go;
extern char rv_sbi_secondary[];

static unsigned ncpus = 1;
static unsigned long hartid_of[RV_MAX_HARTS];
static volatile uint8_t up[RV_MAX_HARTS];

static long sbi3(unsigned long eid, unsigned long fid, unsigned long a0, unsigned long a1,
		 unsigned long a2, long *value)
{
	register unsigned long r0 __asm__("a0") = a0, r1 __asm__("a1") = a1;
	register unsigned long r2 __asm__("a2") = a2;
	register unsigned long r6 __asm__("a6") = fid, r7 __asm__("a7") = eid;

	__asm__ volatile("ecall" : "+r"(r0), "+r"(r1) : "r"(r2), "r"(r6), "r"(r7) : "memory");
	if (value)
		*value = (long)r1;
	return (long)r0;
}

uint64_t rv_mtime(void)
{
	uint64_t t;

	__asm__ volatile("rdtime %0" : "=r"(t));
	return t;
}

unsigned rv_ncpus(void)
{
	return ncpus;
}

__attribute__((noreturn)) static void fatal(const char *what, unsigned hart, long v)
{
	h_printf("\n# FATAL: riscv64-sbi SMP: %s (hart %u, %ld)\n", what, hart, v);
	arch_exit(3);
}

void rv_secondary_main(void)
{
	unsigned me = rv_this_hart();
	uint64_t sip;

	__asm__ volatile("csrw sie, %0" : : "r"(SIE_SSIE));
	__atomic_store_n(&up[me], 1, __ATOMIC_RELEASE);
	for (;;) {
		__asm__ volatile("csrr %0, sip" : "=r"(sip));
		if (!(sip & SIP_SSIP)) {
			__asm__ volatile("wfi" ::: "memory");
			continue;
		}
		__asm__ volatile("csrc sip, %0" : : "r"(SIP_SSIP) : "memory");
		rv_mailbox_serve(me);
	}
}

/* The wake-up: send_ipi(mask 1, base = the target's hartid), after a
 * fence that orders the mailbox before the ecall. */
static void kick(unsigned hart)
{
	long e;

	__asm__ volatile("fence rw, rw" ::: "memory");
	e = sbi3(SBI_IPI, 0, 1ul, hartid_of[hart], 0, NULL);
	if (e)
		fatal("send_ipi failed", hart, e);
}

int rv_smp_call(unsigned hart, int (*fn)(void *), void *arg)
{
	return rv_mailbox_call(hart, fn, arg, kick);
}

unsigned rv_smp_init(void)
{
	unsigned n = 1;
	uint64_t t0;

	hartid_of[0] = rv_boot_hartid;
	/* rv_go first: a started hart goes straight to rv_secondary_main. */
	__atomic_store_n(&rv_go, 1, __ATOMIC_RELEASE);
	for (unsigned long id = 0; id < RV_MAX_HARTS && n < RV_MAX_HARTS; id++) {
		long st, e;

		if (id == rv_boot_hartid)
			continue;
		e = sbi3(SBI_HSM, HSM_STATUS, id, 0, 0, &st);
		if (e)
			continue;   /* no such hart (SBI_ERR_INVALID_PARAM) */
		hartid_of[n] = id;
		e = sbi3(SBI_HSM, HSM_START, id, (unsigned long)rv_sbi_secondary, n, NULL);
		if (e)
			fatal("hart_start failed", n, e);
		n++;
	}
	t0 = rv_mtime();
	for (unsigned h = 1; h < n; h++)
		while (!__atomic_load_n(&up[h], __ATOMIC_ACQUIRE))
			if (rv_mtime() - t0 > TIME_HZ * UP_TIMEOUT_S)
				fatal("a started hart never came up", h, 0);
	ncpus = n;
	return n;
}
