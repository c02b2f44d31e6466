/* SPDX-License-Identifier: MIT */
/*
 * The arm64 harness's other CPUs (smp.c): PSCI CPU_ON through HVC to
 * start them, the GICv2 distributor and CPU interfaces, and running a
 * function on one CPU by a software-generated interrupt (SGI).
 */
#ifndef HWBP_A64_SMP_H
#define HWBP_A64_SMP_H

#include <stdint.h>

#define A64_MAX_CPUS 8          /* = HARNESS_MAX_CPUS; GICv2 has 8 CPU interfaces */

/* GICv2 of QEMU's -M virt (gic-version=2, its default). */
#define A64_GICD 0x08000000ul
#define A64_GICC 0x08010000ul

/*
 * This CPU's number, 0..A64_MAX_CPUS-1: MPIDR_EL1.Aff0, which start.S
 * stores in TPIDR_EL1 on every CPU before any C runs (QEMU -M virt
 * numbers the CPUs of a GICv2 machine Aff0 = 0..7 in cluster 0).
 */
static inline unsigned a64_this_cpu(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, tpidr_el1" : "=r"(v));
	return (unsigned)v;
}

/*
 * CPU 0, once, after its MMU is on: the GIC, then CPU_ON for MPIDR
 * Aff0 = 1, 2, ... until PSCI answers INVALID_PARAMETERS (no such CPU),
 * each new CPU waited for (MMU on, GIC CPU interface on, in WFI) before
 * the next.  Returns the CPUs online, CPU 0 included.  A CPU that PSCI
 * started but that never came up, or a count that disagrees with the
 * GIC's (GICD_TYPER.CPUNumber), stops the kernel.
 */
unsigned a64_smp_init(void);

/* The CPUs a64_smp_init() brought up (1 before it). */
unsigned a64_ncpus(void);

/*
 * Run fn(arg) on @cpu and return its value: a direct call on this CPU,
 * else an SGI to it and a wait for the call's end.  Only CPU 0 sends
 * (one call at a time).  -EINVAL for no such CPU.
 */
int a64_smp_call(unsigned cpu, int (*fn)(void *), void *arg);

/*
 * The IRQ vector's handler (from a64_exception, kind 5): acknowledges the
 * GIC, runs the queued call with PSTATE.D as the interrupted code had it
 * and puts PSTATE.D back into *spsr afterwards (see smp.c), EOI.
 */
void a64_smp_irq(uint64_t *spsr);

/* harness_arm64.c: this CPU's MAIR/TCR/TTBR0/CPACR/SCTLR, the tables CPU 0 built. */
void a64_mmu_enable(void);

/* start.S: a secondary's first instruction (x0 = its stack's top). */
extern char a64_secondary_entry[];

#endif /* HWBP_A64_SMP_H */
