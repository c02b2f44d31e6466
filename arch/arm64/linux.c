/* SPDX-License-Identifier: MIT */
/*
 * arm64 Linux ptrace glue (tracer/backends/linux/glue.h; built only for Linux on
 * aarch64): hwbp's own DBGWCR/DBGBCR encoding of each slot written with
 * PTRACE_SETREGSET NT_ARM_HW_WATCH / NT_ARM_HW_BREAK (man 2 ptrace;
 * arch/arm64/kernel/ptrace.c hw_break_set()), slot counts from the same
 * regsets' dbg_info, hits from the TRAP_HWBKPT siginfo.
 */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <elf.h>
#include <linux/perf_event.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>

#include <hwbp/arm64.h>

#include "backends/linux/glue.h"
#include "linux_decode.h"

#ifndef NT_ARM_HW_BREAK
#define NT_ARM_HW_BREAK 0x402   /* include/uapi/linux/elf.h */
#endif
#ifndef NT_ARM_HW_WATCH
#define NT_ARM_HW_WATCH 0x403
#endif
#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4           /* include/uapi/asm-generic/siginfo.h */
#endif

/*
 * struct user_hwdebug_state of arch/arm64/include/uapi/asm/ptrace.h
 * (the regset's layout, a stable ABI), spelled here so that <asm/ptrace.h>
 * and glibc's <sys/user.h> need not be mixed.
 */
struct hwdebug {
	uint32_t dbg_info;
	uint32_t pad;
	struct {
		uint64_t addr;
		uint32_t ctrl;
		uint32_t pad;
	} dbg_regs[16];
};

static int get_set(pid_t tid, int note, struct hwdebug *d)
{
	struct iovec iov = { d, sizeof(*d) };

	memset(d, 0, sizeof(*d));
	return ptrace(PTRACE_GETREGSET, tid, (void *)(uintptr_t)note, &iov) ? -errno : 0;
}

int hwbpi_linux_cpu(pid_t tid, struct hwbp_cpu *cpu)
{
	struct hwdebug b, w;
	int ret = get_set(tid, NT_ARM_HW_BREAK, &b);

	if (ret == 0)
		ret = get_set(tid, NT_ARM_HW_WATCH, &w);
	/* ENODEV: the kernel has no hardware breakpoint support. */
	if (ret == -ENODEV || ret == -EINVAL)
		return -EOPNOTSUPP;
	return ret ? ret : hwbpi_arm64_linux_cpu(b.dbg_info, w.dbg_info, cpu);
}

/* The E bit (0) of every slot's control word, as the kernel reports it
 * (ptrace_hbp_get_ctrl(): the enabled slots' DBGBCR/DBGWCR). */
int hwbpi_linux_armed(pid_t tid, const struct hwbp_cpu *cpu)
{
	struct hwdebug d;
	int notes[2] = { NT_ARM_HW_BREAK, NT_ARM_HW_WATCH };

	(void)cpu;
	for (unsigned k = 0; k < 2; k++) {
		int ret = get_set(tid, notes[k], &d);

		if (ret)
			return ret;
		for (unsigned i = 0; i < 16; i++)
			if (d.dbg_regs[i].ctrl & 1u)
				return 1;
	}
	return 0;
}

/*
 * One regset: n slots, each address then control.  The kernel walks the
 * slots in order and, per slot, sets the address and then the control
 * word (hw_break_set()); a control word that enables a slot is checked
 * then against the address already set (hw_breakpoint_arch_parse():
 * aligned down to 8 (4 for breakpoints), BAS shifted by the offset), so
 * hwbp's DBGWVR (the doubleword) with BAS at the byte offset is what it
 * takes.  The privilege field is rebuilt by the kernel (EL0 for a user
 * address: arch_build_bp_info()); hwbp's user scope encodes the same.
 */
static int put_set(pid_t tid, int note, unsigned n, const uint64_t *vr, const uint64_t *cr)
{
	struct hwdebug d;
	struct iovec iov;

	memset(&d, 0, sizeof(d));
	for (unsigned i = 0; i < n; i++) {
		d.dbg_regs[i].addr = vr[i];
		d.dbg_regs[i].ctrl = (uint32_t)cr[i];
	}
	iov.iov_base = &d;
	iov.iov_len = offsetof(struct hwdebug, dbg_regs) + n * sizeof(d.dbg_regs[0]);
	return ptrace(PTRACE_SETREGSET, tid, (void *)(uintptr_t)note, &iov) ? -errno : 0;
}

/*
 * How many leading slots of @note a write of @vr/@cr must cover: the
 * last one it sets, or that the thread has enabled now (to clear it).
 * No more: each slot written gets a breakpoint registered for the task
 * (ptrace_hbp_get_initialised_bp()), disabled or not, and Linux keeps it
 * reserved until the next exec, where a perf event of the same process
 * would find it taken.  When the current set cannot be read, all @n.
 */
static unsigned span(pid_t tid, int note, unsigned n, const uint64_t *vr, const uint64_t *cr)
{
	struct hwdebug cur;
	bool have = get_set(tid, note, &cur) == 0;
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++)
		if (!have || vr[i] || cr[i] || (cur.dbg_regs[i].ctrl & 1))
			k = i + 1;
	return k;
}

int hwbpi_linux_write(pid_t tid, const struct hwbp_cpu *cpu, const struct hwbp_regs *regs)
{
	const uint64_t zero[HWBP_MAX_SLOTS] = { 0 };
	unsigned nb = hwbp_arm64_nbrp(cpu), nw = hwbp_arm64_nwrp(cpu), kb, kw;
	int ret = 0;

	if (!cpu || !regs || cpu->arch != HWBP_ARCH_ARM64 || regs->arch != HWBP_ARCH_ARM64)
		return -EINVAL;
	for (unsigned i = 0; i < nb; i++)
		if (hwbpi_arm64_linux_ctrl_ok(true, regs->u.arm64.bcr[i]))
			return -EINVAL;
	for (unsigned i = 0; i < nw; i++)
		if (hwbpi_arm64_linux_ctrl_ok(false, regs->u.arm64.wcr[i]))
			return -EINVAL;
	kb = span(tid, NT_ARM_HW_BREAK, nb, regs->u.arm64.bvr, regs->u.arm64.bcr);
	kw = span(tid, NT_ARM_HW_WATCH, nw, regs->u.arm64.wvr, regs->u.arm64.wcr);
	if (kb)
		ret = put_set(tid, NT_ARM_HW_BREAK, kb, regs->u.arm64.bvr, regs->u.arm64.bcr);
	if (ret == 0 && kw)
		ret = put_set(tid, NT_ARM_HW_WATCH, kw, regs->u.arm64.wvr, regs->u.arm64.wcr);
	if (ret && ret != -ESRCH) {
		/* Leave nothing half-written enabled. */
		put_set(tid, NT_ARM_HW_BREAK, nb, zero, zero);
		put_set(tid, NT_ARM_HW_WATCH, nw, zero, zero);
	}
	return ret;
}

int hwbpi_linux_hit(pid_t tid, const struct hwbp_cpu *cpu, const struct hwbp_regs *armed,
		    const siginfo_t *si, struct hwbp_status *st)
{
	struct user_regs_struct ur;
	struct iovec iov = { &ur, sizeof(ur) };
	bool known;

	/*
	 * TRAP_HWBKPT with si_addr = the trigger: arm64_force_sig_fault()
	 * from ptrace_hbptriggered() (arch/arm64/kernel/ptrace.c).  The slot
	 * number comes in si_errno only for an AArch32 (compat) tracee
	 * (2 * slot + 1 for a breakpoint, its negation for a watchpoint);
	 * a native one gets 0, so the slot is found from the address.  A
	 * single step reports TRAP_TRACE, a BRK instruction TRAP_BRKPT.
	 * AArch64 tracees only: NT_PRSTATUS of a compat task has another
	 * layout.
	 */
	if (!si || si->si_signo != SIGTRAP || si->si_code != TRAP_HWBKPT)
		return -ENOENT;
	if (ptrace(PTRACE_GETREGSET, tid, (void *)(uintptr_t)NT_PRSTATUS, &iov))
		return -errno;
	return hwbpi_arm64_linux_status(cpu, armed, ur.pc, (uint64_t)(uintptr_t)si->si_addr, st,
					&known);
}

int hwbpi_linux_hit_done(pid_t tid)
{
	/* Nothing sticky: the status is the siginfo of this one trap. */
	(void)tid;
	return 0;
}

/*
 * do_watchpoint() / do_breakpoint() in arch/arm64/kernel/hw_breakpoint.c
 * step over the instruction only for breakpoints with the default
 * overflow handler (perf); ptrace's (ptrace_hbptriggered) is not, so the
 * thread would take the same exception again: the tracer steps.
 */
const bool hwbpi_linux_step_over = true;

/* The watchpoint exception is taken before the access: the IP is the
 * load or store itself (watchpoint_handler() reports it, then steps). */
const uint64_t hwbpi_linux_trap_ip_adjust = 0;

int hwbpi_linux_piece_ok(const struct hwbp_cpu *cpu, bool inst, const struct hwbp_piece *piece,
			 char *why, size_t whylen)
{
	(void)cpu;
	/* No MASK for a task's breakpoints (ptrace or perf): one doubleword
	 * per watchpoint at most (arch_build_bp_info()). */
	if (!inst && (piece->len > 8 || (piece->addr & 7) + piece->len > 8)) {
		snprintf(why, whylen, "a %llu-byte block needs DBGWCR.MASK, which Linux cannot set "
			 "for a task (at most 8 bytes in one doubleword per watchpoint)",
			 (unsigned long long)piece->len);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* BRK #0 (Arm ARM C6.2: 0xd4200000; A64 instructions are little-endian
 * whatever the data endianness): an exception with ELR at the BRK. */
const uint8_t hwbpi_linux_trap[4] = { 0x00, 0x00, 0x20, 0xd4 };
const unsigned hwbpi_linux_trap_len = 4;

/* watchpoint_handler() (arch/arm64/kernel/hw_breakpoint.c) skips a slot
 * whose LSC does not match the access (ESR_ELx WnR): a load reports only
 * a load-only event, a store only a store-only one. */
const enum hwbpi_linux_split hwbpi_linux_kind_split = HWBPI_SPLIT_PAIR;

/* The byte-select mask is exact (DBGWCR_EL1.BAS), and pieces are planned
 * with it: the event's range is the piece's. */
const bool hwbpi_linux_exact_range = false;

/* ptrace and perf share the ID_AA64DFR0_EL1 counts (core_num_wrps): the
 * model from NT_ARM_HW_WATCH stands. */
int hwbpi_linux_kernel_cpu(struct hwbp_cpu *cpu, unsigned nslots)
{
	(void)nslots;
	return cpu ? 0 : -EINVAL;
}

static int prstatus(pid_t tid, int req, struct user_regs_struct *ur)
{
	struct iovec iov = { ur, sizeof(*ur) };

	return ptrace(req, tid, (void *)(uintptr_t)NT_PRSTATUS, &iov) ? -errno : 0;
}

const unsigned hwbpi_linux_trap_pc_after = 0;

/* A BRK from EL0 is reported as TRAP_BRKPT (brk_handler() in
 * arch/arm64/kernel/debug-monitors.c: send_user_sigtrap()); a watchpoint
 * as TRAP_HWBKPT, a step as TRAP_TRACE. */
bool hwbpi_linux_trap_si(const siginfo_t *si)
{
	return si->si_code == TRAP_BRKPT;
}

int hwbpi_linux_call(pid_t tid, struct hwbpi_linux_call *c)
{
	struct user_regs_struct ur;
	int ret = prstatus(tid, PTRACE_GETREGSET, &ur);

	if (ret)
		return ret;
	/* AAPCS64 6.8.2: arguments in X0-X7, the result in X0; BL left the
	 * return address in X30 (LR). */
	for (unsigned i = 0; i < HWBPI_CALL_ARGS; i++)
		c->arg[i] = ur.regs[i];
	c->ret = ur.regs[0];
	c->ra = ur.regs[30];
	c->sp = ur.sp;
	return 0;
}

/* asm/perf_regs.h: X0-X7, LR (X30), SP, in that (bit) order. */
const uint64_t hwbpi_linux_perf_callregs = UINT64_C(0xff) | (UINT64_C(1) << PERF_REG_ARM64_LR) |
					   (UINT64_C(1) << PERF_REG_ARM64_SP);

int hwbpi_linux_call_perf(const uint64_t *regs, unsigned nregs, uint64_t stack0,
			  struct hwbpi_linux_call *c)
{
	(void)stack0;
	if (nregs < 10)
		return -EINVAL;
	/* AAPCS64: arguments in X0-X7, the result in X0, BL left the
	 * return address in X30. */
	for (unsigned i = 0; i < HWBPI_CALL_ARGS; i++)
		c->arg[i] = regs[i];
	c->ret = regs[0];
	c->ra = regs[8];
	c->sp = regs[9];
	return 0;
}

int hwbpi_linux_perf_dwarf_regs(const uint64_t *vals, unsigned nvals, uint64_t *v, unsigned n,
				uint64_t *known)
{
	(void)vals;
	(void)nvals;
	(void)v;
	(void)n;
	*known = 0;
	return -EOPNOTSUPP;   /* the hardware reports the access (FAR): nothing to decode */
}

/* X0-X30, SP and PC by their DWARF numbers (AADWARF64 4.1: 0-30, 31, 32),
 * for the race detector's decoder (the tracer's takes FAR instead). */
int hwbpi_linux_dwarf_regs(pid_t tid, uint64_t *v, unsigned n, uint64_t *known)
{
	struct user_regs_struct ur;
	int ret;

	*known = 0;
	if (n < 33)
		return -EINVAL;
	if ((ret = prstatus(tid, PTRACE_GETREGSET, &ur)))
		return ret;
	for (unsigned i = 0; i < 31; i++)
		v[i] = ur.regs[i];
	v[31] = ur.sp;
	v[32] = ur.pc;
	*known = (UINT64_C(1) << 33) - 1;
	return 0;
}

int hwbpi_linux_pc(pid_t tid, uint64_t *pc)
{
	struct user_regs_struct ur;
	int ret = prstatus(tid, PTRACE_GETREGSET, &ur);

	if (ret == 0)
		*pc = ur.pc;
	return ret;
}

int hwbpi_linux_set_pc(pid_t tid, uint64_t pc)
{
	struct user_regs_struct ur;
	int ret = prstatus(tid, PTRACE_GETREGSET, &ur);

	if (ret)
		return ret;
	ur.pc = pc;
	return prstatus(tid, PTRACE_SETREGSET, &ur);
}

/* arch/arm64/kernel/hw_breakpoint.c arch_build_bp_info(): an AArch64
 * execute breakpoint is HW_BREAKPOINT_LEN_4, one A64 instruction. */
uint64_t hwbpi_linux_exec_len(void)
{
	return 4;
}

#ifndef NT_ARM_TLS
#define NT_ARM_TLS 0x401   /* include/uapi/linux/elf.h: TPIDR_EL0 */
#endif

/*
 * TLS variant I (the AArch64 ELF ABI, "Thread Local Storage"): TPIDR_EL0
 * points at a 16-byte TCB and the executable's block follows it, aligned
 * to p_align; the linker's local-exec offsets are roundup(16, p_align)
 * plus st_value.  TPIDR_EL0 is the first word of the NT_ARM_TLS regset
 * (arch/arm64/kernel/ptrace.c tls_get(); newer kernels add TPIDR2 after
 * it, which a shorter iovec leaves out).
 */
int hwbpi_linux_tls_block(pid_t tid, uint64_t memsz, uint64_t align, uint64_t *block)
{
	uint64_t tp = 0;
	struct iovec iov = { &tp, sizeof(tp) };

	(void)memsz;
	if (ptrace(PTRACE_GETREGSET, tid, (void *)(uintptr_t)NT_ARM_TLS, &iov))
		return -errno;
	if (tp == 0)
		return -ENXIO;
	if (align == 0)
		align = 1;
	*block = tp + (16 + align - 1) / align * align;
	return 0;
}

/* ---- call stacks ---- */

/* DWARF for the Arm 64-bit Architecture (AADWARF64) 4.1: X0-X30 are 0-30,
 * SP 31; PERF_REG_ARM64_X29, LR, SP, PC are bits 29-32 (asm/perf_regs.h),
 * so a sample's regs are X29, LR, SP, PC in that order. */
#define DW_AARCH64_X29 29
#define DW_AARCH64_X30 30
#define DW_AARCH64_SP 31

const uint64_t hwbpi_linux_perf_uregs = (UINT64_C(1) << PERF_REG_ARM64_X29) |
					(UINT64_C(1) << PERF_REG_ARM64_LR) |
					(UINT64_C(1) << PERF_REG_ARM64_SP) |
					(UINT64_C(1) << PERF_REG_ARM64_PC);

/* A trap frame's registers for PERF_SAMPLE_REGS_INTR: X0-X30, SP, PC
 * (bits 0-32, PERF_REG_ARM64_MAX; arch/arm64/kernel/perf_regs.c). */
const uint64_t hwbpi_linux_perf_iregs = (UINT64_C(1) << PERF_REG_ARM64_MAX) - 1;

/* The link register too: a leaf function returns through X30 without
 * saving it, and its CFI says so (the return address rule is X30 itself). */
static void uregs_fill(struct hwbpi_uregs *u, uint64_t pc, uint64_t sp, uint64_t fp, uint64_t lr)
{
	memset(u, 0, sizeof(*u));
	u->pc = pc;
	u->sp = sp;
	u->fp = fp;
	u->n = 3;
	u->dwarf[0] = DW_AARCH64_X29;
	u->val[0] = fp;
	u->dwarf[1] = DW_AARCH64_X30;
	u->val[1] = lr;
	u->dwarf[2] = DW_AARCH64_SP;
	u->val[2] = sp;
}

int hwbpi_linux_uregs_perf(uint64_t abi, const uint64_t *regs, unsigned nregs,
			   struct hwbpi_uregs *u)
{
	/* An AArch32 task reports PERF_SAMPLE_REGS_ABI_32: not unwound. */
	if (abi != PERF_SAMPLE_REGS_ABI_64)
		return -EOPNOTSUPP;
	if (nregs < 4)
		return -EINVAL;
	uregs_fill(u, regs[3], regs[2], regs[0], regs[1]);
	return 0;
}

int hwbpi_linux_uregs(pid_t tid, struct hwbpi_uregs *u)
{
	struct user_regs_struct ur;
	int ret = prstatus(tid, PTRACE_GETREGSET, &ur);

	if (ret == 0)
		uregs_fill(u, ur.pc, ur.sp, ur.regs[29], ur.regs[30]);
	return ret;
}

/* X29 -> {saved X29, saved X30}: the AAPCS64 frame record. */
const enum hwbpi_linux_fp hwbpi_linux_fp_chain = HWBPI_FP_RECORD;
