/* SPDX-License-Identifier: MIT */
/*
 * Shortened function names for the histogram's table (tracer-internal),
 * so that a long C++ name does not make every row of the table wrap.
 * Only the table uses it: text lines and CTF keep full names.
 */
#ifndef HWBP_TRACER_SHORTEN_H
#define HWBP_TRACER_SHORTEN_H

#include <stddef.h>

/*
 * hwbpi_name_shorten - @in as the table shows it in at most @width
 * columns (a column is one UTF-8 character: a byte that is not a
 * continuation byte, with the continuation bytes after it), into @out
 * (@outlen bytes).  A name of @width columns or fewer is copied as it
 * is.  A longer one is shortened by the first of these steps after which
 * it fits, each applied on top of the ones before:
 *
 *   1. the outermost parameter list of a demangled C++ name (the last
 *      "(...)" outside any "<>", "()" or "{}", "(anonymous namespace)"
 *      excepted) becomes "(...)":
 *      "ns::f(std::vector<int, std::allocator<int> > const&)" -> "ns::f(...)";
 *   2. template argument lists become "<...>", one nesting level at a
 *      time, the innermost first: "a::b<std::map<K, V> >::c" ->
 *      "a::b<std::map<...> >::c" -> "a::b<...>::c";
 *   3. the name is cut after @width - 3 columns and "..." (ASCII, so that
 *      a cut name is as many bytes as columns) is appended.
 *
 * A list is only elided when its contents are longer than the "..." that
 * replaces them.  The cut never splits a UTF-8 sequence.  "operator<",
 * "operator()" and the like, and "->", are names, not brackets.
 * Returns 0; -EINVAL (NULL @in or @out, @outlen 0, @width < 4);
 * -ENOSPC: @out was too small and holds the result cut to fit, at a
 * character boundary, NUL-terminated.
 */
int hwbpi_name_shorten(const char *in, char *out, size_t outlen, size_t width);

#endif /* HWBP_TRACER_SHORTEN_H */
