/* SPDX-License-Identifier: MIT */
/*
 * What is sampled, and how often (race/race.h): a seeded generator, the
 * budget of traps per second, and the random choice of a candidate.
 *
 * DataCollider chose its breakpoints uniformly among the instructions,
 * not weighted by how often they run, so that code run rarely is
 * sampled as often as a hot loop; a trap here is one-shot (consumed by
 * the thread that reaches it first), so a hot instruction's trap goes
 * quickly and a cold one's waits, and the budget bounds how many
 * samples, each a thread held for the delay, a second can bring.
 */
#include "race/race.h"

void hwbpi_race_rng_seed(struct hwbpi_race_rng *r, uint64_t seed)
{
	r->s = seed;
}

/* SplitMix64 (Steele, Lea, Flood 2014): one add and a mix per number,
 * every seed a full-period sequence. */
uint64_t hwbpi_race_rand(struct hwbpi_race_rng *r)
{
	uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint64_t hwbpi_race_rand_below(struct hwbpi_race_rng *r, uint64_t n)
{
	uint64_t lim, v;

	if (!n)
		return 0;
	/* rejection of the top remainder: no bias toward small values */
	lim = UINT64_MAX - UINT64_MAX % n;
	do
		v = hwbpi_race_rand(r);
	while (v >= lim);
	return v % n;
}

#define MILLI_PER_TRAP 1000u
#define NS_PER_SEC UINT64_C(1000000000)

/* The bucket's size: one second's traps, and at least one (a rate under
 * one a second would never fill a whole trap). */
static uint64_t full(const struct hwbpi_race_budget *b)
{
	return b->millirate > MILLI_PER_TRAP ? b->millirate : MILLI_PER_TRAP;
}

void hwbpi_race_budget_init(struct hwbpi_race_budget *b, uint64_t millirate, uint64_t now_ns)
{
	b->millirate = millirate;
	b->last_ns = now_ns;
	b->milli = full(b);   /* the first second's, at once */
}

/* The bucket filled for the time since it was last: millirate
 * thousandths a second, up to full(). */
static void fill(struct hwbpi_race_budget *b, uint64_t now_ns)
{
	if (now_ns > b->last_ns) {
		/* millirate * dt / 1e9, without overflow for rates up to 2^32
		 * thousandths a second and gaps up to a year */
		uint64_t dt = now_ns - b->last_ns;
		uint64_t add = dt / NS_PER_SEC * b->millirate +
			       dt % NS_PER_SEC * b->millirate / NS_PER_SEC;

		b->milli = b->milli + add > full(b) ? full(b) : b->milli + add;
		/* the time the whole thousandths stand for: a remainder is
		 * kept for the next fill, so slow rates lose nothing */
		b->last_ns = add >= full(b) || !b->millirate ? now_ns :
			     b->last_ns + (add * NS_PER_SEC + b->millirate - 1) / b->millirate;
		if (b->last_ns > now_ns)
			b->last_ns = now_ns;
	}
}

unsigned hwbpi_race_budget_take(struct hwbpi_race_budget *b, uint64_t now_ns, unsigned max)
{
	uint64_t n;

	fill(b, now_ns);
	n = b->milli / MILLI_PER_TRAP;
	if (n > max)
		n = max;   /* the rest stays for later: nothing to spend it on now */
	b->milli -= n * MILLI_PER_TRAP;
	return (unsigned)n;
}

uint64_t hwbpi_race_budget_wait(const struct hwbpi_race_budget *b, uint64_t now_ns)
{
	struct hwbpi_race_budget c = *b;
	uint64_t need;

	fill(&c, now_ns);
	if (c.milli >= MILLI_PER_TRAP || !c.millirate)
		return c.millirate ? 0 : UINT64_MAX;
	need = MILLI_PER_TRAP - c.milli;
	/* ns for @need thousandths at millirate a second, rounded up, from
	 * the time the bucket was last filled for */
	need = c.last_ns + (need * NS_PER_SEC + c.millirate - 1) / c.millirate;
	return need > now_ns ? need - now_ns : 0;
}

long hwbpi_race_pick(const struct hwbpi_race_cands *c, struct hwbpi_race_rng *r)
{
	size_t start;

	if (!c || !c->n)
		return -1;
	start = (size_t)hwbpi_race_rand_below(r, c->n);
	/* Round the table from a random start: uniform while few are taken,
	 * and an answer whenever one is free. */
	for (size_t k = 0; k < c->n; k++) {
		size_t i = (start + k) % c->n;

		if (!(c->state[i] & (HWBPI_RACE_TRAP_ON | HWBPI_RACE_CAND_ATOMIC)))
			return (long)i;
	}
	return -1;
}
