/* SPDX-License-Identifier: MIT */
/*
 * Filter entries: the old ftrace ksym_trace_filter syntax, extended.
 *
 *   entry  := blank* target [':' type] blank*        (the ':' type is required)
 *   target := '*'                                     (all; type must be ---)
 *           | '0x' HEX ['/' NUM]                      (absolute address)
 *           | SYM ['+' NUM] ['/' NUM]                 (symbol, offset, length)
 *   SYM    := [LIB ':'] NAME ['@' ['@'] QUAL]  (at most HWBP_TRACE_SYM_LEN - 1)
 *   NAME   := [A-Za-z_.$][A-Za-z0-9_.$]*
 *   LIB    := any bytes but ':', blanks, NUL       (a file: libc.so.6, a path)
 *   QUAL   := [A-Za-z0-9_.$-]+                     (a version, GLIBC_2.2.5, or a
 *                                                   shared object: holds ".so")
 *   NUM    := decimal digits | '0x' hex digits        (at most 2^64 - 1)
 *   type   := ('r'|'-') ('w'|'-') ('x'|'-')
 *   blank  := ' ' | '\t' | '\r' | '\n'
 *
 * LIB is there only when the entry has a second ':' (the last ':' before
 * the type letters always separates the type) and no blank before it.
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

/* The parser's cursor: the input, the position, and the error so far. */
struct cur {
	const char *s;
	size_t i;
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
	c->i++;
	return 0;
}

/* Does the entry at @p start with "LIB:"?  Only when a NAME follows the
 * first ':' and a second ':' (the type's) follows, with no blank before
 * it: "pid_max::rw-" and "pid_max:rw- a:b" keep their own errors. */
static bool lib_prefix(const char *p)
{
	const char *colon = strchr(p, ':'), *type = colon ? strchr(colon + 1, ':') : NULL;

	if (!type || colon == p || !is_sym_first(colon[1]))
		return false;
	for (; p < type; p++)
		if (is_blank(*p))
			return false;
	return true;
}

static bool is_qual_char(char ch)
{
	return is_sym_char(ch) || ch == '-';
}

/* One byte of the name into @sym at *n. */
static int put_sym(struct cur *c, char *sym, size_t *n)
{
	if (*n == HWBP_TRACE_SYM_LEN - 1)
		return fail(c, c->i, "symbol name too long", -EINVAL);
	sym[(*n)++] = c->s[c->i++];
	return 0;
}

/*
 * SYM: [LIB ':'] NAME ['@' ['@'] QUAL], copied whole into @sym, which
 * hwbp_symtab_find() resolves (a version or a file to choose among
 * same-named symbols: include/hwbp/trace.h).
 */
static int parse_sym(struct cur *c, char *sym)
{
	const char *s = c->s;
	size_t n = 0;
	int ret;

	if (lib_prefix(s + c->i)) {
		while (s[c->i] != ':')
			if ((ret = put_sym(c, sym, &n)))
				return ret;
		if ((ret = put_sym(c, sym, &n)))
			return ret;   /* the ':' */
	}
	while (is_sym_char(s[c->i]))
		if ((ret = put_sym(c, sym, &n)))
			return ret;
	if (s[c->i] == '@') {
		if ((ret = put_sym(c, sym, &n)))
			return ret;
		if (s[c->i] == '@' && (ret = put_sym(c, sym, &n)))
			return ret;
		if (!is_qual_char(s[c->i]))
			return fail(c, c->i, "expected a version or a library after '@'", -EINVAL);
		while (is_qual_char(s[c->i]))
			if ((ret = put_sym(c, sym, &n)))
				return ret;
	}
	sym[n] = '\0';
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

	if (s[c->i] == '*') {
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
	} else if (is_sym_first(s[c->i]) || lib_prefix(s + c->i)) {
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
	if (e->sym[0] == '*' && e->type != 0) {
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
	struct cur c = { s, 0, 0, NULL };
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
