/* SPDX-License-Identifier: MIT */
/*
 * A program whose accesses to `counter` are known exactly, for the lackey
 * round trip (tests/trace/lackey_test.sh): bump() reads and writes it 1000
 * times, peek() reads it 250 times, nothing else touches it.
 */
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

	for (int i = 0; i < 1000; i++)
		bump();
	for (int i = 0; i < 250; i++)
		sum += peek();
	return sum == 250 * 1000 ? 0 : 1;
}
