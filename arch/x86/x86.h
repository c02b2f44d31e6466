/* SPDX-License-Identifier: MIT */
/*
 * x86 ops of caps.c, encode.c and decode.c, for the ops table in
 * caps.c.  The register layout itself is public: <hwbp/x86.h>.
 */
#ifndef HWBP_ARCH_X86_H
#define HWBP_ARCH_X86_H

#include <hwbp/x86.h>

#include "internal.h"

/* This arch's operations (caps.c), listed by generic/arch.c. */
extern const struct hwbpi_arch_ops hwbpi_x86_ops;

void hwbpi_x86_reset(const struct hwbp_cpu *cpu, struct hwbp_regs *regs);
int hwbpi_x86_encode(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		     unsigned slot, bool inst, const struct hwbp_piece *piece,
		     enum hwbp_scope scope, bool local);
int hwbpi_x86_regs_list(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			struct hwbp_reg_nv *out, int max);
int hwbpi_x86_regs_set(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		       const char *name, uint64_t value);
int hwbpi_x86_decode_slot(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			  unsigned slot, bool inst, struct hwbp_piece *piece,
			  enum hwbp_scope *scope);
int hwbpi_x86_decode_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			    const struct hwbp_status *st, struct hwbp_hit *hit);
void hwbpi_x86_regs_apply(struct hwbp_regs *live, const struct hwbp_regs *written);
size_t hwbpi_x86_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf,
			   size_t n);
int hwbpi_x86_status_set(struct hwbp_status *st, const char *name, uint64_t value);
extern const char *const hwbpi_x86_status_fields[];

#endif /* HWBP_ARCH_X86_H */
