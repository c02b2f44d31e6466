/* SPDX-License-Identifier: MIT */
/*
 * The table of objects (objects/objects.h) after the histogram: per
 * watch of objects, each object in the order it was armed, with its
 * address, who armed it (the arming call's site), its age (released:
 * how long it lived; live: "live" and its age at the end, a leak hint as
 * kmemtrace proposed), the part of its life it held a debug register,
 * and its hits by function and kind.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output_int.h"

static const char *kind_name(uint8_t k)
{
	return k == HWBP_R ? "R" : k == HWBP_W ? "W" : k == HWBP_X ? "X" : "?";
}

/* "name+0xOFF" of @addr: its function, else where it is. */
static const char *where(const struct hwbpi_tracer *t, uint64_t addr, char *buf, size_t n)
{
	const struct hwbp_sym *s = t->syms ? hwbp_symtab_func(t->syms, addr) : NULL;

	if (!s)
		return hwbpi_symtab_describe(t->syms, addr, buf, n);
	if (addr == s->addr)
		snprintf(buf, n, "%s", s->name);
	else
		snprintf(buf, n, "%s+0x%" PRIx64, s->name, addr - s->addr);
	return buf;
}

static void print_obj(FILE *f, const struct hwbpi_tracer *t, const struct hwbpi_objtab *tab,
		      int i)
{
	const struct hwbpi_obj *o = &tab->obj[i];
	uint64_t end = o->state == HWBPI_OBJ_LIVE ? tab->ended : o->died;
	uint32_t cov = hwbpi_objtab_coverage(tab, i, tab->ended);
	char site[HWBPI_SYMTAB_DESCRIBE_MAX], fn[HWBPI_SYMTAB_DESCRIBE_MAX];

	fprintf(f, "  %-5" PRIu64 " 0x%-14" PRIx64 " %-24s %-8s %10.3f %6.1f%% %7" PRIu64 "  ",
		o->seq, o->ptr, where(t, o->site, site, sizeof(site)),
		o->state == HWBPI_OBJ_LIVE ? "live" : "released",
		(double)(end > o->born ? end - o->born : 0) / 1e6, cov / 1e4, o->hits);
	for (unsigned k = 0; k < HWBPI_OBJ_FUNCS && o->by[k].n; k++)
		fprintf(f, "%s%s %s %" PRIu64, k ? ", " : "", kind_name(o->by[k].kind),
			where(t, o->by[k].func, fn, sizeof(fn)), o->by[k].n);
	if (o->by_other)
		fprintf(f, ", others %" PRIu64, o->by_other);
	fputc('\n', f);
}

static const struct hwbpi_objtab *sorting;

static int by_seq(const void *a, const void *b)
{
	uint64_t x = sorting->obj[*(const unsigned *)a].seq, y = sorting->obj[*(const unsigned *)b].seq;

	return x < y ? -1 : x > y;
}

int hwbpi_objects_print(FILE *f, const struct hwbpi_tracer *t)
{
	for (unsigned wi = 0; wi < t->nw; wi++) {
		const struct hwbpi_watch *w = &t->w[wi];
		const struct hwbpi_objtab *tab = &w->objs;
		unsigned live = 0;

		if (!w->object || !tab->obj)
			continue;
		for (unsigned i = 0; i < tab->n; i++)
			live += tab->obj[i].state == HWBPI_OBJ_LIVE;
		fprintf(f, "\nObjects of %s: %" PRIu64 " armed, %" PRIu64 " released, %u live at "
			"the end, overflow %" PRIu64 " (table of %u)\n", w->name, tab->seq,
			tab->released, live, tab->overflow, tab->n);
		fprintf(f, "  %-5s %-16s %-24s %-8s %10s %7s %7s  %s\n", "#", "Object", "Armed at",
			"State", "Age_ms", "Watched", "Hits", "Hits by kind and function");
		/* In the order they were armed. */
		unsigned *ix = malloc(tab->n * sizeof(*ix)), m = 0;

		if (!ix)
			return -ENOMEM;
		for (unsigned i = 0; i < tab->n; i++)
			if (tab->obj[i].state != HWBPI_OBJ_FREE)
				ix[m++] = i;
		sorting = tab;
		qsort(ix, m, sizeof(*ix), by_seq);
		for (unsigned k = 0; k < m; k++)
			print_obj(f, t, tab, (int)ix[k]);
		free(ix);
		if (tab->forgotten)
			fprintf(f, "  (%" PRIu64 " released objects left the table for newer ones)\n",
				tab->forgotten);
		if (tab->unknown_release)
			fprintf(f, "  (%" PRIu64 " releases of objects not in the table)\n",
				tab->unknown_release);
		if (tab->rotations || tab->refused || tab->ret_lost)
			fprintf(f, "  (%" PRIu64 " rotations of the debug registers, %" PRIu64
				" objects the planner refused, %" PRIu64 " returns not awaited)\n",
				tab->rotations, tab->refused, tab->ret_lost);
		if (tab->async)
			fprintf(f, "  Armed asynchronously: arming delay median %.1f us, max %.1f us "
				"over %" PRIu64 " objects (accesses before it are not seen); %" PRIu64
				" hits after a release, before the disarm, not counted\n",
				(double)tab->delay_median / 1e3, (double)tab->delay_max / 1e3,
				tab->delay_n, tab->after_release);
	}
	return ferror(f) ? -EIO : 0;
}
