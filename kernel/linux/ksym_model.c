// SPDX-License-Identifier: MIT
/*
 * This kernel's CPU model for hwbp's planner (kernel/linux/ksym.h).  The
 * arches hwbp_ksym.ko has been built for: x86_64 (the preset: four slots,
 * lengths 1/2/4/8) and arm64 (the slot counts ID_AA64DFR0_EL1 gives, as
 * Linux's own arch/arm64/kernel/hw_breakpoint.c get_num_wrps() reads
 * them: the system-wide safe value).  And the three things the hit path
 * needs to know of the arch (ksym.h).
 */
#include <linux/errno.h>

#include "ksym.h"

#ifdef CONFIG_ARM64
#include <asm/cpufeature.h>
#include <asm/sysreg.h>
#endif
#ifdef CONFIG_X86
#include <asm/debugreg.h>
#endif

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

bool ksym_arch_handler_ok(void)
{
#if defined(CONFIG_X86)
	/* hw_breakpoint_handler() (arch/x86/kernel/hw_breakpoint.c) calls
	 * perf_bp_event() after the access (a trap) and needs nothing of
	 * the handler. */
	return true;
#else
	/* arm64's watchpoint_handler() steps over the access only when
	 * is_default_overflow_handler(): with ours it would trap again on
	 * the same access, for ever. */
	return false;
#endif
}

uint64_t ksym_arch_ip_adjust(void)
{
#if defined(CONFIG_X86)
	return 1;   /* a data breakpoint is a trap: the IP is past the access */
#else
	return 0;
#endif
}

/*
 * x86: exc_debug_kernel() (arch/x86/kernel/traps.c) runs the breakpoint
 * handlers with DR7 cleared (local_db_save() writes 0) and writes its
 * saved value back when the exception ends (local_db_restore()).  So the
 * first of our calls in an exception finds DR7 0 and writes GE alone
 * (bit 9, no slot enabled: nothing can trap), and later calls of the same
 * exception find it; the next exception starts from 0 again.  A kernel
 * that does not clear DR7 there (older than 5.10, or a hypervisor's
 * guest with no breakpoint active: local_db_save() returns early) shows
 * an enabled DR7: then -EOPNOTSUPP, and we write nothing.
 */
#define DR7_GE (1ul << 9)
#define DR7_RESERVED_ONE (1ul << 10)

int ksym_arch_exception_first(void)
{
#if defined(CONFIG_X86)
	unsigned long dr7;

	get_debugreg(dr7, 7);
	dr7 &= ~DR7_RESERVED_ONE;
	if (dr7 == DR7_GE)
		return 0;
	if (dr7)
		return -EOPNOTSUPP;
	set_debugreg(DR7_GE, 7);
	return 1;
#else
	return -EOPNOTSUPP;
#endif
}
