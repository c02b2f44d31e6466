/* SPDX-License-Identifier: MIT */
/*
 * The one table of the arches' instruction decoders (tracer/insn/insn.h:
 * each arch's in arch/<a>/insn.c), in the order of enum hwbp_arch.  Part
 * of libhwbp-trace, as the decoders are: the core has no dependency.
 */
#include <stddef.h>

#include "insn/insn.h"

extern const struct hwbpi_insn_arch hwbpi_insn_x86, hwbpi_insn_arm64, hwbpi_insn_powerpc,
	hwbpi_insn_riscv;

static const struct hwbpi_insn_arch *const arches[] = {
	[HWBP_ARCH_X86] = &hwbpi_insn_x86,
	[HWBP_ARCH_ARM64] = &hwbpi_insn_arm64,
	[HWBP_ARCH_POWERPC] = &hwbpi_insn_powerpc,
	[HWBP_ARCH_RISCV] = &hwbpi_insn_riscv,
};

const struct hwbpi_insn_arch *hwbpi_insn_arch(enum hwbp_arch arch)
{
	if ((unsigned)arch >= sizeof(arches) / sizeof(arches[0]) || !arches[arch] ||
	    !arches[arch]->at_trap)
		return NULL;
	return arches[arch];
}

const struct hwbpi_insn_arch *hwbpi_insn_race_arch(enum hwbp_arch arch)
{
	if ((unsigned)arch >= sizeof(arches) / sizeof(arches[0]) || !arches[arch] ||
	    !arches[arch]->scan || !arches[arch]->at_pc)
		return NULL;
	return arches[arch];
}

bool hwbpi_insn_available(void)
{
#if HWBP_HAVE_CAPSTONE
	return true;
#else
	return false;
#endif
}
