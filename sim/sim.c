/* SPDX-License-Identifier: MIT */
/*
 * The simulator engine: CPUs of one model, the per-arch semantic model
 * picked at run time, the precomputed filter on the hot path, and the
 * glue through which hwbp_install() writes simulated registers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

struct hwbp_sim {
	struct hwbp_cpu cpu;
	const struct hwbpi_sim_model *m;
	int profile;
	unsigned ncpus;
	struct hwbp_glue glue;
	struct hwbpi_sim_cpu c[HWBP_SIM_MAX_CPUS];
};

/* The map slot of a granule: its low bits (a fold of higher bits costs
 * more than the rare alias it avoids, which window_hit() settles). */
static inline unsigned gran_index(uint64_t g)
{
	return (unsigned)(g % HWBPI_SIM_GRAN_COUNT);
}

/* Does [addr, last] overlap one of the model's windows?  The exact second
 * level behind the hashed map: an alias costs this scan, not the model. */
static inline bool window_hit(const struct hwbpi_sim_cpu *c, uint64_t addr, uint64_t last)
{
	for (unsigned i = 0; i < c->nwin; i++)
		if (addr < c->whi[i] && last >= c->wlo[i])
			return true;
	return false;
}

static inline bool gran_set(const uint8_t *gran, uint64_t addr)
{
	return gran[gran_index(addr >> HWBPI_SIM_GRAN_SHIFT)];
}

/*
 * After any change of registers or mode: the model recomputes its filter,
 * then the engine turns the model's windows (if it lists them) into the
 * granule bitmap.  Each window is marked from 63 bytes before its start,
 * so that the granule of an access's FIRST byte decides alone: an access
 * is at most 64 bytes, so one that reaches a window starts at most 63
 * bytes before it.  A window of more than 4096 granules (256 KiB) would
 * fill much of the hashed map: then the map is off and [flo, fhi) decides.
 */
static void refilter(struct hwbp_sim *sim, struct hwbpi_sim_cpu *c)
{
	sim->m->refilter(&sim->cpu, sim->profile, c);
	memset(c->gran, 0, sizeof(c->gran));
	c->gran_on = c->nwin > 0 && c->nwin <= HWBPI_SIM_MAXWIN;
	for (unsigned i = 0; c->gran_on && i < c->nwin; i++) {
		uint64_t lo = c->wlo[i] >= 63 ? c->wlo[i] - 63 : 0;
		uint64_t g0 = lo >> HWBPI_SIM_GRAN_SHIFT;
		uint64_t g1 = (c->whi[i] - 1) >> HWBPI_SIM_GRAN_SHIFT;

		if (c->whi[i] <= c->wlo[i] || g1 - g0 >= 4096) {
			c->gran_on = false;
			break;
		}
		for (uint64_t g = g0; g <= g1; g++)
			c->gran[gran_index(g)] = 1;
	}
}

static int glue_write(void *arg, unsigned cpu, const struct hwbp_regs *r)
{
	struct hwbp_sim *sim = arg;
	struct hwbpi_sim_cpu *c;
	struct hwbp_regs old;

	if (cpu >= sim->ncpus || r->arch != sim->cpu.arch)
		return -EINVAL;
	c = &sim->c[cpu];
	old = c->regs;
	/*
	 * A kernel installing breakpoints writes address and control
	 * registers, never the status ones (x86 DR6 keeps what the CPU put
	 * there, arm64 MDSCR only gains the enables it needs): the core
	 * knows which are which.
	 */
	if (hwbp_regs_apply(&sim->cpu, &c->regs, r))
		return -EINVAL;
	/* The glue writes every slot, in slot order. */
	for (unsigned i = 0; i < HWBP_MAX_SLOTS; i++)
		c->wseq[i] = ++c->wclock;
	if (sim->m->glue_wrote)
		sim->m->glue_wrote(&sim->cpu, sim->profile, c, &old);
	refilter(sim, c);
	return 0;
}

/* The simulated CPUs are all "here": running on one is a direct call. */
static int glue_on_cpu(void *arg, unsigned cpu, int (*fn)(void *), void *fnarg)
{
	struct hwbp_sim *sim = arg;

	if (cpu >= sim->ncpus)
		return -EINVAL;
	return fn(fnarg);
}

struct hwbp_sim *hwbp_sim_new(const struct hwbp_cpu *cpu, enum hwbp_sim_profile profile,
			      unsigned ncpus, int *err)
{
	struct hwbp_sim *sim;
	const struct hwbpi_sim_model *m = cpu ? hwbpi_sim_model(cpu->arch) : NULL;
	int e = 0;

	if (!m || ncpus == 0 || ncpus > HWBP_SIM_MAX_CPUS ||
	    (profile != HWBP_SIM_SDM && profile != HWBP_SIM_QEMU && profile != HWBP_SIM_LINUX))
		e = -EINVAL;
	else if (!(sim = calloc(1, sizeof(*sim))))
		e = -ENOMEM;
	if (e) {
		if (err)
			*err = e;
		return NULL;
	}
	sim->cpu = *cpu;
	sim->m = m;
	sim->profile = profile;
	sim->ncpus = ncpus;
	sim->glue.write_regs = glue_write;
	sim->glue.on_cpu = glue_on_cpu;
	sim->glue.arg = sim;
	for (unsigned i = 0; i < ncpus; i++) {
		m->reset(cpu, profile, &sim->c[i]);
		refilter(sim, &sim->c[i]);
	}
	if (err)
		*err = 0;
	return sim;
}

void hwbp_sim_free(struct hwbp_sim *sim)
{
	free(sim);
}

static void clear_result(struct hwbp_sim_result *res)
{
	memset(res, 0, sizeof(*res));
}

int hwbp_sim_set_reg(struct hwbp_sim *sim, unsigned cpu, const char *name,
		     uint64_t value, struct hwbp_sim_result *res)
{
	int ret;

	if (!sim || !name || !res || cpu >= sim->ncpus)
		return -EINVAL;
	clear_result(res);
	ret = sim->m->set_reg(&sim->cpu, sim->profile, &sim->c[cpu], name, value, res);
	refilter(sim, &sim->c[cpu]);
	return ret;
}

int hwbp_sim_debug_ready(struct hwbp_sim *sim, unsigned cpu)
{
	if (!sim || cpu >= sim->ncpus)
		return -EINVAL;
	if (sim->m->debug_ready) {
		sim->m->debug_ready(&sim->c[cpu]);
		refilter(sim, &sim->c[cpu]);
	}
	return 0;
}

int hwbp_sim_get_reg(const struct hwbp_sim *sim, unsigned cpu, const char *name,
		     uint64_t *value)
{
	if (!sim || !name || !value || cpu >= sim->ncpus)
		return -EINVAL;
	return sim->m->get_reg(&sim->cpu, &sim->c[cpu], name, value);
}

int hwbp_sim_get_insn(struct hwbp_sim *sim, unsigned cpu, const char *name,
		      struct hwbp_sim_result *res)
{
	uint64_t v = 0;
	int ret;

	if (!sim || !name || !res || cpu >= sim->ncpus)
		return -EINVAL;
	clear_result(res);
	if (!sim->m->get_insn) {
		ret = sim->m->get_reg(&sim->cpu, &sim->c[cpu], name, &v);
	} else {
		ret = sim->m->get_insn(&sim->cpu, sim->profile, &sim->c[cpu], name, &v, res);
		refilter(sim, &sim->c[cpu]);
	}
	/* The value read, when the read completed (alone, or stepped). */
	if (ret == 0 && (res->cls == HWBP_SIM_NONE || res->timing == HWBP_TIMING_AFTER))
		hwbpi_sim_status(res, name, v);
	return ret;
}

int hwbp_sim_mode(struct hwbp_sim *sim, unsigned cpu, const char *key, uint64_t value)
{
	int ret;

	if (!sim || !key || cpu >= sim->ncpus)
		return -EINVAL;
	ret = sim->m->mode(&sim->cpu, &sim->c[cpu], key, value);
	refilter(sim, &sim->c[cpu]);
	return ret;
}

/*
 * Can a data access be skipped?  A data access entirely below flo or
 * at/above fhi cannot match any enabled slot (the model keeps [flo, fhi)
 * conservative), so it changes nothing; fhi == 0 makes every access
 * "above".  With the model's windows, one lookup in the granule map
 * decides (see refilter()): for a random stream its answer is almost
 * always "skip", near slots or far from them, so it predicts well, where a
 * range test that splits the stream would not.  The range test compares
 * the LAST byte, so an access ending at 2^64 does not wrap around.
 * hwbp_sim_run() inlines the same test by hand.
 */
static inline bool far_from_slots(const struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a)
{
	if (c->gran_on)
		return !gran_set(c->gran, a->addr) ||
		       !window_hit(c, a->addr, a->addr + (a->size - 1));
	return a->addr >= c->fhi || a->addr + (a->size - 1) < c->flo;
}

static inline bool is_data(uint32_t op)
{
	return op == HWBP_SIM_READ || op == HWBP_SIM_WRITE;
}

int hwbp_sim_access(struct hwbp_sim *sim, unsigned cpu, const struct hwbp_sim_access *a,
		    struct hwbp_sim_result *res)
{
	struct hwbpi_sim_cpu *c;

	if (!sim || !a || !res || cpu >= sim->ncpus)
		return -EINVAL;
	if (a->op < HWBP_SIM_READ || a->op > HWBP_SIM_STI)
		return -EINVAL;
	if ((is_data(a->op) || a->op == HWBP_SIM_IO) && (a->size == 0 || a->size > 64))
		return -EINVAL;
	c = &sim->c[cpu];
	if (is_data(a->op) && far_from_slots(c, a)) {
		clear_result(res);
		return 0;
	}
	clear_result(res);
	sim->m->access(&sim->cpu, sim->profile, c, a, res);
	/* The instructions beyond accesses change execution state (a
	 * shadow, PSTATE.SS...) that the filter must see at once. */
	if (a->op > HWBP_SIM_ZERO)
		refilter(sim, c);
	return 0;
}

/* The same without the filter: tests compare the two. */
int hwbpi_sim_access_unfiltered(struct hwbp_sim *sim, unsigned cpu,
				const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	if (!sim || !a || !res || cpu >= sim->ncpus)
		return -EINVAL;
	clear_result(res);
	sim->m->access(&sim->cpu, sim->profile, &sim->c[cpu], a, res);
	return 0;
}

int hwbp_sim_resume(struct hwbp_sim *sim, unsigned cpu, struct hwbp_sim_result *res)
{
	if (!sim || !res || cpu >= sim->ncpus)
		return -EINVAL;
	clear_result(res);
	sim->m->resume(&sim->cpu, sim->profile, &sim->c[cpu], res);
	return 0;
}

/*
 * Hot path: far_from_slots(), by hand, as tight loops that run until an
 * access needs a closer look; each returns the index of that access, or n.
 * The filter is read once per loop: only the model (access/resume) changes
 * it.  READ = 1, WRITE = 2, so `op - 1u >= 2u` is "not a data access".
 */

/* A stream below every slot: one compare against flo a step. */
static inline size_t skip_below(const struct hwbp_sim_access *a, size_t i, size_t n,
				uint64_t flo, uint64_t fhi, const uint8_t *gran)
{
	for (; i < n; i++)
		if (a[i].op - 1u >= 2u || a[i].addr + (a[i].size - 1) >= flo)
			if (a[i].op - 1u >= 2u || (a[i].addr < fhi && gran_set(gran, a[i].addr)))
				break;
	return i;
}

/* Above every slot: likewise, against fhi. */
static inline size_t skip_above(const struct hwbp_sim_access *a, size_t i, size_t n,
				uint64_t flo, uint64_t fhi, const uint8_t *gran)
{
	for (; i < n; i++)
		if (a[i].op - 1u >= 2u || a[i].addr < fhi)
			if (a[i].op - 1u >= 2u ||
			    (a[i].addr + (a[i].size - 1) >= flo && gran_set(gran, a[i].addr)))
				break;
	return i;
}

/* Mingled with the slots: the map alone. */
static inline size_t skip_mingled(const struct hwbp_sim_access *a, size_t i, size_t n,
				  const uint8_t *gran)
{
	for (; i < n; i++)
		if (a[i].op - 1u >= 2u || gran_set(gran, a[i].addr))
			break;
	return i;
}

/*
 * With the granule map, a short sample picks the order of the tests: a
 * stream that stays below (or above) [flo, fhi) is best served by one
 * compare against flo (or fhi), one that mingles with the slots by the map,
 * whose answer ("skip") predicts well where a range test would be a coin
 * flip.  The order changes the speed, never the answer.
 */
static inline size_t skip_by_map(const struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
				 size_t i, size_t n)
{
	const uint64_t flo = c->flo, fhi = c->fhi;
	size_t sample = n - i < 32 ? n - i : 32, below = 0, above = 0;

	for (size_t k = i; k < i + sample; k++) {
		below += a[k].addr + (a[k].size - 1) < flo;
		above += a[k].addr >= fhi;
	}
	if (below == sample)
		return skip_below(a, i, n, flo, fhi, c->gran);
	if (above == sample)
		return skip_above(a, i, n, flo, fhi, c->gran);
	return skip_mingled(a, i, n, c->gran);
}

/* Without the map: [flo, fhi) decides. */
static inline size_t skip_by_range(const struct hwbpi_sim_cpu *c, const struct hwbp_sim_access *a,
				   size_t i, size_t n)
{
	const uint64_t flo = c->flo, fhi = c->fhi;

	for (; i < n; i++)
		if (a[i].op - 1u >= 2u || (a[i].addr < fhi && a[i].addr + (a[i].size - 1) >= flo))
			break;
	return i;
}

size_t hwbp_sim_run(struct hwbp_sim *sim, unsigned cpu,
		    const struct hwbp_sim_access *a, size_t n)
{
	struct hwbpi_sim_cpu *c;
	struct hwbp_sim_result res;
	size_t hits = 0, i = 0;

	if (!sim || !a || cpu >= sim->ncpus)
		return 0;
	c = &sim->c[cpu];
	while (i < n) {
		i = c->gran_on ? skip_by_map(c, a, i, n) : skip_by_range(c, a, i, n);
		if (i == n)
			break;
		/* The map's granule may be an alias: the windows settle it. */
		if (c->gran_on && a[i].op - 1u < 2u &&
		    !window_hit(c, a[i].addr, a[i].addr + (a[i].size - 1))) {
			i++;
			continue;
		}
		sim->m->access(&sim->cpu, sim->profile, c, &a[i], &res);
		if (res.cls != HWBP_SIM_NONE) {
			hits++;
			sim->m->resume(&sim->cpu, sim->profile, c, &res);
		}
		i++;
	}
	return hits;
}

const struct hwbp_glue *hwbp_sim_glue(struct hwbp_sim *sim)
{
	return sim ? &sim->glue : NULL;
}

const struct hwbp_regs *hwbpi_sim_regs(const struct hwbp_sim *sim, unsigned cpu)
{
	return sim && cpu < sim->ncpus ? &sim->c[cpu].regs : NULL;
}

int hwbp_sim_priv(const struct hwbp_sim *sim, unsigned cpu)
{
	if (!sim || cpu >= sim->ncpus)
		return -EINVAL;
	return sim->m->priv(&sim->c[cpu]);
}
