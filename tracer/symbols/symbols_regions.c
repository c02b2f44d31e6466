/* SPDX-License-Identifier: MIT */
/*
 * Where loaded objects are (tracer/symbols/symtab.h): so that an IP in no
 * function -- a stripped library's static function, code the symbol
 * table does not cover -- is still a place the user can look up,
 * "libfoo.so.1+0x1234", rather than a bare "?".
 *
 * The offset is ip - bias: the address in the file's own layout (its
 * p_vaddr space), which is what nm(1) and objdump(1) print and what
 * addr2line -e FILE takes, whether the file is a PIE or a library
 * (loaded at some bias) or a fixed executable (bias 0: the offset is the
 * address itself).  Regions are few (the objects of one process), so
 * they are kept sorted as they come and found by binary search.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symtab.h"
#include "symbols/symbols_int.h"

void hwbpi_symtab_regions_free(struct hwbp_symtab *t)
{
	for (size_t i = 0; i < t->nreg; i++) {
		free(t->reg[i].name);
		free(t->reg[i].path);
	}
	free(t->reg);
	t->reg = NULL;
	t->nreg = t->reg_cap = 0;
}

/* The first region whose lo is above @ip (0..nreg). */
static size_t upper(const struct hwbp_symtab *t, uint64_t ip)
{
	size_t lo = 0, hi = t->nreg;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->reg[mid].lo <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int hwbpi_symtab_add_region(struct hwbp_symtab *t, uint64_t lo, uint64_t hi, uint64_t bias,
			    const char *name)
{
	const char *base;
	size_t at;
	char *copy;

	if (!t || !name || !*name || lo >= hi)
		return -EINVAL;
	if (t->finished)
		return -EBUSY;
	at = upper(t, lo);
	/* Not overlapping the one before (lo above its start) or after. */
	if ((at && t->reg[at - 1].hi > lo) || (at < t->nreg && t->reg[at].lo < hi))
		return -EEXIST;
	if (t->nreg == t->reg_cap) {
		size_t cap = t->reg_cap ? 2 * t->reg_cap : 16;
		struct region *r = cap < SIZE_MAX / sizeof(*r) ? realloc(t->reg, cap * sizeof(*r)) : NULL;

		if (!r)
			return -ENOMEM;
		t->reg = r;
		t->reg_cap = cap;
	}
	base = strrchr(name, '/');
	base = base && base[1] ? base + 1 : name;
	if (!(copy = strdup(base)))
		return -ENOMEM;
	memmove(&t->reg[at + 1], &t->reg[at], (t->nreg - at) * sizeof(*t->reg));
	t->reg[at] = (struct region){ lo, hi, bias, copy, NULL };
	t->nreg++;
	return 0;
}

void hwbpi_symtab_move_regions(struct hwbp_symtab *t, uint64_t d)
{
	/* Addresses are modulo 2^64: the shift keeps the order unless a
	 * region comes to straddle 2^64 or only some of them wrap (no real
	 * kernel does either); then no region names anything rather than
	 * a wrong one. */
	for (size_t i = 0; i < t->nreg; i++)
		if (t->reg[i].hi - 1 + d < t->reg[i].lo + d ||
		    (i && t->reg[i].lo + d < t->reg[i - 1].hi - 1 + d)) {
			hwbpi_symtab_regions_free(t);
			return;
		}
	for (size_t i = 0; i < t->nreg; i++) {
		t->reg[i].lo += d;
		t->reg[i].hi += d;
		t->reg[i].bias += d;
	}
}

int hwbpi_symtab_region_file(struct hwbp_symtab *t, uint64_t lo, const char *path)
{
	size_t at = upper(t, lo);
	char *copy;

	if (!at || t->reg[at - 1].lo != lo)
		return -ENOENT;
	if (!(copy = strdup(path)))
		return -ENOMEM;
	free(t->reg[at - 1].path);
	t->reg[at - 1].path = copy;
	return 0;
}

int hwbpi_symtab_region_of(const struct hwbp_symtab *t, uint64_t addr, const char **path,
			   uint64_t *bias)
{
	size_t at = t ? upper(t, addr) : 0;

	if (!at || addr >= t->reg[at - 1].hi || !t->reg[at - 1].path)
		return -ENOENT;
	*path = t->reg[at - 1].path;
	*bias = t->reg[at - 1].bias;
	return 0;
}

const char *hwbpi_symtab_describe(const struct hwbp_symtab *t, uint64_t ip, char *buf, size_t n)
{
	size_t at;

	if (!buf || !n)
		return "";
	at = t ? upper(t, ip) : 0;
	if (at && ip < t->reg[at - 1].hi)
		snprintf(buf, n, "%s+0x%" PRIx64, t->reg[at - 1].name, ip - t->reg[at - 1].bias);
	else
		snprintf(buf, n, "0x%" PRIx64, ip);
	return buf;
}
