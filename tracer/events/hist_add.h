/* SPDX-License-Identifier: MIT */
/*
 * Counts gathered elsewhere (an in-kernel histogram read at the end, a
 * kernel's per-CPU histograms merged): hwbpi_hist_add_n - @n hits of
 * (@func, @kind) for breakpoint @bp at once, into its entry, a new one, or
 * its overrun (as @n hwbp_hist_add() calls would); hwbpi_hist_overrun -
 * @n hits that found no entry.  Not on a hit path; one writer at a time.
 * Freestanding (tracer/events/hist_add.c).
 */
#ifndef HWBP_TRACER_HIST_ADD_H
#define HWBP_TRACER_HIST_ADD_H

#include <hwbp/hist.h>

bool hwbpi_hist_add_n(struct hwbp_hist *h, unsigned bp, uint64_t func, unsigned kind,
		      uint64_t n);
void hwbpi_hist_overrun(struct hwbp_hist *h, unsigned bp, uint64_t n);

#endif
