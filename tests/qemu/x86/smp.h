/* SPDX-License-Identifier: MIT */
/*
 * The x86_64 kernels' other CPUs (smp.c): the local APIC, the APs'
 * start (INIT-SIPI-SIPI), and running a function on one CPU by IPI.
 */
#ifndef HWBP_X86_SMP_H
#define HWBP_X86_SMP_H

#define X86_MAX_CPUS 8          /* = HWBP_X86_GLUE_MAX_CPUS */
#define X86_VEC_CALL 0x40       /* the IPI that runs a function (x86_smp_call) */

/* This CPU's number: its local APIC ID (QEMU numbers them 0..N-1). */
unsigned x86_this_cpu(void);

/*
 * Start every CPU QEMU has (fw_cfg's count; at most X86_MAX_CPUS), each
 * with the BSP's page tables, GDT, IDT and its own TSS and stack, waiting
 * in HLT for X86_VEC_CALL.  Returns the CPUs online (the BSP included),
 * which is fewer than fw_cfg says only if an AP never came up.
 */
unsigned x86_smp_init(void);

/* The CPUs x86_smp_init() brought up (1 before it). */
unsigned x86_ncpus(void);

/*
 * Run fn(arg) on @cpu and return its value: a direct call on this CPU,
 * else a fixed IPI (X86_VEC_CALL) to it and a wait for its end.  Only
 * the BSP calls it (one call at a time).  -EINVAL for no such CPU.
 */
int x86_smp_call(unsigned cpu, int (*fn)(void *), void *arg);

/* The X86_VEC_CALL handler (from x86_exception): runs the call, EOI. */
void x86_smp_ipi(void);

#endif /* HWBP_X86_SMP_H */
