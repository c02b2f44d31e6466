/* SPDX-License-Identifier: MIT */
/*
 * Known call paths for --stack (tests/trace/stack_test.sh,
 * tests/unit/test_unwind.c): `counter` is written once per call of
 * bump(), 300 times through main -> a -> bump, 200 through main -> b ->
 * bump and 100 from main itself: 600 writes in three stacks.  Built twice
 * by the tests, with and without frame pointers.  No function is inlined
 * or cloned, so each keeps its own frame and symbol.
 */
volatile unsigned long counter;

#define KEEP __attribute__((noinline, noclone))

KEEP void tick(void)
{
	__asm__ volatile("");
}

KEEP void bump(void)
{
	counter = counter + 1;   /* one store (and one load) per call */
	tick();
}

KEEP void a(void)
{
	for (int i = 0; i < 300; i++)
		bump();
	__asm__ volatile("" ::: "memory");   /* bump() is not a tail call */
}

KEEP void b(void)
{
	for (int i = 0; i < 200; i++)
		bump();
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	a();
	b();
	for (int i = 0; i < 100; i++)
		bump();
	return counter == 600 ? 0 : 1;
}
