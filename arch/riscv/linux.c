/* SPDX-License-Identifier: MIT */
/*
 * RISC-V under Linux ptrace: nothing to program.  Linux 6.1 and 6.18 have
 * no hardware breakpoint support for RISC-V (no HAVE_HW_BREAKPOINT, no
 * ptrace regset for triggers; the SBI Debug Triggers series is not
 * merged), so the glue (tracer/backends/linux/glue.h) is the one of a CPU
 * hwbp has no Linux glue for: every call -EOPNOTSUPP, reported by the
 * ptrace backend in one line from its first call.  Built for a riscv64
 * Linux host only, in place of that file.
 */
#include "backends/linux/linux_none.c"
