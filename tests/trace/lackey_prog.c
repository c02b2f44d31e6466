/* SPDX-License-Identifier: MIT */
/*
 * A program whose accesses to `counter` are known exactly, for the lackey
 * round trip (tests/trace/lackey_test.sh): bump() reads and writes it 1000
 * times, peek() reads it 250 times, nothing else touches it.  -DBUMPS=N
 * -DPEEKS=M make a shorter run (lackey_test.sh: one where the program
 * executes fewer instructions than the dynamic loader).
 */
#ifndef BUMPS
#define BUMPS 1000
#endif
#ifndef PEEKS
#define PEEKS 250
#endif

volatile long counter;

__attribute__((noinline)) void bump(void)
{
	counter = counter + 1;
}

__attribute__((noinline)) long peek(void)
{
	return counter;
}

int main(void)
{
	long sum = 0;

	for (int i = 0; i < BUMPS; i++)
		bump();
	for (int i = 0; i < PEEKS; i++)
		sum += peek();
	return sum == (long)PEEKS * BUMPS ? 0 : 1;
}
