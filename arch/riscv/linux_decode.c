/* SPDX-License-Identifier: MIT */
/*
 * RISC-V under Linux, the pure part: see linux_decode.h (Linux gives a
 * tracer no RISC-V trigger).
 */
#include <errno.h>
#include <stddef.h>

#include "linux_decode.h"

int hwbpi_riscv_linux_cpu(struct hwbp_cpu *cpu)
{
	return cpu ? -EOPNOTSUPP : -EINVAL;
}
