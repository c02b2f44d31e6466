/* SPDX-License-Identifier: MIT */
/*
 * Histograms: init limits, (function, kind) entries, exact overrun
 * accounting, bad breakpoints, and the printed table byte for byte (also
 * with an extra column: hwbpi_hist_print_col).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hwbp/trace.h>

#include "output/output.h"

#define R HWBP_R
#define W HWBP_W
#define X HWBP_X

/* ------------------------------------------------------------------ */
/* init / fini                                                          */
/* ------------------------------------------------------------------ */

static void test_init_errors(void **state)
{
	static const struct {
		unsigned nbp, n;
		int err;
	} cases[] = {
		{ 0, 16, -EINVAL },
		{ 4, 0, -EINVAL },
		{ 0, 0, -EINVAL },
		{ (1u << 24) + 1, 1, -EINVAL },
		{ 1, (1u << 24) + 1, -EINVAL },
		{ 4097, 4096, -EINVAL },          /* 2^24 + 4096 */
		{ 0xffffffffu, 0xffffffffu, -EINVAL }, /* the product must not wrap */
		{ 65536, 65536, -EINVAL },        /* 2^32: wraps to 0 in 32 bits */
		{ 1, 1, 0 },
		{ 4, 16, 0 },
		{ 1u << 12, 1u << 8, 0 },
	};
	size_t i;

	(void)state;
	assert_int_equal(hwbp_hist_init(NULL, 1, 1), -EINVAL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hwbp_hist h, before;
		unsigned b;

		memset(&h, 0x5a, sizeof(h));
		before = h;
		assert_int_equal(hwbp_hist_init(&h, cases[i].nbp, cases[i].n), cases[i].err);
		if (cases[i].err) {
			/* A failed init changes nothing. */
			assert_memory_equal(&h, &before, sizeof(h));
			continue;
		}
		assert_int_equal(h.nbp, cases[i].nbp);
		assert_int_equal(h.n, cases[i].n);
		assert_non_null(h.e);
		for (b = 0; b < h.nbp; b++) {
			assert_int_equal(h.used[b], 0);
			assert_true(h.overrun[b] == 0 && h.hits[b] == 0);
		}
		/* The arrays are usable end to end (ASan/valgrind catch overlap). */
		h.e[(size_t)h.nbp * h.n - 1].count = 1;
		h.used[h.nbp - 1] = 1;
		h.hits[h.nbp - 1] = 1;
		h.overrun[h.nbp - 1] = 1;
		hwbp_hist_fini(&h);
		assert_null(h.e);
		assert_int_equal(h.nbp, 0);
		hwbp_hist_fini(&h); /* twice is harmless */
	}
	hwbp_hist_fini(NULL);
}

/* ------------------------------------------------------------------ */
/* add                                                                  */
/* ------------------------------------------------------------------ */

static const struct hwbp_hist_entry *find(const struct hwbp_hist *h, unsigned bp,
					  uint64_t func, unsigned kind)
{
	unsigned i;

	for (i = 0; i < h->used[bp]; i++) {
		const struct hwbp_hist_entry *e = &h->e[(size_t)bp * h->n + i];

		if (e->func == func && e->kind == kind)
			return e;
	}
	return NULL;
}

/* The same function with different kinds takes separate entries; the same
 * (function, kind) always the same one. */
static void test_kinds_separate(void **state)
{
	static const unsigned kinds[] = { R, W, X, 0, W, R, 0, R };
	struct hwbp_hist h;
	size_t i;

	(void)state;
	assert_int_equal(hwbp_hist_init(&h, 2, 8), 0);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		assert_true(hwbp_hist_add(&h, 1, 0x1000, kinds[i]));
	assert_int_equal(h.used[0], 0);
	assert_int_equal(h.used[1], 4);
	assert_true(find(&h, 1, 0x1000, R)->count == 3);
	assert_true(find(&h, 1, 0x1000, W)->count == 2);
	assert_true(find(&h, 1, 0x1000, X)->count == 1);
	assert_true(find(&h, 1, 0x1000, 0)->count == 2);
	assert_true(h.hits[1] == 8 && h.overrun[1] == 0);
	/* Entries are taken in first-seen order. */
	assert_true(h.e[8].kind == R && h.e[9].kind == W && h.e[10].kind == X &&
		    h.e[11].kind == 0);
	hwbp_hist_fini(&h);
}

/* A bad breakpoint index (or a kind beyond the 8-bit field) is ignored:
 * false, and no counter moves. */
static void test_bad_bp(void **state)
{
	struct hwbp_hist h, zero;
	unsigned b;

	(void)state;
	memset(&zero, 0, sizeof(zero));
	assert_false(hwbp_hist_add(NULL, 0, 1, R));
	assert_false(hwbp_hist_add(&zero, 0, 1, R)); /* never initialised */
	assert_int_equal(hwbp_hist_init(&h, 3, 2), 0);
	assert_false(hwbp_hist_add(&h, 3, 0x1000, R));
	assert_false(hwbp_hist_add(&h, 0xffffffffu, 0x1000, R));
	assert_false(hwbp_hist_add(&h, 0, 0x1000, 0x100));
	for (b = 0; b < 3; b++)
		assert_true(h.used[b] == 0 && h.hits[b] == 0 && h.overrun[b] == 0);
	assert_true(hwbp_hist_add(&h, 2, 0x1000, R));
	assert_true(h.hits[2] == 1 && h.used[2] == 1);
	hwbp_hist_fini(&h);
	assert_false(hwbp_hist_add(&h, 0, 0x1000, R)); /* after fini */
}

/* A small deterministic generator (no rand(): results must not depend on
 * the C library). */
static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

struct overrun_case {
	unsigned n;          /* entries per breakpoint */
	unsigned nfunc;      /* distinct functions hitting */
	unsigned hits[12];   /* hits per function */
	uint32_t seed;       /* interleaving */
};

static const struct overrun_case overrun_cases[] = {
	{ 4, 7, { 5, 1, 7, 3, 9, 2, 4 }, 1 },
	{ 4, 7, { 5, 1, 7, 3, 9, 2, 4 }, 12345 },
	{ 4, 7, { 1, 1, 1, 1, 1, 1, 1 }, 7 },
	{ 4, 4, { 10, 20, 30, 40 }, 3 },             /* exactly full: no overrun */
	{ 1, 5, { 100, 3, 3, 3, 3 }, 99 },
	{ 16, 12, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 }, 42 },
	{ 3, 12, { 50, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 200 }, 2024 },
};

/*
 * The hits of all functions are shuffled and fed to two breakpoints (the
 * second with its own shuffle, to check they do not interfere).  The
 * first n distinct functions to appear own an entry and must count every
 * one of their hits; the overrun is exactly the hits of the others.
 */
static void test_overrun_exact(void **state)
{
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(overrun_cases) / sizeof(overrun_cases[0]); c++) {
		const struct overrun_case *oc = &overrun_cases[c];
		struct hwbp_hist h;
		unsigned seq[2][1024], total = 0, f, i, b, k;

		for (f = 0; f < oc->nfunc; f++)
			for (k = 0; k < oc->hits[f]; k++)
				seq[0][total] = seq[1][total] = f, total++;
		assert_true(total <= 1024);
		for (b = 0; b < 2; b++) {
			uint32_t s = oc->seed + b;

			for (i = total; i > 1; i--) { /* Fisher-Yates */
				unsigned j = lcg(&s) % i, t = seq[b][i - 1];

				seq[b][i - 1] = seq[b][j];
				seq[b][j] = t;
			}
		}
		assert_int_equal(hwbp_hist_init(&h, 2, oc->n), 0);
		for (b = 0; b < 2; b++) {
			unsigned owners = 0, falses = 0;
			uint64_t overrun = 0, sum = 0;
			int owner[12];

			for (i = 0; i < total; i++)
				if (!hwbp_hist_add(&h, b, 0x100000 + seq[b][i] * 0x40, W))
					falses++;
			/* The expected owners, from the order of first appearance. */
			memset(owner, 0, sizeof(owner));
			for (i = 0; i < total; i++) {
				f = seq[b][i];
				if (!owner[f] && owners < oc->n)
					owner[f] = 1, owners++;
			}
			for (f = 0; f < oc->nfunc; f++) {
				const struct hwbp_hist_entry *e =
					find(&h, b, 0x100000 + f * 0x40, W);

				if (owner[f]) {
					assert_non_null(e);
					assert_true(e->count == oc->hits[f]);
				} else {
					assert_null(e);
					overrun += oc->hits[f];
				}
			}
			for (i = 0; i < h.used[b]; i++)
				sum += h.e[(size_t)b * h.n + i].count;
			assert_int_equal(h.used[b], owners);
			assert_true(h.overrun[b] == overrun);
			assert_true(h.hits[b] == total);
			assert_true(sum + h.overrun[b] == h.hits[b]);
			assert_int_equal(falses, overrun); /* false exactly for overrun hits */
		}
		hwbp_hist_fini(&h);
	}
}

/* ------------------------------------------------------------------ */
/* print                                                                */
/* ------------------------------------------------------------------ */

struct adds {
	unsigned bp;
	uint64_t func;
	unsigned kind;
	unsigned times;
};

#define MAXADDS 12

struct print_case {
	const char *what;
	unsigned nbp, n;
	const char *names[4];
	struct adds adds[MAXADDS];
	const char *want;
};

static const struct print_case print_cases[] = {
	{ "empty", 2, 4, { "jiffies", "pid_max" }, { { 0, 0, 0, 0 } },
	  "Access_Type  Symbol    Function        Counter\n"
	  "jiffies: 0 functions, overrun 0\n"
	  "pid_max: 0 functions, overrun 0\n" },
	{ "addresses", 2, 4, { "jiffies", "pid_max" },
	  { { 1, 0x2000, R, 37 }, { 0, 0x1000, W, 1200 } },
	  "Access_Type  Symbol    Function        Counter\n"
	  "W            jiffies   0x1000             1200\n"
	  "R            pid_max   0x2000               37\n"
	  "jiffies: 1 functions, overrun 0\n"
	  "pid_max: 1 functions, overrun 0\n" },
	/* Equal counts: by breakpoint, then address, then kind; function 0
	 * prints "?", kind 0 prints "?", a combined kind its letters. */
	{ "ties", 2, 8, { "a", "b" },
	  { { 1, 0x30, R, 5 }, { 0, 0x20, W, 5 }, { 0, 0x20, R, 5 }, { 0, 0x10, 0, 5 },
	    { 0, 0, X, 5 }, { 1, 0x30, R | W, 9 } },
	  "Access_Type  Symbol    Function        Counter\n"
	  "RW           b         0x30                  9\n"
	  "X            a         ?                     5\n"
	  "?            a         0x10                  5\n"
	  "R            a         0x20                  5\n"
	  "W            a         0x20                  5\n"
	  "R            b         0x30                  5\n"
	  "a: 3 functions, overrun 0\n"
	  "b: 1 functions, overrun 0\n" },
	/* Long names widen their columns (name + 2), a NULL name prints #bp. */
	{ "wide", 3, 2, { "a_rather_long_variable", NULL, "x" },
	  { { 0, 0xffffffff81234560ull, R, 3 }, { 1, 0x10, W, 2 }, { 2, 0x10, W, 1 } },
	  "Access_Type  Symbol                  Function            Counter\n"
	  "R            a_rather_long_variable  0xffffffff81234560        3\n"
	  "W            #1                      0x10                      2\n"
	  "W            x                       0x10                      1\n"
	  "a_rather_long_variable: 1 functions, overrun 0\n"
	  "#1: 1 functions, overrun 0\n"
	  "x: 1 functions, overrun 0\n" },
	/* Overrun, and distinct functions (0x10 read and written is one). */
	{ "overrun", 1, 2, { "v" },
	  { { 0, 0x10, R, 4 }, { 0, 0x10, W, 6 }, { 0, 0x20, R, 3 }, { 0, 0x30, W, 2 } },
	  "Access_Type  Symbol    Function        Counter\n"
	  "W            v         0x10                  6\n"
	  "R            v         0x10                  4\n"
	  "v: 1 functions, overrun 5\n" },
};

/* Feed a case, print it into memory, return the text (malloc'ed). */
static char *print_to_string(const struct hwbp_hist *h, const char *const *names,
			     const struct hwbp_symtab *syms, int *ret)
{
	static char buf[8192];
	FILE *f;
	long len;

	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	*ret = hwbp_hist_print(h, names, syms, f);
	len = ftell(f);
	fclose(f);
	assert_true(len >= 0 && (size_t)len < sizeof(buf));
	return strdup(buf);
}

static void feed(struct hwbp_hist *h, const struct adds *a, size_t na)
{
	size_t i;
	unsigned k;

	for (i = 0; i < na && a[i].times; i++)
		for (k = 0; k < a[i].times; k++)
			hwbp_hist_add(h, a[i].bp, a[i].func, a[i].kind);
}

static void test_print_table(void **state)
{
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(print_cases) / sizeof(print_cases[0]); c++) {
		const struct print_case *pc = &print_cases[c];
		struct hwbp_hist h;
		char *got;
		int ret;

		assert_int_equal(hwbp_hist_init(&h, pc->nbp, pc->n), 0);
		feed(&h, pc->adds, MAXADDS);
		got = print_to_string(&h, pc->names, NULL, &ret);
		if (ret != 0 || strcmp(got, pc->want) != 0)
			print_error("case %s: ret %d, got:\n%s---\nwant:\n%s---\n", pc->what, ret,
				    got, pc->want);
		assert_int_equal(ret, 0);
		assert_string_equal(got, pc->want);
		free(got);
		hwbp_hist_fini(&h);
	}
}

/* A count wider than "Counter" widens the column, header included. */
static void test_print_wide_count(void **state)
{
	static const char *const names[] = { "v" };
	struct hwbp_hist h;
	char *got;
	unsigned i;
	int ret;

	(void)state;
	assert_int_equal(hwbp_hist_init(&h, 1, 2), 0);
	for (i = 0; i < 12345678; i++)
		hwbp_hist_add(&h, 0, 0x10, W);
	hwbp_hist_add(&h, 0, 0x20, R);
	got = print_to_string(&h, names, NULL, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(got,
		"Access_Type  Symbol    Function         Counter\n"
		"W            v         0x10            12345678\n"
		"R            v         0x20                   1\n"
		"v: 2 functions, overrun 0\n");
	free(got);
	hwbp_hist_fini(&h);
}

/* With a symbol table, functions print by name and ties sort by name; an
 * address in no function falls back to 0xADDR after the named ones.  This
 * reproduces the issue's example table. */
static void test_print_symbols(void **state)
{
	static const char *const names[] = { "jiffies", "pid_max" };
	static const struct {
		const char *name;
		uint64_t addr, size;
	} fns[] = {
		{ "do_timer", 0x1000, 0x100 },   { "tick_sched", 0x1100, 0x100 },
		{ "calc_load", 0x1200, 0x100 },  { "sched_clock", 0x1300, 0x100 },
		{ "alloc_pid", 0x2000, 0x80 },   { "zap_pid", 0x2080, 0x80 },
		{ "aaa_other", 0x3000, 0x10 },
	};
	struct hwbp_symtab *t;
	struct hwbp_hist h;
	char *got;
	size_t i;
	int err = 0, ret;

	(void)state;
	t = hwbp_symtab_new(&err);
	assert_non_null(t);
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		assert_int_equal(hwbp_symtab_add(t, fns[i].name, fns[i].addr, fns[i].size, 'T'), 0);
	assert_int_equal(hwbp_symtab_add(t, "jiffies", 0x9000, 8, 'D'), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);

	assert_int_equal(hwbp_hist_init(&h, 2, 4), 0);
	{
		const struct adds a[] = {
			{ 0, 0x1000, W, 1200 }, { 0, 0x1100, R, 50 }, { 0, 0x1200, R, 20 },
			{ 0, 0x1300, R, 10 },   { 0, 0x3000, R, 2 },  { 0, 0x2000, R, 1 },
			{ 1, 0x2000, R, 37 },   { 1, 0x2080, W, 4 },  { 1, 0x3000, W, 4 },
			{ 1, 0x7000, W, 4 },
		};

		feed(&h, a, sizeof(a) / sizeof(a[0]));
	}
	got = print_to_string(&h, names, t, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(got,
		"Access_Type  Symbol    Function        Counter\n"
		"W            jiffies   do_timer           1200\n"
		"R            jiffies   tick_sched           50\n"
		"R            pid_max   alloc_pid            37\n"
		"R            jiffies   calc_load            20\n"
		"R            jiffies   sched_clock          10\n"
		"W            pid_max   aaa_other             4\n"
		"W            pid_max   zap_pid               4\n"
		"W            pid_max   0x7000                4\n"
		"jiffies: 4 functions, overrun 3\n"
		"pid_max: 4 functions, overrun 0\n");
	free(got);
	hwbp_hist_fini(&h);
	hwbp_symtab_free(t);
}

/* A 200-character function name: shortened to 60 columns in the table,
 * so no line is wider than 13 + 10 + 62 + 7 columns, and in full with
 * HWBP_HIST_WIDE; the Function column fits the names as printed. */
static void test_print_long_names(void **state)
{
	static const char *const names[] = { "v" };
	char longc[201], longcpp[201], want[128], *text = NULL, *line, *save = NULL;
	struct hwbp_symtab *t;
	struct hwbp_hist h;
	size_t len = 0, maxw = 0;
	FILE *f;

	(void)state;
	memset(longc, 'c', 200);
	longc[200] = '\0';
	/* "ns::f(xxx...x)": 200 characters, its parameters 193 */
	memcpy(longcpp, "ns::f(", 6);
	memset(longcpp + 6, 'x', 193);
	memcpy(longcpp + 199, ")", 2);
	t = hwbp_symtab_new(NULL);
	assert_non_null(t);
	assert_int_equal(hwbp_symtab_add(t, longc, 0x1000, 0x10, 'T'), 0);
	assert_int_equal(hwbp_symtab_add(t, longcpp, 0x2000, 0x10, 'T'), 0);
	assert_int_equal(hwbp_symtab_add(t, "main", 0x3000, 0x10, 'T'), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	assert_int_equal(hwbp_hist_init(&h, 1, 4), 0);
	hwbp_hist_add(&h, 0, 0x1000, R);
	hwbp_hist_add(&h, 0, 0x2000, R);
	hwbp_hist_add(&h, 0, 0x2000, R);
	hwbp_hist_add(&h, 0, 0x3000, W);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(hwbp_hist_print_flags(&h, names, t, 0, f), 0);
	fclose(f);
	assert_null(strstr(text, longc));
	assert_null(strstr(text, longcpp));
	/* the padding is that of a 60-column name */
	snprintf(want, sizeof(want), "%-13s%-10s%-62s%7d\n", "R", "v", "ns::f(...)", 2);
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof(want), "%-13s%-10s%.57s...  %7d\n", "R", "v", longc, 1);
	assert_non_null(strstr(text, want));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		maxw = strlen(line) > maxw ? strlen(line) : maxw;
	assert_int_equal(maxw, 13 + 10 + 62 + 7);
	free(text);

	text = NULL;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(hwbp_hist_print_flags(&h, names, t, HWBP_HIST_WIDE, f), 0);
	fclose(f);
	assert_non_null(strstr(text, longc));
	assert_non_null(strstr(text, longcpp));
	assert_null(strstr(text, "..."));
	free(text);
	hwbp_hist_fini(&h);
	hwbp_symtab_free(t);
}

/* The extra column's text: "k.c:" and the key's low byte, "?" for 0x30. */
static void col_text(void *arg, uint64_t key, char *buf, size_t n)
{
	assert_ptr_equal(arg, &col_text);
	if (key == 0x30)
		snprintf(buf, n, "?");
	else
		snprintf(buf, n, "k.c:%u", (unsigned)(key & 0xff));
}

/* A column before the Counter, as wide as its widest text + 2 (its title
 * at least), the summary in its unit; the rows sort as without it. */
static void test_print_column(void **state)
{
	static const char *const names[] = { "v", "w" };
	const struct hwbpi_hist_column col = { "Source", col_text, (void *)&col_text, "lines" };
	const struct {
		struct adds adds[4];
		const char *want;
	} cases[] = {
		{ { { 0, 0x1010, W, 30 }, { 0, 0x1012, W, 20 }, { 1, 0x30, R, 1 }, { 0, 0, 0, 0 } },
		  "Access_Type  Symbol    Function        Source  Counter\n"
		  "W            v         0x1010          k.c:16       30\n"
		  "W            v         0x1012          k.c:18       20\n"
		  "R            w         0x30            ?             1\n"
		  "v: 2 lines, overrun 0\n"
		  "w: 1 lines, overrun 0\n" },
		{ { { 0, 0x10ff, W, 1234567 }, { 0, 0, 0, 0 } },
		  "Access_Type  Symbol    Function        Source   Counter\n"
		  "W            v         0x10ff          k.c:255  1234567\n"
		  "v: 1 lines, overrun 0\n"
		  "w: 0 lines, overrun 0\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hwbp_hist h;
		char *text = NULL, *plain;
		size_t len = 0;
		int ret;
		FILE *f = open_memstream(&text, &len);

		assert_non_null(f);
		assert_int_equal(hwbp_hist_init(&h, 2, 4), 0);
		feed(&h, cases[i].adds, 4);
		assert_int_equal(hwbpi_hist_print_col(&h, names, NULL, 0, &col, f), 0);
		fclose(f);
		assert_string_equal(text, cases[i].want);
		free(text);
		/* No column: the table of hwbp_hist_print, byte for byte */
		f = open_memstream(&text, &len);
		assert_non_null(f);
		assert_int_equal(hwbpi_hist_print_col(&h, names, NULL, 0, NULL, f), 0);
		fclose(f);
		plain = print_to_string(&h, names, NULL, &ret);
		assert_int_equal(ret, 0);
		assert_string_equal(text, plain);
		assert_null(strstr(text, "Source"));
		free(text);
		free(plain);
		hwbp_hist_fini(&h);
	}
}

static void test_print_errors(void **state)
{
	static const char *const names[] = { "v" };
	struct hwbp_hist h, zero;
	FILE *f;

	(void)state;
	memset(&zero, 0, sizeof(zero));
	f = fopen("/dev/null", "w");
	assert_non_null(f);
	assert_int_equal(hwbp_hist_init(&h, 1, 2), 0);
	assert_int_equal(hwbp_hist_print(NULL, names, NULL, f), -EINVAL);
	assert_int_equal(hwbp_hist_print(&zero, names, NULL, f), -EINVAL);
	assert_int_equal(hwbp_hist_print(&h, NULL, NULL, f), -EINVAL);
	assert_int_equal(hwbp_hist_print(&h, names, NULL, NULL), -EINVAL);
	assert_int_equal(hwbp_hist_print(&h, names, NULL, f), 0);
	fclose(f);
	hwbp_hist_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_kinds_separate),
		cmocka_unit_test(test_bad_bp),
		cmocka_unit_test(test_overrun_exact),
		cmocka_unit_test(test_print_table),
		cmocka_unit_test(test_print_wide_count),
		cmocka_unit_test(test_print_symbols),
		cmocka_unit_test(test_print_long_names),
		cmocka_unit_test(test_print_column),
		cmocka_unit_test(test_print_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
