/* SPDX-License-Identifier: MIT */
/*
 * arm64 ops of caps.c, encode.c and decode.c, for the ops table in
 * caps.c.  The register layout itself is public: <hwbp/arm64.h>.
 */
#ifndef HWBP_ARCH_ARM64_H
#define HWBP_ARCH_ARM64_H

#include <hwbp/arm64.h>

#include "internal.h"

/* log2 of a power of two (x != 0). */
static inline unsigned hwbpi_arm64_log2(uint64_t x)
{
	unsigned k = 0;

	while (x > 1) {
		x >>= 1;
		k++;
	}
	return k;
}

/* The ops, defined in caps.c, encode.c and decode.c. */
void hwbpi_arm64_reset(const struct hwbp_cpu *cpu, struct hwbp_regs *regs);
int hwbpi_arm64_encode(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		       unsigned slot, bool inst, const struct hwbp_piece *piece,
		       enum hwbp_scope scope, bool local);
int hwbpi_arm64_regs_list(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			  struct hwbp_reg_nv *out, int max);
int hwbpi_arm64_regs_set(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			 const char *name, uint64_t value);
int hwbpi_arm64_decode_slot(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			    unsigned slot, bool inst, struct hwbp_piece *piece,
			    enum hwbp_scope *scope);
int hwbpi_arm64_decode_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			      const struct hwbp_status *st, struct hwbp_hit *hit);
void hwbpi_arm64_regs_apply(struct hwbp_regs *live, const struct hwbp_regs *written);
size_t hwbpi_arm64_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf,
			     size_t n);
int hwbpi_arm64_status_set(struct hwbp_status *st, const char *name, uint64_t value);
extern const char *const hwbpi_arm64_status_fields[];


/*
 * Old names of the layout facts, for sim/arm64.c until it includes
 * <hwbp/arm64.h> (compatibility only; nothing in arch/ uses them).
 */
#define HWBPI_ARM64_BCR_BAS_SHIFT HWBP_ARM64_BCR_BAS_SHIFT
#define HWBPI_ARM64_BCR_BT_MASK HWBP_ARM64_BCR_BT_MASK
#define HWBPI_ARM64_BCR_BT_SHIFT HWBP_ARM64_BCR_BT_SHIFT
#define HWBPI_ARM64_CR_E HWBP_ARM64_CR_E
#define HWBPI_ARM64_CR_PAC_MASK HWBP_ARM64_CR_PAC_MASK
#define HWBPI_ARM64_CR_PAC_SHIFT HWBP_ARM64_CR_PAC_SHIFT
#define HWBPI_ARM64_CR_SSC_MASK HWBP_ARM64_CR_SSC_MASK
#define HWBPI_ARM64_CR_SSC_SHIFT HWBP_ARM64_CR_SSC_SHIFT
#define HWBPI_ARM64_MDSCR_KDE HWBP_ARM64_MDSCR_KDE
#define HWBPI_ARM64_MDSCR_MDE HWBP_ARM64_MDSCR_MDE
#define HWBPI_ARM64_PAC_EL0 HWBP_ARM64_PAC_EL0
#define HWBPI_ARM64_PAC_EL1 HWBP_ARM64_PAC_EL1
#define HWBPI_ARM64_WCR_BAS_MASK HWBP_ARM64_WCR_BAS_MASK
#define HWBPI_ARM64_WCR_BAS_SHIFT HWBP_ARM64_WCR_BAS_SHIFT
#define HWBPI_ARM64_WCR_LSC_MASK HWBP_ARM64_WCR_LSC_MASK
#define HWBPI_ARM64_WCR_LSC_SHIFT HWBP_ARM64_WCR_LSC_SHIFT
#define HWBPI_ARM64_WCR_MASK_MASK HWBP_ARM64_WCR_MASK_MASK
#define HWBPI_ARM64_WCR_MASK_SHIFT HWBP_ARM64_WCR_MASK_SHIFT
#define HWBPI_ARM64_WCR_WT HWBP_ARM64_WCR_WT
#define hwbpi_arm64_nbrp hwbp_arm64_nbrp
#define hwbpi_arm64_nwrp hwbp_arm64_nwrp

#endif /* HWBP_ARCH_ARM64_H */
