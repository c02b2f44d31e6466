/* SPDX-License-Identifier: MIT */
/* tests/trace/tls_lib.c: a shared library's thread-local variable, which
 * hwbp trace refuses to watch (tls_test.sh; tls_prog.c -DTLS_LIB). */
__thread long lib_tcount;

void lib_touch(void)
{
	lib_tcount = lib_tcount + 1;
}
