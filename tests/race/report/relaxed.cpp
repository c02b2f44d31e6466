// SPDX-License-Identifier: MIT
//
// C++ std::atomic with relaxed orders: a global and a member of a heap
// object.  At -O0 each load and store is in std::__atomic_base's own
// member function; at -O2 inlined from it.  Plain MOVs either way, and no
// race: hwbp race must stay silent (tests/race/report/report_test.py).
#include <atomic>
#include <thread>

std::atomic<long> total{0};

struct Box {
	int id;
	std::atomic<int> level{0};
};

int main()
{
	Box *box = new Box;
	std::thread a([box] {
		for (long i = 0; i < 30000000; i++) {
			total.store(i, std::memory_order_relaxed);
			box->level.store(static_cast<int>(i), std::memory_order_relaxed);
		}
	});
	std::thread b([box] {
		long s = 0;
		for (long i = 0; i < 30000000; i++) {
			s += total.load(std::memory_order_relaxed);
			s += box->level.load(std::memory_order_relaxed);
		}
		return s;
	});
	a.join();
	b.join();
	delete box;
	return 0;
}
