/* SPDX-License-Identifier: MIT */
/*
 * The histograms' hit path (<hwbp/hist.h>) and the counts added at once
 * (hist_add.h).  Freestanding, like the core: this file is also compiled
 * into hwbp_ksym.ko (kernel/linux/), so it includes nothing but hwbp's
 * headers and calls nothing.  A breakpoint whose functions outnumber its
 * entries keeps the first n (function, kind) pairs it saw and counts the
 * rest as overrun: the total is never lost (sum of counts + overrun ==
 * hits), only the attribution.
 */
#include <hwbp/hist.h>

#include "events/hist_add.h"

/*
 * Linear search: n is small (16 by default) and the entries of one
 * breakpoint are contiguous, so a scan of a few cache lines beats a hash
 * that would need its own sizing and collision handling.  Returns true
 * when the hit was counted in an entry, false when it only went to
 * overrun or was ignored (bad @bp, or a kind that does not fit the
 * entry's 8-bit field).
 */
bool hwbp_hist_add(struct hwbp_hist *h, unsigned bp, uint64_t func, unsigned kind)
{
	struct hwbp_hist_entry *e;
	unsigned i, used;

	if (!h || !h->e || bp >= h->nbp || kind > 0xffu)
		return false;
	h->hits[bp]++;
	e = h->e + (size_t)bp * h->n;
	used = h->used[bp];
	for (i = 0; i < used; i++) {
		if (e[i].func == func && e[i].kind == kind) {
			e[i].count++;
			return true;
		}
	}
	if (used < h->n) {
		e[used].func = func;
		e[used].kind = (uint8_t)kind;
		e[used].count = 1;
		h->used[bp] = used + 1;
		return true;
	}
	h->overrun[bp]++;
	return false;
}

bool hwbpi_hist_add_n(struct hwbp_hist *h, unsigned bp, uint64_t func, unsigned kind,
		      uint64_t n)
{
	struct hwbp_hist_entry *e;
	unsigned i, used;

	if (!h || !h->e || bp >= h->nbp || kind > 0xffu || !n)
		return false;
	h->hits[bp] += n;
	e = h->e + (size_t)bp * h->n;
	used = h->used[bp];
	for (i = 0; i < used; i++) {
		if (e[i].func == func && e[i].kind == kind) {
			e[i].count += n;
			return true;
		}
	}
	if (used < h->n) {
		e[used].func = func;
		e[used].kind = (uint8_t)kind;
		e[used].count = n;
		h->used[bp] = used + 1;
		return true;
	}
	h->overrun[bp] += n;
	return false;
}

void hwbpi_hist_overrun(struct hwbp_hist *h, unsigned bp, uint64_t n)
{
	if (!h || !h->e || bp >= h->nbp)
		return;
	h->hits[bp] += n;
	h->overrun[bp] += n;
}
