/* SPDX-License-Identifier: MIT */
/*
 * --dry-run (output/output.h): what a trace would arm, printed instead of
 * arming it: each watch's bytes, how a C expression was resolved (each
 * step's address, each pointer read) and the core's plan of its pieces
 * for the session's CPU model, as text or as one JSON object (addresses
 * as "0x..." strings, as every hwbp --json).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output/output_int.h"

static void json_str(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void access_str(unsigned type, char out[4])
{
	out[0] = type & HWBP_R ? 'r' : '-';
	out[1] = type & HWBP_W ? 'w' : '-';
	out[2] = type & HWBP_X ? 'x' : '-';
	out[3] = '\0';
}

/* The core's plan of @w on @cpu (the whole pool free). */
static int plan_of(const struct hwbpi_watch *w, const struct hwbp_cpu *cpu, bool kernel,
		   struct hwbp_plan *p)
{
	struct hwbp_request req = {
		.addr = w->addr,
		.len = hwbpi_watch_len(w, cpu),
		.type = w->type,
		.scope = kernel ? HWBP_SCOPE_KERNEL : HWBP_SCOPE_USER,
	};

	/* A thread-local or per-CPU watch's address is an offset: planned
	 * there, which keeps its alignment in the (aligned) block. */
	if (w->tls || w->percpu)
		req.scope = HWBP_SCOPE_BOTH;
	return hwbp_plan(cpu, &req, 0, p);
}

/* An object's watch: where each object's bytes will be, and its release
 * (no address yet: nothing to plan until an object comes). */
static void text_object(FILE *f, const struct hwbpi_watch *w, const char *acc)
{
	const struct hwbpi_objspec *o = &w->obj;

	fprintf(f, "%s:%s  each object: %s of %s() + 0x%" PRIx64 ", %" PRIu64 " byte%s (%s)\n",
		w->name, acc, o->arm.ret ? "the return value" : o->arm.param, o->arm.func, o->off,
		w->len, w->len == 1 ? "" : "s", w->type_name);
	if (o->scope)
		fprintf(f, "  released when the call of %s() returns\n", o->arm.func);
	else
		fprintf(f, "  released as %s() is entered with it as %s\n", o->rel.func, o->rel.param);
	fputs("  plan: as each object is armed\n", f);
}

static void json_object(FILE *f, const struct hwbpi_watch *w, const char *acc)
{
	const struct hwbpi_objspec *o = &w->obj;

	fputs("{\"name\":", f);
	json_str(f, w->name, sizeof(w->name));
	fprintf(f, ",\"access\":\"%s\",\"len\":%" PRIu64 ",\"type\":", acc, w->len);
	json_str(f, w->type_name, sizeof(w->type_name));
	fputs(",\"object\":{\"function\":", f);
	json_str(f, o->arm.func, sizeof(o->arm.func));
	fputs(",\"param\":", f);
	if (o->arm.ret)
		fputs("null", f);
	else
		json_str(f, o->arm.param, sizeof(o->arm.param));
	fprintf(f, ",\"offset\":\"0x%" PRIx64 "\",\"release\":", o->off);
	if (o->scope) {
		fputs("\"scope\"", f);
	} else {
		fputs("{\"function\":", f);
		json_str(f, o->rel.func, sizeof(o->rel.func));
		fputs(",\"param\":", f);
		json_str(f, o->rel.param, sizeof(o->rel.param));
		fputc('}', f);
	}
	fputs("},\"plan\":null}", f);
}

static void text_watch(FILE *f, const struct hwbpi_watch *w, const struct hwbp_plan *p, int pr)
{
	char acc[4];

	access_str(w->type, acc);
	if (w->object) {
		text_object(f, w, acc);
		return;
	}
	fprintf(f, "%s:%s  %s0x%" PRIx64 ", %" PRIu64 " byte%s%s%s%s", w->name, acc,
		w->tls ? "TLS offset " : w->percpu ? "per-CPU offset " : "", w->addr, w->len,
		w->len == 1 ? "" : "s", w->type_name[0] ? " (" : "", w->type_name,
		w->type_name[0] ? ")" : "");
	if (w->bit_width)
		fprintf(f, ", bits %u..%u", w->bit_shift, w->bit_shift + w->bit_width - 1);
	fputc('\n', f);
	for (unsigned i = 0; i < w->nsteps; i++) {
		const struct hwbpi_tstep *st = &w->step[i];

		fprintf(f, "  %.*s", (int)st->len, w->name);
		if (st->read)
			fprintf(f, "  (read 0x%" PRIx64 ")", st->value);
		fprintf(f, "  at 0x%" PRIx64 "\n", st->addr);
	}
	if (pr) {
		fprintf(f, "  plan: %s\n", hwbp_errno_name(pr));
		return;
	}
	fprintf(f, "  plan: %u piece%s%s%s:", p->n, p->n == 1 ? "" : "s",
		p->exact ? "" : " (enlarged)", p->widened ? " (widened)" : "");
	for (unsigned i = 0; i < p->n; i++)
		fprintf(f, " 0x%" PRIx64 "/%" PRIu64 " %s", p->piece[i].addr, p->piece[i].len,
			hwbp_type_name(p->piece[i].type));
	fputc('\n', f);
}

static void json_watch(FILE *f, const struct hwbpi_watch *w, const struct hwbp_plan *p, int pr)
{
	char acc[4];

	access_str(w->type, acc);
	if (w->object) {
		json_object(f, w, acc);
		return;
	}
	fputs("{\"name\":", f);
	json_str(f, w->name, sizeof(w->name));
	fprintf(f, ",\"access\":\"%s\",\"addr\":\"0x%" PRIx64 "\",\"len\":%" PRIu64
		",\"tls\":%s,\"percpu\":%s,\"type\":", acc, w->addr, w->len,
		w->tls ? "true" : "false", w->percpu ? "true" : "false");
	if (w->type_name[0])
		json_str(f, w->type_name, sizeof(w->type_name));
	else
		fputs("null", f);
	if (w->bit_width)
		fprintf(f, ",\"bitfield\":{\"shift\":%u,\"width\":%u}", w->bit_shift, w->bit_width);
	fputs(",\"steps\":[", f);
	for (unsigned i = 0; i < w->nsteps; i++) {
		fputs(i ? ",{\"expr\":" : "{\"expr\":", f);
		json_str(f, w->name, w->step[i].len);
		if (w->step[i].read)
			fprintf(f, ",\"read\":\"0x%" PRIx64 "\"", w->step[i].value);
		fprintf(f, ",\"addr\":\"0x%" PRIx64 "\"}", w->step[i].addr);
	}
	fputs("],\"plan\":", f);
	if (pr) {
		fprintf(f, "{\"error\":\"%s\"}}", hwbp_errno_name(pr));
		return;
	}
	fprintf(f, "{\"exact\":%s,\"widened\":%s,\"pieces\":[", p->exact ? "true" : "false",
		p->widened ? "true" : "false");
	for (unsigned i = 0; i < p->n; i++)
		fprintf(f, "%s{\"addr\":\"0x%" PRIx64 "\",\"len\":%" PRIu64 ",\"type\":\"%s\"}",
			i ? "," : "", p->piece[i].addr, p->piece[i].len,
			hwbp_type_name(p->piece[i].type));
	fputs("]}}", f);
}

int hwbpi_output_dry_run(FILE *f, const struct hwbpi_tracer *t, const struct hwbp_cpu *cpu,
			 bool kernel, bool json)
{
	if (json)
		fprintf(f, "{\"cpu\":\"%s\",\"watches\":[", cpu->name[0] ? cpu->name :
			hwbp_arch_name(cpu->arch));
	for (unsigned i = 0; i < t->nw; i++) {
		struct hwbp_plan p;
		int pr = plan_of(&t->w[i], cpu, kernel, &p);

		if (json) {
			if (i)
				fputc(',', f);
			json_watch(f, &t->w[i], &p, pr);
		} else {
			text_watch(f, &t->w[i], &p, pr);
		}
	}
	if (json)
		fputs("]}\n", f);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
