/* SPDX-License-Identifier: MIT */
/*
 * Printing histograms (<hwbp/hist.h>, output/output.h): the table sorted
 * by count, names shortened to a terminal's width unless asked wide,
 * with an optional column before the count.  Not on the hit path: it
 * may allocate.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hwbp/trace.h>

#include "output/output_int.h"

/* Function names wider than this are shortened in the table (unless
 * HWBP_HIST_WIDE): with the other columns the table then fits a
 * terminal of 100 columns instead of wrapping on every row. */
#define HIST_NAME_WIDTH HWBPI_HIST_NAME_WIDTH
#define HIST_NAME_BUF HWBPI_HIST_NAME_BUF


struct row {
	uint64_t count;
	uint64_t func;
	unsigned bp;
	unsigned kind;
	const char *fname; /* from the symbol table, or NULL */
};

/*
 * Most hits first; ties by breakpoint, then by function: named functions
 * by name, before unnamed ones by address (hex strings of different
 * lengths do not sort like numbers), then by address and kind so that
 * the order is total and the output never depends on qsort's stability.
 */
static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	int c;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->bp != b->bp)
		return a->bp < b->bp ? -1 : 1;
	if (a->fname && b->fname) {
		c = strcmp(a->fname, b->fname);
		if (c)
			return c;
	} else if (a->fname || b->fname) {
		return a->fname ? -1 : 1;
	}
	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return 0;
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

void hwbpi_hist_kind_str(unsigned kind, char buf[4])
{
	size_t k = 0;

	if (kind & HWBP_R)
		buf[k++] = 'R';
	if (kind & HWBP_W)
		buf[k++] = 'W';
	if (kind & HWBP_X)
		buf[k++] = 'X';
	if (k == 0 || (kind & ~(HWBP_R | HWBP_W | HWBP_X))) {
		buf[0] = '?';
		k = 1;
	}
	buf[k] = '\0';
}

/* The function column: its name (shortened into @sbuf unless @wide),
 * else where the IP is ("libfoo.so+0x1234", else 0xADDR: the key of a
 * hit in no function is its IP), else "?" (function 0: not known). */
static void func_str(const struct row *r, const struct hwbp_symtab *syms, bool wide,
		     char buf[HWBPI_SYMTAB_DESCRIBE_MAX], char sbuf[HIST_NAME_BUF], const char **s)
{
	if (r->fname && !wide) {
		/* -ENOSPC only for a name that is not UTF-8: still cut at a
		 * character boundary and NUL-terminated, so shown */
		hwbpi_name_shorten(r->fname, sbuf, HIST_NAME_BUF, HIST_NAME_WIDTH);
		*s = sbuf;
	} else if (r->fname) {
		*s = r->fname;
	} else if (r->func == 0) {
		*s = "?";
	} else {
		*s = hwbpi_symtab_describe(syms, r->func, buf, HWBPI_SYMTAB_DESCRIBE_MAX);
	}
}

const char *hwbpi_hist_bp_name(const char *const *names, unsigned bp, char buf[16])
{
	if (names[bp])
		return names[bp];
	snprintf(buf, 16, "#%u", bp);
	return buf;
}

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

/*
 * Layout: the Access_Type column is 13 wide (header + 2), the Symbol
 * column max(10, longest name + 2), the Function column max(16, longest
 * function + 2), then the Counter right-aligned in max(7, widest count).
 * The minimums reproduce the layout of the example byte for byte;
 * longer names widen their column instead of breaking the alignment.
 * The widths are those of the names as printed: shortened to
 * HIST_NAME_WIDTH columns (hwbpi_name_shorten) unless HWBP_HIST_WIDE.
 */
int hwbp_hist_print(const struct hwbp_hist *h, const char *const *names,
		    const struct hwbp_symtab *syms, FILE *out)
{
	return hwbp_hist_print_flags(h, names, syms, 0, out);
}

int hwbp_hist_print_flags(const struct hwbp_hist *h, const char *const *names,
			  const struct hwbp_symtab *syms, unsigned flags, FILE *out)
{
	return hwbpi_hist_print_col(h, names, syms, flags, NULL, out);
}

/* (output/output.h) The table, with @col's column before the Counter when
 * given: as wide as its widest text + 2 (at least its title's + 2), left-
 * aligned like the others, so that the Counter stays the last column. */
int hwbpi_hist_print_col(const struct hwbp_hist *h, const char *const *names,
			 const struct hwbp_symtab *syms, unsigned flags,
			 const struct hwbpi_hist_column *col, FILE *out)
{
	char tbuf[HWBPI_HIST_COL_BUF] = "";
	size_t wcol = col ? strlen(col->title) : 0;
	struct hwbpi_demangler *dm = NULL;
	struct row *rows;
	uint64_t *funcs;
	size_t nrows = 0, maxused = 0, i, wsym = 6, wfn = 8, wcnt = 7;
	char fbuf[HWBPI_SYMTAB_DESCRIBE_MAX], nbuf[16], kbuf[4], cbuf[24], sbuf[HIST_NAME_BUF];
	bool wide = flags & HWBP_HIST_WIDE;
	const char *fs;
	unsigned bp, k;

	if (!h || !h->e || !names || !out || (flags & ~(HWBP_HIST_DEMANGLE | HWBP_HIST_WIDE)))
		return -EINVAL;
	/* Each function's name is demangled once (a function read and
	 * written is two rows), and rows sort by the name shown. */
	if ((flags & HWBP_HIST_DEMANGLE) && !(dm = hwbpi_demangler_new(NULL)))
		return -ENOMEM;
	for (bp = 0; bp < h->nbp; bp++) {
		nrows += h->used[bp];
		maxused = max_sz(maxused, h->used[bp]);
	}
	rows = malloc((nrows ? nrows : 1) * sizeof(*rows));
	funcs = malloc((maxused ? maxused : 1) * sizeof(*funcs));
	if (!rows || !funcs) {
		free(rows);
		free(funcs);
		hwbpi_demangler_free(dm);
		return -ENOMEM;
	}

	nrows = 0;
	for (bp = 0; bp < h->nbp; bp++) {
		const struct hwbp_hist_entry *e = h->e + (size_t)bp * h->n;

		wsym = max_sz(wsym, strlen(hwbpi_hist_bp_name(names, bp, nbuf)));
		for (k = 0; k < h->used[bp]; k++) {
			struct row *r = &rows[nrows++];
			const struct hwbp_sym *s = syms ? hwbp_symtab_func(syms, e[k].func) : NULL;

			r->count = e[k].count;
			r->func = e[k].func;
			r->bp = bp;
			r->kind = e[k].kind;
			r->fname = s ? hwbpi_demangler_name(dm, s->name) : NULL;
			func_str(r, syms, wide, fbuf, sbuf, &fs);
			wfn = max_sz(wfn, strlen(fs));
			if (col) {
				col->text(col->arg, r->func, tbuf, sizeof(tbuf));
				wcol = max_sz(wcol, strlen(tbuf));
			}
			wcnt = max_sz(wcnt, (size_t)snprintf(cbuf, sizeof(cbuf), "%" PRIu64,
							     r->count));
		}
	}
	qsort(rows, nrows, sizeof(*rows), row_cmp);

	fprintf(out, "%-13s%-*s%-*s", "Access_Type", (int)max_sz(10, wsym + 2), "Symbol",
		(int)max_sz(16, wfn + 2), "Function");
	if (col)
		fprintf(out, "%-*s", (int)wcol + 2, col->title);
	fprintf(out, "%*s\n", (int)wcnt, "Counter");
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		hwbpi_hist_kind_str(r->kind, kbuf);
		func_str(r, syms, wide, fbuf, sbuf, &fs);
		fprintf(out, "%-13s%-*s%-*s", kbuf, (int)max_sz(10, wsym + 2),
			hwbpi_hist_bp_name(names, r->bp, nbuf), (int)max_sz(16, wfn + 2), fs);
		if (col) {
			col->text(col->arg, r->func, tbuf, sizeof(tbuf));
			fprintf(out, "%-*s", (int)wcol + 2, tbuf);
		}
		fprintf(out, "%*" PRIu64 "\n", (int)wcnt, r->count);
	}

	/* Distinct functions per breakpoint: its entries are (function, kind)
	 * pairs, so a function read and written appears twice. */
	for (bp = 0; bp < h->nbp; bp++) {
		const struct hwbp_hist_entry *e = h->e + (size_t)bp * h->n;
		unsigned used = h->used[bp], distinct = 0;

		for (k = 0; k < used; k++)
			funcs[k] = e[k].func;
		qsort(funcs, used, sizeof(*funcs), u64_cmp);
		for (k = 0; k < used; k++)
			distinct += k == 0 || funcs[k] != funcs[k - 1];
		fprintf(out, "%s: %u %s, overrun %" PRIu64 "\n", hwbpi_hist_bp_name(names, bp, nbuf),
			distinct, col ? col->unit : "functions", h->overrun[bp]);
	}
	free(rows);
	free(funcs);
	hwbpi_demangler_free(dm);
	return ferror(out) ? -EIO : 0;
}
