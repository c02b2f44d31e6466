/* SPDX-License-Identifier: MIT */
/*
 * The pure part of the x86 Linux glue (linux_decode.c, built on every host
 * for its tests): how the kernel's view maps to hwbp's CPU models and
 * status.  Internal to libhwbp-trace; the glue itself is linux.c
 * (tracer/backends/linux/glue.h).
 */
#ifndef HWBP_ARCH_X86_LINUX_DECODE_H
#define HWBP_ARCH_X86_LINUX_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include <hwbp/hwbp.h>

/*
 * DR7 as a tracer may write it through PTRACE_POKEUSER: the enable and
 * R/W-LEN fields only (bits 0-7 and 16-31); GE/LE/GD and the reserved
 * bits are the kernel's (arch/x86/kernel/ptrace.c ptrace_write_dr7()).
 */
uint64_t hwbpi_x86_linux_dr7(uint64_t dr7);

#endif
