/* SPDX-License-Identifier: MIT */
/*
 * The shape of symbol names as users write them (tracer-internal): C
 * names, mangled names, and demangled C++ and Rust names with "::",
 * templates, parameter lists and operators.  Shared by the filter parser
 * (tracer/events/filter.c), which must find where a name ends, and the symbol
 * table (tracer/symbols/symbols_names.c), which must split "LIB:NAME@VERSION"
 * the same way and compare demangled names without their parameters.
 *
 * Brackets are ( ) < > [ ] { }; "inside brackets" means between an
 * opener and its closer.  A few runs of characters hold brackets without
 * being any ("atoms"): an operator's name ("operator<", "operator()",
 * "operator->*"), the arrow "->" (Rust's "fn() -> T"), and a backslash
 * with the character after it (a glob's escape, "\[").
 * No function here allocates; all are pure.
 */
#ifndef HWBP_TRACER_NAMES_H
#define HWBP_TRACER_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define HWBPI_NAME_NONE ((size_t)-1)

/* A byte of an identifier: [A-Za-z0-9_.$] (".cold", "$x"; locale-free). */
bool hwbpi_name_ident(char c);

/*
 * hwbpi_name_atom - the length of the atom starting at @s[@i] (before
 * @n), 0 when there is none: "operator" (a whole word) followed by an
 * operator's symbol, longest first ("operator+=", "operator()",
 * "operator<=>", "operator\"\""; "operator new" and conversions such as
 * "operator int" are words, not atoms), "->", or '\\' and one byte.
 */
size_t hwbpi_name_atom(const char *s, size_t i, size_t n);

/* The closer of opener @c, or 0 when @c opens nothing. */
char hwbpi_name_closer(char c);

/*
 * hwbpi_name_lib_sep - the first ':' of @s[0, @n) outside brackets that
 * is not part of "::" (the library separator of "LIB:NAME"), or
 * HWBPI_NAME_NONE.  A run ":::" is "::" then a lone ':'.
 */
size_t hwbpi_name_lib_sep(const char *s, size_t n);

/*
 * A user's "[LIB:]NAME[@[@]QUAL]" in parts (offsets into the string):
 * LIB before the first lone ':' outside brackets, QUAL after the first
 * '@' outside brackets that follows NAME.  Lengths are HWBPI_NAME_NONE
 * for an absent part.
 */
struct hwbpi_name_parts {
	size_t lib_len;       /* LIB is [0, lib_len) */
	size_t name, name_len;
	size_t qual, qual_len;
};
void hwbpi_name_split(const char *s, struct hwbpi_name_parts *p);

/*
 * hwbpi_name_skip_return - where the function's name starts in demangled
 * name @s[0, @n): past the return type that the Itanium ABI encodes only
 * for a template function ("void app::store<long>(long)" -> 5), i.e.
 * past the last blank outside brackets before the first "operator" word,
 * when the text before the parameter list ends in '>'; else 0.
 */
size_t hwbpi_name_skip_return(const char *s, size_t n);

/*
 * hwbpi_name_params - the offset of the '(' of the outermost parameter
 * list of demangled name @s[@from, @n): the last "(...)" outside
 * brackets that "::" does not follow ("(anonymous namespace)::x" and the
 * "f(int)" of a local "f(int)::x" are no parameter lists); its qualifiers
 * (" const", " &&", " [clone .cold]") come after it.  HWBPI_NAME_NONE
 * when there is none (a variable, a vtable).
 */
size_t hwbpi_name_params(const char *s, size_t from, size_t n);

/* Both of the above in one walk: *@start = hwbpi_name_skip_return(),
 * *@params = hwbpi_name_params(@s, *@start, @n). */
void hwbpi_name_shape(const char *s, size_t n, size_t *start, size_t *params);

/*
 * hwbpi_name_literal - the identifier that every mangled name demangling
 * to @s[0, @n) spells literally, as "<length><identifier>": [*@at,
 * *@at + *@len).  That is the last component of the name (past a return
 * type, before the parameter list, without its template arguments and
 * ABI tags), which the Itanium ABI writes out as a <source-name> (only
 * prefixes and types are ever substituted) and so does Rust's legacy
 * mangling.  False when there is none to rely on: an operator or a
 * conversion, a constructor or destructor (C1, D1: the class may be an
 * abbreviation), a lambda or anonymous component, one of the standard
 * names the ABI abbreviates (std::allocator "Sa", std::string "Ss" ...),
 * or an identifier starting with a digit.
 */
bool hwbpi_name_literal(const char *s, size_t n, size_t *at, size_t *len);

/* Whether @s[0, @n) holds a glob character ('*', '?', '[') outside
 * atoms ("operator*" is a name). */
bool hwbpi_name_is_pattern(const char *s, size_t n);

#endif /* HWBP_TRACER_NAMES_H */
