/* SPDX-License-Identifier: MIT */
/*
 * output/'s private header: its interface and its own files' shared
 * parts (the CTF writer, names shortened to a width, source lines).
 */
#ifndef HWBP_TRACER_OUTPUT_INT_H
#define HWBP_TRACER_OUTPUT_INT_H

#include <stdio.h>

#include "output/output.h"
#include "output/ctf.h"
#include "output/shorten.h"

/*
 * hwbpi_srcline_hist_print - the histogram of a --sort srcline run
 * (entries keyed by instruction) as a table by source line: the entries
 * of one breakpoint, kind and line added up (their first instruction
 * keys the row), those without a line added up per function, printed
 * with a Source column (hwbpi_hist_print_col).  @flags: HWBP_HIST_*.
 * Errors: -ENOMEM, those of hwbpi_hist_print_col().
 */
int hwbpi_srcline_hist_print(const struct hwbpi_output *o, const char *const *names,
			     unsigned flags, FILE *out);

#endif /* HWBP_TRACER_OUTPUT_INT_H */
