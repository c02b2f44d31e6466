// SPDX-License-Identifier: MIT
/*
 * C++: a function-local static made on first use by whichever thread gets
 * there first (a "magic static": the compiler guards it with
 * __cxa_guard_acquire/release), then only read, from three std::threads.
 * expect: none
 * runs: 5
 */
#include <cstdio>
#include <thread>

struct Table {
	int row[16];
	Table()
	{
		for (int i = 0; i < 16; i++)
			row[i] = i * i;
	}
};

static const Table &table()
{
	static Table t;
	return t;
}

static void use(long *out)
{
	long s = 0;

	for (long i = 0; i < 4000000; i++)
		s += table().row[i & 15];
	*out = s;
}

int main()
{
	long s[3];
	std::thread a(use, &s[0]), b(use, &s[1]), c(use, &s[2]);

	a.join();
	b.join();
	c.join();
	std::printf("sums %ld %ld %ld\n", s[0], s[1], s[2]);
	return 0;
}
