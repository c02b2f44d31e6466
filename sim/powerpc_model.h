/* SPDX-License-Identifier: MIT */
/*
 * Private to the powerpc model, between its two halves: the debug units
 * (sim/powerpc.c: DABR/DAWR/CIABR matching, the DSI and the CIABR trace,
 * the filter, the model's table) and the end of an instruction
 * (sim/powerpc_trace.c: MSR[SE]/MSR[BE] tracing, the trap instruction and
 * mfspr of a debug SPR, what `resume` completes).
 */
#ifndef HWBP_SIM_POWERPC_MODEL_H
#define HWBP_SIM_POWERPC_MODEL_H

#include "model.h"

/*
 * c->mflags: the pending interrupt came before its instruction completed
 * (a DSI, QEMU's CIABR trace), so `resume`, which completes it, may owe a
 * trace interrupt of its own.
 */
#define HWBPI_PPC_PEND_COMPLETE 0x1u

/* Privilege state: 0 problem, 1 privileged non-hypervisor, 2 hypervisor. */
static inline int hwbpi_ppc_state(const struct hwbpi_sim_cpu *c)
{
	if (c->s.ppc.pr)
		return 0;
	return c->s.ppc.hv ? 2 : 1;
}

/* MSR[SE] or MSR[BE] set: every access must reach the model (refilter). */
static inline bool hwbpi_ppc_tracing(const struct hwbpi_sim_cpu *c)
{
	return c->s.ppc.se || c->s.ppc.be;
}

/* `set`/read of msr_se, msr_be and step (= msr_se): 0, or -ENOENT for
 * another name. */
int hwbpi_sim_ppc_set_flag(struct hwbpi_sim_cpu *c, const char *name, uint64_t value);
int hwbpi_sim_ppc_get_flag(const struct hwbpi_sim_cpu *c, const char *name, uint64_t *value);

/* @a completed with no other interrupt: the trace interrupt MSR[SE] or
 * MSR[BE] asks for, in *res (left NONE when none is due). */
void hwbpi_sim_ppc_completed(int profile, struct hwbpi_sim_cpu *c,
			     const struct hwbp_sim_access *a, struct hwbp_sim_result *res);

/* `trap` (tw 31,0,0): a trap-type Program interrupt. */
void hwbpi_sim_ppc_trap(struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
			struct hwbp_sim_result *res);

/* The model's get_insn: mfspr of a debug SPR in the current state. */
int hwbpi_sim_ppc_get_insn(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			   const char *name, uint64_t *value, struct hwbp_sim_result *res);

/* The model's resume. */
void hwbpi_sim_ppc_resume(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			  struct hwbp_sim_result *res);

#endif /* HWBP_SIM_POWERPC_MODEL_H */
