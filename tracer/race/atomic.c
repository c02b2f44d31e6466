/* SPDX-License-Identifier: MIT */
/*
 * Atomic operations in plain instructions (race/race.h): the code side
 * here, the object side in typed.c (a variable's type on the way to the
 * accessed bytes).
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
 * What neither tells: an _Atomic member of a C heap object that no
 * global pointer points at (typed.c names heap objects through those),
 * read and written only with relaxed or acquire/release accesses (no lock
 * prefix anywhere).  That is said in docs/tracer.md.
 *
 * Neither runs on a hot path: once per sampled instruction and per
 * caught access, in the tracer's thread.
 */
#include <errno.h>
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
