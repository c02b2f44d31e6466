/* SPDX-License-Identifier: MIT */
/*
 * A session's debug information (tracer/srcline.h): the options that
 * need it, the notes on what was read, and source lines in the outputs.
 * Lines are looked up at print time, once per distinct instruction
 * (hwbpi_dwarf_srcline caches them), never as hits arrive.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf.h"
#include "srcline.h"

int hwbpi_srcline_open(struct hwbp_trace_session *s)
{
	bool by_line = s->sort_key == HWBPI_SORT_SRCLINE;
	int ret;

	if (s->srcline && !s->mode.trace)
		return hwbpi_fail(s, -EINVAL, true, "--srcline applies only with --trace FILE (the "
				  "histogram by line: --sort srcline)");
	if (s->sort && s->mode.trace)
		return hwbpi_fail(s, -EINVAL, true, "--sort applies only to the histogram, not with "
				  "--trace (lines of events: --srcline)");
	if (s->dwarf)
		return 0;
	s->dwarf = hwbpi_dwarf_new(s->debug_dir, s->srcline || by_line, &ret);
	if (s->dwarf) {
		s->t.key_ip = by_line;
		return 0;
	}
	if (ret == -EOPNOTSUPP)
		return hwbpi_fail(s, ret, false, "%s needs libdw (elfutils' DWARF library), which "
				  "this build lacks: EOPNOTSUPP", s->debug_dir ? "--debug-dir" :
				  s->srcline ? "--srcline" : "--sort srcline");
	if (s->debug_dir && ret == -EINVAL)
		return hwbpi_fail(s, ret, true, "--debug-dir '%s': a ':' would split the search "
				  "path: EINVAL", s->debug_dir);
	if (s->debug_dir && ret != -ENOMEM)
		return hwbpi_fail(s, ret, true, "--debug-dir '%s': %s", s->debug_dir,
				  hwbp_errno_name(ret));
	return hwbpi_fail(s, ret, false, "cannot start: %s", hwbp_errno_name(ret));
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

void hwbpi_srcline_loaded(struct hwbp_trace_session *s)
{
	struct hwbpi_dwarf_debug g;
	const char *first = NULL;
	unsigned others = 0;
	int why = 0;

	/* The distribution's debug files (libc's, with Debian's libc6-dbg)
	 * go without a note: every process would print the same lines. */
	for (unsigned i = 0; hwbpi_dwarf_stripped(s->dwarf, i, &g); i++) {
		if (g.debug) {
			if (!g.system)
				hwbpi_note(s, "%s: symbols from %s (%s)", base_name(g.file), g.debug,
					   g.how);
		} else if (!first) {
			first = g.file;
			why = g.err;
		} else {
			others++;
		}
	}
	if (!first || s->t.missing_hint)
		return;
	if (why == -EOPNOTSUPP)
		snprintf(s->debug_hint, sizeof(s->debug_hint), "%s has no .symtab, and this build "
			 "reads no separate debug files (no libdw: EOPNOTSUPP)", first);
	else
		snprintf(s->debug_hint, sizeof(s->debug_hint), "%s has no .symtab and no debug file "
			 "was found for it%s (by build-id or .gnu_debuglink: beside it, in .debug/, "
			 "under %s/usr/lib/debug)", first, others ? " nor for other stripped files" : "",
			 s->debug_dir ? "--debug-dir and " : "");
	s->t.missing_hint = s->debug_hint;
}

/* "file.c:LINE" of instruction @ip, or "?". */
static void line_text(struct hwbpi_dwarf *d, uint64_t ip, char *buf, size_t n)
{
	const char *file;
	unsigned line;

	if (hwbpi_dwarf_srcline(d, ip, &file, &line) == 0)
		snprintf(buf, n, "%s:%u", file, line);
	else
		snprintf(buf, n, "?");
}

const char *hwbpi_srcline_event(struct hwbp_trace_session *s, const struct hwbp_trace_event *ev,
				char *buf, size_t n)
{
	line_text(s->dwarf, hwbpi_tracer_func_ip(&s->t, ev), buf, n);
	return buf;
}

static void column_text(void *arg, uint64_t key, char *buf, size_t n)
{
	line_text(arg, key, buf, n);
}

/* Where instruction @ip's count goes: the first instruction of the
 * breakpoint's entries @e[0..k) on the same line, or without a line in
 * the same function; else its own.  @rep holds the earlier answers. */
static uint64_t line_key(struct hwbp_trace_session *s, const struct hwbp_hist_entry *e,
			 const uint64_t *rep, unsigned k)
{
	const struct hwbp_sym *f = s->syms ? hwbp_symtab_func(s->syms, e[k].func) : NULL;
	const char *file, *file2;
	unsigned line, line2;
	bool known = hwbpi_dwarf_srcline(s->dwarf, e[k].func, &file, &line) == 0;

	for (unsigned j = 0; j < k; j++) {
		if ((hwbpi_dwarf_srcline(s->dwarf, e[j].func, &file2, &line2) == 0) != known)
			continue;
		if (known ? line == line2 && strcmp(file, file2) == 0
			  : f && hwbp_symtab_func(s->syms, e[j].func) == f)
			return rep[j];
	}
	return e[k].func;
}

int hwbpi_srcline_hist_print(struct hwbp_trace_session *s, const char *const *names,
			     unsigned flags, FILE *out)
{
	const struct hwbp_hist *h = &s->t.hist;
	struct hwbpi_hist_column col = { "Source", column_text, s->dwarf, "lines" };
	struct hwbp_hist m;
	uint64_t *rep = malloc((h->n ? h->n : 1) * sizeof(*rep));
	int ret = rep ? hwbp_hist_init(&m, h->nbp, h->n) : -ENOMEM;

	if (ret) {
		free(rep);
		return ret;
	}
	for (unsigned bp = 0; bp < h->nbp; bp++) {
		const struct hwbp_hist_entry *e = h->e + (size_t)bp * h->n;

		for (unsigned k = 0; k < h->used[bp]; k++) {
			rep[k] = line_key(s, e, rep, k);
			hwbpi_hist_add_n(&m, bp, rep[k], e[k].kind, e[k].count);
		}
		hwbpi_hist_overrun(&m, bp, h->overrun[bp]);
	}
	free(rep);
	ret = hwbpi_hist_print_col(&m, names, s->syms, flags, &col, out);
	hwbp_hist_fini(&m);
	return ret;
}
