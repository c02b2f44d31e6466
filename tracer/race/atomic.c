/* SPDX-License-Identifier: MIT */
/*
 * Atomic objects a plain instruction accesses, and the typed names of
 * the variables a report names (race/race.h).
 *
 * An atomic access needs no lock prefix when it is a load or a store: on
 * x86-64 (and arm64) a relaxed, acquire or sequentially consistent load
 * and a relaxed or release store are a plain MOV (LDR, STR), the same
 * bytes as a non-atomic access (the mappings of C11's orders to each ISA:
 * GCC's libatomic and the psABI agree, and only a seq_cst store takes
 * XCHG).  So the decoder cannot tell them, and two threads' relaxed
 * accesses to one counter would be a "race" that C11 (5.1.2.4p25: a data
 * race needs an access that is not atomic) says is none.  DWARF tells
 * them in two ways:
 *
 *  - the object: a variable whose type at the accessed offset is _Atomic
 *    qualified (C), or one of C++'s std::atomic classes (types/'s
 *    hwbpi_tinfo.atomic).  Every access to such an object is atomic.
 *  - the code: an instruction of one of those classes' member functions
 *    (std::__atomic_base<int>::load at -O0, a function of its own), or
 *    inlined from one (at -O2: DW_TAG_inlined_subroutine scopes).  This
 *    also covers heap objects, whose type no symbol gives.
 *
 * What neither tells: an _Atomic member of a heap object in C, read and
 * written only with relaxed or acquire/release accesses (no lock prefix
 * anywhere, no variable's type).  That is said in docs/tracer.md.
 *
 * Neither runs on a hot path: once per sampled instruction and per
 * caught access, in the tracer's thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "race/race.h"   /* (types/ through session/backend.h) */

/* The members of libstdc++'s <atomic>, demangled: each is an atomic
 * operation ([atomics.types.generic]), whatever code it compiles to. */
static const char *const cxx_atomic[] = {
	"std::atomic<", "std::__atomic_base<", "std::__atomic_float<", "std::atomic_ref<",
	"std::__atomic_ref<", "std::atomic_flag::", "std::__atomic_impl::",
	"std::atomic_load", "std::atomic_store", "std::atomic_exchange",
};

static bool atomic_name(const char *mangled)
{
	char buf[256];

	if (!mangled || hwbpi_demangle(mangled, buf, sizeof(buf)) == -EINVAL)
		return false;
	for (size_t i = 0; i < sizeof(cxx_atomic) / sizeof(cxx_atomic[0]); i++)
		if (strncmp(buf, cxx_atomic[i], strlen(cxx_atomic[i])) == 0)
			return true;
	return false;
}

bool hwbpi_race_atomic_code(const struct hwbpi_race_run *r, uint64_t ip)
{
	const struct hwbp_sym *f;
	const char *nm;

	if (!r || !r->syms || !ip)
		return false;
	f = hwbp_symtab_func(r->syms, ip);
	if (f && atomic_name(f->name))
		return true;
	for (unsigned i = 0; r->dwarf && hwbpi_dwarf_inlined(r->dwarf, ip, i, &nm) == 0; i++)
		if (atomic_name(nm))
			return true;
	return false;
}

/* ---- typed names ------------------------------------------------------------ */

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

int hwbpi_race_typed(struct hwbpi_race_run *r, uint64_t addr, char *out, size_t n,
		     bool *atomic)
{
	struct hwbpi_typer_opts o = { .dwarf = r ? r->dwarf : NULL };
	const struct hwbp_sym *s;
	struct hwbpi_tsrc *src;
	struct hwbpi_tvar v;
	unsigned pos = 0;
	uint64_t off;
	char why[8] = "";

	if (!r || !out || !n || !atomic)
		return -EINVAL;
	out[0] = '\0';
	*atomic = false;
	if (!hwbpi_race_var(r, addr, &off) || !r->dwarf ||
	    !(s = hwbp_symtab_at(r->syms, addr)))
		return -ENOENT;
	if (!r->typer && !(r->typer = hwbpi_typer_new(&o)))
		return -ENOMEM;
	while ((src = hwbpi_typer_next(r->typer, s->addr, false, &pos, why, sizeof(why)))) {
		char name[256];

		/* the symbol table's name, demangled: a C++ global's DWARF
		 * name is qualified the same way (tdwarf's find_var) */
		hwbpi_demangle(s->name, name, sizeof(name));
		if (src->ops->find_var(src, name, s->addr, &v) == 0) {
			snprintf(out, n, "%s", name);
			walk(v.type, off, out, n, strlen(out), atomic);
			return 0;
		}
	}
	return -ENOENT;
}
