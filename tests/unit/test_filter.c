/* SPDX-License-Identifier: MIT */
/*
 * The filter parser: SYM[+OFF][/LEN]:rwx, 0xADDR[/LEN]:rwx, SYM:---, *:---.
 * Good inputs with every field checked; bad inputs with their exact column,
 * errno and message; a failed parse leaves the output untouched.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <hwbp/trace.h>

#define R HWBP_R
#define W HWBP_W
#define X HWBP_X

struct good {
	const char *in;
	const char *sym;
	uint64_t addr, off, len;
	unsigned type;
};

static const struct good goods[] = {
	/* The ftrace examples. */
	{ "pid_max:rw-", "pid_max", 0, 0, 0, R | W },
	{ "jiffies:-w-", "jiffies", 0, 0, 0, W },
	{ "buf+8/16:-w-", "buf", 0, 8, 16, W },
	{ "do_fork:--x", "do_fork", 0, 0, 0, X },
	{ "pid_max:---", "pid_max", 0, 0, 0, 0 },
	{ "*:---", "*", 0, 0, 0, 0 },
	/* Every type combination. */
	{ "a:r--", "a", 0, 0, 0, R },
	{ "a:r-x", "a", 0, 0, 0, R | X },
	{ "a:-wx", "a", 0, 0, 0, W | X },
	{ "a:rwx", "a", 0, 0, 0, R | W | X },
	/* Absolute addresses. */
	{ "0xffffffff81000000/8:rw-", "", 0xffffffff81000000ull, 0, 8, R | W },
	{ "0x1000:-w-", "", 0x1000, 0, 0, W },
	{ "0X1aBc/0x10:r--", "", 0x1abc, 0, 16, R },
	{ "0x0:---", "", 0, 0, 0, 0 },
	{ "0xffffffffffffffff:r--", "", UINT64_MAX, 0, 0, R },
	{ "0xffffffffffffffff/1:r--", "", UINT64_MAX, 0, 1, R },
	{ "0xfffffffffffffff0/16:r--", "", 0xfffffffffffffff0ull, 0, 16, R },
	{ "0x0000000000000000000001:r--", "", 1, 0, 0, R }, /* leading zeros */
	/* Offsets and lengths, decimal and hex. */
	{ "buf+0x10:r--", "buf", 0, 16, 0, R },
	{ "buf/4:r--", "buf", 0, 0, 4, R },
	{ "buf+0:r--", "buf", 0, 0, 0, R },
	{ "buf+010/010:r--", "buf", 0, 10, 10, R }, /* decimal, not octal */
	{ "buf+18446744073709551615:r--", "buf", 0, UINT64_MAX, 0, R },
	{ "buf/0xffffffffffffffff:r--", "buf", 0, 0, UINT64_MAX, R },
	{ "buf+8/16:---", "buf", 0, 8, 16, 0 },
	/* Symbol characters. */
	{ "foo.cold:--x", "foo.cold", 0, 0, 0, X },
	{ "$x:r--", "$x", 0, 0, 0, R },
	{ ".L1:r--", ".L1", 0, 0, 0, R },
	{ "_Z3fooi:--x", "_Z3fooi", 0, 0, 0, X },
	{ "a1_$.B:r--", "a1_$.B", 0, 0, 0, R },
	/* Blanks around. */
	{ "  \tpid_max:rw-", "pid_max", 0, 0, 0, R | W },
	{ "pid_max:rw-  \t", "pid_max", 0, 0, 0, R | W },
	{ " *:--- \r\n", "*", 0, 0, 0, 0 },
	{ "jiffies:-w-\n", "jiffies", 0, 0, 0, W },
	/* Versions and files, kept whole for hwbp_symtab_find(). */
	{ "optind@GLIBC_2.2.5:rw-", "optind@GLIBC_2.2.5", 0, 0, 0, R | W },
	{ "optind@@GLIBC_2.2.5+1/2:r--", "optind@@GLIBC_2.2.5", 0, 1, 2, R },
	{ "optind@libc.so.6:rw-", "optind@libc.so.6", 0, 0, 0, R | W },
	{ "x@ld-linux-x86-64.so.2:r--", "x@ld-linux-x86-64.so.2", 0, 0, 0, R },
	{ "libc.so.6:optind:rw-", "libc.so.6:optind", 0, 0, 0, R | W },
	{ "/lib/libc.so.6:stderr/8:r--", "/lib/libc.so.6:stderr", 0, 0, 8, R },
	{ "libstdc++.so.6:_ZSt4cout+8:r--", "libstdc++.so.6:_ZSt4cout", 0, 8, 0, R },
	{ "prog:optind@GLIBC_2.2.5:-w-", "prog:optind@GLIBC_2.2.5", 0, 0, 0, W },
	{ " libc.so.6:optind:rw- ", "libc.so.6:optind", 0, 0, 0, R | W },
	/* Demangled C++ names: "::" is part of the name, never a LIB's ':'. */
	{ "app::hits:rw-", "app::hits", 0, 0, 0, R | W },
	{ "app::hits+8/4:-w-", "app::hits", 0, 8, 4, W },
	{ "app::bump(int):--x", "app::bump(int)", 0, 0, 0, X },
	{ "app::f(int&, char*, int (*)(int)):--x", "app::f(int&, char*, int (*)(int))", 0, 0, 0, X },
	{ "std::vector<int, std::allocator<int> >::push_back(int const&):--x",
	  "std::vector<int, std::allocator<int> >::push_back(int const&)", 0, 0, 0, X },
	{ "void app::store<long>(long):--x", "void app::store<long>(long)", 0, 0, 0, X },
	{ "(anonymous namespace)::counter:rw-", "(anonymous namespace)::counter", 0, 0, 0, R | W },
	{ "app::Foo::~Foo():--x", "app::Foo::~Foo()", 0, 0, 0, X },
	{ "app::f() const:--x", "app::f() const", 0, 0, 0, X },
	{ "app::f() &&:--x", "app::f() &&", 0, 0, 0, X },
	{ "foo(int) [clone .cold]:--x", "foo(int) [clone .cold]", 0, 0, 0, X },
	{ "vtable for app::Foo/8:r--", "vtable for app::Foo", 0, 0, 8, R },
	{ "app::name[abi:cxx11]():--x", "app::name[abi:cxx11]()", 0, 0, 0, X },
	{ "f()::{lambda()#1}::operator()() const:--x", "f()::{lambda()#1}::operator()() const",
	  0, 0, 0, X },
	{ "  app::hits:rw-  ", "app::hits", 0, 0, 0, R | W },
	/* Operators: the symbol after "operator" is taken whole, longest first;
	 * an offset or a length then needs its own '+' or '/'. */
	{ "app::C::operator+=(int):--x", "app::C::operator+=(int)", 0, 0, 0, X },
	{ "app::C::operator+=:--x", "app::C::operator+=", 0, 0, 0, X },
	{ "app::C::operator+=+8:r--", "app::C::operator+=", 0, 8, 0, R },
	{ "operator+:r--", "operator+", 0, 0, 0, R },
	{ "operator++:r--", "operator++", 0, 0, 0, R },
	{ "operator+++8:r--", "operator++", 0, 8, 0, R },
	{ "operator++8:r--", "operator+", 0, 8, 0, R },      /* a digit: the offset's '+' */
	{ "ns::operator++0x10/2:r--", "ns::operator+", 0, 16, 2, R },
	{ "ns::operator-+8:r--", "ns::operator-", 0, 8, 0, R },
	{ "operator/:r--", "operator/", 0, 0, 0, R },
	{ "operator//4:r--", "operator/", 0, 0, 4, R },
	{ "operator/=/4:r--", "operator/=", 0, 0, 4, R },
	{ "operator/+1/4:r--", "operator/", 0, 1, 4, R },
	{ "ns::C::operator()+0x10/4:r--", "ns::C::operator()", 0, 16, 4, R },
	{ "ns::operator<:--x", "ns::operator<", 0, 0, 0, X },
	{ "ns::operator<<(int):--x", "ns::operator<<(int)", 0, 0, 0, X },
	{ "ns::operator<=>:--x", "ns::operator<=>", 0, 0, 0, X },
	{ "ns::operator->*:--x", "ns::operator->*", 0, 0, 0, X },
	{ "ns::operator->():--x", "ns::operator->()", 0, 0, 0, X },
	{ "ns::operator[](unsigned long):--x", "ns::operator[](unsigned long)", 0, 0, 0, X },
	{ "ns::operator,:--x", "ns::operator,", 0, 0, 0, X },
	{ "bool app::operator< <app::X>(app::X const&, app::X const&):--x",
	  "bool app::operator< <app::X>(app::X const&, app::X const&)", 0, 0, 0, X },
	{ "operator new(unsigned long):--x", "operator new(unsigned long)", 0, 0, 0, X },
	{ "operator delete[](void*):--x", "operator delete[](void*)", 0, 0, 0, X },
	{ "app::C::operator int() const:--x", "app::C::operator int() const", 0, 0, 0, X },
	/* Rust. */
	{ "<T as core::fmt::Debug>::fmt:--x", "<T as core::fmt::Debug>::fmt", 0, 0, 0, X },
	{ "core::ptr::drop_in_place<fn() -> i32>:--x", "core::ptr::drop_in_place<fn() -> i32>",
	  0, 0, 0, X },
	{ "std::f::{{closure}}:--x", "std::f::{{closure}}", 0, 0, 0, X },
	/* Files and versions around them. */
	{ "libapp.so:app::hits:rw-", "libapp.so:app::hits", 0, 0, 0, R | W },
	{ "/lib/libapp.so.1:app::bump(int):--x", "/lib/libapp.so.1:app::bump(int)", 0, 0, 0, X },
	{ "libapp.so:app::name[abi:cxx11]():--x", "libapp.so:app::name[abi:cxx11]()", 0, 0, 0, X },
	{ "app::hits@libapp.so:rw-", "app::hits@libapp.so", 0, 0, 0, R | W },
	{ "app::hits@@V1+4:r--", "app::hits@@V1", 0, 4, 0, R },
	/* Patterns (resolved by the tracer). */
	{ "node::per_process::*:rw-", "node::per_process::*", 0, 0, 0, R | W },
	{ "*x:---", "*x", 0, 0, 0, 0 },
	{ "**:---", "**", 0, 0, 0, 0 },
	{ "*s:rw-", "*s", 0, 0, 0, R | W },
	{ "*_*:--x", "*_*", 0, 0, 0, X },
	{ "[ab]*_max:rw-", "[ab]*_max", 0, 0, 0, R | W },
	{ "a?c/4:r--", "a?c", 0, 0, 4, R },
	/* Escaped brackets still nest: the ':' inside is no LIB's. */
	{ "app::name\\[abi:cxx11\\]*:--x", "app::name\\[abi:cxx11\\]*", 0, 0, 0, X },
	{ "app::\\[x\\]:r--", "app::\\[x\\]", 0, 0, 0, R },
};

struct bad {
	const char *in;
	int err;
	unsigned col;
	const char *msg;
};

static const struct bad bads[] = {
	{ "", -EINVAL, 1, "empty entry" },
	{ "   ", -EINVAL, 4, "empty entry" },
	{ "pid_max", -EINVAL, 8, "expected '+', '/' or ':'" },
	{ "pid_max rw-", -EINVAL, 8, "expected '+', '/' or ':'" },
	{ "pid_max :rw-", -EINVAL, 8, "expected '+', '/' or ':'" },
	{ "pid-max:rw-", -EINVAL, 4, "expected '+', '/' or ':'" },
	{ "pid_max:", -EINVAL, 9, "type needs 3 letters (r, w, x or -)" },
	{ "pid_max:rw", -EINVAL, 11, "type needs 3 letters (r, w, x or -)" },
	{ "pid_max:r -", -EINVAL, 10, "type needs 3 letters (r, w, x or -)" },
	{ "pid_max:rw-x", -EINVAL, 12, "unexpected character after the type" },
	{ "pid_max:rw- x", -EINVAL, 13, "unexpected character after the type" },
	{ "pid_max:rwq", -EINVAL, 11, "bad type letter (expected r, w, x or -)" },
	{ "pid_max:RW-", -EINVAL, 9, "bad type letter (expected r, w, x or -)" },
	{ "pid_max:wr-", -EINVAL, 9, "type letters go in the order r, w, x" },
	{ "pid_max:-r-", -EINVAL, 10, "type letters go in the order r, w, x" },
	{ "pid_max:x--", -EINVAL, 9, "type letters go in the order r, w, x" },
	{ "pid_max:--w", -EINVAL, 11, "type letters go in the order r, w, x" },
	/* "::" belongs to a name: the type's ':' leaves a lone ':' (a LIB). */
	{ "pid_max::rw-", -EINVAL, 9, "expected a name after 'LIB:'" },
	/* '*' */
	{ "*:rw-", -EINVAL, 3, "'*' only with ---" },
	{ "*:--x", -EINVAL, 5, "'*' only with ---" },
	{ "*+8:---", -EINVAL, 2, "'*' takes no offset or length" },
	{ "*/8:---", -EINVAL, 2, "'*' takes no offset or length" },
	{ "* x:---", -EINVAL, 2, "expected ':'" },
	/* Offsets and lengths. */
	{ "buf+:r--", -EINVAL, 5, "expected a number" },
	{ "buf+-1:r--", -EINVAL, 5, "expected a number" },
	{ "buf+ 8:r--", -EINVAL, 5, "expected a number" },
	{ "buf/:r--", -EINVAL, 5, "expected a number" },
	{ "buf/0:r--", -EINVAL, 5, "length 0" },
	{ "buf/0x0:r--", -EINVAL, 5, "length 0" },
	{ "buf/00:r--", -EINVAL, 5, "length 0" },
	{ "buf+8/0:r--", -EINVAL, 7, "length 0" },
	{ "buf+0x:r--", -EINVAL, 7, "expected a hex digit after 0x" },
	{ "buf+0xg:r--", -EINVAL, 7, "expected a hex digit after 0x" },
	{ "buf+8a:r--", -EINVAL, 6, "expected '/' or ':'" },
	{ "buf+8+8:r--", -EINVAL, 6, "expected '/' or ':'" },
	{ "buf/8+8:r--", -EINVAL, 6, "expected ':'" },
	{ "buf/8/8:r--", -EINVAL, 6, "expected ':'" },
	{ "buf+18446744073709551616:r--", -ERANGE, 24, "number too large (more than 64 bits)" },
	{ "buf/99999999999999999999:r--", -ERANGE, 24, "number too large (more than 64 bits)" },
	{ "buf+0x10000000000000000:r--", -ERANGE, 23, "number too large (more than 64 bits)" },
	/* Addresses. */
	{ "0x:r--", -EINVAL, 3, "expected a hex digit after 0x" },
	{ "0x1000+8:r--", -EINVAL, 7, "an address takes no +offset" },
	{ "0x1000x:r--", -EINVAL, 7, "expected '/' or ':'" },
	{ "0x1000/8/8:r--", -EINVAL, 9, "expected ':'" },
	{ "0x1000/0:r--", -EINVAL, 8, "length 0" },
	{ "0x10000000000000000:r--", -ERANGE, 19, "number too large (more than 64 bits)" },
	{ "0xffffffffffffffff/2:r--", -ERANGE, 20, "address range wraps past 2^64" },
	{ "0xfffffffffffffff0/17:r--", -ERANGE, 20, "address range wraps past 2^64" },
	{ "buf+18446744073709551615/2:r--", -ERANGE, 26, "offset + length wraps past 2^64" },
	{ "buf+0xfffffffffffffff0/17:r--", -ERANGE, 24, "offset + length wraps past 2^64" },
	{ "4096:r--", -EINVAL, 1, "an address needs 0x" },
	{ "0:r--", -EINVAL, 1, "an address needs 0x" },
	/* Symbol names. */
	{ "-:r--", -EINVAL, 1, "expected a symbol, 0xADDR or '*'" },
	{ ":r--", -EINVAL, 1, "expected a symbol, 0xADDR or '*'" },
	{ "  @foo:r--", -EINVAL, 3, "expected a symbol, 0xADDR or '*'" },
	{ "f\xc3\xa9:r--", -EINVAL, 2, "expected '+', '/' or ':'" },
	/* Versions and files. */
	{ "optind@:rw-", -EINVAL, 8, "expected a version or a library after '@'" },
	{ "optind@@:rw-", -EINVAL, 9, "expected a version or a library after '@'" },
	{ "optind@@@V:rw-", -EINVAL, 9, "expected a version or a library after '@'" },
	{ "optind@V@W:rw-", -EINVAL, 9, "expected '+', '/' or ':'" },
	{ "optind@/lib/libc.so.6:rw-", -EINVAL, 8, "expected a version or a library after '@'" },
	{ "a b:optind:rw-", -EINVAL, 2, "expected '+', '/' or ':'" },
	{ "libc.so.6:9x:rw-", -EINVAL, 11, "expected a name after 'LIB:'" },
	{ "libc.so.6:optind:rw-:", -EINVAL, 21, "unexpected character after the type" },
	/* Demangled names. */
	{ "app::hits:rw", -EINVAL, 13, "type needs 3 letters (r, w, x or -)" },
	{ "app::hits:wr-", -EINVAL, 11, "type letters go in the order r, w, x" },
	{ "app::hits:rw-:", -EINVAL, 14, "unexpected character after the type" },
	{ "app::hits :rw-", -EINVAL, 10, "expected '+', '/' or ':'" },
	{ "app::hits +8:rw-", -EINVAL, 10, "expected '+', '/' or ':'" },
	{ "app:::rw-", -EINVAL, 6, "expected a name after '::'" },
	{ "app::f(int:--x", -EINVAL, 7, "'(' is not closed" },
	{ "app::f<int>(std::pair<int, int):--x", -EINVAL, 31, "mismatched bracket" },
	{ "app::f<int>(std::pair<int, int>:--x", -EINVAL, 12, "'(' is not closed" },
	{ "app::f<int)>:--x", -EINVAL, 11, "mismatched bracket" },
	{ "app::f)(:--x", -EINVAL, 7, "expected '+', '/' or ':'" },
	{ "app::f(\x01):--x", -EINVAL, 7, "'(' is not closed" },
	{ "app::f\\(:r--", -EINVAL, 7, "'(' is not closed" },
	{ "app::f\\(]:r--", -EINVAL, 9, "mismatched bracket" },
	{ "a:b:c:rw-", -EINVAL, 4, "unexpected ':' (a name holds \"::\", a LIB: comes once)" },
	{ "operator+=8:r--", -EINVAL, 11, "unexpected character after an operator" },
	{ "operator--8:r--", -EINVAL, 11, "unexpected character after an operator" },
	{ "operator()x:r--", -EINVAL, 11, "unexpected character after an operator" },
	{ "app::hits-1:r--", -EINVAL, 10, "expected '+', '/' or ':'" },
	{ "lib a.so:app::x:r--", -EINVAL, 4, "expected '+', '/' or ':'" },
	{ "libapp.so:+8:r--", -EINVAL, 11, "expected a name after 'LIB:'" },
	{ "(((((((((((((((((((((((((((((((((x))))))))))))))))))))))))))))))))):r--", -EINVAL, 33,
	  "brackets nested too deep" },
};

static void test_good(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(goods) / sizeof(goods[0]); i++) {
		const struct good *g = &goods[i];
		struct hwbp_trace_entry e;
		unsigned col = 99;
		const char *msg = "stale";
		int ret;

		memset(&e, 0x5a, sizeof(e));
		ret = hwbp_trace_filter_parse(g->in, &e, &col, &msg);
		if (ret != 0)
			print_error("input '%s': %d at column %u: %s\n", g->in, ret, col, msg);
		assert_int_equal(ret, 0);
		assert_string_equal(e.sym, g->sym);
		assert_true(e.addr == g->addr);
		assert_true(e.off == g->off);
		assert_true(e.len == g->len);
		assert_int_equal(e.type, g->type);
		assert_int_equal(col, 0);
		assert_null(msg);
	}
}

static void test_bad(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		struct hwbp_trace_entry e, before;
		unsigned col = 0;
		const char *msg = NULL;
		int ret;

		memset(&e, 0x5a, sizeof(e));
		before = e;
		ret = hwbp_trace_filter_parse(b->in, &e, &col, &msg);
		if (ret != b->err || col != b->col || !msg || strcmp(msg, b->msg) != 0)
			print_error("input '%s': got %d at column %u (%s), want %d at %u (%s)\n",
				    b->in, ret, col, msg ? msg : "(null)", b->err, b->col, b->msg);
		assert_int_equal(ret, b->err);
		assert_int_equal(col, b->col);
		assert_non_null(msg);
		assert_string_equal(msg, b->msg);
		/* A failed parse changes nothing. */
		assert_memory_equal(&e, &before, sizeof(e));
	}
}

/* The longest name that fits is HWBP_TRACE_SYM_LEN - 1 characters; one
 * more is refused at the first character that does not fit. */
static void test_symbol_length(void **state)
{
	char in[HWBP_TRACE_SYM_LEN + 16];
	struct hwbp_trace_entry e;
	unsigned col;
	const char *msg;

	(void)state;
	memset(in, 'a', HWBP_TRACE_SYM_LEN - 1);
	strcpy(in + HWBP_TRACE_SYM_LEN - 1, ":r--");
	assert_int_equal(hwbp_trace_filter_parse(in, &e, &col, &msg), 0);
	assert_int_equal(strlen(e.sym), HWBP_TRACE_SYM_LEN - 1);
	assert_int_equal(e.type, R);

	memset(in, 'a', HWBP_TRACE_SYM_LEN);
	strcpy(in + HWBP_TRACE_SYM_LEN, ":r--");
	assert_int_equal(hwbp_trace_filter_parse(in, &e, &col, &msg), -EINVAL);
	assert_int_equal(col, HWBP_TRACE_SYM_LEN);
	assert_string_equal(msg, "symbol name too long");
	assert_int_equal(strlen(e.sym), HWBP_TRACE_SYM_LEN - 1); /* unchanged */
}

/* NULL input or output: -EINVAL, column 0 (nothing to point at); col and
 * msg themselves are optional. */
static void test_null_args(void **state)
{
	struct hwbp_trace_entry e;
	unsigned col = 7;
	const char *msg = NULL;

	(void)state;
	assert_int_equal(hwbp_trace_filter_parse(NULL, &e, &col, &msg), -EINVAL);
	assert_int_equal(col, 0);
	assert_non_null(msg);
	assert_int_equal(hwbp_trace_filter_parse("a:r--", NULL, &col, &msg), -EINVAL);
	assert_int_equal(hwbp_trace_filter_parse("a:r--", &e, NULL, NULL), 0);
	assert_string_equal(e.sym, "a");
	assert_int_equal(hwbp_trace_filter_parse("a:r", &e, NULL, NULL), -EINVAL);
	assert_int_equal(hwbp_trace_filter_parse("buf/99999999999999999999:r--", &e, NULL, NULL),
			 -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_symbol_length),
		cmocka_unit_test(test_null_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
