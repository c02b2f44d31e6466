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

/* MDSCR_EL1.SS (bit 0): software step enable (Arm ARM D2.12). */
#define HWBPI_ARM64_MDSCR_SS 1ull

/*
 * The MRS of `get` as a c->last (for resume): a private op beyond enum
 * hwbp_sim_op, the register as a code in addr (sim/arm64_step.c).
 */
#define HWBPI_ARM64_OP_MRS 0x80u

/* The model's enabling of debug exceptions from the current EL, without
 * MDE (sim/arm64.c): OS lock (as the profile sees it), KDE and PSTATE.D. */
bool hwbpi_sim_arm64_debug_allowed(int profile, const struct hwbpi_sim_cpu *c);

/*
 * Software step (sim/arm64_step.c).  step_start() is called before every
 * instruction: true when an active-pending step exception was taken
 * before it (*res filled, the instruction must not run); else *ss says
 * whether the instruction runs active-not-pending.  step_end() after it,
 * with what it raised in *res.
 */
bool hwbpi_sim_arm64_step_active(int profile, const struct hwbpi_sim_cpu *c);
bool hwbpi_sim_arm64_step_start(int profile, struct hwbpi_sim_cpu *c,
				const struct hwbp_sim_access *a, struct hwbp_sim_result *res,
				bool *ss);
void hwbpi_sim_arm64_step_end(struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
			      bool ss, struct hwbp_sim_result *res);
/* BRK #imm (sim/arm64_step.c). */
void hwbpi_sim_arm64_brk(struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
			 struct hwbp_sim_result *res);
/* The model's resume (sim/arm64_step.c), and the instruction a
 * step-before exception left to run (sim/arm64.c). */
void hwbpi_sim_arm64_resume(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			    struct hwbp_sim_result *res);
void hwbpi_sim_arm64_access(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			    const struct hwbp_sim_access *a, struct hwbp_sim_result *res);
/* MRS of a debug register (sim/arm64_step.c): the model's get_insn. */
int hwbpi_sim_arm64_get_insn(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			     const char *name, uint64_t *value, struct hwbp_sim_result *res);

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
