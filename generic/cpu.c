/* SPDX-License-Identifier: MIT */
/*
 * CPU models: the named presets of every arch (each arch/<a>/caps.c holds
 * its own rows), listed and looked up in the order of generic/arch.c.
 */
#include "internal.h"

/* The @i-th preset of all arches, or NULL. */
static const struct hwbpi_preset *preset_at(unsigned i)
{
	const struct hwbpi_arch_ops *ops;

	for (unsigned a = 0; (ops = hwbpi_arch_nth(a)) != NULL; a++) {
		if (i < ops->npresets)
			return &ops->presets[i];
		i -= ops->npresets;
	}
	return NULL;
}

const char *hwbp_cpu_preset_name(unsigned i)
{
	const struct hwbpi_preset *p = preset_at(i);

	return p ? p->name : NULL;
}

int hwbp_cpu_preset(const char *name, struct hwbp_cpu *out)
{
	const struct hwbpi_preset *p;

	if (!name || !out)
		return -EINVAL;
	for (unsigned i = 0; (p = preset_at(i)) != NULL; i++) {
		if (hwbpi_streq(p->name, name)) {
			*out = p->cpu;
			hwbpi_strlcpy(out->name, name, sizeof(out->name));
			return 0;
		}
	}
	return -ENOENT;
}
