/* SPDX-License-Identifier: MIT */
/*
 * The instructions that may race (race/race.h, hwbpi_race_candidates()):
 * every function of the chosen objects walked with the arch's decoder
 * (insn/insn.h scan), its PLAIN memory accesses kept and the rest counted
 * by why they cannot race or cannot be watched.  The walk is static, so
 * it costs nothing while the program runs: a trap is only ever planted
 * on the first byte of an instruction the decoder found by walking its
 * function from its symbol's start.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "race/race.h"

/* The largest function walked: longer ones are generated tables or
 * mislabelled data more often than code a person wrote. */
#define FUNC_MAX (1u << 20)

static const char *last_part(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Whether entry @e ("OBJ" or "OBJ:GLOB") names object @name; *@glob its
 * function pattern (NULL: the whole object). */
static bool entry_names(const char *e, const char *name, const char **glob)
{
	const char *colon = strchr(e, ':');
	const char *obj = last_part(e);
	size_t n = colon ? (size_t)(colon - obj) : strlen(obj);

	if (colon && colon < obj)   /* a '/' after the ':': no pattern */
		n = strlen(obj), colon = NULL;
	*glob = colon ? colon + 1 : NULL;
	return strlen(name) == n && strncmp(obj, name, n) == 0;
}

bool hwbpi_race_chosen(const struct hwbpi_race_sel *sel, const char *path)
{
	const char *name, *glob;

	if (!sel || !path)
		return false;
	name = last_part(path);
	for (unsigned i = 0; i < sel->nexclude; i++)
		if (entry_names(sel->exclude[i], name, &glob) && !glob)
			return false;
	if (!sel->nonly)
		return sel->exe && strcmp(last_part(sel->exe), name) == 0;
	for (unsigned i = 0; i < sel->nonly; i++)
		if (entry_names(sel->only[i], name, &glob))
			return true;
	return false;
}

/* Whether glob @g matches function @f, by its symbol's name or, for a C++
 * one, its demangled name ("Queue::push*"). */
static bool func_matches(const char *g, const char *f)
{
	char dm[512];

	if (fnmatch(g, f, 0) == 0)
		return true;
	return hwbpi_demangle(f, dm, sizeof(dm)) != -EINVAL && strcmp(dm, f) != 0 &&
	       fnmatch(g, dm, 0) == 0;
}

bool hwbpi_race_func_chosen(const struct hwbpi_race_sel *sel, const char *path, const char *func)
{
	const char *name, *glob;
	bool any = false, whole = !sel || !sel->nonly;

	if (!sel || !path || !func)
		return false;
	name = last_part(path);
	for (unsigned i = 0; i < sel->nexclude; i++)
		if (entry_names(sel->exclude[i], name, &glob) && glob && func_matches(glob, func))
			return false;
	for (unsigned i = 0; i < sel->nonly; i++) {
		if (!entry_names(sel->only[i], name, &glob))
			continue;
		if (!glob)
			whole = true;
		else
			any = any || func_matches(glob, func);
	}
	return whole || any;
}

static int grow(struct hwbpi_race_cands *c)
{
	size_t cap = c->cap ? 2 * c->cap : 256;
	uint64_t *ip = realloc(c->ip, cap * sizeof(*ip));

	if (!ip)
		return -ENOMEM;
	c->ip = ip;
	c->cap = cap;
	return 0;
}

/* scan's callback: one instruction of the function being walked. */
struct walk {
	struct hwbpi_race_cands *c;
	uint64_t end;                /* the function's end: the walk ran to it */
};

static int each(void *arg, uint64_t ip, unsigned len, unsigned cls)
{
	struct walk *w = arg;
	struct hwbpi_race_cands *c = w->c;

	w->end = ip + len;
	c->instructions++;
	if (cls != HWBPI_INSN_PLAIN) {
		if (cls < HWBPI_INSN_NCLASS && cls != HWBPI_INSN_NOMEM)
			c->skipped[cls]++;
		return 0;
	}
	if (c->n == c->cap && grow(c))
		return -ENOMEM;
	c->ip[c->n++] = ip;
	return 0;
}

int hwbpi_race_walk_func(const struct hwbp_sym *f, const struct hwbpi_insn_arch *a,
		     struct hwbpi_insn_dec *d, hwbpi_race_read_fn rd, void *rarg, uint8_t **buf,
		     size_t *bufn, struct hwbpi_race_cands *c)
{
	struct walk w = { c, f->addr };
	int ret;

	if (!f->size || f->size > FUNC_MAX) {
		c->unsized++;
		return 0;
	}
	if (*bufn < f->size) {
		uint8_t *nb = realloc(*buf, f->size);

		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*bufn = f->size;
	}
	if (rd(rarg, f->addr, *buf, f->size)) {
		c->unsized++;
		return 0;
	}
	c->functions++;
	ret = a->scan(d, *buf, f->size, f->addr, each, &w);
	if (ret)
		return ret;
	if (w.end < f->addr + f->size)
		c->cut++;
	return 0;
}

/* Whether the object holding @addr is chosen; the first one named in
 * @c->first_obj, and counted once each (they come in address order). */
static bool object_chosen(const struct hwbp_symtab *syms, const struct hwbpi_race_sel *sel,
			  uint64_t addr, const char **last, struct hwbpi_race_cands *c)
{
	const char *path = NULL;
	uint64_t bias;

	if (hwbpi_symtab_region_of(syms, addr, &path, &bias) || !hwbpi_race_chosen(sel, path))
		return false;
	if (*last != path) {
		if (!c->objects++)
			snprintf(c->first_obj, sizeof(c->first_obj), "%s", last_part(path));
		*last = path;
	}
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Ascending and each once, for hwbpi_race_cand_find(): functions whose
 * symbols overlap (a size that runs into the next one) give some twice. */
static void sort_unique(struct hwbpi_race_cands *c)
{
	size_t k = 0;

	if (!c->n)
		return;
	qsort(c->ip, c->n, sizeof(*c->ip), cmp_u64);
	for (size_t i = 0; i < c->n; i++)
		if (!k || c->ip[k - 1] != c->ip[i])
			c->ip[k++] = c->ip[i];
	c->n = k;
}

int hwbpi_race_candidates(const struct hwbp_symtab *syms, const struct hwbpi_race_sel *sel,
			  const struct hwbpi_insn_arch *a, struct hwbpi_insn_dec *d,
			  hwbpi_race_read_fn rd, void *rarg, struct hwbpi_race_cands *out)
{
	const uint64_t *starts;
	const char *last = NULL;
	size_t n, bufn = 0;
	uint8_t *buf = NULL;
	uint64_t prev = 0;
	int ret = 0;

	if (!syms || !sel || !a || !a->scan || !d || !rd || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	n = hwbpi_symtab_func_starts(syms, &starts);
	for (size_t i = 0; ret == 0 && i < n; i++) {
		const struct hwbp_sym *f = hwbp_symtab_func(syms, starts[i]);

		/* aliases repeat a start; an interval's start inside another
		 * function is no function's own */
		if (!f || f->addr != starts[i] || (i && starts[i] == prev))
			continue;
		prev = starts[i];
		if (object_chosen(syms, sel, f->addr, &last, out) &&
		    hwbpi_race_func_chosen(sel, last, f->name))
			ret = hwbpi_race_walk_func(f, a, d, rd, rarg, &buf, &bufn, out);
	}
	free(buf);
	return hwbpi_race_cands_finish(out, ret);
}

int hwbpi_race_cands_finish(struct hwbpi_race_cands *c, int ret)
{
	sort_unique(c);
	if (ret == 0 && c->n && !(c->state = calloc(c->n, 1)))
		ret = -ENOMEM;
	if (ret)
		hwbpi_race_cands_free(c);
	return ret;
}

void hwbpi_race_cands_free(struct hwbpi_race_cands *c)
{
	if (!c)
		return;
	free(c->ip);
	free(c->state);
	c->ip = NULL;
	c->state = NULL;
	c->n = c->cap = 0;
}

long hwbpi_race_cand_find(const struct hwbpi_race_cands *c, uint64_t ip)
{
	size_t lo = 0, hi = c ? c->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ip[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (c ? c->n : 0) && c->ip[lo] == ip ? (long)lo : -1;
}

int hwbpi_race_linear(const struct hwbpi_insn_arch *a, struct hwbpi_insn_dec *d,
		      const uint8_t *code, size_t n, uint64_t ip, struct hwbpi_race_linear *out)
{
	struct hwbpi_insn_regs regs;
	struct hwbpi_insn o;
	unsigned nr = 0;

	if (!a || !a->at_pc || !d || !code || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->reg[0] = out->reg[1] = -1;
	memset(&regs, 0, sizeof(regs));
	regs.known = ~UINT64_C(0);
	if (a->at_pc(d, code, n, ip, &regs, &o) || o.n != 1 || !o.acc[0].addr_known ||
	    !o.acc[0].size || o.acc[0].size > HWBPI_RACE_LINEAR_SIZE_MAX)
		return -ENOENT;
	out->disp = o.acc[0].addr;
	out->size = (unsigned)o.acc[0].size;
	out->kind = o.acc[0].kind;
	/* Each general register alone 1: its coefficient is what it adds
	 * (an address is linear in them: base + index * scale + disp). */
	for (int g = 0; g < HWBPI_RACE_LINEAR_REGS; g++) {
		regs.v[g] = 1;
		if (a->at_pc(d, code, n, ip, &regs, &o) || o.n != 1 || !o.acc[0].addr_known)
			return -ENOENT;
		regs.v[g] = 0;
		if (o.acc[0].addr == out->disp)
			continue;
		if (nr == 2)
			return -ENOENT;
		out->reg[nr] = g;
		out->coef[nr++] = (int64_t)(o.acc[0].addr - out->disp);
	}
	return 0;
}
