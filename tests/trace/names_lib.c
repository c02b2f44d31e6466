/* SPDX-License-Identifier: MIT */
/*
 * A shared library for tests/trace/names_test.sh, stripped there: its
 * writer is static, so that once stripped (.symtab gone, .dynsym kept)
 * no symbol covers the instruction that writes the caller's variable,
 * and hwbp trace must name it "libnames.so+0xOFF".
 */
static __attribute__((noinline)) void lib_writer(volatile long *p)
{
	*p = *p + 1;
}

void lib_run(volatile long *p, int n)
{
	for (int i = 0; i < n; i++)
		lib_writer(p);
}
