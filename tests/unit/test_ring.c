/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU event rings: capacity, both policies, exact accounting, the 2^64
 * wrap of the counters, errors, and a two-thread stress test (also meant
 * for a -Db_sanitize=thread build).
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

#include <hwbp/trace.h>

/* White box (tracer/events/ring.c): start an empty ring's counters at @pos. */
int hwbpi_ring_set_start(struct hwbp_ring *r, uint64_t pos);

#define EV 64 /* bytes per event */

/*
 * The -ENOMEM test asks for an impossible size; sanitizer allocators abort
 * on that unless told to return NULL like the C library does.
 */
#include "sanitized.h"
#ifdef SANITIZED
const char *__tsan_default_options(void);
const char *__asan_default_options(void);
const char *__tsan_default_options(void) { return "allocator_may_return_null=1"; }
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
#endif

/* Every field derived from the sequence number, so a torn event (words
 * from two different events) cannot pass check_event(). */
static struct hwbp_trace_event make_event(uint64_t seq)
{
	struct hwbp_trace_event e;

	memset(&e, 0, sizeof(e));
	e.ts = seq;
	e.ip = seq * 0x9e3779b97f4a7c15ull;
	e.addr = ~seq;
	e.cpu = (uint16_t)seq;
	e.bp = (uint16_t)(seq >> 16);
	e.kind = (uint8_t)(seq >> 3);
	e.kind_how = (uint8_t)(seq >> 11);
	e.size = (uint16_t)(seq >> 32);
	e.tid = (uint32_t)(seq * 3);
	e.stack = (uint32_t)(seq >> 5);
	e.value = seq ^ 0x5555555555555555ull;
	e.old = seq + 0x1111;
	e.vflags = (uint8_t)(seq >> 7);
	e.vsize = (uint8_t)(seq >> 13);
	return e;
}

static bool event_ok(const struct hwbp_trace_event *e)
{
	struct hwbp_trace_event w = make_event(e->ts);

	return memcmp(&w, e, sizeof(w)) == 0;
}

/* ------------------------------------------------------------------ */
/* Capacity and errors.                                               */
/* ------------------------------------------------------------------ */

static void test_capacity(void **state)
{
	static const struct {
		size_t bytes;
		int err;
		size_t cap;
	} t[] = {
		{ 0, -EINVAL, 0 },
		{ 1, -EINVAL, 0 },
		{ EV - 1, -EINVAL, 0 },
		{ EV, -EINVAL, 0 },          /* one event: below the minimum of 2 */
		{ 2 * EV - 1, -EINVAL, 0 },
		{ 2 * EV, 0, 2 },
		{ 3 * EV, 0, 2 },            /* 3 events round down to 2 */
		{ 4 * EV - 1, 0, 2 },
		{ 4 * EV, 0, 4 },
		{ 5 * EV, 0, 4 },
		{ 4095, 0, 32 },             /* 63 events */
		{ 4096, 0, 64 },
		{ 1000 * EV, 0, 512 },
		{ 1 << 20, 0, 16384 },
		{ (1 << 20) + EV, 0, 16384 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		for (int ow = 0; ow < 2; ow++) {
			int err = 12345;
			struct hwbp_ring *r = hwbp_ring_new(t[i].bytes, ow, &err);

			assert_int_equal(err, t[i].err);
			if (t[i].err) {
				assert_null(r);
				/* err may be NULL. */
				assert_null(hwbp_ring_new(t[i].bytes, ow, NULL));
				continue;
			}
			assert_non_null(r);
			assert_int_equal(hwbp_ring_capacity(r), t[i].cap);
			hwbp_ring_free(r);
			r = hwbp_ring_new(t[i].bytes, ow, NULL);
			assert_non_null(r);
			assert_int_equal(hwbp_ring_capacity(r), t[i].cap);
			hwbp_ring_free(r);
		}
	}
}

static void test_enomem(void **state)
{
	int err = 0;

	(void)state;
	/* SIZE_MAX / 64 events rounds down to 2^57 (on 64-bit): 2^63 bytes. */
	assert_null(hwbp_ring_new(SIZE_MAX, false, &err));
	assert_int_equal(err, -ENOMEM);
	assert_null(hwbp_ring_new(SIZE_MAX, true, &err));
	assert_int_equal(err, -ENOMEM);
}

static void test_null_args(void **state)
{
	struct hwbp_trace_event e = make_event(1), out[4];
	struct hwbp_ring *r = hwbp_ring_new(4 * EV, false, NULL);
	uint64_t p = 7, l = 7;

	(void)state;
	assert_non_null(r);
	hwbp_ring_free(NULL);
	assert_int_equal(hwbp_ring_capacity(NULL), 0);
	assert_false(hwbp_ring_push(NULL, &e));
	assert_int_equal(hwbp_ring_pop(NULL, out, 4), 0);
	hwbp_ring_stats(NULL, &p, &l);
	assert_int_equal(p, 0);
	assert_int_equal(l, 0);
	hwbp_ring_stats(r, NULL, NULL);

	/* A push with no event changes nothing, not even the counts. */
	assert_false(hwbp_ring_push(r, NULL));
	hwbp_ring_stats(r, &p, &l);
	assert_int_equal(p, 0);
	assert_int_equal(l, 0);

	/* A pop with nowhere to put events, or room for none, takes none. */
	assert_true(hwbp_ring_push(r, &e));
	assert_int_equal(hwbp_ring_pop(r, NULL, 4), 0);
	assert_int_equal(hwbp_ring_pop(r, out, 0), 0);
	assert_int_equal(hwbp_ring_pop(r, out, 4), 1);
	assert_true(event_ok(&out[0]));
	assert_int_equal(out[0].ts, 1);
	assert_int_equal(hwbp_ring_pop(r, out, 4), 0);

	/* White-box hook errors. */
	assert_int_equal(hwbpi_ring_set_start(NULL, 5), -EINVAL);
	assert_true(hwbp_ring_push(r, &e));
	assert_int_equal(hwbpi_ring_set_start(r, 5), -EBUSY);
	hwbp_ring_free(r);
}

/* ------------------------------------------------------------------ */
/* Scripts: "P<k>" pushes k events (sequence 1, 2, ...), "C<k>" pops at  */
/* most k ("C*": everything).  Run at several counter start offsets,     */
/* including just below 2^64, with identical expected results.           */
/* ------------------------------------------------------------------ */

#define MAXSEQ 32

struct script {
	size_t bytes;
	bool overwrite;
	const char *ops;
	uint64_t want[MAXSEQ]; /* popped sequence numbers, 0-terminated */
	uint64_t lost;
};

static const struct script scripts[] = {
	/* discard-new: a full ring drops the incoming event */
	{ 4 * EV, false, "C5", { 0 }, 0 },
	{ 4 * EV, false, "P3 C*", { 1, 2, 3 }, 0 },
	{ 4 * EV, false, "P4 C*", { 1, 2, 3, 4 }, 0 },
	{ 4 * EV, false, "P7 C*", { 1, 2, 3, 4 }, 3 },
	{ 4 * EV, false, "P10 C2 P3 C*", { 1, 2, 3, 4, 11, 12 }, 7 },
	{ 4 * EV, false, "P3 C2 P3 C2 P3 C*", { 1, 2, 3, 4, 5, 6, 7, 8 }, 1 },
	{ 4 * EV, false, "P4 C1 C1 C1 C1 C1", { 1, 2, 3, 4 }, 0 },
	{ 2 * EV, false, "P5 C1 P1 C*", { 1, 2, 6 }, 3 },
	{ 9 * EV, false, "P20 C3 C3 C3 C*", { 1, 2, 3, 4, 5, 6, 7, 8 }, 12 },
	{ 4 * EV, false, "P2 C1 P2 C1 P2 C1 P2 C1 P2 C*", { 1, 2, 3, 4, 5, 6, 7, 9 }, 2 },
	/* overwrite: a full ring drops its oldest event */
	{ 4 * EV, true, "C5", { 0 }, 0 },
	{ 4 * EV, true, "P3 C*", { 1, 2, 3 }, 0 },
	{ 4 * EV, true, "P4 C*", { 1, 2, 3, 4 }, 0 },
	{ 4 * EV, true, "P7 C*", { 4, 5, 6, 7 }, 3 },
	{ 4 * EV, true, "P10 C2 P3 C*", { 7, 8, 10, 11, 12, 13 }, 7 },
	{ 4 * EV, true, "P3 C2 P3 C2 P3 C*", { 1, 2, 3, 4, 6, 7, 8, 9 }, 1 },
	{ 4 * EV, true, "P4 C1 C1 C1 C1 C1", { 1, 2, 3, 4 }, 0 },
	{ 2 * EV, true, "P5 C1 P1 C*", { 4, 5, 6 }, 3 },
	{ 9 * EV, true, "P20 C3 C3 C3 C*", { 13, 14, 15, 16, 17, 18, 19, 20 }, 12 },
	{ 4 * EV, true, "P2 C1 P2 C1 P2 C1 P2 C1 P2 C*", { 1, 2, 3, 5, 7, 8, 9, 10 }, 2 },
	{ 4 * EV, true, "P9 C1 P9 C*", { 6, 15, 16, 17, 18 }, 13 },
};

static const uint64_t starts[] = {
	0, 1, UINT64_MAX, UINT64_MAX - 1, UINT64_MAX - 3, UINT64_MAX - 6,
	(UINT64_MAX >> 1) - 2, /* 2^63 - 1 - 2: crosses the sign bit */
};

static void run_script(const struct script *s, uint64_t start)
{
	struct hwbp_ring *r = hwbp_ring_new(s->bytes, s->overwrite, NULL);
	struct hwbp_trace_event out[64];
	uint64_t seq = 0, got[4 * MAXSEQ], p, l, prev_lost = 0, falses = 0;
	size_t ngot = 0, nwant = 0;
	const char *o = s->ops;

	assert_non_null(r);
	assert_int_equal(hwbpi_ring_set_start(r, start), 0);
	while (*o) {
		char op = *o++;
		size_t k;

		if (*o == '*') {
			k = sizeof(out) / sizeof(out[0]);
			o++;
		} else {
			k = strtoul(o, (char **)&o, 10);
		}
		while (*o == ' ')
			o++;
		if (op == 'P') {
			for (size_t i = 0; i < k; i++) {
				struct hwbp_trace_event e = make_event(++seq);
				bool kept = hwbp_ring_push(r, &e);

				/* false exactly when an event was lost */
				hwbp_ring_stats(r, &p, &l);
				assert_int_equal(p, seq);
				assert_int_equal(l, prev_lost + !kept);
				prev_lost = l;
				falses += !kept;
			}
		} else {
			size_t n = hwbp_ring_pop(r, out, k);

			assert_true(n <= k);
			assert_true(ngot + n <= sizeof(got) / sizeof(got[0]));
			for (size_t i = 0; i < n; i++) {
				assert_true(event_ok(&out[i]));
				got[ngot++] = out[i].ts;
			}
		}
	}
	/* Drained? (every script ends with the ring empty) */
	assert_int_equal(hwbp_ring_pop(r, out, 64), 0);

	while (nwant < MAXSEQ && s->want[nwant])
		nwant++;
	assert_int_equal(ngot, nwant);
	for (size_t i = 0; i < ngot; i++)
		assert_int_equal(got[i], s->want[i]);
	hwbp_ring_stats(r, &p, &l);
	assert_int_equal(l, s->lost);
	assert_int_equal(falses, s->lost);
	assert_int_equal(p, seq);
	assert_int_equal(p, ngot + l); /* produced = popped + lost */
	hwbp_ring_free(r);
}

static void test_scripts(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		print_message("script %zu (%s, %zu bytes) \"%s\"\n", i,
			      scripts[i].overwrite ? "overwrite" : "discard",
			      scripts[i].bytes, scripts[i].ops);
		for (size_t j = 0; j < sizeof(starts) / sizeof(starts[0]); j++)
			run_script(&scripts[i], starts[j]);
	}
}

/* ------------------------------------------------------------------ */
/* Random operations against a reference model (a plain array queue).  */
/* ------------------------------------------------------------------ */

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void test_model(void **state)
{
	static const size_t caps[] = { 2, 4, 8, 64 };

	(void)state;
	for (size_t ci = 0; ci < sizeof(caps) / sizeof(caps[0]); ci++)
		for (int ow = 0; ow < 2; ow++)
			for (size_t si = 0; si < sizeof(starts) / sizeof(starts[0]); si++) {
				size_t cap = caps[ci];
				struct hwbp_ring *r = hwbp_ring_new(cap * EV, ow, NULL);
				uint64_t q[64], rng = 0x1234567 + ci * 31 + (uint64_t)ow * 7 + si;
				uint64_t seq = 0, lost = 0, popped = 0, p, l;
				size_t qh = 0, qn = 0; /* model: q[(qh + i) % cap], i < qn */
				struct hwbp_trace_event out[80];

				assert_non_null(r);
				assert_int_equal(hwbpi_ring_set_start(r, starts[si]), 0);
				for (int step = 0; step < 4000; step++) {
					uint64_t x = xorshift(&rng);

					if (x % 5 < 3) { /* push, more often than pop */
						struct hwbp_trace_event e = make_event(++seq);
						bool kept = true;

						if (qn == cap) {
							kept = false;
							lost++;
							if (ow) {
								qh = (qh + 1) % cap;
								qn--;
							}
						}
						if (qn < cap)
							q[(qh + qn++) % cap] = seq;
						assert_int_equal(hwbp_ring_push(r, &e), kept);
					} else {
						size_t max = (size_t)(x >> 8) % (cap + 3);
						size_t n = hwbp_ring_pop(r, out, max);
						size_t wn = max < qn ? max : qn;

						assert_int_equal(n, wn);
						for (size_t i = 0; i < n; i++) {
							assert_true(event_ok(&out[i]));
							assert_int_equal(out[i].ts, q[qh]);
							qh = (qh + 1) % cap;
							qn--;
						}
						popped += n;
					}
				}
				popped += hwbp_ring_pop(r, out, 80);
				hwbp_ring_stats(r, &p, &l);
				assert_int_equal(p, seq);
				assert_int_equal(l, lost);
				assert_int_equal(p, popped + l);
				hwbp_ring_free(r);
			}
}

/* ------------------------------------------------------------------ */
/* Two threads: a producer pushing N numbered events, the consumer      */
/* draining concurrently with pops of random sizes and random pauses.   */
/* ------------------------------------------------------------------ */

struct stress {
	struct hwbp_ring *r;
	uint64_t n;
	int pace;              /* producer spins between pushes */
	uint64_t falses;       /* producer's own count of pushes returning false */
	atomic_bool done;
};

static void *producer(void *arg)
{
	struct stress *s = arg;
	uint64_t falses = 0;

	for (uint64_t i = 1; i <= s->n; i++) {
		struct hwbp_trace_event e = make_event(i);

		falses += !hwbp_ring_push(s->r, &e);
		if (s->pace)
			for (volatile int spin = 0; spin < 40; spin++)
				;
		/* Now and then let the consumer catch up, so the ring goes
		 * through empty, partly full and full states. */
		if ((i & 0xfff) == 0)
			sched_yield();
	}
	s->falses = falses;
	atomic_store_explicit(&s->done, true, memory_order_release);
	return NULL;
}

static void test_stress(void **state)
{
	static const size_t caps[] = { 2, 4, 16, 256, 4096 };
#if defined(SANITIZED) || defined(HWBP_UNDER_EMULATION)
	/* (a sanitizer's runtime, or qemu-user in a cross build, makes each
	 * push some ten times slower: fewer events, same interleavings) */
	const uint64_t N = 100000;
#else
	const uint64_t N = 1000000;
#endif

	(void)state;
	/* mode 0: both flat out; 1: the consumer pauses at random (ring mostly
	 * full, the producer dropping/overwriting under the consumer's feet);
	 * 2: the producer is paced (ring mostly near empty, head and tail
	 * contended, few losses). */
	for (size_t ci = 0; ci < sizeof(caps) / sizeof(caps[0]); ci++)
		for (int ow = 0; ow < 2; ow++)
			for (int mode = 0; mode < 3; mode++) {
				struct stress s;
				struct hwbp_trace_event out[64];
				uint64_t popped = 0, last = 0, p, l, rng = 0x9e3779b9 + ci;
				uint64_t first = 0, bad = 0, dup = 0;
				pthread_t th;

				s.r = hwbp_ring_new(caps[ci] * EV, ow, NULL);
				s.n = N;
				s.falses = 0;
				s.pace = mode == 2;
				atomic_init(&s.done, false);
				assert_non_null(s.r);
				assert_int_equal(pthread_create(&th, NULL, producer, &s), 0);
				for (;;) {
					uint64_t x = xorshift(&rng);
					bool fin = atomic_load_explicit(&s.done, memory_order_acquire);
					size_t n = hwbp_ring_pop(s.r, out, 1 + (size_t)(x % 64));

					for (size_t i = 0; i < n; i++) {
						bad += !event_ok(&out[i]);
						dup += out[i].ts <= last;
						if (!first)
							first = out[i].ts;
						last = out[i].ts;
					}
					popped += n;
					/* Empty after the producer finished: drained. */
					if (n == 0 && fin)
						break;
					/* Empty: let the producer run (on a machine with
					 * fewer cores than spinning threads, e.g. under
					 * qemu-user, spinning here starves it). */
					if (n == 0)
						sched_yield();
					if (mode == 1 && (x >> 8) % 16 == 0)
						for (volatile unsigned spin = 0; spin < (x >> 16) % 2000;
						     spin++)
							;
				}
				assert_int_equal(pthread_join(th, NULL), 0);
				hwbp_ring_stats(s.r, &p, &l);
				print_message("%s cap %4zu mode %d: N %llu popped %llu lost %llu\n",
					      ow ? "overwrite" : "discard  ", caps[ci], mode,
					      (unsigned long long)N, (unsigned long long)popped,
					      (unsigned long long)l);
				assert_int_equal(bad, 0);      /* no torn event */
				assert_int_equal(dup, 0);      /* strictly increasing: no duplicate */
				assert_int_equal(p, N);
				assert_int_equal(popped + l, N);
				assert_int_equal(s.falses, l);
				assert_true(popped > 0);
				/* discard never drops the first event (the ring starts
				 * empty); overwrite never drops the newest. */
				if (ow)
					assert_int_equal(last, N);
				else
					assert_int_equal(first, 1);
				hwbp_ring_free(s.r);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_enomem),
		cmocka_unit_test(test_null_args),
		cmocka_unit_test(test_scripts),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_stress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
