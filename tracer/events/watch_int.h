/* SPDX-License-Identifier: MIT */
/*
 * events/'s private header: the typed names of watch entries
 * (watch_expr.c), for watch.c.
 */
#ifndef HWBP_TRACER_WATCH_INT_H
#define HWBP_TRACER_WATCH_INT_H

#include "events/events.h"

/*
 * hwbpi_watch_expr - watch @w of entry @e whose name is no symbol's: a C
 * expression over a variable (types/types.h), resolved now (pointers read
 * through t->mem).  On success @err holds the note of the resolution.
 * Returns 0 (an expression, @w made), 1 (not one: a malformed expression,
 * or one over a variable nobody knows, which may still be a symbol by a
 * demangled name or a pattern; then *@later is the error to return if it
 * is neither, -EINVAL or -ENOENT, with its line in @err, or 0), or a
 * negative errno with one line in @err naming the column: -ENOENT,
 * -EINVAL, -ERANGE, -EFAULT, -EOPNOTSUPP, -EIO (hwbpi_types_resolve()'s),
 * and -EINVAL for a /LEN that does not hold a bitfield.
 */
int hwbpi_watch_expr(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e,
		     struct hwbpi_watch *w, int *later, char *err, size_t errlen);

#endif /* HWBP_TRACER_WATCH_INT_H */
