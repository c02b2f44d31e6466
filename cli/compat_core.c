/* SPDX-License-Identifier: MIT */
/*
 * TEMPORARY — DELETE AT MERGE.
 *
 * Stand-ins for the public core functions of issue 11 (hwbp_slot_name,
 * hwbp_status_set, hwbp_status_field, hwbp_status_hint; see the block in
 * cli/common.h), so that the CLI builds before the core branch lands.
 * The real ones live in arch/ behind the arch operations table; when
 * they are merged, remove this file, its line in cli/meson.build and the
 * declaration block in common.h.  This is the one file of cli/ that
 * names arches.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hwbp/hwbp.h>

#include "common.h"

int hwbp_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf, size_t n)
{
	struct hwbp_caps c;
	int w;

	if (!cpu || !buf || hwbp_caps_get(cpu, &c))
		return -EINVAL;
	if (slot >= (inst && !c.shared ? c.inst_slots : c.data_slots))
		return -EINVAL;
	switch (cpu->arch) {
	case HWBP_ARCH_X86:
		w = snprintf(buf, n, "dr%u", slot);
		break;
	case HWBP_ARCH_ARM64:
		w = snprintf(buf, n, "%s%u", inst ? "bp" : "wp", slot);
		break;
	case HWBP_ARCH_POWERPC:
		if (inst)
			w = snprintf(buf, n, "ciabr");
		else if (cpu->u.ppc.units & HWBP_PPC_DABR)
			w = snprintf(buf, n, "dabr");
		else
			w = snprintf(buf, n, "dawr%u", slot);
		break;
	default:
		return -EINVAL;
	}
	return w < 0 || (size_t)w >= n ? -EINVAL : 0;
}

struct field {
	enum hwbp_arch arch;
	const char *name;
	size_t off;     /* in struct hwbp_status */
	int event;      /* 1: identifies the event */
};

#define F(a, n, m, e) { a, n, offsetof(struct hwbp_status, m), e }
static const struct field fields[] = {
	F(HWBP_ARCH_X86, "dr6", u.x86.dr6, 1),
	F(HWBP_ARCH_ARM64, "esr", u.arm64.esr, 1),
	F(HWBP_ARCH_ARM64, "far", u.arm64.far, 0),
	F(HWBP_ARCH_POWERPC, "vector", u.ppc.vector, 1),
	F(HWBP_ARCH_POWERPC, "dsisr", u.ppc.dsisr, 1),
	F(HWBP_ARCH_POWERPC, "dar", u.ppc.dar, 1),
	F(HWBP_ARCH_POWERPC, "srr1", u.ppc.srr1, 0),
};
#undef F

int hwbp_status_set(const struct hwbp_cpu *cpu, struct hwbp_status *st, const char *name,
		    uint64_t value)
{
	if (!cpu || !st || !name)
		return -EINVAL;
	if (strcmp(name, "ip") == 0) {
		st->ip = value;
		return 0;
	}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct field *f = &fields[i];

		if (f->arch != cpu->arch || strcmp(f->name, name) != 0)
			continue;
		memcpy((char *)st + f->off, &value, sizeof(value));
		/* A DSI unless the vector says otherwise. */
		if (cpu->arch == HWBP_ARCH_POWERPC && f->event && strcmp(name, "vector") != 0 &&
		    st->u.ppc.vector == 0)
			st->u.ppc.vector = 0x300;
		return f->event;
	}
	return -ENOENT;
}

const char *hwbp_status_field(const struct hwbp_cpu *cpu, unsigned i)
{
	for (size_t k = 0; cpu && k < sizeof(fields) / sizeof(fields[0]); k++)
		if (fields[k].arch == cpu->arch && i-- == 0)
			return fields[k].name;
	return NULL;
}

const char *hwbp_status_hint(const struct hwbp_cpu *cpu)
{
	switch (cpu ? cpu->arch : (enum hwbp_arch)-1) {
	case HWBP_ARCH_X86:
		return "dr6";
	case HWBP_ARCH_ARM64:
		return "esr (and far)";
	case HWBP_ARCH_POWERPC:
		return "dsisr and dar";
	}
	return "?";
}
