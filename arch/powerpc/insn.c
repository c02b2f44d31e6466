/* SPDX-License-Identifier: MIT */
/*
 * The powerpc decoder of insn/ (tracer/insn/insn.h): none is needed.  Its
 * data breakpoint exception reports the access itself, in
 * DAR (the data address, Power ISA Book III 7.5.3) and DSISR's store bit, which
 * hwbp_decode() reads from struct hwbp_status: there is no instruction to
 * find.  So this arch's at_trap is NULL, and hwbpi_insn_arch() says so to
 * its callers, which then take the hardware's answer.
 */
#include <errno.h>
#include <stddef.h>

#include "insn/insn.h"

static int powerpc_open(struct hwbpi_insn_dec **out)
{
	(void)out;
	return -EOPNOTSUPP;   /* the hardware reports the access: nothing to decode */
}

const struct hwbpi_insn_arch hwbpi_insn_powerpc = {
	.name = "powerpc (the hardware reports the access)",
	.at_trap = NULL,
	.open = powerpc_open,
	.close = NULL,
};
