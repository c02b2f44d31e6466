/* SPDX-License-Identifier: MIT */
/*
 * Debug information (tracer/symbols/dwarf.c): hwbpi_dwarf_new's refusals, source
 * lines of this test's own functions (marked with their __LINE__), cached
 * per address; the separate debug file of a stripped copy of this test
 * (strip(1)) found by name beside it, in .debug/ and by build-id under
 * another root, refused when it is another program's, and the symbols a
 * table then loads from it (letters from the stripped file's sections).
 * A build without libdw: every search and lookup says -EOPNOTSUPP.
 */
#define _XOPEN_SOURCE 700   /* realpath, mkdtemp */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <hwbp/trace.h>

#include "symbols/dwarf.h"

#ifdef HWBP_HAVE_LIBDW
#include <gelf.h>
#endif

/* Each on one line, so that all its instructions have that line. */
__attribute__((noinline)) int dwarf_marker_a(int x) { return 3 * x + 1; } static const unsigned line_a = __LINE__;
__attribute__((noinline)) int dwarf_marker_b(int x) { return 5 * x + 2; } static const unsigned line_b = __LINE__;
int dwarf_data = 7;        /* 'D' */
static int dwarf_bss;      /* 'b' */

static char tmp[256];
static char self[PATH_MAX];   /* this test's path (in a shell, /proc/self is the shell) */

static int setup_all(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(tmp, sizeof(tmp), "%s/test_dwarf_XXXXXX", t && *t ? t : "/tmp");
	return mkdtemp(tmp) && realpath("/proc/self/exe", self) ? 0 : -1;
}

static int teardown_all(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run(const char *fmt, ...)
{
	char cmd[3 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* This test's load bias: a marker's address less its symbol's value. */
static uint64_t self_bias(void)
{
	int err;
	struct hwbp_symtab *t = hwbp_symtab_new(&err);
	const struct hwbp_sym *s;
	uint64_t bias;

	assert_non_null(t);
	assert_true(hwbp_symtab_load_elf(t, "/proc/self/exe", 0) > 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	s = hwbp_symtab_find(t, "dwarf_marker_a");
	assert_non_null(s);
	bias = (uint64_t)(uintptr_t)&dwarf_marker_a - s->addr;
	hwbp_symtab_free(t);
	return bias;
}

/* ---- hwbpi_dwarf_new ------------------------------------------------ */

static void test_new(void **state)
{
	char colon[300];
	const struct {
		const char *dir;
		bool lines;
		int err;        /* with libdw */
		int err_nodw;   /* without */
	} cases[] = {
		{ NULL, false, 0, 0 },
		{ NULL, true, 0, -EOPNOTSUPP },
		{ tmp, false, 0, -EOPNOTSUPP },
		{ tmp, true, 0, -EOPNOTSUPP },
		{ "/nonexistent/debug", false, -ENOENT, -EOPNOTSUPP },
		{ "/proc/self/exe", false, -ENOTDIR, -EOPNOTSUPP },
		{ colon, false, -EINVAL, -EOPNOTSUPP },
	};

	(void)state;
	snprintf(colon, sizeof(colon), "%s/a:b", tmp);
	assert_int_equal(mkdir(colon, 0700), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = 1;
		struct hwbpi_dwarf *d = hwbpi_dwarf_new(cases[i].dir, cases[i].lines, &err);
#ifdef HWBP_HAVE_LIBDW
		int want = cases[i].err;
#else
		int want = cases[i].err_nodw;
#endif

		assert_int_equal(err, want);
		assert_true((d != NULL) == (want == 0));
		hwbpi_dwarf_free(d);
	}
	hwbpi_dwarf_free(NULL);
	assert_int_equal(rmdir(colon), 0);
}

/* ---- source lines --------------------------------------------------- */

static void test_srcline(void **state)
{
	uint64_t bias = self_bias();
	uint64_t a = (uint64_t)(uintptr_t)&dwarf_marker_a, b = (uint64_t)(uintptr_t)&dwarf_marker_b;
	const struct {
		uint64_t ip;
		unsigned line;     /* 0: none */
	} cases[] = {
		{ a, line_a },
		{ a + 1, line_a },    /* inside its first instruction, or the next */
		{ b, line_b },
		{ a, line_a },        /* again: from the cache */
		{ 16, 0 },            /* no file there */
	};
	struct hwbpi_dwarf *d;
	const char *file = NULL, *first = NULL;
	unsigned line = 0;
	char dbg[8];
	int err;

	(void)state;
	assert_int_equal(dwarf_marker_a(1) + dwarf_marker_b(1), 11);
#ifndef HWBP_HAVE_LIBDW
	d = hwbpi_dwarf_new(NULL, false, &err);
	assert_non_null(d);
	assert_int_equal(hwbpi_dwarf_file(d, "/proc/self/exe", "/proc/self/exe", bias, false, NULL, 0), 0);
	assert_int_equal(hwbpi_dwarf_srcline(d, a, &file, &line), -EOPNOTSUPP);
	assert_int_equal(hwbpi_dwarf_file(d, "/proc/self/exe", "/proc/self/exe", bias, true, dbg,
					  sizeof(dbg)), -EOPNOTSUPP);
	hwbpi_dwarf_free(d);
	(void)cases;
	(void)first;
#else
	d = hwbpi_dwarf_new(NULL, true, &err);
	assert_non_null(d);
	assert_int_equal(hwbpi_dwarf_file(d, "/proc/self/exe", "/proc/self/exe", bias, false, NULL, 0), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = hwbpi_dwarf_srcline(d, cases[i].ip, &file, &line);

		if (!cases[i].line) {
			assert_int_equal(r, -ENOENT);
			continue;
		}
		assert_int_equal(r, 0);
		assert_string_equal(file, "test_dwarf.c");
		assert_int_equal(line, cases[i].line);
		if (!first)
			first = file;
		assert_ptr_equal(file, first);   /* one name, libdw's, for every line */
	}
	assert_int_equal(hwbpi_dwarf_srcline(d, a, NULL, &line), -EINVAL);
	assert_int_equal(hwbpi_dwarf_srcline(NULL, a, &file, &line), -EINVAL);
	/* no .symtab asked for, nothing stripped */
	{
		struct hwbpi_dwarf_debug g;

		assert_false(hwbpi_dwarf_stripped(d, 0, &g));
	}
	hwbpi_dwarf_free(d);
	(void)dbg;
#endif
	assert_int_equal(hwbpi_dwarf_file(NULL, "x", NULL, 0, false, NULL, 0), -EINVAL);
}

/* ---- separate debug files ------------------------------------------- */

#ifdef HWBP_HAVE_LIBDW
/* The hex build-id of this test ("xx", "rest"). */
static void self_build_id(char *xx, char *rest)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	bool found = false;

	assert_true(fd >= 0);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	while (!found && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *data;
		size_t off = 0, name, desc;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(data = elf_getdata(scn, NULL)))
			continue;
		while (!found && (off = gelf_getnote(data, off, &nh, &name, &desc)) > 0) {
			const unsigned char *id = (const unsigned char *)data->d_buf + desc;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz < 2)
				continue;
			sprintf(xx, "%02x", id[0]);
			for (size_t i = 1; i < nh.n_descsz; i++)
				sprintf(rest + 2 * (i - 1), "%02x", id[i]);
			found = true;
		}
	}
	elf_end(e);
	close(fd);
	assert_true(found);
}

/* One search for @x in a fresh set with root @dir (NULL: none): its
 * result, and what the set recorded of it (@how when found). */
static int search(const char *dir, const char *x, char *dbg, size_t n, const char *how)
{
	struct hwbpi_dwarf_debug g;
	int err, r;
	struct hwbpi_dwarf *d = hwbpi_dwarf_new(dir, false, &err);

	assert_non_null(d);
	r = hwbpi_dwarf_file(d, x, x, 0, true, dbg, n);
	assert_true(hwbpi_dwarf_stripped(d, 0, &g));
	assert_string_equal(g.file, x);
	assert_int_equal(g.err, r == -ENAMETOOLONG ? 0 : r);
	assert_false(g.system);   /* not under /usr/lib/debug */
	if (r == 0 || r == -ENAMETOOLONG) {
		assert_non_null(g.debug);
		assert_string_equal(g.how, how);
	} else {
		assert_null(g.debug);
		assert_null(g.how);
	}
	assert_false(hwbpi_dwarf_stripped(d, 1, &g));
	hwbpi_dwarf_free(d);
	return r;
}
#endif

static void test_debug_file(void **state)
{
	char x[300], dbg[PATH_MAX], want[PATH_MAX], root[300], xx[4], rest[160];
	struct hwbpi_dwarf_debug g;
	struct hwbpi_dwarf *d;
	int err;

	(void)state;
	/* A copy of this test without .symtab (with its build-id), and as its
	 * debug files copies of the whole test: the same build-id. */
	snprintf(x, sizeof(x), "%s/x", tmp);
	run("strip --strip-all -o '%s' '%s'", x, self);
#ifndef HWBP_HAVE_LIBDW
	d = hwbpi_dwarf_new(NULL, false, &err);
	assert_non_null(d);
	assert_int_equal(hwbpi_dwarf_file(d, x, x, 0, true, dbg, sizeof(dbg)), -EOPNOTSUPP);
	assert_true(hwbpi_dwarf_stripped(d, 0, &g));
	assert_string_equal(g.file, x);
	assert_null(g.debug);
	assert_int_equal(g.err, -EOPNOTSUPP);
	hwbpi_dwarf_free(d);
	(void)want;
	(void)root;
	(void)xx;
	(void)rest;
#else
	self_build_id(xx, rest);
	/* none yet; another program's beside it (its build-id differs);
	 * x.debug beside it (no .gnu_debuglink: by name); in .debug/ */
	assert_int_equal(search(NULL, x, dbg, sizeof(dbg), NULL), -ENOENT);
	run("cp /bin/sh '%s.debug'", x);
	assert_int_equal(search(NULL, x, dbg, sizeof(dbg), NULL), -ENOENT);
	run("cp '%s' '%s.debug'", self, x);
	snprintf(want, sizeof(want), "%s.debug", x);
	assert_int_equal(search(NULL, x, dbg, sizeof(dbg), "name"), 0);
	assert_string_equal(dbg, want);
	assert_int_equal(search(NULL, x, dbg, 4, "name"), -ENAMETOOLONG);
	/* the default search alone, nothing kept */
	assert_int_equal(hwbpi_dwarf_file(NULL, x, x, 0, true, dbg, sizeof(dbg)), 0);
	assert_string_equal(dbg, want);
	run("mkdir '%s/.debug' && mv '%s.debug' '%s/.debug/x.debug'", tmp, x, tmp);
	snprintf(want, sizeof(want), "%s/.debug/x.debug", tmp);
	assert_int_equal(search(NULL, x, dbg, sizeof(dbg), "name"), 0);
	assert_string_equal(dbg, want);
	/* recorded twice: once, the first answer standing (the debug file
	 * gone since) */
	d = hwbpi_dwarf_new(NULL, false, &err);
	assert_non_null(d);
	assert_int_equal(hwbpi_dwarf_file(d, x, x, 0, true, dbg, sizeof(dbg)), 0);
	run("rm -r '%s/.debug'", tmp);
	assert_int_equal(hwbpi_dwarf_file(d, x, x, 0, true, dbg, sizeof(dbg)), 0);
	assert_string_equal(dbg, want);
	assert_true(hwbpi_dwarf_stripped(d, 0, &g));
	assert_false(hwbpi_dwarf_stripped(d, 1, &g));
	hwbpi_dwarf_free(d);

	/* by build-id under another root; not without it */
	snprintf(root, sizeof(root), "%s/root", tmp);
	run("mkdir -p '%s/.build-id/%s' && cp '%s' '%s/.build-id/%s/%s.debug'", root, xx, self, root,
	    xx, rest);
	assert_int_equal(search(NULL, x, dbg, sizeof(dbg), NULL), -ENOENT);
	assert_int_equal(search(root, x, dbg, sizeof(dbg), "build-id"), 0);
	snprintf(want, sizeof(want), "%s/.build-id/%s/%s.debug", root, xx, rest);
	{
		char *real = realpath(want, NULL);

		assert_non_null(real);
		assert_string_equal(dbg, real);
		free(real);
	}

	/* A table given @d reads the stripped file's symbols from there, at
	 * its bias, typed by the stripped file's sections. */
	{
		struct hwbp_symtab *t = hwbp_symtab_new(&err);
		const struct hwbp_sym *s;
		const struct {
			const char *name;
			uint64_t addr;
			char type;
		} syms[] = {
			{ "dwarf_marker_b", (uint64_t)(uintptr_t)&dwarf_marker_b, 'T' },
			{ "dwarf_data", (uint64_t)(uintptr_t)&dwarf_data, 'D' },
			{ "dwarf_bss", (uint64_t)(uintptr_t)&dwarf_bss, 'b' },
		};
		uint64_t bias = self_bias();

		d = hwbpi_dwarf_new(root, false, &err);
		assert_non_null(d);
		assert_non_null(t);
		hwbpi_symtab_set_dwarf(t, d);
		assert_ptr_equal(hwbpi_symtab_dwarf(t), d);
		assert_true(hwbp_symtab_load_elf(t, x, bias) > 0);
		assert_int_equal(hwbp_symtab_finish(t), 0);
		for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
			s = hwbp_symtab_find(t, syms[i].name);
			assert_non_null(s);
			assert_int_equal(s->addr, syms[i].addr);
			assert_int_equal(s->type, syms[i].type);
		}
		hwbp_symtab_free(t);
		/* the note's facts */
		assert_true(hwbpi_dwarf_stripped(d, 0, &g));
		assert_string_equal(g.file, x);
		assert_string_equal(g.debug, dbg);
		assert_string_equal(g.how, "build-id");
		assert_int_equal(g.err, 0);
		assert_false(hwbpi_dwarf_stripped(d, 1, &g));
		hwbpi_dwarf_free(d);
	}
	/* without a debug file, the .dynsym alone: no marker */
	run("rm -r '%s'", root);
	{
		struct hwbp_symtab *t = hwbp_symtab_new(&err);

		assert_non_null(t);
		assert_true(hwbp_symtab_load_elf(t, x, 0) >= 0);
		assert_int_equal(hwbp_symtab_finish(t), 0);
		assert_null(hwbp_symtab_find(t, "dwarf_marker_b"));
		hwbp_symtab_free(t);
	}
#endif
	assert_int_equal(dwarf_bss + dwarf_data, 7);
	assert_int_equal(unlink(x), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new),
		cmocka_unit_test(test_srcline),
		cmocka_unit_test(test_debug_file),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
