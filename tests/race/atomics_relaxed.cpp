// SPDX-License-Identifier: MIT
/*
 * C++: std::atomic<int> stored and loaded with memory_order_relaxed by two
 * threads (a statistics counter's usual form).  Atomic accesses never
 * race, whatever their order; on x86-64 the relaxed store and load are
 * plain MOVs.  Built with -O2: at -O0 g++ passes the order to
 * std::atomic's store as a variable, and a store whose order is not a
 * constant is made sequentially consistent (XCHG), not relaxed.
 * cflags: -O2
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
