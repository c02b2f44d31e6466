/* SPDX-License-Identifier: MIT */
/*
 * TEMPORARY (the lead deletes this file at merge, when the core provides
 * these functions through its arch ops): stand-ins for the public core
 * functions of issue 11 that libhwbp-sim needs, so that the simulator
 * already calls them.  They name architectures because the core's per-arch
 * table is where this knowledge will live.  They are weak, so that another
 * branch's stand-ins (cli/compat_core.c) or the core's real functions win
 * when both are linked.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "compat_core.h"

static int pool_count(const struct hwbp_cpu *cpu, bool inst, unsigned *count)
{
	struct hwbp_caps caps;
	int ret = hwbp_caps_get(cpu, &caps);

	if (ret)
		return ret;
	*count = inst ? caps.inst_slots : caps.data_slots;
	return 0;
}

/* powerpc data slots are the DAWRs when there are any (DABR otherwise),
 * as the core's encoder and Linux choose. */
static bool ppc_dabr_slots(const struct hwbp_cpu *cpu)
{
	return !(cpu->u.ppc.units & (HWBP_PPC_DAWR0 | HWBP_PPC_DAWR1)) &&
	       (cpu->u.ppc.units & HWBP_PPC_DABR);
}

__attribute__((weak))
int hwbp_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf, size_t n)
{
	unsigned count;
	int len = -1;

	if (!cpu || !buf || pool_count(cpu, inst, &count) || slot >= count)
		return -EINVAL;
	switch (cpu->arch) {
	case HWBP_ARCH_X86:
		len = snprintf(buf, n, "dr%u", slot);
		break;
	case HWBP_ARCH_ARM64:
		len = snprintf(buf, n, "%s%u", inst ? "bp" : "wp", slot);
		break;
	case HWBP_ARCH_POWERPC:
		if (inst)
			len = snprintf(buf, n, "ciabr");
		else if (ppc_dabr_slots(cpu))
			len = snprintf(buf, n, "dabr");
		else
			len = snprintf(buf, n, "dawr%u", slot);
		break;
	}
	if (len < 0 || (size_t)len >= n)
		return -EINVAL;
	return 0;
}

__attribute__((weak))
int hwbp_regs_apply(const struct hwbp_cpu *cpu, struct hwbp_regs *live,
		    const struct hwbp_regs *written)
{
	if (!cpu || !live || !written || live->arch != cpu->arch || written->arch != cpu->arch)
		return -EINVAL;
	switch (cpu->arch) {
	case HWBP_ARCH_X86:
		/* DR6 keeps what the CPU put there. */
		memcpy(live->u.x86.dr, written->u.x86.dr, sizeof(written->u.x86.dr));
		memcpy(live->u.x86.addr_mask, written->u.x86.addr_mask,
		       sizeof(written->u.x86.addr_mask));
		live->u.x86.dr7 = written->u.x86.dr7;
		return 0;
	case HWBP_ARCH_ARM64: {
		/* MDSCR only gains the enables (MDE/KDE) the glue needs. */
		uint64_t mdscr = live->u.arm64.mdscr | written->u.arm64.mdscr;

		live->u.arm64 = written->u.arm64;
		live->u.arm64.mdscr = mdscr;
		return 0;
	}
	case HWBP_ARCH_POWERPC:
		live->u.ppc = written->u.ppc;
		return 0;
	}
	return -EINVAL;
}

void hwbpi_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned i, char *buf, size_t n)
{
	if (hwbp_slot_name(cpu, inst, i, buf, n) && n)
		snprintf(buf, n, "?");
}
