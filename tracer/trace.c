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

#include "names.h"
#include "stacks.h"
#include "symtab.h"
#include "tls.h"
#include "tracer.h"

/*
 * The hit cache: hits come from a handful of instructions, and once a
 * (function, kind) has an entry of its breakpoint's histogram -- or is
 * known to overrun, since entries are never given back during a run -- the
 * same (ip, bp, kind) always lands in the same place.  A direct-mapped
 * table of those answers makes the common hit one compare and one
 * increment, instead of a symbol lookup and a scan of n entries.  With
 * --stack an entry is a (stack, kind), and one instruction reached through
 * two call paths goes to two entries: a line is then (ip, bp, kind, stack),
 * placed by the stack's signature (hwbpi_stacks_sig) as well, and a hit
 * is the line's only when its callers are the line's stack's, compared
 * word by word (hwbpi_stacks_same): no hash of every frame, no search of
 * the table of stacks, for a hit from an instruction and a call path
 * seen before.
 */
/* 4096 lines of 24 bytes: a workload's (ip, bp, kind) -- with --stack,
 * its call paths too -- rarely meet in one (with 1024, the 512 stack
 * keys of hwbp bench trace missed often enough to cost 3x; the plain
 * hits gained too) */
#define HIT_CACHE 4096
#define KEY_BITS 24       /* of a line's key: bp and kind; above them its stack's callers */

struct hwbpi_hit_cache {
	struct {
		uint64_t ip;
		uint32_t key;     /* bp << 8 | kind, + 1 so that 0 is "empty"; with --stack,
				   * the stack's number of callers << KEY_BITS */
		int32_t idx;      /* index into hist.e, or -1: overrun */
		const uint64_t *callers;   /* --stack: the stack's callers, in the table */
	} e[HIT_CACHE];
};
/* (bp << 8 | kind) + 1 fits KEY_BITS, HWBPI_STACK_MAX callers the rest. */
_Static_assert((UINT64_C(0xffff) << 8 | 0xff) + 1 <= (UINT64_C(1) << KEY_BITS) &&
	       HWBPI_STACK_MAX < (1u << (32 - KEY_BITS)), "a line's key holds bp, kind, callers");

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

/*
 * The watch entry @e makes of symbol @s, named @name (messages, the
 * histogram's Symbol column, and which watch a later entry replaces).
 * Errors: -ERANGE (the range wraps past 2^64), message in @err.
 */
static int watch_of(const struct hwbp_trace_entry *e, const struct hwbp_sym *s, const char *name,
		    struct hwbpi_watch *w, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	w->req = -1;
	w->addr = s->addr + e->off;
	w->sym = s;
	w->len_given = e->len != 0;
	/* The default length is the symbol's own size (ksym_trace_filter
	 * used a fixed 4), less the offset; for execution, the
	 * instruction there (a breakpoint on entry: a whole function
	 * would take one hardware slot per instruction on x86). */
	w->entry = !e->len && e->type == HWBP_X;
	w->len = e->len ? e->len : w->entry ? 0 : (s->size > e->off ? s->size - e->off : 0);
	if (e->off)
		snprintf(w->name, sizeof(w->name), "%s+%" PRIu64, name, e->off);
	else
		snprintf(w->name, sizeof(w->name), "%s", name);
	w->type = e->type;
	/* The symbol's address + OFF (+ LEN) must stay below 2^64: a wrapped
	 * range would watch bytes at the bottom of the address space. */
	if (w->addr < e->off || (w->len && w->len - 1 > UINT64_MAX - w->addr)) {
		hwbpi_say(err, errlen, "%s: address range wraps past 2^64 (ERANGE)", w->name);
		return -ERANGE;
	}
	return 0;
}

/* The watch of thread-local variable @tv (tracer/tls.h): its address is
 * the offset in the executable's TLS block, placed per thread by the
 * backend (hwbpi_watch.tls). */
static int tls_watch_of(const struct hwbp_trace_entry *e, const struct hwbpi_tls_var *tv,
			struct hwbpi_watch *w)
{
	memset(w, 0, sizeof(*w));
	w->req = -1;
	w->addr = tv->off + e->off;
	w->tls = true;
	w->tls_memsz = tv->memsz;
	w->tls_align = tv->align;
	w->len_given = e->len != 0;
	w->len = e->len ? e->len : (tv->size > e->off ? tv->size - e->off : 0);
	if (e->off)
		snprintf(w->name, sizeof(w->name), "%s+%" PRIu64, e->sym, e->off);
	else
		snprintf(w->name, sizeof(w->name), "%s", e->sym);
	w->type = e->type;
	return 0;
}

/* Why entry @e's symbol was not found (hwbpi_symtab_resolve's @ret). */
static int no_symbol(const struct hwbpi_tracer *t, const struct hwbp_trace_entry *e, int ret,
		     const struct hwbpi_symtab_amb *amb, char *err, size_t errlen)
{
	if (ret == -EINVAL && amb->n > 1) {
		/* Overloads: name up to three, as the outputs print them. */
		hwbpi_say(err, errlen, "'%s' is %zu functions: %s, %s%s%s%s; give its parameter list "
			  "(EINVAL)", e->sym, amb->n, amb->name[0], amb->name[1],
			  amb->n > 2 ? ", " : "", amb->n > 2 ? amb->name[2] : "",
			  amb->n > 3 ? ", ..." : "");
		return -EINVAL;
	}
	if (ret == -ENOMEM) {
		hwbpi_say(err, errlen, "'%s': cannot index the demangled names (ENOMEM)", e->sym);
		return ret;
	}
	hwbpi_say(err, errlen, "no symbol '%s' in the symbol table%s%s", e->sym,
		  t->missing_hint ? ": " : "", t->missing_hint ? t->missing_hint : "");
	return -ENOENT;
}

/* Does @a stand for the same watch as @b: the same name, or (@by_sym,
 * a pattern's watch) the same symbol and address? */
static bool same_watch(const struct hwbpi_watch *a, const struct hwbpi_watch *b, bool by_sym)
{
	return strcmp(a->name, b->name) == 0 ||
	       (by_sym && a->sym && a->sym == b->sym && a->addr == b->addr);
}

static int find_watch(const struct hwbpi_tracer *t, const struct hwbpi_watch *w, bool by_sym)
{
	for (unsigned i = 0; i < t->nw; i++)
		if (same_watch(&t->w[i], w, by_sym))
			return (int)i;
	return -1;
}

/* Removal: every watch standing for @w. */
static void drop_watch(struct hwbpi_tracer *t, const struct hwbpi_watch *w, bool by_sym)
{
	unsigned k = 0;

	for (unsigned i = 0; i < t->nw; i++)
		if (!same_watch(&t->w[i], w, by_sym))
			t->w[k++] = t->w[i];
	t->nw = k;
}

/*
 * A pattern (tracer/symtab.h hwbpi_symtab_glob): one watch per matching
 * symbol, in address order, data symbols unless the type has x (then
 * functions); "PAT:---" removes the watches of the symbols it matches.
 * All or nothing: a failure leaves the watches as they were.  On
 * success @err holds a note: how many matched.
 */
static int apply_pattern(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e, char *err,
			 size_t errlen)
{
	const struct hwbp_sym *m[HWBP_MAX_REQUESTS];
	const char *name[HWBP_MAX_REQUESTS];
	unsigned kinds = !e->type ? HWBPI_SYM_DATA | HWBPI_SYM_FUNC :
		(e->type & HWBP_X) ? HWBPI_SYM_FUNC : HWBPI_SYM_DATA;
	const char *what = kinds == HWBPI_SYM_FUNC ? "function" : "data";
	struct hwbpi_watch *w;
	unsigned nw = 0, fresh = 0, sizeless = 0;
	int n = t->syms ? hwbpi_symtab_glob(t->syms, e->sym, kinds, m, name, HWBP_MAX_REQUESTS) : 0;
	int ret = 0;

	if (n < 0) {
		hwbpi_say(err, errlen, "pattern '%s': %s", e->sym, hwbp_errno_name(n));
		return n;
	}
	if (n == 0) {
		hwbpi_say(err, errlen, "no symbol matches '%s' (ENOENT)", e->sym);
		return -ENOENT;
	}
	if (n > HWBP_MAX_REQUESTS) {
		hwbpi_say(err, errlen, "pattern '%s' matches %d symbols, at most %d watches (ENOSPC)",
			  e->sym, n, HWBP_MAX_REQUESTS);
		return -ENOSPC;
	}
	if (!(w = malloc((size_t)n * sizeof(*w))))
		return -ENOMEM;
	for (int k = 0; k < n; k++) {
		ret = watch_of(e, m[k], name[k], &w[nw], err, errlen);
		w[nw].pattern = true;
		/* A symbol of no known size cannot be watched without /LEN:
		 * skipped (and said), rather than failing the whole pattern. */
		if (ret)
			break;
		if (e->type && !w[nw].len && !w[nw].entry) {
			sizeless++;
			continue;
		}
		if (e->type && find_watch(t, &w[nw], true) < 0)
			fresh++;
		nw++;
	}
	if (!ret && e->type && !nw) {
		hwbpi_say(err, errlen, "pattern '%s' matches %d symbol%s, none of a known size: add "
			  "/LEN (EINVAL)", e->sym, n, n == 1 ? "" : "s");
		ret = -EINVAL;
	} else if (!ret && t->nw + fresh > HWBP_MAX_REQUESTS) {
		hwbpi_say(err, errlen, "pattern '%s': %u more watches, %u already, at most %d (ENOSPC)",
			  e->sym, fresh, t->nw, HWBP_MAX_REQUESTS);
		ret = -ENOSPC;
	}
	for (unsigned k = 0; !ret && k < nw; k++) {
		int at = find_watch(t, &w[k], true);

		if (!e->type)
			drop_watch(t, &w[k], true);
		else if (at >= 0)
			t->w[at] = w[k];
		else
			t->w[t->nw++] = w[k];
	}
	if (!ret && e->type)
		hwbpi_say(err, errlen, "pattern '%s' matches %d %s symbol%s, watched in address "
			  "order%s", e->sym, n, what, n == 1 ? "" : "s",
			  sizeless ? " (those of no known size skipped: add /LEN)" : "");
	else if (!ret)
		hwbpi_say(err, errlen, "pattern '%s' matches %d symbol%s: their watches removed",
			  e->sym, n, n == 1 ? "" : "s");
	free(w);
	return ret;
}

/* Whether the NAME of entry symbol @sym ("[LIB:]NAME[@QUAL]") is a
 * glob pattern. */
static bool is_pattern(const char *sym)
{
	struct hwbpi_name_parts p;

	hwbpi_name_split(sym, &p);
	return hwbpi_name_is_pattern(sym + p.name, p.name_len);
}

int hwbpi_tracer_apply(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e,
		       char *err, size_t errlen)
{
	struct hwbpi_watch w;
	int at, ret;

	if (err && errlen)
		err[0] = '\0';   /* no note */
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
	if (e->sym[0]) {
		struct hwbpi_symtab_amb amb = { 0 };
		const struct hwbp_sym *s = NULL;

		ret = t->syms ? hwbpi_symtab_resolve(t->syms, e->sym, &s, &amb) : -ENOENT;
		/* A name some symbol has is that symbol, even when it holds
		 * '*' or '[' ("operator*", "f[abi:cxx11]()"); else a pattern. */
		if (ret == -ENOENT && is_pattern(e->sym))
			return apply_pattern(t, e, err, errlen);
		/* Not in the table: perhaps a thread-local variable, which the
		 * table leaves out (its value is an offset: tracer/tls.h). */
		if (ret == -ENOENT) {
			struct hwbpi_tls_var tv = { 0, 0, 0, 0 };
			int tr = hwbpi_tls_find(t->syms, e->sym, &tv, err, errlen);

			if (tr == 0)
				ret = tls_watch_of(e, &tv, &w);
			else if (tr != -ENOENT)
				return tr;
			else
				return no_symbol(t, e, ret, &amb, err, errlen);
		} else if (ret) {
			return no_symbol(t, e, ret, &amb, err, errlen);
		} else if ((ret = watch_of(e, s, e->sym, &w, err, errlen))) {
			return ret;
		}
	} else {
		memset(&w, 0, sizeof(w));
		w.req = -1;
		w.addr = e->addr + e->off;
		w.len = e->len;
		w.type = e->type;
		snprintf(w.name, sizeof(w.name), "0x%" PRIx64, w.addr);
	}
	/* Removal: every watch of that name, or of that symbol at that
	 * address (a pattern named it otherwise: "_ZN3app4hitsE" for
	 * "app::hits"). */
	if (!e->type) {
		drop_watch(t, &w, true);
		return 0;
	}
	if (w.len == 0 && !w.entry) {
		hwbpi_say(err, errlen, "%s: the symbol table gives no size: add /LEN", w.name);
		return -EINVAL;
	}
	/* A second entry for the same name replaces the first. */
	if ((at = find_watch(t, &w, false)) >= 0) {
		t->w[at] = w;
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

	if (!t || ncpus == 0 || ncpus > HWBPI_TRACE_MAX_CPUS || t->nw == 0 ||
	    t->stack_depth > HWBPI_STACK_MAX)
		return -EINVAL;
	t->ncpus = ncpus;
	t->trace = trace;
	t->hits = t->filtered = t->stray = 0;
	t->stacks = NULL;
	if (!trace) {
		unsigned n = t->hist_entries ? t->hist_entries : 16;

		ret = hwbp_hist_init(&t->hist, t->nw, n);
		if (ret)
			return ret;
		t->cache = calloc(1, sizeof(*t->cache));
		if (!t->cache) {
			hwbp_hist_fini(&t->hist);
			return -ENOMEM;
		}
		/*
		 * A stack is interned only when its breakpoint has an entry
		 * left for it (hwbpi_tracer_hit_frames), and every new stack
		 * then takes one: nw * n entries can never hold more than nw *
		 * n stacks, so a table of that size is never full (unless that
		 * is beyond hwbpi_stacks_fit, which counts the rest lost).
		 */
		if (t->stack_depth &&
		    !(t->stacks = hwbpi_stacks_new(1, hwbpi_stacks_fit((uint64_t)t->nw * n,
								       t->stack_depth),
						   t->stack_depth, 0, &ret))) {
			hwbpi_tracer_fini(t);
			return ret;
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
	/*
	 * Trace mode: one part per CPU (each CPU's hit path is its part's
	 * only writer), as many stacks as the ring holds events, at most
	 * HWBPI_STACKS_TRACE: the memory follows what the user gave the
	 * rings (--buffer-kb), and a program's distinct call paths to one
	 * variable are far fewer.  Past that an event has no stack (0),
	 * counted lost (hwbpi_stacks_lost).
	 */
	if (t->stack_depth) {
		size_t want = hwbp_ring_capacity(t->ring[0]);

		t->stacks = hwbpi_stacks_new(ncpus, hwbpi_stacks_fit(want < HWBPI_STACKS_TRACE ? want :
								     HWBPI_STACKS_TRACE,
								     t->stack_depth),
					     t->stack_depth, 0, &ret);
		if (!t->stacks) {
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
	hwbpi_stacks_free(t->stacks);
	t->stacks = NULL;
	for (unsigned c = 0; c < HWBPI_TRACE_MAX_CPUS; c++) {
		hwbp_ring_free(t->ring[c]);
		t->ring[c] = NULL;
	}
}

static unsigned cache_slot(uint64_t ip, uint32_t key)
{
	uint64_t h = (ip ^ (ip >> 17) ^ ((uint64_t)key << 40)) * UINT64_C(0x9e3779b97f4a7c15);

	return (unsigned)(h >> 52) & (HIT_CACHE - 1);
}

const struct hwbp_sym *hwbpi_tracer_func(const struct hwbpi_tracer *t,
					 const struct hwbp_trace_event *ev)
{
	return t->syms ? hwbp_symtab_func(t->syms, hwbpi_tracer_func_ip(t, ev)) : NULL;
}

static void cache_put(struct hwbpi_hit_cache *c, unsigned slot, uint64_t ip, uint32_t key,
		      int32_t idx, const uint64_t *callers)
{
	if (!c)
		return;
	c->e[slot].ip = ip;
	c->e[slot].key = key;
	c->e[slot].idx = idx;
	c->e[slot].callers = callers;
}

void hwbpi_tracer_hit(struct hwbpi_tracer *t, const struct hwbp_trace_event *ev)
{
	struct hwbp_hist *h = &t->hist;
	uint32_t key = ((uint32_t)ev->bp << 8 | ev->kind) + 1;
	const struct hwbp_sym *f;
	unsigned slot;
	uint64_t func;

	if (t->stacks) {
		/* --stack: a hit without callers is its function alone, keyed
		 * like every other hit of this run (never by a function's
		 * address among entries keyed by stack ids). */
		struct hwbp_trace_event e = *ev;

		hwbpi_tracer_hit_frames(t, &e, NULL, 0);
		return;
	}
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
		func = hwbpi_tracer_func_ip(t, ev);
	} else {
		f = hwbpi_tracer_func(t, ev);
		func = f ? f->addr : hwbpi_tracer_func_ip(t, ev);   /* no function: the place itself */
	}
	if (!hwbp_hist_add(h, ev->bp, func, ev->kind)) {
		cache_put(t->cache, slot, ev->ip, key, -1, NULL);
		return;
	}
	for (unsigned i = 0; t->cache && i < h->used[ev->bp]; i++) {
		unsigned idx = ev->bp * h->n + i;

		if (h->e[idx].func == func && h->e[idx].kind == ev->kind) {
			cache_put(t->cache, slot, ev->ip, key, (int32_t)idx, NULL);
			break;
		}
	}
}

/*
 * Histogram mode with --stack: the entry of (stack, kind).  The stack is
 * interned only while its breakpoint has an entry left (see
 * hwbpi_tracer_start): once they are all used, a stack the table does not
 * hold could not get one, and is an overrun without taking a slot of the
 * table.  A stack the table holds (for this breakpoint or another) goes
 * through hwbp_hist_add like a function did, and the cache remembers the
 * answer per (ip, stack, bp, kind).
 */
/* Not cached: the stack interned (or known not to be), its entry found
 * or made, and the line pair @slot, @slot ^ 1 filled.  Out of line, so that the hit path of a
 * cached stack saves no registers for it. */
static __attribute__((noinline)) void hist_stack_miss(struct hwbpi_tracer *t,
						      const struct hwbp_trace_event *ev,
						      const uint64_t *callers, unsigned n,
						      uint32_t key, unsigned slot)
{
	struct hwbp_hist *h = &t->hist;
	const uint64_t *frames;
	int32_t idx = -1;
	uint32_t id = hwbpi_stacks_hit(t->stacks, 0, t->syms, hwbpi_tracer_func_ip(t, ev), callers, n,
				       h->used[ev->bp] < h->n);
	unsigned nf;

	if (!id) {
		hwbpi_hist_overrun(h, ev->bp, 1);
		return;
	}
	if (hwbp_hist_add(h, ev->bp, id, ev->kind))
		for (unsigned i = 0; i < h->used[ev->bp]; i++)
			if (h->e[ev->bp * h->n + i].func == id && h->e[ev->bp * h->n + i].kind == ev->kind)
				idx = (int32_t)(ev->bp * h->n + i);
	nf = hwbpi_stacks_get(t->stacks, id, &frames);
	/* the pair's first line, its old contents into the second */
	if (t->cache)
		t->cache->e[slot ^ 1] = t->cache->e[slot];
	cache_put(t->cache, slot, ev->ip, key | (nf - 1) << KEY_BITS, idx, frames + 1);
}

/* Whether line @slot of @c is the hit's: (ip, bp, kind) and its stack's
 * callers (a line of a run with --stack is a stack's: they are set). */
static bool stack_line(const struct hwbpi_hit_cache *c, unsigned slot, uint64_t ip, uint32_t key,
		       const uint64_t *callers, unsigned m)
{
	return c->e[slot].ip == ip && (c->e[slot].key & ((1u << KEY_BITS) - 1)) == key &&
	       hwbpi_stacks_same(c->e[slot].callers, c->e[slot].key >> KEY_BITS, callers, m);
}

static void hist_stack_hit(struct hwbpi_tracer *t, const struct hwbp_trace_event *ev,
			   const uint64_t *callers, unsigned n)
{
	struct hwbp_hist *h = &t->hist;
	uint32_t key = ((uint32_t)ev->bp << 8 | ev->kind) + 1;
	unsigned m = callers ? (n < t->stack_depth ? n : t->stack_depth) : 0, slot;
	int32_t idx;

	t->hits++;
	if (ev->bp >= h->nbp)
		return;
	/*
	 * Placed by the signature too, the lines of a few call paths per
	 * instruction fall at random: a pair of lines (two ways) keeps two
	 * that meet from pushing each other out on every hit.  A new line
	 * takes the first, and the first moves to the second.
	 */
	slot = cache_slot(ev->ip ^ hwbpi_stacks_sig(callers, m), key);
	if (!t->cache || (!stack_line(t->cache, slot, ev->ip, key, callers, m) &&
			  !stack_line(t->cache, slot ^= 1, ev->ip, key, callers, m))) {
		hist_stack_miss(t, ev, callers, n, key, slot & ~1u);
		return;
	}
	idx = t->cache->e[slot].idx;
	h->hits[ev->bp]++;
	if (idx >= 0)
		h->e[idx].count++;
	else
		h->overrun[ev->bp]++;
}

/* Trace mode: the CPU's own part of the table, as its own ring (see
 * hwbpi_tracer_hit): nothing shared between CPUs. */
static __attribute__((noinline)) void trace_stack_hit(struct hwbpi_tracer *t,
						      struct hwbp_trace_event *ev,
						      const uint64_t *callers, unsigned n)
{
	if (ev->cpu >= t->ncpus) {
		__atomic_fetch_add(&t->stray, 1, __ATOMIC_RELAXED);
		return;
	}
	ev->stack = hwbpi_stacks_hit(t->stacks, ev->cpu, t->syms, hwbpi_tracer_func_ip(t, ev), callers, n, true);
	hwbp_ring_push(t->ring[ev->cpu], ev);
}

void hwbpi_tracer_hit_frames(struct hwbpi_tracer *t, struct hwbp_trace_event *ev,
			     const uint64_t *callers, unsigned n)
{
	if (!t->stacks) {
		ev->stack = 0;
		hwbpi_tracer_hit(t, ev);
	} else if (t->trace) {
		trace_stack_hit(t, ev, callers, n);
	} else {
		hist_stack_hit(t, ev, callers, n);
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
	/* a workload that knows no callers (lackey) leaves them unset */
	while (ret == 0 && (wa.ncallers = 0, next(arg, &wa))) {
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
				hwbpi_tracer_hit_frames(t, &ev, wa.callers, wa.ncallers);
			}
		}
		hwbp_sim_resume(sim, wa.cpu, &res);
	}
	hwbp_sim_free(sim);
	free(run);
	return ret;
}
