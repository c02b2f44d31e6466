/* SPDX-License-Identifier: MIT */
/*
 * Demangling (tracer/symbols/demangle.c): C++ and Rust (legacy, v0) names in the
 * user's terms, C names untouched (never "f" -> "float"), a buffer too
 * small, the cache, and the histogram's flag.  A build without libiberty
 * runs the same table and checks that every name comes back unchanged.
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

#include "symbols/demangle.h"

static const struct {
	const char *in, *out; /* out: with libiberty */
} names[] = {
	/* C++: namespaces, std templates, operators, const members,
	 * function templates, local statics, GCC's clones */
	{ "_ZN3foo3barEi", "foo::bar(int)" },
	{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
	  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
	{ "_ZN1AplERKS_", "A::operator+(A const&)" },
	{ "_ZNK3foo3bazEv", "foo::baz() const" },
	{ "_ZN2ns1fIiEEvT_", "void ns::f<int>(int)" },
	{ "_ZL3sfnv", "sfn()" },
	{ "_Z3foov.constprop.0", "foo() [clone .constprop.0]" },
	/* Rust legacy: also valid Itanium, the hash must go */
	{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
	/* Rust v0 */
	{ "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
	/* C names, and type encodings a demangler could take */
	{ "main", "main" },
	{ "f", "f" },
	{ "i", "i" },
	{ "Pi", "Pi" },
	{ "pid_max", "pid_max" },
	{ "__libc_start_main", "__libc_start_main" },
	/* look mangled, are not: unchanged */
	{ "_Z", "_Z" },
	{ "_Zfoo", "_Zfoo" },
	{ "_Rfoo", "_Rfoo" },
	{ "_RNotRust", "_RNotRust" },
	{ "", "" },
};

#define NNAMES (sizeof(names) / sizeof(names[0]))

static const char *expected(size_t i)
{
	return hwbpi_demangle_available() ? names[i].out : names[i].in;
}

static void test_table(void **state)
{
	char buf[256];

	(void)state;
#ifdef HWBP_HAVE_LIBIBERTY
	assert_true(hwbpi_demangle_available());
#else
	assert_false(hwbpi_demangle_available());
#endif
	for (size_t i = 0; i < NNAMES; i++) {
		memset(buf, 'x', sizeof(buf));
		assert_int_equal(hwbpi_demangle(names[i].in, buf, sizeof(buf)), 0);
		assert_string_equal(buf, expected(i));
	}
}

static void test_errors(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(hwbpi_demangle(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(hwbpi_demangle("main", NULL, 8), -EINVAL);
	assert_int_equal(hwbpi_demangle("main", buf, 0), -EINVAL);
}

/* Too small: -ENOSPC, and the result cut to size - 1 bytes. */
static void test_small_buffer(void **state)
{
	const char *full = hwbpi_demangle_available() ? "foo::bar(int)" : "_ZN3foo3barEi";
	char buf[32];

	(void)state;
	for (size_t size = 1; size <= strlen(full) + 1; size++) {
		memset(buf, 'x', sizeof(buf));
		int r = hwbpi_demangle("_ZN3foo3barEi", buf, size);

		assert_int_equal(r, size <= strlen(full) ? -ENOSPC : 0);
		assert_int_equal(strlen(buf), size - 1);
		assert_memory_equal(buf, full, size - 1);
		assert_int_equal(buf[size], 'x');  /* nothing past @size */
	}
	/* A C name the same way: "main" into 3 bytes is "ma". */
	assert_int_equal(hwbpi_demangle("main", buf, 3), -ENOSPC);
	assert_string_equal(buf, "ma");
	assert_int_equal(hwbpi_demangle("main", buf, 5), 0);
	assert_string_equal(buf, "main");
}

/* The cache: same answers, the same string for the same name, C names
 * as the very pointer given, and growth past its first table. */
static void test_cache(void **state)
{
	struct hwbpi_demangler *d = hwbpi_demangler_new(NULL);
	char (*many)[32] = malloc(1000 * sizeof(*many));
	const char *first[NNAMES];

	(void)state;
	assert_non_null(d);
	assert_non_null(many);
	for (size_t i = 0; i < NNAMES; i++) {
		first[i] = hwbpi_demangler_name(d, names[i].in);
		assert_string_equal(first[i], expected(i));
		if (strcmp(names[i].in, names[i].out) == 0)
			assert_ptr_equal(first[i], names[i].in);
	}
	for (size_t i = 0; i < NNAMES; i++)
		assert_ptr_equal(hwbpi_demangler_name(d, names[i].in), first[i]);
	/* 1000 copies of one name at distinct addresses (the key): the
	 * table grows, and each is demangled. */
	for (int i = 0; i < 1000; i++)
		strcpy(many[i], i % 2 ? "_ZN2ns3xxxEv" : "c_name");
	for (int i = 0; i < 1000; i++) {
		const char *r = hwbpi_demangler_name(d, many[i]);

		assert_string_equal(r, i % 2 && hwbpi_demangle_available() ? "ns::xxx()" : many[i]);
	}
	for (size_t i = 0; i < NNAMES; i++)
		assert_ptr_equal(hwbpi_demangler_name(d, names[i].in), first[i]);
	assert_string_equal(hwbpi_demangler_name(NULL, "_ZN3foo3barEi"), "_ZN3foo3barEi");
	assert_null(hwbpi_demangler_name(d, NULL));
	hwbpi_demangler_free(d);
	hwbpi_demangler_free(NULL);
	free(many);
}

/* hwbp_hist_print_flags: the Function column demangled with the flag,
 * as the table has it without; an unknown flag is refused. */
static void test_hist(void **state)
{
	struct hwbp_symtab *t = hwbp_symtab_new(NULL);
	const char *wn[] = { "g" };
	struct hwbp_hist h;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(t);
	assert_int_equal(hwbp_symtab_add(t, "_ZN3foo3barEi", 0x1000, 0x10, 'T'), 0);
	assert_int_equal(hwbp_symtab_add(t, "main", 0x2000, 0x10, 'T'), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	assert_int_equal(hwbp_hist_init(&h, 1, 4), 0);
	for (int i = 0; i < 3; i++)
		hwbp_hist_add(&h, 0, 0x1000, HWBP_W);
	hwbp_hist_add(&h, 0, 0x2000, HWBP_W);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(hwbp_hist_print_flags(&h, wn, t, HWBP_HIST_DEMANGLE, f), 0);
	assert_int_equal(hwbp_hist_print_flags(&h, wn, t, 0, f), 0);
	assert_int_equal(hwbp_hist_print_flags(&h, wn, t, 4, f), -EINVAL);
	fclose(f);
	if (hwbpi_demangle_available())
		assert_non_null(strstr(text, "W            g         foo::bar(int)         3\n"));
	else
		assert_null(strstr(text, "foo::bar(int)"));
	assert_non_null(strstr(text, "W            g         _ZN3foo3barEi         3\n"));
	assert_non_null(strstr(text, "main"));
	free(text);
	hwbp_hist_fini(&h);
	hwbp_symtab_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_small_buffer),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_hist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
