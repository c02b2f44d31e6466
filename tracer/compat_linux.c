/* SPDX-License-Identifier: MIT */
/*
 * TEMPORARY (issue 11): a stand-in for hwbpi_linux_exec_len(), which the
 * core helper defines in each arch/<a>/linux*.c (x86: sizeof(long),
 * hw_breakpoint_arch_parse(); arm64 and powerpc: one 4-byte instruction).
 * The lead deletes this file (and compat_linux.h, and its line in
 * tracer/meson.build) at the merge.  It is the only file of tracer/ that
 * names an architecture, and only until then.
 */
#include "compat_linux.h"

uint64_t hwbpi_linux_exec_len(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return sizeof(long);
#else
	return 4;
#endif
}
