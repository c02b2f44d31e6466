/* SPDX-License-Identifier: MIT */
/*
 * tests/trace/debuginfo_test.sh: a program whose only access to the
 * global `counter` is WRITES stores (at -O0 `counter = i + 1` is one store
 * and no load), traced once stripped, its symbols in a separate debug file.
 */
#define WRITES 37

int counter;

int main(void)
{
	for (int i = 0; i < WRITES; i++)
		counter = i + 1;
	return 0;
}
