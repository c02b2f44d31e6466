/* SPDX-License-Identifier: MIT */
/*
 * For tests/trace/copyreloc_test.sh: a program whose optind and stderr
 * are copy-relocated (R_*_COPY: the executable's .bss copy is the one
 * getopt() and main use).  main reads optind 4 times and stderr 3 times
 * (built with -O0); getopt() reads and writes optind too.
 */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int c, x = 0;

	while ((c = getopt(argc, argv, "x")) != -1)
		x += c == 'x';
	for (int i = 0; i < 3; i++)
		fprintf(stderr, "copyreloc: x=%d optind=%d\n", x, optind);
	return x == 1 && optind == 2 ? 0 : 1;
}
