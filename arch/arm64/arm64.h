/* SPDX-License-Identifier: MIT */
/*
 * arm64 debug-register layout shared by caps.c, encode.c and decode.c.
 *
 * Field positions (Arm ARM, AArch64 System register descriptions):
 *   ID_AA64DFR0_EL1: BRPs [15:12], WRPs [23:20], each "number - 1".
 *   DBGWCR<n>_EL1: E 0, PAC 2:1, LSC 4:3, BAS 12:5, HMC 13, SSC 15:14,
 *                  LBN 19:16, WT 20, MASK 28:24.
 *   DBGBCR<n>_EL1: E 0, PMC 2:1, BAS 8:5, HMC 13, SSC 15:14, LBN 19:16,
 *                  BT 23:20.
 *   MDSCR_EL1: SS 0, KDE 13, MDE 15.
 *   ESR_ELx: EC 31:26, IL 25, ISS 24:0.
 * Cross-checked with Linux arch/arm64/include/asm/hw_breakpoint.h
 * (encode_ctrl_reg: len << 5, type << 3, privilege << 1, enabled) and QEMU
 * target/arm (hw_watchpoint_update, hw_breakpoint_update, bp_wp_matches,
 * syn_watchpoint / syn_breakpoint).
 */
#ifndef HWBP_ARCH_ARM64_H
#define HWBP_ARCH_ARM64_H

#include "internal.h"

/* ID_AA64DFR0_EL1 */
#define HWBPI_ARM64_DFR0_BRPS_SHIFT 12
#define HWBPI_ARM64_DFR0_WRPS_SHIFT 20

/* DBGWCR / DBGBCR common low bits */
#define HWBPI_ARM64_CR_E 0x1u
#define HWBPI_ARM64_CR_PAC_SHIFT 1 /* PAC (watchpoints) / PMC (breakpoints) */
#define HWBPI_ARM64_CR_PAC_MASK 0x3u
#define HWBPI_ARM64_CR_HMC (1u << 13)
#define HWBPI_ARM64_CR_SSC_SHIFT 14
#define HWBPI_ARM64_CR_SSC_MASK 0x3u

/*
 * PAC/PMC with HMC = 0 and SSC = 0b00 (Arm ARM "Summary of breakpoint HMC,
 * SSC, and PMC encodings" / the watchpoint PAC table; same values as
 * Linux AARCH64_BREAKPOINT_EL1 = 1, AARCH64_BREAKPOINT_EL0 = 2, and QEMU
 * bp_wp_matches(): EL1 needs PAC bit 0, EL0 needs PAC bit 1).
 */
#define HWBPI_ARM64_PAC_EL1 0x1u
#define HWBPI_ARM64_PAC_EL0 0x2u
#define HWBPI_ARM64_PAC_BOTH 0x3u

/* DBGWCR */
#define HWBPI_ARM64_WCR_LSC_SHIFT 3
#define HWBPI_ARM64_WCR_LSC_MASK 0x3u
#define HWBPI_ARM64_WCR_BAS_SHIFT 5
#define HWBPI_ARM64_WCR_BAS_MASK 0xffu
#define HWBPI_ARM64_WCR_LBN_SHIFT 16
#define HWBPI_ARM64_WCR_WT (1u << 20)
#define HWBPI_ARM64_WCR_MASK_SHIFT 24
#define HWBPI_ARM64_WCR_MASK_MASK 0x1fu

/* DBGBCR */
#define HWBPI_ARM64_BCR_BAS_SHIFT 5
#define HWBPI_ARM64_BCR_BAS_MASK 0xfu
#define HWBPI_ARM64_BCR_BAS_A64 0xfu /* match the A64 instruction at DBGBVR */
#define HWBPI_ARM64_BCR_BT_SHIFT 20
#define HWBPI_ARM64_BCR_BT_MASK 0xfu

/* MDSCR_EL1 */
#define HWBPI_ARM64_MDSCR_KDE (1ull << 13)
#define HWBPI_ARM64_MDSCR_MDE (1ull << 15)

/* Largest MASK range: MASK = 31 masks address bits [30:0], 2 GiB. */
#define HWBPI_ARM64_MASK_MAX 31u
#define HWBPI_ARM64_MAX_PIECE (1ull << HWBPI_ARM64_MASK_MAX)

/* A64 instructions: 4 bytes, 4-aligned. */
#define HWBPI_ARM64_INST_LEN 4u

static inline unsigned hwbpi_arm64_nbrp(const struct hwbp_cpu *cpu)
{
	return (unsigned)((cpu->u.arm64.dfr0 >> HWBPI_ARM64_DFR0_BRPS_SHIFT) & 0xf) + 1;
}

static inline unsigned hwbpi_arm64_nwrp(const struct hwbp_cpu *cpu)
{
	return (unsigned)((cpu->u.arm64.dfr0 >> HWBPI_ARM64_DFR0_WRPS_SHIFT) & 0xf) + 1;
}

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

#endif /* HWBP_ARCH_ARM64_H */
