/* SPDX-License-Identifier: MIT */
/*
 * The profile table: every way the QEMU that CI installs departs from the
 * architecture manuals, one row each, with its evidence.  The rows live in
 * quirks_<arch>.def beside each model; this is the one table they make.
 */
#include <stddef.h>

#include "model.h"

static const struct hwbp_sim_quirk table[HWBPI_Q_COUNT + 1] = {
#define QUIRK(id, arch, sdm, qemu, evidence) { #id, arch, sdm, qemu, evidence },
#include "quirks_x86.def"
#include "quirks_arm64.def"
#include "quirks_powerpc.def"
#undef QUIRK
};

const struct hwbp_sim_quirk *hwbp_sim_quirk(unsigned i)
{
	/* The extra last row is all NULL: it ends the table and keeps the
	 * array non-empty whatever the .def files hold. */
	for (unsigned k = 0; table[k].id; k++)
		if (k == i)
			return &table[k];
	return NULL;
}
