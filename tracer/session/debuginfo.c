/* SPDX-License-Identifier: MIT */
/*
 * A session's debug information (session/session_int.h): the options
 * that need it ("srcline", "sort", "debug-dir"), the struct hwbpi_dwarf
 * every backend gives the tables it loads, and the notes on the debug
 * files read.  The lines themselves are the outputs' (output/srcline.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/session_int.h"

int hwbpi_debuginfo_open(struct hwbp_trace_session *s)
{
	bool by_line = s->sort_key == HWBPI_SORT_SRCLINE;
	int ret;

	if (s->srcline && !s->v.mode.trace)
		return hwbpi_fail(&s->v, -EINVAL, true, "--srcline applies only with --trace FILE (the "
				  "histogram by line: --sort srcline)");
	if (s->sort && s->v.mode.trace)
		return hwbpi_fail(&s->v, -EINVAL, true, "--sort applies only to the histogram, not with "
				  "--trace (lines of events: --srcline)");
	if (s->v.dwarf)
		return 0;
	s->v.dwarf = hwbpi_dwarf_new(s->debug_dir, s->srcline || by_line, &ret);
	if (s->v.dwarf) {
		s->v.t.key_ip = by_line;
		return 0;
	}
	if (ret == -EOPNOTSUPP)
		return hwbpi_fail(&s->v, ret, false, "%s needs libdw (elfutils' DWARF library), which "
				  "this build lacks: EOPNOTSUPP", s->debug_dir ? "--debug-dir" :
				  s->srcline ? "--srcline" : "--sort srcline");
	if (s->debug_dir && ret == -EINVAL)
		return hwbpi_fail(&s->v, ret, true, "--debug-dir '%s': a ':' would split the search "
				  "path: EINVAL", s->debug_dir);
	if (s->debug_dir && ret != -ENOMEM)
		return hwbpi_fail(&s->v, ret, true, "--debug-dir '%s': %s", s->debug_dir,
				  hwbp_errno_name(ret));
	return hwbpi_fail(&s->v, ret, false, "cannot start: %s", hwbp_errno_name(ret));
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

void hwbpi_debuginfo_loaded(struct hwbp_trace_session *s)
{
	struct hwbpi_dwarf_debug g;
	const char *first = NULL;
	unsigned others = 0;
	int why = 0;

	/* The distribution's debug files (libc's, with Debian's libc6-dbg)
	 * go without a note: every process would print the same lines. */
	for (unsigned i = 0; hwbpi_dwarf_stripped(s->v.dwarf, i, &g); i++) {
		if (g.debug) {
			if (!g.system)
				hwbpi_note(&s->v, "%s: symbols from %s (%s)", base_name(g.file), g.debug,
					   g.how);
		} else if (!first) {
			first = g.file;
			why = g.err;
		} else {
			others++;
		}
	}
	if (!first || s->v.t.missing_hint)
		return;
	if (why == -EOPNOTSUPP)
		snprintf(s->debug_hint, sizeof(s->debug_hint), "%s has no .symtab, and this build "
			 "reads no separate debug files (no libdw: EOPNOTSUPP)", first);
	else
		snprintf(s->debug_hint, sizeof(s->debug_hint), "%s has no .symtab and no debug file "
			 "was found for it%s (by build-id or .gnu_debuglink: beside it, in .debug/, "
			 "under %s/usr/lib/debug)", first, others ? " nor for other stripped files" : "",
			 s->debug_dir ? "--debug-dir and " : "");
	s->v.t.missing_hint = s->debug_hint;
}

