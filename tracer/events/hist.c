/* SPDX-License-Identifier: MIT */
/*
 * Histograms: per breakpoint, n preallocated (function, kind) counters
 * (printed by output/hist_print.c).
 *
 * Everything is allocated once by hwbp_hist_init so that hwbp_hist_add, on
 * the hit path (hist_add.c), only reads and increments memory it already
 * owns.  A
 * breakpoint whose functions outnumber its entries keeps the first n
 * (function, kind) pairs it saw and counts the rest as overrun: the total
 * is never lost (sum of counts + overrun == hits), only the attribution.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hwbp/trace.h>

#include "events/events.h"

/* Far above any useful histogram (16 entries x a few breakpoints), low
 * enough that the single allocation (~400 MiB at the limit) cannot
 * overflow size_t on a 32-bit host. */
#define HIST_MAX_ENTRIES (1u << 24)


int hwbp_hist_init(struct hwbp_hist *h, unsigned nbp, unsigned n)
{
	uint64_t total = (uint64_t)nbp * n;
	size_t ebytes, cbytes;
	char *mem;

	if (!h || nbp == 0 || n == 0 || total > HIST_MAX_ENTRIES)
		return -EINVAL;
	/*
	 * One calloc for all four arrays: one failure point, one free, and the
	 * counters of a breakpoint sit close to its entries.  Layout: entries,
	 * overrun[], hits[] (8-byte aligned since an entry is a multiple of 8
	 * bytes), then used[].
	 */
	ebytes = (size_t)total * sizeof(struct hwbp_hist_entry);
	cbytes = (size_t)nbp * sizeof(uint64_t);
	mem = calloc(1, ebytes + 2 * cbytes + (size_t)nbp * sizeof(unsigned));
	if (!mem)
		return -ENOMEM;
	h->nbp = nbp;
	h->n = n;
	h->e = (struct hwbp_hist_entry *)(void *)mem;
	h->overrun = (uint64_t *)(void *)(mem + ebytes);
	h->hits = (uint64_t *)(void *)(mem + ebytes + cbytes);
	h->used = (unsigned *)(void *)(mem + ebytes + 2 * cbytes);
	return 0;
}

void hwbp_hist_fini(struct hwbp_hist *h)
{
	if (!h)
		return;
	free(h->e); /* the start of the single block */
	memset(h, 0, sizeof(*h));
}
