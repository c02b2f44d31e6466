/* SPDX-License-Identifier: MIT */
/*
 * tests/trace/srcline_test.sh: one function stores to `watched` on two
 * source lines, WRITES_A times on the line marked LINE_A and WRITES_B
 * times on the one marked LINE_B (built with -O0 -g: one store a line,
 * no load); the test finds the line numbers by their marks.
 */
#define WRITES_A 30
#define WRITES_B 20

int watched;

static void work(void)
{
	for (int i = 0; i < WRITES_A; i++)
		watched = i;            /* LINE_A */
	for (int i = 0; i < WRITES_B; i++)
		watched = -i;           /* LINE_B */
}

int main(void)
{
	work();
	return 0;
}
