/* SPDX-License-Identifier: MIT */
/*
 * Interned call stacks (tracer-internal): the table behind --stack.
 *
 * A stack is the function of a hit (frame 0: its start address, 0 when no
 * function is known) and the return addresses of its callers, innermost
 * first (frames 1..): "bump <- work <- main" is { bump, ret into work,
 * ret into main }.  Each distinct stack gets an id once, and the hit path
 * then deals in ids: a histogram entry is keyed by (stack id, kind), a
 * trace-mode event carries its id (ev->stack).
 *
 * A table is made of parts, each with one writer: histogram mode has one
 * part (one writer at a time), trace mode one per CPU (one producer per
 * CPU ring).  Ids are unique across the parts (part * capacity + index +
 * 1; 0 means no stack).  Everything is allocated by hwbpi_stacks_new():
 * interning allocates nothing, takes no lock and makes no system call,
 * and never removes a stack, so an id stays valid until the table is
 * freed.  A reader (an output) may resolve, while the writers run, any id
 * it got from an event popped from a ring: the record was written before
 * the event was pushed, and the ring's release/acquire hands it over.
 *
 * Naming (hwbpi_stacks_names and the prints of hist_stacks.c) is the
 * consumer's side: a caller's function is looked up at its return address
 * - 1, once per distinct stack, and may allocate.
 */
#ifndef HWBP_TRACER_STACKS_H
#define HWBP_TRACER_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hwbp/trace.h>

#include "symbols/symbols.h"

#define HWBPI_STACK_MAX 64   /* the deepest --stack=N */

/* Frames of a stack at most: the function and HWBPI_STACK_MAX callers. */
#define HWBPI_STACK_MAX_FRAMES (HWBPI_STACK_MAX + 1)

struct hwbpi_demangler;
struct hwbpi_stacks;

#define HWBPI_STACKS_MAX_PARTS 64u
/* The most stacks a part holds, and the bytes of frames it may take:
 * a histogram of 65536 entries per watch and --stack=64 asks for more
 * than a tracer should hold in memory; past this, stacks are lost
 * (counted: hwbpi_stacks_lost). */
#define HWBPI_STACKS_MAX (1u << 20)
#define HWBPI_STACKS_BYTES ((size_t)64 << 20)
/* Trace mode: stacks per CPU (at most the ring's events, see
 * hwbpi_tracer_start). */
#define HWBPI_STACKS_TRACE 4096u

/* hwbpi_stacks_new flag, for tests: every stack hashes to the same value,
 * so that only the comparison of frames tells stacks apart. */
#define HWBPI_STACKS_COLLIDE 1u

/*
 * hwbpi_stacks_fit - the capacity to give a part for @want stacks of up to
 * @depth callers: @want, at most HWBPI_STACKS_MAX and what
 * HWBPI_STACKS_BYTES of frames hold; at least 1.  No error.
 */
unsigned hwbpi_stacks_fit(uint64_t want, unsigned depth);

/*
 * hwbpi_stacks_new - @nparts parts of @capacity stacks each, of up to
 * @depth callers (frames beyond are cut), HWBPI_STACKS_* @flags.  At
 * setup, not on the hit path.
 * Errors (NULL, *err when non-NULL): -EINVAL (nparts 0 or above
 * HWBPI_STACKS_MAX_PARTS, capacity 0 or above HWBPI_STACKS_MAX, depth 0 or
 * above HWBPI_STACK_MAX, an unknown flag), -ENOMEM.
 */
struct hwbpi_stacks *hwbpi_stacks_new(unsigned nparts, unsigned capacity, unsigned depth,
				      unsigned flags, int *err);
void hwbpi_stacks_free(struct hwbpi_stacks *st);

/*
 * hwbpi_stacks_intern - the id of the stack (@func, @callers) in part
 * @part: @callers are return addresses, innermost first; at most the
 * table's depth of them are used, and the first 0 ends them (n 0 or a
 * first 0: the function alone, still a stack).  A stack not in the part
 * is added when @insert, and gets the next id; when the part is full it
 * is not, and counts as lost.  Returns the id, or 0: not in the part and
 * not added (!@insert, or full).
 * Hot path: allocation-free, lock-free, no system call; one writer per
 * part at a time.  A bad @part (or NULL @st) returns 0, counting nothing.
 */
uint32_t hwbpi_stacks_intern(struct hwbpi_stacks *st, unsigned part, uint64_t func,
			     const uint64_t *callers, unsigned n, bool insert);

/*
 * hwbpi_stacks_hit - the hit path's call: hwbpi_stacks_intern of the
 * stack whose frame 0 is the function containing @ip in @syms (0: none,
 * or NULL @syms), with the same result.  A small direct-mapped cache of
 * part @part, keyed by @ip and hwbpi_stacks_sig of the callers, spares
 * a hit that came from that IP through that stack lately the function
 * lookup and the hash: its frames are only compared with the stack's.
 * Hot path, as hwbpi_stacks_intern (the cache is the part's writer's).
 */
uint32_t hwbpi_stacks_hit(struct hwbpi_stacks *st, unsigned part, const struct hwbp_symtab *syms,
			  uint64_t ip, const uint64_t *callers, unsigned n, bool insert);

/*
 * hwbpi_stacks_sig - a cheap signature of a stack's callers @callers[0..m)
 * (@m already cut to the table's depth): its first two callers as
 * hwbpi_stacks_intern reads them (0 past the first 0), mixed.  Stacks
 * with the same callers have the same signature; different ones mostly
 * do not.  For hit caches, which then compare the frames to be sure.
 * Pure, inline: hot path.
 */
static inline uint64_t hwbpi_stacks_sig(const uint64_t *callers, unsigned m)
{
	uint64_t c0 = m ? callers[0] : 0, c1 = m > 1 && c0 ? callers[1] : 0;

	return c0 ^ (c1 * UINT64_C(0xc2b2ae3d27d4eb4f));
}

/*
 * hwbpi_stacks_same - whether @callers[0..m) (@m cut to the table's
 * depth), read as hwbpi_stacks_intern reads them (to the first 0), are
 * the @l callers of a stack the table holds at @stored (as
 * hwbpi_stacks_get gives them, after frame 0; none of them is 0): those
 * @l match word by word, and the one after them is 0 or past @m.  Pure,
 * inline: hot path.
 */
typedef uint64_t hwbpi_u64x2 __attribute__((vector_size(16)));

static inline bool hwbpi_stacks_same(const uint64_t *stored, unsigned l, const uint64_t *callers,
				     unsigned m)
{
	hwbpi_u64x2 diff = { 0, 0 };
	unsigned k = 0;
	uint64_t rest;

	if (l > m || (l < m && callers[l] != 0))
		return false;
	/*
	 * Two words at a time in the compiler's generic vectors (SIMD where
	 * the target has it, pairs of words where not): the compare is
	 * most of a stack-keyed hit's cost, and a plain loop of one word
	 * per step measured twice as slow.  memcpy: the frames need not be
	 * 16-byte aligned.
	 */
	for (; k + 2 <= l; k += 2) {
		hwbpi_u64x2 a, b;

		memcpy(&a, stored + k, sizeof(a));
		memcpy(&b, callers + k, sizeof(b));
		diff |= a ^ b;
	}
	rest = diff[0] | diff[1];
	if (k < l)
		rest |= stored[k] ^ callers[k];
	return rest == 0;
}

/*
 * hwbpi_stacks_get - the frames of stack @id: *@frames (borrowed until the
 * table is freed) holds the function, then the callers' return addresses;
 * returns their number (1 + callers), or 0 for an id the table never gave
 * (0 among them).  No allocation; any thread, for ids it got after the
 * writer gave them (see above).
 */
unsigned hwbpi_stacks_get(const struct hwbpi_stacks *st, uint32_t id, const uint64_t **frames);

/* Stacks held (all parts), stacks lost (hits whose stack found its part
 * full), and a part's capacity.  Read once the writers stopped (or accept
 * counts a moment old).  No error (NULL: 0). */
unsigned hwbpi_stacks_used(const struct hwbpi_stacks *st);
uint64_t hwbpi_stacks_lost(const struct hwbpi_stacks *st);
unsigned hwbpi_stacks_capacity(const struct hwbpi_stacks *st);

/*
 * hwbpi_stacks_frame_name - the name of frame @k of stack @frames into
 * @buf: frame 0 (the function itself) the symbol at that address, each
 * caller (k >= 1) the function containing its return address - 1 (see
 * stacks.c), demangled through @dm (may be NULL: as the table has it),
 * with "+0xOFF" (the return address's offset in it) when @offsets and
 * k >= 1.  An unknown frame is "0xADDR" (a caller's return address), or
 * "?" (frame 0: no function known).  Returns @buf or the name itself
 * (borrowed from @syms or @dm).  Not on the hit path.
 */
const char *hwbpi_stacks_frame_name(const struct hwbp_symtab *syms, struct hwbpi_demangler *dm,
				    const uint64_t *frames, unsigned k, bool offsets, char *buf,
				    size_t len);

/*
 * hwbpi_stacks_callers - trace mode's outputs: the callers of stack @id
 * named as "work+0x12" (hwbpi_stacks_frame_name with offsets), one string
 * per caller, in *@names (NUL-separated, borrowed until the table is
 * freed); returns how many callers (0 for none, or an unknown id).  Named
 * once per stack (the first call allocates), then cached: the outputs'
 * consumer only, one thread.  Errors: -ENOMEM (*@names NULL).
 */
int hwbpi_stacks_callers(struct hwbpi_stacks *st, uint32_t id, const struct hwbp_symtab *syms,
			 struct hwbpi_demangler *dm, const char **names);

#endif /* HWBP_TRACER_STACKS_H */
