/* SPDX-License-Identifier: MIT */
/*
 * The module backend (internal): the kernel through hwbp_ksym.ko's
 * debugfs files (kernel/linux/), for the registry.  Linux only.
 */
#ifndef HWBP_TRACER_BACKENDS_MODULE_H
#define HWBP_TRACER_BACKENDS_MODULE_H

#include <hwbp/trace.h>

extern const struct hwbp_trace_backend hwbpi_backend_module;

#endif /* HWBP_TRACER_BACKENDS_MODULE_H */
