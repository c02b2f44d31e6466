/* SPDX-License-Identifier: MIT */
/*
 * TEMPORARY (issue 11, until the core branch is merged; the lead deletes
 * this file and tracer/compat_linux.c): the declaration SPEC-11 gives for
 * the Linux glue's execute-breakpoint length, which the core helper adds
 * next to hwbpi_linux_piece_ok in the Linux glue's header.
 */
#ifndef HWBP_TRACER_COMPAT_LINUX_H
#define HWBP_TRACER_COMPAT_LINUX_H

#include <stdint.h>

/* The length Linux wants for an execute breakpoint (perf_event_attr.bp_len). */
uint64_t hwbpi_linux_exec_len(void);

#endif
