/* SPDX-License-Identifier: MIT */
/*
 * The one table of the simulator's per-arch models: everything else in
 * sim/ asks the model of a CPU's arch, and names no architecture.
 */
#include <stddef.h>

#include "model.h"

const struct hwbpi_sim_model *hwbpi_sim_model(enum hwbp_arch arch)
{
	switch (arch) {
	case HWBP_ARCH_X86:
		return &hwbpi_sim_x86;
	case HWBP_ARCH_ARM64:
		return &hwbpi_sim_arm64;
	case HWBP_ARCH_POWERPC:
		return &hwbpi_sim_powerpc;
	}
	return NULL;
}
