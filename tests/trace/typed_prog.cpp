// SPDX-License-Identifier: MIT
// Typed names in C++ (tests/trace/typed_test.sh): a static member of a
// class in a namespace, a base class's member reached through the
// derived object, a namespace-scope object; known writes, each a
// volatile store of its own:
//   app::Config::instance.limits[1]   W 120
//   app::Config::instance.name[2]     W 30
//   app::node.id (Base's member)      W 45
//   app::node.next (Derived's)        W 15
#include <cstddef>

namespace app {

struct Base {
	volatile long id;
};

struct Derived : Base {
	Derived *volatile next;
};

class Config {
public:
	volatile int limits[4];
	volatile char name[8];
	static Config instance;
};

Config Config::instance;
Derived node;

} // namespace app

static void work()
{
	for (int i = 0; i < 120; i++)
		app::Config::instance.limits[1] = i;
	for (int i = 0; i < 30; i++)
		app::Config::instance.name[2] = static_cast<char>(i);
	for (int i = 0; i < 45; i++)
		app::node.id = i;
	for (int i = 0; i < 15; i++)
		app::node.next = (i & 1) ? &app::node : nullptr;
}

int main()
{
	work();
	return 0;
}
