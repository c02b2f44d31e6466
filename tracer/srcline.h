/* SPDX-License-Identifier: MIT */
/*
 * A session's debug information (internal; tracer/srcline.c): its
 * struct hwbpi_dwarf (tracer/dwarf.h) made at prepare from the options
 * "debug-dir", "srcline" and "sort", the notes on the debug files read,
 * and source lines in the outputs: " at file.c:LINE" on trace events, the
 * histogram's Source column with --sort srcline.  Not on a hit path.
 */
#ifndef HWBP_TRACER_SRCLINE_H
#define HWBP_TRACER_SRCLINE_H

#include <stddef.h>
#include <stdio.h>

#include "session.h"

/*
 * hwbpi_srcline_open - before the backend opens: check that --srcline
 * comes with trace mode and --sort with the histogram, make s->dwarf
 * (every backend's; the Linux and lackey backends give it to the tables
 * they load) and key the histogram by instruction for --sort srcline.
 * Errors (message set): -EINVAL (a combination that does not apply; a
 * ':' in --debug-dir), -ENOENT, -ENOTDIR, -EACCES (--debug-dir),
 * -EOPNOTSUPP (built without libdw, and one of the three asked for),
 * -ENOMEM.  A second call keeps what the first made.
 */
int hwbpi_srcline_open(struct hwbp_trace_session *s);

/* Once the backend loaded its symbols: a note per file whose symbols came
 * from a separate debug file (but the distribution's, under
 * /usr/lib/debug), and for "no symbol" errors a hint naming the
 * first file without a .symtab whose debug file was not found (unless the
 * backend set its own hint). */
void hwbpi_srcline_loaded(struct hwbp_trace_session *s);

/* "file.c:LINE" of event @ev's access instruction into @buf (@n bytes),
 * or "?" when no line is known; returns @buf.  Cached per instruction. */
const char *hwbpi_srcline_event(struct hwbp_trace_session *s, const struct hwbp_trace_event *ev,
				char *buf, size_t n);

/*
 * hwbpi_srcline_hist_print - the histogram of a --sort srcline session
 * (entries keyed by instruction) as a table by source line: the entries
 * of one breakpoint, kind and line added up (their first instruction
 * keys the row), those without a line added up per function, printed
 * with a Source column (hwbpi_hist_print_col).  @flags: HWBP_HIST_*.
 * Errors: -ENOMEM, those of hwbpi_hist_print_col().
 */
int hwbpi_srcline_hist_print(struct hwbp_trace_session *s, const char *const *names,
			     unsigned flags, FILE *out);

#endif /* HWBP_TRACER_SRCLINE_H */
