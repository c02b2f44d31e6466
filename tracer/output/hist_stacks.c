/* SPDX-License-Identifier: MIT */
/*
 * The histogram with --stack, printed (stacks.h): the table whose Function
 * column is "bump <- work <- main", and the folded stacks flame graphs are
 * drawn from.  Not on the hit path: names are made here, once per entry.
 *
 * Rows are by names, not by addresses: the hit path keys a stack by its
 * callers' return addresses (all it can afford), so a function calling
 * bump from two places makes two stacks that read the same.  The table
 * answers in functions, so such entries are one row; their counts add up
 * exactly, since each hit is in one entry.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/shorten.h"
#include "output/output_int.h"

#define ARROW " <- "

struct srow {
	uint64_t count;
	unsigned bp, kind;
	unsigned nframes;
	char *names;         /* nframes full names, innermost first, each NUL-ended */
	size_t len;          /* bytes of names */
	char *shown;         /* the table's column (print only) */
};

static int names_cmp(const struct srow *a, const struct srow *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->names, b->names, n);

	return c ? c : a->len < b->len ? -1 : a->len > b->len;
}

/* Merge order: breakpoint, names, kind (a function's rows stay together,
 * see the summary in print). */
static int merge_cmp(const void *pa, const void *pb)
{
	const struct srow *a = pa, *b = pb;
	int c;

	if (a->bp != b->bp)
		return a->bp < b->bp ? -1 : 1;
	if ((c = names_cmp(a, b)))
		return c;
	return a->kind < b->kind ? -1 : a->kind > b->kind;
}

/* Print order: most hits first, then breakpoint, names and kind, a total
 * order (as hist.c's rows). */
static int print_cmp(const void *pa, const void *pb)
{
	const struct srow *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return merge_cmp(pa, pb);
}

static void free_rows(struct srow *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		free(rows[i].names);
		free(rows[i].shown);
	}
	free(rows);
}

/* Row @r's names from stack @id (an id the table never gave, which only a
 * histogram filled by other means could hold, is the unknown "?"). */
static int name_row(struct srow *r, const struct hwbpi_stacks *st, uint32_t id,
		    const struct hwbp_symtab *syms, struct hwbpi_demangler *dm)
{
	static const uint64_t none[1] = { 0 };
	const uint64_t *f = none;
	unsigned n = hwbpi_stacks_get(st, id, &f);
	char buf[4200];
	size_t len = 0;

	if (n == 0) {
		f = none;
		n = 1;
	}
	for (unsigned k = 0; k < n; k++)
		len += strlen(hwbpi_stacks_frame_name(syms, dm, f, k, false, buf, sizeof(buf))) + 1;
	if (!(r->names = malloc(len)))
		return -ENOMEM;
	r->len = 0;
	for (unsigned k = 0; k < n; k++) {
		const char *s = hwbpi_stacks_frame_name(syms, dm, f, k, false, buf, sizeof(buf));
		size_t l = strlen(s) + 1;

		memcpy(r->names + r->len, s, l);
		r->len += l;
	}
	r->nframes = n;
	return 0;
}

/* The rows of @h, merged by (breakpoint, names, kind), in merge order. */
static int make_rows(const struct hwbp_hist *h, const struct hwbp_symtab *syms,
		     const struct hwbpi_stacks *st, unsigned flags, struct srow **out, size_t *nout)
{
	struct hwbpi_demangler *dm = NULL;
	struct srow *rows;
	size_t n = 0, k = 0;
	int ret = 0;

	for (unsigned bp = 0; bp < h->nbp; bp++)
		n += h->used[bp];
	if ((flags & HWBP_HIST_DEMANGLE) && !(dm = hwbpi_demangler_new(NULL)))
		return -ENOMEM;
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows) {
		hwbpi_demangler_free(dm);
		return -ENOMEM;
	}
	for (unsigned bp = 0; ret == 0 && bp < h->nbp; bp++)
		for (unsigned i = 0; ret == 0 && i < h->used[bp]; i++) {
			const struct hwbp_hist_entry *e = h->e + (size_t)bp * h->n + i;

			rows[k].count = e->count;
			rows[k].bp = bp;
			rows[k].kind = e->kind;
			ret = name_row(&rows[k++], st, (uint32_t)e->func, syms, dm);
		}
	hwbpi_demangler_free(dm);
	if (ret) {
		free_rows(rows, k);
		return ret;
	}
	qsort(rows, n, sizeof(*rows), merge_cmp);
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && merge_cmp(&rows[k - 1], &rows[i]) == 0) {
			rows[k - 1].count += rows[i].count;
			free(rows[i].names);
			continue;
		}
		rows[k++] = rows[i];
	}
	*out = rows;
	*nout = k;
	return 0;
}

/* The Function column of @r: its names joined by " <- ", each shortened
 * as the plain table shortens a name unless @wide.  NULL: -ENOMEM. */
static char *shown(const struct srow *r, bool wide)
{
	char sbuf[HWBPI_HIST_NAME_BUF], *s;
	size_t len = 0;
	const char *p = r->names;

	s = malloc(r->nframes * (sizeof(ARROW) + (wide ? 0 : sizeof(sbuf))) + r->len + 1);
	if (!s)
		return NULL;
	for (unsigned k = 0; k < r->nframes; k++, p += strlen(p) + 1) {
		const char *name = p;
		size_t l;

		if (!wide) {
			/* -ENOSPC only for a name that is not UTF-8: still cut at
			 * a character boundary, NUL-terminated */
			hwbpi_name_shorten(p, sbuf, sizeof(sbuf), HWBPI_HIST_NAME_WIDTH);
			name = sbuf;
		}
		if (k) {
			memcpy(s + len, ARROW, sizeof(ARROW) - 1);
			len += sizeof(ARROW) - 1;
		}
		l = strlen(name);
		memcpy(s + len, name, l);
		len += l;
	}
	s[len] = '\0';
	return s;
}

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* Per breakpoint: distinct stacks (by names; a stack read and written is
 * two rows) and distinct functions hit (frame 0), from the rows in merge
 * order, where both are runs. */
static void summary(const struct srow *rows, size_t n, const struct hwbp_hist *h,
		    const char *const *names, FILE *out)
{
	char nbuf[16];
	size_t i = 0;

	for (unsigned bp = 0; bp < h->nbp; bp++) {
		unsigned stacks = 0, funcs = 0;

		for (const struct srow *prev = NULL; i < n && rows[i].bp == bp; prev = &rows[i++]) {
			stacks += !prev || names_cmp(prev, &rows[i]) != 0;
			funcs += !prev || strcmp(prev->names, rows[i].names) != 0;
		}
		fprintf(out, "%s: %u stacks of %u functions, overrun %" PRIu64 "\n",
			hwbpi_hist_bp_name(names, bp, nbuf), stacks, funcs, h->overrun[bp]);
	}
}

int hwbpi_hist_print_stacks(const struct hwbp_hist *h, const char *const *names,
			    const struct hwbp_symtab *syms, const struct hwbpi_stacks *st,
			    unsigned flags, FILE *out)
{
	size_t n = 0, wsym = 6, wfn = 8, wcnt = 7;
	char nbuf[16], kbuf[4], cbuf[24];
	struct srow *rows = NULL, *sorted;
	int ret;

	if (!h || !h->e || !names || !st || !out ||
	    (flags & ~(HWBP_HIST_DEMANGLE | HWBP_HIST_WIDE)))
		return -EINVAL;
	if ((ret = make_rows(h, syms, st, flags, &rows, &n)))
		return ret;
	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	for (size_t i = 0; sorted && i < n; i++)
		if (!(rows[i].shown = shown(&rows[i], flags & HWBP_HIST_WIDE)))
			break;
	if (!sorted || (n && !rows[n - 1].shown)) {
		free(sorted);
		free_rows(rows, n);
		return -ENOMEM;
	}
	for (unsigned bp = 0; bp < h->nbp; bp++)
		wsym = max_sz(wsym, strlen(hwbpi_hist_bp_name(names, bp, nbuf)));
	for (size_t i = 0; i < n; i++) {
		wfn = max_sz(wfn, strlen(rows[i].shown));
		wcnt = max_sz(wcnt, (size_t)snprintf(cbuf, sizeof(cbuf), "%" PRIu64, rows[i].count));
	}
	memcpy(sorted, rows, n * sizeof(*rows));
	qsort(sorted, n, sizeof(*sorted), print_cmp);
	/* the layout of hwbp_hist_print_flags, column for column */
	fprintf(out, "%-13s%-*s%-*s%*s\n", "Access_Type", (int)max_sz(10, wsym + 2), "Symbol",
		(int)max_sz(16, wfn + 2), "Function", (int)wcnt, "Counter");
	for (size_t i = 0; i < n; i++) {
		hwbpi_hist_kind_str(sorted[i].kind, kbuf);
		fprintf(out, "%-13s%-*s%-*s%*" PRIu64 "\n", kbuf, (int)max_sz(10, wsym + 2),
			hwbpi_hist_bp_name(names, sorted[i].bp, nbuf), (int)max_sz(16, wfn + 2),
			sorted[i].shown, (int)wcnt, sorted[i].count);
	}
	summary(rows, n, h, names, out);
	free(sorted);
	free_rows(rows, n);
	return ferror(out) ? -EIO : 0;
}

/* A frame of a folded line: ';' separates frames and the last space the
 * count (a space inside a name is fine: "f(int, char)"), and a line is
 * one stack, so ';' becomes ':' and control characters '?'. */
static void put_frame(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

int hwbpi_hist_write_folded(const struct hwbp_hist *h, const char *const *names,
			    const struct hwbp_symtab *syms, const struct hwbpi_stacks *st,
			    unsigned flags, FILE *out)
{
	struct srow *rows = NULL;
	char nbuf[16], kbuf[4];
	size_t n = 0;
	int ret;

	if (!h || !h->e || !names || !st || !out ||
	    (flags & ~(HWBP_HIST_DEMANGLE | HWBP_HIST_WIDE)))
		return -EINVAL;
	if ((ret = make_rows(h, syms, st, flags, &rows, &n)))
		return ret;
	qsort(rows, n, sizeof(*rows), print_cmp);
	for (size_t i = 0; i < n; i++) {
		const char *f[HWBPI_STACK_MAX_FRAMES];
		const char *p = rows[i].names;
		unsigned k;

		for (k = 0; k < rows[i].nframes && k < HWBPI_STACK_MAX_FRAMES; k++, p += strlen(p) + 1)
			f[k] = p;
		/* the root: which watch, which kind ("jiffies [W]") */
		hwbpi_hist_kind_str(rows[i].kind, kbuf);
		put_frame(out, hwbpi_hist_bp_name(names, rows[i].bp, nbuf));
		fprintf(out, " [%s]", kbuf);
		while (k--) {
			fputc(';', out);
			put_frame(out, f[k]);
		}
		fprintf(out, " %" PRIu64 "\n", rows[i].count);
	}
	free_rows(rows, n);
	return ferror(out) ? -EIO : 0;
}
