/* SPDX-License-Identifier: MIT */
/*
 * The index of demangled names (tracer/symbols/symbols_int.h), for the lookups of
 * symbols_names.c that the fast path cannot decide: built once per table
 * on first need, then read-only, published with a compare-and-swap so
 * that concurrent lookups stay lock-free (two racing builders: the loser
 * frees its copy).
 *
 * Per symbol, its demangled name (an arena of big chunks: one allocation
 * per megabyte, not per name), where that name starts past a template
 * function's return type ("void app::f<long>(long)": the Itanium ABI
 * encodes a return type only for those, and users name the function
 * without it), and where its parameter list starts; and two hash tables
 * of chains in address order: one on the name (past the return type) and
 * one on the name without its parameter list, the key of "app::bump" for
 * "app::bump(int)".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"
#include "symbols/names.h"
#include "symbols/symtab.h"
#include "symbols/symbols_int.h"

#define CHUNK ((size_t)1 << 20)

struct hwbpi_dm_chunk {
	struct hwbpi_dm_chunk *next;
	size_t used, cap;
	char data[];
};

void hwbpi_symtab_dm_free(struct hwbpi_dm_index *dm)
{
	if (!dm)
		return;
	while (dm->chunks) {
		struct hwbpi_dm_chunk *c = dm->chunks;

		dm->chunks = c->next;
		free(c);
	}
	free(dm->dn);
	free(dm->rt);
	free(dm->pe);
	free(dm->fhead);
	free(dm->fnext);
	free(dm->bhead);
	free(dm->bnext);
	free(dm);
}

static const char *arena_dup(struct hwbpi_dm_index *dm, const char *s, size_t len)
{
	struct hwbpi_dm_chunk *c = dm->chunks;
	char *p;

	if (!c || c->cap - c->used < len + 1) {
		size_t cap = len + 1 > CHUNK ? len + 1 : CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = dm->chunks;
		dm->chunks = c;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

/* A hash of @n bytes, eight at a time: the index hashes every demangled
 * name twice (megabytes), where the name hash's byte-wise FNV-1a would
 * be a third of the build.  The mixing step is MurmurHash3's finaliser
 * multiplier with a fold; the byte order of the loads does not matter,
 * as only this process compares the values. */
uint64_t hwbpi_dm_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 29);
}

/* Only these can be mangled (demangle.c passes nothing else on). */
bool hwbpi_dm_may_be_mangled(const char *name)
{
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

/* Demangle @name into *@buf (*@cap bytes, grown as needed): 1 when it
 * was a mangled name, 0 when it stays as it is, -ENOMEM. */
int hwbpi_dm_demangle_into(const char *name, char **buf, size_t *cap)
{
	int r;

	while ((r = hwbpi_demangle(name, *buf, *cap)) == -ENOSPC) {
		char *nb = *cap < SIZE_MAX / 2 ? realloc(*buf, *cap * 2) : NULL;

		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap *= 2;
	}
	return !r && strcmp(*buf, name) != 0;
}

/* Symbol @i demangled into the index; 0 or -ENOMEM.  *@buf (of *@cap
 * bytes) is the demangler's output, grown for long names. */
static int dm_one(const struct hwbp_symtab *t, struct hwbpi_dm_index *dm, size_t i, char **buf,
		  size_t *cap)
{
	const char *name = t->sym[i].name, *d;
	size_t len, start, params;
	int r;

	dm->dn[i] = name;
	dm->rt[i] = 0;
	dm->pe[i] = HWBPI_DM_NO_PARAMS;
	if (!hwbpi_dm_may_be_mangled(name))
		return 0;
	if ((r = hwbpi_dm_demangle_into(name, buf, cap)) < 0)
		return r;
	len = strlen(*buf);
	if (!r || len >= HWBPI_DM_NO_PARAMS)
		return 0;   /* not a name the demangler knows: it stays as it is */
	if (!(d = arena_dup(dm, *buf, len)))
		return -ENOMEM;
	dm->dn[i] = d;
	hwbpi_name_shape(d, len, &start, &params);
	dm->rt[i] = (uint32_t)start;
	dm->pe[i] = params == HWBPI_NAME_NONE ? HWBPI_DM_NO_PARAMS : (uint32_t)params;
	return 0;
}

/* The chains, in address order: inserting from the last position at
 * each chain's head leaves the first position first. */
static void dm_chain(const struct hwbp_symtab *t, struct hwbpi_dm_index *dm)
{
	for (size_t i = t->n; i-- > 0;) {
		const char *d = dm->dn[i] + dm->rt[i];
		size_t h;

		if (dm->dn[i] == t->sym[i].name)
			continue;
		h = (size_t)hwbpi_dm_hash(d, strlen(d)) & dm->mask;
		dm->fnext[i] = dm->fhead[h];
		dm->fhead[h] = (uint32_t)i + 1;
		if (dm->pe[i] == HWBPI_DM_NO_PARAMS)
			continue;
		h = (size_t)hwbpi_dm_hash(d, dm->pe[i] - dm->rt[i]) & dm->mask;
		dm->bnext[i] = dm->bhead[h];
		dm->bhead[h] = (uint32_t)i + 1;
	}
}

static int dm_build(const struct hwbp_symtab *t, struct hwbpi_dm_index **out)
{
	struct hwbpi_dm_index *dm = calloc(1, sizeof(*dm));
	size_t n = t->n ? t->n : 1, hcap = 1, cap = 4096;
	char *buf = malloc(cap);
	int r = -ENOMEM;

	while (hcap < n)
		hcap <<= 1;
	if (!dm || !buf)
		goto out;
	dm->mask = hcap - 1;
	dm->dn = malloc(n * sizeof(*dm->dn));
	dm->rt = malloc(n * sizeof(*dm->rt));
	dm->pe = malloc(n * sizeof(*dm->pe));
	dm->fnext = malloc(n * sizeof(*dm->fnext));
	dm->bnext = malloc(n * sizeof(*dm->bnext));
	dm->fhead = calloc(hcap, sizeof(*dm->fhead));
	dm->bhead = calloc(hcap, sizeof(*dm->bhead));
	if (!dm->dn || !dm->rt || !dm->pe || !dm->fnext || !dm->bnext || !dm->fhead || !dm->bhead)
		goto out;
	for (size_t i = 0; i < t->n; i++)
		if (dm_one(t, dm, i, &buf, &cap))
			goto out;
	dm_chain(t, dm);
	*out = dm;
	dm = NULL;
	r = 0;
out:
	free(buf);
	hwbpi_symtab_dm_free(dm);
	return r;
}

/* The table's index, built now if no lookup built it before; NULL with
 * *@err = -ENOMEM. */
const struct hwbpi_dm_index *hwbpi_symtab_dm_get(const struct hwbp_symtab *t, int *err)
{
	struct hwbpi_dm_index **slot = (struct hwbpi_dm_index **)&t->dm;  /* lazily built */
	struct hwbpi_dm_index *dm = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *none = NULL;

	if (dm)
		return dm;
	if ((*err = dm_build(t, &dm)))
		return NULL;
	if (!__atomic_compare_exchange_n(slot, &none, dm, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		hwbpi_symtab_dm_free(dm);  /* another lookup built it first */
		return none;
	}
	return dm;
}

bool hwbpi_symtab_demangled_built(const struct hwbp_symtab *t)
{
	return t && __atomic_load_n(&t->dm, __ATOMIC_ACQUIRE) != NULL;
}
