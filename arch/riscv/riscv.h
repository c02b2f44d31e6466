/* SPDX-License-Identifier: MIT */
/*
 * RISC-V ops of caps.c, encode.c and decode.c, for the ops table in
 * caps.c, and the shapes of a piece they share.  The register layout
 * itself is public: <hwbp/riscv.h>.
 */
#ifndef HWBP_ARCH_RISCV_H
#define HWBP_ARCH_RISCV_H

#include <hwbp/riscv.h>

#include "internal.h"

/* This arch's operations (caps.c), listed by generic/arch.c. */
extern const struct hwbpi_arch_ops hwbpi_riscv_ops;

static inline bool hwbpi_riscv_has(const struct hwbp_cpu *cpu, uint32_t f)
{
	return (cpu->u.riscv.features & f) != 0;
}

/* Triggers hwbp uses: the model's, at most HWBP_MAX_SLOTS. */
static inline unsigned hwbpi_riscv_ntrig(const struct hwbp_cpu *cpu)
{
	unsigned n = cpu->u.riscv.ntrig;

	return n > HWBP_MAX_SLOTS ? HWBP_MAX_SLOTS : n;
}

/* The tdata1 type hwbp writes: mcontrol6 when every trigger has it. */
static inline unsigned hwbpi_riscv_type(const struct hwbp_cpu *cpu)
{
	return (cpu->u.riscv.tinfo >> HWBP_RISCV_TYPE_MCONTROL6) & 1u ? HWBP_RISCV_TYPE_MCONTROL6
								       : HWBP_RISCV_TYPE_MCONTROL;
}

/* log2 of the largest NAPOT range (63 when the model sets no limit). */
static inline unsigned hwbpi_riscv_maskmax(const struct hwbp_cpu *cpu)
{
	unsigned k = (cpu->u.riscv.features >> HWBP_RISCV_F_MASKMAX_SHIFT) &
		     HWBP_RISCV_F_MASKMAX_MASK;

	return k == 0 || k > 63 ? 63 : k;
}

/* A range may be one chained pair of triggers (GE start, LT end). */
static inline bool hwbpi_riscv_pairs(const struct hwbp_cpu *cpu)
{
	return hwbpi_riscv_has(cpu, HWBP_RISCV_F_CHAIN) &&
	       hwbpi_riscv_has(cpu, HWBP_RISCV_F_GE_LT) && hwbpi_riscv_ntrig(cpu) >= 2;
}

/*
 * How one trigger watches a piece (encode.c and decode.c agree).  @exec:
 * an execute piece, whose compare value is the instruction's address
 * (mcontrol select = 0), so its unit is the 2-byte parcel an instruction
 * may start at (IALIGN 16 with C).
 */
enum hwbpi_riscv_shape {
	RV_NONE = 0,   /* not one trigger */
	RV_EXACT,      /* match 0: one byte, or an execute piece's one parcel (size any) */
	RV_SIZED,      /* match 0 with size = len (F_SIZE_AS_LEN: 1, 2; 8 as size 0) */
	RV_NAPOT,      /* match 1: a naturally aligned 2^k block, 2 <= 2^k */
	RV_GE_TOP,     /* match 2 alone: [addr, 2^64) */
};

enum hwbpi_riscv_shape hwbpi_riscv_shape(const struct hwbp_cpu *cpu, bool exec, uint64_t addr,
					  uint64_t len);

/* The ops, defined in caps.c, encode.c and decode.c. */
unsigned hwbpi_riscv_piece_slots(const struct hwbp_cpu *cpu, bool inst,
				 const struct hwbp_piece *piece);
void hwbpi_riscv_reset(const struct hwbp_cpu *cpu, struct hwbp_regs *regs);
int hwbpi_riscv_encode(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		       unsigned slot, bool inst, const struct hwbp_piece *piece,
		       enum hwbp_scope scope, bool local);
int hwbpi_riscv_regs_list(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			  struct hwbp_reg_nv *out, int max);
int hwbpi_riscv_regs_set(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			 const char *name, uint64_t value);
int hwbpi_riscv_decode_slot(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			    unsigned slot, bool inst, struct hwbp_piece *piece,
			    enum hwbp_scope *scope);
int hwbpi_riscv_decode_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			      const struct hwbp_status *st, struct hwbp_hit *hit);
void hwbpi_riscv_regs_apply(struct hwbp_regs *live, const struct hwbp_regs *written);
size_t hwbpi_riscv_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf,
			     size_t n);
int hwbpi_riscv_status_set(struct hwbp_status *st, const char *name, uint64_t value);
extern const char *const hwbpi_riscv_status_fields[];

#endif /* HWBP_ARCH_RISCV_H */
