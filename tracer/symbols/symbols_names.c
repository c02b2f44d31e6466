/* SPDX-License-Identifier: MIT */
/*
 * Symbols by name (hwbp_symtab_find, tracer/symbols/symtab.h): the name as the
 * table has it, qualified by a file or a version, or as the user reads
 * it in a C++ or Rust program ("app::bump(int)", "app::bump",
 * "app::hits"), or a glob pattern of names.
 *
 * A name as given is one hash probe.  Demangled names need more, and
 * demangling every name of a large program costs real time (the 81,000
 * mangled names of a 100 MB node binary: 55 ms in libiberty, 110 ms
 * with the index), so nothing is demangled at load: a program traced by
 * C names never pays.  A demangled name first takes a fast path
 * (scan_resolve: only the symbols whose mangled name spells its last
 * identifier are demangled, ~3 ms there); what that cannot decide --
 * operators, constructors, overloads to name, a miss, a pattern holding
 * "::" -- builds the index, once.  Once built it is read-only; it is
 * published with a compare-and-swap, so that concurrent lookups stay
 * lock-free (two racing builders: the loser frees its copy).
 *
 * The index (symbols_demangled.c) keeps each symbol's demangled name,
 * where it starts past a template function's return type and where its
 * parameter list starts, with chains on the name and on the name without
 * its parameters; the lookups here read it.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"
#include "symbols/names.h"
#include "symbols/symtab.h"
#include "symbols/symbols_int.h"

/* ------------------------------------------------------------------ */
/* Names as the table has them.                                        */
/* ------------------------------------------------------------------ */

const struct hwbp_sym *hwbpi_symtab_hash_find(const struct hwbp_symtab *t, const char *name)
{
	size_t h;

	for (h = (size_t)hwbpi_symtab_hash_name(name) & t->hmask;; h = (h + 1) & t->hmask) {
		uint32_t o = t->hslot[h];

		if (!o)
			return NULL;
		if (!strcmp(t->sym[o - 1].name, name))
			return &t->sym[o - 1];
	}
}

/* A part of a qualified name: bytes [p, p + len); p NULL: absent. */
struct part {
	const char *p;
	size_t len;
};

static bool part_is(struct part a, const char *s)
{
	return a.p && strlen(s) == a.len && !memcmp(a.p, s, a.len);
}

/* Does @q name object @o: its path as loaded, the path's last component
 * or its DT_SONAME ("libc.so.6" for /lib/x86_64-linux-gnu/libc.so.6)? */
static bool obj_is(const struct hwbp_symtab *t, const struct obj *o, struct part q)
{
	const char *path = t->pool + o->path, *base = strrchr(path, '/');

	return part_is(q, path) || part_is(q, base ? base + 1 : path) ||
	       (o->soname != NO_SONAME && part_is(q, t->pool + o->soname));
}

/* The object holding insertion index @ins (objects are in insertion
 * order and do not overlap), or NULL. */
static const struct obj *obj_of(const struct hwbp_symtab *t, uint32_t ins)
{
	size_t lo = 0, hi = t->nobj;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->obj[mid].end <= ins)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nobj && t->obj[lo].first <= ins ? &t->obj[lo] : NULL;
}

/* "[LIB:]NAME[@[@]VERSION|@LIB]" in parts (tracer/symbols/names.h splits it as
 * the filter parser does). */
struct query {
	struct part name, lib, ver;
};

static int query_of(const char *spec, struct query *q)
{
	struct hwbpi_name_parts p;

	hwbpi_name_split(spec, &p);
	q->lib = p.lib_len == HWBPI_NAME_NONE ? (struct part){ NULL, 0 } :
						(struct part){ spec, p.lib_len };
	q->name = (struct part){ spec + p.name, p.name_len };
	q->ver = (struct part){ NULL, 0 };
	if (p.qual != HWBPI_NAME_NONE) {
		struct part x = { spec + p.qual, p.qual_len };

		if (!x.len)
			return -ENOENT;
		/* A shared object's name holds ".so"; a version never does. */
		if (strstr(x.p, ".so")) {
			if (q->lib.p)
				return -ENOENT;  /* two files named */
			q->lib = x;
		} else {
			q->ver = x;
		}
	}
	return q->name.len && (!q->lib.p || q->lib.len) ? 0 : -ENOENT;
}

/* Does symbol @i (a position) have @q's version and file? */
static bool quals_ok(const struct hwbp_symtab *t, size_t i, const struct query *q)
{
	const char *name = t->sym[i].name;

	if (q->ver.p && (!(t->sx[i] & SX_VER) || !part_is(q->ver, name + strlen(name) + 1)))
		return false;
	if (q->lib.p) {
		const struct obj *o = obj_of(t, t->sx[i] & ~SX_VER);

		if (!o || !obj_is(t, o, q->lib))
			return false;
	}
	return true;
}

static uint32_t ins_of(const struct hwbp_symtab *t, size_t i)
{
	return t->sx[i] & ~SX_VER;
}

/* The first-added symbol named @q->name as the table has it, of that
 * version and file.  A plain scan: it runs once per filter entry, never
 * on a hit, and keeps the finished table free of a per-name chain. */
static const struct hwbp_sym *raw_find(const struct hwbp_symtab *t, const struct query *q)
{
	const struct hwbp_sym *best = NULL;
	uint32_t best_ins = UINT32_MAX;

	for (size_t i = 0; i < t->n; i++) {
		if (ins_of(t, i) >= best_ins || !part_is(q->name, t->sym[i].name) ||
		    !quals_ok(t, i, q))
			continue;
		best = &t->sym[i];
		best_ins = ins_of(t, i);
	}
	return best;
}

/* The first-added symbol whose demangled name (past its return type) is
 * @q, with @query's qualifiers. */
static const struct hwbp_sym *dm_full(const struct hwbp_symtab *t,
				      const struct hwbpi_dm_index *dm, struct part q,
				      const struct query *query)
{
	const struct hwbp_sym *best = NULL;
	uint32_t best_ins = UINT32_MAX;

	for (uint32_t k = dm->fhead[hwbpi_dm_hash(q.p, q.len) & dm->mask]; k; k = dm->fnext[k - 1]) {
		size_t i = k - 1;

		if (part_is(q, dm->dn[i] + dm->rt[i]) && ins_of(t, i) < best_ins &&
		    quals_ok(t, i, query)) {
			best = &t->sym[i];
			best_ins = ins_of(t, i);
		}
	}
	return best;
}

/* Does position @i of the base chain have base @q and the qualifiers? */
static bool base_is(const struct hwbp_symtab *t, const struct hwbpi_dm_index *dm, size_t i,
		    struct part q, const struct query *query)
{
	return dm->pe[i] - dm->rt[i] == q.len && !memcmp(dm->dn[i] + dm->rt[i], q.p, q.len) &&
	       quals_ok(t, i, query);
}

/*
 * @q as a function's name without its parameter list: the symbols
 * having it are one function when they all have the same demangled name
 * (aliases, the complete and base object constructors C1 and C2, the
 * same function in two files: the first added wins, as for any name),
 * else overloads, which the user must choose among.
 */
static int dm_base(const struct hwbp_symtab *t, const struct hwbpi_dm_index *dm, struct part q,
		   const struct query *query, const struct hwbp_sym **out,
		   struct hwbpi_symtab_amb *amb)
{
	uint32_t head = dm->bhead[hwbpi_dm_hash(q.p, q.len) & dm->mask], best_ins = UINT32_MAX;
	const struct hwbp_sym *best = NULL;
	size_t distinct = 0;

	for (uint32_t k = head; k; k = dm->bnext[k - 1]) {
		size_t i = k - 1;
		bool seen = false;

		if (!base_is(t, dm, i, q, query))
			continue;
		/* A new demangled name?  Overloads are few: compare with the
		 * matches before this one in the chain. */
		for (uint32_t j = head; j != k && !seen; j = dm->bnext[j - 1])
			seen = base_is(t, dm, j - 1, q, query) &&
			       !strcmp(dm->dn[j - 1] + dm->rt[j - 1], dm->dn[i] + dm->rt[i]);
		if (!seen && amb && distinct < HWBPI_SYMTAB_CANDIDATES)
			amb->name[distinct] = dm->dn[i];
		distinct += !seen;
		if (ins_of(t, i) < best_ins) {
			best = &t->sym[i];
			best_ins = ins_of(t, i);
		}
	}
	if (distinct == 1) {
		*out = best;
		if (amb)
			amb->n = 0;
		return 0;
	}
	if (amb)
		amb->n = distinct;
	return distinct ? -EINVAL : -ENOENT;
}

/*
 * The fast path of a demangled lookup while no index exists: demangle
 * only the symbols whose mangled name spells @name's own identifier
 * ("17cli_options_mutex" for node::per_process::cli_options_mutex:
 * hwbpi_name_literal() says why every mangling of it must), a few
 * among a program's 100,000, and decide as the index would: the first
 * added of the exact matches, else of the matches without a parameter
 * list when they are one function.  Rust v0 names ("_R") are always
 * demangled (their identifiers may carry a '_' after the length).
 * Returns 0 (*@out), -EAGAIN when the index must decide (no identifier
 * to rely on, overloads, which it names, or no match: a miss is
 * confirmed over every name), -ENOMEM.
 */
static int scan_resolve(const struct hwbp_symtab *t, const struct query *q, struct part name,
			const struct hwbp_sym **out)
{
	const struct hwbp_sym *full = NULL, *base = NULL;
	uint32_t full_ins = UINT32_MAX, base_ins = UINT32_MAX;
	size_t at, len, cap = 4096;
	char needle[64], *buf, *base_name = NULL;
	int r = -EAGAIN;

	if (!hwbpi_name_literal(name.p, name.len, &at, &len) || len > 40)
		return -EAGAIN;
	snprintf(needle, sizeof(needle), "%zu%.*s", len, (int)len, name.p + at);
	if (!(buf = malloc(cap)))
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const char *raw = t->sym[i].name, *d;
		size_t start, params;
		int m;

		if (!hwbpi_dm_may_be_mangled(raw) || (raw[1] == 'Z' && !strstr(raw, needle)))
			continue;
		if ((m = hwbpi_dm_demangle_into(raw, &buf, &cap)) <= 0) {
			if (m < 0) {
				r = m;
				goto out;
			}
			continue;
		}
		hwbpi_name_shape(buf, strlen(buf), &start, &params);
		d = buf + start;
		if (part_is(name, d)) {
			if (ins_of(t, i) < full_ins && quals_ok(t, i, q)) {
				full = &t->sym[i];
				full_ins = ins_of(t, i);
			}
		} else if (params != HWBPI_NAME_NONE && params - start == name.len &&
			   !memcmp(d, name.p, name.len) && quals_ok(t, i, q)) {
			if (!base_name && !(base_name = strdup(d))) {
				r = -ENOMEM;
				goto out;
			}
			if (strcmp(base_name, d) != 0)
				goto out;   /* overloads: the index names them */
			if (ins_of(t, i) < base_ins) {
				base = &t->sym[i];
				base_ins = ins_of(t, i);
			}
		}
	}
	if (full || base) {
		*out = full ? full : base;
		r = 0;
	}
out:
	free(base_name);
	free(buf);
	return r;
}

int hwbpi_symtab_resolve(const struct hwbp_symtab *t, const char *spec,
			 const struct hwbp_sym **out, struct hwbpi_symtab_amb *amb)
{
	const struct hwbpi_dm_index *dm;
	const struct hwbp_sym *s;
	struct query q;
	struct part name;
	size_t skip;
	int err = 0;

	if (amb)
		amb->n = 0;
	if (!t || !t->finished || !spec || !out)
		return -EINVAL;
	/* A name in the table as given always matches first. */
	if ((s = hwbpi_symtab_hash_find(t, spec))) {
		*out = s;
		return 0;
	}
	if (query_of(spec, &q))
		return -ENOENT;
	if ((q.lib.p || q.ver.p) && (s = raw_find(t, &q))) {
		*out = s;
		return 0;
	}
	if (!hwbpi_demangle_available())
		return -ENOENT;
	/* "void app::f<long>(long)" as the outputs print it is also
	 * "app::f<long>(long)", the key. */
	skip = hwbpi_name_skip_return(q.name.p, q.name.len);
	name = (struct part){ q.name.p + skip, q.name.len - skip };
	if (!hwbpi_symtab_demangled_built(t) && (err = scan_resolve(t, &q, name, out)) != -EAGAIN)
		return err;
	if (!(dm = hwbpi_symtab_dm_get(t, &err)))
		return err;
	if ((s = dm_full(t, dm, name, &q))) {
		*out = s;
		return 0;
	}
	return dm_base(t, dm, name, &q, out, amb);
}

const struct hwbp_sym *hwbpi_symtab_exact(const struct hwbp_symtab *t, const char *name)
{
	return t && t->finished && name ? hwbpi_symtab_hash_find(t, name) : NULL;
}

const struct hwbp_sym *hwbp_symtab_find(const struct hwbp_symtab *t, const char *name)
{
	const struct hwbp_sym *s;

	return hwbpi_symtab_resolve(t, name, &s, NULL) ? NULL : s;
}

/* ------------------------------------------------------------------ */
/* Patterns.                                                           */
/* ------------------------------------------------------------------ */

static bool kind_ok(char type, unsigned kinds)
{
	/* nm's letters: data (initialised, bss, read-only, small data and
	 * bss, weak objects, unique globals), and code as hwbp_symtab_func's */
	return type && (((kinds & HWBPI_SYM_DATA) && strchr("dDbBrRgGsSvVu", type)) ||
			((kinds & HWBPI_SYM_FUNC) && strchr("tTwWi", type)));
}

int hwbpi_symtab_glob(const struct hwbp_symtab *t, const char *spec, unsigned kinds,
		      const struct hwbp_sym **out, const char **names, size_t max)
{
	const struct hwbpi_dm_index *dm = NULL;
	struct query q;
	uint64_t last = 0;
	size_t count = 0;
	char *pat;
	int err = 0;

	if (!t || !t->finished || !spec || (max && !out) || query_of(spec, &q))
		return -EINVAL;
	if (!(pat = malloc(q.name.len + 1)))
		return -ENOMEM;
	memcpy(pat, q.name.p, q.name.len);
	pat[q.name.len] = '\0';
	if (strstr(pat, "::") && hwbpi_demangle_available() && !(dm = hwbpi_symtab_dm_get(t, &err))) {
		free(pat);
		return err;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct hwbp_sym *s = &t->sym[i];
		const char *target = dm ? dm->dn[i] + dm->rt[i] : s->name;

		if (!kind_ok(s->type, kinds) || (count && s->addr == last) ||
		    fnmatch(pat, target, 0) != 0 || !quals_ok(t, i, &q))
			continue;
		if (count < max) {
			out[count] = s;
			if (names)
				names[count] = target;
		}
		count++;
		last = s->addr;
	}
	free(pat);
	return count > INT_MAX ? INT_MAX : (int)count;
}
