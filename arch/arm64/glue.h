/* SPDX-License-Identifier: MIT */
/*
 * arm64 glue for a kernel running at EL1: the real debug registers
 * (DBGBVR/DBGBCR/DBGWVR/DBGWCR<n>_EL1, MDSCR_EL1, OSLAR_EL1, PSTATE.D)
 * through MSR/MRS.  Built only for an AArch64 freestanding target (the
 * bare-metal harness, tests/qemu/arm64/), never for the host library.
 */
#ifndef HWBP_ARCH_ARM64_GLUE_H
#define HWBP_ARCH_ARM64_GLUE_H

#include <stdint.h>

#include <hwbp/hwbp.h>

enum hwbp_a64_dbg {
	HWBP_A64_BVR = 0,
	HWBP_A64_BCR = 1,
	HWBP_A64_WVR = 2,
	HWBP_A64_WCR = 3,
};

/* One debug register, n = 0..15 (n must exist on this CPU: else UNDEFINED). */
uint64_t hwbp_a64_read_dbg(enum hwbp_a64_dbg kind, unsigned n);
void hwbp_a64_write_dbg(enum hwbp_a64_dbg kind, unsigned n, uint64_t v);

uint64_t hwbp_a64_read_mdscr(void);
void hwbp_a64_write_mdscr(uint64_t v);
void hwbp_a64_write_oslar(uint64_t v);
uint64_t hwbp_a64_read_oslsr(void);
uint64_t hwbp_a64_read_dfr0(void);
/* PSTATE.D: 1 masks debug exceptions targeting the current EL. */
void hwbp_a64_set_daif_d(int d);
int hwbp_a64_get_daif_d(void);

/* This CPU's breakpoint / watchpoint counts (ID_AA64DFR0_EL1). */
unsigned hwbp_a64_nbrp(void);
unsigned hwbp_a64_nwrp(void);

/*
 * Write/read the registers of the first nb breakpoints and nw watchpoints
 * and MDSCR_EL1 from/to @regs (then ISB).
 */
void hwbp_a64_write_regs(const struct hwbp_regs *regs, unsigned nb, unsigned nw);
void hwbp_a64_read_regs(struct hwbp_regs *regs, unsigned nb, unsigned nw);

#endif /* HWBP_ARCH_ARM64_GLUE_H */
