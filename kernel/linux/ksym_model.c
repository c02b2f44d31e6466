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

/* ------------------------------------------------- the race detector's */

#if defined(CONFIG_X86_64)
#include <asm/ptrace.h>

/* pt_regs' field of each x86-64 psABI DWARF register 0..16 (3.6.2: RAX,
 * RDX, RCX, RBX, RSI, RDI, RBP, RSP, R8..R15, RIP). */
static const unsigned short dwarf_off[] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, dx),
	offsetof(struct pt_regs, cx), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
	offsetof(struct pt_regs, bp), offsetof(struct pt_regs, sp),
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
};

int ksym_arch_race_reg(const struct pt_regs *regs, unsigned dwarf, unsigned long *v)
{
	if (dwarf >= ARRAY_SIZE(dwarf_off))
		return -EINVAL;
	*v = *(const unsigned long *)((const char *)regs + dwarf_off[dwarf]);
	return 0;
}

/* DR7's two-bit fields of slot i: R/W at 16 + 4i, LEN at 18 + 4i (SDM
 * vol. 3, 18.2.4): R/W 01 write, 11 read or write; LEN 00 1 byte, 01 2,
 * 11 4, 10 8. */
#define DR7_FIELDS(i) (0xful << (16 + 4 * (i)))

int ksym_arch_race_slot(unsigned long placeholder, unsigned long *saved)
{
	unsigned long dr, dr7;
	int i;

	/* (perf chose the slot in arch_install_hw_breakpoint(); its address
	 * register holds our placeholder from then on) */
	for (i = 0; i < 4; i++) {
		switch (i) {
		case 0: get_debugreg(dr, 0); break;
		case 1: get_debugreg(dr, 1); break;
		case 2: get_debugreg(dr, 2); break;
		default: get_debugreg(dr, 3); break;
		}
		if (dr == placeholder) {
			get_debugreg(dr7, 7);
			if (!(dr7 & (3ul << (2 * i))))
				continue;   /* (a stale address, not enabled) */
			*saved = dr7 & DR7_FIELDS(i);
			return i;
		}
	}
	return -ENOENT;
}

static void set_addr(int slot, unsigned long addr)
{
	switch (slot) {
	case 0: set_debugreg(addr, 0); break;
	case 1: set_debugreg(addr, 1); break;
	case 2: set_debugreg(addr, 2); break;
	default: set_debugreg(addr, 3); break;
	}
}

/*
 * The slot's address and its DR7 R/W and LEN bits written directly:
 * Linux 6.1 has no way to move a registered breakpoint from atomic
 * context (modify_user_hw_breakpoint() sleeps; modify_wide_hw_breakpoint_
 * local() exists only from 6.3 and for arm64's CONFIG_HAVE_REINSTALL_HW_
 * BREAKPOINT).  perf keeps its own copy (cpu_dr7, cpu_debugreg[]) and
 * writes it back whenever it installs a breakpoint on this CPU or
 * hw_breakpoint_restore() runs: that puts the placeholder back, which
 * only ends a watch early (a missed race, never a wrong one).  The debug
 * exception saves and restores DR7 around its handlers
 * (local_db_save()/local_db_restore(), arch/x86/kernel/traps.c); we run
 * with IRQs off, so never inside one.
 */
void ksym_arch_race_arm(int slot, unsigned long addr, unsigned len, bool rw)
{
	static const unsigned long lenbits[9] = { [1] = 0, [2] = 1, [4] = 3, [8] = 2 };
	unsigned long dr7;

	get_debugreg(dr7, 7);
	dr7 &= ~DR7_FIELDS(slot);
	dr7 |= ((rw ? 3ul : 1ul) | (lenbits[len] << 2)) << (16 + 4 * slot);
	set_addr(slot, addr);
	set_debugreg(dr7, 7);
}

void ksym_arch_race_disarm(int slot, unsigned long placeholder, unsigned long saved)
{
	unsigned long dr7;

	get_debugreg(dr7, 7);
	dr7 = (dr7 & ~DR7_FIELDS(slot)) | saved;
	set_debugreg(dr7, 7);
	set_addr(slot, placeholder);
}
#else
int ksym_arch_race_reg(const struct pt_regs *regs, unsigned dwarf, unsigned long *v)
{
	return -EOPNOTSUPP;
}

int ksym_arch_race_slot(unsigned long placeholder, unsigned long *saved)
{
	return -EOPNOTSUPP;
}

void ksym_arch_race_arm(int slot, unsigned long addr, unsigned len, bool rw)
{
}

void ksym_arch_race_disarm(int slot, unsigned long placeholder, unsigned long saved)
{
}
#endif
