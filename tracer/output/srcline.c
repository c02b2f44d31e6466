/* SPDX-License-Identifier: MIT */
/*
 * Source lines in the outputs (output/output.h): " at file.c:LINE" on
 * trace events, the histogram's Source column with --sort srcline.
 * Lines are looked up at print time, once per distinct instruction
 * (hwbpi_dwarf_srcline caches them), never as hits arrive.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/output_int.h"

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

const char *hwbpi_srcline_event(const struct hwbpi_output *o, const struct hwbp_trace_event *ev,
				char *buf, size_t n)
{
	line_text(o->dwarf, hwbpi_tracer_func_ip(o->t, ev), buf, n);
	return buf;
}

static void column_text(void *arg, uint64_t key, char *buf, size_t n)
{
	line_text(arg, key, buf, n);
}

/* Where instruction @ip's count goes: the first instruction of the
 * breakpoint's entries @e[0..k) on the same line, or without a line in
 * the same function; else its own.  @rep holds the earlier answers. */
static uint64_t line_key(const struct hwbpi_output *o, const struct hwbp_hist_entry *e,
			 const uint64_t *rep, unsigned k)
{
	const struct hwbp_sym *f = o->t->syms ? hwbp_symtab_func(o->t->syms, e[k].func) : NULL;
	const char *file, *file2;
	unsigned line, line2;
	bool known = hwbpi_dwarf_srcline(o->dwarf, e[k].func, &file, &line) == 0;

	for (unsigned j = 0; j < k; j++) {
		if ((hwbpi_dwarf_srcline(o->dwarf, e[j].func, &file2, &line2) == 0) != known)
			continue;
		if (known ? line == line2 && strcmp(file, file2) == 0
			  : f && hwbp_symtab_func(o->t->syms, e[j].func) == f)
			return rep[j];
	}
	return e[k].func;
}

int hwbpi_srcline_hist_print(const struct hwbpi_output *o, const char *const *names,
			     unsigned flags, FILE *out)
{
	const struct hwbp_hist *h = &o->t->hist;
	struct hwbpi_hist_column col = { "Source", column_text, o->dwarf, "lines" };
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
			rep[k] = line_key(o, e, rep, k);
			hwbpi_hist_add_n(&m, bp, rep[k], e[k].kind, e[k].count);
		}
		hwbpi_hist_overrun(&m, bp, h->overrun[bp]);
	}
	free(rep);
	ret = hwbpi_hist_print_col(&m, names, o->t->syms, flags, &col, out);
	hwbp_hist_fini(&m);
	return ret;
}
