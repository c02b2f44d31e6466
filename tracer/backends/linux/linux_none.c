/* SPDX-License-Identifier: MIT */
/*
 * The Linux ptrace glue (tracer/backends/linux/glue.h) for a CPU that hwbp has no
 * arch/<a>/linux.c for (i386, riscv64, ...): the library, the CLI and the
 * simulator backends build and work there; the ptrace backend reports
 * that this CPU has no debug registers it can program, in one line, from
 * its first call (hwbpi_linux_cpu), so nothing below it is ever reached.
 * Picked at build time by tracer/meson.build, like the arch glue.
 */
#include <errno.h>
#include <stdio.h>

#include "backends/linux/glue.h"

const bool hwbpi_linux_step_over = false;
/* No breakpoint events are programmed here: nothing to adjust. */
const uint64_t hwbpi_linux_trap_ip_adjust = 0;

int hwbpi_linux_cpu(pid_t tid, struct hwbp_cpu *cpu)
{
	(void)tid;
	(void)cpu;
	return -EOPNOTSUPP;
}

int hwbpi_linux_write(pid_t tid, const struct hwbp_cpu *cpu, const struct hwbp_regs *regs)
{
	(void)tid;
	(void)cpu;
	(void)regs;
	return -EOPNOTSUPP;
}

int hwbpi_linux_armed(pid_t tid, const struct hwbp_cpu *cpu)
{
	(void)tid;
	(void)cpu;
	return -EOPNOTSUPP;
}

int hwbpi_linux_hit(pid_t tid, const struct hwbp_cpu *cpu, const struct hwbp_regs *armed,
		    const siginfo_t *si, struct hwbp_status *st)
{
	(void)tid;
	(void)cpu;
	(void)armed;
	(void)si;
	(void)st;
	return -EOPNOTSUPP;
}

int hwbpi_linux_hit_done(pid_t tid)
{
	(void)tid;
	return -EOPNOTSUPP;
}

int hwbpi_linux_piece_ok(const struct hwbp_cpu *cpu, bool inst, const struct hwbp_piece *piece,
			 char *why, size_t whylen)
{
	(void)cpu;
	(void)inst;
	(void)piece;
	if (why && whylen)
		snprintf(why, whylen, "no ptrace debug-register glue for this CPU");
	return -EOPNOTSUPP;
}

const uint8_t hwbpi_linux_trap[4];
const unsigned hwbpi_linux_trap_len = 0;

const enum hwbpi_linux_split hwbpi_linux_kind_split = HWBPI_SPLIT_NONE;

const bool hwbpi_linux_exact_range = false;

int hwbpi_linux_kernel_cpu(struct hwbp_cpu *cpu, unsigned nslots)
{
	(void)cpu;
	(void)nslots;
	return -EOPNOTSUPP;
}

const unsigned hwbpi_linux_trap_pc_after = 0;

bool hwbpi_linux_trap_si(const siginfo_t *si)
{
	(void)si;
	return false;   /* no trap is planted */
}

int hwbpi_linux_call(pid_t tid, struct hwbpi_linux_call *c)
{
	(void)tid;
	(void)c;
	return -EOPNOTSUPP;
}

const uint64_t hwbpi_linux_perf_callregs = 0;

int hwbpi_linux_call_perf(const uint64_t *regs, unsigned nregs, uint64_t stack0,
			  struct hwbpi_linux_call *c)
{
	(void)regs;
	(void)nregs;
	(void)stack0;
	(void)c;
	return -EOPNOTSUPP;
}

int hwbpi_linux_dwarf_regs(pid_t tid, uint64_t *v, unsigned n, uint64_t *known)
{
	(void)tid;
	(void)v;
	(void)n;
	*known = 0;
	return -EOPNOTSUPP;
}

int hwbpi_linux_perf_dwarf_regs(const uint64_t *vals, unsigned nvals, uint64_t *v, unsigned n,
				uint64_t *known)
{
	(void)vals;
	(void)nvals;
	(void)v;
	(void)n;
	*known = 0;
	return -EOPNOTSUPP;
}

int hwbpi_linux_pc(pid_t tid, uint64_t *pc)
{
	(void)tid;
	(void)pc;
	return -EOPNOTSUPP;
}

int hwbpi_linux_set_pc(pid_t tid, uint64_t pc)
{
	(void)tid;
	(void)pc;
	return -EOPNOTSUPP;
}

/* No debug-register glue here; x86's rule (i386 is the CPU this file
 * serves most) keeps perf's own validation the judge. */
uint64_t hwbpi_linux_exec_len(void)
{
	return sizeof(long);
}

int hwbpi_linux_tls_block(pid_t tid, uint64_t memsz, uint64_t align, uint64_t *block)
{
	(void)tid;
	(void)memsz;
	(void)align;
	(void)block;
	return -EOPNOTSUPP;
}

/* No glue: no registers to unwind from, no frame chain known. */
const uint64_t hwbpi_linux_perf_uregs = 0;
const uint64_t hwbpi_linux_perf_iregs = 0;
const enum hwbpi_linux_fp hwbpi_linux_fp_chain = HWBPI_FP_NONE;

int hwbpi_linux_uregs_perf(uint64_t abi, const uint64_t *regs, unsigned nregs,
			   struct hwbpi_uregs *u)
{
	(void)abi;
	(void)regs;
	(void)nregs;
	(void)u;
	return -EOPNOTSUPP;
}

int hwbpi_linux_uregs(pid_t tid, struct hwbpi_uregs *u)
{
	(void)tid;
	(void)u;
	return -EOPNOTSUPP;
}
