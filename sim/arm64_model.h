/* SPDX-License-Identifier: MIT */
/*
 * Private to the arm64 model, between its two halves: the execution and
 * the model's table (sim/arm64.c: enabling, watchpoint shapes, the
 * breakpoint and watchpoint exceptions, resume, the filter) and the
 * register file (sim/arm64_regs.c: reset, set/get of a register, the OS
 * lock, PSTATE.D, mode).  The execution's per-access helpers stay static
 * in sim/arm64.c: the register file needs none of them.
 */
#ifndef HWBP_SIM_ARM64_MODEL_H
#define HWBP_SIM_ARM64_MODEL_H

#include "model.h"
#include <hwbp/arm64.h>

/* The register file (sim/arm64_regs.c): operations of the model's table. */
void hwbpi_sim_arm64_reset(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c);
int hwbpi_sim_arm64_set_reg(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			    const char *name, uint64_t value, struct hwbp_sim_result *res);
void hwbpi_sim_arm64_debug_ready(struct hwbpi_sim_cpu *c);
int hwbpi_sim_arm64_get_reg(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c,
			    const char *name, uint64_t *value);
int hwbpi_sim_arm64_mode(const struct hwbp_cpu *cpu, struct hwbpi_sim_cpu *c, const char *key,
			 uint64_t value);
int hwbpi_sim_arm64_priv(const struct hwbpi_sim_cpu *c);

#endif /* HWBP_SIM_ARM64_MODEL_H */
