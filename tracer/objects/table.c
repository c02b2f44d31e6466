/* SPDX-License-Identifier: MIT */
/*
 * The objects of one watch (objects/objects.h): a table of N entries
 * allocated once, as proposed for kmemtrace on LKML in 2008 (a static,
 * limited-size table of tracked objects with an overflow count, whose
 * entries' ages show the objects never freed).  Lookups are linear: N is
 * small (64 by default) and an arming or a release is a stop of the
 * traced program, thousands of times dearer than a scan of N entries.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "objects/objects.h"

/* One line of --objects-log (tab->log): off the hit path (an arming, a
 * release and a rotation are stops of the program). */
static void log_ev(const struct hwbpi_objtab *tab, const struct hwbpi_obj *o, const char *ev,
		   uint64_t now)
{
	if (tab->log)
		fprintf(tab->log, "%" PRIu64 " 0x%" PRIx64 " %s %" PRIu64 "\n", o->seq, o->ptr, ev, now);
}

int hwbpi_objtab_init(struct hwbpi_objtab *tab, unsigned n)
{
	memset(tab, 0, sizeof(*tab));
	if (n == 0 || n > HWBPI_OBJ_MAX)
		return -EINVAL;
	tab->obj = calloc(n, sizeof(*tab->obj));
	if (!tab->obj)
		return -ENOMEM;
	tab->n = n;
	for (unsigned i = 0; i < n; i++)
		tab->obj[i].slot = -1;
	return 0;
}

void hwbpi_objtab_fini(struct hwbpi_objtab *tab)
{
	free(tab->obj);
	memset(tab, 0, sizeof(*tab));
}

int hwbpi_objtab_find(const struct hwbpi_objtab *tab, uint64_t ptr)
{
	for (unsigned i = 0; i < tab->n; i++)
		if (tab->obj[i].state == HWBPI_OBJ_LIVE && tab->obj[i].ptr == ptr)
			return (int)i;
	return -ENOENT;
}

int hwbpi_objtab_arm(struct hwbpi_objtab *tab, uint64_t ptr, uint64_t site, uint64_t now)
{
	int i = hwbpi_objtab_find(tab, ptr), freed = -1;
	struct hwbpi_obj *o;

	if (i >= 0) {
		tab->obj[i].armings++;
		return i;
	}
	/* A free entry, else the released object released first: its row
	 * leaves the report (counted), a live one never does. */
	for (unsigned k = 0; k < tab->n && i < 0; k++) {
		if (tab->obj[k].state == HWBPI_OBJ_FREE)
			i = (int)k;
		else if (tab->obj[k].state == HWBPI_OBJ_RELEASED &&
			 (freed < 0 || tab->obj[k].died < tab->obj[freed].died))
			freed = (int)k;
	}
	if (i < 0 && freed >= 0) {
		i = freed;
		tab->forgotten++;
	}
	if (i < 0) {
		tab->overflow++;
		return -ENOSPC;
	}
	o = &tab->obj[i];
	memset(o, 0, sizeof(*o));
	o->ptr = ptr;
	o->seq = ++tab->seq;
	o->born = now;
	o->site = site;
	o->armings = 1;
	o->slot = -1;
	o->state = HWBPI_OBJ_LIVE;
	log_ev(tab, o, "armed", now);
	return i;
}

void hwbpi_objtab_slot(struct hwbpi_objtab *tab, int i, int slot, uint64_t now)
{
	struct hwbpi_obj *o = &tab->obj[i];

	if (o->slot >= 0 && o->since) {
		/* (An asynchronous backend may end a spell at a release that
		 * came before the spell began: nothing watched.) */
		if (now > o->since)
			o->watched_ns += now - o->since;
		o->since = 0;
		log_ev(tab, o, "out", now);
	}
	o->slot = slot;
	/* A spell starts at 1 ns at least: 0 means none. */
	if (slot >= 0) {
		o->since = now ? now : 1;
		log_ev(tab, o, "in", now);
	}
}

void hwbpi_objtab_release(struct hwbpi_objtab *tab, int i, uint64_t now)
{
	struct hwbpi_obj *o = &tab->obj[i];

	if (o->slot >= 0)
		hwbpi_objtab_slot(tab, i, -1, now);
	o->died = now;
	o->state = HWBPI_OBJ_RELEASED;
	tab->released++;
	log_ev(tab, o, "released", now);
}

void hwbpi_objtab_hit(struct hwbpi_objtab *tab, int i, uint64_t func, uint8_t kind)
{
	struct hwbpi_obj *o = &tab->obj[i];

	o->hits++;
	for (unsigned k = 0; k < HWBPI_OBJ_FUNCS; k++) {
		if (o->by[k].n && (o->by[k].func != func || o->by[k].kind != kind))
			continue;
		o->by[k].func = func;
		o->by[k].kind = kind;
		o->by[k].n++;
		return;
	}
	o->by_other++;
}

int hwbpi_objtab_next_waiting(struct hwbpi_objtab *tab)
{
	for (unsigned k = 0; k < tab->n; k++) {
		unsigned i = (tab->rr + 1 + k) % tab->n;

		if (tab->obj[i].state == HWBPI_OBJ_LIVE && tab->obj[i].slot < 0) {
			tab->rr = i;
			return (int)i;
		}
	}
	return -ENOENT;
}

void hwbpi_objtab_close(struct hwbpi_objtab *tab, uint64_t now)
{
	for (unsigned i = 0; i < tab->n; i++)
		if (tab->obj[i].state == HWBPI_OBJ_LIVE && tab->obj[i].slot >= 0) {
			hwbpi_objtab_slot(tab, (int)i, -1, now);
			tab->obj[i].slot = -1;
		}
	tab->ended = now;
}

unsigned hwbpi_objtab_live(const struct hwbpi_objtab *tab, unsigned *in_slot)
{
	unsigned live = 0, in = 0;

	for (unsigned i = 0; i < tab->n; i++)
		if (tab->obj[i].state == HWBPI_OBJ_LIVE) {
			live++;
			in += tab->obj[i].slot >= 0;
		}
	if (in_slot)
		*in_slot = in;
	return live;
}

uint32_t hwbpi_objtab_coverage(const struct hwbpi_objtab *tab, int i, uint64_t now)
{
	const struct hwbpi_obj *o = &tab->obj[i];
	uint64_t end = o->state != HWBPI_OBJ_LIVE ? o->died : tab->ended ? tab->ended : now;
	uint64_t life = end > o->born ? end - o->born : 0;
	uint64_t w = o->watched_ns + (o->slot >= 0 && o->since && now > o->since ? now - o->since : 0);

	if (life == 0)
		return o->slot >= 0 || o->watched_ns ? 1000000 : 0;
	if (w >= life)
		return 1000000;
	return (uint32_t)((unsigned __int128)w * 1000000 / life);
}
