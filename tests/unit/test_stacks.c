/* SPDX-License-Identifier: MIT */
/*
 * The stack table (tracer/events/stacks.c): inserts, duplicates, a full part,
 * the depth cut, zero frames, forced hash collisions, parts and their ids;
 * frame names (a return address at the next function's start); the
 * histogram keyed by stacks through the tracer's hit path (overrun per
 * stack, exactly, and the hit cache never merging two stacks of one IP);
 * the demo on the simulator with its call paths (counts per stack from
 * tracer/backends/replay/demo.c's tables); the printed table and the folded stacks, byte
 * for byte.  The command line's side is tests/trace/stacks_test.sh.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symbols/demangle.h"
#include "events/stacks.h"
#include "symbols/symtab.h"
#include "backends/sim/sim_int.h"
#include "output/output.h"

#define R HWBP_R
#define W HWBP_W

/* ------------------------------------------------------------------ */
/* The table                                                            */
/* ------------------------------------------------------------------ */

static void test_new_errors(void **state)
{
	static const struct {
		unsigned nparts, cap, depth, flags;
		int err;
	} cases[] = {
		{ 0, 4, 8, 0, -EINVAL },
		{ HWBPI_STACKS_MAX_PARTS + 1, 4, 8, 0, -EINVAL },
		{ 1, 0, 8, 0, -EINVAL },
		{ 1, HWBPI_STACKS_MAX + 1, 8, 0, -EINVAL },
		{ 1, 4, 0, 0, -EINVAL },
		{ 1, 4, HWBPI_STACK_MAX + 1, 0, -EINVAL },
		{ 1, 4, 8, 2, -EINVAL },
		{ 1, 1, 1, 0, 0 },
		{ HWBPI_STACKS_MAX_PARTS, 4, HWBPI_STACK_MAX, HWBPI_STACKS_COLLIDE, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = 1;
		struct hwbpi_stacks *st = hwbpi_stacks_new(cases[i].nparts, cases[i].cap,
							   cases[i].depth, cases[i].flags, &err);

		if (cases[i].err) {
			assert_null(st);
			assert_int_equal(err, cases[i].err);
			continue;
		}
		assert_non_null(st);
		assert_int_equal(hwbpi_stacks_capacity(st), cases[i].cap);
		assert_int_equal(hwbpi_stacks_used(st), 0);
		assert_true(hwbpi_stacks_lost(st) == 0);
		hwbpi_stacks_free(st);
	}
	assert_null(hwbpi_stacks_new(0, 1, 1, 0, NULL));   /* err may be NULL */
	hwbpi_stacks_free(NULL);
	/* NULL tables answer nothing */
	assert_int_equal(hwbpi_stacks_intern(NULL, 0, 1, NULL, 0, true), 0);
	assert_int_equal(hwbpi_stacks_used(NULL), 0);
	assert_true(hwbpi_stacks_lost(NULL) == 0);
}

static void test_fit(void **state)
{
	static const struct {
		uint64_t want;
		unsigned depth, cap;
	} cases[] = {
		{ 64, 8, 64 },
		{ 0, 8, 1 },
		{ 1u << 20, 1, 1u << 20 },                /* 16 MiB of 2-frame stacks */
		{ (1u << 20) + 1, 1, 1u << 20 },          /* HWBPI_STACKS_MAX */
		{ 1u << 20, 8, (64u << 20) / (9 * 8) },   /* HWBPI_STACKS_BYTES */
		{ 1u << 20, 64, (64u << 20) / (65 * 8) },
		{ UINT64_MAX, 1, 1u << 20 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(hwbpi_stacks_fit(cases[i].want, cases[i].depth), cases[i].cap);
}

#define MAXF 6

/* One step of a script on a table of capacity 4, depth 3: intern
 * (func, callers[0..n)) with insert, and the id and lost count wanted. */
struct step {
	const char *what;
	uint64_t func;
	uint64_t callers[MAXF];
	unsigned n;
	bool insert;
	uint32_t id;
	uint64_t lost;
	/* the frames hwbpi_stacks_get gives for the id */
	unsigned nframes;
	uint64_t frames[MAXF];
};

static const struct step script[] = {
	{ "first", 0x100, { 0x201, 0x302 }, 2, true, 1, 0, 3, { 0x100, 0x201, 0x302 } },
	{ "duplicate", 0x100, { 0x201, 0x302 }, 2, true, 1, 0, 3, { 0x100, 0x201, 0x302 } },
	{ "duplicate, no insert", 0x100, { 0x201, 0x302 }, 2, false, 1, 0, 3,
	  { 0x100, 0x201, 0x302 } },
	{ "other function", 0x180, { 0x201, 0x302 }, 2, true, 2, 0, 3, { 0x180, 0x201, 0x302 } },
	{ "a prefix is another stack", 0x100, { 0x201 }, 1, true, 3, 0, 2, { 0x100, 0x201 } },
	{ "a 0 ends the callers", 0x100, { 0x201, 0, 0x999 }, 3, true, 3, 0, 2, { 0x100, 0x201 } },
	{ "unknown, no insert", 0x100, { 0x777 }, 1, false, 0, 0, 0, { 0 } },
	{ "zero frames", 0x100, { 0 }, 0, true, 4, 0, 1, { 0x100 } },
	{ "a first 0: zero frames", 0x100, { 0, 0x201 }, 2, true, 4, 0, 1, { 0x100 } },
	{ "full: lost", 0x500, { 0x201 }, 1, true, 0, 1, 0, { 0 } },
	{ "full: lost again", 0x500, { 0x201 }, 1, true, 0, 2, 0, { 0 } },
	{ "full, no insert: not lost", 0x600, { 0x201 }, 1, false, 0, 2, 0, { 0 } },
	{ "full: held stacks still found", 0x180, { 0x201, 0x302 }, 2, true, 2, 2, 3,
	  { 0x180, 0x201, 0x302 } },
	/* depth 3: the fourth caller on is cut, so this is the stack of
	 * its first three callers (not held: a full part loses it) */
	{ "depth cut, full", 0x100, { 0x201, 0x302, 0x403, 0x504, 0x605 }, 5, true, 0, 3, 0, { 0 } },
};

/* The script, on a table of capacity 4 (and on one whose stacks all hash
 * alike, where only the comparison of frames tells them apart). */
static void run_script(unsigned flags)
{
	struct hwbpi_stacks *st = hwbpi_stacks_new(1, 4, 3, flags, NULL);

	assert_non_null(st);
	for (size_t i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
		const struct step *s = &script[i];
		const uint64_t *f = NULL;
		uint32_t id = hwbpi_stacks_intern(st, 0, s->func, s->callers, s->n, s->insert);

		if (id != s->id || hwbpi_stacks_lost(st) != s->lost)
			fail_msg("flags %u, %s: id %u (want %u), lost %llu (want %llu)", flags, s->what,
				 id, s->id, (unsigned long long)hwbpi_stacks_lost(st),
				 (unsigned long long)s->lost);
		assert_int_equal(hwbpi_stacks_get(st, id, &f), s->nframes);
		if (s->nframes)
			assert_memory_equal(f, s->frames, s->nframes * sizeof(uint64_t));
	}
	assert_int_equal(hwbpi_stacks_used(st), 4);
	/* ids never given: 0 and past the stacks held */
	{
		const uint64_t *f;

		assert_int_equal(hwbpi_stacks_get(st, 0, &f), 0);
		assert_int_equal(hwbpi_stacks_get(st, 5, &f), 0);
		assert_int_equal(hwbpi_stacks_get(st, UINT32_MAX, &f), 0);
	}
	/* a bad part: nothing, nothing counted */
	assert_int_equal(hwbpi_stacks_intern(st, 1, 0x100, NULL, 0, true), 0);
	assert_true(hwbpi_stacks_lost(st) == 3);
	hwbpi_stacks_free(st);
}

static void test_script(void **state)
{
	(void)state;
	run_script(0);
	run_script(HWBPI_STACKS_COLLIDE);
}

/* Many stacks that differ in one frame, all in one probe chain: each
 * keeps its id; then the same with real hashes.  Depth 64: the longest. */
static void test_collisions(void **state)
{
	(void)state;
	for (unsigned flags = 0; flags <= HWBPI_STACKS_COLLIDE; flags++) {
		enum { N = 2 * HWBPI_STACK_MAX };   /* every length, every last frame */
		struct hwbpi_stacks *st = hwbpi_stacks_new(1, N, HWBPI_STACK_MAX, flags, NULL);
		uint64_t callers[HWBPI_STACK_MAX];

		assert_non_null(st);
		for (unsigned round = 0; round < 2; round++)
			for (unsigned i = 0; i < N; i++) {
				const uint64_t *f;

				for (unsigned k = 0; k < HWBPI_STACK_MAX; k++)
					callers[k] = 0x1000 + k;
				/* stack i: its last frame, or its length (0..63), differs */
				if (i % 2)
					callers[HWBPI_STACK_MAX - 1] = 0x90000 + i;
				else
					callers[i / 2 % HWBPI_STACK_MAX] = 0;
				assert_int_equal(hwbpi_stacks_intern(st, 0, 0x42, callers,
								     HWBPI_STACK_MAX, true), i + 1);
				assert_int_equal(hwbpi_stacks_get(st, i + 1, &f),
						 i % 2 ? HWBPI_STACK_MAX + 1 : i / 2 % HWBPI_STACK_MAX + 1);
			}
		assert_int_equal(hwbpi_stacks_used(st), N);
		assert_true(hwbpi_stacks_lost(st) == 0);
		hwbpi_stacks_free(st);
	}
}

/* Parts: one writer each, ids unique across them. */
static void test_parts(void **state)
{
	static const uint64_t c[] = { 0x10, 0x20 };
	struct hwbpi_stacks *st = hwbpi_stacks_new(3, 2, 4, 0, NULL);
	const uint64_t *f;

	(void)state;
	assert_non_null(st);
	/* the same stack in two parts: two ids, part * capacity + index + 1 */
	assert_int_equal(hwbpi_stacks_intern(st, 0, 0x1, c, 2, true), 1);
	assert_int_equal(hwbpi_stacks_intern(st, 2, 0x1, c, 2, true), 5);
	assert_int_equal(hwbpi_stacks_intern(st, 2, 0x2, c, 2, true), 6);
	assert_int_equal(hwbpi_stacks_intern(st, 2, 0x3, c, 2, true), 0);   /* part 2 full */
	assert_int_equal(hwbpi_stacks_intern(st, 1, 0x3, c, 2, true), 3);   /* part 1 not */
	assert_int_equal(hwbpi_stacks_get(st, 6, &f), 3);
	assert_true(f[0] == 0x2 && f[1] == 0x10 && f[2] == 0x20);
	assert_int_equal(hwbpi_stacks_get(st, 4, &f), 0);   /* part 1's second: not given */
	assert_int_equal(hwbpi_stacks_used(st), 4);
	assert_true(hwbpi_stacks_lost(st) == 1);
	hwbpi_stacks_free(st);
}

/* ------------------------------------------------------------------ */
/* Functions and names                                                  */
/* ------------------------------------------------------------------ */

/* main 0x1000..0x1100, work 0x1100..0x1200, bump 0x1200..0x1240, and C++
 * ns::f(int) at 0x2000; nothing at 0x3000. */
static struct hwbp_symtab *symbols(void)
{
	struct hwbp_symtab *t = hwbp_symtab_new(NULL);

	assert_non_null(t);
	assert_int_equal(hwbp_symtab_add(t, "main", 0x1000, 0x100, 'T'), 0);
	assert_int_equal(hwbp_symtab_add(t, "work", 0x1100, 0x100, 'T'), 0);
	assert_int_equal(hwbp_symtab_add(t, "bump", 0x1200, 0x40, 'T'), 0);
	assert_int_equal(hwbp_symtab_add(t, "_ZN2ns1fEi", 0x2000, 0x40, 'T'), 0);
	assert_int_equal(hwbp_symtab_add(t, "counter", 0x8000, 8, 'D'), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	return t;
}

/* hwbpi_stacks_hit: the stack of the IP's function and the callers, as
 * hwbpi_stacks_intern gives it, through the part's cache: the same
 * answers from the cache as without it, also for stacks of one IP that
 * share their first two callers (the signature) and differ later. */
static void test_hit_cache(void **state)
{
	static const struct {
		uint64_t ip, func;
		uint64_t callers[4];
		unsigned n;
	} cases[] = {
		{ 0x1000, 0x1000, { 0x1140 }, 1 },
		{ 0x10ff, 0x1000, { 0x1140 }, 1 },                   /* same function, same stack */
		{ 0x1234, 0x1200, { 0x1140, 0x1080 }, 2 },
		{ 0x1234, 0x1200, { 0x1140, 0x1090 }, 2 },           /* same IP, another stack */
		{ 0x1234, 0x1200, { 0x1140, 0x1080, 0x5000 }, 3 },   /* same first two callers */
		{ 0x1234, 0x1200, { 0x1140, 0x1080, 0x6000 }, 3 },
		{ 0x1234, 0x1200, { 0x1140, 0x1080, 0, 0x7000 }, 4 },   /* = the two-caller one */
		{ 0x1240, 0, { 0x1140 }, 1 },                        /* no function */
		{ 0x3000, 0, { 0 }, 0 },
	};
	struct hwbp_symtab *t = symbols();
	struct hwbpi_stacks *st = hwbpi_stacks_new(2, 16, 4, 0, NULL);
	uint32_t ids[2][sizeof(cases) / sizeof(cases[0])];

	(void)state;
	/* three rounds, both parts: the cached answer is the table's */
	for (unsigned round = 0; round < 3; round++)
		for (unsigned part = 0; part < 2; part++)
			for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
				uint32_t id = hwbpi_stacks_hit(st, part, t, cases[i].ip, cases[i].callers,
							       cases[i].n, true);
				const uint64_t *f;

				assert_int_equal(id, hwbpi_stacks_intern(st, part, cases[i].func,
									 cases[i].callers, cases[i].n,
									 false));
				assert_true(hwbpi_stacks_get(st, id, &f) >= 1 && f[0] == cases[i].func);
				if (round == 0)
					ids[part][i] = id;
				assert_int_equal(id, ids[part][i]);
			}
	/* distinct where the stacks differ */
	assert_int_equal(ids[0][0], ids[0][1]);
	assert_int_equal(ids[0][2], ids[0][6]);
	assert_int_not_equal(ids[0][2], ids[0][3]);
	assert_int_not_equal(ids[0][4], ids[0][5]);
	assert_int_not_equal(ids[0][4], ids[0][2]);
	assert_int_equal(hwbpi_stacks_used(st), 2 * 7);
	/* no symbols: function 0; a bad part, or not inserting: nothing */
	{
		static const uint64_t unseen[] = { 0x7777 };
		uint32_t id = hwbpi_stacks_hit(st, 0, NULL, 0x9000, NULL, 0, true);

		assert_int_equal(id, ids[0][8]);   /* function 0 alone, as 0x3000's */
		assert_int_equal(hwbpi_stacks_hit(st, 0, t, 0x1000, unseen, 1, false), 0);
	}
	assert_int_equal(hwbpi_stacks_hit(st, 2, t, 0x1000, NULL, 0, true), 0);
	assert_int_equal(hwbpi_stacks_hit(NULL, 0, t, 0x1000, NULL, 0, true), 0);
	hwbpi_stacks_free(st);
	hwbp_symtab_free(t);
}

static void test_frame_names(void **state)
{
	/* bump, called from work+0x40, called from main+0x100: a return
	 * address that is the first byte of the next function (work's),
	 * as after a call that ends main; then one in no function */
	static const uint64_t frames[] = { 0x1200, 0x1140, 0x1100, 0x3000 };
	static const uint64_t unknown[] = { 0 };
	static const struct {
		const uint64_t *f;
		unsigned k;
		bool offsets;
		const char *want;
	} cases[] = {
		{ frames, 0, false, "bump" },
		{ frames, 0, true, "bump" },       /* frame 0: never an offset */
		{ frames, 1, false, "work" },
		{ frames, 1, true, "work+0x40" },
		{ frames, 2, false, "main" },      /* 0x1100 - 1 is in main */
		{ frames, 2, true, "main+0x100" },
		{ frames, 3, false, "0x3000" },
		{ frames, 3, true, "0x3000" },
		{ unknown, 0, false, "?" },
	};
	struct hwbp_symtab *t = symbols();
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(hwbpi_stacks_frame_name(t, NULL, cases[i].f, cases[i].k,
							    cases[i].offsets, buf, sizeof(buf)),
				    cases[i].want);
	assert_string_equal(hwbpi_stacks_frame_name(NULL, NULL, frames, 1, true, buf, sizeof(buf)),
			    "0x1140");
	hwbp_symtab_free(t);
}

/* A caller in a loaded file's region but in none of its functions (a
 * stripped library): its file and the return address less the bias,
 * as a hit's own unknown place is shown; outside every region 0xADDR. */
static void test_frame_names_regions(void **state)
{
	static const uint64_t frames[] = { 0x1000, 0x5234, 0x9000 };
	struct hwbp_symtab *t;
	char buf[64];
	int err = 0;

	(void)state;
	t = hwbp_symtab_new(&err);
	assert_non_null(t);
	assert_int_equal(hwbp_symtab_add(t, "bump", 0x1000, 0x100, 'T'), 0);
	assert_int_equal(hwbpi_symtab_add_region(t, 0x5000, 0x6000, 0x4000, "/lib/libx.so.1"), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	assert_string_equal(hwbpi_stacks_frame_name(t, NULL, frames, 0, true, buf, sizeof(buf)),
			    "bump");
	assert_string_equal(hwbpi_stacks_frame_name(t, NULL, frames, 1, true, buf, sizeof(buf)),
			    "libx.so.1+0x1234");
	assert_string_equal(hwbpi_stacks_frame_name(t, NULL, frames, 1, false, buf, sizeof(buf)),
			    "libx.so.1+0x1234");
	assert_string_equal(hwbpi_stacks_frame_name(t, NULL, frames, 2, true, buf, sizeof(buf)),
			    "0x9000");
	hwbp_symtab_free(t);
}

static void test_callers(void **state)
{
	static const uint64_t c[] = { 0x1140, 0x1100, 0x3000 };
	struct hwbp_symtab *t = symbols();
	struct hwbpi_stacks *st = hwbpi_stacks_new(1, 4, 8, 0, NULL);
	const char *names, *again;
	uint32_t id = hwbpi_stacks_intern(st, 0, 0x1200, c, 3, true);
	uint32_t alone = hwbpi_stacks_intern(st, 0, 0x1200, NULL, 0, true);

	(void)state;
	assert_int_equal(hwbpi_stacks_callers(st, id, t, NULL, &names), 3);
	assert_memory_equal(names, "work+0x40\0main+0x100\0" "0x3000", 28);
	assert_int_equal(hwbpi_stacks_callers(st, id, t, NULL, &again), 3);
	assert_ptr_equal(names, again);                   /* named once */
	assert_int_equal(hwbpi_stacks_callers(st, alone, t, NULL, &names), 0);
	assert_int_equal(hwbpi_stacks_callers(st, 99, t, NULL, &names), 0);
	assert_null(names);
	hwbpi_stacks_free(st);
	hwbp_symtab_free(t);
}

/* ------------------------------------------------------------------ */
/* The histogram keyed by stacks (the tracer's hit path)               */
/* ------------------------------------------------------------------ */

static struct hwbpi_tracer T;

static void watch(struct hwbpi_tracer *t, const char *s)
{
	struct hwbp_trace_entry e;
	const char *msg;
	unsigned col;
	char err[128];

	assert_int_equal(hwbp_trace_filter_parse(s, &e, &col, &msg), 0);
	assert_int_equal(hwbpi_tracer_apply(t, &e, err, sizeof(err)), 0);
}

static void hit(struct hwbpi_tracer *t, unsigned bp, uint64_t ip, unsigned kind,
		const uint64_t *callers, unsigned n)
{
	struct hwbp_trace_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.ip = ip;
	ev.bp = (uint16_t)bp;
	ev.kind = (uint8_t)kind;
	hwbpi_tracer_hit_frames(t, &ev, callers, n);
}

/* The count of (stack (func, callers), kind) in breakpoint @bp, or -1
 * when it has no entry. */
static int64_t count(const struct hwbpi_tracer *t, unsigned bp, uint64_t func,
		     const uint64_t *callers, unsigned n, unsigned kind)
{
	uint32_t id = hwbpi_stacks_intern(t->stacks, 0, func, callers, n, false);

	for (unsigned i = 0; id && i < t->hist.used[bp]; i++) {
		const struct hwbp_hist_entry *e = &t->hist.e[bp * t->hist.n + i];

		if (e->func == id && e->kind == kind)
			return (int64_t)e->count;
	}
	return -1;
}

static void start(unsigned entries, unsigned depth, const char *const *watches)
{
	memset(&T, 0, sizeof(T));
	T.syms = symbols();
	T.hist_entries = entries;
	T.stack_depth = depth;
	for (; *watches; watches++)
		watch(&T, *watches);
	assert_int_equal(hwbpi_tracer_start(&T, 1, false, 0, false), 0);
}

static void stop(void)
{
	hwbpi_tracer_fini(&T);
	assert_null(T.stacks);
	hwbp_symtab_free((struct hwbp_symtab *)T.syms);
}

/*
 * Two watches of 2 entries each.  counter: bump from work (twice per
 * round, the same IP), bump from main, then work itself: that third
 * stack finds both entries used, and is an overrun without a place in the
 * table; other: bump from work takes the table's stack again.  The hit
 * cache: one IP, two stacks, two entries.
 */
static void test_hist_overrun_per_stack(void **state)
{
	static const char *const w[] = { "counter:rw-", "0x9000/8:rw-", NULL };
	static const uint64_t from_work[] = { 0x1140, 0x10f0 }, from_main[] = { 0x1080 };
	static const uint64_t deep[] = { 0x1140, 0x10f0, 0x5000, 0x5001 };

	(void)state;
	start(2, 2, w);
	assert_non_null(T.stacks);
	assert_int_equal(hwbpi_stacks_capacity(T.stacks), 4);   /* 2 watches x 2 entries */
	for (unsigned round = 0; round < 10; round++) {
		hit(&T, 0, 0x1210, W, from_work, 2);
		hit(&T, 0, 0x1210, W, from_work, 2);
		hit(&T, 0, 0x1210, W, from_main, 1);   /* the same IP, another stack */
		hit(&T, 0, 0x1110, R, from_main, 1);   /* work: no entry left */
		hit(&T, 0, 0x1210, R, deep, 4);        /* depth 2: from_work's stack, R */
		hit(&T, 1, 0x1214, W, from_work, 2);
	}
	assert_true(count(&T, 0, 0x1200, from_work, 2, W) == 20);
	assert_true(count(&T, 0, 0x1200, from_main, 1, W) == 10);
	assert_true(count(&T, 0, 0x1100, from_main, 1, R) == -1);
	assert_true(count(&T, 0, 0x1200, from_work, 2, R) == -1);   /* no entry left */
	assert_true(T.hist.overrun[0] == 20 && T.hist.hits[0] == 50);
	assert_int_equal(T.hist.used[0], 2);
	/* the other watch shares the stack (id) of the first's entry */
	assert_true(count(&T, 1, 0x1200, from_work, 2, W) == 10);
	assert_true(T.hist.overrun[1] == 0 && T.hist.hits[1] == 10);
	/* work's stack never took a place: the two stacks of entries only */
	assert_int_equal(hwbpi_stacks_used(T.stacks), 2);
	assert_true(hwbpi_stacks_lost(T.stacks) == 0);
	assert_true(T.hits == 60);
	stop();
}

/* hwbpi_tracer_hit with --stack: the function alone (never its address
 * among the stack ids); without --stack, hit_frames is hit with stack 0. */
static void test_hist_plain_hits(void **state)
{
	static const char *const w[] = { "counter:rw-", NULL };
	static const uint64_t from_work[] = { 0x1140 };
	struct hwbp_trace_event ev;

	(void)state;
	start(4, 8, w);
	memset(&ev, 0, sizeof(ev));
	ev.ip = 0x1204;
	ev.kind = W;
	hwbpi_tracer_hit(&T, &ev);
	hwbpi_tracer_hit(&T, &ev);
	hit(&T, 0, 0x1208, W, NULL, 0);
	hit(&T, 0, 0x1208, W, from_work, 1);
	assert_true(count(&T, 0, 0x1200, NULL, 0, W) == 3);
	assert_true(count(&T, 0, 0x1200, from_work, 1, W) == 1);
	assert_int_equal(T.hist.used[0], 2);
	stop();

	start(4, 0, w);
	assert_null(T.stacks);
	memset(&ev, 0, sizeof(ev));
	ev.ip = 0x1204;
	ev.kind = W;
	ev.stack = 77;
	hwbpi_tracer_hit_frames(&T, &ev, from_work, 1);
	assert_int_equal(ev.stack, 0);
	assert_int_equal(T.hist.used[0], 1);
	assert_true(T.hist.e[0].func == 0x1200 && T.hist.e[0].count == 1);
	stop();
}

/* Trace mode: each event tagged with its CPU's stack id; a full part
 * leaves the event without one (0), counted. */
static void test_trace_tags(void **state)
{
	static const uint64_t a[] = { 0x1140 }, b[] = { 0x1080 }, c[] = { 0x10f0 };
	struct hwbp_trace_event ev, out[8];
	const uint64_t *f;

	(void)state;
	memset(&T, 0, sizeof(T));
	T.syms = symbols();
	T.stack_depth = 4;
	watch(&T, "counter:rw-");
	/* rings of 2 events: a part of 2 stacks per CPU */
	assert_int_equal(hwbpi_tracer_start(&T, 2, true, 2 * sizeof(ev), false), 0);
	assert_int_equal(hwbpi_stacks_capacity(T.stacks), 2);
	memset(&ev, 0, sizeof(ev));
	ev.ip = 0x1210;
	ev.kind = W;
	ev.cpu = 1;
	hwbpi_tracer_hit_frames(&T, &ev, a, 1);
	assert_int_equal(ev.stack, 3);            /* part 1, index 0 */
	hwbpi_tracer_hit_frames(&T, &ev, b, 1);
	assert_int_equal(ev.stack, 4);
	assert_int_equal(hwbp_ring_pop(T.ring[1], out, 8), 2);
	assert_true(out[0].stack == 3 && out[1].stack == 4);
	hwbpi_tracer_hit_frames(&T, &ev, c, 1);   /* part 1 full */
	assert_int_equal(ev.stack, 0);
	hwbpi_tracer_hit_frames(&T, &ev, a, 1);   /* held: found */
	assert_int_equal(ev.stack, 3);
	ev.cpu = 0;
	hwbpi_tracer_hit_frames(&T, &ev, c, 1);
	assert_int_equal(ev.stack, 1);
	ev.cpu = 5;                               /* no such CPU: stray */
	hwbpi_tracer_hit_frames(&T, &ev, c, 1);
	assert_true(T.stray == 1);
	assert_true(hwbpi_stacks_lost(T.stacks) == 1);
	assert_int_equal(hwbpi_stacks_get(T.stacks, 4, &f), 2);
	assert_true(f[0] == 0x1200 && f[1] == 0x1080);
	assert_true(hwbpi_tracer_hits(&T) == 6);
	hwbpi_tracer_fini(&T);
	hwbp_symtab_free((struct hwbp_symtab *)T.syms);
}

/* ------------------------------------------------------------------ */
/* The demo on the simulator, with its call paths (tracer/backends/replay/demo.c)      */
/* ------------------------------------------------------------------ */

static uint64_t runs(unsigned every)
{
	return (1200 - 1) / every + 1;
}

static uint64_t fstart(const char *name)
{
	const struct hwbp_sym *f = hwbp_symtab_find(T.syms, name);

	assert_non_null(f);
	return f->addr;
}

/* The demo's return address into @caller after its call of @callee: the
 * call site of (caller, callee) at 0x280 + 8 * the callee's index in
 * funcs[] (their starts are 0x400 apart, from do_timer's), + 5. */
static uint64_t ret(const char *caller, const char *callee)
{
	return fstart(caller) + 0x280 + 8 * ((fstart(callee) - fstart("do_timer")) / 0x400) + 5;
}

/* @path: the function, then its callers, NULL-ended, as frames. */
static unsigned frames_of(const char *const *path, uint64_t *out)
{
	unsigned n = 0;

	for (; path[n + 1]; n++)
		out[n] = ret(path[n + 1], path[n]);
	return n;
}

static void run_demo(bool trace, unsigned entries)
{
	struct hwbpi_demo_state st = { 0, 0, 0, 0 };
	struct hwbp_cpu cpu;
	char err[128] = "";
	int e;

	memset(&T, 0, sizeof(T));
	T.syms = hwbpi_demo_symtab(&e);
	T.hist_entries = entries;
	T.stack_depth = 8;
	watch(&T, "jiffies:rw-");
	hwbp_cpu_preset("x86_64", &cpu);
	assert_int_equal(hwbpi_tracer_start(&T, HWBPI_DEMO_CPUS, trace, (size_t)1 << 20, false), 0);
	if (hwbpi_replay(&T, &cpu, HWBPI_DEMO_CPUS, hwbpi_demo_next, &st, err, sizeof(err)))
		fail_msg("%s", err);
}

static const char *const do_timer_path[] = { "do_timer", "tick_do_update_jiffies64",
					     "tick_sched_timer", "__hrtimer_run_queues",
					     "hrtimer_interrupt", NULL };
static const char *const gj_a[] = { "get_jiffies_64", "rcu_gp_kthread", "kthread",
				    "ret_from_fork", NULL };
static const char *const gj_b[] = { "get_jiffies_64", "msleep", "worker_thread", "kthread",
				    "ret_from_fork", NULL };
static const char *const clone_path[] = { "kernel_clone", "__do_sys_clone", "do_syscall_64",
					  NULL };

/* Histogram mode: the counts per stack.  get_jiffies_64's one access site
 * (one IP) runs through two paths in turn: two entries, never merged by
 * the hit cache. */
static void test_demo_hist(void **state)
{
	uint64_t c[8];
	unsigned n;

	(void)state;
	run_demo(false, 32);
	n = frames_of(do_timer_path, c);
	assert_true(count(&T, 0, fstart("do_timer"), c, n, W) == (int64_t)runs(1));
	n = frames_of(gj_a, c);
	assert_true(count(&T, 0, fstart("get_jiffies_64"), c, n, R) == (int64_t)(runs(2) + 1) / 2);
	n = frames_of(gj_b, c);
	assert_true(count(&T, 0, fstart("get_jiffies_64"), c, n, R) == (int64_t)runs(2) / 2);
	n = frames_of(clone_path, c);
	assert_true(count(&T, 0, fstart("kernel_clone"), c, n, R) == (int64_t)runs(53));
	/* a function without callers: its stack is the function alone */
	assert_true(count(&T, 0, fstart("round_jiffies"), NULL, 0, R) == (int64_t)runs(13));
	/* 20 functions, three of them through two paths */
	assert_int_equal(T.hist.used[0], 23);
	assert_true(T.hist.overrun[0] == 0);
	assert_int_equal(hwbpi_stacks_used(T.stacks), 23);
	hwbpi_tracer_fini(&T);
	hwbp_symtab_free((struct hwbp_symtab *)T.syms);

	/* 16 entries: the first 16 stacks to hit (round 0's, in the steps'
	 * order) have them; the rest, the last four functions and the three
	 * second paths, is the overrun, and never took a place in the table */
	run_demo(false, 16);
	assert_int_equal(T.hist.used[0], 16);
	assert_true(T.hist.overrun[0] == runs(41) + runs(43) + runs(47) + runs(53) + runs(2) / 2 +
					 runs(3) / 2 + runs(2) / 2);
	n = frames_of(gj_b, c);
	assert_int_equal(hwbpi_stacks_intern(T.stacks, 0, fstart("get_jiffies_64"), c, n, false), 0);
	assert_int_equal(hwbpi_stacks_used(T.stacks), 16);
	hwbpi_tracer_fini(&T);
	hwbp_symtab_free((struct hwbp_symtab *)T.syms);
}

/* Trace mode: every event's stack starts with its own function; the
 * events of each get_jiffies_64 path are as many as its runs. */
static void test_demo_trace(void **state)
{
	struct hwbp_trace_event buf[256];
	uint64_t a[8], b[8], na = 0, nb = 0, total = 0;
	unsigned la, lb;
	size_t got;

	(void)state;
	run_demo(true, 0);
	la = frames_of(gj_a, a);
	lb = frames_of(gj_b, b);
	for (unsigned cpu = 0; cpu < HWBPI_DEMO_CPUS; cpu++)
		while ((got = hwbp_ring_pop(T.ring[cpu], buf, 256)) > 0)
			for (size_t i = 0; i < got; i++) {
				const struct hwbp_sym *f = hwbpi_tracer_func(&T, &buf[i]);
				const uint64_t *fr;
				unsigned n = hwbpi_stacks_get(T.stacks, buf[i].stack, &fr);

				assert_true(n >= 1 && f && fr[0] == f->addr);
				if (fr[0] == fstart("get_jiffies_64")) {
					na += n == la + 1 && memcmp(fr + 1, a, la * 8) == 0;
					nb += n == lb + 1 && memcmp(fr + 1, b, lb * 8) == 0;
				}
				total++;
			}
	assert_true(na == (runs(2) + 1) / 2 && nb == runs(2) / 2);
	assert_true(total == hwbpi_tracer_hits(&T));
	assert_int_equal(hwbpi_stacks_used(T.stacks), 23);
	assert_true(hwbpi_stacks_lost(T.stacks) == 0);
	hwbpi_tracer_fini(&T);
	hwbp_symtab_free((struct hwbp_symtab *)T.syms);
}

/* ------------------------------------------------------------------ */
/* Printing                                                             */
/* ------------------------------------------------------------------ */

static char *to_string(int (*print)(const struct hwbp_hist *, const char *const *,
				    const struct hwbp_symtab *, const struct hwbpi_stacks *,
				    unsigned, FILE *),
		       unsigned flags, int *ret)
{
	static const char *const names[] = { "counter", "0x9000" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*ret = print(&T.hist, names, T.syms, T.stacks, flags, f);
	fclose(f);
	return buf;
}

/*
 * bump from work+0x40 and from work+0x80 (two stacks, one row), from
 * main; work from main; ns::f(int) from an unknown caller; one hit in no
 * function.  Counts: 7 + 5 = 12, 9, 4, 3, 2.
 */
static void feed_print_case(void)
{
	static const char *const w[] = { "counter:rw-", "0x9000/8:-w-", NULL };
	static const uint64_t w40[] = { 0x1140, 0x1010 }, w80[] = { 0x1180, 0x1010 };
	static const uint64_t m[] = { 0x1020 }, unk[] = { 0x3004 };

	start(8, 8, w);
	for (unsigned i = 0; i < 12; i++)
		hit(&T, 0, 0x1210, W, i < 7 ? w40 : w80, 2);
	for (unsigned i = 0; i < 9; i++)
		hit(&T, 0, 0x1220, R, m, 1);
	for (unsigned i = 0; i < 4; i++)
		hit(&T, 0, 0x1120, R, m, 1);
	for (unsigned i = 0; i < 3; i++)
		hit(&T, 1, 0x2004, W, unk, 1);
	for (unsigned i = 0; i < 2; i++)
		hit(&T, 1, 0x4000, W, m, 1);
}

static void test_print_stacks(void **state)
{
	static const char want[] =
		"Access_Type  Symbol    Function              Counter\n"
		"W            counter   bump <- work <- main       12\n"
		"R            counter   bump <- main                9\n"
		"R            counter   work <- main                4\n"
		"W            0x9000    ns::f(int) <- 0x3004        3\n"
		"W            0x9000    ? <- main                   2\n"
		"counter: 3 stacks of 2 functions, overrun 0\n"
		"0x9000: 2 stacks of 2 functions, overrun 0\n";
	static const char want_mangled[] =
		"Access_Type  Symbol    Function              Counter\n"
		"W            counter   bump <- work <- main       12\n"
		"R            counter   bump <- main                9\n"
		"R            counter   work <- main                4\n"
		"W            0x9000    _ZN2ns1fEi <- 0x3004        3\n"
		"W            0x9000    ? <- main                   2\n"
		"counter: 3 stacks of 2 functions, overrun 0\n"
		"0x9000: 2 stacks of 2 functions, overrun 0\n";
	char *got;
	int ret;

	(void)state;
	feed_print_case();
	got = to_string(hwbpi_hist_print_stacks, HWBP_HIST_DEMANGLE, &ret);
	assert_int_equal(ret, 0);
	/* a build without libiberty keeps the C++ name as it is */
	assert_string_equal(got, hwbpi_demangle_available() ? want : want_mangled);
	free(got);
	got = to_string(hwbpi_hist_print_stacks, 0, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(got, want_mangled);
	free(got);
	assert_int_equal(hwbpi_hist_print_stacks(&T.hist, NULL, T.syms, T.stacks, 0, stdout),
			 -EINVAL);
	assert_int_equal(hwbpi_hist_print_stacks(&T.hist, (const char *const[]){ "a", "b" },
						 T.syms, T.stacks, 4, stdout), -EINVAL);
	stop();
}

static void test_folded(void **state)
{
	static const char want[] =
		"counter [W];main;work;bump 12\n"
		"counter [R];main;bump 9\n"
		"counter [R];main;work 4\n"
		"0x9000 [W];0x3004;_ZN2ns1fEi 3\n"
		"0x9000 [W];main;? 2\n";
	char *got;
	int ret;

	(void)state;
	feed_print_case();
	got = to_string(hwbpi_hist_write_folded, 0, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(got, want);
	free(got);
	if (hwbpi_demangle_available()) {
		got = to_string(hwbpi_hist_write_folded, HWBP_HIST_DEMANGLE, &ret);
		assert_non_null(strstr(got, "0x9000 [W];0x3004;ns::f(int) 3\n"));
		free(got);
	}
	stop();
}

/* Long names: each frame shortened as the plain table shortens a name,
 * or whole with HWBP_HIST_WIDE; the folded stacks keep them whole, and a
 * ';' in a name (not one of C's) does not split a frame. */
static void test_long_names(void **state)
{
	static const char *const names[] = { "v" };
	char longname[80], *buf = NULL, want[256];
	size_t len = 0;
	static const uint64_t from[] = { 0x1010 };
	struct hwbp_symtab *t = hwbp_symtab_new(NULL);
	FILE *f;

	(void)state;
	memset(longname, 'a', 70);
	longname[70] = '\0';
	assert_int_equal(hwbp_symtab_add(t, longname, 0x1000, 0x100, 'T'), 0);
	assert_int_equal(hwbp_symtab_add(t, "odd;name", 0x2000, 0x100, 'T'), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	memset(&T, 0, sizeof(T));
	T.syms = t;
	T.hist_entries = 2;
	T.stack_depth = 1;
	watch(&T, "0x9000/8:-w-");
	assert_int_equal(hwbpi_tracer_start(&T, 1, false, 0, false), 0);
	hit(&T, 0, 0x2010, W, from, 1);

	f = open_memstream(&buf, &len);
	assert_int_equal(hwbpi_hist_print_stacks(&T.hist, names, t, T.stacks, 0, f), 0);
	fclose(f);
	snprintf(want, sizeof(want), "W            v         odd;name <- %.57s...        1\n", longname);
	assert_non_null(strstr(buf, want));
	free(buf);
	f = open_memstream(&buf, &len);
	assert_int_equal(hwbpi_hist_print_stacks(&T.hist, names, t, T.stacks, HWBP_HIST_WIDE, f), 0);
	fclose(f);
	snprintf(want, sizeof(want), "W            v         odd;name <- %s        1\n", longname);
	assert_non_null(strstr(buf, want));
	free(buf);
	f = open_memstream(&buf, &len);
	assert_int_equal(hwbpi_hist_write_folded(&T.hist, names, t, T.stacks, 0, f), 0);
	fclose(f);
	snprintf(want, sizeof(want), "v [W];%s;odd:name 1\n", longname);
	assert_string_equal(buf, want);
	free(buf);
	hwbpi_tracer_fini(&T);
	hwbp_symtab_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_errors),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_script),
		cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_hit_cache),
		cmocka_unit_test(test_frame_names),
		cmocka_unit_test(test_frame_names_regions),
		cmocka_unit_test(test_callers),
		cmocka_unit_test(test_hist_overrun_per_stack),
		cmocka_unit_test(test_hist_plain_hits),
		cmocka_unit_test(test_trace_tags),
		cmocka_unit_test(test_demo_hist),
		cmocka_unit_test(test_demo_trace),
		cmocka_unit_test(test_print_stacks),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_long_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
