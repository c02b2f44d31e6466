/* SPDX-License-Identifier: MIT */
/*
 * The tracer session: filter entries resolved against symbols into watches,
 * the event-management layer they feed, and the simulator backend.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tls.h"
#include "tracer.h"

/*
 * The hit cache: hits come from a handful of instructions, and once a
 * (function, kind) has an entry of its breakpoint's histogram -- or is
 * known to overrun, since entries are never given back during a run -- the
 * same (ip, bp, kind) always lands in the same place.  A direct-mapped
 * table of those answers makes the common hit one compare and one
 * increment, instead of a symbol lookup and a scan of n entries.
 */
#define HIT_CACHE 1024

struct hwbpi_hit_cache {
	struct {
		uint64_t ip;
		uint32_t key;     /* bp << 8 | kind, + 1 so that 0 is "empty" */
		int32_t idx;      /* index into hist.e, or -1: overrun */
	} e[HIT_CACHE];
};

void hwbpi_say(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (!err || !n)
		return;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
}

int hwbpi_model_fits(const char *backend, const struct hwbp_cpu *want,
		     const struct hwbp_cpu *native, char *err, size_t errlen)
{
	struct hwbp_caps w, n;

	if (hwbp_caps_get(want, &w) || hwbp_caps_get(native, &n))
		return -EINVAL;
	if (w.arch == n.arch && w.data_slots <= n.data_slots && w.inst_slots <= n.inst_slots &&
	    w.max_piece <= n.max_piece)
		return 0;
	hwbpi_say(err, errlen, "the %s backend needs a CPU model this kernel can program "
		  "(here %s with %u watchpoints and %u breakpoints), not %s", backend,
		  native->name[0] ? native->name : hwbp_arch_name(native->arch), n.data_slots,
		  n.inst_slots, want->name[0] ? want->name : hwbp_arch_name(want->arch));
	return -EINVAL;
}

int hwbpi_tracer_apply(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e,
		       char *err, size_t errlen)
{
	struct hwbpi_watch w;

	if (!t || !e)
		return -EINVAL;
	if (strcmp(e->sym, "*") == 0) {
		if (e->type) {
			hwbpi_say(err, errlen, "'*' takes only ---");
			return -EINVAL;
		}
		t->nw = 0;
		return 0;
	}
	memset(&w, 0, sizeof(w));
	w.req = -1;
	if (e->sym[0]) {
		const struct hwbp_sym *s = t->syms ? hwbp_symtab_find(t->syms, e->sym) : NULL;
		/* Not in the table: perhaps a thread-local variable, which the
		 * table leaves out (its value is an offset: tracer/tls.h). */
		struct hwbpi_tls_var tv = { 0, 0, 0, 0 };
		int tr = s ? -ENOENT : hwbpi_tls_find(t->syms, e->sym, &tv, err, errlen);
		uint64_t size = s ? s->size : tv.size;

		if (!s && tr != 0 && tr != -ENOENT)
			return tr;
		if (!s && tr) {
			hwbpi_say(err, errlen, "no symbol '%s' in the symbol table%s%s", e->sym,
				  t->missing_hint ? ": " : "", t->missing_hint ? t->missing_hint : "");
			return -ENOENT;
		}
		w.addr = (s ? s->addr : tv.off) + e->off;
		w.sym = s;
		w.tls = !s;
		w.tls_memsz = s ? 0 : tv.memsz;
		w.tls_align = s ? 0 : tv.align;
		w.len_given = e->len != 0;
		/* The default length is the symbol's own size (ksym_trace_filter
		 * used a fixed 4), less the offset; for execution, the
		 * instruction there (a breakpoint on entry: a whole function
		 * would take one hardware slot per instruction on x86). */
		w.entry = !e->len && e->type == HWBP_X;
		w.len = e->len ? e->len : w.entry ? 0 : (size > e->off ? size - e->off : 0);
		if (e->off)
			snprintf(w.name, sizeof(w.name), "%s+%" PRIu64, e->sym, e->off);
		else
			snprintf(w.name, sizeof(w.name), "%s", e->sym);
	} else {
		w.addr = e->addr + e->off;
		w.len = e->len;
		snprintf(w.name, sizeof(w.name), "0x%" PRIx64, w.addr);
	}
	w.type = e->type;
	/* The symbol's address + OFF (+ LEN) must stay below 2^64: a wrapped
	 * range would watch bytes at the bottom of the address space. */
	if (e->sym[0] && (w.addr < e->off || (w.len && w.len - 1 > UINT64_MAX - w.addr))) {
		hwbpi_say(err, errlen, "%s: address range wraps past 2^64 (ERANGE)", w.name);
		return -ERANGE;
	}
	/* Removal: every watch of that name. */
	if (!e->type) {
		unsigned k = 0;

		for (unsigned i = 0; i < t->nw; i++)
			if (strcmp(t->w[i].name, w.name) != 0)
				t->w[k++] = t->w[i];
		t->nw = k;
		return 0;
	}
	if (w.len == 0 && !w.entry) {
		hwbpi_say(err, errlen, "%s: the symbol table gives no size: add /LEN", w.name);
		return -EINVAL;
	}
	/* A second entry for the same name replaces the first. */
	for (unsigned i = 0; i < t->nw; i++)
		if (strcmp(t->w[i].name, w.name) == 0) {
			t->w[i] = w;
			return 0;
		}
	if (t->nw == HWBP_MAX_REQUESTS) {
		hwbpi_say(err, errlen, "%s: too many watches", w.name);
		return -ENOSPC;
	}
	t->w[t->nw++] = w;
	return 0;
}

uint64_t hwbpi_watch_len(const struct hwbpi_watch *w, const struct hwbp_cpu *cpu)
{
	struct hwbp_caps caps;

	if (!w->entry)
		return w->len;
	/* An unknown model plans one byte; the planner then says why. */
	return hwbp_caps_get(cpu, &caps) == 0 && caps.inst_len ? caps.inst_len : 1;
}

int hwbpi_tracer_start(struct hwbpi_tracer *t, unsigned ncpus, bool trace, size_t ring_bytes,
		       bool overwrite)
{
	int ret;

	if (!t || ncpus == 0 || ncpus > HWBPI_TRACE_MAX_CPUS || t->nw == 0)
		return -EINVAL;
	t->ncpus = ncpus;
	t->trace = trace;
	t->hits = t->filtered = t->stray = 0;
	if (!trace) {
		ret = hwbp_hist_init(&t->hist, t->nw, t->hist_entries ? t->hist_entries : 16);
		if (ret)
			return ret;
		t->cache = calloc(1, sizeof(*t->cache));
		if (!t->cache) {
			hwbp_hist_fini(&t->hist);
			return -ENOMEM;
		}
		return 0;
	}
	for (unsigned c = 0; c < ncpus; c++) {
		t->ring[c] = hwbp_ring_new(ring_bytes, overwrite, &ret);
		if (!t->ring[c]) {
			hwbpi_tracer_fini(t);
			return ret;
		}
	}
	return 0;
}

uint64_t hwbpi_tracer_hits(const struct hwbpi_tracer *t)
{
	uint64_t n = t->hits + __atomic_load_n(&t->stray, __ATOMIC_RELAXED), produced;

	if (t->trace)
		for (unsigned c = 0; c < t->ncpus; c++) {
			hwbp_ring_stats(t->ring[c], &produced, NULL);
			n += produced;
		}
	return n;
}

uint64_t hwbpi_tracer_drain_every(const struct hwbpi_tracer *t, uint64_t most)
{
	uint64_t half;

	if (!t->trace || !t->ring[0])
		return 0;
	half = hwbp_ring_capacity(t->ring[0]) / 2;
	return half == 0 ? 1 : half < most ? half : most;
}

void hwbpi_tracer_fini(struct hwbpi_tracer *t)
{
	if (!t)
		return;
	if (!t->trace)
		hwbp_hist_fini(&t->hist);
	free(t->cache);
	t->cache = NULL;
	for (unsigned c = 0; c < HWBPI_TRACE_MAX_CPUS; c++) {
		hwbp_ring_free(t->ring[c]);
		t->ring[c] = NULL;
	}
}

static unsigned cache_slot(uint64_t ip, uint32_t key)
{
	uint64_t h = (ip ^ (ip >> 17) ^ ((uint64_t)key << 40)) * UINT64_C(0x9e3779b97f4a7c15);

	return (unsigned)(h >> 54) & (HIT_CACHE - 1);
}

const struct hwbp_sym *hwbpi_tracer_func(const struct hwbpi_tracer *t,
					 const struct hwbp_trace_event *ev)
{
	return t->syms ? hwbp_symtab_func(t->syms, hwbpi_tracer_access_ip(t, ev)) : NULL;
}

void hwbpi_tracer_hit(struct hwbpi_tracer *t, const struct hwbp_trace_event *ev)
{
	struct hwbp_hist *h = &t->hist;
	uint32_t key = ((uint32_t)ev->bp << 8 | ev->kind) + 1;
	const struct hwbp_sym *f;
	unsigned slot;
	uint64_t func;

	if (t->trace) {
		/*
		 * Trace mode runs on every CPU at once, and each CPU's hit path
		 * touches only its own ring (one producer per ring): the ring's
		 * own produced count is the CPU's hit count, so nothing here is
		 * shared between CPUs (a shared t->hits++ lost counts with 8
		 * producers, tests/unit/test_load.c, and even an atomic add
		 * would bounce one cache line between every CPU on every hit).
		 * hwbpi_tracer_hits() sums the rings.  An event naming a CPU
		 * the session does not have is a backend's bug: counted apart
		 * (cold path), never in a ring.
		 */
		if (ev->cpu < t->ncpus)
			hwbp_ring_push(t->ring[ev->cpu], ev);
		else
			__atomic_fetch_add(&t->stray, 1, __ATOMIC_RELAXED);
		return;
	}
	/* Histogram mode: one writer at a time (hwbp_hist_add), like the
	 * histogram itself. */
	t->hits++;
	if (ev->bp >= h->nbp)
		return;
	slot = cache_slot(ev->ip, key);
	if (t->cache && t->cache->e[slot].ip == ev->ip && t->cache->e[slot].key == key) {
		int32_t idx = t->cache->e[slot].idx;

		h->hits[ev->bp]++;
		if (idx >= 0)
			h->e[idx].count++;
		else
			h->overrun[ev->bp]++;
		return;
	}
	/* First hit from this instruction: look the function up (read-only
	 * table, allocation-free), count, and remember where it went.  With
	 * --sort srcline the key is the instruction (its line is found at
	 * print time). */
	if (t->key_ip) {
		func = hwbpi_tracer_access_ip(t, ev);
	} else {
		f = hwbpi_tracer_func(t, ev);
		func = f ? f->addr : 0;
	}
	if (!hwbp_hist_add(h, ev->bp, func, ev->kind)) {
		if (t->cache) {
			t->cache->e[slot].ip = ev->ip;
			t->cache->e[slot].key = key;
			t->cache->e[slot].idx = -1;
		}
		return;
	}
	for (unsigned i = 0; t->cache && i < h->used[ev->bp]; i++) {
		unsigned idx = ev->bp * h->n + i;

		if (h->e[idx].func == func && h->e[idx].kind == ev->kind) {
			t->cache->e[slot].ip = ev->ip;
			t->cache->e[slot].key = key;
			t->cache->e[slot].idx = (int32_t)idx;
			break;
		}
	}
}

/* ------------------------------------------------------- sim backend */

int hwbpi_trace_sim(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu_model, unsigned ncpus,
		    bool (*next)(void *arg, struct hwbpi_work_access *a), void *arg,
		    char *err, size_t errlen)
{
	/* The context and its per-CPU slot sets: one allocation, at setup. */
	struct run {
		struct hwbp_ctx ctx;
		struct hwbp_slots percpu[HWBP_SIM_MAX_CPUS];
	} *run;
	struct hwbp_ctx *ctx;
	struct hwbp_sim *sim;
	struct hwbpi_work_access wa;
	uint64_t clock = 0;
	int ret;

	if (!t || !cpu_model || !next || ncpus == 0 || ncpus > HWBP_SIM_MAX_CPUS)
		return -EINVAL;
	run = calloc(1, sizeof(*run));
	sim = hwbp_sim_new(cpu_model, HWBP_SIM_SDM, ncpus, &ret);
	if (!run || !sim) {
		free(run);
		hwbp_sim_free(sim);
		return run ? ret : -ENOMEM;
	}
	ctx = &run->ctx;
	ret = hwbp_ctx_init(ctx, cpu_model, ncpus, run->percpu, hwbp_sim_glue(sim));
	/* Debug exceptions on, as a kernel does before it arms anything
	 * (whatever holds them off at reset: the model knows). */
	for (unsigned c = 0; ret == 0 && c < ncpus; c++)
		ret = hwbp_sim_debug_ready(sim, c);
	for (unsigned i = 0; ret == 0 && i < t->nw; i++) {
		struct hwbpi_watch *w = &t->w[i];
		struct hwbp_request q = { w->addr, hwbpi_watch_len(w, cpu_model), w->type, HWBP_SCOPE_BOTH,
					  HWBP_REQ_WIDEN };

		/* X with R or W is two requests' worth; the tracer watches data
		 * or execution, as the entry's letters say. */
		if ((w->type & HWBP_X) && (w->type & HWBP_RW)) {
			hwbpi_say(err, errlen, "%s: watch data (rw) or execution (x), not both", w->name);
			ret = -EINVAL;
			break;
		}
		ret = hwbp_install(ctx, &q, HWBP_CPU_ALL, NULL, &w->req);
		if (ret) {
			char why[96];

			snprintf(why, sizeof(why), ": %s (%s)", hwbp_errno_name(ret),
				 ret == -ENOSPC ? "not enough debug registers left" :
				 ret == -ERANGE ? "larger than this CPU can watch" :
				 ret == -EOPNOTSUPP ? "a type this CPU lacks" : "refused by the planner");
			hwbpi_say(err, errlen, "%s%s", w->name, why);
		}
	}
	while (ret == 0 && next(arg, &wa)) {
		struct hwbp_sim_access a = { wa.addr, wa.size, wa.op };
		struct hwbp_sim_result res;
		struct hwbp_hit hit;
		struct hwbp_access acc;

		clock++;
		if (wa.cpu >= ncpus || hwbp_sim_access(sim, wa.cpu, &a, &res) || res.cls == HWBP_SIM_NONE)
			continue;
		acc.addr = wa.addr;
		acc.size = wa.op == HWBP_SIM_EXEC ? 1 : wa.size;
		acc.kind = wa.op == HWBP_SIM_READ ? HWBP_R : wa.op == HWBP_SIM_WRITE ? HWBP_W : HWBP_X;
		acc.priv = hwbp_sim_priv(sim, wa.cpu);
		if (hwbp_decode(ctx, wa.cpu, NULL, &res.st, &acc, &hit) == 0) {
			if (hit.filtered)
				t->filtered++;
			for (unsigned i = 0; i < t->nw; i++) {
				struct hwbp_trace_event ev;

				if (t->w[i].req < 0 || !(hit.requests & (UINT64_C(1) << t->w[i].req)))
					continue;
				memset(&ev, 0, sizeof(ev));
				ev.ts = clock;   /* the simulator's clock: accesses so far */
				ev.ip = wa.ip;
				ev.addr = wa.addr;
				ev.cpu = wa.cpu;
				ev.bp = (uint16_t)i;
				/* The simulator knows the access exactly. */
				ev.kind = (uint8_t)acc.kind;
				ev.kind_how = HWBP_KIND_SIM;
				ev.size = (uint16_t)acc.size;
				hwbpi_tracer_hit(t, &ev);
			}
		}
		hwbp_sim_resume(sim, wa.cpu, &res);
	}
	hwbp_sim_free(sim);
	free(run);
	return ret;
}
