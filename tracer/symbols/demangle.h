/* SPDX-License-Identifier: MIT */
/*
 * Demangled function names for the tracer's outputs (tracer-internal):
 * C++ (Itanium ABI) and Rust (legacy and v0) names in the user's own
 * terms, computed at output time, never on the hit path.  Without
 * libiberty in the build (HWBP_HAVE_LIBIBERTY unset) names stay as they are.
 */
#ifndef HWBP_TRACER_DEMANGLE_H
#define HWBP_TRACER_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether this build demangles at all (libiberty was found). */
bool hwbpi_demangle_available(void);

/*
 * hwbpi_demangle - @name demangled into @buf (@size bytes), or copied
 * there unchanged when it is not a mangled name (C names, a build without
 * libiberty, a demangler that failed or ran out of memory).
 * Returns 0, or -EINVAL (NULL @name or @buf, @size 0), or -ENOSPC: @buf was
 * too small, and holds the result cut to @size - 1 bytes, NUL-terminated
 * (a cut name is still readable in a column; the caller decides).
 */
int hwbpi_demangle(const char *name, char *buf, size_t size);

/*
 * A cache of demangled names keyed by the name's address (the symbol
 * table's strings, which outlive an output), so that an output demangles
 * each distinct name once however many events name it.
 */
struct hwbpi_demangler;

/* Errors (NULL, *err when non-NULL): -ENOMEM. */
struct hwbpi_demangler *hwbpi_demangler_new(int *err);
void hwbpi_demangler_free(struct hwbpi_demangler *d);

/* @name demangled (owned by @d, until hwbpi_demangler_free), or @name
 * itself: not mangled, or no memory (a mangled name is still a name).
 * NULL @d or @name: @name. */
const char *hwbpi_demangler_name(struct hwbpi_demangler *d, const char *name);

#endif /* HWBP_TRACER_DEMANGLE_H */
