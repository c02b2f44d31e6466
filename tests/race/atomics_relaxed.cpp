// SPDX-License-Identifier: MIT
/*
 * C++: std::atomic<int> stored and loaded with memory_order_relaxed by two
 * threads (a statistics counter's usual form).  Atomic accesses never
 * race, whatever their order; on x86-64 the relaxed store and load are
 * plain MOVs.
 * expect: none
 * runs: 5
 */
#include <atomic>
#include <cstdio>
#include <thread>

std::atomic<int> level;
static std::atomic<bool> done;

static void producer()
{
	for (int i = 0; i < 30000000; i++)
		level.store(i & 1023, std::memory_order_relaxed);
	done = true;
}

static void consumer(long *out)
{
	long s = 0;

	while (!done)
		s += level.load(std::memory_order_relaxed);
	*out = s;
}

int main()
{
	long s = 0;
	std::thread a(producer), b(consumer, &s);

	a.join();
	b.join();
	std::printf("level %d\n", level.load());
	return 0;
}
