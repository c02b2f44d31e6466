/* SPDX-License-Identifier: MIT */
/*
 * For tests/trace/names_test.sh: `target` is written 77 times by the
 * stripped library's static lib_writer() (tests/trace/names_lib.c) and
 * once by main.
 */
void lib_run(volatile long *p, int n);

volatile long target;

int main(void)
{
	lib_run(&target, 77);
	target = 5;
	return 0;
}
