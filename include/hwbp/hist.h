/* SPDX-License-Identifier: MIT */
/*
 * hwbp histograms' hit path: per breakpoint, n preallocated (function,
 * kind) entries and an overrun counter.  Freestanding like the core
 * (<hwbp/hwbp.h>): a kernel counts hits into the tracer's histograms with
 * this header and tracer/events/hist_add.c alone (kernel/linux/ does), while
 * hwbp_hist_init, the printers and the rest of the tracer are in
 * <hwbp/trace.h>.
 */
#ifndef HWBP_HIST_H
#define HWBP_HIST_H

#include <hwbp/hwbp.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hwbp_hist_entry {
	uint64_t func;       /* function start address; a hit in no function: its
			      * IP (printed "libfoo.so+0xOFF" or 0xADDR); 0: not known */
	uint8_t kind;
	uint64_t count;
};

struct hwbp_hist {
	unsigned nbp, n;
	struct hwbp_hist_entry *e;   /* nbp * n entries */
	unsigned *used;              /* per breakpoint: entries in use */
	uint64_t *overrun;           /* per breakpoint: hits that found no entry */
	uint64_t *hits;              /* per breakpoint: all hits */
};

/*
 * hwbp_hist_add - count one hit of breakpoint @bp in function @func with
 * @kind.  Allocation-free; a hit whose (func, kind) has no entry when all
 * n are used increments that breakpoint's overrun counter.  Returns true
 * when the hit was counted in an entry; false for an overrun hit and for a
 * bad @bp or @kind (ignored).  No errors.
 * Context: one writer at a time per histogram (the backend's hit path; a
 * kernel keeps one per CPU); any context, an exception handler included.
 */
bool hwbp_hist_add(struct hwbp_hist *h, unsigned bp, uint64_t func, unsigned kind);

#ifdef __cplusplus
}
#endif

#endif /* HWBP_HIST_H */
