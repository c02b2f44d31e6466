/* SPDX-License-Identifier: MIT */
/*
 * powerpc bare-metal glue (tests/qemu/powerpc): writes and reads this
 * thread's real DAWR0/DAWRX0, DAWR1/DAWRX1 and CIABR with mtspr/mfspr.
 * Built only into the freestanding ppc64 harness (hypervisor state,
 * POWER10: every one of those SPRs exists and is writable).
 */
#ifndef HWBP_ARCH_POWERPC_GLUE_H
#define HWBP_ARCH_POWERPC_GLUE_H

#include <hwbp/hwbp.h>

int arch_write_regs(const struct hwbp_regs *regs);
void arch_read_regs(struct hwbp_regs *regs);
/* The last values written (DABR/DABRX, which POWER10 lacks, only live here). */
void ppc_glue_shadow(struct hwbp_regs *regs);

#endif
