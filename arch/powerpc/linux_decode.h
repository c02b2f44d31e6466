/* SPDX-License-Identifier: MIT */
/*
 * The pure part of the powerpc Linux glue (linux_decode.c, built on every host
 * for its tests): how the kernel's view maps to hwbp's CPU models and
 * status.  Internal to libhwbp-trace; the glue itself is linux.c
 * (tracer/backends/linux/glue.h).
 */
#ifndef HWBP_ARCH_POWERPC_LINUX_DECODE_H
#define HWBP_ARCH_POWERPC_LINUX_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include <hwbp/hwbp.h>

/*
 * A powerpc model from struct ppc_debug_info (PPC_PTRACE_GETHWDBGINFO):
 * @num_data_bps data breakpoints (DAWRs or the DABR; ptrace programs
 * one of them), @num_inst_bps instruction breakpoints, @features
 * PPC_DEBUG_FEATURE_* (arch/powerpc/include/uapi/asm/ptrace.h).
 * Errors: -EINVAL (@cpu NULL), -EOPNOTSUPP (no data breakpoint).
 */
int hwbpi_powerpc_linux_cpu(uint32_t num_inst_bps, uint32_t num_data_bps, uint64_t features,
			    struct hwbp_cpu *cpu);

/*
 * The status of a TRAP_HWBKPT stop on powerpc: a DSI (0x300) with the
 * DABR/DAWR match bit, DAR = @addr (si_addr), ip = @nip.
 * Errors: -EINVAL (@st NULL).
 */
int hwbpi_powerpc_linux_status(uint64_t nip, uint64_t addr, struct hwbp_status *st);

#endif
