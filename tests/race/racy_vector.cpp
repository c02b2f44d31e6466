// SPDX-License-Identifier: MIT
/*
 * C++: elements of a std::vector written by one thread and read by
 * another without a lock (operator[] only computes the address: the
 * accesses are the callers').
 * expect: race fill scan
 * runs: 30
 */
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

static std::atomic<bool> done;

static void fill(std::vector<int> &v)
{
	for (long i = 0; i < 100000000; i++)
		v[i & 15] = static_cast<int>(i);
	done = true;
}

static void scan(const std::vector<int> &v, long *out)
{
	long s = 0;

	while (!done)
		for (size_t i = 0; i < 16; i++)
			s += v[i];
	*out = s;
}

int main()
{
	std::vector<int> v(16);
	long s = 0;
	std::thread a(fill, std::ref(v));
	std::thread b(scan, std::cref(v), &s);

	a.join();
	b.join();
	std::printf("v[3] %d\n", v[3]);
	return 0;
}
