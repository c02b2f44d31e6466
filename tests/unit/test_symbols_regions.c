/* SPDX-License-Identifier: MIT */
/*
 * Loaded objects' regions (tracer/symbols/symbols_regions.c): an IP in no
 * function is "NAME+0xOFF" with OFF = ip - bias inside a region, else
 * "0xADDR"; regions sorted whatever order they come in, overlaps and
 * bad ones refused; moved as KASLR moves a kernel; hwbp_symtab_load_elf()
 * adds the file's own (its
 * PT_LOAD span), so that this test binary, loaded at a bias, names its
 * own code by its file offsets, which nm of the same file confirms.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <hwbp/trace.h>

#include "symbols/symtab.h"
#include "symbols/symbols_int.h"

static struct hwbp_symtab *new_tab(void)
{
	int err = 1;
	struct hwbp_symtab *t = hwbp_symtab_new(&err);

	assert_non_null(t);
	assert_int_equal(err, 0);
	return t;
}

static void test_describe(void **state)
{
	static const struct {
		uint64_t ip;
		const char *want;
	} rows[] = {
		{ 0x7f0000001234, "libfoo.so.1+0x1234" },    /* bias 0x7f0000000000 */
		{ 0x7f0000000000, "libfoo.so.1+0x0" },       /* lo is inside */
		{ 0x7f0000020fff, "libfoo.so.1+0x20fff" },
		{ 0x7f0000021000, "0x7f0000021000" },        /* hi is not */
		{ 0x555500001000, "prog+0x1000" },            /* a PIE: file offsets too */
		{ 0x401000, "static+0x401000" },              /* bias 0: the address */
		{ 0x1000, "0x1000" },
		{ UINT64_MAX, "0xffffffffffffffff" },
	};
	struct hwbp_symtab *t = new_tab();
	char buf[HWBPI_SYMTAB_DESCRIBE_MAX];

	(void)state;
	/* Out of order: kept sorted. */
	assert_int_equal(hwbpi_symtab_add_region(t, 0x7f0000000000, 0x7f0000021000, 0x7f0000000000,
						 "/usr/lib/libfoo.so.1"), 0);
	assert_int_equal(hwbpi_symtab_add_region(t, 0x400000, 0x402000, 0, "static"), 0);
	assert_int_equal(hwbpi_symtab_add_region(t, 0x555500000000, 0x555500003000, 0x555500000000,
						 "/tmp/x/prog"), 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		hwbpi_symtab_describe(t, rows[i].ip, buf, sizeof(buf));
		assert_string_equal(buf, rows[i].want);
	}
	/* The same once finished; and an unfinished or NULL table. */
	assert_int_equal(hwbp_symtab_finish(t), 0);
	assert_string_equal(hwbpi_symtab_describe(t, 0x7f0000001234, buf, sizeof(buf)),
			    "libfoo.so.1+0x1234");
	assert_string_equal(hwbpi_symtab_describe(NULL, 0x7f0000001234, buf, sizeof(buf)),
			    "0x7f0000001234");
	/* Cut to fit; nothing without room. */
	assert_string_equal(hwbpi_symtab_describe(t, 0x7f0000001234, buf, 8), "libfoo.");
	assert_string_equal(hwbpi_symtab_describe(t, 0x7f0000001234, buf, 0), "");
	assert_string_equal(hwbpi_symtab_describe(t, 0x7f0000001234, NULL, 8), "");
	hwbp_symtab_free(t);
}

static void test_add_errors(void **state)
{
	struct hwbp_symtab *t = new_tab();
	char buf[64];

	(void)state;
	assert_int_equal(hwbpi_symtab_add_region(t, 0x2000, 0x3000, 0, "a"), 0);
	/* Overlaps, from either side or inside; touching is fine. */
	assert_int_equal(hwbpi_symtab_add_region(t, 0x1000, 0x2001, 0, "b"), -EEXIST);
	assert_int_equal(hwbpi_symtab_add_region(t, 0x2fff, 0x4000, 0, "b"), -EEXIST);
	assert_int_equal(hwbpi_symtab_add_region(t, 0x2100, 0x2200, 0, "b"), -EEXIST);
	assert_int_equal(hwbpi_symtab_add_region(t, 0x1000, 0x5000, 0, "b"), -EEXIST);
	assert_int_equal(hwbpi_symtab_add_region(t, 0x1000, 0x2000, 0x1000, "b"), 0);
	assert_int_equal(hwbpi_symtab_add_region(t, 0x3000, 0x4000, 0x3000, "c/"), 0);
	assert_string_equal(hwbpi_symtab_describe(t, 0x1fff, buf, sizeof(buf)), "b+0xfff");
	assert_string_equal(hwbpi_symtab_describe(t, 0x2000, buf, sizeof(buf)), "a+0x2000");
	assert_string_equal(hwbpi_symtab_describe(t, 0x3001, buf, sizeof(buf)), "c/+0x1");
	/* Bad ones. */
	assert_int_equal(hwbpi_symtab_add_region(NULL, 0x9000, 0xa000, 0, "x"), -EINVAL);
	assert_int_equal(hwbpi_symtab_add_region(t, 0x9000, 0x9000, 0, "x"), -EINVAL);
	assert_int_equal(hwbpi_symtab_add_region(t, 0xa000, 0x9000, 0, "x"), -EINVAL);
	assert_int_equal(hwbpi_symtab_add_region(t, 0x9000, 0xa000, 0, ""), -EINVAL);
	assert_int_equal(hwbpi_symtab_add_region(t, 0x9000, 0xa000, 0, NULL), -EINVAL);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	assert_int_equal(hwbpi_symtab_add_region(t, 0x9000, 0xa000, 0, "x"), -EBUSY);
	hwbp_symtab_free(t);
}

/* KASLR: a kernel image's region moves with its symbols; its offsets
 * stay link addresses (what addr2line -e vmlinux takes). */
static void test_move(void **state)
{
	struct hwbp_symtab *t = new_tab();
	char buf[64];

	(void)state;
	assert_int_equal(hwbpi_symtab_add_region(t, 0xffffffff81000000ull, 0xffffffff83000000ull, 0,
						 "/boot/vmlinux-6.1"), 0);
	hwbpi_symtab_move_regions(t, 0x1e000000);
	assert_string_equal(hwbpi_symtab_describe(t, 0xffffffff9f000010ull, buf, sizeof(buf)),
			    "vmlinux-6.1+0xffffffff81000010");
	assert_string_equal(hwbpi_symtab_describe(t, 0xffffffff81000010ull, buf, sizeof(buf)),
			    "0xffffffff81000010");
	/* Addresses are modulo 2^64: past it the region is still itself. */
	hwbpi_symtab_move_regions(t, 0x1000000000000000ull);
	assert_string_equal(hwbpi_symtab_describe(t, 0x0fffffff9f000010ull, buf, sizeof(buf)),
			    "vmlinux-6.1+0xffffffff81000010");
	hwbp_symtab_free(t);
	/* A move that would make a region straddle 2^64, or put a region
	 * that wrapped before one that did not: no region names anything. */
	t = new_tab();
	assert_int_equal(hwbpi_symtab_add_region(t, 0xfffffffff0000000ull, 0xfffffffff8000000ull, 0,
						 "a"), 0);
	hwbpi_symtab_move_regions(t, 0xc000000);
	assert_string_equal(hwbpi_symtab_describe(t, 0xfffffffffc000010ull, buf, sizeof(buf)),
			    "0xfffffffffc000010");
	hwbp_symtab_free(t);
	t = new_tab();
	assert_int_equal(hwbpi_symtab_add_region(t, 0x1000, 0x2000, 0, "low"), 0);
	assert_int_equal(hwbpi_symtab_add_region(t, 0xfffffffff0000000ull, 0xfffffffff8000000ull, 0,
						 "high"), 0);
	hwbpi_symtab_move_regions(t, 0x10000000);
	assert_string_equal(hwbpi_symtab_describe(t, 0x10001010, buf, sizeof(buf)), "0x10001010");
	hwbp_symtab_free(t);
}

/* Many regions, added in a scrambled order: each found, gaps not. */
static void test_many(void **state)
{
	struct hwbp_symtab *t = new_tab();
	char buf[64], want[64];

	(void)state;
	for (unsigned k = 0; k < 500; k++) {
		unsigned i = (k * 7919u) % 500u;   /* a permutation of 0..499 */
		char name[16];

		snprintf(name, sizeof(name), "lib%u.so", i);
		assert_int_equal(hwbpi_symtab_add_region(t, 0x100000ull * (i + 1),
							 0x100000ull * (i + 1) + 0x8000,
							 0x100000ull * (i + 1) - 0x1000, name), 0);
	}
	for (unsigned i = 0; i < 500; i++) {
		snprintf(want, sizeof(want), "lib%u.so+0x1010", i);
		assert_string_equal(hwbpi_symtab_describe(t, 0x100000ull * (i + 1) + 0x10, buf,
							  sizeof(buf)), want);
		snprintf(want, sizeof(want), "0x%llx", 0x100000ull * (i + 1) + 0x8000);
		assert_string_equal(hwbpi_symtab_describe(t, 0x100000ull * (i + 1) + 0x8000, buf,
							  sizeof(buf)), want);
	}
	hwbp_symtab_free(t);
}

/* This binary's own region: a function of it at bias B is
 * "exe+0x(its address in the file)", the address its .symtab gives. */
static void test_elf_region(void **state)
{
	struct hwbp_symtab *t = new_tab(), *plain = new_tab();
	const uint64_t bias = 0x100000000000ull;
	const struct hwbp_sym *s;
	char buf[HWBPI_SYMTAB_DESCRIBE_MAX], want[64];
	int n;

	(void)state;
	n = hwbp_symtab_load_elf(plain, "/proc/self/exe", 0);
#ifndef HWBP_HAVE_LIBELF
	assert_int_equal(n, -EOPNOTSUPP);
	hwbp_symtab_free(t);
	hwbp_symtab_free(plain);
	return;
#endif
	assert_true(n > 0);
	assert_int_equal(hwbp_symtab_finish(plain), 0);
	s = hwbp_symtab_find(plain, "test_elf_region");
	assert_non_null(s);
	assert_true(hwbp_symtab_load_elf(t, "/proc/self/exe", bias) == n);
	/* Loading it again overlaps: the symbols come, the region stays one. */
	assert_true(hwbp_symtab_load_elf(t, "/proc/self/exe", bias) == n);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	snprintf(want, sizeof(want), "exe+0x%llx", (unsigned long long)s->addr + 1);
	assert_string_equal(hwbpi_symtab_describe(t, bias + s->addr + 1, buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)s->addr + 1);
	assert_string_equal(hwbpi_symtab_describe(t, s->addr + 1, buf, sizeof(buf)), want);
	hwbp_symtab_free(t);
	hwbp_symtab_free(plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_add_errors),
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_elf_region),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
