/* SPDX-License-Identifier: MIT */
/*
 * powerpc Linux ptrace glue (tracer/backends/linux/glue.h; built only for Linux on
 * ppc64/ppc64le): the model from PPC_PTRACE_GETHWDBGINFO, each planned
 * data slot as one PPC_PTRACE_SETHWDEBUG request (its piece read back
 * from hwbp's own DAWR/DABR encoding), PPC_PTRACE_DELHWDEBUG to clear,
 * hits from the TRAP_HWBKPT siginfo (man 2 ptrace;
 * Documentation/arch/powerpc/ptrace.rst; arch/powerpc/kernel/ptrace/
 * ptrace-noadv.c ppc_set_hwdebug() / ppc_del_hwdebug()).
 *
 * Built in the ppc64le cross build; no powerpc guest runs it yet.
 */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <asm/ptrace.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>

#include <hwbp/powerpc.h>

#include "backends/linux/glue.h"
#include "linux_decode.h"

#ifndef TRAP_BRKPT
#define TRAP_BRKPT 1   /* include/uapi/asm-generic/siginfo.h */
#endif
#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4   /* include/uapi/asm-generic/siginfo.h */
#endif

/*
 * arch/powerpc/include/uapi/asm/ptrace.h, spelled here so that
 * <asm/ptrace.h> and glibc's <sys/ptrace.h> need not be mixed (a stable
 * ABI: "version 1").
 */
#define PPC_PTRACE_GETHWDBGINFO 0x89
#define PPC_PTRACE_SETHWDEBUG 0x88
#define PPC_PTRACE_DELHWDEBUG 0x87
#define TRIGGER_READ 0x2u
#define TRIGGER_WRITE 0x4u
#define MODE_RANGE_INCLUSIVE 0x1u
#define CONDITION_NONE 0x0u
#define PT_NIP 32   /* pt_regs word of the next instruction address */

struct dbginfo {
	uint32_t version, num_instruction_bps, num_data_bps, num_condition_regs;
	uint32_t data_bp_alignment, sizeof_condition;
	uint64_t features;
};

struct hwbreak {
	uint32_t version, trigger_type, addr_mode, condition_mode;
	uint64_t addr, addr2, condition_value;
};

int hwbpi_linux_cpu(pid_t tid, struct hwbp_cpu *cpu)
{
	struct dbginfo d;

	memset(&d, 0, sizeof(d));
	if (ptrace((enum __ptrace_request)PPC_PTRACE_GETHWDBGINFO, tid, NULL, &d))
		return errno == EIO || errno == EINVAL ? -EOPNOTSUPP : -errno;
	return hwbpi_powerpc_linux_cpu(d.num_instruction_bps, d.num_data_bps, d.features, cpu);
}

/*
 * Clear, then set each enabled data slot.  The one ptrace breakpoint is
 * deleted first even when it is there already: after a hit the kernel
 * has disabled it (ptrace breakpoints are one-shot on powerpc:
 * ptrace_triggered()) but still holds it, and ppc_set_hwdebug() refuses
 * a second one with -ENOSPC.  Handle 1 is the only one it hands out.
 */
int hwbpi_linux_write(pid_t tid, const struct hwbp_cpu *cpu, const struct hwbp_regs *regs)
{
	struct hwbp_caps caps;
	int ret, set = 0;

	if (!cpu || !regs || cpu->arch != HWBP_ARCH_POWERPC || regs->arch != HWBP_ARCH_POWERPC)
		return -EINVAL;
	ret = hwbp_caps_get(cpu, &caps);
	if (ret)
		return ret;
	if (ptrace((enum __ptrace_request)PPC_PTRACE_DELHWDEBUG, tid, NULL, (void *)1L) &&
	    errno != ENOENT)
		return -errno;
	for (unsigned i = 0; i < caps.inst_slots; i++) {
		struct hwbp_piece p;
		enum hwbp_scope sc;

		if (hwbp_decode_slot(cpu, regs, i, true, &p, &sc) != 0)
			return -EOPNOTSUPP;   /* CIABR: not offered to ptrace */
	}
	for (unsigned i = 0; i < caps.data_slots; i++) {
		struct hwbp_piece p;
		enum hwbp_scope sc;
		struct hwbreak b;
		int r = hwbp_decode_slot(cpu, regs, i, false, &p, &sc);

		if (r < 0)
			return r;
		if (r == 0)
			continue;
		if (set++) {
			ptrace((enum __ptrace_request)PPC_PTRACE_DELHWDEBUG, tid, NULL, (void *)1L);
			return -ENOSPC;
		}
		/* The range's length is addr2 - addr (ppc_set_hwdebug()). */
		memset(&b, 0, sizeof(b));
		b.version = 1;
		b.trigger_type = ((p.type & HWBP_R) ? TRIGGER_READ : 0) |
				 ((p.type & HWBP_W) ? TRIGGER_WRITE : 0);
		b.addr_mode = MODE_RANGE_INCLUSIVE;
		b.condition_mode = CONDITION_NONE;
		b.addr = p.addr;
		b.addr2 = p.addr + p.len;
		if (ptrace((enum __ptrace_request)PPC_PTRACE_SETHWDEBUG, tid, NULL, &b) < 0)
			return -errno;
	}
	return 0;
}

/* No read of the slots through ptrace: deleting the one breakpoint
 * hwbpi_linux_write() sets (handle 1) again tells whether it was still
 * there (ENOENT: it was not; else it is gone now). */
int hwbpi_linux_armed(pid_t tid, const struct hwbp_cpu *cpu)
{
	(void)cpu;
	if (ptrace((enum __ptrace_request)PPC_PTRACE_DELHWDEBUG, tid, NULL, (void *)1L) == 0)
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

int hwbpi_linux_hit(pid_t tid, const struct hwbp_cpu *cpu, const struct hwbp_regs *armed,
		    const siginfo_t *si, struct hwbp_status *st)
{
	long nip;

	(void)cpu;
	(void)armed;
	if (!si || si->si_signo != SIGTRAP || si->si_code != TRAP_HWBKPT)
		return -ENOENT;
	errno = 0;
	nip = ptrace(PTRACE_PEEKUSER, tid, (void *)(PT_NIP * sizeof(long)), NULL);
	if (errno)
		return -errno;
	return hwbpi_powerpc_linux_status((uint64_t)nip, (uint64_t)(uintptr_t)si->si_addr, st);
}

int hwbpi_linux_hit_done(pid_t tid)
{
	(void)tid;
	return 0;
}

/* The DSI comes before the access and ptrace breakpoints are one-shot:
 * the tracer steps with nothing armed and sets the breakpoint again. */
const bool hwbpi_linux_step_over = true;

/* The kernel emulates the access (stepping_handler(): emulate_step())
 * and reports the hit after it, with the IP of the next instruction: one
 * instruction (4 bytes) back is the access. */
const uint64_t hwbpi_linux_trap_ip_adjust = 4;

int hwbpi_linux_piece_ok(const struct hwbp_cpu *cpu, bool inst, const struct hwbp_piece *piece,
			 char *why, size_t whylen)
{
	(void)cpu;
	(void)piece;
	if (inst) {
		snprintf(why, whylen, "Linux offers a task no instruction breakpoint on this CPU");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* `trap` (tw 31,0,0: Power ISA book I, 3.3.11), 0x7fe00008 in the
 * instruction byte order, which is the data's on Linux: NIP at the trap. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
const uint8_t hwbpi_linux_trap[4] = { 0x08, 0x00, 0xe0, 0x7f };
#else
const uint8_t hwbpi_linux_trap[4] = { 0x7f, 0xe0, 0x00, 0x08 };
#endif
const unsigned hwbpi_linux_trap_len = 4;

/* check_constraints() (arch/powerpc/kernel/hw_breakpoint.c) drops a hit
 * whose access kind the DAWR's read/write bits do not include. */
const enum hwbpi_linux_split hwbpi_linux_kind_split = HWBPI_SPLIT_PAIR;

/* check_constraints() (arch/powerpc/kernel/hw_breakpoint.c) decodes the
 * instruction and marks a hit on the doubleword's other bytes extraneous;
 * hw_breakpoint_handler() then skips perf_bp_event().  (pid_max and
 * pid_max_max share a doubleword in Debian's 6.1 ppc64el kernel: with
 * the whole doubleword asked for, each sysctl write's bounds check read
 * of pid_max_max counted as a hit of pid_max.) */
const bool hwbpi_linux_exact_range = true;

/* ptrace gives a task one DAWR (hwbpi_powerpc_linux_cpu()), perf every
 * slot of nr_wp_slots(): on ISA 3.1 (POWER10) a second one is DAWR1. */
int hwbpi_linux_kernel_cpu(struct hwbp_cpu *cpu, unsigned nslots)
{
	if (!cpu || cpu->arch != HWBP_ARCH_POWERPC)
		return -EINVAL;
	if (nslots >= 2 && cpu->u.ppc.isa >= 310 && (cpu->u.ppc.units & HWBP_PPC_DAWR0))
		cpu->u.ppc.units |= HWBP_PPC_DAWR1;
	return 0;
}

/* asm/perf_regs.h: R1, R3-R8, LINK, in that (bit) order. */
const uint64_t hwbpi_linux_perf_callregs = (UINT64_C(1) << PERF_REG_POWERPC_R1) |
					   (UINT64_C(0x3f) << PERF_REG_POWERPC_R3) |
					   (UINT64_C(1) << PERF_REG_POWERPC_LINK);

int hwbpi_linux_call_perf(const uint64_t *regs, unsigned nregs, uint64_t stack0,
			  struct hwbpi_linux_call *c)
{
	(void)stack0;
	if (nregs < 8)
		return -EINVAL;
	/* ELFv2: arguments in R3-R10, the result in R3, bl left the return
	 * address in LR; R1 the stack pointer. */
	for (unsigned i = 0; i < HWBPI_CALL_ARGS; i++)
		c->arg[i] = regs[1 + i];
	c->ret = regs[1];
	c->sp = regs[0];
	c->ra = regs[7];
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
	return -EOPNOTSUPP;   /* the hardware reports the access (DAR): nothing to decode */
}

int hwbpi_linux_dwarf_regs(pid_t tid, uint64_t *v, unsigned n, uint64_t *known)
{
	(void)tid;
	(void)v;
	(void)n;
	*known = 0;
	return -EOPNOTSUPP;   /* the hardware reports the access (DAR): nothing to decode */
}

int hwbpi_linux_pc(pid_t tid, uint64_t *pc)
{
	long nip;

	errno = 0;
	nip = ptrace(PTRACE_PEEKUSER, tid, (void *)(PT_NIP * sizeof(long)), NULL);
	if (errno)
		return -errno;
	*pc = (uint64_t)nip;
	return 0;
}

int hwbpi_linux_set_pc(pid_t tid, uint64_t pc)
{
	return ptrace(PTRACE_POKEUSER, tid, (void *)(PT_NIP * sizeof(long)), (void *)(uintptr_t)pc) ?
		-errno : 0;
}

/* arch/powerpc/kernel/hw_breakpoint.c: an instruction breakpoint
 * (CIABR) covers one 4-byte instruction, HW_BREAKPOINT_LEN_4. */
uint64_t hwbpi_linux_exec_len(void)
{
	return 4;
}

#define PT_R13 13   /* pt_regs word of r13, the thread pointer */

/*
 * TLS variant I as the 64-bit ELF ABI for Power lays it out ("Thread
 * Local Storage"): r13 points 0x7000 bytes past the start of the
 * executable's block (the bias lets 16-bit offsets reach 64 KiB of TLS);
 * the linker's local-exec offsets are st_value - 0x7000.
 */
int hwbpi_linux_tls_block(pid_t tid, uint64_t memsz, uint64_t align, uint64_t *block)
{
	long r13;

	(void)memsz;
	(void)align;
	errno = 0;
	r13 = ptrace(PTRACE_PEEKUSER, tid, (void *)(PT_R13 * sizeof(long)), NULL);
	if (errno)
		return -errno;
	if (r13 == 0)
		return -ENXIO;
	*block = (uint64_t)r13 - 0x7000;
	return 0;
}

/* ---- call stacks ---- */

/* The 64-bit ELF ABI's DWARF numbers: r1 is 1, LR 65; PERF_REG_POWERPC_R1,
 * NIP, LINK are bits 1, 32, 36 (asm/perf_regs.h), so a sample's regs are
 * R1, NIP, LINK in that order. */
#define DW_PPC64_R1 1
#define DW_PPC64_LR 65

const uint64_t hwbpi_linux_perf_uregs = (UINT64_C(1) << PERF_REG_POWERPC_R1) |
					(UINT64_C(1) << PERF_REG_POWERPC_NIP) |
					(UINT64_C(1) << PERF_REG_POWERPC_LINK);

/* A trap frame's registers for PERF_SAMPLE_REGS_INTR: R0-R31 and NIP
 * (bits 0-32, arch/powerpc/perf/perf_regs.c). */
const uint64_t hwbpi_linux_perf_iregs = (UINT64_C(1) << (PERF_REG_POWERPC_NIP + 1)) - 1;

/* LR as on arm64: a leaf returns through it; r1 is the stack pointer and
 * the start of the back chain (there is no separate frame pointer). */
static void uregs_fill(struct hwbpi_uregs *u, uint64_t nip, uint64_t r1, uint64_t lr)
{
	memset(u, 0, sizeof(*u));
	u->pc = nip;
	u->sp = r1;
	u->fp = r1;
	u->n = 2;
	u->dwarf[0] = DW_PPC64_R1;
	u->val[0] = r1;
	u->dwarf[1] = DW_PPC64_LR;
	u->val[1] = lr;
}

int hwbpi_linux_uregs_perf(uint64_t abi, const uint64_t *regs, unsigned nregs,
			   struct hwbpi_uregs *u)
{
	if (abi != PERF_SAMPLE_REGS_ABI_64)
		return -EOPNOTSUPP;
	if (nregs < 3)
		return -EINVAL;
	uregs_fill(u, regs[1], regs[0], regs[2]);
	return 0;
}

static int peek_user(pid_t tid, unsigned reg, uint64_t *v)
{
	long x;

	errno = 0;
	x = ptrace(PTRACE_PEEKUSER, tid, (void *)(reg * sizeof(long)), NULL);
	if (errno)
		return -errno;
	*v = (uint64_t)x;
	return 0;
}

int hwbpi_linux_uregs(pid_t tid, struct hwbpi_uregs *u)
{
	uint64_t nip, r1, lr;
	int ret = peek_user(tid, PT_NIP, &nip);

	if (ret == 0)
		ret = peek_user(tid, PT_R1, &r1);
	if (ret == 0)
		ret = peek_user(tid, PT_LNK, &lr);
	if (ret == 0)
		uregs_fill(u, nip, r1, lr);
	return ret;
}

/* r1 -> the caller's r1 (the back chain); the LR save doubleword. */
const enum hwbpi_linux_fp hwbpi_linux_fp_chain = HWBPI_FP_BACKCHAIN;

const unsigned hwbpi_linux_trap_pc_after = 0;

/* A `trap` instruction comes as TRAP_BRKPT (program_check_exception()
 * in arch/powerpc/kernel/traps.c: REASON_TRAP); a DAWR hit as
 * TRAP_HWBKPT. */
bool hwbpi_linux_trap_si(const siginfo_t *si)
{
	return si->si_code == TRAP_BRKPT;
}

int hwbpi_linux_call(pid_t tid, struct hwbpi_linux_call *c)
{
	uint64_t v;
	int ret = 0;

	/* 64-bit ELF V2 ABI 2.2.3: arguments in R3-R10, the result in R3;
	 * bl left the return address in LR; R1 is the stack pointer. */
	for (unsigned i = 0; ret == 0 && i < HWBPI_CALL_ARGS; i++)
		if ((ret = peek_user(tid, PT_R3 + i, &v)) == 0)
			c->arg[i] = v;
	c->ret = c->arg[0];
	if (ret == 0 && (ret = peek_user(tid, PT_LNK, &v)) == 0)
		c->ra = v;
	if (ret == 0 && (ret = peek_user(tid, PT_R1, &v)) == 0)
		c->sp = v;
	return ret;
}
