/* SPDX-License-Identifier: MIT */
/*
 * powerpc ops of caps.c, encode.c and decode.c, for the ops table in
 * caps.c.  The register layout itself is public: <hwbp/powerpc.h>.
 */
#ifndef HWBP_ARCH_POWERPC_H
#define HWBP_ARCH_POWERPC_H

#include <hwbp/powerpc.h>

#include "internal.h"

/* Functions of decode.c and encode.c that the ops table in caps.c needs. */
void hwbpi_powerpc_reset(const struct hwbp_cpu *cpu, struct hwbp_regs *regs);
int hwbpi_powerpc_encode(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			 unsigned slot, bool inst, const struct hwbp_piece *piece,
			 enum hwbp_scope scope, bool local);
int hwbpi_powerpc_regs_list(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			    struct hwbp_reg_nv *out, int max);
int hwbpi_powerpc_regs_set(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			   const char *name, uint64_t value);
int hwbpi_powerpc_decode_slot(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			      unsigned slot, bool inst, struct hwbp_piece *piece,
			      enum hwbp_scope *scope);
int hwbpi_powerpc_decode_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
				const struct hwbp_status *st, struct hwbp_hit *hit);
void hwbpi_powerpc_regs_apply(struct hwbp_regs *live, const struct hwbp_regs *written);
size_t hwbpi_powerpc_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf,
			       size_t n);
int hwbpi_powerpc_status_set(struct hwbp_status *st, const char *name, uint64_t value);
extern const char *const hwbpi_powerpc_status_fields[];


/*
 * Old names of the layout facts, for sim/powerpc.c until it includes
 * <hwbp/powerpc.h> (compatibility only; nothing in arch/ uses them).
 */
#define HWBPI_PPC_CIABR_PRIV HWBP_PPC_CIABR_PRIV
#define HWBPI_PPC_CIABR_PRIV_HYPER HWBP_PPC_CIABR_PRIV_HYPER
#define HWBPI_PPC_CIABR_PRIV_SUPER HWBP_PPC_CIABR_PRIV_SUPER
#define HWBPI_PPC_CIABR_PRIV_USER HWBP_PPC_CIABR_PRIV_USER
#define HWBPI_PPC_DABRX_BTI HWBP_PPC_DABRX_BTI
#define HWBPI_PPC_DABRX_PRIV HWBP_PPC_DABRX_PRIV
#define HWBPI_PPC_DABR_BT HWBP_PPC_DABR_BT
#define HWBPI_PPC_DABR_DR HWBP_PPC_DABR_DR
#define HWBPI_PPC_DABR_DW HWBP_PPC_DABR_DW
#define HWBPI_PPC_DAWRX_DR HWBP_PPC_DAWRX_DR
#define HWBPI_PPC_DAWRX_DW HWBP_PPC_DAWRX_DW
#define HWBPI_PPC_DAWRX_HYP HWBP_PPC_DAWRX_HYP
#define HWBPI_PPC_DAWRX_MRD_MASK HWBP_PPC_DAWRX_MRD_MASK
#define HWBPI_PPC_DAWRX_MRD_SHIFT HWBP_PPC_DAWRX_MRD_SHIFT
#define HWBPI_PPC_DAWRX_PNH HWBP_PPC_DAWRX_PNH
#define HWBPI_PPC_DAWRX_PRIV HWBP_PPC_DAWRX_PRIV
#define HWBPI_PPC_DAWRX_WT HWBP_PPC_DAWRX_WT
#define HWBPI_PPC_DAWRX_WTI HWBP_PPC_DAWRX_WTI
#define HWBPI_PPC_DSISR_DABRMATCH HWBP_PPC_DSISR_DABRMATCH
#define HWBPI_PPC_DSISR_STORE HWBP_PPC_DSISR_STORE
#define HWBPI_PPC_DW HWBP_PPC_DW
#define HWBPI_PPC_SRR1_CIABR HWBP_PPC_SRR1_CIABR
#define HWBPI_PPC_VEC_DSI HWBP_PPC_VEC_DSI
#define HWBPI_PPC_VEC_TRACE HWBP_PPC_VEC_TRACE
#define hwbpi_powerpc_boundary hwbp_powerpc_boundary
#define hwbpi_powerpc_dabr_mode hwbp_powerpc_dabr_mode
#define hwbpi_powerpc_dawr_index hwbp_powerpc_dawr_index
#define hwbpi_powerpc_has_ciabr hwbp_powerpc_has_ciabr
#define hwbpi_powerpc_has_dawr hwbp_powerpc_has_dawr
#define hwbpi_powerpc_ndata hwbp_powerpc_ndata

#endif /* HWBP_ARCH_POWERPC_H */
