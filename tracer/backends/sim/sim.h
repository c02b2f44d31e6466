/* SPDX-License-Identifier: MIT */
/*
 * The simulator's backends (internal): `sim` (the demo kernel) and
 * `lackey` (a valgrind lackey trace), for the registry.
 */
#ifndef HWBP_TRACER_BACKENDS_SIM_H
#define HWBP_TRACER_BACKENDS_SIM_H

#include <hwbp/trace.h>

extern const struct hwbp_trace_backend hwbpi_backend_sim, hwbpi_backend_lackey;

#endif /* HWBP_TRACER_BACKENDS_SIM_H */
