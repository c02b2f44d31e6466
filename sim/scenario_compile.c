/* SPDX-License-Identifier: MIT */
/*
 * The scenario compiler: a file's commands (not its expectations), one
 * line at a time as the parser's second pass gives them, as rows of the C
 * table the bare-metal harnesses replay (their `struct hop`, one row per
 * command and one per mode pair), so that they run the very file the
 * simulator runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "scenario.h"


/* A value as the file wrote it: B+OFF and C+OFF stay arena-relative,
 * so the harness can place its arenas where it likes; numbers stay
 * numbers (a DR7 value is not an address, whatever it looks like). */
static const char *base_of(int abase, uint64_t v, uint64_t *off)
{
	if (abase == 'B') {
		*off = v - HWBPI_SCN_ARENA_B;
		return "HB_B";
	}
	if (abase == 'C') {
		*off = v - HWBPI_SCN_ARENA_C;
		return "HB_C";
	}
	*off = v;
	return "HB_ABS";
}

static const char *const hop_names[C_EXPECT + 1] = {
	[C_SET] = "HOP_SET", [C_WATCH] = "HOP_WATCH", [C_UNWATCH] = "HOP_UNWATCH",
	[C_MODE] = "HOP_MODE", [C_READ] = "HOP_READ", [C_WRITE] = "HOP_WRITE",
	[C_EXEC] = "HOP_EXEC", [C_IO] = "HOP_IO", [C_ZERO] = "HOP_ZERO",
	[C_RESUME] = "HOP_RESUME", [C_INSN] = "HOP_INSN", [C_GET] = "HOP_GET",
};

/* @s as a C string literal, or 0 for NULL. */
static void c_string(FILE *out, const char *s)
{
	if (!s) {
		fputs("0", out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* The fields of one row, in the order of struct hop. */
struct row {
	const char *kind;
	int abase;
	uint64_t a, b;
	unsigned line;
	const char *name, *name2;
	unsigned type, scope;
	unsigned flags;   /* watch: 1 widen, 2 share (hops.h) */
};

static void hop(FILE *out, const struct row *h)
{
	uint64_t off;
	const char *base = base_of(h->abase, h->a, &off);

	fprintf(out, "\t{ %s, %s, %u, %u, %u, { 0 }, %u, 0x%" PRIx64 "ull, 0x%" PRIx64 "ull, ",
		h->kind, base, h->type, h->scope, h->flags, h->line, off, h->b);
	c_string(out, h->name);
	fputs(", ", out);
	c_string(out, h->name2);
	fputs(" },\n", out);
}

/* The rows of command @c of @file. */
static void compile_cmd(FILE *out, const char *file, const struct hwbpi_scn_cmd *c)
{
	struct row h = { hop_names[c->kind], c->abase, c->a, c->b, c->line, NULL, NULL, 0, 0, 0 };

	switch (c->kind) {
	case C_CPU:
		h = (struct row){ "HOP_FILE", 0, 0, 0, c->line, file, c->name, 0, 0, 0 };
		break;
	case C_EXPECT:
	case C_DECODER:   /* the harnesses report slots, not requests */
		return;
	case C_MODE:
		for (unsigned k = 0; k < c->nmode; k++) {
			h = (struct row){ "HOP_MODE", 0, c->mval[k], 0, c->line, c->mkey[k], NULL,
					  0, 0, 0 };
			hop(out, &h);
		}
		return;
	case C_WATCH:
		h.name = c->name;
		h.type = c->type;
		h.scope = (unsigned)c->scope;
		h.flags = (c->widen ? 1u : 0u) | (c->share ? 2u : 0u);
		break;
	case C_SET:
	case C_UNWATCH:
	case C_GET:
		h.b = 0;
		h.name = c->name;
		break;
	case C_INSN:
		h.type = c->type;   /* the enum hwbp_sim_op */
		break;
	default:
		break;
	}
	hop(out, &h);
}

/* Both passes over @src: parse all, then a row (or rows) per command. */
static int compile_src(const char *file, struct hwbpi_scn_src *src, FILE *out, char *errbuf,
		       size_t errlen)
{
	struct hwbpi_scn_parser ps;
	struct hwbpi_scn_cmd c;
	int ret;

	ret = hwbpi_scn_open(&ps, file, src, errbuf, errlen);
	if (ret)
		return ret;
	while ((ret = hwbpi_scn_next(&ps, &c)) == 1)
		compile_cmd(out, file, &c);
	hwbpi_scn_close(&ps);
	return ret;
}

int hwbp_scenario_compile(const char *file, const char *text, size_t len, FILE *out, char *errbuf,
			  size_t errlen)
{
	struct hwbpi_scn_src src;

	if (!out || (!text && len))
		return -EINVAL;
	hwbpi_scn_src_text(&src, text ? text : "", len);
	return compile_src(file, &src, out, errbuf, errlen);
}

int hwbp_scenario_compile_file(const char *file, FILE *in, FILE *out, char *errbuf, size_t errlen)
{
	struct hwbpi_scn_src src;
	int ret;

	if (!in || !out)
		return -EINVAL;
	hwbpi_scn_src_stream(&src, in);
	ret = compile_src(file, &src, out, errbuf, errlen);
	hwbpi_scn_src_free(&src);
	return ret;
}
