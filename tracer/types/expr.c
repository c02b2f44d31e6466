/* SPDX-License-Identifier: MIT */
/*
 * The expressions of watch entries (types/types.h): "[(CAST)] BASE
 * STEP...", parsed without allocating.  The filter parser
 * (events/filter.c) has already cut the entry's name from its +OFF, /LEN
 * and type; this reads the name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types/types.h"

/* A byte of a C identifier (no '.': here it is a step). */
static bool ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* An identifier, "::"-joined components allowed (C++ names, GDB's
 * "func::var"), copied to @out; the end, or NULL when none is there or it
 * does not fit. */
static const char *name_at(const char *p, char *out, size_t n)
{
	const char *s = p;
	size_t len;

	for (;;) {
		while (ident(*p))
			p++;
		if (p == s || !ident(p[-1]) || p[0] != ':' || p[1] != ':' || !ident(p[2]))
			break;
		p += 2;
	}
	len = (size_t)(p - s);
	if (!len || len >= n || (*s >= '0' && *s <= '9'))
		return NULL;
	memcpy(out, s, len);
	out[len] = '\0';
	return p;
}

static int bad(const char *s, const char *at, const char *what, unsigned *col, const char **msg)
{
	*col = (unsigned)(at - s) + 1;
	*msg = what;
	return -EINVAL;
}

/*
 * The integer type that C spells in several words ("unsigned long",
 * "long long", "short unsigned") as GCC names it in DWARF, which pahole
 * copies into BTF: "long unsigned int", "long long int", "short unsigned
 * int".  @w: the words; false when one is no C integer keyword or they do
 * not make a type.
 */
static bool int_type_name(char w[][16], unsigned n, char *out, size_t len)
{
	unsigned sgn = 0, uns = 0, shrt = 0, lng = 0, in = 0, chr = 0;
	const char *t;

	for (unsigned i = 0; i < n; i++) {
		if (strcmp(w[i], "signed") == 0)
			sgn++;
		else if (strcmp(w[i], "unsigned") == 0)
			uns++;
		else if (strcmp(w[i], "short") == 0)
			shrt++;
		else if (strcmp(w[i], "long") == 0)
			lng++;
		else if (strcmp(w[i], "int") == 0)
			in++;
		else if (strcmp(w[i], "char") == 0)
			chr++;
		else
			return false;
	}
	if (sgn + uns > 1 || in > 1 || chr > 1 || shrt > 1 || lng > 2 || (shrt && lng) ||
	    (chr && (shrt || lng || in)))
		return false;
	if (chr)
		t = uns ? "unsigned char" : sgn ? "signed char" : "char";
	else if (shrt)
		t = uns ? "short unsigned int" : "short int";
	else if (lng == 2)
		t = uns ? "long long unsigned int" : "long long int";
	else if (lng)
		t = uns ? "long unsigned int" : "long int";
	else
		t = uns ? "unsigned int" : "int";
	return (size_t)snprintf(out, len, "%s", t) < len;
}

/* More words of a type after the first ("unsigned long"): at most 4,
 * each a C integer keyword; @p after the first word, the end. */
static const char *more_words(const char *p, char *name, size_t n)
{
	char w[4][16];
	unsigned k = 0;
	const char *q = skip_blanks(p);

	if (strlen(name) >= sizeof(w[0]))
		return p;
	snprintf(w[k++], sizeof(w[0]), "%s", name);
	/* One word: a typedef or a tag's name as it is; "unsigned",
	 * "long", "short" alone are ints still. */
	if (!ident(*q)) {
		(void)int_type_name(w, k, name, n);   /* false: not a keyword, kept */
		return p;
	}
	while (ident(*q) && k < 4) {
		const char *e = q;

		while (ident(*e))
			e++;
		if ((size_t)(e - q) >= sizeof(w[0]))
			return NULL;
		memcpy(w[k], q, (size_t)(e - q));
		w[k++][e - q] = '\0';
		p = e;
		q = skip_blanks(e);
	}
	if (ident(*q) || !int_type_name(w, k, name, n))
		return NULL;
	return p;
}

/* "(TYPE *...)" at @p ('(' there); the end. */
static const char *cast_at(const char *s, const char *p, struct hwbpi_expr *e, unsigned *col,
			   const char **msg)
{
	static const char *const tags[] = { "struct ", "union ", "enum ", "class " };
	const char *t0;
	size_t k = 0;

	e->cast_col = (unsigned)(p - s) + 1;
	p = skip_blanks(p + 1);
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		size_t l = strlen(tags[i]);

		if (strncmp(p, tags[i], l) == 0) {
			/* "class" is C++'s "struct" to a type source. */
			k = (size_t)snprintf(e->cast, sizeof(e->cast), "%s",
					     i == 3 ? "struct " : tags[i]);
			p = skip_blanks(p + l);
			break;
		}
	}
	t0 = p;
	if (!(p = name_at(p, e->cast + k, sizeof(e->cast) - k))) {
		bad(s, p ? p : s + e->cast_col, "expected a type name after '('", col, msg);
		return NULL;
	}
	if (!k) {
		if (!(p = more_words(p, e->cast, sizeof(e->cast)))) {
			bad(s, t0, "expected ')' after the type name (several words are a C integer "
			    "type: \"unsigned long\")", col, msg);
			return NULL;
		}
	}
	for (p = skip_blanks(p); *p == '*'; p = skip_blanks(p + 1))
		e->cast_ptr++;
	if (*p != ')') {
		bad(s, p, "expected ')' to end the cast", col, msg);
		return NULL;
	}
	return skip_blanks(p + 1);
}

/* One step at @p ('.', "->" or '['); the end, NULL on error. */
static const char *step_at(const char *s, const char *p, struct hwbpi_expr_step *st,
			   unsigned *col, const char **msg)
{
	const char *q;
	char *end;

	st->col = (unsigned)(p - s) + 1;
	if (*p == '[') {
		st->op = '[';
		q = skip_blanks(p + 1);
		if (*q < '0' || *q > '9') {
			bad(s, q, "an index is a number", col, msg);
			return NULL;
		}
		errno = 0;
		st->index = strtoull(q, &end, 0);
		if (errno) {
			bad(s, q, "the index does not fit in 64 bits", col, msg);
			return NULL;
		}
		q = skip_blanks(end);
		if (*q != ']') {
			bad(s, q, "expected ']' after the index", col, msg);
			return NULL;
		}
		return q + 1;
	}
	st->op = *p == '.' ? '.' : '>';
	q = p + (*p == '.' ? 1 : 2);
	if (!(p = name_at(q, st->name, sizeof(st->name)))) {
		bad(s, q, st->op == '.' ? "expected a member name after '.'" :
			  "expected a member name after '->'", col, msg);
		return NULL;
	}
	return p;
}

int hwbpi_expr_parse(const char *s, struct hwbpi_expr *e, unsigned *col, const char **msg)
{
	const char *p = skip_blanks(s);
	char *end;

	memset(e, 0, sizeof(*e));
	e->text = s;
	if (*p == '(' && !(p = cast_at(s, p, e, col, msg)))
		return -EINVAL;
	e->base_col = (unsigned)(p - s) + 1;
	if (e->cast[0] && *p >= '0' && *p <= '9') {
		errno = 0;
		e->base_addr = strtoull(p, &end, 0);
		if (errno || end == p)
			return bad(s, p, "the address does not fit in 64 bits", col, msg);
		p = end;
	} else if (!(p = name_at(p, e->base, sizeof(e->base)))) {
		if (!e->cast[0])
			return 0;   /* no C name: the symbol table's to say */
		return bad(s, s + e->base_col - 1, "expected a variable or an address after the "
			   "cast", col, msg);
	}
	while (*p == '.' || *p == '[' || (p[0] == '-' && p[1] == '>')) {
		if (e->nstep == HWBPI_EXPR_MAX_STEPS)
			return bad(s, p, "more than 16 steps", col, msg);
		if (!(p = step_at(s, p, &e->step[e->nstep++], col, msg)))
			return -EINVAL;
	}
	if (*skip_blanks(p)) {
		/* Not an expression's end: a name the symbol table may
		 * still know ("f(int)", "x.cold"), unless it started as one. */
		if (!e->cast[0] && !e->nstep)
			return 0;
		return bad(s, p, "unexpected character after the expression", col, msg);
	}
	return e->cast[0] || e->nstep ? 1 : 0;
}
