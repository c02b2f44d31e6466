/* SPDX-License-Identifier: MIT */
/*
 * The profile table: every way the QEMU that CI installs (the qemu
 * profile) or Linux's ptrace layer (the linux profile) departs from the
 * architecture manuals, one row each, with its evidence.  The rows live in
 * quirks_<arch>.def and quirks_linux_<arch>.def beside each model; this is
 * the one table they make, in the enum's order (model.h).
 */
#include <stddef.h>

#include "model.h"

static const struct hwbp_sim_quirk table[HWBPI_Q_COUNT + 1] = {
#define QUIRK(id, arch, sdm, qemu, evidence) { #id, arch, sdm, qemu, evidence, "qemu" },
#include "quirks_x86.def"
#include "quirks_arm64.def"
#include "quirks_powerpc.def"
#include "quirks_riscv.def"
#undef QUIRK
#define QUIRK_LINUX(id, arch, sdm, linux, evidence) { #id, arch, sdm, linux, evidence, "linux" },
#include "quirks_linux_x86.def"
#undef QUIRK_LINUX
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
