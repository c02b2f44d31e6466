/* SPDX-License-Identifier: MIT */
/*
 * The scenario language's `expect` lines: `expect CHECK...` or
 * `expect[sdm]` / `expect[qemu]` (checked under that profile only), each
 * about the result of the nearest command above it.
 */
#include <errno.h>
#include <string.h>

#include "scenario.h"


static const char *const class_names[] = {
	"none", "db", "ud", "gp", "watchpoint", "breakpoint", "dsi", "trace", "bp", "step",
	"brk", "program",
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

/* expect, expect[sdm], expect[qemu] or expect[linux]. */
static int parse_profile(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t,
			 struct hwbpi_scn_cmd *c)
{
	c->profile = -1;
	if (t->len[0] <= 6)
		return 0;
	if (hwbpi_scn_tok_is(t, 0, "expect[sdm]"))
		c->profile = HWBP_SIM_SDM;
	else if (hwbpi_scn_tok_is(t, 0, "expect[qemu]"))
		c->profile = HWBP_SIM_QEMU;
	else if (hwbpi_scn_tok_is(t, 0, "expect[linux]"))
		c->profile = HWBP_SIM_LINUX;
	else
		return hwbpi_scn_error(lx, t->p[0], "unknown profile in '%.*s': expected expect[sdm], expect[qemu] or expect[linux]",
				       (int)t->len[0], t->p[0]);
	return 0;
}

/* none, filtered, ok: nothing follows. */
static int parse_flag(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t,
		      struct hwbpi_scn_cmd *c, const char *word)
{
	c->ek = word[0] == 'n' ? E_NONE : word[0] == 'f' ? E_FILTERED : E_OK;
	if (t->n != 2)
		return hwbpi_scn_error(lx, t->p[2], "'expect %s' takes nothing more", word);
	return 0;
}

/* hit NAME...: slot names or request names, not both. */
static int parse_hit(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t,
		     struct hwbpi_scn_cmd *c)
{
	unsigned slots = 0;
	int ret;

	c->ek = E_HIT;
	if (t->n < 3)
		return hwbpi_scn_error(lx, t->p[0] + t->len[0], "'expect hit' needs slot or request names");
	if (t->n - 2 > HWBPI_SCN_MAX_NAMES)
		return hwbpi_scn_error(lx, t->p[2 + HWBPI_SCN_MAX_NAMES], "at most %d names",
				       HWBPI_SCN_MAX_NAMES);
	for (unsigned i = 2; i < t->n; i++) {
		ret = hwbpi_scn_tok_copy(lx, t, i, c->tok[c->ntok], HWBPI_SCN_NAME_LEN);
		if (ret)
			return ret;
		slots += hwbpi_scn_is_slot_name(c->tok[c->ntok]);
		c->ntok++;
	}
	if (slots && slots != c->ntok)
		return hwbpi_scn_error(lx, t->p[2], "'expect hit' names either slots or requests, not both");
	return 0;
}

static int parse_class(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t,
		       struct hwbpi_scn_cmd *c)
{
	int ret;

	c->ek = E_CLASS;
	if (t->n != 3)
		return hwbpi_scn_error(lx, t->p[0], "'expect class' takes one class name");
	ret = hwbpi_scn_tok_copy(lx, t, 2, c->tok[0], HWBPI_SCN_NAME_LEN);
	if (ret)
		return ret;
	c->err = -1;
	for (int i = 0; i < (int)(sizeof(class_names) / sizeof(class_names[0])); i++)
		if (strcmp(c->tok[0], class_names[i]) == 0)
			c->err = i;
	if (c->err < 0)
		return hwbpi_scn_error(lx, t->p[2], "unknown class '%s' (db, ud, gp, bp, watchpoint, breakpoint, step, brk, dsi, trace, program)",
				       c->tok[0]);
	return 0;
}

static int parse_timing(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t,
			struct hwbpi_scn_cmd *c)
{
	c->ek = E_TIMING;
	if (hwbpi_scn_tok_is(t, 2, "before"))
		c->lo = HWBP_TIMING_BEFORE;
	else if (hwbpi_scn_tok_is(t, 2, "after"))
		c->lo = HWBP_TIMING_AFTER;
	else
		return hwbpi_scn_error(lx, t->n > 2 ? t->p[2] : t->p[0], "'expect timing' takes before or after");
	if (t->n != 3)
		return hwbpi_scn_error(lx, t->p[3], "'expect timing' takes one word");
	return 0;
}

/* ip at|next: where the saved instruction pointer (x86 RIP, arm64 ELR,
 * powerpc SRR0) points, which is what the timing says: at the instruction
 * (before: it can run again) or at the next one (after). */
static int parse_ip(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t,
		    struct hwbpi_scn_cmd *c)
{
	c->ek = E_TIMING;
	if (hwbpi_scn_tok_is(t, 2, "at"))
		c->lo = HWBP_TIMING_BEFORE;
	else if (hwbpi_scn_tok_is(t, 2, "next"))
		c->lo = HWBP_TIMING_AFTER;
	else
		return hwbpi_scn_error(lx, t->n > 2 ? t->p[2] : t->p[0], "'expect ip' takes at or next");
	if (t->n != 3)
		return hwbpi_scn_error(lx, t->p[3], "'expect ip' takes one word");
	return 0;
}

/* addr LO or addr LO..HI (an inclusive window). */
static int parse_addr_window(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t,
			     struct hwbpi_scn_cmd *c)
{
	const char *s, *dots;
	unsigned l;
	int ret;

	c->ek = E_ADDR;
	if (t->n != 3)
		return hwbpi_scn_error(lx, t->p[0], "'expect addr' takes LO or LO..HI");
	s = t->p[2];
	l = t->len[2];
	dots = memchr(s, '.', l);
	if (!dots) {
		ret = hwbpi_scn_addr(lx, s, l, &c->lo, "address");
		c->hi = c->lo;
		return ret;
	}
	if (dots + 1 >= s + l || dots[1] != '.')
		return hwbpi_scn_error(lx, dots, "expected LO..HI");
	ret = hwbpi_scn_addr(lx, s, (unsigned)(dots - s), &c->lo, "address");
	if (ret)
		return ret;
	ret = hwbpi_scn_addr(lx, dots + 2, (unsigned)(s + l - dots - 2), &c->hi, "address");
	if (ret)
		return ret;
	if (c->hi < c->lo)
		return hwbpi_scn_error(lx, s, "empty window: HI is below LO");
	return 0;
}

static int parse_error(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t,
		       struct hwbpi_scn_cmd *c)
{
	int ret;

	c->ek = E_ERROR;
	if (t->n != 3)
		return hwbpi_scn_error(lx, t->p[0], "'expect error' takes one errno name");
	ret = hwbpi_scn_tok_copy(lx, t, 2, c->tok[0], HWBPI_SCN_NAME_LEN);
	if (ret)
		return ret;
	c->err = errno_of(c->tok[0]);
	if (!c->err)
		return hwbpi_scn_error(lx, t->p[2], "unknown errno '%s' (EINVAL, ENOSPC, EOPNOTSUPP, ERANGE, EFAULT)",
				       c->tok[0]);
	return 0;
}

/* REG=VALUE: a status register of the result, or any register. */
static int parse_reg(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t,
		     struct hwbpi_scn_cmd *c, const char *word)
{
	const char *eq = memchr(t->p[1], '=', t->len[1]);
	size_t nl;
	int ret;

	if (!eq || eq == t->p[1])
		return hwbpi_scn_error(lx, t->p[1], "unknown check '%s'", word);
	c->ek = E_REG;
	nl = (size_t)(eq - t->p[1]);
	if (nl >= HWBPI_SCN_NAME_LEN)
		return hwbpi_scn_error(lx, t->p[1], "register name too long");
	memcpy(c->name, t->p[1], nl);
	c->name[nl] = '\0';
	ret = hwbpi_scn_addr(lx, eq + 1, (unsigned)(t->p[1] + t->len[1] - eq - 1), &c->lo, "value");
	if (ret)
		return ret;
	if (t->n != 2)
		return hwbpi_scn_error(lx, t->p[2], "'expect REG=VALUE' takes one pair");
	return 0;
}

static int parse_check(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t,
		       struct hwbpi_scn_cmd *c, const char *word)
{
	if (strcmp(word, "none") == 0 || strcmp(word, "filtered") == 0 || strcmp(word, "ok") == 0)
		return parse_flag(lx, t, c, word);
	if (strcmp(word, "hit") == 0)
		return parse_hit(lx, t, c);
	if (strcmp(word, "class") == 0)
		return parse_class(lx, t, c);
	if (strcmp(word, "timing") == 0)
		return parse_timing(lx, t, c);
	if (strcmp(word, "ip") == 0)
		return parse_ip(lx, t, c);
	if (strcmp(word, "addr") == 0)
		return parse_addr_window(lx, t, c);
	if (strcmp(word, "error") == 0)
		return parse_error(lx, t, c);
	return parse_reg(lx, t, c, word);
}

/* The command an expectation checks: the nearest non-expect line above
 * it (@prev), which must have a result (not `cpu`), and for error/ok be
 * one that can fail (watch, unwatch, set). */
static int check_target(struct hwbpi_scn_lexer *lx, enum hwbpi_scn_kind prev,
			const struct hwbpi_scn_tokens *t, const struct hwbpi_scn_cmd *c,
			const char *word)
{
	if (prev == C_CPU)
		return hwbpi_scn_error(lx, t->p[0], "expect needs a command above it");
	if ((c->ek == E_ERROR || c->ek == E_OK) && prev != C_WATCH && prev != C_SET &&
	    prev != C_UNWATCH)
		return hwbpi_scn_error(lx, t->p[1], "'expect %s' follows watch, unwatch or set", word);
	return 0;
}

int hwbpi_scn_parse_expect(struct hwbpi_scn_lexer *lx, enum hwbpi_scn_kind prev,
			   const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c)
{
	char word[HWBPI_SCN_NAME_LEN];
	int ret;

	c->kind = C_EXPECT;
	ret = parse_profile(lx, t, c);
	if (ret)
		return ret;
	if (t->n < 2)
		return hwbpi_scn_error(lx, t->p[0] + t->len[0],
				       "expect needs a check (none, filtered, hit, class, timing, ip, REG=VALUE, addr, error, ok)");
	ret = hwbpi_scn_tok_copy(lx, t, 1, word, sizeof(word));
	if (ret)
		return ret;
	ret = parse_check(lx, t, c, word);
	if (ret)
		return ret;
	return check_target(lx, prev, t, c, word);
}
