/* SPDX-License-Identifier: MIT */
/*
 * The RISC-V decoder of insn/ (tracer/insn/insn.h): none.  Debian 12's
 * Capstone 4 has no RISC-V (it came with Capstone 5), and Linux gives a
 * tracer no RISC-V trigger to trap on (linux.c) anyway.  So this arch's
 * at_trap is NULL, and hwbpi_insn_arch() says so to its callers, which
 * then take the hardware's answer (mtval, the address that matched).
 */
#include <errno.h>
#include <stddef.h>

#include "insn/insn.h"

static int riscv_open(struct hwbpi_insn_dec **out)
{
	(void)out;
	return -EOPNOTSUPP;   /* no decoder for this arch */
}

const struct hwbpi_insn_arch hwbpi_insn_riscv = {
	.name = "riscv (no decoder: Capstone 4 has no RISC-V)",
	.at_trap = NULL,
	.open = riscv_open,
	.close = NULL,
};
