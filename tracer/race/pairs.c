/* SPDX-License-Identifier: MIT */
/*
 * Races deduplicated by their pair of instructions (race/race.h,
 * hwbpi_race_pairs_add()).  A race between instructions A and B is one
 * bug however often it is caught, and whichever of the two was the
 * sampled one: a thread held at A and caught by B's access is the same
 * race as one held at B and caught by A's.  So the key is the unordered
 * pair, and the report keeps the first observation's order and counts
 * the repeats.  An unseen writer has one instruction: its key is that
 * one alone, apart from any caught pair.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "race/race.h"

static bool same(const struct hwbpi_race_pair *p, const struct hwbpi_race_pair *o)
{
	if (p->unseen != o->unseen)
		return false;
	if (p->unseen)
		return p->a.ip == o->a.ip;
	return (p->a.ip == o->a.ip && p->b.ip == o->b.ip) ||
	       (p->a.ip == o->b.ip && p->b.ip == o->a.ip);
}

long hwbpi_race_pairs_add(struct hwbpi_race_pairs *t, const struct hwbpi_race_pair *obs)
{
	if (!t || !obs)
		return -EINVAL;
	/* A few distinct races per run: a linear search is enough, and
	 * keeps the reports in the order they were first seen. */
	for (size_t i = 0; i < t->n; i++)
		if (same(&t->p[i], obs)) {
			t->p[i].count++;
			return (long)i;
		}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct hwbpi_race_pair *p = realloc(t->p, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->p = p;
		t->cap = cap;
	}
	t->p[t->n] = *obs;
	t->p[t->n].count = 1;
	return (long)t->n++;
}

void hwbpi_race_pairs_free(struct hwbpi_race_pairs *t)
{
	if (!t)
		return;
	free(t->p);
	memset(t, 0, sizeof(*t));
}
