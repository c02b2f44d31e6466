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

void hwbpi_race_budget_init(struct hwbpi_race_budget *b, unsigned rate, uint64_t now_ns)
{
	b->rate = rate;
	b->last_ns = now_ns;
	b->milli = (uint64_t)rate * MILLI_PER_TRAP;   /* the first second's, at once */
}

/* The bucket filled for the time since it was last: rate per second, up
 * to one second's worth. */
static void fill(struct hwbpi_race_budget *b, uint64_t now_ns)
{
	uint64_t full = (uint64_t)b->rate * MILLI_PER_TRAP;

	if (now_ns > b->last_ns) {
		/* thousandths of a trap: rate * ns / 1e6, without overflow for
		 * rates up to 2^32 and gaps up to a year */
		uint64_t dt = now_ns - b->last_ns;
		uint64_t add = dt / 1000000u * b->rate + dt % 1000000u * b->rate / 1000000u;

		b->milli = b->milli + add > full ? full : b->milli + add;
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
	if (c.milli >= MILLI_PER_TRAP || !c.rate)
		return c.rate ? 0 : UINT64_MAX;
	need = MILLI_PER_TRAP - c.milli;
	/* ns for @need thousandths at rate per second, rounded up */
	return (need * 1000000u + c.rate - 1) / c.rate;
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
