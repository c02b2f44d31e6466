// SPDX-License-Identifier: MIT
/*
 * The other CPUs of QEMU's -M virt (smp.h).
 *
 * Start: PSCI CPU_ON (Arm DEN 0022 "Arm Power State Coordination
 * Interface", §5.1.4 CPU_ON; function IDs in §5.1: CPU_ON SMC64
 * 0xC4000003; return codes in §5.2.2: SUCCESS 0, INVALID_PARAMETERS -2,
 * ALREADY_ON -4).  The conduit is HVC: QEMU's virt machine emulates PSCI
 * itself and, without virtualization=on (no EL2) and without secure=on
 * firmware, chooses the HVC conduit (hw/arm/virt.c machvirt_init(); the
 * DT's /psci node says method = "hvc"), and a CPU_ON'd CPU starts at the
 * highest EL the caller's CPU has, here EL1, AArch64, with the
 * context_id in x0, MMU off and PSTATE.DAIF all set (target/arm/tcg/psci.c,
 * target/arm/arm-powerctl.c arm_set_cpu_on*(): a cpu_reset() first, so
 * its debug registers, MDSCR_EL1 and OS lock are reset values).
 *
 * The count of CPUs: CPU_ON of MPIDR Aff0 = 1, 2, ... until PSCI says
 * INVALID_PARAMETERS (arm_get_cpu_by_id() found no CPU with that
 * affinity), checked against GICD_TYPER.CPUNumber.  Chosen over parsing
 * the DTB: no FDT parser in the kernel, and QEMU passes no DTB pointer to
 * an ELF that is not a Linux image (it only places the DTB at the start
 * of RAM).  HARNESS_SMP itself is not visible to the guest.
 *
 * Calls: GICv2 (Arm IHI 0048B "GIC Architecture Specification v1.0 and
 * v2.0").  The distributor is enabled once (GICD_CTLR, §4.3.1); each CPU
 * enables its own CPU interface (GICC_CTLR, §4.4.1) with the priority
 * mask open (GICC_PMR, §4.4.2) and SGI CALL_SGI's priority (the banked
 * GICD_IPRIORITYR0, §4.3.11) below it, and waits in WFI with IRQs
 * unmasked.  CPU 0 queues the call in `call` and writes GICD_SGIR
 * (§4.3.15: TargetListFilter 0 = the CPU target list in [23:16], the SGI
 * ID in [3:0]; a 32-bit write, as QEMU's hw/intc/arm_gic.c only decodes
 * it as a word) with the target's CPU interface bit; the target's IRQ
 * handler reads GICC_IAR (§4.4.4: [9:0] the interrupt ID, 1023 spurious,
 * [12:10] the sending CPU for an SGI), runs the call, writes the same
 * value to GICC_EOIR (§4.4.5) and says it is done.  SGIs 0-15 are always
 * enabled in QEMU's GICv2 (GICD_ISENABLER0's SGI bits are written as 1s
 * whatever the value, as §4.3.5 allows) and the virt machine's GIC has
 * no security extensions: every interrupt is Group 0, signalled as IRQ.
 */
#include <errno.h>
#include <stdint.h>

#include "harness.h"
#include "glue.h"
#include "smp.h"

#define GICD_CTLR 0x000
#define GICD_TYPER 0x004
#define GICD_ISENABLER0 0x100
#define GICD_IPRIORITYR0 0x400
#define GICD_ITARGETSR0 0x800
#define GICD_SGIR 0xf00
#define GICC_CTLR 0x00
#define GICC_PMR 0x04
#define GICC_IAR 0x0c
#define GICC_EOIR 0x10
#define GIC_SPURIOUS 1023u
#define CALL_SGI 1u              /* the SGI that runs a queued call */

#define PSCI_0_2_FN64_CPU_ON 0xc4000003ull
#define PSCI_SUCCESS 0
#define PSCI_INVALID_PARAMETERS (-2)

#define STACK_SIZE 16384
#define UP_TIMEOUT_S 10          /* a CPU_ON'd CPU must be up by then */
#define CALL_TIMEOUT_S 60        /* and a call done (it is one scenario command) */

/* The secondaries' stacks (CPU 0 has kernel.ld's __stack_top). */
static uint8_t stacks[A64_MAX_CPUS][STACK_SIZE] __attribute__((aligned(64)));

static unsigned ncpus = 1;
/* Each CPU's GIC CPU interface bit for GICD_SGIR's target list, written
 * by that CPU (its banked GICD_ITARGETSR byte, §4.3.12), and its
 * "I am up" flag, written last. */
static volatile uint8_t iface[A64_MAX_CPUS];
static volatile uint8_t up[A64_MAX_CPUS];

/* The one call in flight (only CPU 0 sends, and waits for its end). */
static struct {
	int (*volatile fn)(void *);
	void *volatile arg;
	volatile unsigned target;
	volatile int ret;
	volatile int done;
} call;

void a64_secondary_main(void);

static inline void w32(uint64_t a, uint32_t v)
{
	*(volatile uint32_t *)a = v;
}

static inline uint32_t r32(uint64_t a)
{
	return *(volatile uint32_t *)a;
}

static inline uint8_t r8(uint64_t a)
{
	return *(volatile uint8_t *)a;
}

/* The generic timer's virtual count and its frequency (Arm ARM D11):
 * only for the timeouts, so that a CPU that never answers is reported
 * instead of hanging until run.sh's timeout. */
static uint64_t now_ticks(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

static uint64_t ticks_per_s(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return v ? v : 62500000ull;
}

/* SMC Calling Convention (Arm DEN 0028) for a 64-bit call through HVC:
 * function ID in x0, arguments in x1..x3, result in x0; x4..x17 may be
 * clobbered by the callee. */
static int64_t psci_hvc(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fn;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;

	__asm__ volatile("hvc #0"
			 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
			 :
			 : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13",
			   "x14", "x15", "x16", "x17", "memory");
	return (int64_t)x0;
}

unsigned a64_ncpus(void)
{
	return ncpus;
}

__attribute__((noreturn)) static void fatal(const char *what, unsigned cpu, long v)
{
	h_printf("\n# FATAL: arm64 SMP: %s (CPU %u, %ld)\n", what, cpu, v);
	arch_exit(3);
}

/* This CPU's CPU interface (every register used here is banked per CPU
 * or is the CPU interface's own). */
static void gic_cpu_init(void)
{
	unsigned c = a64_this_cpu();
	uint8_t mask;

	w32(A64_GICD + GICD_ISENABLER0, 1u << CALL_SGI);
	/* Priority 0xa0 for SGIs 0-3 (lower value = higher priority), below
	 * the mask 0xf0: signalled (§3.3: priority < GICC_PMR). */
	w32(A64_GICD + GICD_IPRIORITYR0, 0xa0a0a0a0u);
	w32(A64_GICC + GICC_PMR, 0xf0);
	w32(A64_GICC + GICC_CTLR, 1);
	/* GICD_ITARGETSR7's byte for PPI 31 reads as this CPU's own
	 * interface bit (§4.3.12: the SGI/PPI fields are read-only and name
	 * the reading CPU).  QEMU: interface n = CPU n; 1 << c if RAZ. */
	mask = r8(A64_GICD + GICD_ITARGETSR0 + 31);
	iface[c] = mask ? mask : (uint8_t)(1u << c);
}

/* A secondary, from start.S with SP, VBAR_EL1 and TPIDR_EL1 set, MMU off. */
void a64_secondary_main(void)
{
	unsigned c = a64_this_cpu();

	a64_mmu_enable();
	/* Debug state as at reset (cpu_reset() did it, arch_reset() does it
	 * again per file): OS lock set, MDSCR 0, PSTATE.D 1. */
	hwbp_a64_write_mdscr(0);
	hwbp_a64_write_oslar(1);
	hwbp_a64_set_daif_d(1);
	gic_cpu_init();
	/* iface[c] (and the GIC's state) before up[c]: CPU 0 reads iface[c]
	 * only after it saw up[c]. */
	__atomic_store_n(&up[c], 1, __ATOMIC_RELEASE);
	/* Wait for CALL_SGI with IRQs unmasked.  If it became pending
	 * between the unmask and the WFI, the IRQ is taken before the WFI
	 * (an unmasked pending IRQ is taken at the next instruction
	 * boundary after the ISB), and WFI wakes on one anyway. */
	for (;;)
		__asm__ volatile("msr daifclr, #2; isb; wfi" ::: "memory");
}

/*
 * Called with IRQs (and D, A, F) masked by the exception entry.  PSTATE.D:
 * the exception entry set it (Arm ARM DDI 0487 D1, "Exception entry":
 * PSTATE.{D,A,I,F} = 1 on taking an exception to AArch64), but D is the
 * scenario's state of this CPU (`set daif_d`), which the call must see
 * and may change: the call runs with the interrupted code's D
 * (SPSR_EL1.D, bit 9) and whatever D it leaves goes back into the SPSR,
 * which ERET restores to the idle loop, so that the CPU's next call sees
 * it again.
 */
void a64_smp_irq(uint64_t *spsr)
{
	uint32_t iar = r32(A64_GICC + GICC_IAR);
	unsigned id = iar & 0x3ff;
	int (*fn)(void *);

	if (id == GIC_SPURIOUS)
		return;
	if (id != CALL_SGI)
		fatal("unexpected interrupt", a64_this_cpu(), (long)iar);
	/* The IAR read (Device) before the loads of the mailbox: the sender's
	 * DSB put its stores before the SGIR write; this DMB keeps our reads
	 * after the acknowledge. */
	__asm__ volatile("dmb ish" ::: "memory");
	fn = call.fn;
	if (fn && call.target == a64_this_cpu()) {
		int ret;

		hwbp_a64_set_daif_d((int)((*spsr >> 9) & 1));
		ret = fn(call.arg);
		*spsr = (*spsr & ~(1ull << 9)) | ((uint64_t)hwbp_a64_get_daif_d() << 9);
		call.ret = ret;
		call.fn = 0;
		/* Back to D = 1 for the rest of the handler (its own memory
		 * under a watchpoint must not trap here either). */
		hwbp_a64_set_daif_d(1);
	}
	w32(A64_GICC + GICC_EOIR, iar);
	/* The result and the EOI before `done`: CPU 0 may send the next SGI
	 * as soon as it sees it. */
	__asm__ volatile("dsb ish" ::: "memory");
	if (fn)
		__atomic_store_n(&call.done, 1, __ATOMIC_RELEASE);
}

int a64_smp_call(unsigned cpu, int (*fn)(void *), void *arg)
{
	uint64_t t0, limit;

	if (cpu >= ncpus)
		return -EINVAL;
	if (cpu == a64_this_cpu())
		return fn(arg);
	call.arg = arg;
	call.target = cpu;
	call.done = 0;
	call.fn = fn;
	/* The mailbox (Normal memory) must be observable by the target
	 * before it can take the SGI: a DSB completes the stores before the
	 * SGIR write (Device memory) that raises it is issued (a DMB would
	 * only order them as seen by other observers of memory, which the
	 * GIC's signalling is not). */
	__asm__ volatile("dsb ish" ::: "memory");
	w32(A64_GICD + GICD_SGIR, ((uint32_t)iface[cpu] << 16) | CALL_SGI);
	t0 = now_ticks();
	limit = ticks_per_s() * CALL_TIMEOUT_S;
	while (!__atomic_load_n(&call.done, __ATOMIC_ACQUIRE)) {
		if (now_ticks() - t0 > limit)
			fatal("a call by SGI did not end", cpu, 0);
		__asm__ volatile("yield");
	}
	return call.ret;
}

unsigned a64_smp_init(void)
{
	unsigned gic_cpus, c;

	/* CPU 0: the distributor (every CPU's SGIs go through it), then its
	 * own CPU interface (CPU 0 never unmasks IRQs: it only sends). */
	w32(A64_GICD + GICD_CTLR, 1);
	gic_cpu_init();
	gic_cpus = ((r32(A64_GICD + GICD_TYPER) >> 5) & 7) + 1;
	for (c = 1; c < A64_MAX_CPUS; c++) {
		uint64_t top = (uint64_t)stacks[c] + STACK_SIZE;
		uint64_t t0, limit;
		int64_t r;

		/* The new CPU runs with its MMU off until a64_mmu_enable(), its
		 * stack non-cacheable meanwhile: no line of that stack may sit
		 * in a cache, dirty (it would be written back over the CPU's
		 * stores) or stale (seen once its MMU is on).  Clean and
		 * invalidate it to the point of coherency (DC CIVAC). */
		for (uint64_t a = (uint64_t)stacks[c]; a < top; a += 64)
			__asm__ volatile("dc civac, %0" : : "r"(a) : "memory");
		__asm__ volatile("dsb sy" ::: "memory");
		r = psci_hvc(PSCI_0_2_FN64_CPU_ON, c, (uint64_t)a64_secondary_entry, top);
		if (r == PSCI_INVALID_PARAMETERS)
			break; /* no CPU with MPIDR Aff0 = c: that is all of them */
		if (r != PSCI_SUCCESS)
			fatal("PSCI CPU_ON failed", c, (long)r);
		t0 = now_ticks();
		limit = ticks_per_s() * UP_TIMEOUT_S;
		while (!__atomic_load_n(&up[c], __ATOMIC_ACQUIRE)) {
			if (now_ticks() - t0 > limit)
				fatal("a CPU started by PSCI CPU_ON never came up", c, 0);
			__asm__ volatile("yield");
		}
	}
	ncpus = c;
	if (ncpus != gic_cpus)
		fatal("PSCI and GICD_TYPER disagree on the CPU count", ncpus, (long)gic_cpus);
	return ncpus;
}
