/* SPDX-License-Identifier: MIT */
/*
 * Filter entries: the old ftrace ksym_trace_filter syntax, extended to the
 * names C++ and Rust programs have.
 *
 *   entry  := blank* target ':' type blank*
 *   target := '*'                                     (all; type must be ---)
 *           | '0x' HEX ['/' NUM]                      (absolute address)
 *           | SYM ['+' NUM] ['/' NUM]                 (symbol, offset, length)
 *   SYM    := [LIB ':'] NAME ['@' ['@'] QUAL]  (at most HWBP_TRACE_SYM_LEN - 1)
 *   LIB    := any bytes but ':', blanks, NUL       (a file: libc.so.6, a path)
 *   QUAL   := [A-Za-z0-9_.$-]+                     (a version, GLIBC_2.2.5, or a
 *                                                   shared object: holds ".so")
 *   NUM    := decimal digits | '0x' hex digits        (at most 2^64 - 1)
 *   type   := ('r'|'-') ('w'|'-') ('x'|'-')
 *   blank  := ' ' | '\t' | '\r' | '\n'
 *
 * NAME is a C name, a mangled name, a demangled C++ or Rust name or a
 * glob pattern (tracer/symbols/names.h has the atoms and brackets):
 *   - it starts with [A-Za-z_.$~<({[*?];
 *   - outside brackets it holds identifier bytes [A-Za-z0-9_.$], "::",
 *     '~', '&', '*', '?', atoms ("operator+=", "operator()", "->", "\x")
 *     and brackets ( ) < > [ ] { }, which must nest and close;
 *   - inside brackets any printable ASCII byte (", ", ' ', ':', '#'...);
 *   - a blank (' ') outside brackets only before the type's ':' and when
 *     a word, a bracket or one of ~ & * ? follows it ("foo() const",
 *     "vtable for app::Foo", "void app::store<long>(long)");
 *   - it does not end in "::", and no identifier byte follows an
 *     operator's symbol.
 * So '+' and '/' outside brackets and atoms end NAME: "+OFF" is '+', a
 * number, then '/' or the type's ':', and "/LEN" likewise; after
 * "operator+", "operator/" and the like the operator's symbol is taken
 * whole first, longest first ("operator+=+8" is operator+= at offset 8,
 * "operator//4" operator/ with /4, "operator+++8" operator++ at 8),
 * except that a '+' directly followed by a digit is the offset's
 * ("operator++8" is operator+ at 8: no name has a digit there).  '@'
 * outside brackets ends NAME too.
 *
 * The type's ':' is the last ':' of the entry, when three type letters
 * and blanks follow it.  When they do not (a bad type), it is the last
 * ':' outside brackets, not part of "::", followed by a byte other than
 * a blank, NUL or ':' (so that the error points into the type), else
 * there is none and NAME ends at the first ':' that is not "::".  "::"
 * is always part of NAME.  LIB is there when a ':' outside brackets that
 * is not part of "::" comes before the type's ':'; the first such ':'
 * ends LIB ("libc.so.6:optind", "libapp.so:app::hits"; "s[abi:cxx11]"
 * holds its ':' inside brackets).
 *
 * The grammar is hand-written (no sscanf/strtoull) because every error has
 * to name the exact column of the first character that cannot belong to a
 * valid entry, and strtoull would silently accept signs, blanks and octal.
 * A decimal number with leading zeros stays decimal ("010" is ten): the
 * ftrace syntax never had octal, and a user typing /010 means ten.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <hwbp/trace.h>

#include "symbols/symbols.h"

#define NONE HWBPI_NAME_NONE

/* The parser's cursor: the input, the position, the type's ':' (NONE:
 * none) and the error so far. */
struct cur {
	const char *s;
	size_t i;
	size_t tsep;
	unsigned col;
	const char *msg;
};

static int fail(struct cur *c, size_t at, const char *msg, int err)
{
	/* Columns are 1-based bytes: what an editor's "go to column" expects
	 * for the ASCII this syntax is made of. */
	c->col = (unsigned)(at + 1);
	c->msg = msg;
	return err;
}

static int is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

/* Locale-free classes: isalpha() would accept letters of the C library's
 * current locale, which are not valid in kernel symbol names. */
static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static int is_sym_first(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
	       ch == '.' || ch == '$';
}

static int is_sym_char(char ch)
{
	return is_sym_first(ch) || is_digit(ch);
}

static int hex_value(char ch)
{
	if (is_digit(ch))
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/*
 * One number at the cursor: "0x" + hex digits, or decimal digits.  The
 * overflow check is done per digit so that -ERANGE points at the digit that
 * no longer fits (leading zeros never overflow).
 */
static int parse_num(struct cur *c, uint64_t *v)
{
	const char *s = c->s;
	uint64_t x = 0;

	if (s[c->i] == '0' && (s[c->i + 1] == 'x' || s[c->i + 1] == 'X')) {
		c->i += 2;
		if (hex_value(s[c->i]) < 0)
			return fail(c, c->i, "expected a hex digit after 0x", -EINVAL);
		for (; hex_value(s[c->i]) >= 0; c->i++) {
			if (x > (UINT64_MAX >> 4))
				return fail(c, c->i, "number too large (more than 64 bits)",
					    -ERANGE);
			x = (x << 4) | (uint64_t)hex_value(s[c->i]);
		}
	} else {
		if (!is_digit(s[c->i]))
			return fail(c, c->i, "expected a number", -EINVAL);
		for (; is_digit(s[c->i]); c->i++) {
			unsigned d = (unsigned)(s[c->i] - '0');

			if (x > (UINT64_MAX - d) / 10)
				return fail(c, c->i, "number too large (more than 64 bits)",
					    -ERANGE);
			x = x * 10 + d;
		}
	}
	*v = x;
	return 0;
}

/* "/LEN": a zero length is refused here rather than meaning "the symbol's
 * size", because omitting /LEN already says that and a typed 0 is a typo. */
static int parse_len(struct cur *c, uint64_t *len)
{
	size_t at;
	int ret;

	c->i++; /* '/' */
	at = c->i;
	ret = parse_num(c, len);
	if (ret)
		return ret;
	if (*len == 0)
		return fail(c, at, "length 0", -EINVAL);
	return 0;
}

/* The three type letters, each in its own position, '-' when absent. */
static int parse_type(struct cur *c, unsigned *type)
{
	static const char letter[3] = { 'r', 'w', 'x' };
	static const unsigned bit[3] = { HWBP_R, HWBP_W, HWBP_X };
	unsigned t = 0;
	int k;

	for (k = 0; k < 3; k++) {
		char ch = c->s[c->i];

		if (ch == letter[k]) {
			t |= bit[k];
		} else if (ch == 'r' || ch == 'w' || ch == 'x') {
			return fail(c, c->i, "type letters go in the order r, w, x", -EINVAL);
		} else if (ch == '\0' || is_blank(ch)) {
			return fail(c, c->i, "type needs 3 letters (r, w, x or -)", -EINVAL);
		} else if (ch != '-') {
			return fail(c, c->i, "bad type letter (expected r, w, x or -)", -EINVAL);
		}
		c->i++;
	}
	*type = t;
	return 0;
}

static int expect_colon(struct cur *c, const char *msg)
{
	if (c->s[c->i] != ':')
		return fail(c, c->i, msg, -EINVAL);
	if (c->tsep != NONE && c->i != c->tsep)
		return fail(c, c->i, "unexpected ':' (a name holds \"::\", a LIB: comes once)",
			    -EINVAL);
	c->i++;
	return 0;
}

static bool is_closing(char ch)
{
	return ch == ')' || ch == '>' || ch == ']' || ch == '}';
}

/* One bracket's change of @depth (outside brackets a closer is a stray). */
static void nest(char ch, size_t *depth)
{
	if (hwbpi_name_closer(ch))
		++*depth;
	else if (is_closing(ch) && *depth)
		--*depth;
}

static bool is_type_letter(char ch, char letter)
{
	return ch == letter || ch == '-';
}

/* The type's ':' of the entry whose target starts at @from (the
 * grammar's rule), or NONE. */
static size_t type_sep(const char *s, size_t from)
{
	size_t e = strlen(s), depth = 0, last = NONE;

	while (e > from && is_blank(s[e - 1]))
		e--;
	if (e - from >= 4 && s[e - 4] == ':' && is_type_letter(s[e - 3], 'r') &&
	    is_type_letter(s[e - 2], 'w') && is_type_letter(s[e - 1], 'x'))
		return e - 4;
	/* A bad type: where it would be, for the error's column. */
	for (size_t i = from; s[i];) {
		size_t a = hwbpi_name_atom(s, i, SIZE_MAX);

		if (a) {
			if (a == 2 && s[i] == '\\')
				nest(s[i + 1], &depth);
			i += a;
		} else if (s[i] == ':' && s[i + 1] == ':') {
			i += 2;
		} else {
			if (!depth && s[i] == ':' && s[i + 1] && !is_blank(s[i + 1]))
				last = i;
			nest(s[i], &depth);
			i++;
		}
	}
	return last;
}

/* The ':' ending "LIB:" at the cursor, or NONE: the first lone ':'
 * outside brackets before the type's. */
static size_t lib_end(const struct cur *c)
{
	size_t k;

	if (c->tsep == NONE || c->tsep <= c->i)
		return NONE;
	k = hwbpi_name_lib_sep(c->s + c->i, c->tsep - c->i);
	return k == NONE ? NONE : c->i + k;
}

static bool is_qual_char(char ch)
{
	return is_sym_char(ch) || ch == '-';
}

static bool is_name_first(char ch)
{
	return is_sym_first(ch) || ch == '~' || ch == '<' || ch == '(' || ch == '{' ||
	       ch == '[' || ch == '*' || ch == '?';
}

/* After blanks outside brackets, what makes a name go on. */
static bool name_goes_on(char ch)
{
	return hwbpi_name_ident(ch) || hwbpi_name_closer(ch) || ch == '~' || ch == '&' ||
	       ch == '*' || ch == '?';
}

static const char *not_closed(char open)
{
	switch (open) {
	case '(': return "'(' is not closed";
	case '<': return "'<' is not closed";
	case '[': return "'[' is not closed";
	default: return "'{' is not closed";
	}
}

#define MAX_NEST 32

/*
 * NAME at the cursor (the grammar above): moves the cursor past it.
 * Brackets are checked here, so that hwbp_symtab_find() and the index
 * of demangled names only ever see balanced names from an entry.
 */
static int scan_name(struct cur *c)
{
	const char *s = c->s;
	size_t lim = c->tsep == NONE ? strlen(s) : c->tsep, open_at[MAX_NEST];
	char want[MAX_NEST], opened[MAX_NEST];
	unsigned depth = 0;

	while (c->i < lim) {
		size_t i = c->i, a = hwbpi_name_atom(s, i, lim), w = 1;
		char ch = s[i];

		/* An escaped bracket nests as the bracket (tracer/symbols/names.h). */
		if (a == 2 && ch == '\\' && (hwbpi_name_closer(s[i + 1]) || is_closing(s[i + 1]))) {
			ch = s[i + 1];
			a = 0;
			w = 2;
		}
		/* "operator++8": no name goes on with a digit after an
		 * operator, so the last '+' is the offset's: operator+ at 8. */
		if (a > 9 && s[i + a - 1] == '+' && is_digit(s[i + a]) &&
		    hwbpi_name_atom(s, i, i + a - 1) == a - 1)
			a--;
		if (a) {
			c->i += a;
			if (a > 8 && hwbpi_name_ident(s[c->i]))
				return fail(c, c->i, "unexpected character after an operator",
					    -EINVAL);
		} else if (hwbpi_name_closer(ch)) {
			if (depth == MAX_NEST)
				return fail(c, i, "brackets nested too deep", -EINVAL);
			open_at[depth] = i;
			opened[depth] = ch;
			want[depth++] = hwbpi_name_closer(ch);
			c->i += w;
		} else if (depth && is_closing(ch)) {
			if (ch != want[depth - 1])
				return fail(c, i, "mismatched bracket", -EINVAL);
			depth--;
			c->i += w;
		} else if (depth && ch >= 0x20 && ch < 0x7f) {
			c->i++;
		} else if (depth) {
			break;
		} else if (hwbpi_name_ident(ch) || ch == '~' || ch == '&' || ch == '*' || ch == '?') {
			c->i++;
		} else if (ch == ':' && i + 1 < lim && s[i + 1] == ':') {
			c->i += 2;
		} else if (ch == ' ' && c->tsep != NONE) {
			size_t j = i;

			while (j < lim && s[j] == ' ')
				j++;
			if (j == lim || !name_goes_on(s[j]))
				break;
			c->i = j;
		} else {
			break;
		}
	}
	if (depth)
		return fail(c, open_at[depth - 1], not_closed(opened[depth - 1]), -EINVAL);
	if (c->i >= 2 && s[c->i - 1] == ':' && s[c->i - 2] == ':')
		return fail(c, c->i, "expected a name after '::'", -EINVAL);
	return 0;
}

/*
 * SYM: [LIB ':'] NAME ['@' ['@'] QUAL], copied whole into @sym, which
 * hwbp_symtab_find() resolves (a version or a file to choose among
 * same-named symbols, a demangled name: include/hwbp/trace.h).
 */
static int parse_sym(struct cur *c, char *sym)
{
	const char *s = c->s;
	size_t start = c->i, lib = lib_end(c), len;
	int ret;

	if (lib != NONE) {
		for (size_t k = start; k < lib; k++)
			if (is_blank(s[k]))
				return fail(c, k, "expected '+', '/' or ':'", -EINVAL);
		c->i = lib + 1;
		if (!is_name_first(s[c->i]))
			return fail(c, c->i, "expected a name after 'LIB:'", -EINVAL);
	}
	if ((ret = scan_name(c)))
		return ret;
	if (s[c->i] == '@') {
		c->i += s[c->i + 1] == '@' ? 2 : 1;
		if (!is_qual_char(s[c->i]))
			return fail(c, c->i, "expected a version or a library after '@'", -EINVAL);
		while (is_qual_char(s[c->i]))
			c->i++;
	}
	len = c->i - start;
	if (len > HWBP_TRACE_SYM_LEN - 1)
		return fail(c, start + HWBP_TRACE_SYM_LEN - 1, "symbol name too long", -EINVAL);
	memcpy(sym, s + start, len);
	sym[len] = '\0';
	return 0;
}

static int parse(struct cur *c, struct hwbp_trace_entry *e)
{
	const char *s = c->s;
	const char *msg;
	size_t type_at;
	int ret;

	while (is_blank(s[c->i]))
		c->i++;
	c->tsep = type_sep(s, c->i);

	/* A lone '*' is "all"; "*x" or "**" is a pattern (a NAME). */
	if (s[c->i] == '*' && (s[c->i + 1] == ':' || s[c->i + 1] == '+' || s[c->i + 1] == '/' ||
			       s[c->i + 1] == '\0' || is_blank(s[c->i + 1]))) {
		c->i++;
		if (s[c->i] == '+' || s[c->i] == '/')
			return fail(c, c->i, "'*' takes no offset or length", -EINVAL);
		ret = expect_colon(c, "expected ':'");
		if (ret)
			return ret;
		strcpy(e->sym, "*");
	} else if (s[c->i] == '0' && (s[c->i + 1] == 'x' || s[c->i + 1] == 'X')) {
		ret = parse_num(c, &e->addr);
		if (ret)
			return ret;
		if (s[c->i] == '+')
			return fail(c, c->i, "an address takes no +offset", -EINVAL);
		if (s[c->i] == '/') {
			size_t at = c->i + 1;

			ret = parse_len(c, &e->len);
			if (ret)
				return ret;
			/* The range must be expressible: its last byte is at
			 * most 2^64 - 1, else the planner would see a wrap. */
			if (e->len - 1 > UINT64_MAX - e->addr)
				return fail(c, at, "address range wraps past 2^64", -ERANGE);
		}
		ret = expect_colon(c, e->len ? "expected ':'" : "expected '/' or ':'");
		if (ret)
			return ret;
	} else if (is_name_first(s[c->i]) || (lib_end(c) != NONE && lib_end(c) > c->i)) {
		ret = parse_sym(c, e->sym);
		if (ret)
			return ret;
		/* The message lists what could still come at this point. */
		msg = "expected '+', '/' or ':'";
		if (s[c->i] == '+') {
			c->i++;
			ret = parse_num(c, &e->off);
			if (ret)
				return ret;
			msg = "expected '/' or ':'";
		}
		if (s[c->i] == '/') {
			size_t at = c->i + 1;

			ret = parse_len(c, &e->len);
			if (ret)
				return ret;
			/* Whatever the symbol's address, +OFF/LEN whose last
			 * byte is past 2^64 - 1 can never be watched. */
			if (e->len - 1 > UINT64_MAX - e->off)
				return fail(c, at, "offset + length wraps past 2^64", -ERANGE);
			msg = "expected ':'";
		}
		ret = expect_colon(c, msg);
		if (ret)
			return ret;
	} else if (s[c->i] == '\0') {
		return fail(c, c->i, "empty entry", -EINVAL);
	} else if (is_digit(s[c->i])) {
		return fail(c, c->i, "an address needs 0x", -EINVAL);
	} else {
		return fail(c, c->i, "expected a symbol, 0xADDR or '*'", -EINVAL);
	}

	type_at = c->i;
	ret = parse_type(c, &e->type);
	if (ret)
		return ret;
	if (strcmp(e->sym, "*") == 0 && e->type != 0) {
		/* Point at the first letter that is not '-'. */
		while (s[type_at] == '-')
			type_at++;
		return fail(c, type_at, "'*' only with ---", -EINVAL);
	}
	while (is_blank(s[c->i]))
		c->i++;
	if (s[c->i] != '\0')
		return fail(c, c->i, "unexpected character after the type", -EINVAL);
	return 0;
}

int hwbp_trace_filter_parse(const char *s, struct hwbp_trace_entry *out, unsigned *col,
			    const char **msg)
{
	struct hwbp_trace_entry e;
	struct cur c = { s, 0, NONE, 0, NULL };
	int ret;

	if (!s || !out) {
		ret = fail(&c, 0, "no entry", -EINVAL);
		c.col = 0; /* no column to point at */
	} else {
		/* Parse into a local copy so that a failure leaves *out as it was. */
		memset(&e, 0, sizeof(e));
		ret = parse(&c, &e);
		if (!ret)
			*out = e;
	}
	if (col)
		*col = ret ? c.col : 0;
	if (msg)
		*msg = ret ? c.msg : NULL;
	return ret;
}
