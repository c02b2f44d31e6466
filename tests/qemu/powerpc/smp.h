/* SPDX-License-Identifier: MIT */
/*
 * The ppc64 harness's other hardware threads (smp.c): which threads the
 * machine has (skiboot's device tree), their start (OPAL_START_CPU), the
 * per-thread data every interrupt entry reaches through SPRG0, and
 * running a function on one thread by hypervisor doorbell (msgsnd).
 * Included by start.S too (__ASSEMBLER__: the offsets only).
 */
#ifndef HWBP_PPC_SMP_H
#define HWBP_PPC_SMP_H

#define PPC_MAX_CPUS 8          /* = HWBP_PPC_GLUE_MAX_CPUS = HARNESS_MAX_CPUS */

/* SPRG0 (SPR 272) holds this thread's struct ppc_percpu (real = effective
 * address: the first 1 GiB is mapped 1:1).  A privileged SPR, so the
 * entries reach it in MSR[HV] = 0 state too (mode hv=0); skiboot does
 * not use it (its own per-thread pointer is r13/HSPRG). */
#define PPC_SPRG_PERCPU 272

/* struct ppc_percpu, as start.S addresses it (checked in smp.c). */
#define PCPU_HIT 0              /* vec, srr0, srr1, dsisr, dar, count */
#define PCPU_STACK 48           /* top of this thread's stack */
#define PCPU_EXC_STACK 56       /* top of its unexpected-interrupt stack */
#define PCPU_INDEX 64           /* its CPU number, 0..ncpus-1 */
#define PCPU_PIR 72             /* its PIR (the OPAL server number) */
#define PCPU_HIT_CR 80          /* hit_common's save of the interrupted CR */
#define PCPU_MC_SAVE 128        /* ppc_mode_call's saved context, 24 words */
#define PCPU_SIZE 384

#ifndef __ASSEMBLER__
#include <stdint.h>

struct ppc_percpu {
	/* written by start.S hit_common on a debug interrupt */
	volatile uint64_t hit_vec, hit_srr0, hit_srr1, hit_dsisr, hit_dar, hit_count;
	uint64_t stack_top, exc_stack_top, index, pir;
	uint64_t hit_cr;
	uint64_t pad[5];
	uint64_t mc_save[24];
	uint64_t pad2[8];
};

/* This thread's data (SPRG0) and CPU number. */
struct ppc_percpu *ppc_this_percpu(void);
unsigned ppc_this_cpu(void);
/* CPU @cpu's data (below ppc_ncpus()). */
struct ppc_percpu *ppc_percpu_of(unsigned cpu);

/*
 * CPU 0's part, in real mode before kmain() maps memory: its per-thread
 * data into SPRG0, and the threads of the device tree at @fdt.
 */
void ppc_smp_early(const void *fdt);

/*
 * Start every other thread the device tree lists (at most PPC_MAX_CPUS
 * in all) with OPAL_START_CPU, one at a time; each sets up its own
 * registers with @thread_init (translation, LPCR, debug SPRs: what CPU 0
 * did for itself) and waits in `stop` for a doorbell.  Returns the CPUs
 * online, CPU 0 included.
 */
unsigned ppc_smp_init(void (*thread_init)(void));

/* The CPUs ppc_smp_init() brought up (1 before it). */
unsigned ppc_ncpus(void);

/*
 * Run fn(arg) on @cpu and return its value: a direct call on this CPU,
 * else a hypervisor doorbell to its PIR and a wait for the call's end.
 * Only CPU 0 calls it, one call at a time.  -EINVAL for no such CPU,
 * -ETIMEDOUT if the call did not end within 20 s of timebase.
 */
int ppc_smp_call(unsigned cpu, int (*fn)(void *), void *arg);

/* start.S */
void ppc_secondary_entry(void);
__attribute__((noreturn)) void ppc_idle(void);
/* smp.c, entered from start.S */
__attribute__((noreturn)) void ppc_secondary_main(void);
__attribute__((noreturn)) void ppc_smp_doorbell(void);
/* kernel.c: the MSR the harness runs C with (start.S's doorbell entry) */
extern uint64_t ppc_kernel_msr;
#endif

#endif /* HWBP_PPC_SMP_H */
