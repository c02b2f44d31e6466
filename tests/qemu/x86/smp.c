// SPDX-License-Identifier: MIT
/*
 * The other CPUs of QEMU's pc machine (smp.h).  Intel SDM Vol. 3 §8.4.4
 * (the MP initialisation protocol: INIT IPI, then two Startup IPIs whose
 * vector is the real-mode page of the start code) and §10.6 (the ICR:
 * delivery mode, level, destination shorthand).  The count of CPUs comes
 * from QEMU's fw_cfg (FW_CFG_NB_CPUS), not from ACPI tables.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "platform.h"
#include "smp.h"

#define LAPIC 0xfee00000ull
#define LAPIC_ID 0x020
#define LAPIC_EOI 0x0b0
#define LAPIC_SVR 0x0f0
#define LAPIC_ICR_LO 0x300
#define LAPIC_ICR_HI 0x310
#define ICR_PENDING (1u << 12)     /* delivery status: send pending */
#define ICR_ASSERT (1u << 14)
#define ICR_INIT (5u << 8)
#define ICR_STARTUP (6u << 8)
#define ICR_ALL_BUT_SELF (3u << 18)
#define SVR_ENABLE (1u << 8)

#define FW_CFG_SEL 0x510
#define FW_CFG_DATA 0x511
#define FW_CFG_NB_CPUS 0x05

#define AP_TRAMP 0x8000            /* boot.S X86_AP_TRAMP: SIPI vector 0x08 */

extern char x86_ap_tramp[], x86_ap_tramp_end[];
void x86_ap_main(unsigned id);

static volatile unsigned online = 1;
static unsigned ncpus = 1;

/* The one call in flight (only the BSP sends, and waits for its end). */
static struct {
	int (*volatile fn)(void *);
	void *volatile arg;
	volatile int ret;
	volatile int done;
} call;

static uint32_t lapic_read(unsigned reg)
{
	return *(volatile uint32_t *)(uintptr_t)(LAPIC + reg);
}

static void lapic_write(unsigned reg, uint32_t v)
{
	*(volatile uint32_t *)(uintptr_t)(LAPIC + reg) = v;
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

unsigned x86_this_cpu(void)
{
	return lapic_read(LAPIC_ID) >> 24;
}

/* The glue's CPU number (arch/x86/glue.h). */
unsigned hwbp_x86_this_cpu(void)
{
	return x86_this_cpu();
}

unsigned x86_ncpus(void)
{
	return ncpus;
}

/* Bounded: a send still pending after this many polls is reported. */
static int icr_send(uint32_t hi, uint32_t lo)
{
	lapic_write(LAPIC_ICR_HI, hi);
	lapic_write(LAPIC_ICR_LO, lo);
	for (unsigned long i = 0; i < 100000000ul; i++)
		if (!(lapic_read(LAPIC_ICR_LO) & ICR_PENDING))
			return 0;
	return -ETIMEDOUT;
}

static void spin(unsigned long n)
{
	for (volatile unsigned long i = 0; i < n; i++)
		;
}

static unsigned fw_cfg_cpus(void)
{
	uint16_t n;

	outw(FW_CFG_SEL, FW_CFG_NB_CPUS);
	n = inb(FW_CFG_DATA);
	n |= (uint16_t)(inb(FW_CFG_DATA) << 8);
	return n;
}

unsigned x86_smp_init(void)
{
	unsigned want = fw_cfg_cpus();

	if (want > X86_MAX_CPUS)
		want = X86_MAX_CPUS;
	lapic_write(LAPIC_SVR, SVR_ENABLE | 0xff);
	if (want <= 1)
		return ncpus = 1;
	memcpy((void *)(uintptr_t)AP_TRAMP, x86_ap_tramp, (size_t)(x86_ap_tramp_end - x86_ap_tramp));
	/* §8.4.4.1: INIT, then STARTUP twice (a CPU that took the first
	 * ignores the second). */
	icr_send(0, ICR_ALL_BUT_SELF | ICR_ASSERT | ICR_INIT);
	spin(1000000);
	for (int k = 0; k < 2; k++) {
		icr_send(0, ICR_ALL_BUT_SELF | ICR_ASSERT | ICR_STARTUP | (AP_TRAMP >> 12));
		spin(100000);
	}
	for (unsigned long i = 0; i < 2000000000ul && online < want; i++)
		__asm__ volatile("pause");
	return ncpus = online;
}

/* An AP, in long mode on its own stack (boot.S ap_long). */
void x86_ap_main(unsigned id)
{
	x86_idt_load();
	x86_user_init(id);
	lapic_write(LAPIC_SVR, SVR_ENABLE | 0xff);
	__atomic_fetch_add(&online, 1, __ATOMIC_SEQ_CST);
	/* Wait for X86_VEC_CALL with interrupts on: nothing else is sent
	 * to an AP (the PIC's lines go to the BSP, which keeps IF clear). */
	for (;;)
		__asm__ volatile("sti; hlt; cli" ::: "memory");
}

void x86_smp_ipi(void)
{
	int (*fn)(void *) = call.fn;

	if (fn) {
		call.ret = fn(call.arg);
		call.fn = 0;
		__atomic_store_n(&call.done, 1, __ATOMIC_RELEASE);
	}
	lapic_write(LAPIC_EOI, 0);
}

int x86_smp_call(unsigned cpu, int (*fn)(void *), void *arg)
{
	if (cpu >= ncpus)
		return -EINVAL;
	if (cpu == x86_this_cpu())
		return fn(arg);
	call.arg = arg;
	call.done = 0;
	call.fn = fn;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* A fixed IPI to one CPU by its APIC ID (physical destination). */
	if (icr_send((uint32_t)cpu << 24, ICR_ASSERT | X86_VEC_CALL))
		return -ETIMEDOUT;
	while (!__atomic_load_n(&call.done, __ATOMIC_ACQUIRE))
		__asm__ volatile("pause");
	return call.ret;
}
