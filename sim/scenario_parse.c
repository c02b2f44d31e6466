/* SPDX-License-Identifier: MIT */
/*
 * The scenario language's parser: one line -> one command (struct
 * hwbpi_scn_cmd), or one "FILE:LINE:COL: message"; and the two passes over
 * a file (scenario.h): all of it parsed before anything runs, none of it
 * kept.
 *
 * The first line names the CPU; from then on a scratch simulator of that
 * CPU answers "is this a register / a mode of this CPU?", so that a typo
 * in a register name is a parse error at its column, not a failure at run
 * time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "scenario.h"


/* The simulator's model of the file's CPU: what lines it gives a meaning
 * to.  There is one for every preset (hwbp_sim_new() of the `cpu` line
 * succeeded before any other line is parsed). */
static const struct hwbpi_sim_model *model_of(const struct hwbpi_scn_parser *p)
{
	return hwbpi_sim_model(p->cpu.arch);
}

/* docs/scenarios.md spells types in lower case only: r, w, rw, x. */
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

/* The operands of one command line; @probe is the scratch simulator. */
typedef int parse_fn(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
		     const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
		     struct hwbp_sim *probe);

static int parse_cpu_again(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
			   const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
			   struct hwbp_sim *probe)
{
	(void)p, (void)c, (void)probe;
	return hwbpi_scn_error(lx, t->p[0], "'cpu' may appear only once, first");
}

/* set REG VALUE */
static int parse_set(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
		     const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
		     struct hwbp_sim *probe)
{
	uint64_t v;
	int ret;

	c->kind = C_SET;
	if (t->n != 3)
		return hwbpi_scn_error(lx, t->p[0], "'set' takes REG VALUE");
	ret = hwbpi_scn_tok_copy(lx, t, 1, c->name, HWBPI_SCN_NAME_LEN);
	if (ret)
		return ret;
	if (hwbp_sim_get_reg(probe, 0, c->name, &v) == -ENOENT)
		return hwbpi_scn_error(lx, t->p[1], "no register '%s' on %s", c->name, p->cpu.name);
	ret = hwbpi_scn_addr(lx, t->p[2], t->len[2], &c->a, "value");
	c->abase = lx->base;
	return ret;
}

/* scope=user|kernel|both, widen and share, after the four operands of watch. */
static int parse_watch_options(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t,
			       struct hwbpi_scn_cmd *c)
{
	for (unsigned i = 5; i < t->n; i++) {
		if (hwbpi_scn_tok_is(t, i, "widen"))
			c->widen = true;
		else if (hwbpi_scn_tok_is(t, i, "share"))
			c->share = true;
		else if (hwbpi_scn_tok_is(t, i, "scope=user"))
			c->scope = HWBP_SCOPE_USER;
		else if (hwbpi_scn_tok_is(t, i, "scope=kernel"))
			c->scope = HWBP_SCOPE_KERNEL;
		else if (hwbpi_scn_tok_is(t, i, "scope=both"))
			c->scope = HWBP_SCOPE_BOTH;
		else
			return hwbpi_scn_error(lx, t->p[i], "unknown watch option '%.*s' (scope=user|kernel|both, widen, share)",
					       (int)t->len[i], t->p[i]);
	}
	return 0;
}

/* watch NAME ADDR LEN TYPE [options].  A name may be reused after
 * unwatch: whether it is live is checked at run time. */
static int parse_watch(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
		       const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
		       struct hwbp_sim *probe)
{
	int ret;

	(void)p, (void)probe;
	c->kind = C_WATCH;
	if (t->n < 5)
		return hwbpi_scn_error(lx, t->p[0], "'watch' takes NAME ADDR LEN TYPE [scope=user|kernel|both] [widen] [share]");
	ret = hwbpi_scn_tok_copy(lx, t, 1, c->name, HWBPI_SCN_NAME_LEN);
	if (ret)
		return ret;
	if (hwbpi_scn_is_slot_name(c->name))
		return hwbpi_scn_error(lx, t->p[1], "'%s' is a slot name; choose another request name", c->name);
	ret = hwbpi_scn_addr(lx, t->p[2], t->len[2], &c->a, "address");
	if (ret)
		return ret;
	c->abase = lx->base;
	if (hwbp_parse_u64n(t->p[3], t->len[3], &c->b))
		return hwbpi_scn_error(lx, t->p[3], "bad length '%.*s': expected a number of bytes",
				       (int)t->len[3], t->p[3]);
	if (parse_watch_type(t->p[4], t->len[4], &c->type))
		return hwbpi_scn_error(lx, t->p[4], "bad type '%.*s': expected r, w, rw or x",
				       (int)t->len[4], t->p[4]);
	return parse_watch_options(lx, t, c);
}

/* unwatch NAME */
static int parse_unwatch(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
			 const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
			 struct hwbp_sim *probe)
{
	(void)p, (void)probe;
	c->kind = C_UNWATCH;
	if (t->n != 2)
		return hwbpi_scn_error(lx, t->p[0], "'unwatch' takes NAME");
	return hwbpi_scn_tok_copy(lx, t, 1, c->name, HWBPI_SCN_NAME_LEN);
}

/* One KEY=VALUE of mode: cpu=N (the runner's) or a key of this CPU. */
static int parse_mode_pair(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
			   const struct hwbpi_scn_tokens *t, unsigned i, struct hwbpi_scn_cmd *c,
			   struct hwbp_sim *probe)
{
	const char *eq = memchr(t->p[i], '=', t->len[i]);
	char *key = c->mkey[c->nmode];
	uint64_t *val = &c->mval[c->nmode];
	unsigned kl;
	int r;

	if (!eq || eq == t->p[i])
		return hwbpi_scn_error(lx, t->p[i], "expected KEY=VALUE");
	kl = (unsigned)(eq - t->p[i]);
	if (kl >= sizeof(c->mkey[0]))
		return hwbpi_scn_error(lx, t->p[i], "unknown mode key");
	memcpy(key, t->p[i], kl);
	key[kl] = '\0';
	if (hwbp_parse_u64n(eq + 1, t->len[i] - kl - 1, val))
		return hwbpi_scn_error(lx, eq + 1, "bad mode value: expected a number");
	if (strcmp(key, "cpu") == 0) {
		if (*val >= HWBP_SIM_MAX_CPUS)
			return hwbpi_scn_error(lx, eq + 1, "cpu=%" PRIu64 ": at most %d CPUs", *val,
					       HWBP_SIM_MAX_CPUS);
		return 0;
	}
	r = hwbp_sim_mode(probe, 0, key, *val);
	if (r == -ENOENT)
		return hwbpi_scn_error(lx, t->p[i], "unknown mode key '%s' for %s", key, p->cpu.name);
	if (r)
		return hwbpi_scn_error(lx, eq + 1, "bad value for mode %s", key);
	return 0;
}

/* mode KEY=VALUE... (1 to 4 pairs) */
static int parse_mode(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
		      const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
		      struct hwbp_sim *probe)
{
	c->kind = C_MODE;
	if (t->n < 2 || t->n > 1 + HWBPI_SCN_MAX_MODE)
		return hwbpi_scn_error(lx, t->p[0], "'mode' takes 1 to 4 KEY=VALUE pairs");
	for (unsigned i = 1; i < t->n; i++) {
		int ret = parse_mode_pair(lx, p, t, i, c, probe);

		if (ret)
			return ret;
		c->nmode++;
	}
	return 0;
}

/* read ADDR SIZE, write ADDR SIZE, io PORT SIZE */
static int parse_sized(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
		       const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
		       struct hwbp_sim *probe)
{
	int ret;

	(void)probe;
	c->kind = hwbpi_scn_tok_is(t, 0, "read") ? C_READ : hwbpi_scn_tok_is(t, 0, "write") ? C_WRITE : C_IO;
	if (t->n != 3)
		return hwbpi_scn_error(lx, t->p[0], "'%.*s' takes ADDR SIZE", (int)t->len[0], t->p[0]);
	if (c->kind == C_IO && !model_of(p)->io_ports)
		return hwbpi_scn_error(lx, t->p[0], "'io' is x86 port I/O; %s has none", p->cpu.name);
	ret = hwbpi_scn_addr(lx, t->p[1], t->len[1], &c->a, c->kind == C_IO ? "port" : "address");
	if (ret)
		return ret;
	c->abase = lx->base;
	if (hwbp_parse_u64n(t->p[2], t->len[2], &c->b) || c->b < 1 || c->b > 64)
		return hwbpi_scn_error(lx, t->p[2], "bad size '%.*s': expected 1..64 bytes",
				       (int)t->len[2], t->p[2]);
	if (c->kind == C_IO && (c->a > 0xffff || (c->b != 1 && c->b != 2 && c->b != 4)))
		return hwbpi_scn_error(lx, t->p[1], "io takes a port 0..0xffff and size 1, 2 or 4");
	return 0;
}

/* exec ADDR, zero ADDR */
static int parse_at(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
		    const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
		    struct hwbp_sim *probe)
{
	int ret;

	(void)probe;
	c->kind = hwbpi_scn_tok_is(t, 0, "exec") ? C_EXEC : C_ZERO;
	if (t->n != 2)
		return hwbpi_scn_error(lx, t->p[0], "'%.*s' takes ADDR", (int)t->len[0], t->p[0]);
	if (c->kind == C_ZERO && !model_of(p)->zero_block)
		return hwbpi_scn_error(lx, t->p[0], "'zero' is arm64 DC ZVA / powerpc dcbz; %s has none",
				       hwbp_arch_name(p->cpu.arch));
	ret = hwbpi_scn_addr(lx, t->p[1], t->len[1], &c->a, "address");
	c->abase = lx->base;
	return ret;
}

static int parse_resume(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
			const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
			struct hwbp_sim *probe)
{
	(void)p, (void)probe;
	c->kind = C_RESUME;
	if (t->n != 1)
		return hwbpi_scn_error(lx, t->p[1], "'resume' takes nothing");
	return 0;
}

/* decoder on|off: whether the handler knows the access (the runner's
 * decoding, "How the runner decodes" in scenarios.md). */
static int parse_decoder(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
			 const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
			 struct hwbp_sim *probe)
{
	(void)p, (void)probe;
	c->kind = C_DECODER;
	if (t->n != 2 || !(hwbpi_scn_tok_is(t, 1, "on") || hwbpi_scn_tok_is(t, 1, "off")))
		return hwbpi_scn_error(lx, t->p[0], "'decoder' takes on or off");
	c->a = hwbpi_scn_tok_is(t, 1, "on");
	return 0;
}

/* step on|off: the arch's single-step flags, as a debugger sets them (a
 * `set` of the models' "step"). */
static int parse_step(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
		      const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
		      struct hwbp_sim *probe)
{
	(void)p, (void)probe;
	c->kind = C_SET;
	if (t->n != 2 || !(hwbpi_scn_tok_is(t, 1, "on") || hwbpi_scn_tok_is(t, 1, "off")))
		return hwbpi_scn_error(lx, t->p[0], "'step' takes on or off");
	snprintf(c->name, sizeof(c->name), "step");
	c->a = hwbpi_scn_tok_is(t, 1, "on");
	return 0;
}

/* get REG: the instruction that reads a debug register. */
static int parse_get(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
		     const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
		     struct hwbp_sim *probe)
{
	struct hwbp_sim_result res;
	int ret;

	c->kind = C_GET;
	if (t->n != 2)
		return hwbpi_scn_error(lx, t->p[0], "'get' takes REG");
	ret = hwbpi_scn_tok_copy(lx, t, 1, c->name, HWBPI_SCN_NAME_LEN);
	if (ret)
		return ret;
	/* The probe is scratch: what the read does to it does not matter. */
	if (hwbp_sim_get_insn(probe, 0, c->name, &res) == -ENOENT)
		return hwbpi_scn_error(lx, t->p[1], "no instruction reads '%s' on %s", c->name,
				       p->cpu.name);
	return 0;
}

/* The instructions with no operand or an optional one: the arch's
 * breakpoint instruction (int3; brk [IMM]; trap), icebp, sti, movss [ADDR]. */
static int parse_insn(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_parser *p,
		      const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c,
		      struct hwbp_sim *probe)
{
	const struct hwbpi_sim_model *m = model_of(p);
	int ret;

	(void)probe;
	c->kind = C_INSN;
	if (hwbpi_scn_tok_is(t, 0, m->swbp ? m->swbp : "")) {
		c->type = HWBP_SIM_SWBP;
	} else if (m->shadows && hwbpi_scn_tok_is(t, 0, "icebp")) {
		c->type = HWBP_SIM_ICEBP;
	} else if (m->shadows && hwbpi_scn_tok_is(t, 0, "sti")) {
		c->type = HWBP_SIM_STI;
	} else if (m->shadows && hwbpi_scn_tok_is(t, 0, "movss")) {
		c->type = HWBP_SIM_MOVSS;
	} else {
		return hwbpi_scn_error(lx, t->p[0], "'%.*s' is not an instruction of %s%s%s",
				       (int)t->len[0], t->p[0], hwbp_arch_name(p->cpu.arch),
				       m->swbp ? ": its breakpoint instruction is " : "",
				       m->swbp ? m->swbp : "");
	}
	if (t->n == 1)
		return 0;
	if (t->n == 2 && c->type == HWBP_SIM_MOVSS) {
		/* MOV SS from memory: a 2-byte load. */
		ret = hwbpi_scn_addr(lx, t->p[1], t->len[1], &c->a, "address");
		c->abase = lx->base;
		c->b = 2;
		return ret;
	}
	if (t->n == 2 && c->type == HWBP_SIM_SWBP && hwbpi_scn_tok_is(t, 0, "brk")) {
		if (hwbp_parse_u64n(t->p[1], t->len[1], &c->b) || c->b > 0xffff)
			return hwbpi_scn_error(lx, t->p[1], "bad immediate: brk takes 0..0xffff");
		return 0;
	}
	return hwbpi_scn_error(lx, t->p[1], "'%.*s' takes %s", (int)t->len[0], t->p[0],
			       c->type == HWBP_SIM_MOVSS ? "nothing or ADDR" :
			       hwbpi_scn_tok_is(t, 0, "brk") ? "nothing or IMM" : "nothing");
}

static const struct {
	const char *word;
	parse_fn *parse;
} commands[] = {
	{ "cpu", parse_cpu_again }, { "set", parse_set }, { "watch", parse_watch },
	{ "unwatch", parse_unwatch }, { "mode", parse_mode }, { "read", parse_sized },
	{ "write", parse_sized }, { "io", parse_sized }, { "exec", parse_at },
	{ "zero", parse_at }, { "resume", parse_resume }, { "decoder", parse_decoder },
	{ "step", parse_step }, { "get", parse_get }, { "int3", parse_insn },
	{ "icebp", parse_insn }, { "brk", parse_insn }, { "trap", parse_insn },
	{ "sti", parse_insn }, { "movss", parse_insn },
};

/* The first line: cpu PRESET. */
static int parse_first(struct hwbpi_scn_lexer *lx, struct hwbpi_scn_parser *p,
		       const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c)
{
	int ret;

	if (!hwbpi_scn_tok_is(t, 0, "cpu"))
		return hwbpi_scn_error(lx, t->p[0], "the first line must be 'cpu PRESET'");
	if (t->n != 2)
		return hwbpi_scn_error(lx, t->p[0], "'cpu' takes one preset name");
	c->kind = C_CPU;
	ret = hwbpi_scn_tok_copy(lx, t, 1, c->name, HWBPI_SCN_NAME_LEN);
	if (ret)
		return ret;
	if (hwbp_cpu_preset(c->name, &p->cpu))
		return hwbpi_scn_error(lx, t->p[1], "unknown cpu '%s' (see 'hwbp caps --list')", c->name);
	p->have_cpu = true;
	return 0;
}

static bool is_expect(const struct hwbpi_scn_tokens *t)
{
	return t->len[0] >= 6 && memcmp(t->p[0], "expect", 6) == 0;
}

/* A command line into @c (which names its line). */
static int parse_command(struct hwbpi_scn_parser *p, const struct hwbpi_scn_tokens *t,
			 struct hwbpi_scn_cmd *c)
{
	struct hwbpi_scn_lexer *lx = &p->lx;

	if (!p->have_cpu)
		return parse_first(lx, p, t, c);
	if (is_expect(t))
		return hwbpi_scn_parse_expect(lx, p->prev, t, c);
	for (unsigned i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (hwbpi_scn_tok_is(t, 0, commands[i].word))
			return commands[i].parse(lx, p, t, c, p->probe);
	return hwbpi_scn_error(lx, t->p[0], "unknown command '%.*s'", (int)t->len[0], t->p[0]);
}

/* The next line's words (none for a blank or comment line): 1, 0 at the
 * end, or an error (the line is too long, holds a NUL byte, a stray
 * character, or could not be read). */
static int next_words(struct hwbpi_scn_parser *p, struct hwbpi_scn_tokens *t)
{
	struct hwbpi_scn_lexer *lx = &p->lx;
	const char *s, *nul;
	size_t l;
	int ret = hwbpi_scn_src_line(p->src, &s, &l);

	if (ret <= 0)
		return ret;
	lx->line++;
	lx->start = s;
	nul = memchr(s, '\0', l);
	if (nul)
		return hwbpi_scn_error(lx, nul, "NUL byte in a scenario file");
	if (l > HWBP_SCENARIO_LINE_MAX) {
		hwbpi_scn_error(lx, s + HWBP_SCENARIO_LINE_MAX, "line longer than %d bytes",
				HWBP_SCENARIO_LINE_MAX);
		return -EOVERFLOW;
	}
	ret = hwbpi_scn_tokenize(lx, s, l, t);
	return ret ? ret : 1;
}

/* After the `cpu` line: the scratch simulator that parse_set() and
 * parse_mode_pair() ask. */
static int make_probe(struct hwbpi_scn_parser *p)
{
	int ret = 0;

	p->probe = hwbp_sim_new(&p->cpu, HWBP_SIM_SDM, 1, &ret);
	if (!p->probe)
		return hwbpi_scn_error(&p->lx, p->lx.start, "cannot create a simulator: %s",
				       hwbp_errno_name(ret));
	return 0;
}

int hwbpi_scn_next(struct hwbpi_scn_parser *p, struct hwbpi_scn_cmd *c)
{
	struct hwbpi_scn_tokens t;
	int ret;

	if (p->err)
		return p->err;
	do
		ret = next_words(p, &t);
	while (ret == 1 && t.n == 0);
	if (ret <= 0)
		return ret;
	memset(c, 0, sizeof(*c));
	c->line = p->lx.line;
	ret = parse_command(p, &t, c);
	if (ret == 0 && !p->probe)
		ret = make_probe(p);
	if (ret)
		return ret;
	if (c->kind != C_EXPECT)
		p->prev = c->kind;
	return 1;
}

bool hwbpi_scn_error_follows(struct hwbpi_scn_parser *p, int profile)
{
	off_t pos = hwbpi_scn_src_tell(p->src);
	unsigned line = p->lx.line;
	struct hwbpi_scn_tokens t;
	struct hwbpi_scn_cmd e;
	bool yes = false;
	int ret = 0;

	/* Only expect lines are parsed: the command after them is parsed
	 * once, by hwbpi_scn_next(), since parsing `mode` sets the probe. */
	while (!yes && (ret = next_words(p, &t)) == 1) {
		if (t.n == 0)
			continue;
		if (!is_expect(&t))
			break;
		memset(&e, 0, sizeof(e));
		ret = hwbpi_scn_parse_expect(&p->lx, p->prev, &t, &e);
		if (ret)
			break;
		yes = e.ek == E_ERROR && (e.profile < 0 || e.profile == profile);
	}
	if (ret < 0)
		p->err = ret;
	else if ((ret = hwbpi_scn_src_seek(p->src, pos)))
		p->err = ret;
	p->lx.line = line;
	return yes;
}

/* Back to the state before the first line. */
static void reset(struct hwbpi_scn_parser *p)
{
	hwbp_sim_free(p->probe);
	p->probe = NULL;
	p->have_cpu = false;
	p->prev = C_CPU;
	p->lx.line = 0;
}

/* The first pass: every line parsed, only the last command's kind kept. */
static int first_pass(struct hwbpi_scn_parser *p)
{
	struct hwbpi_scn_cmd c;
	int ret;

	while ((ret = hwbpi_scn_next(p, &c)) == 1)
		;
	if (ret == 0 && !p->have_cpu) {
		p->lx.line = p->lx.line ? p->lx.line : 1;
		p->lx.start = "";
		ret = hwbpi_scn_error(&p->lx, p->lx.start, "empty scenario: the first line must be 'cpu PRESET'");
	}
	return ret;
}

int hwbpi_scn_open(struct hwbpi_scn_parser *p, const char *file, struct hwbpi_scn_src *src,
		   char *errbuf, size_t errlen)
{
	int ret;

	memset(p, 0, sizeof(*p));
	if (!file || !src)
		return -EINVAL;
	if (!errbuf || errlen == 0) {
		errbuf = p->dummy;
		errlen = sizeof(p->dummy);
	}
	errbuf[0] = '\0';
	p->lx = (struct hwbpi_scn_lexer){ file, 0, NULL, errbuf, errlen, 0 };
	p->src = src;
	p->prev = C_CPU;
	ret = first_pass(p);
	reset(p);
	if (ret == 0)
		ret = hwbpi_scn_src_rewind(src);
	return ret;
}

void hwbpi_scn_close(struct hwbpi_scn_parser *p)
{
	reset(p);
}
