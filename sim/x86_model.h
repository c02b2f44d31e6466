/* SPDX-License-Identifier: MIT */
/*
 * Private to the x86 model, between its two halves: the execution and the
 * model's table (sim/x86.c: access matching, #DB, resume, QEMU's
 * watchpoint list, the filter) and the register file (sim/x86_regs.c:
 * reset, set/get of a register, mode, what a MOV DRn does).  What both
 * use is here; the result helpers are static inline because the per-access
 * path uses them (sim/x86.c access_, data_trap, exec_fault).
 */
#ifndef HWBP_SIM_X86_MODEL_H
#define HWBP_SIM_X86_MODEL_H

#include <string.h>

#include "model.h"
#include <hwbp/x86.h>

/* DR7.GD, general detect (SDM §17.2.4). */
#define DR7_GD (1ull << 13)

/* CR4.DE, debugging extensions (SDM Vol. 3 §2.5). */
#define CR4_DE (1ull << 3)

static inline void clear_res(struct hwbp_sim_result *res)
{
	memset(res, 0, sizeof(*res));
	res->cls = HWBP_SIM_NONE;
}

/* Fill a #DB result with the DR6 a handler would read. */
static inline void db_result(const struct hwbpi_sim_cpu *c, enum hwbp_timing timing,
			     uint32_t slots, uint64_t ip, struct hwbp_sim_result *res)
{
	res->cls = HWBP_SIM_DB;
	res->timing = timing;
	/* Shared pool: the decoder reports every hit in data_slots. */
	res->data_slots = slots;
	res->inst_slots = 0;
	res->st.u.x86.dr6 = c->regs.u.x86.dr6;
	res->st.ip = ip;
	/* DR6 names slots, never the data address (SDM §17.2.3). */
	res->addr = 0;
	res->addr_known = false;
	hwbpi_sim_status(res, "dr6", c->regs.u.x86.dr6);
}

/* DR6.BD, BS (SDM §17.2.3). */
#define DR6_BD (1ull << 13)
#define DR6_BS (1ull << 14)

/* What an instruction starts with (sim/x86_step.c): RFLAGS.TF, and the
 * MOV SS / STI shadow it runs in (which it consumes). */
struct hwbpi_x86_start {
	bool tf;
	int shadow;
};

static inline struct hwbpi_x86_start hwbpi_sim_x86_start(struct hwbpi_sim_cpu *c)
{
	struct hwbpi_x86_start st = { c->s.x86.tf != 0, c->s.x86.shadow };

	c->s.x86.shadow = 0;
	return st;
}

/* Entry to the #DB handler: GD cleared (sim/x86.c). */
void hwbpi_sim_x86_db_entry(int profile, struct hwbpi_sim_cpu *c);

/*
 * The end of an instruction that completed (sim/x86_step.c): the data
 * breakpoint conditions it met (@en enabled slots, @b the B bits the
 * profile sets), the single step, and what a MOV SS held back, delivered
 * as one #DB trap (or held again, by a MOV SS: @movss).
 */
void hwbpi_sim_x86_end(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		       struct hwbpi_x86_start st, uint32_t en, uint32_t b, bool movss,
		       struct hwbp_sim_result *res);
/* Under the linux profile, the si_code a tracer sees of a #DB whose DR6
 * conditions are @cond (sim/x86_step.c). */
void hwbpi_sim_x86_si_code(int profile, struct hwbp_sim_result *res, uint64_t cond);
/* INT3, INT1, STI, a MOV SS (sim/x86_step.c). */
void hwbpi_sim_x86_insn(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			const struct hwbp_sim_access *a, struct hwbp_sim_result *res);
/* MOV from DRn (sim/x86_regs.c). */
int hwbpi_sim_x86_get_insn(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			   const char *name, uint64_t *value, struct hwbp_sim_result *res);

/* The register file (sim/x86_regs.c): operations of the model's table. */
void hwbpi_sim_x86_reset(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c);
int hwbpi_sim_x86_set_reg(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			  const char *name, uint64_t value, struct hwbp_sim_result *res);
int hwbpi_sim_x86_get_reg(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c,
			  const char *name, uint64_t *value);
int hwbpi_sim_x86_mode(const struct hwbp_cpu *cpu, struct hwbpi_sim_cpu *c, const char *key,
		       uint64_t value);
int hwbpi_sim_x86_priv(const struct hwbpi_sim_cpu *c);

/* QEMU's watchpoint list (sim/x86.c): what a DRn or DR7 write does to it. */
void hwbpi_sim_x86_qemu_drn_written(struct hwbpi_sim_cpu *c, unsigned n, uint64_t dr7);
void hwbpi_sim_x86_qemu_dr7_written(struct hwbpi_sim_cpu *c, uint64_t old, uint64_t new);

#endif /* HWBP_SIM_X86_MODEL_H */
