/* SPDX-License-Identifier: MIT */
/*
 * The library of racy_shlib.c (built by run_corpus.py as
 * libracy_shlib_lib.so, not a program of its own): a counter global to the
 * library, updated and read with no lock.
 * library of: racy_shlib.c
 */
long lib_counter;

void lib_hit(void)
{
	lib_counter++;
}

long lib_hits(void)
{
	return lib_counter;
}
