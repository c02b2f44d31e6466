/* SPDX-License-Identifier: MIT */
/*
 * The pure part of the RISC-V Linux glue (linux_decode.c, built on every
 * host for its tests).  Linux exposes no RISC-V triggers to a tracer
 * (linux.c), so there is no kernel view to map: a model cannot come from
 * ptrace.  Internal to libhwbp-trace.
 */
#ifndef HWBP_ARCH_RISCV_LINUX_DECODE_H
#define HWBP_ARCH_RISCV_LINUX_DECODE_H

#include <hwbp/hwbp.h>

/*
 * A RISC-V model from what Linux tells a tracer: nothing (no regset, no
 * perf breakpoint PMU on RISC-V in Linux 6.1/6.18).
 * Errors: -EINVAL (@cpu NULL), else always -EOPNOTSUPP.
 */
int hwbpi_riscv_linux_cpu(struct hwbp_cpu *cpu);

#endif
