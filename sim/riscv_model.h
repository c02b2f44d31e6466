/* SPDX-License-Identifier: MIT */
/*
 * Private to the riscv model, between its two halves: the matching of
 * accesses, the breakpoint exception, resume and the filter (sim/riscv.c)
 * and the register file (sim/riscv_regs.c: reset, the WARL rules of
 * tselect/tdata1/tdata2/tdata3/tcontrol, tinfo, the status registers,
 * `mode priv=`).
 */
#ifndef HWBP_SIM_RISCV_MODEL_H
#define HWBP_SIM_RISCV_MODEL_H

#include "model.h"
#include <hwbp/riscv.h>

/* Privilege levels (the Privileged spec's encoding, `mode priv=`). */
#define HWBPI_RV_PRIV_U 0
#define HWBPI_RV_PRIV_S 1
#define HWBPI_RV_PRIV_M 3

/*
 * mcontrol6 as the pre-1.0 drafts lay it out (Debug spec 1.0 tinfo.version
 * = 0: "mcontrol6 has a timing bit identical to mcontrol's", hit0 behaves
 * as mcontrol.hit, hit1 read-only 0, other size encodings): size 19:16,
 * timing 20, select 21, hit 22 (QEMU debug.h TYPE6_*).  Used for type 6
 * unless the CPU is a Debug spec 1.0 one under the sdm profile.
 */
#define HWBPI_RV_MC6V0_SIZE_MASK 0xfull
#define HWBPI_RV_MC6V0_TIMING (1ull << 20)

/* textra64 (tdata3): mhvalue 63:51, mhselect 50:48 (Debug spec 1.0). */
#define HWBPI_RV_TEXTRA_MHVALUE_SHIFT 51
#define HWBPI_RV_TEXTRA_MHSELECT_SHIFT 48
#define HWBPI_RV_TEXTRA_MHSELECT_MASK 0x7ull

/* The trigger's type field. */
static inline unsigned hwbpi_rv_type(uint64_t tdata1)
{
	return (unsigned)(tdata1 >> HWBP_RISCV_TDATA1_TYPE_SHIFT) & HWBP_RISCV_TDATA1_TYPE_MASK;
}

/* Is type 6 laid out as Debug spec 1.0 says (else the version 0 draft)? */
static inline bool hwbpi_rv_mc6_v1(const struct hwbp_cpu *cpu, int profile)
{
	return cpu->u.riscv.spec == 10 && !hwbpi_quirk_on(profile, HWBPI_Q_RV_TINFO_FIXED);
}

/* Does the CPU have tcontrol?  The model gives it to Debug spec 1.0 CPUs
 * (the register is optional: Debug spec 1.0 §5.7.6). */
static inline bool hwbpi_rv_has_tcontrol(const struct hwbp_cpu *cpu)
{
	return cpu->u.riscv.spec == 10;
}

/* The number of triggers the model handles (at most HWBP_MAX_SLOTS). */
static inline unsigned hwbpi_rv_ntrig(const struct hwbp_cpu *cpu)
{
	return cpu->u.riscv.ntrig < HWBP_MAX_SLOTS ? cpu->u.riscv.ntrig : HWBP_MAX_SLOTS;
}

/* The register file (sim/riscv_regs.c): operations of the model's table. */
void hwbpi_sim_riscv_reset(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c);
int hwbpi_sim_riscv_set_reg(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			    const char *name, uint64_t value, struct hwbp_sim_result *res);
int hwbpi_sim_riscv_get_reg(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c,
			    const char *name, uint64_t *value);
int hwbpi_sim_riscv_get_insn(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			     const char *name, uint64_t *value, struct hwbp_sim_result *res);
/* A trap into M-mode (sdm): tcontrol.mpte = mte, mte = 0 (§5.7.6). */
void hwbpi_sim_riscv_trap_m(const struct hwbp_cpu *cpu, struct hwbpi_sim_cpu *c);
int hwbpi_sim_riscv_mode(const struct hwbp_cpu *cpu, struct hwbpi_sim_cpu *c, const char *key,
			 uint64_t value);
int hwbpi_sim_riscv_priv(const struct hwbpi_sim_cpu *c);
void hwbpi_sim_riscv_glue_wrote(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
				const struct hwbp_regs *old);

#endif /* HWBP_SIM_RISCV_MODEL_H */
