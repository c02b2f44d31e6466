/* SPDX-License-Identifier: MIT */
/*
 * The running kernel's symbols for the kernel tracer (tracer-internal).
 */
#ifndef HWBP_TRACER_KSYMS_H
#define HWBP_TRACER_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwbp/trace.h>

/*
 * How a symbol's default length was chosen, for the output's note (both
 * in symbols.c): true when its source gave no size (a map line: the size
 * is what the next symbol at a higher address leaves, 0 for the last),
 * false when it did (ELF st_size, hwbp_symtab_add) or @s is not a symbol
 * of the finished @t.  No errors; no allocation.
 */
bool hwbpi_symtab_size_inferred(const struct hwbp_symtab *t, const struct hwbp_sym *s);

/* The first symbol after @s at a higher address (aliases of @s skipped),
 * or NULL (the last, or @s not a symbol of the finished @t).  No errors;
 * no allocation. */
const struct hwbp_sym *hwbpi_symtab_next(const struct hwbp_symtab *t, const struct hwbp_sym *s);

#endif /* HWBP_TRACER_KSYMS_H */
