/* SPDX-License-Identifier: MIT */
/*
 * The expressions of watch entries (types/types.h): "[(CAST)] BASE
 * STEP...", parsed without allocating.  The filter parser
 * (events/filter.c) has already cut the entry's name from its +OFF, /LEN
 * and type; this reads the name.
 */
#include <errno.h>
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

/* "(TYPE *...)" at @p ('(' there); the end. */
static const char *cast_at(const char *s, const char *p, struct hwbpi_expr *e, unsigned *col,
			   const char **msg)
{
	static const char *const tags[] = { "struct ", "union ", "enum ", "class " };
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
	if (!(p = name_at(p, e->cast + k, sizeof(e->cast) - k))) {
		bad(s, p ? p : s + e->cast_col, "expected a type name after '('", col, msg);
		return NULL;
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
