/* SPDX-License-Identifier: MIT */
/*
 * The shape of names (tracer/symbols/names.c): atoms (operators, arrows,
 * escapes), the library separator, the parts of "LIB:NAME@QUAL", a
 * demangled function's parameter list and return type, the identifier
 * every mangling spells, patterns.  Each
 * table row is a name as libiberty prints it or as a user types it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "symbols/names.h"

#define NONE HWBPI_NAME_NONE

static void test_atoms(void **state)
{
	static const struct {
		const char *s;
		size_t i, len;
	} rows[] = {
		{ "operator+=", 0, 10 },
		{ "operator+", 0, 9 },
		{ "operator++", 0, 10 },
		{ "operator()", 0, 10 },
		{ "operator[]", 0, 10 },
		{ "operator->*", 0, 11 },
		{ "operator->", 0, 10 },
		{ "operator<=>", 0, 11 },
		{ "operator<<=", 0, 11 },
		{ "operator<<", 0, 10 },
		{ "operator< <int>", 0, 9 },     /* a template operator<: the blank */
		{ "operator/", 0, 9 },
		{ "operator//4", 0, 9 },         /* the symbol, then "/4" */
		{ "operator\"\" _km", 0, 10 },
		{ "operator,", 0, 9 },
		{ "a::operator=(a const&)", 3, 9 },
		{ "operator new", 0, 0 },        /* a word: not an atom */
		{ "operator int", 0, 0 },
		{ "operators::x", 0, 0 },        /* an identifier */
		{ "my_operator+", 3, 0 },        /* not a whole word */
		{ "operator", 0, 0 },
		{ "fn() -> i32", 5, 2 },
		{ "a\\[b", 1, 2 },
		{ "a\\", 1, 1 },
		{ "abc", 1, 0 },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		size_t got = hwbpi_name_atom(rows[k].s, rows[k].i, strlen(rows[k].s));

		if (got != rows[k].len)
			print_error("'%s' at %zu: %zu, want %zu\n", rows[k].s, rows[k].i, got,
				    rows[k].len);
		assert_int_equal(got, rows[k].len);
	}
	/* The limit counts: "operator+" cut before its symbol is no atom. */
	assert_int_equal(hwbpi_name_atom("operator+", 0, 8), 0);
	assert_int_equal(hwbpi_name_atom("ab", 2, 2), 0);
}

static void test_lib_sep(void **state)
{
	static const struct {
		const char *s;
		size_t at;
	} rows[] = {
		{ "libc.so.6:optind", 9 },
		{ "app::hits", NONE },
		{ "libapp.so:app::hits", 9 },
		{ "app::name[abi:cxx11]()", NONE },
		{ "lib.so:app::name[abi:cxx11]()", 6 },
		{ "f(a:b)::x", NONE },
		{ "a:::b", 3 },                  /* "::" then a lone ':' */
		{ "pid_max:", 7 },
		{ ":x", 0 },
		{ "x", NONE },
		{ "std::map<int, int>::operator[](int const&)", NONE },
		{ "ns::operator<:x", 13 },       /* "operator<" opens nothing */
		{ "a\\[b:c\\]:x", 8 },           /* escaped brackets nest */
	};

	(void)state;
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		size_t got = hwbpi_name_lib_sep(rows[k].s, strlen(rows[k].s));

		if (got != rows[k].at)
			print_error("'%s': %zu, want %zu\n", rows[k].s, got, rows[k].at);
		assert_true(got == rows[k].at);
	}
	/* Only within the limit. */
	assert_true(hwbpi_name_lib_sep("abc:d", 3) == NONE);
}

static void test_split(void **state)
{
	static const struct {
		const char *s;
		size_t lib_len, name, name_len, qual, qual_len;
	} rows[] = {
		{ "optind", NONE, 0, 6, NONE, NONE },
		{ "optind@GLIBC_2.2.5", NONE, 0, 6, 7, 11 },
		{ "optind@@GLIBC_2.2.5", NONE, 0, 6, 8, 11 },
		{ "libc.so.6:optind@GLIBC_2.2.5", 9, 10, 6, 17, 11 },
		{ "app::hits@libapp.so", NONE, 0, 9, 10, 9 },
		{ "lib.so:app::f(int)", 6, 7, 11, NONE, NONE },
		{ "x@", NONE, 0, 1, 2, 0 },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		struct hwbpi_name_parts p;

		hwbpi_name_split(rows[k].s, &p);
		if (p.lib_len != rows[k].lib_len || p.name != rows[k].name ||
		    p.name_len != rows[k].name_len || p.qual != rows[k].qual ||
		    p.qual_len != rows[k].qual_len)
			print_error("'%s': lib %zu name %zu+%zu qual %zu+%zu\n", rows[k].s, p.lib_len,
				    p.name, p.name_len, p.qual, p.qual_len);
		assert_true(p.lib_len == rows[k].lib_len);
		assert_true(p.name == rows[k].name);
		assert_true(p.name_len == rows[k].name_len);
		assert_true(p.qual == rows[k].qual);
		assert_true(p.qual_len == rows[k].qual_len);
	}
}

/* Demangled names: where the name starts past a return type, and where
 * its parameter list opens. */
static void test_shape(void **state)
{
	static const struct {
		const char *s;
		size_t start, params;
	} rows[] = {
		{ "app::bump(int)", 0, 9 },
		{ "app::hits", 0, NONE },
		{ "void app::store<long>(long)", 5, 21 },
		{ "unsigned long app::f<int>(int)", 14, 25 },
		{ "std::pair<int, int> app::g<int>()", 20, 31 },
		{ "char const* app::h<char>(char)", 12, 24 },
		{ "bool app::operator< <app::X>(app::X const&, app::X const&)", 5, 28 },
		{ "app::C::operator()(int) const", 0, 18 },
		{ "app::C::operator()", 0, NONE },
		{ "app::C::operator int() const", 0, 20 },
		{ "app::f() &&", 0, 6 },
		{ "foo(int) [clone .cold]", 0, 3 },
		{ "(anonymous namespace)::counter", 0, NONE },
		{ "(anonymous namespace)::f(int)", 0, 24 },
		{ "app::f(int)::counter", 0, NONE },  /* a function's static */
		{ "f()::{lambda()#1}::operator()() const", 0, 29 },
		{ "app::name[abi:cxx11]()", 0, 20 },
		{ "non-virtual thunk to app::D::f()", 0, 30 },  /* no '>': no return type */
		{ "vtable for app::Foo", 0, NONE },
		{ "std::vector<int, std::allocator<int> >::push_back(int const&)", 0, 49 },
		{ "core::ptr::drop_in_place<fn() -> i32>", 0, NONE },
		{ "app::f(int", 0, NONE },            /* not closed */
	};

	(void)state;
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		const char *s = rows[k].s;
		size_t n = strlen(s), start, params;

		hwbpi_name_shape(s, n, &start, &params);
		if (start != rows[k].start || params != rows[k].params)
			print_error("'%s': start %zu params %zu\n", s, start, params);
		assert_true(start == rows[k].start);
		assert_true(params == rows[k].params);
		assert_true(hwbpi_name_skip_return(s, n) == start);
		assert_true(hwbpi_name_params(s, start, n) == params);
	}
}

/* The identifier every mangling of a demangled name spells, or none. */
static void test_literal(void **state)
{
	static const struct {
		const char *s;
		const char *ident;   /* NULL: none to rely on */
	} rows[] = {
		{ "node::per_process::cli_options_mutex", "cli_options_mutex" },
		{ "app::hits", "hits" },
		{ "hits", "hits" },
		{ "app::bump(int)", "bump" },
		{ "app::bump", "bump" },
		{ "void app::store<long>(long)", "store" },
		{ "app::store<long>", "store" },
		{ "app::slot<3>", "slot" },
		{ "app::name[abi:cxx11]()", "name" },
		{ "std::vector<int, std::allocator<int> >::push_back(int const&)", "push_back" },
		{ "f()::{lambda()#1}::operator()() const", NULL },
		{ "app::f(int)::counter", "counter" },
		{ "(anonymous namespace)::counter", "counter" },
		{ "core::fmt::write", "write" },
		{ "app::Foo::Foo()", NULL },               /* a constructor */
		{ "app::Foo<int>::Foo()", NULL },
		{ "app::Foo::~Foo()", NULL },
		{ "app::Counter::operator+=(int)", NULL },
		{ "app::C::operator int() const", NULL },
		{ "operator new(unsigned long)", NULL },
		{ "std::allocator<int>::allocate(unsigned long)", "allocate" },
		{ "std::string", NULL },                   /* "Ss" */
		{ "std::__cxx11::basic_string<char>", NULL },
		{ "vtable for app::Foo", "Foo" },
		{ "(anonymous namespace)", NULL },
		{ "app::9x", NULL },
		{ "app::", NULL },
		{ "app::f<int", NULL },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		size_t at = 99, len = 99;
		bool got = hwbpi_name_literal(rows[k].s, strlen(rows[k].s), &at, &len);

		if (got != !!rows[k].ident ||
		    (got && (len != strlen(rows[k].ident) || memcmp(rows[k].s + at, rows[k].ident, len))))
			print_error("'%s': %d %zu+%zu\n", rows[k].s, got, at, len);
		assert_true(got == !!rows[k].ident);
		if (got) {
			assert_int_equal(len, strlen(rows[k].ident));
			assert_memory_equal(rows[k].s + at, rows[k].ident, len);
		}
	}
}

static void test_pattern(void **state)
{
	static const struct {
		const char *s;
		bool pattern;
	} rows[] = {
		{ "node::per_process::*", true },
		{ "a?c", true },
		{ "[ab]x", true },
		{ "app::name[abi:cxx11]()", true },   /* a name first, if some symbol has it */
		{ "app::C::operator*", false },
		{ "app::C::operator*=(int)", false },
		{ "app::C::operator[]", false },
		{ "app::f(char*)", true },
		{ "app::\\*", false },                /* escaped */
		{ "app::hits", false },
		{ "", false },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		bool got = hwbpi_name_is_pattern(rows[k].s, strlen(rows[k].s));

		if (got != rows[k].pattern)
			print_error("'%s': %d\n", rows[k].s, got);
		assert_true(got == rows[k].pattern);
	}
}

static void test_closer(void **state)
{
	(void)state;
	assert_int_equal(hwbpi_name_closer('('), ')');
	assert_int_equal(hwbpi_name_closer('<'), '>');
	assert_int_equal(hwbpi_name_closer('['), ']');
	assert_int_equal(hwbpi_name_closer('{'), '}');
	assert_int_equal(hwbpi_name_closer(')'), 0);
	assert_int_equal(hwbpi_name_closer('a'), 0);
	assert_true(hwbpi_name_ident('$') && hwbpi_name_ident('.') && hwbpi_name_ident('9'));
	assert_false(hwbpi_name_ident(':') || hwbpi_name_ident('-') || hwbpi_name_ident('\0'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atoms),
		cmocka_unit_test(test_lib_sep),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_literal),
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_closer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
