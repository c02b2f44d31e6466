/* SPDX-License-Identifier: MIT */
/*
 * TEMPORARY (tests/qemu/riscv only): the three functions of hwbp's common
 * glue interface for RISC-V, until arch/riscv/glue.{c,h} exist.  At
 * integration: delete glue_tmp.{c,h}, include "glue.h" (arch/riscv) in
 * insn.c and harness_riscv.c, and build arch/riscv/glue.c in build.sh.
 * The interface is the one every arch/<a>/glue.h declares (see
 * arch/arm64/glue.h, "The glue interface"): each function acts on the
 * hart it runs on, in M-mode.
 */
#ifndef HWBP_RV_GLUE_TMP_H
#define HWBP_RV_GLUE_TMP_H

#include <hwbp/hwbp.h>

int hwbp_glue_write_regs(const struct hwbp_regs *regs);
void hwbp_glue_read_regs(struct hwbp_regs *regs);
void hwbp_glue_read_status(struct hwbp_status *st);

#endif /* HWBP_RV_GLUE_TMP_H */
