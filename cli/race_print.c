/* SPDX-License-Identifier: MIT */
/*
 * hwbp race's outputs (race_print.h).  Text: a paragraph per race, the
 * sampled access first (the thread that was held), then the one caught:
 *
 *   race 1: caught 12 times on counter (0x55d0c5e4c014, 4 bytes)
 *     write of 4 bytes by thread 4321 in bump+0x12 (racy_global.c:14)
 *     write of 4 bytes by thread 4322 in bump+0x12 (racy_global.c:14)
 *
 * JSON: one object, addresses as "0x..." strings (jq and JavaScript
 * round numbers above 2^53), every count of the summary beside the races.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <hwbp/hwbp.h>
#include <hwbp/trace.h>

#include "cli.h"
#include "race_print.h"
#include "util.h"

static const char *kind_word(unsigned kind)
{
	switch (kind) {
	case HWBP_R: return "read";
	case HWBP_W: return "write";
	case HWBP_R | HWBP_W: return "read-modify-write";
	default: return "access";
	}
}

static const char *kind_letters(unsigned kind)
{
	switch (kind) {
	case HWBP_R: return "R";
	case HWBP_W: return "W";
	case HWBP_R | HWBP_W: return "RW";
	default: return "?";
	}
}

/* JSON strings and "0x..." numbers on @out (common.h's are stdout's). */
static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

static void json_str_or_null(FILE *out, const char *s)
{
	if (s)
		json_str(out, s);
	else
		fprintf(out, "null");
}

static void json_hex(FILE *out, uint64_t v)
{
	fprintf(out, "\"0x%" PRIx64 "\"", v);
}

/* ---- the summary --------------------------------------------------- */

static void summary(const struct hwbp_race_stats *st, unsigned races)
{
	fprintf(stderr, "hwbp: race: %" PRIu64 " of %" PRIu64 " instructions may race (%" PRIu64
		" functions of %u object%s); skipped", st->candidates, st->instructions,
		st->functions, st->objects, st->objects == 1 ? "" : "s");
	for (unsigned i = 0; i < HWBP_RACE_SKIPS; i++)
		fprintf(stderr, "%s %" PRIu64 " %s", i ? "," : "", st->skipped[i],
			hwbp_race_skip_name(i));
	fprintf(stderr, "\nhwbp: race: %" PRIu64 " traps armed, %" PRIu64 " samples (%" PRIu64
		" more taken while one ran, %" PRIu64 " alone), %" PRIu64 " threads, held %.1f ms;"
		" caught %" PRIu64 " conflicts, %" PRIu64 " unseen writes, %" PRIu64 " atomic, %"
		PRIu64 " undecoded; %" PRIu64 " atomic by their types: %u race%s; seed %" PRIu64 "\n",
		st->traps, st->samples, st->passed, st->alone, st->threads, (double)st->held_ns / 1e6,
		st->conflicts, st->unseen, st->atomic, st->undecoded, st->atomic_objects, races,
		races == 1 ? "" : "s", st->seed);
}

/* ---- text ----------------------------------------------------------- */

/* An access's own place, as its callers' are given. */
#define place_of(a) ((struct hwbp_race_frame){ (a)->ip, (a)->func, (a)->func_off, (a)->object, \
					       (a)->file, (a)->line })

/* "func+0x1a (file.c:7) [object]", or the bare address. */
static void text_place(FILE *out, const struct hwbp_race_frame *f)
{
	if (f->func)
		fprintf(out, "%s+0x%" PRIx64, f->func, f->func_off);
	else
		fprintf(out, "0x%" PRIx64, f->ip);
	if (f->file)
		fprintf(out, " (%s:%u)", f->file, f->line);
	if (f->object)
		fprintf(out, " [%s]", f->object);
	fprintf(out, "\n");
}

static void text_side(FILE *out, const struct hwbp_race_access *a)
{
	fprintf(out, "    %s of %" PRIu64 " byte%s by thread %" PRIu32 " in ", kind_word(a->kind),
		a->size, a->size == 1 ? "" : "s", a->tid);
	text_place(out, &place_of(a));
	for (unsigned k = 0; k < a->ncallers; k++) {
		fprintf(out, "      called from ");
		text_place(out, &a->callers[k]);
	}
}

static void text_race(FILE *out, unsigned i, const struct hwbp_race_report *rep)
{
	fprintf(out, "%s %u: caught %" PRIu64 " time%s on ", rep->unseen ? "unseen writer" : "race", i + 1,
	       rep->count, rep->count == 1 ? "" : "s");
	if (rep->expr && !rep->var)
		fprintf(out, "%s in %s", rep->expr, rep->where ? rep->where : "memory");
	else if (rep->expr && strcmp(rep->expr, rep->var) != 0)
		fprintf(out, "%s", rep->expr);
	else if (rep->var && rep->var_off)
		fprintf(out, "%s+0x%" PRIx64, rep->var, rep->var_off);
	else if (rep->var)
		fprintf(out, "%s", rep->var);
	else
		fprintf(out, "%s", rep->where ? rep->where : "memory");
	fprintf(out, " (0x%" PRIx64 ", %" PRIu64 " byte%s)\n", rep->addr, rep->len,
		rep->len == 1 ? "" : "s");
	text_side(out, &rep->a);
	if (rep->unseen)
		fprintf(out, "    value changed by an unseen writer during the delay: 0x%" PRIx64
		       " -> 0x%" PRIx64 "\n", rep->before, rep->after);
	else
		text_side(out, &rep->b);
}

/* ---- JSON ----------------------------------------------------------- */

/* The place fields of an access or a caller ("ip" ... "line"). */
static void json_place(FILE *out, const struct hwbp_race_frame *f)
{
	fprintf(out, "\"ip\": ");
	json_hex(out, f->ip);
	fprintf(out, ", \"function\": ");
	json_str_or_null(out, f->func);
	fprintf(out, ", \"offset\": ");
	json_hex(out, f->func_off);
	fprintf(out, ", \"object\": ");
	json_str_or_null(out, f->object);
	fprintf(out, ", \"file\": ");
	json_str_or_null(out, f->file);
	fprintf(out, ", \"line\": %u", f->line);
}

static void json_side(FILE *out, const struct hwbp_race_access *a)
{
	fprintf(out, "{");
	json_place(out, &place_of(a));
	fprintf(out, ", \"tid\": %" PRIu32 ", \"kind\": ", a->tid);
	json_str(out, kind_letters(a->kind));
	fprintf(out, ", \"address\": ");
	json_hex(out, a->addr);
	fprintf(out, ", \"size\": %" PRIu64 ", \"callers\": [", a->size);
	for (unsigned k = 0; k < a->ncallers; k++) {
		fprintf(out, "%s{", k ? ", " : "");
		json_place(out, &a->callers[k]);
		fprintf(out, "}");
	}
	fprintf(out, "]}");
}

static void json_race(FILE *out, const struct hwbp_race_report *rep)
{
	fprintf(out, "    {\"kind\": \"%s\", \"count\": %" PRIu64 ", \"address\": ",
	       rep->unseen ? "unseen-writer" : "conflict", rep->count);
	json_hex(out, rep->addr);
	fprintf(out, ", \"length\": %" PRIu64 ", \"variable\": ", rep->len);
	json_str_or_null(out, rep->var);
	fprintf(out, ", \"variable_offset\": ");
	json_hex(out, rep->var_off);
	fprintf(out, ", \"expression\": ");
	json_str_or_null(out, rep->expr);
	fprintf(out, ", \"where\": ");
	json_str_or_null(out, rep->where);
	if (rep->unseen) {
		fprintf(out, ", \"before\": ");
		json_hex(out, rep->before);
		fprintf(out, ", \"after\": ");
		json_hex(out, rep->after);
	}
	fprintf(out, ",\n     \"accesses\": [");
	json_side(out, &rep->a);
	if (!rep->unseen) {
		fprintf(out, ",\n                  ");
		json_side(out, &rep->b);
	}
	fprintf(out, "]}");
}

static void json_head(FILE *out, const struct hwbp_race_stats *st, char *const *cmd, const int *status)
{
	fprintf(out, "{\n  \"command\": ");
	if (cmd) {
		fprintf(out, "[");
		for (unsigned i = 0; cmd[i]; i++) {
			fprintf(out, "%s", i ? ", " : "");
			json_str(out, cmd[i]);
		}
		fprintf(out, "]");
	} else {
		fprintf(out, "null");
	}
	fprintf(out, ",\n  \"exit_status\": ");
	if (status && WIFEXITED(*status))
		fprintf(out, "%d", WEXITSTATUS(*status));
	else if (status && WIFSIGNALED(*status))
		fprintf(out, "%d", 128 + WTERMSIG(*status));
	else
		fprintf(out, "null");
	fprintf(out, ",\n  \"seed\": \"%" PRIu64 "\",\n  \"objects\": %u, \"functions\": %" PRIu64
	       ", \"instructions\": %" PRIu64 ", \"candidates\": %" PRIu64 ",\n  \"skipped\": {",
	       st->seed, st->objects, st->functions, st->instructions, st->candidates);
	for (unsigned i = 0; i < HWBP_RACE_SKIPS; i++)
		fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", hwbp_race_skip_name(i), st->skipped[i]);
	fprintf(out, "},\n  \"traps\": %" PRIu64 ", \"samples\": %" PRIu64 ", \"passed\": %" PRIu64
	       ", \"alone\": %" PRIu64 ", \"synced\": %" PRIu64 ", \"threads\": %" PRIu64
	       ", \"held_ms\": %.3f,\n  \"caught\": {\"conflicts\": %" PRIu64 ", \"unseen\": %" PRIu64
	       ", \"atomic\": %" PRIu64 ", \"undecoded\": %" PRIu64 "},\n  \"atomic_by_type\": %"
	       PRIu64 ",\n", st->traps, st->samples, st->passed, st->alone, st->synced, st->threads,
	       (double)st->held_ns / 1e6, st->conflicts, st->unseen, st->atomic, st->undecoded,
	       st->atomic_objects);
}

int race_print(struct hwbp_race *r, FILE *out, const char *what, bool json, char *const *cmd,
	       const int *status)
{
	struct hwbp_race_stats st;
	struct hwbp_race_report rep;
	unsigned n = hwbp_race_count(r);

	hwbp_race_stats(r, &st);
	summary(&st, n);
	if (json) {
		json_head(out, &st, cmd, status);
		fprintf(out, "  \"races\": [");
		for (unsigned i = 0; i < n && hwbp_race_report(r, i, &rep) == 0; i++) {
			fprintf(out, "%s\n", i ? "," : "");
			json_race(out, &rep);
		}
		fprintf(out, "%s]\n}\n", n ? "\n  " : "");
	} else {
		for (unsigned i = 0; i < n && hwbp_race_report(r, i, &rep) == 0; i++)
			text_race(out, i, &rep);
	}
	return cli_close_output(out, what);
}

int race_print_error(FILE *out, const char *what, int err, const char *msg)
{
	fprintf(out, "{\"error\": ");
	json_str(out, hwbp_errno_name(err));
	fprintf(out, ", \"message\": ");
	json_str(out, msg);
	fprintf(out, "}\n");
	return cli_close_output(out, what);
}
