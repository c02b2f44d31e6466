/* SPDX-License-Identifier: MIT */
/*
 * hwbp_trace_host_cpu (include/hwbp/trace.h): the kernel's model of this
 * machine's debug registers, asked of a stopped child (hwbpi_child_cpu(),
 * backends/linux/); off Linux there is no one to ask.
 */
#include <errno.h>
#include <stddef.h>

#include <hwbp/trace.h>

#include "util/util.h"
#ifdef __linux__
#include "backends/linux/linux.h"
#endif

int hwbp_trace_host_cpu(struct hwbp_cpu *cpu, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!cpu)
		return -EINVAL;
#ifdef __linux__
	return hwbpi_child_cpu(cpu, err, errlen);
#else
	hwbpi_say(err, errlen, "needs Linux");
	return -EOPNOTSUPP;
#endif
}
