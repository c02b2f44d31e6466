// SPDX-License-Identifier: MIT
/*
 * A C++ program whose writes to `counter` are known exactly, for the
 * demangling check (tests/trace/demangle_test.sh): from a namespaced
 * function, an operator of a class and a function template, so that the
 * histogram's Function column must read in C++ terms.
 *
 *   app::bump(int)                 _ZN3app4bumpEi         300 writes
 *   app::Counter::operator+=(int)  _ZN3app7CounterpLEi    200 writes
 *   void app::store<long>(long)    _ZN3app5storeIlEEvT_   100 writes
 */

// `counter` has C linkage, so that its name in the symbol table is the
// one -e gives (a variable of the global namespace would not be mangled
// either; extern "C" says so explicitly).
extern "C" {
volatile long counter;
}

namespace app {

__attribute__((noinline)) void bump(int n)
{
	counter = counter + n;
}

struct Counter {
	void operator+=(int n);
};

__attribute__((noinline)) void Counter::operator+=(int n)
{
	counter = counter + n;
}

template <typename T> __attribute__((noinline)) void store(T v)
{
	counter = static_cast<long>(v);
}

} // namespace app

int main()
{
	app::Counter c;

	for (int i = 0; i < 300; i++)
		app::bump(1);
	for (int i = 0; i < 200; i++)
		c += 2;
	for (long i = 0; i < 100; i++)
		app::store<long>(i);
	return 0;
}
