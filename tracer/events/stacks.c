/* SPDX-License-Identifier: MIT */
/*
 * The stack table (see stacks.h): open addressing on a hash of the
 * frames, one part per writer, everything allocated up front.
 *
 * A part holds its stacks in the order they came (index i: frames at
 * frames[i * stride], their number in len[i]) and a hash index of twice
 * as many slots, each the stack's index + 1 (0: empty) and 32 bits of its
 * hash, probed linearly.  Since a part never holds more than its capacity
 * and the index has twice that many slots, a probe always ends at an
 * empty slot, and a miss costs a few compares.  Nothing is ever removed:
 * no tombstones, and an id is never reused.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"
#include "events/stacks.h"
#include "events/events.h"

/*
 * The hit cache of a part: hits come from a handful of instructions, each
 * reached through one or a few call paths, so 256 direct-mapped lines
 * keyed by the IP and the stack's signature (hwbpi_stacks_sig: its first
 * two callers) remember the stack each (IP, signature) was last, and the
 * function of the IP.  A line's stack is checked word by word against
 * the frames given (against its stored length: no search for the first
 * 0, no hash of all frames, no probe), so that only a stack not seen from
 * that IP lately, or one differing from it past the first two callers
 * only, is interned (and the function looked up) again.
 */
#define FCACHE 256u

struct fline {
	uint64_t ip1;        /* ip + 1; 0: empty */
	uint64_t sig;
	uint64_t func;
	uint32_t id;         /* the stack, or 0 */
};

struct slot {
	uint32_t tag;        /* the hash's high 32 bits */
	uint32_t idx1;       /* index + 1; 0: empty */
};

struct part {
	uint32_t used;       /* written by the part's writer (release), read by anyone */
	uint64_t lost;
	struct slot *slots;
	uint8_t *len;        /* frames of each stack: 1 + callers */
	uint64_t *frames;
	char **names;        /* hwbpi_stacks_callers' cache (the consumer's) */
	struct fline fcache[FCACHE];
};

struct hwbpi_stacks {
	unsigned nparts, cap, depth, stride, nslots;
	uint64_t hash_mask;  /* all ones, or 0 (HWBPI_STACKS_COLLIDE) */
	/* One odd multiplier per frame position: the hash is a sum of
	 * independent products (no chain of multiplies through the frames),
	 * mixed once at the end. */
	uint64_t mul[HWBPI_STACK_MAX + 1];
	struct part *p[];
};

unsigned hwbpi_stacks_fit(uint64_t want, unsigned depth)
{
	uint64_t stride = (uint64_t)(depth > HWBPI_STACK_MAX ? HWBPI_STACK_MAX : depth) + 1;
	uint64_t by_bytes = HWBPI_STACKS_BYTES / (stride * sizeof(uint64_t));

	if (want > by_bytes)
		want = by_bytes;
	if (want > HWBPI_STACKS_MAX)
		want = HWBPI_STACKS_MAX;
	return want ? (unsigned)want : 1;
}

static void free_part(struct part *p, unsigned cap)
{
	if (!p)
		return;
	for (unsigned i = 0; p->names && i < cap; i++)
		free(p->names[i]);
	free(p->names);
	free(p->slots);
	free(p->len);
	free(p->frames);
	free(p);
}

void hwbpi_stacks_free(struct hwbpi_stacks *st)
{
	if (!st)
		return;
	for (unsigned i = 0; i < st->nparts; i++)
		free_part(st->p[i], st->cap);
	free(st);
}

/* splitmix64: the multipliers, the same for every table (a stack's hash
 * is then the same in every part, which only tests could notice). */
static uint64_t next_mul(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return (z ^ (z >> 31)) | 1;
}

struct hwbpi_stacks *hwbpi_stacks_new(unsigned nparts, unsigned capacity, unsigned depth,
				      unsigned flags, int *err)
{
	struct hwbpi_stacks *st;
	uint64_t seed = 0;
	unsigned nslots = 2;

	if (nparts == 0 || nparts > HWBPI_STACKS_MAX_PARTS || capacity == 0 ||
	    capacity > HWBPI_STACKS_MAX || depth == 0 || depth > HWBPI_STACK_MAX ||
	    (flags & ~HWBPI_STACKS_COLLIDE)) {
		if (err)
			*err = -EINVAL;
		return NULL;
	}
	while (nslots < 2 * capacity)
		nslots *= 2;
	st = calloc(1, sizeof(*st) + nparts * sizeof(st->p[0]));
	if (!st)
		goto nomem;
	st->nparts = nparts;
	st->cap = capacity;
	st->depth = depth;
	st->stride = depth + 1;
	st->nslots = nslots;
	st->hash_mask = (flags & HWBPI_STACKS_COLLIDE) ? 0 : UINT64_MAX;
	for (unsigned k = 0; k <= HWBPI_STACK_MAX; k++)
		st->mul[k] = next_mul(&seed);
	for (unsigned i = 0; i < nparts; i++) {
		struct part *p = calloc(1, sizeof(*p));

		st->p[i] = p;
		if (!p || !(p->slots = calloc(nslots, sizeof(*p->slots))) ||
		    !(p->len = calloc(capacity, 1)) ||
		    !(p->frames = calloc((size_t)capacity * st->stride, sizeof(uint64_t))) ||
		    !(p->names = calloc(capacity, sizeof(*p->names))))
			goto nomem;
	}
	return st;
nomem:
	hwbpi_stacks_free(st);
	if (err)
		*err = -ENOMEM;
	return NULL;
}

/* (A loop, not memcmp: a few words, and no call on the hit path.) */
static bool same(const struct hwbpi_stacks *st, const struct part *p, uint32_t idx, uint64_t func,
		 const uint64_t *callers, unsigned n)
{
	const uint64_t *f = p->frames + (size_t)idx * st->stride;
	uint64_t diff;

	if (p->len[idx] != n + 1)
		return false;
	diff = f[0] ^ func;
	for (unsigned k = 0; k < n; k++)
		diff |= f[k + 1] ^ callers[k];
	return diff == 0;
}

uint32_t hwbpi_stacks_intern(struct hwbpi_stacks *st, unsigned part, uint64_t func,
			     const uint64_t *callers, unsigned n, bool insert)
{
	struct part *p;
	unsigned k, i, mask;
	uint64_t h, *f;
	uint32_t tag, idx;

	if (!st || part >= st->nparts)
		return 0;
	p = st->p[part];
	if (!callers || n > st->depth)
		n = callers ? st->depth : 0;
	h = func * st->mul[0];
	for (k = 0; k < n && callers[k]; k++)
		h += callers[k] * st->mul[k + 1];
	n = k;
	/* the sum mixed (a murmur3-style finaliser), the length in it */
	h ^= n;
	h = (h ^ (h >> 33)) * UINT64_C(0xff51afd7ed558ccd);
	h = (h ^ (h >> 33)) & st->hash_mask;
	tag = (uint32_t)(h >> 32);
	mask = st->nslots - 1;
	for (i = (unsigned)h & mask; p->slots[i].idx1; i = (i + 1) & mask)
		if (p->slots[i].tag == tag && same(st, p, p->slots[i].idx1 - 1, func, callers, n))
			return part * st->cap + p->slots[i].idx1;
	if (!insert)
		return 0;
	idx = p->used;
	if (idx == st->cap) {
		/* one writer: a plain increment, stored atomically for readers */
		__atomic_store_n(&p->lost, p->lost + 1, __ATOMIC_RELAXED);
		return 0;
	}
	f = p->frames + (size_t)idx * st->stride;
	f[0] = func;
	if (n)
		memcpy(f + 1, callers, n * sizeof(*callers));
	p->len[idx] = (uint8_t)(n + 1);
	p->slots[i].tag = tag;
	p->slots[i].idx1 = idx + 1;
	/* The record before the count that makes it readable (hwbpi_stacks_get
	 * checks ids against it). */
	__atomic_store_n(&p->used, idx + 1, __ATOMIC_RELEASE);
	return part * st->cap + idx + 1;
}

/* Whether stack @idx of @p has the callers @callers[0..m). */
static bool same_callers(const struct hwbpi_stacks *st, const struct part *p, uint32_t idx,
			 const uint64_t *callers, unsigned m)
{
	return hwbpi_stacks_same(p->frames + (size_t)idx * st->stride + 1, p->len[idx] - 1u, callers,
				 m);
}

uint32_t hwbpi_stacks_hit(struct hwbpi_stacks *st, unsigned part, const struct hwbp_symtab *syms,
			  uint64_t ip, const uint64_t *callers, unsigned n, bool insert)
{
	const struct hwbp_sym *f;
	struct fline *l;
	struct part *p;
	unsigned m;
	uint64_t sig;

	if (!st || part >= st->nparts)
		return 0;
	m = callers ? (n < st->depth ? n : st->depth) : 0;
	sig = hwbpi_stacks_sig(callers, m);
	p = st->p[part];
	l = &p->fcache[((ip ^ sig) * UINT64_C(0x9e3779b97f4a7c15)) >> 56 & (FCACHE - 1)];
	/* the line's stack has this IP's function as frame 0 */
	if (l->ip1 == ip + 1 && l->sig == sig && l->id &&
	    same_callers(st, p, l->id - 1 - part * st->cap, callers, m))
		return l->id;
	if (l->ip1 != ip + 1) {
		f = syms ? hwbp_symtab_func(syms, ip) : NULL;
		l->ip1 = ip + 1;
		l->func = f ? f->addr : 0;
	}
	l->sig = sig;
	l->id = hwbpi_stacks_intern(st, part, l->func, callers, n, insert);
	return l->id;
}

/* The part and index of @id, or false (never given). */
static bool locate(const struct hwbpi_stacks *st, uint32_t id, unsigned *part, uint32_t *idx)
{
	if (!st || id == 0)
		return false;
	*part = (id - 1) / st->cap;
	*idx = (id - 1) % st->cap;
	return *part < st->nparts &&
	       *idx < __atomic_load_n(&st->p[*part]->used, __ATOMIC_ACQUIRE);
}

unsigned hwbpi_stacks_get(const struct hwbpi_stacks *st, uint32_t id, const uint64_t **frames)
{
	unsigned part;
	uint32_t idx;

	if (!locate(st, id, &part, &idx))
		return 0;
	*frames = st->p[part]->frames + (size_t)idx * st->stride;
	return st->p[part]->len[idx];
}

unsigned hwbpi_stacks_used(const struct hwbpi_stacks *st)
{
	unsigned n = 0;

	for (unsigned i = 0; st && i < st->nparts; i++)
		n += __atomic_load_n(&st->p[i]->used, __ATOMIC_ACQUIRE);
	return n;
}

uint64_t hwbpi_stacks_lost(const struct hwbpi_stacks *st)
{
	uint64_t n = 0;

	for (unsigned i = 0; st && i < st->nparts; i++)
		n += __atomic_load_n(&st->p[i]->lost, __ATOMIC_RELAXED);
	return n;
}

unsigned hwbpi_stacks_capacity(const struct hwbpi_stacks *st)
{
	return st ? st->cap : 0;
}

/* ------------------------------------------------------------------ */
/* Names (the consumer's side).                                        */
/* ------------------------------------------------------------------ */

const char *hwbpi_stacks_frame_name(const struct hwbp_symtab *syms, struct hwbpi_demangler *dm,
				    const uint64_t *frames, unsigned k, bool offsets, char *buf,
				    size_t len)
{
	uint64_t a = frames[k];
	const struct hwbp_sym *s;
	const char *name;

	if (k == 0 && a == 0)
		return "?";
	/*
	 * A caller's frame is its return address: the instruction after the
	 * call.  When the call is the last instruction of its function (a
	 * call to a noreturn function such as abort() or
	 * __stack_chk_fail(), which the compiler ends the function with),
	 * that address is already the first byte of the next function, and
	 * naming it would name the wrong caller.  One byte back is inside
	 * the call instruction, hence inside the caller.  Frame 0 is a
	 * function's own start address.
	 */
	s = syms ? hwbp_symtab_func(syms, k == 0 ? a : a - 1) : NULL;
	if (!s && syms)   /* in no function: its file and offset ("libc.so.6+0x2724a") */
		return hwbpi_symtab_describe(syms, a, buf, len);
	if (!s) {
		snprintf(buf, len, "0x%" PRIx64, a);
		return buf;
	}
	name = hwbpi_demangler_name(dm, s->name);
	if (k == 0 || !offsets)
		return name;
	snprintf(buf, len, "%s+0x%" PRIx64, name, a - s->addr);
	return buf;
}

int hwbpi_stacks_callers(struct hwbpi_stacks *st, uint32_t id, const struct hwbp_symtab *syms,
			 struct hwbpi_demangler *dm, const char **names)
{
	const uint64_t *f;
	unsigned part, n;
	uint32_t idx;
	size_t total = 0;
	char buf[4200], *blob;

	*names = NULL;
	if (!locate(st, id, &part, &idx))
		return 0;
	n = st->p[part]->len[idx];
	if (st->p[part]->names[idx]) {
		*names = st->p[part]->names[idx];
		return (int)n - 1;
	}
	f = st->p[part]->frames + (size_t)idx * st->stride;
	for (unsigned k = 1; k < n; k++)
		total += strlen(hwbpi_stacks_frame_name(syms, dm, f, k, true, buf, sizeof(buf))) + 1;
	blob = malloc(total ? total : 1);
	if (!blob)
		return -ENOMEM;
	total = 0;
	for (unsigned k = 1; k < n; k++) {
		const char *s = hwbpi_stacks_frame_name(syms, dm, f, k, true, buf, sizeof(buf));
		size_t l = strlen(s) + 1;

		memcpy(blob + total, s, l);
		total += l;
	}
	st->p[part]->names[idx] = blob;
	*names = blob;
	return (int)n - 1;
}
