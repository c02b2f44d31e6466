/* SPDX-License-Identifier: MIT */
/*
 * The typed names of the bytes a race touched (race/race.h), and whether
 * an object on the way to them is atomic (atomic.c's object side).
 *
 * A global's name is its symbol's; its DWARF type is walked down to the
 * accessed byte: a struct's or union's member that holds it, an array's
 * element, again, until a scalar ("cfg.limits[2].hi").  A heap object has
 * no symbol; the commonest way a program names one is a global pointer
 * to it, so the executable's (and --only's) pointer-sized data symbols
 * are read, and one whose value points at the object names it as C does
 * ("table->rows[3].count"), its pointee type walked the same way.  That
 * needs the process's memory, so it is asked while the process is there
 * (a race's first sighting, a sample): the answer is kept.
 *
 * A step's name that does not fit the caller's buffer ends the name, not
 * the walk: the atomic answer needs the innermost type.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "race/race.h"   /* (types/ through session/backend.h) */
/* Count snprintf's @k into @at; once a step did not fit @n, the name
 * stays as it was before it (the walk goes on: *atomic is its answer). */
static void fits(int k, size_t n, size_t *at, char *out)
{
	if (*at == SIZE_MAX)
		return;
	if (k < 0 || (size_t)k >= n - *at) {
		out[*at] = '\0';
		*at = SIZE_MAX;
		return;
	}
	*at += (size_t)k;
}

/* The member of struct/union @ti holding byte @off (its name, offset and
 * type into the out parameters); false: none (padding). */
static bool member_at(struct hwbpi_tsrc *src, const struct hwbpi_tinfo *ti, uint64_t off,
		      const char **name, uint64_t *moff, struct hwbpi_type *mtype)
{
	const char *nm;

	for (unsigned i = 0; src->ops->member_name(src, ti->id, i, &nm); i++) {
		struct hwbpi_member m;
		struct hwbpi_tinfo mi;
		uint64_t lo, bytes;

		if (src->ops->member(src, ti->id, nm, &m) || m.type.src->ops->info(m.type.src,
										m.type.id, &mi))
			continue;
		lo = m.bit_off / 8;
		bytes = m.bit_size ? (m.bit_off % 8 + m.bit_size + 7) / 8 : mi.size;
		if (off >= lo && off < lo + bytes) {
			*name = nm;
			*moff = lo;
			*mtype = m.type;
			return true;
		}
	}
	return false;
}

/* From variable @type, byte @off: the steps to the innermost object that
 * holds it, into @out after @at bytes; *@atomic when one of them is. */
static void walk(struct hwbpi_type type, uint64_t off, char *out, size_t n, size_t at,
		 bool *atomic)
{
	for (int depth = 0; depth < 16; depth++) {
		struct hwbpi_tsrc *src = type.src;
		struct hwbpi_tinfo ti;
		const char *nm;
		uint64_t moff;

		if (src->ops->info(src, type.id, &ti))
			return;
		if (ti.atomic) {
			*atomic = true;   /* its insides are the library's */
			return;
		}
		if (ti.kind == HWBPI_TK_STRUCT || ti.kind == HWBPI_TK_UNION) {
			if (!member_at(src, &ti, off, &nm, &moff, &type))
				return;
			if (at != SIZE_MAX)
				fits(snprintf(out + at, n - at, ".%s", nm), n, &at, out);
			off -= moff;
		} else if (ti.kind == HWBPI_TK_ARRAY) {
			struct hwbpi_tinfo el;

			if (ti.target.src->ops->info(ti.target.src, ti.target.id, &el) || !el.size)
				return;
			if (at != SIZE_MAX)
				fits(snprintf(out + at, n - at, "[%" PRIu64 "]", off / el.size), n,
				     &at, out);
			off %= el.size;
			type = ti.target;
		} else {
			return;
		}
	}
}

/* Variable @s's DWARF type into *@type and its name as C spells it
 * into @name (@n bytes).  Errors: -ENOENT (no DWARF types it), -ENOMEM. */
static int var_type(struct hwbpi_race_run *r, const struct hwbp_sym *s, char *name, size_t n,
		    struct hwbpi_type *type)
{
	struct hwbpi_typer_opts o = { .dwarf = r->dwarf };
	struct hwbpi_tsrc *src;
	struct hwbpi_tvar v;
	unsigned pos = 0;
	char why[8] = "";

	if (!r->dwarf)
		return -ENOENT;
	if (!r->typer && !(r->typer = hwbpi_typer_new(&o)))
		return -ENOMEM;
	/* the symbol table's name, demangled: a C++ global's DWARF name is
	 * qualified the same way (tdwarf's find_var) */
	hwbpi_demangle(s->name, name, n);
	while ((src = hwbpi_typer_next(r->typer, s->addr, false, &pos, why, sizeof(why))))
		if (src->ops->find_var(src, name, s->addr, &v) == 0) {
			*type = v.type;
			return 0;
		}
	return -ENOENT;
}

/* The pointer-sized data symbols of the objects sampled, once. */
static int pointers(struct hwbpi_race_run *r)
{
	const struct hwbp_sym **all;
	long n;

	if (r->ptrs_made)
		return 0;
	r->ptrs_made = true;
	n = hwbpi_symtab_glob(r->syms, "*", HWBPI_SYM_DATA, NULL, NULL, 0);
	if (n <= 0)
		return (int)n;
	if (!(all = calloc((size_t)n, sizeof(*all))))
		return -ENOMEM;
	n = hwbpi_symtab_glob(r->syms, "*", HWBPI_SYM_DATA, all, NULL, (size_t)n);
	for (long i = 0; i < n; i++) {
		const char *path = NULL;
		uint64_t bias;

		if (all[i]->size == sizeof(uint64_t) &&
		    !hwbpi_symtab_region_of(r->syms, all[i]->addr, &path, &bias) &&
		    hwbpi_race_chosen(&r->sel, path))
			all[r->nptrs++] = all[i];
	}
	r->ptrs = all;
	return 0;
}

/* @addr inside the object a global pointer points at: "ptr->member..." */
static int through_pointer(struct hwbpi_race_run *r, uint64_t addr, hwbpi_race_read_fn rd,
			   void *rarg, char *out, size_t n, bool *atomic)
{
	int ret = pointers(r);

	for (size_t i = 0; ret == 0 && i < r->nptrs; i++) {
		struct hwbpi_tinfo pi, ti;
		struct hwbpi_type type;
		char name[256];
		uint64_t v;

		/* the pointer's value now; its type only for one that points
		 * at most a struct's size before @addr */
		if (rd(rarg, r->ptrs[i]->addr, &v, sizeof(v)) || !v || v > addr ||
		    addr - v >= HWBPI_RACE_OBJ_MAX || var_type(r, r->ptrs[i], name, sizeof(name), &type) ||
		    type.src->ops->info(type.src, type.id, &pi) || pi.kind != HWBPI_TK_PTR ||
		    !pi.target.src || pi.target.src->ops->info(pi.target.src, pi.target.id, &ti) ||
		    addr - v >= ti.size)
			continue;
		if (ti.atomic) {
			*atomic = true;
			snprintf(out, n, "*%s", name);
			return 0;
		}
		snprintf(out, n, "%s->", name);
		walk(pi.target, addr - v, out, n, strlen(out), atomic);
		/* "p->" then ".member": C's "p->member" */
		if (strncmp(out + strlen(name), "->.", 3) == 0)
			memmove(out + strlen(name) + 2, out + strlen(name) + 3,
				strlen(out + strlen(name) + 3) + 1);
		else
			snprintf(out, n, "*%s", name);   /* a scalar pointee */
		return 0;
	}
	return ret ? ret : -ENOENT;
}

int hwbpi_race_typed(struct hwbpi_race_run *r, uint64_t addr, hwbpi_race_read_fn rd, void *rarg,
		     char *out, size_t n, bool *atomic)
{
	const struct hwbp_sym *s;
	struct hwbpi_type type;
	uint64_t off;
	int ret;

	if (!r || !out || !n || !atomic)
		return -EINVAL;
	out[0] = '\0';
	*atomic = false;
	if (!hwbpi_race_var(r, addr, &off) || !(s = hwbp_symtab_at(r->syms, addr)))
		return rd ? through_pointer(r, addr, rd, rarg, out, n, atomic) : -ENOENT;
	if ((ret = var_type(r, s, out, n, &type)))
		return ret;
	walk(type, off, out, n, strlen(out), atomic);
	return 0;
}
