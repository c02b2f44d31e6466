/* SPDX-License-Identifier: MIT */
/*
 * The arm64 decoder of insn/ (tracer/insn/insn.h): none is needed.  Its
 * data breakpoint exception reports the access itself, in
 * FAR_EL1 (the address a watchpoint matched, Arm ARM D2.10.5) and ESR_EL1.WnR (store or load), which
 * hwbp_decode() reads from struct hwbp_status: there is no instruction to
 * find.  So this arch's at_trap is NULL, and hwbpi_insn_arch() says so to
 * its callers, which then take the hardware's answer.
 */
#include <errno.h>
#include <stddef.h>

#include "insn/insn.h"

static int arm64_open(struct hwbpi_insn_dec **out)
{
	(void)out;
	return -EOPNOTSUPP;   /* the hardware reports the access: nothing to decode */
}

const struct hwbpi_insn_arch hwbpi_insn_arm64 = {
	.name = "arm64 (the hardware reports the access)",
	.at_trap = NULL,
	.open = arm64_open,
	.close = NULL,
};
