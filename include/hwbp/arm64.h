/* SPDX-License-Identifier: MIT */
/*
 * arm64 debug registers (DBGB/W(V|C)R, MDSCR_EL1, ESR): the register layout hwbp's
 * encoders and decoders follow, for code that models or programs the
 * hardware itself (a simulator, a kernel's glue).  Field positions, reset
 * values and the small rules that derive a CPU model's slot counts.
 * Only facts of the architecture: no state, no functions with effects.
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
#ifndef HWBP_ARM64_H
#define HWBP_ARM64_H

#ifndef __KERNEL__   /* a Linux module: <hwbp/hwbp.h> takes <linux/types.h> */
#include <stdbool.h>
#include <stdint.h>
#endif

#include <hwbp/hwbp.h>

/* ID_AA64DFR0_EL1 */
#define HWBP_ARM64_DFR0_BRPS_SHIFT 12
#define HWBP_ARM64_DFR0_WRPS_SHIFT 20

/* DBGWCR / DBGBCR common low bits */
#define HWBP_ARM64_CR_E 0x1u
#define HWBP_ARM64_CR_PAC_SHIFT 1 /* PAC (watchpoints) / PMC (breakpoints) */
#define HWBP_ARM64_CR_PAC_MASK 0x3u
#define HWBP_ARM64_CR_HMC (1u << 13)
#define HWBP_ARM64_CR_SSC_SHIFT 14
#define HWBP_ARM64_CR_SSC_MASK 0x3u

/*
 * PAC/PMC with HMC = 0 and SSC = 0b00 (Arm ARM "Summary of breakpoint HMC,
 * SSC, and PMC encodings" / the watchpoint PAC table; same values as
 * Linux AARCH64_BREAKPOINT_EL1 = 1, AARCH64_BREAKPOINT_EL0 = 2, and QEMU
 * bp_wp_matches(): EL1 needs PAC bit 0, EL0 needs PAC bit 1).
 */
#define HWBP_ARM64_PAC_EL1 0x1u
#define HWBP_ARM64_PAC_EL0 0x2u
#define HWBP_ARM64_PAC_BOTH 0x3u

/* DBGWCR */
#define HWBP_ARM64_WCR_LSC_SHIFT 3
#define HWBP_ARM64_WCR_LSC_MASK 0x3u
#define HWBP_ARM64_WCR_BAS_SHIFT 5
#define HWBP_ARM64_WCR_BAS_MASK 0xffu
#define HWBP_ARM64_WCR_LBN_SHIFT 16
#define HWBP_ARM64_WCR_WT (1u << 20)
#define HWBP_ARM64_WCR_MASK_SHIFT 24
#define HWBP_ARM64_WCR_MASK_MASK 0x1fu

/* DBGBCR */
#define HWBP_ARM64_BCR_BAS_SHIFT 5
#define HWBP_ARM64_BCR_BAS_MASK 0xfu
#define HWBP_ARM64_BCR_BAS_A64 0xfu /* match the A64 instruction at DBGBVR */
#define HWBP_ARM64_BCR_BT_SHIFT 20
#define HWBP_ARM64_BCR_BT_MASK 0xfu

/* MDSCR_EL1 */
#define HWBP_ARM64_MDSCR_KDE (1ull << 13)
#define HWBP_ARM64_MDSCR_MDE (1ull << 15)

/* Largest MASK range: MASK = 31 masks address bits [30:0], 2 GiB. */
#define HWBP_ARM64_MASK_MAX 31u
#define HWBP_ARM64_MAX_PIECE (1ull << HWBP_ARM64_MASK_MAX)

/* A64 instructions: 4 bytes, 4-aligned. */
#define HWBP_ARM64_INST_LEN 4u

static inline unsigned hwbp_arm64_nbrp(const struct hwbp_cpu *cpu)
{
	return (unsigned)((cpu->u.arm64.dfr0 >> HWBP_ARM64_DFR0_BRPS_SHIFT) & 0xf) + 1;
}

static inline unsigned hwbp_arm64_nwrp(const struct hwbp_cpu *cpu)
{
	return (unsigned)((cpu->u.arm64.dfr0 >> HWBP_ARM64_DFR0_WRPS_SHIFT) & 0xf) + 1;
}

#endif /* HWBP_ARM64_H */
