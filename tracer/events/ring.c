/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU event rings: one producer (the CPU's hit path), one consumer
 * (the output thread), lock-free with C11 atomics.
 *
 * Indices.  head and tail are free-running 64-bit counters: the event with
 * index i lives in slot i & mask, the ring holds [tail, head), and
 * head - tail <= capacity always.  Unsigned subtraction keeps that right
 * across the 2^64 wrap (capacity is a power of two, so it divides 2^64),
 * and 64 bits make an ABA on tail impossible in practice (the producer
 * would have to push 2^64 events while the consumer sits between reading
 * tail and its compare-and-swap).
 *
 * Who writes what.  Only the producer writes head, the slots, produced
 * and lost.  tail belongs to the consumer with discard-new, so a plain
 * release store advances it.  With overwrite the producer must also
 * advance tail (to drop the oldest event), so every change of tail is a
 * compare-and-swap and exactly one side wins each index:
 *
 *   - the producer, finding the ring full, CASes tail t -> t + 1 and counts
 *     one lost event; if that fails the consumer has just freed room;
 *   - the consumer copies [t, t + n) and then CASes tail cur -> t + n,
 *     where cur is the tail it last saw.  When the producer moved tail to
 *     cur > t meanwhile, the events [t, cur) are the producer's (lost) and
 *     their copies, possibly torn, are thrown away; [cur, t + n) are kept.
 *
 * Why a kept copy is whole: the producer rewrites the slot of index x (for
 * index x + capacity) only after its CAS made tail > x.  With overwrite the
 * producer's slot stores are release and the consumer's slot loads
 * acquire, so if the consumer read any word of that rewrite, the
 * producer's CAS happens before the consumer's own CAS on tail, which then
 * reads tail > x and excludes x.  (This is a seqlock with tail as the
 * sequence; acquire loads instead of a fence because ThreadSanitizer does
 * not model atomic_thread_fence, and GCC warns about it there.)  Index x's
 * original contents are visible because head, published with release after
 * them, was read with acquire.  Hence no torn or duplicated event, and each
 * index is either popped or counted lost: produced = popped + lost,
 * exactly.  With discard-new the producer never touches a slot the
 * consumer may read, so relaxed slot accesses suffice.
 *
 * The producer never loops (at most one CAS per push): push is wait-free.
 * The consumer is lock-free: it retries only when the producer made
 * progress, and keeps what the producer did not take.
 *
 * Slots are arrays of atomic 64-bit words rather than plain structs
 * because with overwrite the consumer may read a slot while the
 * producer rewrites it (the copy is then discarded); with plain memory that
 * would be a data race, i.e. undefined behaviour (and a ThreadSanitizer
 * report), even though the value is never used.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <hwbp/trace.h>

#define WORDS (sizeof(struct hwbp_trace_event) / sizeof(uint64_t))
#define LINE 64 /* cache line: keeps the producer's and consumer's fields apart */

_Static_assert(sizeof(struct hwbp_trace_event) == 64, "events are 64 bytes");
_Static_assert(sizeof(struct hwbp_trace_event) % sizeof(uint64_t) == 0,
	       "events are whole 64-bit words");
/* A lock-based fallback (libatomic) would put a lock on the hit path. */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");

struct slot {
	_Atomic uint64_t w[WORDS];
};

struct hwbp_ring {
	/* Producer's line. */
	alignas(LINE) _Atomic uint64_t head;
	_Atomic uint64_t produced;   /* atomic only so stats may read it concurrently */
	_Atomic uint64_t lost;
	uint64_t tail_seen;          /* producer's last view of tail (a lower bound) */

	/* Consumer's line (the producer touches it only when the ring looks full). */
	alignas(LINE) _Atomic uint64_t tail;

	/* Read-only after hwbp_ring_new. */
	alignas(LINE) struct slot *slots;
	uint64_t mask;
	bool overwrite;
};

/* Tests only (white box): start the counters of an empty ring at @pos, to
 * exercise the 2^64 wrap.  Not thread-safe.  Errors: -EINVAL, -EBUSY (not
 * empty). */
int hwbpi_ring_set_start(struct hwbp_ring *r, uint64_t pos);

struct hwbp_ring *hwbp_ring_new(size_t bytes, bool overwrite, int *err)
{
	size_t n = bytes / sizeof(struct hwbp_trace_event);
	size_t cap = 1;
	struct hwbp_ring *r;
	int e = 0;

	if (n < 2) {
		e = -EINVAL;
		goto fail;
	}
	/* Round down to a power of two: the largest one <= n. */
	while (cap <= n / 2)
		cap *= 2;

	/* aligned_alloc wants a size that is a multiple of the alignment;
	 * cap * 64 with cap >= 2 is, and sizeof(*r) is (alignas above). */
	r = aligned_alloc(LINE, sizeof(*r));
	if (!r) {
		e = -ENOMEM;
		goto fail;
	}
	memset(r, 0, sizeof(*r));
	r->slots = aligned_alloc(LINE, cap * sizeof(struct slot));
	if (!r->slots) {
		free(r);
		e = -ENOMEM;
		goto fail;
	}
	/* Never-written slots are still read only after head covers them,
	 * but zero them so a ring's memory is never indeterminate. */
	for (size_t i = 0; i < cap; i++)
		for (size_t w = 0; w < WORDS; w++)
			atomic_init(&r->slots[i].w[w], 0);
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	atomic_init(&r->produced, 0);
	atomic_init(&r->lost, 0);
	r->tail_seen = 0;
	r->mask = (uint64_t)cap - 1;
	r->overwrite = overwrite;
	if (err)
		*err = 0;
	return r;
fail:
	if (err)
		*err = e;
	return NULL;
}

void hwbp_ring_free(struct hwbp_ring *r)
{
	if (!r)
		return;
	free(r->slots);
	free(r);
}

size_t hwbp_ring_capacity(const struct hwbp_ring *r)
{
	return r ? (size_t)r->mask + 1 : 0;
}

int hwbpi_ring_set_start(struct hwbp_ring *r, uint64_t pos)
{
	if (!r)
		return -EINVAL;
	if (atomic_load_explicit(&r->head, memory_order_relaxed) !=
	    atomic_load_explicit(&r->tail, memory_order_relaxed))
		return -EBUSY;
	atomic_store_explicit(&r->head, pos, memory_order_relaxed);
	atomic_store_explicit(&r->tail, pos, memory_order_relaxed);
	r->tail_seen = pos;
	return 0;
}

/* Counters only the producer writes: a load and a store, no RMW needed. */
static void bump(_Atomic uint64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

bool hwbp_ring_push(struct hwbp_ring *r, const struct hwbp_trace_event *e)
{
	uint64_t h, t, words[WORDS];
	struct slot *s;
	bool kept = true;

	/* A call with nothing to record changes nothing (not even the counts). */
	if (!r || !e)
		return false;
	h = atomic_load_explicit(&r->head, memory_order_relaxed); /* ours */
	bump(&r->produced);

	/*
	 * tail only grows, so the cached value is a lower bound: if it already
	 * shows room there is room, and the consumer's cache line is left
	 * alone.  Otherwise look again; acquire pairs with the consumer's
	 * release so its reads of the slot we are about to reuse are done.
	 */
	if (h - r->tail_seen > r->mask) {
		r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
		if (h - r->tail_seen > r->mask) {
			if (!r->overwrite) {
				bump(&r->lost);
				return false;
			}
			/* Full: tail == h - capacity.  Take the oldest event from
			 * the consumer, unless it takes it first (then the CAS
			 * fails, t is the new tail and there is room). */
			t = r->tail_seen;
			if (atomic_compare_exchange_strong_explicit(&r->tail, &t, t + 1,
								    memory_order_acq_rel,
								    memory_order_acquire)) {
				bump(&r->lost);
				kept = false;
				t++;
			}
			r->tail_seen = t;
		}
	}

	memcpy(words, e, sizeof(words));
	s = &r->slots[h & r->mask];
	if (r->overwrite) {
		/* release: a consumer that reads any of these words also sees
		 * our CAS on tail above (see the top of the file). */
		for (size_t w = 0; w < WORDS; w++)
			atomic_store_explicit(&s->w[w], words[w], memory_order_release);
	} else {
		for (size_t w = 0; w < WORDS; w++)
			atomic_store_explicit(&s->w[w], words[w], memory_order_relaxed);
	}
	/* Publish: the consumer's acquire load of head sees the slot whole. */
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
	return kept;
}

/* Copy event @i's slot into @out; acquire pairs with push's release stores
 * (overwrite only: the memory orders must be constants to be cheap). */
static void load_slot(const struct hwbp_ring *r, uint64_t i, struct hwbp_trace_event *out)
{
	const struct slot *s = &r->slots[i & r->mask];
	uint64_t words[WORDS];

	if (r->overwrite) {
		for (size_t w = 0; w < WORDS; w++)
			words[w] = atomic_load_explicit(&s->w[w], memory_order_acquire);
	} else {
		for (size_t w = 0; w < WORDS; w++)
			words[w] = atomic_load_explicit(&s->w[w], memory_order_relaxed);
	}
	memcpy(out, words, sizeof(words));
}

size_t hwbp_ring_pop(struct hwbp_ring *r, struct hwbp_trace_event *out, size_t max)
{
	size_t done = 0;

	if (!r || !out)
		return 0;
	while (done < max) {
		uint64_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
		uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
		uint64_t avail = h - t, cur;
		size_t n = max - done, skip;

		if (avail == 0)
			break;
		if (avail < n)
			n = (size_t)avail;
		for (size_t i = 0; i < n; i++)
			load_slot(r, t + i, &out[done + i]);
		if (!r->overwrite) {
			/* Only we move tail: release hands the slots back to the
			 * producer after our reads. */
			atomic_store_explicit(&r->tail, t + n, memory_order_release);
			done += n;
			continue;
		}
		/* Claim [cur, t + n); each failure means the producer took more
		 * of the oldest ones (cur - t only grows, also across the wrap). */
		cur = t;
		while (!atomic_compare_exchange_weak_explicit(&r->tail, &cur, t + n,
							      memory_order_acq_rel,
							      memory_order_acquire))
			if (cur - t >= n)
				break;
		if (cur - t >= n)
			continue; /* all taken: the ring moved on, start over */
		skip = (size_t)(cur - t);
		if (skip)
			memmove(&out[done], &out[done + skip], (n - skip) * sizeof(*out));
		done += n - skip;
	}
	return done;
}

void hwbp_ring_stats(const struct hwbp_ring *r, uint64_t *produced, uint64_t *lost)
{
	if (produced)
		*produced = r ? atomic_load_explicit(&r->produced, memory_order_relaxed) : 0;
	if (lost)
		*lost = r ? atomic_load_explicit(&r->lost, memory_order_relaxed) : 0;
}
