// SPDX-License-Identifier: MIT
/*
 * This kernel's CPU model for hwbp's planner (kernel/linux/ksym.h).  The
 * arches hwbp_ksym.ko has been built for: x86_64 (the preset: four slots,
 * lengths 1/2/4/8) and arm64 (the slot counts ID_AA64DFR0_EL1 gives, as
 * Linux's own arch/arm64/kernel/hw_breakpoint.c get_num_wrps() reads
 * them: the system-wide safe value).
 */
#include <linux/errno.h>

#ifdef CONFIG_ARM64
#include <asm/cpufeature.h>
#include <asm/sysreg.h>
#endif

#include "ksym.h"

int ksym_model(struct hwbp_cpu *cpu)
{
#if defined(CONFIG_X86_64)
	return hwbp_cpu_preset("x86_64", cpu);
#elif defined(CONFIG_ARM64)
	return hwbp_cpu_arm64_from_dfr0(read_sanitised_ftr_reg(SYS_ID_AA64DFR0_EL1), cpu);
#else
	(void)cpu;
	return -EOPNOTSUPP;
#endif
}
