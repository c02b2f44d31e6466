/* SPDX-License-Identifier: MIT */
/*
 * The start addresses of a finished table's functions, in address order:
 * the table an in-kernel counter searches to name an IP's function
 * (tracer/backends/perf/bpf.h), the same functions hwbp_symtab_func() finds.
 */
#include "symbols/symbols_int.h"

/*
 * hwbpi_symtab_func_starts - the starts (ascending; same-address aliases
 * repeated) of the functions of finished table @t in *@starts, borrowed
 * from the table until it is freed; returns how many (0: none, or @t not
 * finished).  No allocation; any thread once finished.
 */
size_t hwbpi_symtab_func_starts(const struct hwbp_symtab *t, const uint64_t **starts)
{
	if (!t || !t->finished || !t->func.n) {
		*starts = NULL;
		return 0;
	}
	/* The function index's radix front keeps its interval starts in
	 * address order (symbols_index.c ivl_build()). */
	*starts = t->func.skey;
	return t->func.n;
}
