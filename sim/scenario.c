/* SPDX-License-Identifier: MIT */
/*
 * The scenario language (../shared/SCENARIOS.md): parser and runner.
 *
 * A file is parsed completely before anything runs, so a syntax error
 * anywhere gives one FILE:LINE:COL message and no half-run output.  The
 * runner then executes the commands against a simulator (every CPU at
 * once for `watch`, through the generic API: plan -> slots -> encode ->
 * simulated registers) and checks each `expect` against the result of the
 * command above it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "model.h"

/* Where the runner puts the arenas (SCENARIOS.md: the runner's choice).
 * Both are 64 KiB aligned and in the user half of every preset. */
#define ARENA_B UINT64_C(0x10000000)
#define ARENA_C UINT64_C(0x10010000)
#define ARENA_SIZE UINT64_C(0x10000)

#define MAX_TOK 24
#define NAME_LEN 32

enum cmd_kind {
	C_CPU, C_SET, C_WATCH, C_UNWATCH, C_MODE, C_READ, C_WRITE, C_EXEC,
	C_IO, C_ZERO, C_RESUME, C_EXPECT,
};

enum exp_kind {
	E_NONE, E_FILTERED, E_HIT, E_CLASS, E_TIMING, E_REG, E_ADDR, E_ERROR, E_OK,
};

struct cmd {
	enum cmd_kind kind;
	unsigned line;
	/* generic operands */
	char name[NAME_LEN];          /* register, request or cpu preset */
	uint64_t a, b;                /* address/value, size/len */
	int abase;                    /* a was written B+OFF ('B'), C+OFF ('C') or as a number (0) */
	/* watch */
	unsigned type;
	enum hwbp_scope scope;
	bool widen;
	/* mode: up to 4 pairs */
	unsigned nmode;
	char mkey[4][8];
	uint64_t mval[4];
	/* expect */
	enum exp_kind ek;
	int profile;                  /* -1 any, else enum hwbp_sim_profile */
	unsigned ntok;
	char tok[16][NAME_LEN];
	uint64_t lo, hi;
	int err;
};

struct script {
	const char *file;
	struct cmd *cmds;
	size_t n, cap;
	struct hwbp_cpu cpu;
	bool have_cpu;
};

/* ------------------------------------------------------------ parsing */

struct lexer {
	const char *file;
	unsigned line;
	const char *start;            /* the line's first character */
	char *errbuf;
	size_t errlen;
	int base;                     /* how parse_addr() read its last value: 0 number, 'B', 'C' */
};

static int perr(struct lexer *lx, const char *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(lx->errbuf, lx->errlen, "%s:%u:%u: ", lx->file, lx->line,
		     (unsigned)(at - lx->start) + 1);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < lx->errlen)
		vsnprintf(lx->errbuf + n, lx->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

struct tokens {
	unsigned n;
	const char *p[MAX_TOK];       /* start of each token in the line */
	unsigned len[MAX_TOK];
};

static int tokenize(struct lexer *lx, const char *s, size_t len, struct tokens *t)
{
	size_t i = 0;

	t->n = 0;
	while (i < len) {
		if (s[i] == '#')
			break;
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			i++;
			continue;
		}
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return perr(lx, s + i, "unexpected character 0x%02x", (unsigned char)s[i]);
		if (t->n == MAX_TOK)
			return perr(lx, s + i, "too many words on one line (at most %d)", MAX_TOK);
		t->p[t->n] = s + i;
		while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '#') {
			if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
				return perr(lx, s + i, "unexpected character 0x%02x", (unsigned char)s[i]);
			i++;
		}
		t->len[t->n] = (unsigned)(s + i - t->p[t->n]);
		t->n++;
	}
	return 0;
}

static bool tok_is(const struct tokens *t, unsigned i, const char *w)
{
	return i < t->n && strlen(w) == t->len[i] && memcmp(t->p[i], w, t->len[i]) == 0;
}

static int tok_copy(struct lexer *lx, const struct tokens *t, unsigned i, char *out, size_t n)
{
	if (t->len[i] >= n)
		return perr(lx, t->p[i], "word too long (at most %zu characters)", n - 1);
	memcpy(out, t->p[i], t->len[i]);
	out[t->len[i]] = '\0';
	return 0;
}

/* A number: decimal or 0x hex, whole token, no overflow. */
static int parse_num(const char *s, unsigned len, uint64_t *out)
{
	uint64_t v = 0;
	unsigned i = 0, base = 10;

	if (len == 0)
		return -EINVAL;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	for (; i < len; i++) {
		unsigned d;
		char ch = s[i];

		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (base == 16 && ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else if (base == 16 && ch >= 'A' && ch <= 'F')
			d = (unsigned)(ch - 'A' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* An address or value: NUMBER, B+OFF or C+OFF (also bare B or C). */
static int parse_addr(struct lexer *lx, const char *s, unsigned len, uint64_t *out,
		      const char *what)
{
	uint64_t base = 0, off = 0;
	int ret;

	lx->base = 0;
	if (len >= 1 && (s[0] == 'B' || s[0] == 'C') && (len == 1 || s[1] == '+')) {
		lx->base = s[0];
		base = s[0] == 'B' ? ARENA_B : ARENA_C;
		if (len == 1) {
			*out = base;
			return 0;
		}
		ret = parse_num(s + 2, len - 2, &off);
		if (ret)
			return perr(lx, s + 2, "bad offset in %s: expected a number after '%c+'", what, s[0]);
		if (off >= ARENA_SIZE)
			return perr(lx, s + 2, "offset 0x%" PRIx64 " is outside the 64 KiB arena", off);
		*out = base + off;
		return 0;
	}
	ret = parse_num(s, len, out);
	if (ret == -ERANGE)
		return perr(lx, s, "%s does not fit in 64 bits", what);
	if (ret)
		return perr(lx, s, "bad %s '%.*s': expected a number, B+OFF or C+OFF", what, (int)len, s);
	return 0;
}

static bool is_slot_name(const char *s)
{
	static const char *const fixed[] = { "dawr0", "dawr1", "dabr", "ciabr" };
	size_t n = strlen(s);

	for (unsigned i = 0; i < 4; i++)
		if (strcmp(s, fixed[i]) == 0)
			return true;
	if (n == 3 && s[0] == 'd' && s[1] == 'r' && s[2] >= '0' && s[2] <= '3')
		return true;
	if ((n == 3 || n == 4) && ((s[0] == 'w' && s[1] == 'p') || (s[0] == 'b' && s[1] == 'p'))) {
		for (size_t i = 2; i < n; i++)
			if (s[i] < '0' || s[i] > '9')
				return false;
		return atoi(s + 2) < 16;
	}
	return false;
}

static const char *const class_names[] = {
	"none", "db", "ud", "gp", "watchpoint", "breakpoint", "dsi", "trace",
};

static int errno_of(const char *s)
{
	static const struct { const char *n; int e; } tab[] = {
		{ "EINVAL", EINVAL }, { "ENOSPC", ENOSPC }, { "EOPNOTSUPP", EOPNOTSUPP },
		{ "ERANGE", ERANGE }, { "EFAULT", EFAULT }, { "EBUSY", EBUSY }, { "ENOENT", ENOENT },
	};

	for (unsigned i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strcmp(s, tab[i].n) == 0)
			return -tab[i].e;
	return 0;
}

static struct cmd *push(struct lexer *lx, struct script *sc, const char *at)
{
	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 64;
		struct cmd *p = realloc(sc->cmds, cap * sizeof(*p));

		if (!p) {
			perr(lx, at, "out of memory");
			return NULL;
		}
		sc->cmds = p;
		sc->cap = cap;
	}
	memset(&sc->cmds[sc->n], 0, sizeof(sc->cmds[0]));
	sc->cmds[sc->n].line = lx->line;
	return &sc->cmds[sc->n++];
}

static int parse_expect(struct lexer *lx, struct script *sc, const struct tokens *t, struct cmd *c)
{
	const char *w = t->p[0];
	char word[NAME_LEN];
	int ret;

	c->kind = C_EXPECT;
	c->profile = -1;
	if (t->len[0] > 6) {
		/* expect[sdm] / expect[qemu] */
		if (tok_is(t, 0, "expect[sdm]"))
			c->profile = HWBP_SIM_SDM;
		else if (tok_is(t, 0, "expect[qemu]"))
			c->profile = HWBP_SIM_QEMU;
		else
			return perr(lx, w, "unknown profile in '%.*s': expected expect[sdm] or expect[qemu]",
				    (int)t->len[0], w);
	}
	if (sc->n < 2)
		return perr(lx, w, "expect needs a command above it");
	if (t->n < 2)
		return perr(lx, w + t->len[0], "expect needs a check (none, filtered, hit, class, timing, REG=VALUE, addr, error, ok)");
	ret = tok_copy(lx, t, 1, word, sizeof(word));
	if (ret)
		return ret;
	if (strcmp(word, "none") == 0 || strcmp(word, "filtered") == 0 || strcmp(word, "ok") == 0) {
		c->ek = word[0] == 'n' ? E_NONE : word[0] == 'f' ? E_FILTERED : E_OK;
		if (t->n != 2)
			return perr(lx, t->p[2], "'expect %s' takes nothing more", word);
	} else if (strcmp(word, "hit") == 0) {
		unsigned slots = 0;

		c->ek = E_HIT;
		if (t->n < 3)
			return perr(lx, w + t->len[0], "'expect hit' needs slot or request names");
		if (t->n - 2 > 16)
			return perr(lx, t->p[18], "at most 16 names");
		for (unsigned i = 2; i < t->n; i++) {
			ret = tok_copy(lx, t, i, c->tok[c->ntok], NAME_LEN);
			if (ret)
				return ret;
			slots += is_slot_name(c->tok[c->ntok]);
			c->ntok++;
		}
		if (slots && slots != c->ntok)
			return perr(lx, t->p[2], "'expect hit' names either slots or requests, not both");
	} else if (strcmp(word, "class") == 0) {
		c->ek = E_CLASS;
		if (t->n != 3)
			return perr(lx, w, "'expect class' takes one class name");
		ret = tok_copy(lx, t, 2, c->tok[0], NAME_LEN);
		if (ret)
			return ret;
		c->err = -1;
		for (int i = 0; i < 8; i++)
			if (strcmp(c->tok[0], class_names[i]) == 0)
				c->err = i;
		if (c->err < 0)
			return perr(lx, t->p[2], "unknown class '%s' (db, ud, gp, watchpoint, breakpoint, dsi, trace)", c->tok[0]);
	} else if (strcmp(word, "timing") == 0) {
		c->ek = E_TIMING;
		if (tok_is(t, 2, "before"))
			c->lo = HWBP_TIMING_BEFORE;
		else if (tok_is(t, 2, "after"))
			c->lo = HWBP_TIMING_AFTER;
		else
			return perr(lx, t->n > 2 ? t->p[2] : w, "'expect timing' takes before or after");
		if (t->n != 3)
			return perr(lx, t->p[3], "'expect timing' takes one word");
	} else if (strcmp(word, "addr") == 0) {
		const char *dots;
		unsigned l;

		c->ek = E_ADDR;
		if (t->n != 3)
			return perr(lx, w, "'expect addr' takes LO or LO..HI");
		l = t->len[2];
		dots = memchr(t->p[2], '.', l);
		if (dots) {
			if (dots + 1 >= t->p[2] + l || dots[1] != '.')
				return perr(lx, dots, "expected LO..HI");
			ret = parse_addr(lx, t->p[2], (unsigned)(dots - t->p[2]), &c->lo, "address");
			if (ret)
				return ret;
			ret = parse_addr(lx, dots + 2, (unsigned)(t->p[2] + l - dots - 2), &c->hi, "address");
			if (ret)
				return ret;
			if (c->hi < c->lo)
				return perr(lx, t->p[2], "empty window: HI is below LO");
		} else {
			ret = parse_addr(lx, t->p[2], l, &c->lo, "address");
			if (ret)
				return ret;
			c->hi = c->lo;
		}
	} else if (strcmp(word, "error") == 0) {
		c->ek = E_ERROR;
		if (t->n != 3)
			return perr(lx, w, "'expect error' takes one errno name");
		ret = tok_copy(lx, t, 2, c->tok[0], NAME_LEN);
		if (ret)
			return ret;
		c->err = errno_of(c->tok[0]);
		if (!c->err)
			return perr(lx, t->p[2], "unknown errno '%s' (EINVAL, ENOSPC, EOPNOTSUPP, ERANGE, EFAULT)", c->tok[0]);
	} else {
		const char *eq = memchr(t->p[1], '=', t->len[1]);
		uint64_t dummy;

		if (!eq || eq == t->p[1])
			return perr(lx, t->p[1], "unknown check '%s'", word);
		c->ek = E_REG;
		if ((size_t)(eq - t->p[1]) >= NAME_LEN)
			return perr(lx, t->p[1], "register name too long");
		memcpy(c->name, t->p[1], (size_t)(eq - t->p[1]));
		c->name[eq - t->p[1]] = '\0';
		ret = parse_addr(lx, eq + 1, (unsigned)(t->p[1] + t->len[1] - eq - 1), &c->lo, "value");
		if (ret)
			return ret;
		if (t->n != 2)
			return perr(lx, t->p[2], "'expect REG=VALUE' takes one pair");
		(void)dummy;
	}
	/* The command it checks. */
	{
		const struct cmd *prev = NULL;

		for (size_t i = sc->n - 1; i-- > 0;)
			if (sc->cmds[i].kind != C_EXPECT) {
				prev = &sc->cmds[i];
				break;
			}
		if (!prev || prev->kind == C_CPU)
			return perr(lx, w, "expect needs a command above it");
		if ((c->ek == E_ERROR || c->ek == E_OK) && prev->kind != C_WATCH && prev->kind != C_SET &&
		    prev->kind != C_UNWATCH)
			return perr(lx, t->p[1], "'expect %s' follows watch, unwatch or set", word);
	}
	return 0;
}

/* SCENARIOS.md spells types in lower case only: r, w, rw, x. */
static int parse_watch_type(const char *s, unsigned len, unsigned *type)
{
	static const struct { const char *s; unsigned t; } tab[] = {
		{ "r", HWBP_R }, { "w", HWBP_W }, { "rw", HWBP_RW }, { "x", HWBP_X },
	};

	for (unsigned i = 0; i < 4; i++)
		if (strlen(tab[i].s) == len && memcmp(tab[i].s, s, len) == 0) {
			*type = tab[i].t;
			return 0;
		}
	return -EINVAL;
}

static int parse_line(struct lexer *lx, struct script *sc, const struct tokens *t,
		      struct hwbp_sim *probe)
{
	struct cmd *c;
	int ret;

	if (!sc->have_cpu) {
		if (!tok_is(t, 0, "cpu"))
			return perr(lx, t->p[0], "the first line must be 'cpu PRESET'");
		if (t->n != 2)
			return perr(lx, t->p[0], "'cpu' takes one preset name");
		c = push(lx, sc, t->p[0]);
		if (!c)
			return -ENOMEM;
		c->kind = C_CPU;
		ret = tok_copy(lx, t, 1, c->name, NAME_LEN);
		if (ret)
			return ret;
		if (hwbp_cpu_preset(c->name, &sc->cpu))
			return perr(lx, t->p[1], "unknown cpu '%s' (see 'hwbp caps --list')", c->name);
		sc->have_cpu = true;
		return 0;
	}
	c = push(lx, sc, t->p[0]);
	if (!c)
		return -ENOMEM;
	if (t->len[0] >= 6 && memcmp(t->p[0], "expect", 6) == 0)
		return parse_expect(lx, sc, t, c);

	if (tok_is(t, 0, "cpu")) {
		return perr(lx, t->p[0], "'cpu' may appear only once, first");
	} else if (tok_is(t, 0, "set")) {
		uint64_t v;

		c->kind = C_SET;
		if (t->n != 3)
			return perr(lx, t->p[0], "'set' takes REG VALUE");
		ret = tok_copy(lx, t, 1, c->name, NAME_LEN);
		if (ret)
			return ret;
		if (hwbp_sim_get_reg(probe, 0, c->name, &v) == -ENOENT)
			return perr(lx, t->p[1], "no register '%s' on %s", c->name, sc->cpu.name);
		ret = parse_addr(lx, t->p[2], t->len[2], &c->a, "value");
		c->abase = lx->base;
		return ret;
	} else if (tok_is(t, 0, "watch")) {
		c->kind = C_WATCH;
		if (t->n < 5)
			return perr(lx, t->p[0], "'watch' takes NAME ADDR LEN TYPE [scope=user|kernel|both] [widen]");
		ret = tok_copy(lx, t, 1, c->name, NAME_LEN);
		if (ret)
			return ret;
		if (is_slot_name(c->name))
			return perr(lx, t->p[1], "'%s' is a slot name; choose another request name", c->name);
		for (size_t i = 0; i + 1 < sc->n; i++)
			if (sc->cmds[i].kind == C_WATCH && strcmp(sc->cmds[i].name, c->name) == 0)
				/* Names may be reused after unwatch: checked at run time. */
				break;
		ret = parse_addr(lx, t->p[2], t->len[2], &c->a, "address");
		if (ret)
			return ret;
		c->abase = lx->base;
		ret = parse_num(t->p[3], t->len[3], &c->b);
		if (ret)
			return perr(lx, t->p[3], "bad length '%.*s': expected a number of bytes", (int)t->len[3], t->p[3]);
		if (parse_watch_type(t->p[4], t->len[4], &c->type))
			return perr(lx, t->p[4], "bad type '%.*s': expected r, w, rw or x", (int)t->len[4], t->p[4]);
		for (unsigned i = 5; i < t->n; i++) {
			if (tok_is(t, i, "widen"))
				c->widen = true;
			else if (tok_is(t, i, "scope=user"))
				c->scope = HWBP_SCOPE_USER;
			else if (tok_is(t, i, "scope=kernel"))
				c->scope = HWBP_SCOPE_KERNEL;
			else if (tok_is(t, i, "scope=both"))
				c->scope = HWBP_SCOPE_BOTH;
			else
				return perr(lx, t->p[i], "unknown watch option '%.*s' (scope=user|kernel|both, widen)",
					    (int)t->len[i], t->p[i]);
		}
		return 0;
	} else if (tok_is(t, 0, "unwatch")) {
		c->kind = C_UNWATCH;
		if (t->n != 2)
			return perr(lx, t->p[0], "'unwatch' takes NAME");
		return tok_copy(lx, t, 1, c->name, NAME_LEN);
	} else if (tok_is(t, 0, "mode")) {
		c->kind = C_MODE;
		if (t->n < 2 || t->n > 5)
			return perr(lx, t->p[0], "'mode' takes 1 to 4 KEY=VALUE pairs");
		for (unsigned i = 1; i < t->n; i++) {
			const char *eq = memchr(t->p[i], '=', t->len[i]);
			unsigned kl;

			if (!eq || eq == t->p[i])
				return perr(lx, t->p[i], "expected KEY=VALUE");
			kl = (unsigned)(eq - t->p[i]);
			if (kl >= sizeof(c->mkey[0]))
				return perr(lx, t->p[i], "unknown mode key");
			memcpy(c->mkey[c->nmode], t->p[i], kl);
			c->mkey[c->nmode][kl] = '\0';
			if (parse_num(eq + 1, t->len[i] - kl - 1, &c->mval[c->nmode]))
				return perr(lx, eq + 1, "bad mode value: expected a number");
			if (strcmp(c->mkey[c->nmode], "cpu") == 0) {
				if (c->mval[c->nmode] >= HWBP_SIM_MAX_CPUS)
					return perr(lx, eq + 1, "cpu=%" PRIu64 ": at most %d CPUs", c->mval[c->nmode], HWBP_SIM_MAX_CPUS);
			} else {
				int r = hwbp_sim_mode(probe, 0, c->mkey[c->nmode], c->mval[c->nmode]);

				if (r == -ENOENT)
					return perr(lx, t->p[i], "unknown mode key '%s' for %s", c->mkey[c->nmode], sc->cpu.name);
				if (r)
					return perr(lx, eq + 1, "bad value for mode %s", c->mkey[c->nmode]);
			}
			c->nmode++;
		}
		return 0;
	} else if (tok_is(t, 0, "read") || tok_is(t, 0, "write") || tok_is(t, 0, "io")) {
		c->kind = tok_is(t, 0, "read") ? C_READ : tok_is(t, 0, "write") ? C_WRITE : C_IO;
		if (t->n != 3)
			return perr(lx, t->p[0], "'%.*s' takes ADDR SIZE", (int)t->len[0], t->p[0]);
		if (c->kind == C_IO && sc->cpu.arch != HWBP_ARCH_X86)
			return perr(lx, t->p[0], "'io' is x86 port I/O; %s has none", sc->cpu.name);
		ret = parse_addr(lx, t->p[1], t->len[1], &c->a, c->kind == C_IO ? "port" : "address");
		if (ret)
			return ret;
		c->abase = lx->base;
		if (parse_num(t->p[2], t->len[2], &c->b) || c->b < 1 || c->b > 64)
			return perr(lx, t->p[2], "bad size '%.*s': expected 1..64 bytes", (int)t->len[2], t->p[2]);
		if (c->kind == C_IO && (c->a > 0xffff || (c->b != 1 && c->b != 2 && c->b != 4)))
			return perr(lx, t->p[1], "io takes a port 0..0xffff and size 1, 2 or 4");
		return 0;
	} else if (tok_is(t, 0, "exec") || tok_is(t, 0, "zero")) {
		c->kind = tok_is(t, 0, "exec") ? C_EXEC : C_ZERO;
		if (t->n != 2)
			return perr(lx, t->p[0], "'%.*s' takes ADDR", (int)t->len[0], t->p[0]);
		if (c->kind == C_ZERO && sc->cpu.arch == HWBP_ARCH_X86)
			return perr(lx, t->p[0], "'zero' is arm64 DC ZVA / powerpc dcbz; x86 has none");
		ret = parse_addr(lx, t->p[1], t->len[1], &c->a, "address");
		c->abase = lx->base;
		return ret;
	} else if (tok_is(t, 0, "resume")) {
		c->kind = C_RESUME;
		if (t->n != 1)
			return perr(lx, t->p[1], "'resume' takes nothing");
		return 0;
	}
	return perr(lx, t->p[0], "unknown command '%.*s'", (int)t->len[0], t->p[0]);
}

static int parse_script(const char *file, const char *text, size_t len, struct script *sc,
			char *errbuf, size_t errlen)
{
	struct lexer lx = { file, 0, NULL, errbuf, errlen, 0 };
	struct hwbp_sim *probe = NULL;
	size_t pos = 0;
	int ret = 0;

	memset(sc, 0, sizeof(*sc));
	sc->file = file;
	while (pos < len && ret == 0) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;
		struct tokens t;

		lx.line++;
		lx.start = s;
		pos += l + (nl ? 1 : 0);
		if (memchr(s, '\0', l)) {
			ret = perr(&lx, (const char *)memchr(s, '\0', l), "NUL byte in a scenario file");
			break;
		}
		ret = tokenize(&lx, s, l, &t);
		if (ret || t.n == 0)
			continue;
		ret = parse_line(&lx, sc, &t, probe);
		if (ret == 0 && !probe && sc->have_cpu) {
			/* A scratch simulator answers "is this a register / mode
			 * of this CPU" while parsing. */
			probe = hwbp_sim_new(&sc->cpu, HWBP_SIM_SDM, 1, &ret);
			if (!probe)
				ret = perr(&lx, s, "cannot create a simulator: %s", hwbp_errno_name(ret));
		}
	}
	if (ret == 0 && !sc->have_cpu) {
		lx.line = lx.line ? lx.line : 1;
		lx.start = text;
		ret = perr(&lx, text, "empty scenario: the first line must be 'cpu PRESET'");
	}
	hwbp_sim_free(probe);
	if (ret) {
		free(sc->cmds);
		sc->cmds = NULL;
	}
	return ret;
}

/* ------------------------------------------------------------ running */

struct run {
	const struct script *sc;
	const struct hwbp_scenario_opts *o;
	struct hwbp_scenario_stats *st;
	struct hwbp_sim *sim;
	struct hwbp_ctx ctx;
	struct hwbp_slots percpu[HWBP_SIM_MAX_CPUS];
	unsigned cur;
	char names[HWBP_MAX_REQUESTS][NAME_LEN];
	unsigned nlive;
	/* the command the next expect lines check */
	const struct cmd *last;
	bool have_res;
	struct hwbp_sim_result res;
	struct hwbp_access acc;
	bool decoded;
	struct hwbp_hit hit;
	int cmd_err;
};

static void out(struct run *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->o->out)
		return;
	va_start(ap, fmt);
	vfprintf(r->o->out, fmt, ap);
	va_end(ap);
}

static const struct hwbpi_arenas arenas = { ARENA_B, ARENA_C, ARENA_SIZE };

static void fmt_addr(char *buf, size_t n, uint64_t v)
{
	hwbpi_fmt_addr(&arenas, buf, n, v);
}

static void fmt_reg(char *buf, size_t n, const char *name, uint64_t v)
{
	hwbpi_fmt_reg(&arenas, buf, n, name, v);
}

/* The result as a canonical line body.  With @decoded, the slots are those
 * the decoder reads from the status and the live registers, which is what
 * a bare-metal harness prints too; otherwise the model's own. */
static void result_text(struct run *r, const struct hwbp_sim_result *res, bool decoded,
			char *buf, size_t n)
{
	hwbpi_sim_result_text(&r->sc->cpu, decoded ? hwbpi_sim_regs(r->sim, r->cur) : NULL, res,
			      &arenas, buf, n);
}

static int find_name(const struct run *r, const char *name)
{
	for (int i = 0; i < HWBP_MAX_REQUESTS; i++)
		if (r->names[i][0] && strcmp(r->names[i], name) == 0)
			return i;
	return -1;
}

static unsigned zero_block(const struct hwbp_cpu *cpu)
{
	/* arm64: the sim's DCZID_EL0 block (64 B); powerpc: dcbz's 128 B line. */
	return cpu->arch == HWBP_ARCH_POWERPC ? 128 : 64;
}

/* Decode the exception through the generic API, as a kernel would. */
static void decode(struct run *r, const struct hwbp_sim_access *a)
{
	unsigned kind = 0;

	r->decoded = false;
	if (r->res.cls == HWBP_SIM_NONE || r->res.cls == HWBP_SIM_UD || r->res.cls == HWBP_SIM_GP ||
	    r->nlive == 0 || !a)
		return;
	switch (a->op) {
	case HWBP_SIM_READ:
		kind = HWBP_R;
		break;
	case HWBP_SIM_WRITE:
	case HWBP_SIM_ZERO:
		kind = HWBP_W;
		break;
	case HWBP_SIM_EXEC:
		kind = HWBP_X;
		break;
	}
	r->acc.addr = a->addr;
	r->acc.size = a->op == HWBP_SIM_EXEC ? 1 : a->size;
	if (a->op == HWBP_SIM_ZERO) {
		r->acc.addr = a->addr & ~(uint64_t)(zero_block(&r->sc->cpu) - 1);
		r->acc.size = zero_block(&r->sc->cpu);
	}
	if (a->op == HWBP_SIM_IO)
		r->acc.size = 0; /* a port, not memory: nothing to filter by */
	r->acc.kind = kind;
	r->acc.priv = hwbp_sim_priv(r->sim, r->cur);
	if (hwbp_decode(&r->ctx, r->cur, NULL, &r->res.st, &r->acc, &r->hit) == 0)
		r->decoded = true;
}

static void fail(struct run *r, const struct cmd *e, const char *fmt, ...)
{
	va_list ap;

	r->st->failed++;
	if (!r->o->out || r->o->emit)
		return;
	fprintf(r->o->out, "%s:%u: ", r->sc->file, e->line);
	va_start(ap, fmt);
	vfprintf(r->o->out, fmt, ap);
	va_end(ap);
	fputc('\n', r->o->out);
}

static void got_text(struct run *r, char *buf, size_t n)
{
	if (!r->have_res) {
		snprintf(buf, n, "no access result");
		return;
	}
	result_text(r, &r->res, false, buf, n);
	if (r->decoded && r->hit.filtered && strlen(buf) + 12 < n)
		strcat(buf, " (filtered)");
}

static void check(struct run *r, const struct cmd *e)
{
	const struct hwbp_sim_result *res = &r->res;
	bool exc = r->have_res && res->cls != HWBP_SIM_NONE;
	char got[512];

	if (e->profile >= 0 && e->profile != (int)r->o->profile)
		return;
	got_text(r, got, sizeof(got));
	switch (e->ek) {
	case E_NONE:
		if (exc)
			return fail(r, e, "expected none got %s", got);
		break;
	case E_FILTERED:
		if (!exc || !r->decoded || !r->hit.filtered)
			return fail(r, e, "expected filtered got %s%s", got,
				    exc && !r->decoded ? " (not decoded: no watch armed it)" : "");
		break;
	case E_HIT: {
		bool slots = is_slot_name(e->tok[0]);
		uint32_t want_d = 0, want_i = 0;
		uint64_t want_r = 0;

		if (!exc)
			return fail(r, e, "expected hit got %s", got);
		for (unsigned i = 0; i < e->ntok; i++) {
			if (slots) {
				bool found = false;

				for (unsigned k = 0; k < 16 && !found; k++) {
					char nm[16];

					hwbpi_slot_name(&r->sc->cpu, false, k, nm, sizeof(nm));
					if (strcmp(nm, e->tok[i]) == 0) {
						want_d |= 1u << k;
						found = true;
					}
					hwbpi_slot_name(&r->sc->cpu, true, k, nm, sizeof(nm));
					if (!found && r->sc->cpu.arch != HWBP_ARCH_X86 && strcmp(nm, e->tok[i]) == 0) {
						want_i |= 1u << k;
						found = true;
					}
				}
				if (!found)
					return fail(r, e, "expected hit %s, which is no slot of %s", e->tok[i], r->sc->cpu.name);
			} else {
				int id = find_name(r, e->tok[i]);

				if (id < 0)
					return fail(r, e, "expected hit %s, which is no watched request", e->tok[i]);
				want_r |= UINT64_C(1) << id;
			}
		}
		if (slots) {
			uint32_t gd = res->data_slots, gi = res->inst_slots;

			if (r->sc->cpu.arch == HWBP_ARCH_X86) {
				gd |= gi;
				gi = 0;
			}
			if (gd != want_d || gi != want_i)
				return fail(r, e, "expected hit slots %s... got %s", e->tok[0], got);
		} else {
			char names[256] = "";

			if (!r->decoded)
				return fail(r, e, "expected hit %s got %s (not decoded)", e->tok[0], got);
			for (int id = 0; id < HWBP_MAX_REQUESTS; id++)
				if (r->hit.requests & (UINT64_C(1) << id) && strlen(names) + NAME_LEN + 2 < sizeof(names)) {
					strcat(names, " ");
					strcat(names, r->names[id][0] ? r->names[id] : "?");
				}
			if (r->hit.requests != want_r)
				return fail(r, e, "expected hit %s... got requests:%s %s", e->tok[0],
					    names[0] ? names : " none", got);
		}
		break;
	}
	case E_CLASS:
		if ((int)res->cls != e->err || !r->have_res)
			return fail(r, e, "expected class %s got %s", e->tok[0], got);
		break;
	case E_TIMING:
		if (!exc || (uint64_t)res->timing != e->lo)
			return fail(r, e, "expected timing %s got %s", e->lo ? "after" : "before", got);
		break;
	case E_REG: {
		uint64_t v = 0;
		bool have = false;
		char want[40], gv[40];

		for (unsigned i = 0; r->have_res && i < res->nstatus; i++)
			if (strcmp(res->status[i].name, e->name) == 0) {
				v = res->status[i].value;
				have = true;
			}
		if (!have && hwbp_sim_get_reg(r->sim, r->cur, e->name, &v) == 0)
			have = true;
		fmt_reg(want, sizeof(want), e->name, e->lo);
		if (!have)
			return fail(r, e, "expected %s=%s got no such register", e->name, want);
		if (v != e->lo) {
			fmt_reg(gv, sizeof(gv), e->name, v);
			return fail(r, e, "expected %s=%s got %s=%s", e->name, want, e->name, gv);
		}
		break;
	}
	case E_ADDR: {
		char lo[40], hi[40], g[40];

		fmt_addr(lo, sizeof(lo), e->lo);
		fmt_addr(hi, sizeof(hi), e->hi);
		if (!exc || !res->addr_known)
			return fail(r, e, "expected addr %s..%s got %s", lo, hi, got);
		if (res->addr < e->lo || res->addr > e->hi) {
			fmt_addr(g, sizeof(g), res->addr);
			return fail(r, e, "expected addr %s..%s got addr=%s", lo, hi, g);
		}
		break;
	}
	case E_ERROR:
		if (r->cmd_err != e->err)
			return fail(r, e, "expected error %s got %s", e->tok[0],
				    r->cmd_err ? hwbp_errno_name(r->cmd_err) : "ok");
		break;
	case E_OK:
		if (r->cmd_err)
			return fail(r, e, "expected ok got error %s", hwbp_errno_name(r->cmd_err));
		break;
	}
	r->st->passed++;
}

/* Does an `expect error` for this profile follow command i? */
static bool error_expected(const struct run *r, size_t i)
{
	for (size_t k = i + 1; k < r->sc->n && r->sc->cmds[k].kind == C_EXPECT; k++) {
		const struct cmd *e = &r->sc->cmds[k];

		if (e->ek == E_ERROR && (e->profile < 0 || e->profile == (int)r->o->profile))
			return true;
	}
	return false;
}

static void emit(struct run *r, const struct cmd *c)
{
	char buf[512];

	if (!r->o->emit)
		return;
	result_text(r, &r->res, true, buf, sizeof(buf));
	out(r, "%u: %s\n", c->line, buf);
}

static int run_script(struct run *r)
{
	int ret;

	r->sim = hwbp_sim_new(&r->sc->cpu, r->o->profile, HWBP_SIM_MAX_CPUS, &ret);
	if (!r->sim)
		return ret;
	ret = hwbp_ctx_init(&r->ctx, &r->sc->cpu, HWBP_SIM_MAX_CPUS, r->percpu, hwbp_sim_glue(r->sim));
	if (ret) {
		hwbp_sim_free(r->sim);
		return ret;
	}
	for (size_t i = 0; i < r->sc->n; i++) {
		const struct cmd *c = &r->sc->cmds[i];
		struct hwbp_sim_access a = { c->a, (uint32_t)c->b, 0 };

		if (c->kind == C_EXPECT) {
			check(r, c);
			continue;
		}
		r->last = c;
		r->have_res = false;
		r->decoded = false;
		r->cmd_err = 0;
		switch (c->kind) {
		case C_CPU:
			break;
		case C_SET:
			r->cmd_err = hwbp_sim_set_reg(r->sim, r->cur, c->name, c->a, &r->res);
			r->have_res = true;
			if (r->res.cls != HWBP_SIM_NONE)
				emit(r, c);
			break;
		case C_WATCH: {
			struct hwbp_request q = { c->a, c->b, c->type, c->scope,
						  c->widen ? HWBP_REQ_WIDEN : 0 };
			int id = -1;

			if (find_name(r, c->name) >= 0)
				r->cmd_err = -EBUSY;
			else
				r->cmd_err = hwbp_install(&r->ctx, &q, -1, NULL, &id);
			if (r->cmd_err == 0) {
				snprintf(r->names[id], NAME_LEN, "%s", c->name);
				r->nlive++;
			} else if (!error_expected(r, i)) {
				fail(r, c, "watch %s failed with %s (no 'expect error' follows)", c->name,
				     hwbp_errno_name(r->cmd_err));
			}
			break;
		}
		case C_UNWATCH: {
			int id = find_name(r, c->name);

			r->cmd_err = id < 0 ? -ENOENT : hwbp_remove(&r->ctx, id);
			if (r->cmd_err == 0) {
				r->names[id][0] = '\0';
				r->nlive--;
			} else if (!error_expected(r, i)) {
				fail(r, c, "unwatch %s failed with %s", c->name, hwbp_errno_name(r->cmd_err));
			}
			break;
		}
		case C_MODE:
			for (unsigned k = 0; k < c->nmode; k++) {
				if (strcmp(c->mkey[k], "cpu") == 0)
					r->cur = (unsigned)c->mval[k];
				else if ((ret = hwbp_sim_mode(r->sim, r->cur, c->mkey[k], c->mval[k])))
					fail(r, c, "mode %s=%" PRIu64 " failed with %s", c->mkey[k],
					     c->mval[k], hwbp_errno_name(ret));
			}
			break;
		case C_READ:
		case C_WRITE:
		case C_EXEC:
		case C_IO:
		case C_ZERO:
			a.op = c->kind == C_READ ? HWBP_SIM_READ : c->kind == C_WRITE ? HWBP_SIM_WRITE :
			       c->kind == C_EXEC ? HWBP_SIM_EXEC : c->kind == C_IO ? HWBP_SIM_IO : HWBP_SIM_ZERO;
			if (c->kind == C_EXEC || c->kind == C_ZERO)
				a.size = c->kind == C_ZERO ? zero_block(&r->sc->cpu) : 1;
			hwbp_sim_access(r->sim, r->cur, &a, &r->res);
			r->have_res = true;
			r->st->accesses++;
			decode(r, &a);
			emit(r, c);
			break;
		case C_RESUME:
			hwbp_sim_resume(r->sim, r->cur, &r->res);
			r->have_res = true;
			emit(r, c);
			break;
		case C_EXPECT:
			break;
		}
	}
	hwbp_sim_free(r->sim);
	r->sim = NULL;
	return 0;
}

/* Check the arguments the public entry points share, then parse. */
static int load_script(const char *file, const char *text, size_t len, struct script *sc,
		       char *errbuf, size_t errlen)
{
	char dummy[8];

	if (!file || (!text && len))
		return -EINVAL;
	if (!errbuf || errlen == 0) {
		errbuf = dummy;
		errlen = sizeof(dummy);
	}
	errbuf[0] = '\0';
	return parse_script(file, text ? text : "", len, sc, errbuf, errlen);
}

int hwbp_scenario_run(const char *file, const char *text, size_t len,
		      const struct hwbp_scenario_opts *opts,
		      struct hwbp_scenario_stats *stats, char *errbuf, size_t errlen)
{
	struct script sc;
	struct run *r;
	int ret;

	if (!opts || !stats)
		return -EINVAL;
	ret = load_script(file, text, len, &sc, errbuf, errlen);
	if (ret)
		return ret;
	/* The run state holds a context and per-CPU slot sets: heap, not
	 * stack (a few hundred KiB). */
	r = calloc(1, sizeof(*r));
	if (!r) {
		free(sc.cmds);
		return -ENOMEM;
	}
	r->sc = &sc;
	r->o = opts;
	r->st = stats;
	if (opts->emit)
		out(r, "== %s\n", file);
	ret = run_script(r);
	free(r);
	free(sc.cmds);
	return ret;
}

/* ------------------------------------------------------------ compile */

/* A value as the file wrote it: B+OFF and C+OFF stay arena-relative,
 * so the harness can place its arenas where it likes; numbers stay
 * numbers (a DR7 value is not an address, whatever it looks like). */
static const char *base_of(int abase, uint64_t v, uint64_t *off)
{
	if (abase == 'B') {
		*off = v - ARENA_B;
		return "HB_B";
	}
	if (abase == 'C') {
		*off = v - ARENA_C;
		return "HB_C";
	}
	*off = v;
	return "HB_ABS";
}

static const char *const hop_names[] = {
	[C_SET] = "HOP_SET", [C_WATCH] = "HOP_WATCH", [C_UNWATCH] = "HOP_UNWATCH",
	[C_MODE] = "HOP_MODE", [C_READ] = "HOP_READ", [C_WRITE] = "HOP_WRITE",
	[C_EXEC] = "HOP_EXEC", [C_IO] = "HOP_IO", [C_ZERO] = "HOP_ZERO",
	[C_RESUME] = "HOP_RESUME",
};

static void c_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void hop(FILE *out, const char *kind, int abase, uint64_t a, uint64_t b, unsigned line,
		const char *name, const char *name2, unsigned type, unsigned scope, bool widen)
{
	uint64_t off;
	const char *base = base_of(abase, a, &off);

	fprintf(out, "\t{ %s, %s, %u, %u, %u, { 0 }, %u, 0x%" PRIx64 "ull, 0x%" PRIx64 "ull, ",
		kind, base, type, scope, widen ? 1u : 0u, line, off, b);
	if (name)
		c_string(out, name);
	else
		fputs("0", out);
	fputs(", ", out);
	if (name2)
		c_string(out, name2);
	else
		fputs("0", out);
	fputs(" },\n", out);
}

int hwbp_scenario_compile(const char *file, const char *text, size_t len, FILE *out,
			  char *errbuf, size_t errlen)
{
	struct script sc;
	int ret;

	if (!out)
		return -EINVAL;
	ret = load_script(file, text, len, &sc, errbuf, errlen);
	if (ret)
		return ret;
	for (size_t i = 0; i < sc.n; i++) {
		const struct cmd *c = &sc.cmds[i];

		switch (c->kind) {
		case C_CPU:
			hop(out, "HOP_FILE", 0, 0, 0, c->line, file, c->name, 0, 0, false);
			break;
		case C_EXPECT:
			break;
		case C_MODE:
			for (unsigned k = 0; k < c->nmode; k++)
				hop(out, "HOP_MODE", 0, c->mval[k], 0, c->line, c->mkey[k], NULL, 0, 0, false);
			break;
		case C_WATCH:
			hop(out, "HOP_WATCH", c->abase, c->a, c->b, c->line, c->name, NULL, c->type,
			    (unsigned)c->scope, c->widen);
			break;
		case C_SET:
		case C_UNWATCH:
			hop(out, hop_names[c->kind], c->abase, c->a, 0, c->line, c->name, NULL, 0, 0, false);
			break;
		default:
			hop(out, hop_names[c->kind], c->abase, c->a, c->b, c->line, NULL, NULL, 0, 0, false);
			break;
		}
	}
	free(sc.cmds);
	return 0;
}
