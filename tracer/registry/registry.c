/* SPDX-License-Identifier: MIT */
/*
 * The backend registry (include/hwbp/trace.h), the top of the tracer:
 * every backend, each from its folder's interface under backends/.  The
 * Linux backends are registered only there.
 */
#include <stddef.h>
#include <string.h>

#include <hwbp/trace.h>

#include "backends/sim/sim.h"
#include "backends/qemu/qemu_x86.h"
#ifdef __linux__
#include "backends/ptrace/ptrace.h"
#include "backends/perf/perf.h"
#include "backends/module/module.h"
#endif

/* In the order a default is chosen: the first whose selecting option
 * (HWBP_TRACE_OPT_SELECTS) was given. */
static const struct hwbp_trace_backend *const registry[] = {
	&hwbpi_backend_sim,
	&hwbpi_backend_lackey,
	&hwbpi_backend_qemu_x86,
#ifdef __linux__
	&hwbpi_backend_ptrace,
	&hwbpi_backend_perf,
	&hwbpi_backend_bpf,
	&hwbpi_backend_module,
#endif
};

const struct hwbp_trace_backend *hwbp_trace_backend_at(unsigned i)
{
	return i < sizeof(registry) / sizeof(registry[0]) ? registry[i] : NULL;
}

const struct hwbp_trace_backend *hwbp_trace_backend_find(const char *name)
{
	for (unsigned i = 0; name && i < sizeof(registry) / sizeof(registry[0]); i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

