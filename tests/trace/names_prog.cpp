// SPDX-License-Identifier: MIT
/*
 * A C++ program for tests/trace/names_test.sh: variables and functions
 * with known access counts, named in C++ terms.
 *
 *   app::hits            _ZN3app4hitsE    written by:
 *     app::bump(int)                      300 times (overloaded ...)
 *     app::bump(double)                   200 times (... by this one)
 *     app::Counter::operator+=(int)       100 times
 *     void app::store<long>(long)          50 times
 *   app::stats::reads    written  10 times by app::account()
 *   app::stats::writes   written  20 times by app::account()
 *   app::stats::errors   written  30 times by app::account()
 *   app::tl_hits         a thread_local (_ZN3app7tl_hitsE), written 40 times
 *                        by app::tl_count()
 *   app::slot<N>, N = 0..64: 65 variables (a template variable's
 *                        instances), each written once by app::fill
 *   app_sized (8 bytes), app_nosize (no size in the symbol table): data
 *                        defined in assembly, never touched
 *
 * -O0, so that every assignment is one store and every call happens.
 */
#include <utility>

namespace app {

volatile long hits;

thread_local volatile long tl_hits;

__attribute__((noinline)) void tl_count()
{
	tl_hits = tl_hits + 1;
}

namespace stats {
volatile long reads, writes, errors;
}

__attribute__((noinline)) void bump(int n)
{
	hits = hits + n;
}

__attribute__((noinline)) void bump(double d)
{
	hits = hits + static_cast<long>(d);
}

struct Counter {
	void operator+=(int n);
};

__attribute__((noinline)) void Counter::operator+=(int n)
{
	hits = hits + n;
}

template <typename T> __attribute__((noinline)) void store(T v)
{
	hits = static_cast<long>(v);
}

template <int N> volatile int slot;

template <int... N> __attribute__((noinline)) void fill(std::integer_sequence<int, N...>)
{
	((slot<N> = N), ...);
}

__attribute__((noinline)) void account(int round)
{
	if (round < 10)
		stats::reads = stats::reads + 1;
	if (round < 20)
		stats::writes = stats::writes + 1;
	stats::errors = stats::errors + 1;
}

} // namespace app

// A symbol without .size: a pattern must skip it (or want /LEN).
asm(".data\n"
    ".globl app_sized\n.type app_sized, %object\n.size app_sized, 8\napp_sized: .quad 0\n"
    ".globl app_nosize\napp_nosize: .quad 0\n"
    ".text\n");

int main()
{
	app::Counter c;

	for (int i = 0; i < 300; i++)
		app::bump(1);
	for (int i = 0; i < 200; i++)
		app::bump(1.0);
	for (int i = 0; i < 100; i++)
		c += 2;
	for (long i = 0; i < 50; i++)
		app::store<long>(i);
	for (int i = 0; i < 30; i++)
		app::account(i);
	app::fill(std::make_integer_sequence<int, 65>{});
	for (int i = 0; i < 40; i++)
		app::tl_count();
	return 0;
}
