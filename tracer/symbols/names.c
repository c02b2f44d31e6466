/* SPDX-License-Identifier: MIT */
/*
 * The shape of symbol names (names.h): where brackets, operators, the
 * library separator and a function's parameter list are.
 *
 * Demangled names are what libiberty's cplus_demangle_v3() and
 * rust_demangle() print (tracer/symbols/demangle.c), so the cases that matter
 * are theirs: "ns::f(int) const", "void ns::g<long>(long)",
 * "ns::C::operator()(int)", "bool ns::operator< <ns::X>(ns::X const&)"
 * (a template operator< is printed with a blank before its arguments),
 * "(anonymous namespace)::x", "f()::{lambda()#1}::operator()() const",
 * "s[abi:cxx11]()", "<T as core::fmt::Debug>::fmt".
 */
#include <string.h>

#include "symbols/names.h"

bool hwbpi_name_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '$';
}

/* The operators' symbols as the Itanium demangler spells them after
 * "operator" (libiberty's cplus-dem operator table), longest first so
 * that the first prefix found is the longest match. */
static const char *const op_sym[] = {
	"->*", "<=>", "<<=", ">>=",
	"()", "[]", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--",
	"+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "\"\"",
	"+", "-", "*", "/", "%", "^", "&", "|", "~", "!", "=", "<", ">", ",",
};

/* Bytes that may begin an atom or are brackets: every other byte is one
 * step of a walk, and the index of demangled names walks megabytes of
 * them (tracer/symbols/symbols_names.c), so they are told apart by one load. */
static const unsigned char special[256] = {
	['('] = 1, [')'] = 1, ['<'] = 1, ['>'] = 1, ['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1,
	['\\'] = 1, ['-'] = 1, ['o'] = 1,
};

static inline size_t atom(const char *s, size_t i, size_t n)
{
	if (i >= n)
		return 0;
	if (s[i] == '\\')
		return i + 1 < n && s[i + 1] ? 2 : 1;
	if (s[i] == '-' && i + 1 < n && s[i + 1] == '>')
		return 2;
	/* 'o' is frequent ("std::", "node"): two bytes rule most of them out. */
	if (s[i] != 'o' || n - i < 9 || s[i + 1] != 'p' || strncmp(s + i, "operator", 8) != 0 ||
	    (i > 0 && hwbpi_name_ident(s[i - 1])) || hwbpi_name_ident(s[i + 8]))
		return 0;
	for (size_t k = 0; k < sizeof(op_sym) / sizeof(op_sym[0]); k++) {
		size_t l = strlen(op_sym[k]);

		if (l <= n - i - 8 && strncmp(s + i + 8, op_sym[k], l) == 0)
			return 8 + l;
	}
	return 0;
}

size_t hwbpi_name_atom(const char *s, size_t i, size_t n)
{
	return atom(s, i, n);
}

static inline char closer(char c)
{
	switch (c) {
	case '(': return ')';
	case '<': return '>';
	case '[': return ']';
	case '{': return '}';
	default: return 0;
	}
}

char hwbpi_name_closer(char c)
{
	return closer(c);
}

static inline bool is_closer(char c)
{
	return c == ')' || c == '>' || c == ']' || c == '}';
}

/*
 * The walks below count one depth for all bracket kinds, and a closer
 * never takes it below 0: the names they see are either demangler output
 * (balanced) or checked by the filter parser, so a stray closer is only
 * possible in a name passed to hwbp_symtab_find() directly, where
 * tolerating it costs nothing but a failed lookup.
 */
static inline void nest(char c, size_t *depth)
{
	if (closer(c))
		++*depth;
	else if (is_closer(c) && *depth)
		--*depth;
}

/* An escaped bracket ("\[abi:cxx11\]" in a pattern) is still one of
 * the name's brackets: only fnmatch() reads the escape. */
static inline size_t step(const char *s, size_t i, size_t n, size_t *depth)
{
	size_t a;

	if (!special[(unsigned char)s[i]])
		return 1;
	if ((a = atom(s, i, n))) {
		if (a == 2 && s[i] == '\\')
			nest(s[i + 1], depth);
		return a;
	}
	nest(s[i], depth);
	return 1;
}

size_t hwbpi_name_lib_sep(const char *s, size_t n)
{
	size_t depth = 0;

	for (size_t i = 0; i < n && s[i];) {
		if (!depth && s[i] == ':') {
			if (i + 1 < n && s[i + 1] == ':') {
				i += 2;
				continue;
			}
			return i;
		}
		i += step(s, i, n, &depth);
	}
	return HWBPI_NAME_NONE;
}

void hwbpi_name_split(const char *s, struct hwbpi_name_parts *p)
{
	size_t n = strlen(s), lib = hwbpi_name_lib_sep(s, n), depth = 0, i;

	p->lib_len = lib;
	p->name = lib == HWBPI_NAME_NONE ? 0 : lib + 1;
	p->qual = p->qual_len = HWBPI_NAME_NONE;
	for (i = p->name; i < n;) {
		if (!depth && s[i] == '@')
			break;
		i += step(s, i, n, &depth);
	}
	p->name_len = i - p->name;
	if (i < n) {
		/* "@@VERSION" names the default version: the same one here. */
		i += s[i + 1] == '@' ? 2 : 1;
		p->qual = i;
		p->qual_len = n - i;
	}
}

size_t hwbpi_name_params(const char *s, size_t from, size_t n)
{
	size_t depth = 0, found = HWBPI_NAME_NONE;

	for (size_t i = from; i < n;) {
		if (!depth && s[i] == '(') {
			size_t open = i, j = i, d = 0;

			/* Its closer: the first point where the depth is back. */
			do
				j += step(s, j, n, &d);
			while (j < n && d);
			if (d)
				return found;  /* not closed: no list after it either */
			if (!(j + 1 < n && s[j] == ':' && s[j + 1] == ':'))
				found = open;
			i = j;
			continue;
		}
		i += step(s, i, n, &depth);
	}
	return found;
}

/* hwbpi_name_skip_return() of @s, whose parameter list is at @p. */
static size_t skip_return(const char *s, size_t n, size_t p)
{
	size_t depth = 0, blank = HWBPI_NAME_NONE;

	if (p == HWBPI_NAME_NONE || p == 0 || s[p - 1] != '>')
		return 0;
	for (size_t i = 0; i < p;) {
		size_t a = atom(s, i, n);

		/* After "operator" everything is the operator's name
		 * ("operator< <X>", "operator new", "operator int"). */
		if (a > 2 || (!depth && p - i > 8 && strncmp(s + i, "operator", 8) == 0 &&
			      (i == 0 || !hwbpi_name_ident(s[i - 1])) &&
			      !hwbpi_name_ident(s[i + 8])))
			break;
		if (!depth && s[i] == ' ')
			blank = i;
		i += step(s, i, n, &depth);
	}
	return blank == HWBPI_NAME_NONE ? 0 : blank + 1;
}

size_t hwbpi_name_skip_return(const char *s, size_t n)
{
	return skip_return(s, n, hwbpi_name_params(s, 0, n));
}

void hwbpi_name_shape(const char *s, size_t n, size_t *start, size_t *params)
{
	/* The return type ends at a blank outside brackets, so the walk
	 * from 0 finds the same list as one from *start would. */
	*params = hwbpi_name_params(s, 0, n);
	*start = skip_return(s, n, *params);
}

bool hwbpi_name_is_pattern(const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i];) {
		size_t a = hwbpi_name_atom(s, i, n);

		if (a) {
			i += a;
			continue;
		}
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return true;
		i++;
	}
	return false;
}

/* [b, e) less its trailing template argument lists and ABI tags
 * ("slot<3>", "name[abi:cxx11]"): the new e, or HWBPI_NAME_NONE when a
 * bracket there does not match. */
static size_t strip_args(const char *s, size_t b, size_t e)
{
	while (e > b && (s[e - 1] == '>' || s[e - 1] == ']')) {
		char close = s[e - 1], open = close == '>' ? '<' : '[';
		size_t d = 0, k = e;

		/* Backwards, the same kind only: what is inside is a type or
		 * an ABI tag, not an operator (those were refused before). */
		while (k > b) {
			k--;
			if (s[k] == close)
				d++;
			else if (s[k] == open && --d == 0)
				break;
		}
		if (d)
			return HWBPI_NAME_NONE;
		e = k;
	}
	return e;
}

/* The names the Itanium ABI abbreviates (St-less substitutions Sa, Sb,
 * Ss, Si, So, Sd: "Compression", the ABI's section 5.1.8). */
static bool abbreviated(const char *s, size_t len)
{
	static const char *const names[] = {
		"allocator", "basic_string", "string", "basic_istream", "istream",
		"basic_ostream", "ostream", "basic_iostream", "iostream",
	};

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (strlen(names[k]) == len && !memcmp(names[k], s, len))
			return true;
	return false;
}

bool hwbpi_name_literal(const char *s, size_t n, size_t *at, size_t *len)
{
	size_t start, params, end, comp, prev = HWBPI_NAME_NONE, depth = 0, e, pe;

	hwbpi_name_shape(s, n, &start, &params);
	end = params == HWBPI_NAME_NONE ? n : params;
	comp = start;
	for (size_t i = start; i < end;) {
		if (!depth && s[i] == ':' && i + 1 < end && s[i + 1] == ':') {
			prev = comp;
			comp = i + 2;
			i += 2;
			continue;
		}
		i += step(s, i, end, &depth);
	}
	if (depth || comp >= end)
		return false;
	e = strip_args(s, comp, end);
	if (e == HWBPI_NAME_NONE || e <= comp || (s[comp] >= '0' && s[comp] <= '9'))
		return false;
	for (size_t i = comp; i < e; i++)
		if (!hwbpi_name_ident(s[i]))
			return false;   /* "~Foo", "{lambda()#1}", "(anonymous namespace)" */
	if ((e - comp == 8 && !memcmp(s + comp, "operator", 8)) || abbreviated(s + comp, e - comp))
		return false;
	/* A constructor: the class's own name again. */
	if (prev != HWBPI_NAME_NONE && (pe = strip_args(s, prev, comp - 2)) != HWBPI_NAME_NONE &&
	    pe - prev == e - comp && !memcmp(s + prev, s + comp, e - comp))
		return false;
	*at = comp;
	*len = e - comp;
	return true;
}
