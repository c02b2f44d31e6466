/* SPDX-License-Identifier: MIT */
/*
 * Load: one producer thread per simulated CPU (4 and 8 CPUs) hitting
 * watched variables through the tracer's hit path, hwbpi_tracer_hit(),
 * while one consumer thread drains every CPU's ring; both ring policies,
 * rings small enough to lose events and large enough to lose none.
 * Checked exactly, per CPU: produced = recorded + lost, no event torn or
 * duplicated, each CPU's recorded events in strictly increasing order;
 * and the histogram fed the same events: its entries sum to the hits
 * minus the overrun, each entry holding every hit of its (function, kind).
 *
 * Why hwbpi_tracer_hit() and not hwbpi_replay(): the simulator backend
 * replays a workload on one thread (one simulator, one hwbp_ctx, and it
 * writes the watches' request ids), so it cannot be one thread per CPU.
 * The producers build their events exactly as it does (bp = the watch's
 * index in the session, ip, data address, kind known: HWBP_KIND_SIM) and
 * call the function it calls for each hit; the watches are the session's
 * own, applied from filter entries against a symbol table.
 *
 * The two modes of a session.  Trace mode (rings) is per CPU: each CPU's
 * hit path pushes only to its own ring, so the producers call it with no
 * lock.  The histogram is one per session and has one writer at a time
 * (include/hwbp/trace.h, hwbp_hist_add), so a second session in histogram
 * mode gets the same events in batches under a mutex, as a multi-CPU
 * backend would have to feed it; the CPUs' batches interleave in whatever
 * order the threads run.
 *
 * Nothing here depends on timing: where losses are asserted, the consumer
 * starts only after every CPU pushed more events than its ring holds; the
 * large rings hold every event of the run.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/sim/sim_int.h"
#include "output/output.h"

#include "sanitized.h"

/* Events per CPU: fewer under a sanitizer, whose runtime makes each
 * event some ten times slower, and under qemu-user (cross builds:
 * HWBP_UNDER_EMULATION, tests/unit/meson.build), where spinning threads
 * of emulated CPUs share the host's cores (the interleavings are what
 * matter, not the count). */
#if defined(SANITIZED) || defined(HWBP_UNDER_EMULATION)
#define NEV 50000u
#else
#define NEV 200000u
#endif
#define BIG_RING 262144u      /* events: >= NEV, so nothing is ever lost */
#define MAXCPU 8
#define BATCH 128             /* events per histogram batch (one lock) */

/* ------------------------------------------------------------------ */
/* The watched "kernel": functions that access four variables.         */
/* ------------------------------------------------------------------ */

#define TEXT 0xffffffff81000000ull
#define FSIZE 0x100u
#define DATA 0xffffffff82000000ull

static const char *const funcs[] = {
	"do_timer", "update_process_times", "alloc_pid",
	"calc_global_load", "proc_dointvec_minmax", "copy_process",
};
#define NF (sizeof(funcs) / sizeof(funcs[0]))

static const struct {
	const char *name;
	uint64_t off, size;
	char type;
} vars[] = {
	{ "jiffies", 0x00, 8, 'D' },
	{ "pid_max", 0x40, 4, 'D' },
	{ "avenrun", 0x80, 24, 'D' },
	{ "nr_threads", 0xc0, 4, 'B' },
};

/* The session's watches (bp = index): both kinds, writes only, reads only
 * (an offset and length into an array), both kinds.  Pairs per watch:
 * 12, 6, 6, 12 (function, kind). */
static const char *const filters[] = {
	"jiffies:rw-", "pid_max:-w-", "avenrun+8/8:r--", "nr_threads:rw-",
};
#define NW (sizeof(filters) / sizeof(filters[0]))
static const unsigned types[NW] = { HWBP_RW, HWBP_W, HWBP_R, HWBP_RW };

static struct hwbp_symtab *make_syms(void)
{
	struct hwbp_symtab *t = hwbp_symtab_new(NULL);

	assert_non_null(t);
	for (unsigned i = 0; i < NF; i++)
		assert_int_equal(hwbp_symtab_add(t, funcs[i], TEXT + i * FSIZE, FSIZE, 'T'), 0);
	for (unsigned i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		assert_int_equal(hwbp_symtab_add(t, vars[i].name, DATA + vars[i].off,
						 vars[i].size, vars[i].type), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	return t;
}

/* A session with the watches, started in histogram or trace mode. */
static void start_session(struct hwbpi_tracer *t, const struct hwbp_symtab *syms,
			  unsigned ncpus, bool trace, size_t ring_bytes, bool ow,
			  unsigned hist_n)
{
	memset(t, 0, sizeof(*t));
	t->syms = syms;
	t->hist_entries = hist_n;
	for (unsigned i = 0; i < NW; i++) {
		struct hwbp_trace_entry e;
		const char *msg;
		unsigned col;
		char err[128] = "";

		assert_int_equal(hwbp_trace_filter_parse(filters[i], &e, &col, &msg), 0);
		if (hwbpi_tracer_apply(t, &e, err, sizeof(err)))
			fail_msg("%s: %s", filters[i], err);
	}
	assert_int_equal(t->nw, NW);
	for (unsigned i = 0; i < NW; i++)
		assert_int_equal(t->w[i].type, types[i]);
	assert_int_equal(hwbpi_tracer_start(t, ncpus, trace, ring_bytes, ow), 0);
}

/* ------------------------------------------------------------------ */
/* Events: every field a function of (cpu, sequence number), so that a  */
/* torn event (words of two events) or one on the wrong CPU is caught.  */
/* ------------------------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

struct pick {
	unsigned bp, f, kind; /* kind: HWBP_R or HWBP_W */
};

static struct pick pick(unsigned cpu, uint64_t seq)
{
	uint64_t h = mix((uint64_t)cpu << 40 ^ seq);
	struct pick p;

	p.bp = (unsigned)(h % NW);
	p.f = (unsigned)((h >> 8) % NF);
	/* a kind the watch's type allows */
	p.kind = types[p.bp] == HWBP_RW ? ((h >> 20) & 1 ? HWBP_R : HWBP_W) : types[p.bp];
	return p;
}

/* The event the simulator backend would give for this access (watch
 * addresses from the session: @t->w[bp]). */
static struct hwbp_trace_event make_event(const struct hwbpi_tracer *t, unsigned cpu,
					  uint64_t seq)
{
	uint64_t h = mix((uint64_t)cpu << 40 ^ seq);
	struct pick p = pick(cpu, seq);
	struct hwbp_trace_event e;

	memset(&e, 0, sizeof(e));
	e.ts = seq;
	/* one of 4 access sites in the function */
	e.ip = TEXT + p.f * FSIZE + 0x10 * ((h >> 24) & 3) + 4;
	e.addr = t->w[p.bp].addr + ((h >> 28) % t->w[p.bp].len);
	e.cpu = (uint16_t)cpu;
	e.bp = (uint16_t)p.bp;
	e.kind = (uint8_t)p.kind;
	e.kind_how = HWBP_KIND_SIM;
	e.size = 1;
	return e;
}

/* ------------------------------------------------------------------ */
/* The run.                                                            */
/* ------------------------------------------------------------------ */

struct row {
	unsigned ncpus;
	bool overwrite;
	unsigned cap;       /* ring capacity in events */
	unsigned hist_n;    /* histogram entries per watch */
	bool late;          /* consumer starts after every CPU overfilled its ring */
	bool pace;          /* producers spin between events: the consumer keeps
			     * up more often, rings hover near empty */
};

static const struct row rows[] = {
	/* small rings, consumer started late: losses on every CPU */
	{ 4, false, 16, 3, true, false },
	{ 4, true, 16, 8, true, false },
	{ 8, false, 64, 8, true, false },
	{ 8, true, 64, 3, true, false },
	/* small rings, consumer from the start: losses as the run goes */
	{ 8, false, 256, 64, false, false },
	{ 8, true, 256, 3, false, false },
	{ 4, false, 2, 3, false, false },   /* the smallest ring */
	{ 4, true, 2, 8, false, false },
	{ 4, false, 4096, 8, false, true },
	{ 4, true, 4096, 3, false, true },
	/* rings holding the whole run: nothing lost */
	{ 4, false, BIG_RING, 64, false, false },
	{ 4, true, BIG_RING, 3, false, false },
	{ 8, false, BIG_RING, 8, false, true },
	{ 8, true, BIG_RING, 64, true, false },  /* drained after the producers ended */
};

struct run;

struct cpu_state {
	struct run *run;
	unsigned cpu;
	atomic_bool overfilled;   /* pushed more events than the ring holds */
	/* consumer's view */
	uint8_t *seen;            /* bitmap of sequence numbers 1..NEV */
	uint64_t recorded, last, bad, dup, order, first;
};

struct run {
	const struct row *row;
	struct hwbpi_tracer R;    /* trace mode: the per-CPU rings */
	struct hwbpi_tracer H;    /* histogram mode */
	pthread_mutex_t hlock;    /* H has one writer at a time */
	atomic_bool go;
	atomic_uint done;         /* producers finished */
	atomic_uint errors;       /* pthread calls that failed in a thread */
	struct cpu_state c[MAXCPU];
};

static void *producer(void *arg)
{
	struct cpu_state *cs = arg;
	struct run *run = cs->run;
	struct hwbp_trace_event batch[BATCH];
	unsigned nb = 0;

	while (!atomic_load_explicit(&run->go, memory_order_acquire))
		sched_yield();
	for (uint64_t s = 1; s <= NEV; s++) {
		batch[nb] = make_event(&run->R, cs->cpu, s);
		hwbpi_tracer_hit(&run->R, &batch[nb]);
		if (run->row->pace)
			for (volatile int spin = 0; spin < 100; spin++)
				;
		if (s == (uint64_t)run->row->cap + 1)
			atomic_store_explicit(&cs->overfilled, true, memory_order_release);
		if (++nb == BATCH || s == NEV) {
			/* (No CMocka assertion in a thread: its longjmp would
			 * cross threads.  Failures are counted, checked after.) */
			if (pthread_mutex_lock(&run->hlock)) {
				atomic_fetch_add(&run->errors, 1);
				break;
			}
			for (unsigned i = 0; i < nb; i++)
				hwbpi_tracer_hit(&run->H, &batch[i]);
			if (pthread_mutex_unlock(&run->hlock))
				atomic_fetch_add(&run->errors, 1);
			nb = 0;
		}
	}
	/* (Also when a failure ended the loop early: never leave a late
	 * consumer waiting.) */
	atomic_store_explicit(&cs->overfilled, true, memory_order_release);
	atomic_fetch_add_explicit(&run->done, 1, memory_order_release);
	return NULL;
}

static void check(struct cpu_state *cs, const struct hwbp_trace_event *e)
{
	struct hwbp_trace_event want;
	uint64_t s = e->ts;

	if (e->cpu != cs->cpu || s == 0 || s > NEV) {
		cs->bad++;
		return;
	}
	want = make_event(&cs->run->R, cs->cpu, s);
	if (memcmp(&want, e, sizeof(want)) != 0) {
		cs->bad++;
		return;
	}
	if (cs->seen[s >> 3] & (1u << (s & 7))) {
		cs->dup++;
		return;
	}
	cs->seen[s >> 3] |= (uint8_t)(1u << (s & 7));
	if (s <= cs->last)
		cs->order++;
	if (!cs->first)
		cs->first = s;
	cs->last = s;
	cs->recorded++;
}

static void *consumer(void *arg)
{
	struct run *run = arg;
	unsigned n = run->row->ncpus;
	struct hwbp_trace_event buf[64];
	uint64_t rng = 0x2545f4914f6cdd1dull + n;

	if (run->row->late)
		for (unsigned c = 0; c < n; c++)
			while (!atomic_load_explicit(&run->c[c].overfilled, memory_order_acquire))
				sched_yield();
	for (;;) {
		/* Read "all done" before the pass: a pass that then finds every
		 * ring empty has taken everything. */
		bool fin = atomic_load_explicit(&run->done, memory_order_acquire) == n;
		size_t got = 0;

		for (unsigned c = 0; c < n; c++) {
			size_t k;

			rng = mix(rng);
			k = hwbp_ring_pop(run->R.ring[c], buf, 1 + (size_t)(rng % 64));
			for (size_t i = 0; i < k; i++)
				check(&run->c[c], &buf[i]);
			got += k;
		}
		if (fin && got == 0)
			break;
		if (got == 0)
			sched_yield();
	}
	return NULL;
}

/* Expected histogram: hits per (watch, function, kind) over all CPUs. */
static void expected(unsigned ncpus, uint64_t want[NW][NF][2])
{
	memset(want, 0, sizeof(uint64_t) * NW * NF * 2);
	for (unsigned c = 0; c < ncpus; c++)
		for (uint64_t s = 1; s <= NEV; s++) {
			struct pick p = pick(c, s);

			want[p.bp][p.f][p.kind == HWBP_W]++;
		}
}

static void check_hist(const struct run *run, const struct hwbp_symtab *syms)
{
	const struct hwbp_hist *h = &run->H.hist;
	unsigned ncpus = run->row->ncpus;
	static uint64_t want[NW][NF][2];
	uint64_t all = 0, counted = 0, overrun = 0;

	expected(ncpus, want);
	assert_int_equal(h->nbp, NW);
	assert_int_equal(h->n, run->row->hist_n);
	for (unsigned bp = 0; bp < NW; bp++) {
		uint64_t hits = 0, sum = 0, missed = 0;
		unsigned pairs = 0;
		bool in[NF][2];

		memset(in, 0, sizeof(in));
		for (unsigned f = 0; f < NF; f++)
			for (unsigned k = 0; k < 2; k++) {
				hits += want[bp][f][k];
				pairs += want[bp][f][k] > 0;
			}
		assert_true(h->hits[bp] == hits);
		/* The first n (function, kind) pairs seen get entries; which
		 * ones depends on how the CPUs' batches interleaved. */
		assert_int_equal(h->used[bp], pairs < h->n ? pairs : h->n);
		for (unsigned i = 0; i < h->used[bp]; i++) {
			const struct hwbp_hist_entry *e = &h->e[bp * h->n + i];
			const struct hwbp_sym *s = hwbp_symtab_func(syms, e->func);
			unsigned f, k = e->kind == HWBP_W;

			assert_non_null(s);
			assert_true(s->addr == e->func);
			f = (unsigned)((e->func - TEXT) / FSIZE);
			assert_true(f < NF);
			assert_true(e->kind == HWBP_R || e->kind == HWBP_W);
			assert_false(in[f][k]);        /* one entry per pair */
			in[f][k] = true;
			/* An entry, once made, takes every later hit of its pair,
			 * and its first hit made it: it holds all of them. */
			assert_true(e->count == want[bp][f][k]);
			sum += e->count;
		}
		for (unsigned f = 0; f < NF; f++)
			for (unsigned k = 0; k < 2; k++)
				if (!in[f][k])
					missed += want[bp][f][k];
		/* The identity, exactly: entries sum to hits - overrun. */
		assert_true(sum == h->hits[bp] - h->overrun[bp]);
		assert_true(h->overrun[bp] == missed);
		if (pairs > h->n)
			assert_true(h->overrun[bp] > 0);
		else
			assert_true(h->overrun[bp] == 0);
		all += hits;
		counted += sum;
		overrun += h->overrun[bp];
	}
	print_message("   histogram: hits %llu = in entries %llu + overrun %llu\n",
		      (unsigned long long)all, (unsigned long long)counted,
		      (unsigned long long)overrun);
	assert_true(all == (uint64_t)ncpus * NEV);
	assert_true(hwbpi_tracer_hits(&run->H) == all);
}

static void run_row(const struct row *row, const struct hwbp_symtab *syms)
{
	struct run *run = calloc(1, sizeof(*run));
	pthread_t prod[MAXCPU], cons;
	uint64_t tp = 0, tr = 0, tl = 0;

	assert_non_null(run);
	assert_true(row->ncpus <= MAXCPU);
	run->row = row;
	start_session(&run->R, syms, row->ncpus, true, (size_t)row->cap * sizeof(struct hwbp_trace_event), row->overwrite, 0);
	start_session(&run->H, syms, row->ncpus, false, 0, false, row->hist_n);
	for (unsigned c = 0; c < row->ncpus; c++)
		assert_int_equal(hwbp_ring_capacity(run->R.ring[c]), row->cap);
	assert_int_equal(pthread_mutex_init(&run->hlock, NULL), 0);
	atomic_init(&run->go, false);
	atomic_init(&run->done, 0);
	atomic_init(&run->errors, 0);
	for (unsigned c = 0; c < row->ncpus; c++) {
		struct cpu_state *cs = &run->c[c];

		cs->run = run;
		cs->cpu = c;
		atomic_init(&cs->overfilled, false);
		cs->seen = calloc(NEV / 8 + 1, 1);
		assert_non_null(cs->seen);
		assert_int_equal(pthread_create(&prod[c], NULL, producer, cs), 0);
	}
	assert_int_equal(pthread_create(&cons, NULL, consumer, run), 0);
	atomic_store_explicit(&run->go, true, memory_order_release);
	for (unsigned c = 0; c < row->ncpus; c++)
		assert_int_equal(pthread_join(prod[c], NULL), 0);
	assert_int_equal(pthread_join(cons, NULL), 0);
	assert_int_equal(atomic_load(&run->errors), 0);

	print_message("%u CPUs %-9s ring %6u hist %2u%s:", row->ncpus,
		      row->overwrite ? "overwrite" : "discard", row->cap, row->hist_n,
		      row->late ? " late" : row->pace ? " pace" : "     ");
	for (unsigned c = 0; c < row->ncpus; c++) {
		struct cpu_state *cs = &run->c[c];
		uint64_t p, l;

		hwbp_ring_stats(run->R.ring[c], &p, &l);
		print_message(" %llu/%llu", (unsigned long long)cs->recorded,
			      (unsigned long long)l);
		/* Nothing torn, misrouted, duplicated or out of order. */
		assert_int_equal(cs->bad, 0);
		assert_int_equal(cs->dup, 0);
		assert_int_equal(cs->order, 0);
		/* produced = recorded + lost, exactly, per CPU. */
		assert_true(p == NEV);
		assert_true(p == cs->recorded + l);
		assert_true(cs->recorded > 0);
		if (row->overwrite)
			assert_true(cs->last == NEV);   /* the newest is never dropped */
		else
			assert_true(cs->first == 1);    /* nor the oldest with discard */
		if (row->cap >= NEV)
			assert_true(l == 0);
		if (row->late && row->cap < NEV) {
			/* The ring was full and untouched when its producer
			 * pushed event cap + 1. */
			assert_true(l > 0);
			if (row->overwrite) {
				assert_false(cs->seen[0] & 2);  /* event 1 overwritten */
			} else {
				for (uint64_t s = 1; s <= row->cap; s++)
					assert_true(cs->seen[s >> 3] & (1u << (s & 7)));
			}
		}
		tp += p;
		tr += cs->recorded;
		tl += l;
		free(cs->seen);
	}
	print_message("\n   produced %llu recorded %llu lost %llu (per CPU: recorded/lost)\n",
		      (unsigned long long)tp, (unsigned long long)tr, (unsigned long long)tl);
	/* The session counted every hit, the CPUs' hit paths running at once
	 * (regression: a plain t->hits++ in trace mode lost counts and was a
	 * data race, tracer/events/hit.c). */
	assert_true(hwbpi_tracer_hits(&run->R) == tp);
	check_hist(run, syms);

	assert_int_equal(pthread_mutex_destroy(&run->hlock), 0);
	hwbpi_tracer_fini(&run->R);
	hwbpi_tracer_fini(&run->H);
	free(run);
}

static void test_load(void **state)
{
	struct hwbp_symtab *syms = make_syms();
	uint64_t lost_rows = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		run_row(&rows[i], syms);
		lost_rows += rows[i].late && rows[i].cap < NEV;
	}
	assert_true(lost_rows > 0);
	hwbp_symtab_free(syms);
}

/* The event generator itself: each watch is hit, by every function, with
 * the kinds its type allows, and no two events of a CPU are alike. */
static void test_generator(void **state)
{
	static uint64_t want[NW][NF][2];
	struct hwbp_symtab *syms = make_syms();
	struct hwbpi_tracer t;

	(void)state;
	expected(1, want);
	for (unsigned bp = 0; bp < NW; bp++)
		for (unsigned f = 0; f < NF; f++) {
			assert_true((want[bp][f][0] > 0) == !!(types[bp] & HWBP_R));
			assert_true((want[bp][f][1] > 0) == !!(types[bp] & HWBP_W));
		}
	start_session(&t, syms, 2, true, 2 * sizeof(struct hwbp_trace_event), false, 0);
	for (unsigned i = 0; i < NW; i++)
		assert_true(t.w[i].len > 0);
	for (uint64_t s = 1; s < 1000; s++) {
		struct hwbp_trace_event a = make_event(&t, 0, s), b = make_event(&t, 1, s);
		const struct hwbp_sym *f = hwbp_symtab_func(syms, a.ip);

		assert_true(memcmp(&a, &b, sizeof(a)) != 0);
		assert_non_null(f);
		assert_true(a.addr >= t.w[a.bp].addr && a.addr < t.w[a.bp].addr + t.w[a.bp].len);
	}
	hwbpi_tracer_fini(&t);
	hwbp_symtab_free(syms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generator),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
