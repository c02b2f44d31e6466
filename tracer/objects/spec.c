/* SPDX-License-Identifier: MIT */
/*
 * Object watches as users write them (objects/objects.h): the arming
 * function with its parameter or ":return", the field chain, and the
 * release point.  A name of a C++ overload ("app::bump(int)") is a symbol,
 * not this: the caller tries symbols first.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "objects/objects.h"

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* "NAME(" at @s (NAME: identifiers joined by "::"): the length of NAME,
 * 0 when @s does not start so. */
static size_t func_name(const char *s)
{
	size_t i = 0;

	for (;;) {
		size_t start = i;

		while (ident_char(s[i]))
			i++;
		if (i == start || isdigit((unsigned char)s[start]))
			return 0;
		if (s[i] == ':' && s[i + 1] == ':') {
			i += 2;
			continue;
		}
		return s[i] == '(' ? i : 0;
	}
}

/* "FUNC(PARAM)" or "FUNC()" at @s into @f; the length taken, 0 when it is
 * not one, -EINVAL with @msg for a malformed one. */
static int parse_fn(const char *s, struct hwbpi_objfn *f, const char **msg)
{
	size_t n = func_name(s), p;

	if (!n)
		return 0;
	if (n >= sizeof(f->func)) {
		*msg = "function name too long";
		return -EINVAL;
	}
	memset(f, 0, sizeof(*f));
	memcpy(f->func, s, n);
	f->col = (unsigned)n + 2;
	for (p = n + 1; ident_char(s[p]); p++)
		;
	if (s[p] != ')') {
		*msg = "expected a parameter's name and ')' (or '()' and ':return')";
		return -EINVAL;
	}
	if (p - n - 1 >= sizeof(f->param)) {
		*msg = "parameter name too long";
		return -EINVAL;
	}
	if (p > n + 1 && isdigit((unsigned char)s[n + 1])) {
		*msg = "a parameter is named, not numbered";
		return -EINVAL;
	}
	memcpy(f->param, s + n + 1, p - n - 1);
	return (int)(p + 1);
}

int hwbpi_objspec_parse(const char *s, struct hwbpi_objspec *o, unsigned *col, const char **msg)
{
	int n;
	const char *rest;

	memset(o, 0, sizeof(*o));
	n = parse_fn(s, &o->arm, msg);
	if (n <= 0) {
		*col = n < 0 ? o->arm.col : 1;
		return n;
	}
	rest = s + n;
	if (!o->arm.param[0]) {
		if (strncmp(rest, ":return", 7) != 0) {
			*col = (unsigned)n + 1;
			*msg = "a function without a parameter is followed by ':return' (its return value)";
			return -EINVAL;
		}
		o->arm.ret = true;
		o->arm.col = (unsigned)n + 2;
		rest += 7;
		while (*rest == ' ')
			rest++;
	}
	if (*rest && strncmp(rest, "->", 2) != 0 && *rest != '.' && *rest != '[') {
		/* "f(x)y": not this form (a C++ name with a suffix, say) */
		if (!o->arm.ret)
			return 0;
		*col = (unsigned)(rest - s) + 1;
		*msg = "expected '->', '.' or '[' after the object";
		return -EINVAL;
	}
	if (strlen(rest) >= sizeof(o->chain)) {
		*col = (unsigned)(rest - s) + 1;
		*msg = "field chain too long";
		return -EINVAL;
	}
	snprintf(o->chain, sizeof(o->chain), "%s", rest);
	return 1;
}

int hwbpi_objspec_release(const char *s, struct hwbpi_objspec *o, const char **msg)
{
	int n;

	memset(&o->rel, 0, sizeof(o->rel));
	o->scope = false;
	if (strcmp(s, "scope") == 0) {
		o->scope = true;
		return 0;
	}
	n = parse_fn(s, &o->rel, msg);
	if (n == 0)
		*msg = "expected FUNC(PARAM) (the object is PARAM as FUNC is called) or 'scope'";
	else if (n > 0 && (!o->rel.param[0] || s[n]))
		*msg = !o->rel.param[0] ? "the release function names the parameter that is the object"
					: "nothing may follow FUNC(PARAM)";
	else if (n > 0)
		return 0;
	return -EINVAL;
}
