/* SPDX-License-Identifier: MIT */
/*
 * x86 under Linux ptrace, the pure part (tracer/backends/linux/glue.h; built on every
 * host).
 */
#include "backends/linux/glue.h"
#include "linux_decode.h"

uint64_t hwbpi_x86_linux_dr7(uint64_t dr7)
{
	/*
	 * L0-G3 (bits 0-7) and R/W-LEN (16-31): what ptrace_write_dr7()
	 * (arch/x86/kernel/ptrace.c) turns into perf breakpoints.  LE/GE,
	 * GD, RTM and the fixed bits (8-15) are the kernel's own.
	 */
	return dr7 & 0xffff00ffull;
}
