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

/*
 * hwbpi_watch_percpu - watch @w of entry @e whose name is the kernel's
 * per-CPU symbol @s (hwbpi_ksyms_percpu() of t->ksyms): its offset (its
 * value), one watch that the view places on each CPU's copy
 * (hwbpi_watch.percpu); typed by the first source that knows it (the
 * kernel's BTF types every per-CPU variable), else sized by the symbol
 * (a vmlinux's st_size) or /LEN.  On success @err holds the note.
 * Errors, with one line in @err: -EINVAL (no size from anywhere, or not
 * a plain name), those of hwbpi_types_resolve().
 */
int hwbpi_watch_percpu(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e,
		       const struct hwbp_sym *s, struct hwbpi_watch *w, char *err, size_t errlen);

/*
 * hwbpi_watch_object - watch @w of entry @e, a watch of objects whose
 * parsed form is @spec (hwbpi_objspec_parse()): the arming function and
 * parameter typed, the chain resolved to an offset, the release point
 * (t->release) found.  On success @err holds the note.
 * Errors, one line in @err naming the errno: -ENOENT (no such function,
 * no prototype, no such parameter), -EINVAL (not a pointer, no release
 * point, x, +OFF, a function returning nothing), the chain's
 * (hwbpi_types_resolve(): -EOPNOTSUPP for a pointer in the chain).
 */
int hwbpi_watch_object(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e,
		       const struct hwbpi_objspec *spec, struct hwbpi_watch *w, char *err,
		       size_t errlen);

#endif /* HWBP_TRACER_WATCH_INT_H */
