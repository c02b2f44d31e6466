/* SPDX-License-Identifier: MIT */
/*
 * Symbol tables for the ksym tracer: name -> symbol (for the filter) and
 * address -> function / symbol (for the outputs and histograms).
 *
 * Two phases.  While loading, symbols are appended to a growable array of
 * small records whose names live in one string pool (offsets, not pointers:
 * the pool moves when it grows).  hwbp_symtab_finish() then sorts, infers
 * the sizes a map file does not give, and builds read-only lookup
 * structures; after it every lookup is allocation-free and lock-free, so
 * the outputs may call them from any thread.
 *
 * Address lookups ("which interval contains ip") use, per index (all
 * symbols, and functions only):
 *   - the start addresses in Eytzinger (BFS) order, padded to a complete
 *     tree: a branch-free descent with a fixed trip count, whose lower
 *     levels are prefetched while the upper ones are compared.  Measured
 *     on 150,000 symbols it is about as fast as a static B+tree and 20%
 *     faster than a branch-free binary search over the sorted array;
 *   - per node the inclusive last address and an "up" link: the nearest
 *     earlier interval that reaches this one's start.  The predecessor of
 *     ip need not contain it (gaps, nested or zero-size symbols), and
 *     every interval that could is on the up chain, so the walk is exact
 *     (proof at ivl_build) and, for real tables, one step.
 * Names use an open-addressing hash (FNV-1a, linear probing, load <= 1/2);
 * demangled names and patterns are symbols_names.c's, the loaded
 * objects' address ranges symbols_regions.c's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/ksyms.h"
#include "symbols/symbols_int.h"
#include "util/util.h"

struct hwbp_symtab *hwbp_symtab_new(int *err)
{
	struct hwbp_symtab *t = calloc(1, sizeof(*t));

	if (err)
		*err = t ? 0 : -ENOMEM;
	return t;
}

void hwbpi_symtab_ivl_free(struct ivl_index *x)
{
	free(x->key);
	free(x->iv);
	free(x->bucket);
	free(x->skey);
	free(x->rnode);
	memset(x, 0, sizeof(*x));
}

void hwbp_symtab_free(struct hwbp_symtab *t)
{
	if (!t)
		return;
	free(t->ent);
	free(t->pool);
	free(t->obj);
	free(t->sym);
	free(t->sx);
	free(t->inferred);
	free(t->hslot);
	hwbpi_symtab_ivl_free(&t->all);
	hwbpi_symtab_ivl_free(&t->func);
	hwbpi_symtab_dm_free(t->dm);
	hwbpi_symtab_regions_free(t);
	free(t);
}

size_t hwbp_symtab_count(const struct hwbp_symtab *t)
{
	return t ? t->n : 0;
}

/* ------------------------------------------------------------------ */
/* Loading.                                                            */
/* ------------------------------------------------------------------ */

/* Geometric growth; a failed grow leaves the table as it was. */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t nc;
	void *np;

	if (need <= *cap)
		return 0;
	nc = *cap ? *cap : 64;
	while (nc < need) {
		if (nc > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		nc *= 2;
	}
	np = realloc(*p, nc * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

int hwbpi_symtab_add_v(struct hwbp_symtab *t, const char *name, size_t len, const char *ver,
		       size_t vlen, uint64_t addr, uint64_t size, char type, bool infer)
{
	size_t total;
	struct ent *e;

	if (!ver)
		vlen = 0;
	if (t->n >= MAX_SYMS || len > SIZE_MAX / 2 || vlen > SIZE_MAX / 2 ||
	    len + vlen + 2 > SIZE_MAX - t->pool_len)
		return -ENOMEM;
	total = len + 1 + (ver ? vlen + 1 : 0);
	if (grow((void **)&t->ent, &t->cap, t->n + 1, sizeof(*t->ent)) ||
	    grow((void **)&t->pool, &t->pool_cap, t->pool_len + total, 1))
		return -ENOMEM;
	memcpy(t->pool + t->pool_len, name, len);
	t->pool[t->pool_len + len] = '\0';
	if (ver) {
		memcpy(t->pool + t->pool_len + len + 1, ver, vlen);
		t->pool[t->pool_len + len + 1 + vlen] = '\0';
	}
	e = &t->ent[t->n++];
	e->addr = addr;
	e->size = size;
	e->name = t->pool_len;
	e->type = type;
	e->infer = infer;
	e->ver = ver != NULL;
	t->pool_len += total;
	return 0;
}

int hwbpi_symtab_add_n(struct hwbp_symtab *t, const char *name, size_t len, uint64_t addr,
		       uint64_t size, char type, bool infer)
{
	return hwbpi_symtab_add_v(t, name, len, NULL, 0, addr, size, type, infer);
}

/* A string into the pool; its offset in *off. */
static int pool_str(struct hwbp_symtab *t, const char *s, size_t *off)
{
	size_t len = strlen(s);

	if (len > SIZE_MAX - t->pool_len - 1 ||
	    grow((void **)&t->pool, &t->pool_cap, t->pool_len + len + 1, 1))
		return -ENOMEM;
	memcpy(t->pool + t->pool_len, s, len + 1);
	*off = t->pool_len;
	t->pool_len += len + 1;
	return 0;
}

int hwbpi_symtab_add_obj(struct hwbp_symtab *t, struct mark m, const char *path,
			 const char *soname)
{
	struct obj o = { 0, NO_SONAME, (uint32_t)m.n, (uint32_t)t->n };

	if (grow((void **)&t->obj, &t->obj_cap, t->nobj + 1, sizeof(*t->obj)) ||
	    pool_str(t, path, &o.path) || (soname && pool_str(t, soname, &o.soname)))
		return -ENOMEM;
	t->obj[t->nobj++] = o;
	return 0;
}

/* A load call is all-or-nothing: it remembers where it started and cuts
 * the table back there when it fails (the arrays keep their capacity). */

struct mark hwbpi_symtab_mark_of(const struct hwbp_symtab *t)
{
	struct mark m = { t->n, t->pool_len, t->nobj };

	return m;
}

void hwbpi_symtab_rollback(struct hwbp_symtab *t, struct mark m)
{
	t->n = m.n;
	t->pool_len = m.pool_len;
	t->nobj = m.nobj;
}

int hwbp_symtab_add(struct hwbp_symtab *t, const char *name, uint64_t addr,
		    uint64_t size, char type)
{
	if (!t || !name || !*name)
		return -EINVAL;
	if (t->finished)
		return -EBUSY;
	return hwbpi_symtab_add_n(t, name, strlen(name), addr, size, type, false);
}

/* ------------------------------------------------------------------ */
/* Address lookups: no allocation, no lock, no system call.  Names are */
/* looked up in symbols_names.c.                                       */
/* ------------------------------------------------------------------ */

static const struct hwbp_sym *ivl_lookup(const struct hwbp_symtab *t, const struct ivl_index *x,
					 uint64_t ip)
{
	const uint64_t *key = x->key;
	const struct ivl *iv = x->iv;
	size_t k = 1;

	/*
	 * Branch-free descent through the complete tree: right when start <=
	 * ip.  The padding nodes (+infinity) mean left turns, which leave the
	 * answer unchanged, so there is no bounds check (one measured twice as
	 * slow).  The levels are unrolled (entered by depth, like Duff's
	 * device): no loop branch, so consecutive lookups overlap better in
	 * the pipeline.  Prefetching the node 3 levels down (its 8
	 * descendants there share one 64-byte line) overlaps the latency of
	 * the lower levels with the upper ones; in the last 4 levels, where
	 * the answer is 15 times in 16, the node's record is prefetched.
	 */
	if (ip == UINT64_MAX) {
		k = x->top; /* every start is <= ip; padding must not count */
		goto found;
	}
#define STEP(pf) do { pf; k = 2 * k + (key[k] <= ip); } while (0)
#if defined(__has_attribute)
#if __has_attribute(fallthrough)
#define FALLTHROUGH __attribute__((fallthrough))
#endif
#endif
#ifndef FALLTHROUGH
#define FALLTHROUGH do { } while (0)
#endif
#if defined(__GNUC__)
#define PF_KEY __builtin_prefetch(key + k * 8)
#define PF_IV __builtin_prefetch(iv + k)
#else
#define PF_KEY (void)0
#define PF_IV (void)0
#endif
	switch (x->depth) {
	case 31: STEP(PF_KEY); FALLTHROUGH;
	case 30: STEP(PF_KEY); FALLTHROUGH;
	case 29: STEP(PF_KEY); FALLTHROUGH;
	case 28: STEP(PF_KEY); FALLTHROUGH;
	case 27: STEP(PF_KEY); FALLTHROUGH;
	case 26: STEP(PF_KEY); FALLTHROUGH;
	case 25: STEP(PF_KEY); FALLTHROUGH;
	case 24: STEP(PF_KEY); FALLTHROUGH;
	case 23: STEP(PF_KEY); FALLTHROUGH;
	case 22: STEP(PF_KEY); FALLTHROUGH;
	case 21: STEP(PF_KEY); FALLTHROUGH;
	case 20: STEP(PF_KEY); FALLTHROUGH;
	case 19: STEP(PF_KEY); FALLTHROUGH;
	case 18: STEP(PF_KEY); FALLTHROUGH;
	case 17: STEP(PF_KEY); FALLTHROUGH;
	case 16: STEP(PF_KEY); FALLTHROUGH;
	case 15: STEP(PF_KEY); FALLTHROUGH;
	case 14: STEP(PF_KEY); FALLTHROUGH;
	case 13: STEP(PF_KEY); FALLTHROUGH;
	case 12: STEP(PF_KEY); FALLTHROUGH;
	case 11: STEP(PF_KEY); FALLTHROUGH;
	case 10: STEP(PF_KEY); FALLTHROUGH;
	case 9: STEP(PF_KEY); FALLTHROUGH;
	case 8: STEP(PF_KEY); FALLTHROUGH;
	case 7: STEP(PF_KEY); FALLTHROUGH;
	case 6: STEP(PF_KEY); FALLTHROUGH;
	case 5: STEP(PF_KEY); FALLTHROUGH;
	case 4: STEP(PF_IV); FALLTHROUGH;
	case 3: STEP(PF_IV); FALLTHROUGH;
	case 2: STEP(PF_IV); FALLTHROUGH;
	case 1: STEP(PF_IV); FALLTHROUGH;
	default: break;
	}
#undef STEP
#undef FALLTHROUGH
#undef PF_KEY
#undef PF_IV
	/* The last right turn was at the predecessor: drop the trailing left
	 * turns and that right turn.  All left: node 0, none. */
#if defined(__GNUC__)
	k >>= __builtin_ctzll((unsigned long long)k) + 1;
#else
	while (!(k & 1))
		k >>= 1;
	k >>= 1;
#endif
found:
	for (; k; k = iv[k].up)
		if (ip <= iv[k].last)
			return &t->sym[iv[k].sym];
	return NULL;
}

/*
 * The radix front of ivl_lookup(): the last rank starting at or below ip
 * is in ip's bucket or is the one before it (ranks below the bucket start
 * earlier, ranks of later buckets start after ip); from its node the walk
 * up the "reaching" links is ivl_lookup()'s.  A crowded bucket (symbols
 * piled at one end of a sparse space) falls back to the tree.
 */
static const struct hwbp_sym *radix_lookup(const struct hwbp_symtab *t,
					   const struct ivl_index *x, uint64_t ip)
{
	uint64_t b;
	uint32_t r, hi, k;

	if (!x->n || ip < x->base)
		return NULL;
	b = (ip - x->base) >> x->shift;
	if (b >= x->nb)
		b = x->nb - 1;
	r = x->bucket[b];
	hi = x->bucket[b + 1];
	if (hi - r > 8)
		return ivl_lookup(t, x, ip);
	while (r < hi && x->skey[r] <= ip)
		r++;
	if (r == 0)
		return NULL;
	for (k = x->rnode[r - 1]; k; k = x->iv[k].up)
		if (ip <= x->iv[k].last)
			return &t->sym[x->iv[k].sym];
	return NULL;
}

const struct hwbp_sym *hwbp_symtab_func(const struct hwbp_symtab *t, uint64_t ip)
{
	if (!t || !t->finished)
		return NULL;
	return radix_lookup(t, &t->func, ip);
}

const struct hwbp_sym *hwbp_symtab_at(const struct hwbp_symtab *t, uint64_t addr)
{
	if (!t || !t->finished)
		return NULL;
	return radix_lookup(t, &t->all, addr);
}


/* ------------------------------------------------------------------ */
/* For the notes of the kernel tracer (tracer/symbols/ksyms.h).                */
/* ------------------------------------------------------------------ */

/* The position of @s in the finished table, or -1 when it is not one of
 * its symbols. */
static ptrdiff_t sym_pos(const struct hwbp_symtab *t, const struct hwbp_sym *s)
{
	uintptr_t p = (uintptr_t)s, b;

	if (!t || !t->finished || !s || !t->n)
		return -1;
	b = (uintptr_t)t->sym;
	if (p < b || p >= b + t->n * sizeof(*s) || (p - b) % sizeof(*s))
		return -1;
	return (ptrdiff_t)((p - b) / sizeof(*s));
}

bool hwbpi_symtab_size_inferred(const struct hwbp_symtab *t, const struct hwbp_sym *s)
{
	ptrdiff_t i = sym_pos(t, s);

	return i >= 0 && t->inferred[i];
}

const struct hwbp_sym *hwbpi_symtab_next(const struct hwbp_symtab *t, const struct hwbp_sym *s)
{
	ptrdiff_t i = sym_pos(t, s);

	if (i < 0)
		return NULL;
	/* Sorted by address: skip the aliases of @s (jiffies_64 after jiffies). */
	for (size_t k = (size_t)i + 1; k < t->n; k++)
		if (t->sym[k].addr > s->addr)
			return &t->sym[k];
	return NULL;
}
