/* SPDX-License-Identifier: MIT */
/*
 * x86_64 Linux ptrace glue (tracer/backends/linux/glue.h; built only for Linux on
 * x86_64): DR0-DR3 and DR7 written with PTRACE_POKEUSER on struct user's
 * u_debugreg[] (man 2 ptrace; arch/x86/kernel/ptrace.c
 * ptrace_set_debugreg()) with hwbp's own DR7 encoding, hits from DR6
 * (PTRACE_PEEKUSER).
 */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>

#include "backends/linux/glue.h"
#include "linux_decode.h"

#ifndef TRAP_TRACE
#define TRAP_TRACE 2   /* include/uapi/asm-generic/siginfo.h */
#endif
#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4   /* include/uapi/asm-generic/siginfo.h */
#endif
#ifndef TRAP_BRKPT
#define TRAP_BRKPT 1
#endif

/* struct user's u_debugreg[n] (sys/user.h), the offsets PEEKUSER and
 * POKEUSER take for DR0-DR7 (arch/x86/kernel/ptrace.c: arch_ptrace()). */
#define DR_OFF(n) (offsetof(struct user, u_debugreg) + (size_t)(n) * sizeof(long))

/*
 * Does the kernel run with 5-level paging?  /proc/cpuinfo's "la57" flag
 * says so: early_identify_cpu() (arch/x86/kernel/cpu/common.c) clears
 * X86_FEATURE_LA57 when pgtable_l5_enabled() is false (no5lvl, a CPU or
 * a build without it), so the flag is the kernel's choice, not the CPU's
 * ability.  Unreadable: no (the 48-bit split, as before).
 */
static bool kernel_la57(void)
{
	char line[8192];   /* a flags line is about 1.5 KB */
	bool yes = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "flags", 5) == 0) {
			yes = strstr(line, " la57 ") || strstr(line, " la57\n");
			break;
		}
	fclose(f);
	return yes;
}

int hwbpi_linux_cpu(pid_t tid, struct hwbp_cpu *cpu)
{
	/* Four debug registers per thread in long mode, whatever the
	 * model: Linux gives ptrace no AMD address masks. */
	int ret = hwbp_cpu_preset("x86_64", cpu);

	(void)tid;
	if (ret == 0)
		cpu->u.x86.la57 = kernel_la57();
	return ret;
}

static int poke_dr(pid_t tid, unsigned n, uint64_t v)
{
	return ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFF(n), (void *)(uintptr_t)v) ? -errno : 0;
}

/*
 * Addresses first, DR7 last, because ptrace_write_dr7() validates each
 * slot it enables against the address already written
 * (arch_build_bp_info() in arch/x86/kernel/hw_breakpoint.c: alignment to
 * the length).  DR7 goes to 0 first so that no slot is ever enabled with
 * a half-written configuration.
 */
int hwbpi_linux_write(pid_t tid, const struct hwbp_cpu *cpu, const struct hwbp_regs *r)
{
	int ret;

	if (!cpu || !r || cpu->arch != HWBP_ARCH_X86 || r->arch != HWBP_ARCH_X86)
		return -EINVAL;
	ret = poke_dr(tid, 7, 0);
	for (unsigned i = 0; ret == 0 && i < 4; i++)
		if (r->u.x86.dr[i] || (r->u.x86.dr7 & (3u << (2 * i))))
			ret = poke_dr(tid, i, r->u.x86.dr[i]);
	if (ret == 0)
		ret = poke_dr(tid, 7, hwbpi_x86_linux_dr7(r->u.x86.dr7));
	if (ret && ret != -ESRCH)
		poke_dr(tid, 7, 0);
	return ret;
}

/* DR7's enable bits as the kernel keeps them for the thread
 * (ptrace_get_dr7() rebuilds DR7 from the thread's ptrace_bps). */
int hwbpi_linux_armed(pid_t tid, const struct hwbp_cpu *cpu)
{
	long dr7;

	(void)cpu;
	errno = 0;
	dr7 = ptrace(PTRACE_PEEKUSER, tid, (void *)DR_OFF(7), NULL);
	if (errno)
		return -errno;
	return (dr7 & 0xff) != 0;   /* L0-L3, G0-G3 */
}

/*
 * A #DB whose DR6 has no B bit, though data slots are armed.  Linux takes
 * such an exception for ICEBP (INT1, opcode 0xf1): exc_debug_user() sets
 * icebp = !dr6 and sends SIGTRAP with TRAP_BRKPT (get_si_code()).  Seen
 * on an Intel host under Firecracker while the other CPU was busy: about
 * one data hit in three million of a store loop came so, which killed the
 * program (the SIGTRAP is its own, to the kernel).  Unless the byte
 * before the IP is 0xf1 (a real INT1, a trap: the IP after it), the
 * status names every armed data slot (DR7 L/G bits with R/W not 00,
 * execute) and the caller tells by the watched bytes which one it was.
 */
static int lost_status(pid_t tid, const struct hwbp_regs *armed, const siginfo_t *si,
		       struct hwbp_status *st)
{
	uint64_t slots = 0;
	long word;

	if (!armed || !si || si->si_signo != SIGTRAP || si->si_code != TRAP_BRKPT)
		return -ENOENT;
	for (unsigned i = 0; i < 4; i++)
		if ((armed->u.x86.dr7 & (3u << (2 * i))) && (armed->u.x86.dr7 >> (16 + 4 * i) & 3))
			slots |= 1u << i;
	if (!slots)
		return -ENOENT;
	errno = 0;
	word = ptrace(PTRACE_PEEKDATA, tid, (void *)(uintptr_t)(st->ip - 1), NULL);
	if (errno || (word & 0xff) == 0xf1)
		return -ENOENT;
	st->u.x86.dr6 = slots;
	return 1;
}

int hwbpi_linux_hit(pid_t tid, const struct hwbp_cpu *cpu, const struct hwbp_regs *armed,
		    const siginfo_t *si, struct hwbp_status *st)
{
	struct user_regs_struct ur;
	long dr6;

	(void)cpu;
	(void)armed;
	/*
	 * DR6 as the kernel keeps it for the debugger: B0-B3 of the ptrace
	 * breakpoints that fired (ptrace_triggered() sets virtual_dr6).  The
	 * siginfo says TRAP_HWBKPT too; either is taken (older kernels).
	 */
	errno = 0;
	dr6 = ptrace(PTRACE_PEEKUSER, tid, (void *)DR_OFF(6), NULL);
	if (errno)
		return -errno;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &ur))
		return -errno;
	memset(st, 0, sizeof(*st));
	st->ip = ur.rip;
	st->u.x86.dr6 = (uint64_t)dr6;
	if ((dr6 & 0xf) || (si && si->si_signo == SIGTRAP && si->si_code == TRAP_HWBKPT))
		return 0;
	return lost_status(tid, armed, si, st);
}

int hwbpi_linux_hit_done(pid_t tid)
{
	/* The kernel clears its virtual DR6 at the next debug exception
	 * (exc_debug_user()); cleared here too for older kernels, where the
	 * bits were sticky as on the hardware. */
	return poke_dr(tid, 6, 0);
}

/* Data breakpoints trap after the access; after an execute breakpoint
 * Linux sets RF so that the instruction runs (hw_breakpoint_handler()). */
const bool hwbpi_linux_step_over = false;

/* A data hit is a trap: the IP is the instruction after the access (the
 * kernel's hw_breakpoint_handler() reports the trap frame as it is); one
 * byte back is inside the accessing instruction. */
const uint64_t hwbpi_linux_trap_ip_adjust = 1;

int hwbpi_linux_piece_ok(const struct hwbp_cpu *cpu, bool inst, const struct hwbp_piece *piece,
			 char *why, size_t whylen)
{
	/* Every x86_64 piece (1/2/4/8 bytes, aligned) is one DR. */
	(void)cpu;
	(void)inst;
	(void)piece;
	(void)why;
	(void)whylen;
	return 0;
}

/* INT3 (Intel SDM vol. 2A, "INT n/INTO/INT3"): a trap, RIP after it. */
const uint8_t hwbpi_linux_trap[4] = { 0xcc };
const unsigned hwbpi_linux_trap_len = 1;

/* No load-only type (arch_build_bp_info() refuses HW_BREAKPOINT_R), so a
 * store-only twin beside the RW slot; hw_breakpoint_handler() reports
 * every DR6 bit set, and a store sets both (SDM Vol. 3B 18.2.3). */
const enum hwbpi_linux_split hwbpi_linux_kind_split = HWBPI_SPLIT_TWIN;

/* hw_breakpoint_arch_parse() takes 1, 2, 4 or 8 aligned bytes; a hit on
 * any byte of them is reported. */
const bool hwbpi_linux_exact_range = false;

/* Four debug registers for ptrace and perf alike: the model stands. */
int hwbpi_linux_kernel_cpu(struct hwbp_cpu *cpu, unsigned nslots)
{
	(void)nslots;
	return cpu ? 0 : -EINVAL;
}

const unsigned hwbpi_linux_trap_pc_after = 1;

/* INT3 from user mode comes as SI_KERNEL (do_int3_user(): do_trap() and
 * force_sig()); a debug register's hit and a step as TRAP_BRKPT,
 * TRAP_HWBKPT or TRAP_TRACE (exc_debug_user(), get_si_code()): any other
 * code may be a trap's, its PC then tells. */
bool hwbpi_linux_trap_si(const siginfo_t *si)
{
	return si->si_code != TRAP_HWBKPT && si->si_code != TRAP_TRACE && si->si_code != TRAP_BRKPT;
}

int hwbpi_linux_call(pid_t tid, struct hwbpi_linux_call *c)
{
	struct user_regs_struct ur;
	long ra;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &ur))
		return -errno;
	/* System V AMD64 ABI 3.2.3: INTEGER arguments in RDI, RSI, RDX,
	 * RCX, R8, R9; returned in RAX; CALL pushed the return address. */
	c->arg[0] = ur.rdi;
	c->arg[1] = ur.rsi;
	c->arg[2] = ur.rdx;
	c->arg[3] = ur.rcx;
	c->arg[4] = ur.r8;
	c->arg[5] = ur.r9;
	c->ret = ur.rax;
	c->sp = ur.rsp;
	errno = 0;
	ra = ptrace(PTRACE_PEEKDATA, tid, (void *)(uintptr_t)ur.rsp, NULL);
	c->ra = errno ? 0 : (uint64_t)ra;
	return 0;
}

/* asm/perf_regs.h: AX, CX, DX, SI, DI, SP, R8, R9, in that (bit) order. */
const uint64_t hwbpi_linux_perf_callregs =
	(UINT64_C(1) << PERF_REG_X86_AX) | (UINT64_C(1) << PERF_REG_X86_CX) |
	(UINT64_C(1) << PERF_REG_X86_DX) | (UINT64_C(1) << PERF_REG_X86_SI) |
	(UINT64_C(1) << PERF_REG_X86_DI) | (UINT64_C(1) << PERF_REG_X86_SP) |
	(UINT64_C(1) << PERF_REG_X86_R8) | (UINT64_C(1) << PERF_REG_X86_R9);

int hwbpi_linux_call_perf(const uint64_t *regs, unsigned nregs, uint64_t stack0,
			  struct hwbpi_linux_call *c)
{
	enum { AX, CX, DX, SI, DI, SP, R8, R9, N };

	if (nregs < N)
		return -EINVAL;
	/* The System V order, as hwbpi_linux_call(); the return address is
	 * the word CALL pushed, at RSP on entry. */
	c->arg[0] = regs[DI];
	c->arg[1] = regs[SI];
	c->arg[2] = regs[DX];
	c->arg[3] = regs[CX];
	c->arg[4] = regs[R8];
	c->arg[5] = regs[R9];
	c->ret = regs[AX];
	c->sp = regs[SP];
	c->ra = stack0;
	return 0;
}

int hwbpi_linux_dwarf_regs(pid_t tid, uint64_t *v, unsigned n, uint64_t *known)
{
	struct user_regs_struct ur;
	/* x86-64 psABI 3.6.2: RAX RDX RCX RBX RSI RDI RBP RSP R8-R15 RIP, then
	 * 49 RFLAGS, 58 FS.base, 59 GS.base. */
	const struct { unsigned d; unsigned long long *r; } map[] = {
		{ 0, &ur.rax }, { 1, &ur.rdx }, { 2, &ur.rcx }, { 3, &ur.rbx }, { 4, &ur.rsi },
		{ 5, &ur.rdi }, { 6, &ur.rbp }, { 7, &ur.rsp }, { 8, &ur.r8 }, { 9, &ur.r9 },
		{ 10, &ur.r10 }, { 11, &ur.r11 }, { 12, &ur.r12 }, { 13, &ur.r13 }, { 14, &ur.r14 },
		{ 15, &ur.r15 }, { 16, &ur.rip }, { 49, &ur.eflags }, { 58, &ur.fs_base },
		{ 59, &ur.gs_base },
	};

	if (ptrace(PTRACE_GETREGS, tid, NULL, &ur))
		return -errno;
	*known = 0;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].d < n && map[i].d < 64) {
			v[map[i].d] = *map[i].r;
			*known |= UINT64_C(1) << map[i].d;
		}
	return 0;
}

int hwbpi_linux_perf_dwarf_regs(const uint64_t *vals, unsigned nvals, uint64_t *v, unsigned n,
				uint64_t *known)
{
	/* asm/perf_regs.h numbers to the psABI's DWARF numbers (3.6.2). */
	static const signed char dwarf_of[PERF_REG_X86_64_MAX] = {
		[PERF_REG_X86_AX] = 0, [PERF_REG_X86_BX] = 3, [PERF_REG_X86_CX] = 2,
		[PERF_REG_X86_DX] = 1, [PERF_REG_X86_SI] = 4, [PERF_REG_X86_DI] = 5,
		[PERF_REG_X86_BP] = 6, [PERF_REG_X86_SP] = 7, [PERF_REG_X86_IP] = 16,
		[PERF_REG_X86_FLAGS] = 49, [PERF_REG_X86_CS] = -1, [PERF_REG_X86_SS] = -1,
		[PERF_REG_X86_DS] = -1, [PERF_REG_X86_ES] = -1, [PERF_REG_X86_FS] = -1,
		[PERF_REG_X86_GS] = -1, [PERF_REG_X86_R8] = 8, [PERF_REG_X86_R9] = 9,
		[PERF_REG_X86_R10] = 10, [PERF_REG_X86_R11] = 11, [PERF_REG_X86_R12] = 12,
		[PERF_REG_X86_R13] = 13, [PERF_REG_X86_R14] = 14, [PERF_REG_X86_R15] = 15,
	};
	unsigned k = 0;

	*known = 0;
	for (unsigned r = 0; r < PERF_REG_X86_64_MAX; r++) {
		if (!(hwbpi_linux_perf_iregs & (UINT64_C(1) << r)))
			continue;
		if (k >= nvals)
			return -EINVAL;
		if (dwarf_of[r] >= 0 && (unsigned)dwarf_of[r] < n) {
			v[dwarf_of[r]] = vals[k];
			*known |= UINT64_C(1) << dwarf_of[r];
		}
		k++;
	}
	return 0;
}

int hwbpi_linux_pc(pid_t tid, uint64_t *pc)
{
	struct user_regs_struct ur;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &ur))
		return -errno;
	*pc = ur.rip;
	return 0;
}

int hwbpi_linux_set_pc(pid_t tid, uint64_t pc)
{
	struct user_regs_struct ur;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &ur))
		return -errno;
	ur.rip = pc;
	return ptrace(PTRACE_SETREGS, tid, NULL, &ur) ? -errno : 0;
}

/* arch/x86/kernel/hw_breakpoint.c arch_build_bp_info(): an execute
 * breakpoint must have bp_len == sizeof(long) (DR7 LEN is then 00). */
uint64_t hwbpi_linux_exec_len(void)
{
	return sizeof(long);
}

/*
 * TLS variant II (the x86-64 psABI, "Thread-Local Storage"): the thread
 * pointer, FS's base, points at the TCB and the executable's block ends
 * right below it, roundup(p_memsz, p_align) bytes long; the linker's
 * local-exec offsets (R_X86_64_TPOFF32) are st_value less that size.
 * fs_base is in user_regs_struct (arch/x86/kernel/ptrace.c getreg()).
 */
int hwbpi_linux_tls_block(pid_t tid, uint64_t memsz, uint64_t align, uint64_t *block)
{
	struct user_regs_struct ur;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &ur))
		return -errno;
	if (ur.fs_base == 0)
		return -ENXIO;
	if (align == 0)
		align = 1;
	*block = ur.fs_base - (memsz + align - 1) / align * align;
	return 0;
}

/* ---- call stacks ---- */

/* The System V x86_64 psABI's DWARF numbers (3.6.2, figure 3.36). */
#define DW_X86_64_RBP 6
#define DW_X86_64_RSP 7

/* PERF_REG_X86_BP, SP, IP: bits 6, 7, 8 (asm/perf_regs.h), so a
 * sample's regs are BP, SP, IP in that order. */
const uint64_t hwbpi_linux_perf_uregs = (1u << PERF_REG_X86_BP) | (1u << PERF_REG_X86_SP) |
					(1u << PERF_REG_X86_IP);

/* A trap frame's registers for PERF_SAMPLE_REGS_INTR: AX ... FLAGS (bits
 * 0-9), CS, SS (10, 11) and R8-R15 (16-23); not DS, ES, FS, GS (12-15),
 * which perf_reg_validate() refuses on x86_64 (REG_NOSUPPORT,
 * arch/x86/kernel/perf_regs.c). */
const uint64_t hwbpi_linux_perf_iregs = UINT64_C(0xfff) | (UINT64_C(0xff) << PERF_REG_X86_R8);

static void uregs_fill(struct hwbpi_uregs *u, uint64_t ip, uint64_t sp, uint64_t bp)
{
	memset(u, 0, sizeof(*u));
	u->pc = ip;
	u->sp = sp;
	u->fp = bp;
	u->n = 2;
	u->dwarf[0] = DW_X86_64_RBP;
	u->val[0] = bp;
	u->dwarf[1] = DW_X86_64_RSP;
	u->val[1] = sp;
}

int hwbpi_linux_uregs_perf(uint64_t abi, const uint64_t *regs, unsigned nregs,
			   struct hwbpi_uregs *u)
{
	/* A 32-bit task reports PERF_SAMPLE_REGS_ABI_32 (perf_reg_abi()):
	 * its frames follow the i386 ABI, which this glue does not unwind. */
	if (abi != PERF_SAMPLE_REGS_ABI_64)
		return -EOPNOTSUPP;
	if (nregs < 3)
		return -EINVAL;
	uregs_fill(u, regs[2], regs[1], regs[0]);
	return 0;
}

int hwbpi_linux_uregs(pid_t tid, struct hwbpi_uregs *u)
{
	struct user_regs_struct ur;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &ur))
		return -errno;
	uregs_fill(u, ur.rip, ur.rsp, ur.rbp);
	return 0;
}

/* RBP -> {saved RBP, return address} where code keeps frame pointers. */
const enum hwbpi_linux_fp hwbpi_linux_fp_chain = HWBPI_FP_RECORD;
