// SPDX-License-Identifier: MIT
/*
 * C++: a class whose every access to its state is under its std::mutex
 * (std::lock_guard), from two std::threads.
 * expect: none
 * runs: 5
 */
#include <cstdio>
#include <mutex>
#include <thread>

class Account {
public:
	void deposit(long n)
	{
		std::lock_guard<std::mutex> g(m_);
		balance_ += n;
		ops_++;
	}
	long balance()
	{
		std::lock_guard<std::mutex> g(m_);
		return balance_;
	}

private:
	std::mutex m_;
	long balance_ = 0;
	long ops_ = 0;
};

static void work(Account *a)
{
	for (long i = 0; i < 1500000; i++)
		a->deposit(i & 3);
}

int main()
{
	Account acct;
	std::thread a(work, &acct), b(work, &acct);

	a.join();
	b.join();
	std::printf("balance %ld\n", acct.balance());
	return 0;
}
