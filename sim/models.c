/* SPDX-License-Identifier: MIT */
/*
 * The one table of the simulator's per-arch models: everything else in
 * sim/ asks the model of a CPU's arch, and names no architecture.
 */
#include <stddef.h>

#include "model.h"

static const struct hwbpi_sim_model *const models[] = {
	&hwbpi_sim_x86,
	&hwbpi_sim_arm64,
	&hwbpi_sim_powerpc,
	&hwbpi_sim_riscv,
};

const struct hwbpi_sim_model *hwbpi_sim_model(enum hwbp_arch arch)
{
	for (unsigned i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (models[i]->arch == arch)
			return models[i];
	return NULL;
}
