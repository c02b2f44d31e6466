/* SPDX-License-Identifier: MIT */
/*
 * powerpc under Linux ptrace, the pure part (tracer/backends/linux/glue.h; built on
 * every host).
 */
#include <errno.h>
#include <string.h>

#include <hwbp/powerpc.h>

#include "backends/linux/glue.h"
#include "linux_decode.h"

/* struct ppc_debug_info.features (arch/powerpc/include/uapi/asm/ptrace.h). */
#define FEATURE_DATA_BP_DAWR 0x10u
#define FEATURE_DATA_BP_ARCH_31 0x20u

int hwbpi_powerpc_linux_cpu(uint32_t num_inst_bps, uint32_t num_data_bps, uint64_t features,
			    struct hwbp_cpu *cpu)
{
	if (!cpu)
		return -EINVAL;
	if (num_data_bps == 0)
		return -EOPNOTSUPP;
	memset(cpu, 0, sizeof(*cpu));
	cpu->arch = HWBP_ARCH_POWERPC;
	/*
	 * One data breakpoint, whatever num_data_bps says (nr_wp_slots():
	 * 2 on POWER10): ppc_set_hwdebug() in arch/powerpc/kernel/ptrace/
	 * ptrace-noadv.c keeps one ptrace breakpoint per thread
	 * (ptrace_bps[0]) and answers -ENOSPC to a second.  It is a DAWR
	 * (features DATA_BP_DAWR; with the ISA 3.1 rules when DATA_BP_ARCH_31
	 * is reported) or else the DABR (one doubleword).  Server kernels
	 * report no instruction breakpoint (num_instruction_bps = 0): a
	 * count there is taken as the CIABR.
	 */
	if (features & FEATURE_DATA_BP_ARCH_31) {
		cpu->u.ppc.isa = 310;
		cpu->u.ppc.units = HWBP_PPC_DAWR0;
	} else if (features & FEATURE_DATA_BP_DAWR) {
		cpu->u.ppc.isa = 300;
		cpu->u.ppc.units = HWBP_PPC_DAWR0;
	} else {
		cpu->u.ppc.isa = 206;
		cpu->u.ppc.units = HWBP_PPC_DABR;
	}
	if (num_inst_bps && cpu->u.ppc.isa >= 207)
		cpu->u.ppc.units |= HWBP_PPC_CIABR;
	strncpy(cpu->name, "powerpc-linux", sizeof(cpu->name) - 1);
	return 0;
}

int hwbpi_powerpc_linux_status(uint64_t nip, uint64_t addr, struct hwbp_status *st)
{
	if (!st)
		return -EINVAL;
	/*
	 * do_break() (arch/powerpc/kernel/traps.c) sends SIGTRAP/TRAP_HWBKPT
	 * with si_addr = DAR of the Data Storage interrupt; DSISR is not
	 * passed on.  The match bit (41) is set; the store bit (38) is not
	 * known, and hwbp's decoder reads a clear one as "either kind".
	 */
	memset(st, 0, sizeof(*st));
	st->ip = nip;
	st->u.ppc.vector = HWBP_PPC_VEC_DSI;
	st->u.ppc.dsisr = HWBP_PPC_DSISR_DABRMATCH;
	st->u.ppc.dar = addr;
	return 0;
}
