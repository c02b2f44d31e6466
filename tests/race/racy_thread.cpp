// SPDX-License-Identifier: MIT
/*
 * C++: three std::threads add to a plain global without a lock.
 * expect: race add_up add_up
 * runs: 20
 */
#include <cstdio>
#include <thread>

long sum;

static void add_up(long n)
{
	for (long i = 0; i < n; i++)
		sum += i & 7;
}

int main()
{
	std::thread a(add_up, 100000000L), b(add_up, 100000000L), c(add_up, 100000000L);

	a.join();
	b.join();
	c.join();
	std::printf("sum %ld\n", sum);
	return 0;
}
