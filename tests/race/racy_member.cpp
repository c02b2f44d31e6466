// SPDX-License-Identifier: MIT
/*
 * C++: a class whose member is updated by three threads running its member
 * function on the same object (through `this`, a heap object's field).
 * expect: race Meter::record Meter::record
 * runs: 20
 */
#include <cstdio>
#include <memory>
#include <thread>

class Meter {
public:
	void record(long n)
	{
		for (long i = 0; i < n; i++)
			total_ += i & 3;
	}
	long total() const { return total_; }

private:
	long samples_ = 0;
	long total_ = 0;
};

int main()
{
	auto m = std::make_unique<Meter>();
	std::thread a(&Meter::record, m.get(), 150000000L);
	std::thread b(&Meter::record, m.get(), 150000000L);
	std::thread c(&Meter::record, m.get(), 150000000L);

	a.join();
	b.join();
	c.join();
	std::printf("total %ld\n", m->total());
	return 0;
}
