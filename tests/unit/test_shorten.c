/* SPDX-License-Identifier: MIT */
/*
 * Shortened names for the histogram's table (tracer/output/shorten.c): the
 * three steps in order, names that fit unchanged, UTF-8 never split, and
 * an output buffer too small.
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

#include "output/shorten.h"

#define A10 "aaaaaaaaaa"
#define E10 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"

static const struct {
	size_t width;
	const char *in, *out;
} cases[] = {
	/* fit: unchanged */
	{ 60, "", "" },
	{ 60, "main", "main" },
	{ 60, "ns::f(std::vector<int, std::allocator<int> > const&)",
	  "ns::f(std::vector<int, std::allocator<int> > const&)" },
	{ 60, A10 A10 A10 A10 A10 A10, A10 A10 A10 A10 A10 A10 },        /* exactly 60 */
	{ 60, E10 E10 E10 E10 E10 E10, E10 E10 E10 E10 E10 E10 },        /* 60 columns, 120 bytes */
	/* 1: the parameter list */
	{ 40, "ns::f(std::vector<int, std::allocator<int> > const&)", "ns::f(...)" },
	{ 60, "ns::function(std::vector<int, std::allocator<int> > const&, std::map<int, int>)",
	  "ns::function(...)" },
	{ 20, "ns::f(int, int, int) const", "ns::f(...) const" },
	{ 40, "(anonymous namespace)::foo(long, long, long, long, long)",
	  "(anonymous namespace)::foo(...)" },
	{ 20, "ns::operator<(A const&, B const&)", "ns::operator<(...)" },
	{ 20, "A::operator()(int, int, int)", "A::operator()(...)" },
	{ 44, "f(int)::{lambda()#1}::operator()(int, int, int) const",
	  "f(int)::{lambda()#1}::operator()(...) const" },
	/* 2: templates, the innermost level first */
	{ 20, "a::b<std::map<K, V> >::c", "a::b<...>::c" },
	{ 24, "a::b<std::map<K, V> >::cc", "a::b<std::map<...> >::cc" },
	{ 40, "ns::f<std::vector<std::pair<int, int>, std::allocator<std::pair<int, int> > > >(int)",
	  "ns::f<std::vector<...> >(int)" },
	{ 40, "core::ptr::drop_in_place<alloc::vec::Vec<fn() -> i32>>",
	  "core::ptr::drop_in_place<...>" },
	{ 60, "std::_Rb_tree<int, std::pair<int const, int>, std::_Select1st<std::pair<int const, int> "
	      ">, std::less<int>, std::allocator<std::pair<int const, int> > >::_M_erase(std::_Rb_tree_"
	      "node<std::pair<int const, int> >*)",
	  "std::_Rb_tree<...>::_M_erase(...)" },
	{ 110, "std::_Rb_tree<int, std::pair<int const, int>, std::_Select1st<std::pair<int const, int> "
	       ">, std::less<int>, std::allocator<std::pair<int const, int> > >::_M_erase(std::_Rb_tree_"
	       "node<std::pair<int const, int> >*)",
	  "std::_Rb_tree<int, std::pair<...>, std::_Select1st<...>, std::less<int>, "
	  "std::allocator<...> >::_M_erase(...)" },
	/* 3: cut + "..." */
	{ 60, A10 A10 A10 A10 A10 A10 "a", A10 A10 A10 A10 A10 "aaaaaaa..." },
	{ 10, "abcdefghijklmnopqrstuvwxyz", "abcdefg..." },
	{ 20, "std::function<void (int, int)>::call(int, int)", "std::function<......" },
	/* UTF-8 at the cut point: whole characters (2 bytes each) */
	{ 10, E10 "x", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9..." },
	{ 10, "a" E10, "a\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9..." },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static size_t columns(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void test_table(void **state)
{
	char buf[512];

	(void)state;
	for (size_t i = 0; i < NCASES; i++) {
		memset(buf, 'x', sizeof(buf));
		assert_int_equal(hwbpi_name_shorten(cases[i].in, buf, sizeof(buf), cases[i].width), 0);
		if (strcmp(buf, cases[i].out) != 0)
			fail_msg("case %zu: '%s' -> '%s', expected '%s'", i, cases[i].in, buf,
				 cases[i].out);
		assert_true(columns(buf) <= cases[i].width);
	}
}

/* Every width on one long name: at most @width columns, never longer than
 * the name, and a UTF-8 sequence never split. */
static void test_widths(void **state)
{
	const char *in = "ns::f<std::map<K\xc3\xa9, V\xe2\x82\xac> >::g(std::vector<int> const&) const";
	char buf[256];

	(void)state;
	for (size_t w = 4; w < 80; w++) {
		assert_int_equal(hwbpi_name_shorten(in, buf, sizeof(buf), w), 0);
		assert_true(columns(buf) <= w);
		assert_true(strlen(buf) <= strlen(in));
		if (columns(in) <= w)
			assert_string_equal(buf, in);
		for (size_t j = 0; buf[j]; j++)
			if (((unsigned char)buf[j] & 0xc0) == 0x80)
				assert_true(j > 0 && (unsigned char)buf[j - 1] >= 0x80);
	}
}

static void test_errors(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(hwbpi_name_shorten(NULL, buf, sizeof(buf), 60), -EINVAL);
	assert_int_equal(hwbpi_name_shorten("main", NULL, 8, 60), -EINVAL);
	assert_int_equal(hwbpi_name_shorten("main", buf, 0, 60), -EINVAL);
	assert_int_equal(hwbpi_name_shorten("main", buf, sizeof(buf), 3), -EINVAL);
	assert_int_equal(hwbpi_name_shorten("main", buf, sizeof(buf), 4), 0);
	assert_string_equal(buf, "main");
}

/* A tiny @out: -ENOSPC, NUL-terminated, cut at a character boundary. */
static void test_small_out(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(hwbpi_name_shorten("main", buf, 1, 60), -ENOSPC);
	assert_string_equal(buf, "");
	assert_int_equal(buf[1], 'x');
	assert_int_equal(hwbpi_name_shorten("main", buf, 4, 60), -ENOSPC);
	assert_string_equal(buf, "mai");
	assert_int_equal(hwbpi_name_shorten("main", buf, 5, 60), 0);
	assert_string_equal(buf, "main");
	/* "é" is 2 bytes: 4 bytes hold one and the NUL, not two */
	assert_int_equal(hwbpi_name_shorten(E10, buf, 4, 60), -ENOSPC);
	assert_string_equal(buf, "\xc3\xa9");
	assert_int_equal(hwbpi_name_shorten(E10, buf, 5, 60), -ENOSPC);
	assert_string_equal(buf, "\xc3\xa9\xc3\xa9");
	/* a shortened name too */
	assert_int_equal(hwbpi_name_shorten(A10 A10 A10 A10 A10 A10 A10, buf, sizeof(buf), 60),
			 -ENOSPC);
	assert_string_equal(buf, "aaaaaaa");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_small_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
