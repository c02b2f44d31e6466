/* SPDX-License-Identifier: MIT */
/*
 * Symbol tables: map text parsing (kallsyms' unsorted module lines too),
 * size inference and how each size was chosen, lookups by name and
 * address (edges, ties, zero sizes), ELF loading (the test binary itself
 * and hand-built 32/64-bit, little/big-endian files), error paths, and a
 * 150,000-symbol random table against a reference lookup.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <hwbp/trace.h>

#include "symbols/ksyms.h"
#include "symbols/symbols_int.h"

static const char *self_path = "/proc/self/exe";

static struct hwbp_symtab *new_tab(void)
{
	int err = 1;
	struct hwbp_symtab *t = hwbp_symtab_new(&err);

	assert_non_null(t);
	assert_int_equal(err, 0);
	return t;
}

/* ------------------------------------------------------------------ */
/* Map text.                                                           */
/* ------------------------------------------------------------------ */

struct exp_sym {
	const char *name;
	uint64_t addr;
	char type;
};

static const struct {
	const char *text;
	int count;
	struct exp_sym s[4];
} good_maps[] = {
	{ "", 0, { { NULL, 0, 0 } } },
	{ "\n\n   \n\t\n", 0, { { NULL, 0, 0 } } },
	{ "ffffffff81000000 T _text\n", 1, { { "_text", 0xffffffff81000000ull, 'T' } } },
	/* no final newline, CRLF, tabs, upper-case hex, a module */
	{ "0000000000001000 t a\r\n00000000DEADBEEF D b\nffffffffc0a01000 t foo\t[mymod]",
	  3,
	  { { "a", 0x1000, 't' }, { "b", 0xdeadbeef, 'D' }, { "foo", 0xffffffffc0a01000ull, 't' } } },
	{ "  10 W  weak_fn   \n\n20 b bss.var [m]  \n", 2,
	  { { "weak_fn", 0x10, 'W' }, { "bss.var", 0x20, 'b' } } },
	{ "0 ? odd$name.123\nffffffffffffffff A top\n", 2,
	  { { "odd$name.123", 0, '?' }, { "top", UINT64_MAX, 'A' } } },
	/* a control character inside a name (Debian's arm64 System.map:
	 * "__kvm_nvhe_.L14472\0021", a local label) */
	{ "ffff80000964d820 d __kvm_nvhe_.L14472\0021\n", 1,
	  { { "__kvm_nvhe_.L14472\0021", 0xffff80000964d820ull, 'd' } } },
	/* kallsyms' pseudo-modules (kernel/kallsyms.c s_show: a tab before "[") */
	{ "ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n"
	  "ffffffffc0300000 t bpf_prog_6deef7357e7b4530_x\t[bpf]\n", 2,
	  { { "ftrace_trampoline", 0xffffffffc0201000ull, 't' },
	    { "bpf_prog_6deef7357e7b4530_x", 0xffffffffc0300000ull, 't' } } },
};

static void test_map_good(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(good_maps) / sizeof(good_maps[0]); i++) {
		struct hwbp_symtab *t = new_tab();
		unsigned line = 99;
		int r = hwbp_symtab_load_map_text(t, good_maps[i].text, strlen(good_maps[i].text),
						  &line);

		assert_int_equal(r, good_maps[i].count);
		assert_int_equal(line, 0);
		assert_int_equal(hwbp_symtab_count(t), (size_t)r);
		assert_int_equal(hwbp_symtab_finish(t), 0);
		for (int k = 0; k < good_maps[i].count; k++) {
			const struct exp_sym *e = &good_maps[i].s[k];
			const struct hwbp_sym *s = hwbp_symtab_find(t, e->name);

			assert_non_null(s);
			assert_string_equal(s->name, e->name);
			assert_true(s->addr == e->addr);
			assert_int_equal(s->type, e->type);
		}
		hwbp_symtab_free(t);
	}
}

static const struct {
	const char *text;
	unsigned line;
	size_t len; /* 0: strlen */
} bad_maps[] = {
	{ "xyz T a\n", 1, 0 },                         /* not hex */
	{ "1000 T a\n0x1000 T b\n", 2, 0 },             /* 0x prefix */
	{ "1000 T a\n\n1000\n", 3, 0 },                 /* address only */
	{ "1000 T\n", 1, 0 },                           /* no name */
	{ "1000 TT a\n", 1, 0 },                        /* two-letter type */
	{ "1000T a\n", 1, 0 },                          /* no blank after the address */
	{ "10000000000000000 T a\n", 1, 0 },            /* 17 digits */
	{ "1000 T a b\n", 1, 0 },                       /* module without brackets */
	{ "1000 T a [mod\n", 1, 0 },                    /* unclosed module */
	{ "1000 T a []\n", 1, 0 },                      /* empty module */
	{ "1000 T a [m] x\n", 1, 0 },                   /* trailing junk */
	{ "1 T a\n2 T b\n3 T c\n4 \x01 d\n", 4, 0 },   /* control character as type */
	{ "1 T a\n2 T b\x00z\n", 2, 12 },            /* NUL inside */
	{ "1 T ok\n2 \x7f x\n", 2, 0 },                 /* DEL as type */
};

static void test_map_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_maps) / sizeof(bad_maps[0]); i++) {
		struct hwbp_symtab *t = new_tab();
		unsigned line = 0;
		size_t len = bad_maps[i].len ? bad_maps[i].len : strlen(bad_maps[i].text);

		/* Symbols from an earlier call stay; nothing of the bad call does. */
		assert_int_equal(hwbp_symtab_load_map_text(t, "500 T before\n", 13, NULL), 1);
		assert_int_equal(hwbp_symtab_load_map_text(t, bad_maps[i].text, len, &line), -EINVAL);
		assert_int_equal(line, bad_maps[i].line);
		assert_int_equal(hwbp_symtab_count(t), 1);
		/* NULL line pointer is fine too. */
		assert_int_equal(hwbp_symtab_load_map_text(t, bad_maps[i].text, len, NULL), -EINVAL);
		assert_int_equal(hwbp_symtab_finish(t), 0);
		assert_non_null(hwbp_symtab_find(t, "before"));
		assert_null(hwbp_symtab_find(t, "a"));
		assert_null(hwbp_symtab_find(t, "ok"));
		hwbp_symtab_free(t);
	}
}

static void test_map_file(void **state)
{
	char path[] = "/tmp/hwbp_test_map_XXXXXX";
	const char text[] = "1000 T one\n1100 t two\n1200 D three\n";
	struct hwbp_symtab *t = new_tab();
	unsigned line = 7;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	assert_int_equal(hwbp_symtab_load_map(t, path, &line), 3);
	assert_int_equal(line, 0);
	assert_int_equal(hwbp_symtab_load_map(t, "/nonexistent/System.map", &line), -ENOENT);
	assert_int_equal(hwbp_symtab_count(t), 3);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	assert_true(hwbp_symtab_find(t, "two")->size == 0x100);
	assert_int_equal(hwbp_symtab_load_map(t, path, &line), -EBUSY);
	unlink(path);
	hwbp_symtab_free(t);
}

/* ------------------------------------------------------------------ */
/* Sizes and lookups.                                                  */
/* ------------------------------------------------------------------ */

static void test_size_inference(void **state)
{
	static const char text[] =
		"1000 T a\n"
		"1010 t b\n"
		"1010 T b_alias\n"
		"1040 D c\n"
		"0800 T early\n"       /* out of order: sorted at finish */
		"2000 T last\n";
	static const struct {
		const char *name;
		uint64_t size;
	} want[] = {
		/* b and its alias reach the hand-added "manual", the next start */
		{ "early", 0x800 }, { "a", 0x10 }, { "b", 0x10 }, { "b_alias", 0x10 },
		{ "c", 0xfc0 }, { "last", 0 }, { "manual", 0 }, { "sized", 0x4 },
	};
	struct hwbp_symtab *t = new_tab();

	(void)state;
	assert_int_equal(hwbp_symtab_load_map_text(t, text, sizeof(text) - 1, NULL), 6);
	/* Hand-added symbols keep what they say, 0 included. */
	assert_int_equal(hwbp_symtab_add(t, "manual", 0x1020, 0, 'T'), 0);
	assert_int_equal(hwbp_symtab_add(t, "sized", 0x100, 4, 'd'), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct hwbp_sym *s = hwbp_symtab_find(t, want[i].name);

		assert_non_null(s);
		assert_true(s->size == want[i].size);
	}
	/* How each size was chosen; the next symbol at a higher address. */
	assert_true(hwbpi_symtab_size_inferred(t, hwbp_symtab_find(t, "b_alias")));
	assert_true(hwbpi_symtab_size_inferred(t, hwbp_symtab_find(t, "last")));
	assert_false(hwbpi_symtab_size_inferred(t, hwbp_symtab_find(t, "manual")));
	assert_false(hwbpi_symtab_size_inferred(t, hwbp_symtab_find(t, "sized")));
	assert_ptr_equal(hwbpi_symtab_next(t, hwbp_symtab_find(t, "b")), hwbp_symtab_find(t, "manual"));
	assert_ptr_equal(hwbpi_symtab_next(t, hwbp_symtab_find(t, "b_alias")),
			 hwbp_symtab_find(t, "manual"));
	assert_ptr_equal(hwbpi_symtab_next(t, hwbp_symtab_find(t, "c")), hwbp_symtab_find(t, "last"));
	assert_null(hwbpi_symtab_next(t, hwbp_symtab_find(t, "last")));
	assert_string_equal(hwbp_symtab_func(t, 0x101f)->name, "b");
	assert_string_equal(hwbp_symtab_func(t, 0x1020)->name, "manual");
	assert_null(hwbp_symtab_func(t, 0x1021));
	assert_null(hwbp_symtab_at(t, 0x1030));
	assert_string_equal(hwbp_symtab_at(t, 0x1fff)->name, "c");
	assert_string_equal(hwbp_symtab_at(t, 0x2000)->name, "last");
	assert_null(hwbp_symtab_at(t, 0x2001));
	hwbp_symtab_free(t);
}

/*
 * kallsyms' module lines come in each module's symtab order, not by
 * address, and after vmlinux's: sizes follow address order all the same,
 * and the module's name is reported beside the symbol, not in it.
 */
static void test_kallsyms_modules(void **state)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff82000000 D pid_max\n"
		"ffffffffc0003000 t m_c\t[mod_x]\n"
		"ffffffffc0001000 t m_a\t[mod_x]\n"
		"ffffffffc0002000 d m_b\t[mod_x]\n"
		"ffffffffc0000800 T n_a\t[mod_y]\n";
	static const struct {
		const char *name, *mod;
		uint64_t addr, size;
	} want[] = {
		{ "_stext", NULL, 0xffffffff81000000ull, 0x1000000 },
		{ "pid_max", NULL, 0xffffffff82000000ull, 0xffffffffc0000800ull - 0xffffffff82000000ull },
		{ "m_c", "mod_x", 0xffffffffc0003000ull, 0 },
		{ "m_a", "mod_x", 0xffffffffc0001000ull, 0x1000 },
		{ "m_b", "mod_x", 0xffffffffc0002000ull, 0x1000 },
		{ "n_a", "mod_y", 0xffffffffc0000800ull, 0x800 },
	};
	struct hwbp_symtab *t = new_tab();
	const char *p = text;
	struct hwbpi_map_line l;
	unsigned line = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(hwbpi_map_next(&p, text + sizeof(text) - 1, &l, &line), 1);
		assert_int_equal(line, i + 1);
		assert_true(l.nlen == strlen(want[i].name) && !memcmp(l.name, want[i].name, l.nlen));
		if (want[i].mod)
			assert_true(l.mlen == strlen(want[i].mod) && !memcmp(l.mod, want[i].mod, l.mlen));
		else
			assert_null(l.mod);
		assert_true(l.addr == want[i].addr);
	}
	assert_int_equal(hwbpi_map_next(&p, text + sizeof(text) - 1, &l, &line), 0);
	assert_int_equal(hwbp_symtab_load_map_text(t, text, sizeof(text) - 1, NULL), 6);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct hwbp_sym *s = hwbp_symtab_find(t, want[i].name);

		assert_non_null(s);
		assert_true(s->addr == want[i].addr);
		assert_true(s->size == want[i].size);
		assert_true(hwbpi_symtab_size_inferred(t, s));
	}
	assert_string_equal(hwbp_symtab_func(t, 0xffffffffc0001fffull)->name, "m_a");
	assert_string_equal(hwbp_symtab_at(t, 0xffffffffc0002008ull)->name, "m_b");
	hwbp_symtab_free(t);
}

/*
 * A hand-built table:
 *   0x1000 f1  T 0x100   (contains 0x1040 z0 d 0 and nested f1_inner t 0x10 at 0x1080)
 *   0x1200 f2  t 0       (zero size: exact match only)
 *   0x1300 dat D 0x20
 *   0x1400 f3  W 0x10, alias f3_alias T 0x40 (same start, added later)
 *   0x2000 w2  w 0x8
 *   0xffffffffffffff00 top T 0x100 (reaches the end of the space)
 */
static struct hwbp_symtab *edge_table(void)
{
	static const struct {
		const char *name;
		uint64_t addr, size;
		char type;
	} syms[] = {
		{ "f2", 0x1200, 0, 't' },
		{ "f1", 0x1000, 0x100, 'T' },
		{ "z0", 0x1040, 0, 'd' },
		{ "f1_inner", 0x1080, 0x10, 't' },
		{ "dat", 0x1300, 0x20, 'D' },
		{ "f3", 0x1400, 0x10, 'W' },
		{ "f3_alias", 0x1400, 0x40, 'T' },
		{ "w2", 0x2000, 0x8, 'w' },
		{ "top", 0xffffffffffffff00ull, 0x100, 'T' },
		{ "f1", 0x5000, 0x10, 'T' }, /* a second f1: find keeps the first */
	};
	struct hwbp_symtab *t = new_tab();

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		assert_int_equal(hwbp_symtab_add(t, syms[i].name, syms[i].addr, syms[i].size,
						 syms[i].type), 0);
	/* Lookups refuse an unfinished table. */
	assert_null(hwbp_symtab_find(t, "f1"));
	assert_null(hwbp_symtab_func(t, 0x1000));
	assert_null(hwbp_symtab_at(t, 0x1000));
	assert_int_equal(hwbp_symtab_finish(t), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0); /* idempotent */
	return t;
}

static void test_lookup_edges(void **state)
{
	static const struct {
		uint64_t ip;
		const char *func, *at; /* NULL: none */
	} cases[] = {
		{ 0, NULL, NULL },
		{ 0xfff, NULL, NULL },                 /* before the first symbol */
		{ 0x1000, "f1", "f1" },
		{ 0x103f, "f1", "f1" },
		{ 0x1040, "f1", "z0" },                /* zero-size data: exact */
		{ 0x1041, "f1", "f1" },
		{ 0x1080, "f1_inner", "f1_inner" },    /* nested: innermost */
		{ 0x108f, "f1_inner", "f1_inner" },
		{ 0x1090, "f1", "f1" },                /* back in the outer one */
		{ 0x10ff, "f1", "f1" },                /* last byte */
		{ 0x1100, NULL, NULL },                /* gap */
		{ 0x11ff, NULL, NULL },
		{ 0x1200, "f2", "f2" },                /* zero-size function */
		{ 0x1201, NULL, NULL },
		{ 0x1300, NULL, "dat" },               /* data is no function */
		{ 0x131f, NULL, "dat" },
		{ 0x1320, NULL, NULL },
		{ 0x1400, "f3", "f3" },                /* aliases: first added */
		{ 0x140f, "f3", "f3" },
		{ 0x1410, "f3_alias", "f3_alias" },    /* only the alias reaches */
		{ 0x143f, "f3_alias", "f3_alias" },
		{ 0x1440, NULL, NULL },
		{ 0x2000, "w2", "w2" },
		{ 0x2007, "w2", "w2" },
		{ 0x2008, NULL, NULL },
		{ 0x5000, "f1", "f1" },                /* the second f1 */
		{ 0x500f, "f1", "f1" },
		{ 0x5010, NULL, NULL },
		{ 0xfffffffffffffeffull, NULL, NULL },
		{ 0xffffffffffffff00ull, "top", "top" },
		{ UINT64_MAX, "top", "top" },          /* last symbol, last address */
	};
	struct hwbp_symtab *t = edge_table();

	(void)state;
	assert_int_equal(hwbp_symtab_count(t), 10);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hwbp_sym *f = hwbp_symtab_func(t, cases[i].ip);
		const struct hwbp_sym *a = hwbp_symtab_at(t, cases[i].ip);

		if (cases[i].func) {
			assert_non_null(f);
			assert_string_equal(f->name, cases[i].func);
		} else {
			assert_null(f);
		}
		if (cases[i].at) {
			assert_non_null(a);
			assert_string_equal(a->name, cases[i].at);
		} else {
			assert_null(a);
		}
	}
	/* The second f1 is at 0x5000, but find returns the first added. */
	assert_true(hwbp_symtab_find(t, "f1")->addr == 0x1000);
	assert_true(hwbp_symtab_find(t, "f3_alias")->size == 0x40);
	assert_null(hwbp_symtab_find(t, "nope"));
	assert_null(hwbp_symtab_find(t, ""));
	assert_null(hwbp_symtab_find(t, NULL));
	hwbp_symtab_free(t);
}

static void test_top_exact(void **state)
{
	struct hwbp_symtab *t = new_tab();

	(void)state;
	/* Zero size at the very top: found only at UINT64_MAX itself. */
	assert_int_equal(hwbp_symtab_add(t, "lo", 0x10, 0x10, 'T'), 0);
	assert_int_equal(hwbp_symtab_add(t, "max", UINT64_MAX, 0, 'T'), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	assert_string_equal(hwbp_symtab_func(t, UINT64_MAX)->name, "max");
	assert_null(hwbp_symtab_func(t, UINT64_MAX - 1));
	assert_string_equal(hwbp_symtab_at(t, 0x1f)->name, "lo");
	hwbp_symtab_free(t);

	/* An empty finished table. */
	t = new_tab();
	assert_int_equal(hwbp_symtab_finish(t), 0);
	assert_int_equal(hwbp_symtab_count(t), 0);
	assert_null(hwbp_symtab_func(t, 0));
	assert_null(hwbp_symtab_func(t, UINT64_MAX));
	assert_null(hwbp_symtab_at(t, 0x1234));
	assert_null(hwbp_symtab_find(t, "x"));
	hwbp_symtab_free(t);
}

static void test_errors(void **state)
{
	struct hwbp_symtab *t = new_tab();
	unsigned line = 5;

	(void)state;
	assert_int_equal(hwbp_symtab_add(NULL, "a", 1, 1, 'T'), -EINVAL);
	assert_int_equal(hwbp_symtab_add(t, NULL, 1, 1, 'T'), -EINVAL);
	assert_int_equal(hwbp_symtab_add(t, "", 1, 1, 'T'), -EINVAL);
	assert_int_equal(hwbp_symtab_load_map_text(NULL, "1 T a", 5, &line), -EINVAL);
	assert_int_equal(line, 0);
	assert_int_equal(hwbp_symtab_load_map_text(t, NULL, 5, NULL), -EINVAL);
	assert_int_equal(hwbp_symtab_load_map_text(t, NULL, 0, NULL), 0);
	assert_int_equal(hwbp_symtab_load_map(t, NULL, NULL), -EINVAL);
	assert_int_equal(hwbp_symtab_load_map(NULL, "/x", NULL), -EINVAL);
	assert_int_equal(hwbp_symtab_load_map(t, "/nonexistent/map", NULL), -ENOENT);
	assert_int_equal(hwbp_symtab_finish(NULL), -EINVAL);
	assert_int_equal(hwbp_symtab_count(NULL), 0);
	assert_null(hwbp_symtab_func(NULL, 0));
	assert_null(hwbp_symtab_at(NULL, 0));
	assert_null(hwbp_symtab_find(NULL, "a"));
	assert_int_equal(hwbp_symtab_count(t), 0);
	assert_int_equal(hwbp_symtab_add(t, "a", 1, 1, 'T'), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	assert_int_equal(hwbp_symtab_add(t, "b", 1, 1, 'T'), -EBUSY);
	assert_int_equal(hwbp_symtab_load_map_text(t, "1 T b\n", 6, NULL), -EBUSY);
#ifdef HWBP_HAVE_LIBELF
	assert_int_equal(hwbp_symtab_load_elf(t, self_path, 0), -EBUSY);
#endif
	assert_int_equal(hwbp_symtab_count(t), 1);
	hwbp_symtab_free(t);
	hwbp_symtab_free(NULL);
}

/* ------------------------------------------------------------------ */
/* ELF.                                                                */
/* ------------------------------------------------------------------ */

static int test_data_var = 42;           /* .data, local: 'd' */
static int test_bss_var;                 /* .bss, local: 'b' */

static __attribute__((noinline)) int test_static_func(int x)
{
	/* Something the compiler cannot fold away or merge. */
	test_bss_var += x;
	return test_bss_var * 3 + test_data_var;
}

int main(int argc, char **argv);

/* Called through a volatile pointer: no constant-propagated clone, so the
 * symbol keeps its name. */
static int (*volatile static_func_ptr)(int) = test_static_func;

static void test_elf_self(void **state)
{
	struct hwbp_symtab *t = new_tab();
	const struct hwbp_sym *m, *v, *b, *f;
	uint64_t bias;
	int n;

	(void)state;
	n = hwbp_symtab_load_elf(t, self_path, 0);
#ifndef HWBP_HAVE_LIBELF
	assert_int_equal(n, -EOPNOTSUPP);
	hwbp_symtab_free(t);
	return;
#endif
	assert_true(n > 10);
	assert_int_equal(hwbp_symtab_count(t), (size_t)n);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	m = hwbp_symtab_find(t, "main");
	assert_non_null(m);
	assert_int_equal(m->type, 'T');
	/* PIE: the load bias is where main is minus where the file says. */
	bias = (uint64_t)(uintptr_t)&main - m->addr;
	hwbp_symtab_free(t);

	t = new_tab();
	assert_int_equal(hwbp_symtab_load_elf(t, self_path, bias), n);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	m = hwbp_symtab_find(t, "main");
	v = hwbp_symtab_find(t, "test_data_var");
	b = hwbp_symtab_find(t, "test_bss_var");
	f = hwbp_symtab_find(t, "test_static_func");
	assert_non_null(v);
	assert_non_null(b);
	assert_non_null(f);
	assert_true(m->addr == (uint64_t)(uintptr_t)&main);
	assert_true(v->addr == (uint64_t)(uintptr_t)&test_data_var);
	assert_true(b->addr == (uint64_t)(uintptr_t)&test_bss_var);
	assert_true(v->size >= sizeof(test_data_var)); /* ASan pads globals */
	assert_int_equal(v->type, 'd');
	assert_int_equal(b->type, 'b');
	assert_int_equal(f->type, 't');
	/* IP -> function inside the function, and the data symbol by address. */
	assert_true(f->size > 1);
	assert_ptr_equal(hwbp_symtab_func(t, f->addr + f->size - 1), f);
	assert_ptr_equal(hwbp_symtab_func(t, m->addr), m);
	assert_ptr_equal(hwbp_symtab_at(t, v->addr + 1), v);
	assert_null(hwbp_symtab_func(t, v->addr));
	assert_true(f->addr == (uint64_t)(uintptr_t)&test_static_func);
	assert_int_equal(static_func_ptr(1), 3 + 42);
	hwbp_symtab_free(t);
}

/* A minimal ELF writer (independent of libelf) for 32/64-bit, LSB/MSB. */
struct ew {
	unsigned char b[4096];
	bool is64, msb;
};

static void put(struct ew *w, size_t off, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		w->b[off + (w->msb ? bytes - 1 - i : i)] = (unsigned char)(v >> (8 * i));
}

enum { SEC_TEXT = 1, SEC_DATA, SEC_BSS, SEC_RODATA, SEC_COMMENT, SEC_SYMTAB, SEC_STRTAB,
       SEC_SHSTRTAB, NSEC };

struct esym {
	const char *name;
	uint64_t value, size;
	unsigned bind, type, shndx;
	char want; /* expected letter, 0: skipped */
};

/* bind: 0 LOCAL 1 GLOBAL 2 WEAK; type: 0 NOTYPE 1 OBJECT 2 FUNC 3 SECTION 4 FILE 6 TLS */
static const struct esym esyms[] = {
	{ "t.c", 0, 0, 0, 4, 0xfff1, 0 },
	{ "", 0x1000, 0, 0, 3, SEC_TEXT, 0 },
	{ "lfunc", 0x1000, 0x20, 0, 2, SEC_TEXT, 't' },
	{ "ldata", 0x2000, 8, 0, 1, SEC_DATA, 'd' },
	{ "$x", 0x1000, 0, 0, 0, SEC_TEXT, 0 },
	{ "lbss", 0x3000, 4, 0, 1, SEC_BSS, 'b' },
	{ "gfunc", 0x1020, 0x30, 1, 2, SEC_TEXT, 'T' },
	{ "wfunc", 0x1050, 0x10, 2, 2, SEC_TEXT, 'T' },
	{ "gro", 0x4000, 0x10, 1, 1, SEC_RODATA, 'R' },
	{ "entry", 0x10f0, 0, 1, 0, SEC_TEXT, 'T' },
	{ "undef", 0, 0, 1, 0, 0, 0 },
	{ "absym", 0x1234, 0, 1, 0, 0xfff1, 0 },
	{ "cmt", 0, 4, 1, 1, SEC_COMMENT, 0 },
	{ "tlsv", 0, 4, 1, 6, SEC_DATA, 0 },
	{ "gdata", 0x2010, 8, 1, 1, SEC_DATA, 'D' },
	/* A .symtab's versioned name: found as "vdata", "vdata@VER_1" too. */
	{ "vdata@@VER_1", 0x2020, 4, 1, 1, SEC_DATA, 'D' },
};
#define NESYM (sizeof(esyms) / sizeof(esyms[0]))
#define NKEPT 9

struct shd {
	unsigned type;
	uint64_t flags, addr, off, size, link, info, entsize;
};

/* Returns the file size; symtype 2 = SYMTAB, 11 = DYNSYM, 1 = none (PROGBITS). */
static size_t build_elf(struct ew *w, bool is64, bool msb, unsigned symtype)
{
	static const char shstr[] = "\0.text\0.data\0.bss\0.rodata\0.comment\0.symtab\0.strtab\0.shstrtab";
	/* Offsets of the names in shstr. */
	static const unsigned shname[NSEC] = { 0, 1, 7, 13, 18, 26, 35, 43, 51 };
	size_t ehsz = is64 ? 64 : 52, shsz = is64 ? 64 : 40, symsz = is64 ? 24 : 16;
	size_t shoff = ehsz, off = (shoff + NSEC * shsz + 7) & ~(size_t)7;
	struct shd sh[NSEC];
	char strtab[256];
	size_t strl = 1, symoff;

	memset(w, 0, sizeof(*w));
	memset(sh, 0, sizeof(sh));
	w->is64 = is64;
	w->msb = msb;
	/* section contents */
	sh[SEC_TEXT] = (struct shd){ 1, 0x6, 0x1000, off, 0x100, 0, 0, 0 };
	off += 0x100;
	sh[SEC_DATA] = (struct shd){ 1, 0x3, 0x2000, off, 0x40, 0, 0, 0 };
	off += 0x40;
	sh[SEC_BSS] = (struct shd){ 8, 0x3, 0x3000, off, 0x40, 0, 0, 0 };
	sh[SEC_RODATA] = (struct shd){ 1, 0x2, 0x4000, off, 0x40, 0, 0, 0 };
	off += 0x40;
	sh[SEC_COMMENT] = (struct shd){ 1, 0, 0, off, 0x10, 0, 0, 0 };
	off += 0x10;
	memcpy(w->b + off, shstr, sizeof(shstr));
	sh[SEC_SHSTRTAB] = (struct shd){ 3, 0, 0, off, sizeof(shstr), 0, 0, 0 };
	off += sizeof(shstr);
	strtab[0] = 0;
	symoff = (off + 256 + 7) & ~(size_t)7;
	for (size_t i = 0; i <= NESYM; i++) {
		size_t so = symoff + i * symsz;
		unsigned name = 0;

		if (i == 0)
			continue; /* the null symbol */
		if (*esyms[i - 1].name) {
			name = (unsigned)strl;
			strcpy(strtab + strl, esyms[i - 1].name);
			strl += strlen(esyms[i - 1].name) + 1;
		}
		if (is64) {
			put(w, so, name, 4);
			w->b[so + 4] = (unsigned char)(esyms[i - 1].bind << 4 | esyms[i - 1].type);
			put(w, so + 6, esyms[i - 1].shndx, 2);
			put(w, so + 8, esyms[i - 1].value, 8);
			put(w, so + 16, esyms[i - 1].size, 8);
		} else {
			put(w, so, name, 4);
			put(w, so + 4, esyms[i - 1].value, 4);
			put(w, so + 8, esyms[i - 1].size, 4);
			w->b[so + 12] = (unsigned char)(esyms[i - 1].bind << 4 | esyms[i - 1].type);
			put(w, so + 14, esyms[i - 1].shndx, 2);
		}
	}
	memcpy(w->b + off, strtab, strl);
	sh[SEC_STRTAB] = (struct shd){ 3, 0, 0, off, strl, 0, 0, 0 };
	sh[SEC_SYMTAB] = (struct shd){ symtype, symtype == 11 ? 0x2 : 0, 0, symoff,
					 (NESYM + 1) * symsz, SEC_STRTAB, 1, symsz };
	off = symoff + (NESYM + 1) * symsz;
	assert_true(off <= sizeof(w->b));

	/* ELF header */
	memcpy(w->b, "\x7f" "ELF", 4);
	w->b[4] = is64 ? 2 : 1;
	w->b[5] = msb ? 2 : 1;
	w->b[6] = 1;
	put(w, 16, 2, 2);                              /* ET_EXEC */
	put(w, 18, is64 ? (msb ? 21 : 62) : (msb ? 20 : 3), 2);
	put(w, 20, 1, 4);
	if (is64) {
		put(w, 40, shoff, 8);
		put(w, 52, ehsz, 2);
		put(w, 58, shsz, 2);
		put(w, 60, NSEC, 2);
		put(w, 62, SEC_SHSTRTAB, 2);
	} else {
		put(w, 32, shoff, 4);
		put(w, 40, ehsz, 2);
		put(w, 46, shsz, 2);
		put(w, 48, NSEC, 2);
		put(w, 50, SEC_SHSTRTAB, 2);
	}
	for (unsigned i = 1; i < NSEC; i++) {
		size_t so = shoff + i * shsz;
		unsigned a = is64 ? 8 : 4;

		put(w, so, shname[i], 4);
		put(w, so + 4, sh[i].type, 4);
		put(w, so + 8, sh[i].flags, a);
		put(w, so + 8 + a, sh[i].addr, a);
		put(w, so + 8 + 2 * a, sh[i].off, a);
		put(w, so + 8 + 3 * a, sh[i].size, a);
		put(w, so + 8 + 4 * a, sh[i].link, 4);
		put(w, so + 12 + 4 * a, sh[i].info, 4);
		put(w, so + 16 + 4 * a, i == SEC_SYMTAB ? 8 : 1, a);
		put(w, so + 16 + 5 * a, sh[i].entsize, a);
	}
	return off;
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void test_elf_synthetic(void **state)
{
	static const struct {
		bool is64, msb;
		unsigned symtype;
		uint64_t bias;
	} cases[] = {
		{ false, false, 2, 0 },
		{ false, true, 2, 0x10000 },
		{ true, false, 2, 0 },
		{ true, true, 2, 0x7f0000000000ull },
		{ true, false, 11, 0x400 },   /* .dynsym when there is no .symtab */
		{ false, true, 11, 0 },
	};
	char path[] = "/tmp/hwbp_test_elf_XXXXXX";
	int fd = mkstemp(path);
	struct ew *w = malloc(sizeof(*w));

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_non_null(w);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t len = build_elf(w, cases[c].is64, cases[c].msb, cases[c].symtype);
		struct hwbp_symtab *t = new_tab();
		int n;

		write_file(path, w->b, len);
		n = hwbp_symtab_load_elf(t, path, cases[c].bias);
#ifndef HWBP_HAVE_LIBELF
		assert_int_equal(n, -EOPNOTSUPP);
		hwbp_symtab_free(t);
		continue;
#endif
		assert_int_equal(n, NKEPT);
		assert_int_equal(hwbp_symtab_finish(t), 0);
		for (size_t i = 0; i < NESYM; i++) {
			const struct hwbp_sym *s = *esyms[i].name ? hwbp_symtab_find(t, esyms[i].name)
								  : NULL;

			if (!esyms[i].want) {
				assert_null(s);
				continue;
			}
			assert_non_null(s);
			assert_true(s->addr == esyms[i].value + cases[c].bias);
			assert_true(s->size == esyms[i].size);
			assert_int_equal(s->type, esyms[i].want);
		}
		assert_string_equal(hwbp_symtab_func(t, 0x1030 + cases[c].bias)->name, "gfunc");
		assert_string_equal(hwbp_symtab_func(t, 0x10f0 + cases[c].bias)->name, "entry");
		assert_string_equal(hwbp_symtab_at(t, 0x2014 + cases[c].bias)->name, "gdata");
		assert_string_equal(hwbp_symtab_at(t, 0x2020 + cases[c].bias)->name, "vdata");
		assert_ptr_equal(hwbp_symtab_find(t, "vdata"), hwbp_symtab_find(t, "vdata@VER_1"));
		hwbp_symtab_free(t);
	}

#ifdef HWBP_HAVE_LIBELF
	{
		struct hwbp_symtab *t = new_tab();
		size_t len;

		assert_int_equal(hwbp_symtab_add(t, "keep", 1, 1, 'T'), 0);
		/* No symbol table at all. */
		len = build_elf(w, true, false, 1);
		write_file(path, w->b, len);
		assert_int_equal(hwbp_symtab_load_elf(t, path, 0), -EINVAL);
		/* Truncated in the middle of the symbol table: nothing kept. */
		len = build_elf(w, true, true, 2);
		write_file(path, w->b, len - 30);
		assert_true(hwbp_symtab_load_elf(t, path, 0) < 0);
		/* Not ELF; empty. */
		write_file(path, "1000 T a\n", 9);
		assert_int_equal(hwbp_symtab_load_elf(t, path, 0), -EINVAL);
		write_file(path, "", 0);
		assert_int_equal(hwbp_symtab_load_elf(t, path, 0), -EINVAL);
		assert_int_equal(hwbp_symtab_load_elf(t, "/nonexistent/vmlinux", 0), -ENOENT);
		assert_int_equal(hwbp_symtab_load_elf(t, NULL, 0), -EINVAL);
		assert_int_equal(hwbp_symtab_load_elf(NULL, path, 0), -EINVAL);
		assert_int_equal(hwbp_symtab_count(t), 1);
		assert_int_equal(hwbp_symtab_finish(t), 0);
		assert_non_null(hwbp_symtab_find(t, "keep"));
		assert_null(hwbp_symtab_find(t, "gfunc"));
		hwbp_symtab_free(t);
	}
#endif
	unlink(path);
	free(w);
}

/*
 * Qualified names (include/hwbp/trace.h): the same file loaded twice, as
 * a program and as "libv.so.1" above it, as the dynamic linker's order
 * would have it.  Plain names and versions find the first file's symbol;
 * "LIB:sym" and "sym@LIB" (any spelling of the file) the other's.
 */
static void test_elf_qualified(void **state)
{
	char path[] = "/tmp/hwbp_test_elf_XXXXXX", dir[] = "/tmp/hwbp_test_lib_XXXXXX";
	char lib[64], q[160];
	const char *base;
	struct ew *w = malloc(sizeof(*w));
	struct hwbp_symtab *t = new_tab();
	int fd = mkstemp(path);
	size_t len;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_non_null(mkdtemp(dir));
	snprintf(lib, sizeof(lib), "%s/libv.so.1", dir);
	assert_non_null(w);
	len = build_elf(w, true, false, 2);
	write_file(path, w->b, len);
	write_file(lib, w->b, len);
	assert_int_equal(hwbp_symtab_add(t, "manual", 0x9000, 4, 'D'), 0);
	if (hwbp_symtab_load_elf(t, path, 0) == -EOPNOTSUPP) {
		hwbp_symtab_free(t);
		goto out;
	}
	assert_int_equal(hwbp_symtab_load_elf(t, lib, 0x100000), NKEPT);
	assert_int_equal(hwbp_symtab_finish(t), 0);

	assert_true(hwbp_symtab_find(t, "gdata")->addr == 0x2010);
	assert_true(hwbp_symtab_find(t, "libv.so.1:gdata")->addr == 0x102010);
	assert_true(hwbp_symtab_find(t, "gdata@libv.so.1")->addr == 0x102010);
	snprintf(q, sizeof(q), "%s:gdata", lib);
	assert_true(hwbp_symtab_find(t, q)->addr == 0x102010);
	base = strrchr(path, '/') + 1;
	snprintf(q, sizeof(q), "%s:gdata", base);
	assert_true(hwbp_symtab_find(t, q)->addr == 0x2010);
	snprintf(q, sizeof(q), "%s:gdata", path);
	assert_true(hwbp_symtab_find(t, q)->addr == 0x2010);

	assert_string_equal(hwbp_symtab_find(t, "vdata")->name, "vdata");
	assert_true(hwbp_symtab_find(t, "vdata")->addr == 0x2020);
	assert_true(hwbp_symtab_find(t, "vdata@VER_1")->addr == 0x2020);
	assert_true(hwbp_symtab_find(t, "vdata@@VER_1")->addr == 0x2020);
	assert_true(hwbp_symtab_find(t, "libv.so.1:vdata@VER_1")->addr == 0x102020);
	assert_true(hwbp_symtab_find(t, "manual")->addr == 0x9000);

	assert_null(hwbp_symtab_find(t, "vdata@VER_2"));
	assert_null(hwbp_symtab_find(t, "vdata@VER"));
	assert_null(hwbp_symtab_find(t, "gdata@VER_1"));      /* unversioned */
	assert_null(hwbp_symtab_find(t, "nofile.so:gdata"));
	assert_null(hwbp_symtab_find(t, "gdata@nofile.so"));
	assert_null(hwbp_symtab_find(t, "libv.so:gdata"));    /* whole names only */
	assert_null(hwbp_symtab_find(t, "libv.so.1:gdata@libv.so.1"));
	assert_null(hwbp_symtab_find(t, "libv.so.1:manual")); /* added by hand: no file */
	assert_null(hwbp_symtab_find(t, ":gdata"));
	assert_null(hwbp_symtab_find(t, "libv.so.1:"));
	assert_null(hwbp_symtab_find(t, "gdata@"));
	assert_null(hwbp_symtab_find(t, "vdata@VER_1@VER_1"));
	hwbp_symtab_free(t);
out:
	unlink(path);
	unlink(lib);
	rmdir(dir);
	free(w);
}

/* ------------------------------------------------------------------ */
/* A big random table against a reference.                             */
/* ------------------------------------------------------------------ */

#define RN 150000
#define RQ 100000
#define RBASE 0xffffffff81000000ull
#define RSPAN ((uint64_t)RN * 24)
#define RMAXSZ 512

struct rsym {
	uint64_t addr, size;
	unsigned seq;
	char type;
	char name[16];
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_rsym(const void *a, const void *b)
{
	const struct rsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool is_func(char c)
{
	return c == 't' || c == 'T' || c == 'w' || c == 'W' || c == 'i';
}

/* Reference: among the symbols containing ip (size 0: ip == addr), the
 * one with the greatest address, then the first added.  Sizes are at most
 * RMAXSZ, so only the window (ip - RMAXSZ, ip] can contain ip. */
static const struct rsym *ref_lookup(const struct rsym *r, size_t n, uint64_t ip, bool func)
{
	size_t lo = 0, hi = n;
	const struct rsym *best = NULL;

	while (lo < hi) { /* first with addr > ip */
		size_t mid = (lo + hi) / 2;

		if (r[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0) {
		const struct rsym *s = &r[--lo];

		if (ip - s->addr >= RMAXSZ)
			break;
		if (func && !is_func(s->type))
			continue;
		if (!(ip - s->addr < s->size || ip == s->addr))
			continue;
		if (!best || s->addr > best->addr || (s->addr == best->addr && s->seq < best->seq))
			best = s;
	}
	return best;
}

static void check_same(const struct hwbp_sym *got, const struct rsym *want)
{
	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got->name, want->name);
	assert_true(got->addr == want->addr);
	assert_true(got->size == want->size);
}

static void test_random_table(void **state)
{
	static const char types[] = "TTTTtttWwiDdBbRr";
	struct rsym *r = calloc(RN, sizeof(*r));
	struct hwbp_symtab *t = new_tab();

	(void)state;
	assert_non_null(r);
	for (unsigned i = 0; i < RN; i++) {
		r[i].addr = RBASE + rnd() % RSPAN;
		if (i % 7 == 3)
			r[i].addr = r[i - 1].addr; /* aliases */
		r[i].size = rnd() % 8 == 0 ? 0 : 1 + rnd() % RMAXSZ;
		r[i].type = types[rnd() % (sizeof(types) - 1)];
		r[i].seq = i;
		snprintf(r[i].name, sizeof(r[i].name), "s%u", i);
		assert_int_equal(hwbp_symtab_add(t, r[i].name, r[i].addr, r[i].size, r[i].type), 0);
	}
	assert_int_equal(hwbp_symtab_finish(t), 0);
	assert_int_equal(hwbp_symtab_count(t), RN);
	for (unsigned i = 0; i < RN; i += 97) {
		const struct hwbp_sym *s = hwbp_symtab_find(t, r[i].name);

		assert_non_null(s);
		assert_true(s->addr == r[i].addr && s->size == r[i].size && s->type == r[i].type);
	}
	qsort(r, RN, sizeof(*r), cmp_rsym);
	for (unsigned q = 0; q < RQ; q++) {
		uint64_t ip;

		switch (q % 4) {
		case 0: /* anywhere, a little beyond both ends */
			ip = RBASE - 64 + rnd() % (RSPAN + RMAXSZ + 128);
			break;
		case 1: /* a symbol's first byte */
			ip = r[rnd() % RN].addr;
			break;
		default: { /* a symbol's last byte or the byte after */
			const struct rsym *s = &r[rnd() % RN];

			ip = s->addr + s->size - (q % 4 == 2 && s->size);
			break;
		}
		}
		check_same(hwbp_symtab_func(t, ip), ref_lookup(r, RN, ip, true));
		check_same(hwbp_symtab_at(t, ip), ref_lookup(r, RN, ip, false));
	}
	hwbp_symtab_free(t);
	free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_good),
		cmocka_unit_test(test_map_bad),
		cmocka_unit_test(test_map_file),
		cmocka_unit_test(test_size_inference),
		cmocka_unit_test(test_kallsyms_modules),
		cmocka_unit_test(test_lookup_edges),
		cmocka_unit_test(test_top_exact),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_elf_self),
		cmocka_unit_test(test_elf_synthetic),
		cmocka_unit_test(test_elf_qualified),
		cmocka_unit_test(test_random_table),
	};

	/* The test binary reads its own symbols: argv[0] when it is a path
	 * (meson runs tests by path), else the kernel's link to it. */
	if (argc > 0 && argv[0] && strchr(argv[0], '/'))
		self_path = argv[0];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
