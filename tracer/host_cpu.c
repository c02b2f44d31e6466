/* SPDX-License-Identifier: MIT */
/*
 * hwbp_trace_host_cpu (include/hwbp/trace.h): the kernel's model of this
 * machine's debug registers, asked of a stopped child (the ptrace
 * backend's hwbpi_ptrace_native_cpu()); off Linux there is no one to ask.
 */
#include <errno.h>
#include <stddef.h>

#include "tracer.h"

#ifdef __linux__
#include "ptrace.h"
#endif

int hwbp_trace_host_cpu(struct hwbp_cpu *cpu, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!cpu)
		return -EINVAL;
#ifdef __linux__
	return hwbpi_ptrace_native_cpu(cpu, err, errlen);
#else
	hwbpi_say(err, errlen, "needs Linux");
	return -EOPNOTSUPP;
#endif
}
