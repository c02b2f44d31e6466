/* SPDX-License-Identifier: MIT */
/*
 * Shortening function names for the histogram's table (shorten.h).
 *
 * No allocation and no copy of the name: each candidate is a function of
 * the name, the parameter list to elide and the template depth from
 * which lists are elided, so it is rendered in one pass, first only to
 * count its columns, then for real once one fits.  The cost is a few
 * passes over the name per row, at print time, never on the hit path.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "output/shorten.h"

#define NONE SIZE_MAX

static bool is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

static bool is_ident(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c >= 0x80;
}

/*
 * Bytes at @s + @i that are part of a name although they hold brackets:
 * an operator's name ("operator<<", "operator()", "operator->"), or an
 * arrow ("fn() -> T" in Rust).  0 for anything else.
 */
static size_t opaque_len(const char *s, size_t i)
{
	static const char opchars[] = "<>=-!+*/%^&|~,[]";
	size_t j;

	if (s[i] == '-' && s[i + 1] == '>')
		return 2;
	if (strncmp(s + i, "operator", 8) != 0 || (i > 0 && is_ident((unsigned char)s[i - 1])) ||
	    is_ident((unsigned char)s[i + 8]))
		return 0;
	j = i + 8;
	if (s[j] == '(' && s[j + 1] == ')')
		return j + 2 - i;
	while (s[j] && strchr(opchars, s[j]))
		j++;
	return j - i;
}

/* The index of the bracket closing the one at @open ('<' or '('),
 * counting only brackets of its kind; NONE if it is not closed. */
static size_t match_close(const char *s, size_t open)
{
	char o = s[open], c = o == '<' ? '>' : ')';
	size_t depth = 0, i = open, n;

	while (s[i]) {
		n = opaque_len(s, i);
		if (n) {
			i += n;
			continue;
		}
		if (s[i] == o)
			depth++;
		else if (s[i] == c && --depth == 0)
			return i;
		i++;
	}
	return NONE;
}

/*
 * The contents of the outermost parameter list, [*b, *e), or false.
 * The last top-level group is the function's own: "f(int)::{lambda()#1}
 * ::operator()() const" is a lambda's operator(), whose list is the last.
 */
static bool param_list(const char *s, size_t *b, size_t *e)
{
	size_t i = 0, n, close, angle = 0, brace = 0;
	bool found = false;

	while (s[i]) {
		n = opaque_len(s, i);
		if (n) {
			i += n;
			continue;
		}
		if (s[i] == '<') {
			angle++;
		} else if (s[i] == '>' && angle) {
			angle--;
		} else if (s[i] == '{') {
			brace++;
		} else if (s[i] == '}' && brace) {
			brace--;
		} else if (s[i] == '(' && !angle && !brace) {
			close = match_close(s, i);
			if (close == NONE)
				break;
			if (strncmp(s + i, "(anonymous namespace)", 21) != 0) {
				*b = i + 1;
				*e = close;
				found = true;
			}
			i = close + 1;
			continue;
		}
		i++;
	}
	return found;
}

/* The deepest template nesting of @s (0: no "<>"). */
static size_t max_depth(const char *s)
{
	size_t i = 0, n, d = 0, max = 0;

	while (s[i]) {
		n = opaque_len(s, i);
		if (n) {
			i += n;
			continue;
		}
		if (s[i] == '<' && ++d > max)
			max = d;
		else if (s[i] == '>' && d)
			d--;
		i++;
	}
	return max;
}

/* Output of one candidate: @cols counted always, bytes stored while they
 * fit @cap - 1 (none when @buf is NULL), whole characters only, and
 * nothing past @maxcols columns. */
struct sink {
	char *buf;
	size_t cap, len, cols, maxcols;
	bool nospc, cut;
};

static void put(struct sink *k, const char *p, size_t n)
{
	size_t i = 0, l;

	while (i < n && !k->cut) {
		/* one character: a byte and the continuation bytes after it */
		for (l = 1; i + l < n && is_cont((unsigned char)p[i + l]); l++)
			;
		if (k->cols == k->maxcols) {
			k->cut = true;
			break;
		}
		k->cols++;
		if (k->buf && !k->nospc) {
			if (k->len + l < k->cap) {
				memcpy(k->buf + k->len, p + i, l);
				k->len += l;
			} else {
				k->nospc = true;
			}
		}
		i += l;
	}
}

/*
 * @s with [pb, pe) as "..." (pb NONE: none) and the template lists that
 * open at depth @depth or deeper as "<...>" (@depth 0: none), each only
 * when it is longer than three bytes.
 */
static void render(const char *s, size_t pb, size_t pe, size_t depth, struct sink *k)
{
	size_t i = 0, n, d = 0, close;

	while (s[i] && !k->cut) {
		if (i == pb) {
			put(k, "...", 3);
			i = pe;
			continue;
		}
		n = opaque_len(s, i);
		if (n) {
			put(k, s + i, n);
			i += n;
			continue;
		}
		if (s[i] == '<') {
			d++;
			if (depth && d >= depth) {
				close = match_close(s, i);
				if (close != NONE && close - i - 1 > 3) {
					put(k, "<...>", 5);
					i = close + 1;
					d--;
					continue;
				}
			}
		} else if (s[i] == '>' && d) {
			d--;
		}
		/* a whole character, so that a cut never splits it */
		for (n = 1; is_cont((unsigned char)s[i + n]); n++)
			;
		put(k, s + i, n);
		i += n;
	}
}

static size_t columns(const char *s, size_t pb, size_t pe, size_t depth)
{
	struct sink k = { .maxcols = SIZE_MAX };

	render(s, pb, pe, depth, &k);
	return k.cols;
}

int hwbpi_name_shorten(const char *in, char *out, size_t outlen, size_t width)
{
	struct sink k = { .buf = out, .cap = outlen, .maxcols = SIZE_MAX };
	size_t pb = NONE, pe = NONE, depth = 0, b, e;
	bool fits;

	if (!in || !out || !outlen || width < 4)
		return -EINVAL;
	fits = columns(in, NONE, NONE, 0) <= width;
	/* 1: the parameter list, when eliding it shortens the name */
	if (!fits && param_list(in, &b, &e) && e - b > 3) {
		pb = b;
		pe = e;
		fits = columns(in, pb, pe, 0) <= width;
	}
	/* 2: template lists, the innermost level first, up to all of them
	 * (depth 1), which step 3 then cuts */
	if (!fits) {
		for (depth = max_depth(in); depth > 0; depth--) {
			fits = columns(in, pb, pe, depth) <= width;
			if (fits || depth == 1)
				break;
		}
	}
	/* 3: cut, leaving room for the "..." */
	if (!fits)
		k.maxcols = width - 3;
	render(in, pb, pe, depth, &k);
	if (!fits) {
		k.maxcols = SIZE_MAX;
		k.cut = false;
		put(&k, "...", 3);
	}
	out[k.len] = '\0';
	return k.nospc ? -ENOSPC : 0;
}
