/* SPDX-License-Identifier: MIT */
/*
 * Finishing a symbol table (hwbp_symtab_finish): sort, infer the sizes a
 * map leaves out, and build the read-only name hash and address indices
 * (Eytzinger keys with "up" links and a radix front, symbols.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols_int.h"
#include "util/util.h"

/* ------------------------------------------------------------------ */
/* Finish: sort, sizes, indices.                                       */
/* ------------------------------------------------------------------ */

static bool is_func_type(char c)
{
	return c == 't' || c == 'T' || c == 'w' || c == 'W' || c == 'i';
}

static void *alloc64(size_t n, size_t elem)
{
	size_t bytes;

	/* No object may exceed PTRDIFF_MAX bytes. */
	if (n > ((size_t)PTRDIFF_MAX - 64) / elem)
		return NULL;
	bytes = (n * elem + 63) & ~(size_t)63;
	return aligned_alloc(64, bytes ? bytes : 64);
}

static int ivl_alloc(struct ivl_index *x, size_t n)
{
	x->n = (uint32_t)n;
	x->depth = 0;
	while (((size_t)1 << x->depth) - 1 < n)
		x->depth++;
	x->key = alloc64((size_t)1 << x->depth, sizeof(*x->key));
	x->iv = alloc64(n + 1, sizeof(*x->iv));
	/* About one bucket per symbol, at most 2^20. */
	x->nb = 1;
	while (x->nb < n && x->nb < (1u << 20))
		x->nb <<= 1;
	x->bucket = alloc64((size_t)x->nb + 1, sizeof(*x->bucket));
	x->skey = alloc64(n + 1, sizeof(*x->skey));
	x->rnode = alloc64(n + 1, sizeof(*x->rnode));
	return x->key && x->iv && x->bucket && x->skey && x->rnode ? 0 : -ENOMEM;
}

/* Scratch per sorted position, shared by both index builds. */
struct tmp {
	uint64_t start, last;
	uint32_t sym, up, node;
};

/* Sort keys (start, insertion index) in a struct tmp: by address, ties
 * by insertion order ("stable"), with no global context for qsort. */
static int cmp_tmp(const void *a, const void *b)
{
	const struct tmp *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/* In-order walk of the implicit tree: node k gets the i-th smallest. */
static uint32_t eyt_fill(struct ivl_index *x, struct tmp *tp, uint32_t i, size_t k)
{
	if (k <= x->n) {
		i = eyt_fill(x, tp, i, 2 * k);
		x->key[k] = tp[i].start;
		tp[i++].node = (uint32_t)k;
		i = eyt_fill(x, tp, i, 2 * k + 1);
	}
	return i;
}

/*
 * Build an index over the symbols t->sym[pos[0..n)] (in address order).
 *
 * Within one address the order is reversed, so that the lookup, which
 * lands on the last interval starting at or below ip and walks backwards,
 * meets the first-added alias first ("first added wins", as for names).
 *
 * up(i) = the largest j < i with last(j) >= start(i).  The answer for ip,
 * landing at k, is the largest j <= k with start(j) <= ip <= last(j); any
 * such j < i has last(j) >= ip >= start(i), so j <= up(i): following up
 * never skips the answer, and what it skips ends before start(i) <= ip.
 * The same argument computes up() itself in amortised linear time.
 */
static void ivl_build(struct ivl_index *x, const struct hwbp_symtab *t, const uint32_t *pos,
		      struct tmp *tp)
{
	const uint32_t none = UINT32_MAX;
	uint32_t n = x->n, i = 0;

	while (i < n) {
		uint32_t g = i;

		while (g < n && t->sym[pos[g]].addr == t->sym[pos[i]].addr)
			g++;
		for (uint32_t k = 0; k < g - i; k++) {
			const struct hwbp_sym *s = &t->sym[pos[g - 1 - k]];
			uint64_t last = s->size ? s->addr + (s->size - 1) : s->addr;

			if (last < s->addr)
				last = UINT64_MAX;
			tp[i + k].start = s->addr;
			tp[i + k].last = last;
			tp[i + k].sym = pos[g - 1 - k];
		}
		i = g;
	}
	for (i = 0; i < n; i++) {
		uint32_t j = i ? i - 1 : none;

		while (j != none && tp[j].last < tp[i].start)
			j = tp[j].up;
		tp[i].up = j;
	}
	/* Nodes past n complete the tree with +infinity (UINT64_MAX: only
	 * ip == UINT64_MAX compares >= it, and the lookup takes that case
	 * apart), so the descent needs no bounds check. */
	for (size_t k = 0; k < ((size_t)1 << x->depth); k++)
		x->key[k] = UINT64_MAX;
	eyt_fill(x, tp, 0, 1);
	x->top = n ? tp[n - 1].node : 0;
	memset(&x->iv[0], 0, sizeof(x->iv[0]));
	for (i = 0; i < n; i++) {
		struct ivl *v = &x->iv[tp[i].node];

		v->last = tp[i].last;
		v->up = tp[i].up == none ? 0 : tp[tp[i].up].node;
		v->sym = tp[i].sym;
		x->skey[i] = tp[i].start;
		x->rnode[i] = tp[i].node;
	}
	/* The radix front: buckets of 2^shift bytes cover [base, last start]. */
	x->base = n ? tp[0].start : 0;
	x->shift = 0;
	while (n && x->shift < 63 && ((tp[n - 1].start - x->base) >> x->shift) >= x->nb)
		x->shift++;
	for (uint32_t b = 0, r = 0; b <= x->nb; b++) {
		uint64_t from = b == x->nb ? UINT64_MAX : x->base + ((uint64_t)b << x->shift);

		while (r < n && x->skey[r] < from)
			r++;
		x->bucket[b] = b == x->nb ? n : r;
	}
}

uint64_t hwbpi_symtab_hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

/* The arrays of a finish, all allocated before anything changes. */
struct scratch {
	uint32_t *order, *fpos;
	struct tmp *tp;
	struct hwbp_sym *sym;
	uint32_t *sx;
	uint32_t *hslot;
	bool *inferred;
};

static int scratch_alloc(struct scratch *a, size_t n, size_t hcap)
{
	a->order = malloc((n ? n : 1) * sizeof(*a->order));
	a->fpos = malloc((n ? n : 1) * sizeof(*a->fpos));
	a->tp = malloc((n ? n : 1) * sizeof(*a->tp));
	a->sym = calloc(n ? n : 1, sizeof(*a->sym));
	a->sx = malloc((n ? n : 1) * sizeof(*a->sx));
	a->hslot = calloc(hcap, sizeof(*a->hslot));
	a->inferred = malloc((n ? n : 1) * sizeof(*a->inferred));
	return a->order && a->fpos && a->tp && a->sym && a->sx && a->hslot && a->inferred ?
		0 : -ENOMEM;
}

static void scratch_free(struct scratch *a)
{
	free(a->order);
	free(a->fpos);
	free(a->tp);
	free(a->sym);
	free(a->sx);
	free(a->hslot);
	free(a->inferred);
}

/* The sort keys of the entries in a->tp; returns how many are functions. */
static size_t sort_keys(const struct hwbp_symtab *t, struct scratch *a)
{
	size_t nf = 0;

	for (size_t i = 0; i < t->n; i++) {
		a->tp[i].start = t->ent[i].addr;
		a->tp[i].sym = (uint32_t)i;
		nf += is_func_type(t->ent[i].type);
	}
	return nf;
}

/* The symbols in address order in a->sym, their insertion indices in
 * a->order and a->sx (with SX_VER: a version follows the name), whether
 * their source gave no size in a->inferred. */
static void sort_syms(const struct hwbp_symtab *t, struct scratch *a)
{
	size_t n = t->n;

	qsort(a->tp, n, sizeof(*a->tp), cmp_tmp);
	for (size_t i = 0; i < n; i++)
		a->order[i] = a->tp[i].sym;
	for (size_t i = 0; i < n; i++) {
		const struct ent *e = &t->ent[a->order[i]];

		a->sym[i].addr = e->addr;
		a->sym[i].size = e->size;
		a->sym[i].name = t->pool + e->name;
		a->sym[i].type = e->type;
		a->sx[i] = a->order[i] | (e->ver ? SX_VER : 0);
		a->inferred[i] = e->infer;
	}
}

/* Map sources give no sizes: a symbol reaches up to the next one at a
 * higher address (aliases share it); the last one stays exact. */
static void infer_sizes(const struct hwbp_symtab *t, struct scratch *a)
{
	struct hwbp_sym *sym = a->sym;
	size_t n = t->n;

	for (size_t i = 0, next = 0; i < n; i++) {
		if (next <= i)
			for (next = i + 1; next < n && sym[next].addr == sym[i].addr; next++)
				;
		if (t->ent[a->order[i]].infer && !sym[i].size && next < n)
			sym[i].size = sym[next].addr - sym[i].addr;
	}
}

/* Names: insert in address order, but an existing equal name wins only
 * if it was added earlier (order[] holds the insertion index). */
static void hash_names(struct scratch *a, size_t n, size_t hcap)
{
	const struct hwbp_sym *sym = a->sym;

	for (size_t i = 0; i < n; i++) {
		size_t h = (size_t)hwbpi_symtab_hash_name(sym[i].name) & (hcap - 1);

		for (;; h = (h + 1) & (hcap - 1)) {
			uint32_t o = a->hslot[h];

			if (!o) {
				a->hslot[h] = (uint32_t)i + 1;
				break;
			}
			if (!strcmp(sym[o - 1].name, sym[i].name)) {
				if (a->order[i] < a->order[o - 1])
					a->hslot[h] = (uint32_t)i + 1;
				break;
			}
		}
	}
}

/* The positions of all symbols in a->fpos, of the functions in a->order. */
static void positions(struct scratch *a, size_t n)
{
	size_t nf = 0;

	/* order[] is free now: reuse it for the function positions. */
	for (size_t i = 0; i < n; i++) {
		a->fpos[i] = (uint32_t)i;
		if (is_func_type(a->sym[i].type))
			a->order[nf++] = (uint32_t)i;
	}
}

int hwbp_symtab_finish(struct hwbp_symtab *t)
{
	struct scratch a = { 0 };
	struct ivl_index all = { 0 }, func = { 0 };
	size_t n, nf, hcap = 4;
	int r = -ENOMEM;

	if (!t)
		return -EINVAL;
	if (t->finished)
		return 0;
	n = t->n;
	while (hcap < 2 * n)
		hcap *= 2;
	/* Everything is allocated before anything changes: a failed finish
	 * leaves a loadable, unfinished table. */
	if (scratch_alloc(&a, n, hcap))
		goto out;
	nf = sort_keys(t, &a);
	if (ivl_alloc(&all, n) || ivl_alloc(&func, nf))
		goto out;

	sort_syms(t, &a);
	infer_sizes(t, &a);
	hash_names(&a, n, hcap);
	t->sym = a.sym;
	positions(&a, n);
	ivl_build(&all, t, a.fpos, a.tp);
	ivl_build(&func, t, a.order, a.tp);

	free(t->ent);
	t->ent = NULL;
	t->cap = 0;
	t->hslot = a.hslot;
	t->sx = a.sx;
	t->inferred = a.inferred;
	t->hmask = hcap - 1;
	t->all = all;
	t->func = func;
	t->finished = true;
	a.hslot = NULL;
	a.sym = NULL;
	a.sx = NULL;
	a.inferred = NULL;
	r = 0;
out:
	if (r) {
		hwbpi_symtab_ivl_free(&all);
		hwbpi_symtab_ivl_free(&func);
		t->sym = NULL;
	}
	scratch_free(&a);
	return r;
}
