/* SPDX-License-Identifier: MIT */
/*
 * The hit path (events/events.h): setting up the histogram or the
 * per-CPU rings, and each hit into them, through a cache of the answers
 * for instructions seen before.  Nothing here allocates once started.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/events.h"

/*
 * The hit cache: hits come from a handful of instructions, and once a
 * (function, kind) has an entry of its breakpoint's histogram -- or is
 * known to overrun, since entries are never given back during a run -- the
 * same (ip, bp, kind) always lands in the same place.  A direct-mapped
 * table of those answers makes the common hit one compare and one
 * increment, instead of a symbol lookup and a scan of n entries.  With
 * --stack an entry is a (stack, kind), and one instruction reached through
 * two call paths goes to two entries: a line is then (ip, bp, kind, stack),
 * placed by the stack's signature (hwbpi_stacks_sig) as well, and a hit
 * is the line's only when its callers are the line's stack's, compared
 * word by word (hwbpi_stacks_same): no hash of every frame, no search of
 * the table of stacks, for a hit from an instruction and a call path
 * seen before.
 */
/* 4096 lines of 24 bytes: a workload's (ip, bp, kind) -- with --stack,
 * its call paths too -- rarely meet in one (with 1024, the 512 stack
 * keys of hwbp bench trace missed often enough to cost 3x; the plain
 * hits gained too) */
#define HIT_CACHE 4096
#define KEY_BITS 24       /* of a line's key: bp and kind; above them its stack's callers */

struct hwbpi_hit_cache {
	struct {
		uint64_t ip;
		uint32_t key;     /* bp << 8 | kind, + 1 so that 0 is "empty"; with --stack,
				   * the stack's number of callers << KEY_BITS */
		int32_t idx;      /* index into hist.e, or -1: overrun */
		const uint64_t *callers;   /* --stack: the stack's callers, in the table */
	} e[HIT_CACHE];
};
/* (bp << 8 | kind) + 1 fits KEY_BITS, HWBPI_STACK_MAX callers the rest. */
_Static_assert((UINT64_C(0xffff) << 8 | 0xff) + 1 <= (UINT64_C(1) << KEY_BITS) &&
	       HWBPI_STACK_MAX < (1u << (32 - KEY_BITS)), "a line's key holds bp, kind, callers");

int hwbpi_tracer_start(struct hwbpi_tracer *t, unsigned ncpus, bool trace, size_t ring_bytes,
		       bool overwrite)
{
	int ret;

	if (!t || ncpus == 0 || ncpus > HWBPI_TRACE_MAX_CPUS || t->nw == 0 ||
	    t->stack_depth > HWBPI_STACK_MAX)
		return -EINVAL;
	t->ncpus = ncpus;
	t->trace = trace;
	t->hits = t->filtered = t->stray = 0;
	t->stacks = NULL;
	/* Each watch of objects: its table, allocated once here. */
	for (unsigned i = 0; i < t->nw; i++)
		if (t->w[i].object &&
		    (ret = hwbpi_objtab_init(&t->w[i].objs, t->nobjects ? t->nobjects : HWBPI_OBJ_DEFAULT))) {
			hwbpi_tracer_fini(t);
			return ret;
		}
	if (!trace) {
		unsigned n = t->hist_entries ? t->hist_entries : 16;

		ret = hwbp_hist_init(&t->hist, t->nw, n);
		if (ret)
			return ret;
		t->cache = calloc(1, sizeof(*t->cache));
		if (!t->cache) {
			hwbp_hist_fini(&t->hist);
			return -ENOMEM;
		}
		/*
		 * A stack is interned only when its breakpoint has an entry
		 * left for it (hwbpi_tracer_hit_frames), and every new stack
		 * then takes one: nw * n entries can never hold more than nw *
		 * n stacks, so a table of that size is never full (unless that
		 * is beyond hwbpi_stacks_fit, which counts the rest lost).
		 */
		if (t->stack_depth &&
		    !(t->stacks = hwbpi_stacks_new(1, hwbpi_stacks_fit((uint64_t)t->nw * n,
								       t->stack_depth),
						   t->stack_depth, 0, &ret))) {
			hwbpi_tracer_fini(t);
			return ret;
		}
		return 0;
	}
	for (unsigned c = 0; c < ncpus; c++) {
		t->ring[c] = hwbp_ring_new(ring_bytes, overwrite, &ret);
		if (!t->ring[c]) {
			hwbpi_tracer_fini(t);
			return ret;
		}
	}
	/*
	 * Trace mode: one part per CPU (each CPU's hit path is its part's
	 * only writer), as many stacks as the ring holds events, at most
	 * HWBPI_STACKS_TRACE: the memory follows what the user gave the
	 * rings (--buffer-kb), and a program's distinct call paths to one
	 * variable are far fewer.  Past that an event has no stack (0),
	 * counted lost (hwbpi_stacks_lost).
	 */
	if (t->stack_depth) {
		size_t want = hwbp_ring_capacity(t->ring[0]);

		t->stacks = hwbpi_stacks_new(ncpus, hwbpi_stacks_fit(want < HWBPI_STACKS_TRACE ? want :
								     HWBPI_STACKS_TRACE,
								     t->stack_depth),
					     t->stack_depth, 0, &ret);
		if (!t->stacks) {
			hwbpi_tracer_fini(t);
			return ret;
		}
	}
	return 0;
}

uint64_t hwbpi_tracer_hits(const struct hwbpi_tracer *t)
{
	uint64_t n = t->hits + __atomic_load_n(&t->stray, __ATOMIC_RELAXED), produced;

	if (t->trace)
		for (unsigned c = 0; c < t->ncpus; c++) {
			hwbp_ring_stats(t->ring[c], &produced, NULL);
			n += produced;
		}
	return n;
}

uint64_t hwbpi_tracer_drain_every(const struct hwbpi_tracer *t, uint64_t most)
{
	uint64_t half;

	if (!t->trace || !t->ring[0])
		return 0;
	half = hwbp_ring_capacity(t->ring[0]) / 2;
	return half == 0 ? 1 : half < most ? half : most;
}

void hwbpi_tracer_fini(struct hwbpi_tracer *t)
{
	if (!t)
		return;
	if (!t->trace)
		hwbp_hist_fini(&t->hist);
	free(t->cache);
	t->cache = NULL;
	hwbpi_stacks_free(t->stacks);
	t->stacks = NULL;
	for (unsigned c = 0; c < HWBPI_TRACE_MAX_CPUS; c++) {
		hwbp_ring_free(t->ring[c]);
		t->ring[c] = NULL;
	}
	for (unsigned i = 0; i < t->nw; i++)
		if (t->w[i].object)
			hwbpi_objtab_fini(&t->w[i].objs);
}

static unsigned cache_slot(uint64_t ip, uint32_t key)
{
	uint64_t h = (ip ^ (ip >> 17) ^ ((uint64_t)key << 40)) * UINT64_C(0x9e3779b97f4a7c15);

	return (unsigned)(h >> 52) & (HIT_CACHE - 1);
}

const struct hwbp_sym *hwbpi_tracer_func(const struct hwbpi_tracer *t,
					 const struct hwbp_trace_event *ev)
{
	return t->syms ? hwbp_symtab_func(t->syms, hwbpi_tracer_func_ip(t, ev)) : NULL;
}

static void cache_put(struct hwbpi_hit_cache *c, unsigned slot, uint64_t ip, uint32_t key,
		      int32_t idx, const uint64_t *callers)
{
	if (!c)
		return;
	c->e[slot].ip = ip;
	c->e[slot].key = key;
	c->e[slot].idx = idx;
	c->e[slot].callers = callers;
}

void hwbpi_tracer_hit(struct hwbpi_tracer *t, const struct hwbp_trace_event *ev)
{
	struct hwbp_hist *h = &t->hist;
	uint32_t key = ((uint32_t)ev->bp << 8 | ev->kind) + 1;
	const struct hwbp_sym *f;
	unsigned slot;
	uint64_t func;

	if (t->stacks) {
		/* --stack: a hit without callers is its function alone, keyed
		 * like every other hit of this run (never by a function's
		 * address among entries keyed by stack ids). */
		struct hwbp_trace_event e = *ev;

		hwbpi_tracer_hit_frames(t, &e, NULL, 0);
		return;
	}
	if (t->trace) {
		/*
		 * Trace mode runs on every CPU at once, and each CPU's hit path
		 * touches only its own ring (one producer per ring): the ring's
		 * own produced count is the CPU's hit count, so nothing here is
		 * shared between CPUs (a shared t->hits++ lost counts with 8
		 * producers, tests/unit/test_load.c, and even an atomic add
		 * would bounce one cache line between every CPU on every hit).
		 * hwbpi_tracer_hits() sums the rings.  An event naming a CPU
		 * the session does not have is a backend's bug: counted apart
		 * (cold path), never in a ring.
		 */
		if (ev->cpu < t->ncpus)
			hwbp_ring_push(t->ring[ev->cpu], ev);
		else
			__atomic_fetch_add(&t->stray, 1, __ATOMIC_RELAXED);
		return;
	}
	/* Histogram mode: one writer at a time (hwbp_hist_add), like the
	 * histogram itself. */
	t->hits++;
	if (ev->bp >= h->nbp)
		return;
	slot = cache_slot(ev->ip, key);
	if (t->cache && t->cache->e[slot].ip == ev->ip && t->cache->e[slot].key == key) {
		int32_t idx = t->cache->e[slot].idx;

		h->hits[ev->bp]++;
		if (idx >= 0)
			h->e[idx].count++;
		else
			h->overrun[ev->bp]++;
		return;
	}
	/* First hit from this instruction: look the function up (read-only
	 * table, allocation-free), count, and remember where it went.  With
	 * --sort srcline the key is the instruction (its line is found at
	 * print time). */
	if (t->key_ip) {
		func = hwbpi_tracer_func_ip(t, ev);
	} else {
		f = hwbpi_tracer_func(t, ev);
		func = f ? f->addr : hwbpi_tracer_func_ip(t, ev);   /* no function: the place itself */
	}
	if (!hwbp_hist_add(h, ev->bp, func, ev->kind)) {
		cache_put(t->cache, slot, ev->ip, key, -1, NULL);
		return;
	}
	for (unsigned i = 0; t->cache && i < h->used[ev->bp]; i++) {
		unsigned idx = ev->bp * h->n + i;

		if (h->e[idx].func == func && h->e[idx].kind == ev->kind) {
			cache_put(t->cache, slot, ev->ip, key, (int32_t)idx, NULL);
			break;
		}
	}
}

/*
 * Histogram mode with --stack: the entry of (stack, kind).  The stack is
 * interned only while its breakpoint has an entry left (see
 * hwbpi_tracer_start): once they are all used, a stack the table does not
 * hold could not get one, and is an overrun without taking a slot of the
 * table.  A stack the table holds (for this breakpoint or another) goes
 * through hwbp_hist_add like a function did, and the cache remembers the
 * answer per (ip, stack, bp, kind).
 */
/* Not cached: the stack interned (or known not to be), its entry found
 * or made, and the line pair @slot, @slot ^ 1 filled.  Out of line, so that the hit path of a
 * cached stack saves no registers for it. */
static __attribute__((noinline)) void hist_stack_miss(struct hwbpi_tracer *t,
						      const struct hwbp_trace_event *ev,
						      const uint64_t *callers, unsigned n,
						      uint32_t key, unsigned slot)
{
	struct hwbp_hist *h = &t->hist;
	const uint64_t *frames;
	int32_t idx = -1;
	uint32_t id = hwbpi_stacks_hit(t->stacks, 0, t->syms, hwbpi_tracer_func_ip(t, ev), callers, n,
				       h->used[ev->bp] < h->n);
	unsigned nf;

	if (!id) {
		hwbpi_hist_overrun(h, ev->bp, 1);
		return;
	}
	if (hwbp_hist_add(h, ev->bp, id, ev->kind))
		for (unsigned i = 0; i < h->used[ev->bp]; i++)
			if (h->e[ev->bp * h->n + i].func == id && h->e[ev->bp * h->n + i].kind == ev->kind)
				idx = (int32_t)(ev->bp * h->n + i);
	nf = hwbpi_stacks_get(t->stacks, id, &frames);
	/* the pair's first line, its old contents into the second */
	if (t->cache)
		t->cache->e[slot ^ 1] = t->cache->e[slot];
	cache_put(t->cache, slot, ev->ip, key | (nf - 1) << KEY_BITS, idx, frames + 1);
}

/* Whether line @slot of @c is the hit's: (ip, bp, kind) and its stack's
 * callers (a line of a run with --stack is a stack's: they are set). */
static bool stack_line(const struct hwbpi_hit_cache *c, unsigned slot, uint64_t ip, uint32_t key,
		       const uint64_t *callers, unsigned m)
{
	return c->e[slot].ip == ip && (c->e[slot].key & ((1u << KEY_BITS) - 1)) == key &&
	       hwbpi_stacks_same(c->e[slot].callers, c->e[slot].key >> KEY_BITS, callers, m);
}

static void hist_stack_hit(struct hwbpi_tracer *t, const struct hwbp_trace_event *ev,
			   const uint64_t *callers, unsigned n)
{
	struct hwbp_hist *h = &t->hist;
	uint32_t key = ((uint32_t)ev->bp << 8 | ev->kind) + 1;
	unsigned m = callers ? (n < t->stack_depth ? n : t->stack_depth) : 0, slot;
	int32_t idx;

	t->hits++;
	if (ev->bp >= h->nbp)
		return;
	/*
	 * Placed by the signature too, the lines of a few call paths per
	 * instruction fall at random: a pair of lines (two ways) keeps two
	 * that meet from pushing each other out on every hit.  A new line
	 * takes the first, and the first moves to the second.
	 */
	slot = cache_slot(ev->ip ^ hwbpi_stacks_sig(callers, m), key);
	if (!t->cache || (!stack_line(t->cache, slot, ev->ip, key, callers, m) &&
			  !stack_line(t->cache, slot ^= 1, ev->ip, key, callers, m))) {
		hist_stack_miss(t, ev, callers, n, key, slot & ~1u);
		return;
	}
	idx = t->cache->e[slot].idx;
	h->hits[ev->bp]++;
	if (idx >= 0)
		h->e[idx].count++;
	else
		h->overrun[ev->bp]++;
}

/* Trace mode: the CPU's own part of the table, as its own ring (see
 * hwbpi_tracer_hit): nothing shared between CPUs. */
static __attribute__((noinline)) void trace_stack_hit(struct hwbpi_tracer *t,
						      struct hwbp_trace_event *ev,
						      const uint64_t *callers, unsigned n)
{
	if (ev->cpu >= t->ncpus) {
		__atomic_fetch_add(&t->stray, 1, __ATOMIC_RELAXED);
		return;
	}
	ev->stack = hwbpi_stacks_hit(t->stacks, ev->cpu, t->syms, hwbpi_tracer_func_ip(t, ev), callers, n, true);
	hwbp_ring_push(t->ring[ev->cpu], ev);
}

void hwbpi_tracer_hit_frames(struct hwbpi_tracer *t, struct hwbp_trace_event *ev,
			     const uint64_t *callers, unsigned n)
{
	if (!t->stacks) {
		ev->stack = 0;
		hwbpi_tracer_hit(t, ev);
	} else if (t->trace) {
		trace_stack_hit(t, ev, callers, n);
	} else {
		hist_stack_hit(t, ev, callers, n);
	}
}
