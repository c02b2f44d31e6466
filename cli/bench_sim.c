/* SPDX-License-Identifier: MIT */
/*
 * hwbp bench sim: the simulator's hot path (hwbp_sim_run) with 0 to 16
 * armed slots near a synthetic access stream, or far from it, next to a
 * bare loop over the same stream in the same process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>

#include "bench.h"
#include "util.h"

/* ---------------------------------------------------- shared helpers */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

volatile uint64_t bench_sink;

uint64_t bench_next(void)
{
	/* xorshift64*: deterministic, so every run replays the same stream. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* --------------------------------------------------------- bench sim */

#define STREAM (1u << 20)          /* accesses in the replayed stream */
#define REGION UINT64_C(0x40000000) /* where the stream's accesses fall */
#define REGION_SIZE (1u << 20)
#define FAR_AWAY UINT64_C(0x7f000000)

/* The baseline: touch every access of the stream and nothing else. */
static double bare_loop(const struct hwbp_sim_access *a, uint64_t total)
{
	double t0 = bench_now_ns();
	uint64_t acc = 0;

	for (uint64_t done = 0; done < total; done += STREAM)
		for (size_t i = 0; i < STREAM; i++)
			acc += a[i].addr + a[i].size + a[i].op;
	bench_sink = acc;
	return (bench_now_ns() - t0) / (double)total;
}

/*
 * Arm @n watchpoints (8 bytes, read or write) at @where[] as a kernel
 * would: requests placed by the library and written through the
 * simulator's glue, so that the register layout of each arch stays in
 * the library.
 */
static int arm(struct hwbp_sim *sim, const struct hwbp_cpu *cpu, unsigned n, const uint64_t *where)
{
	struct armed {
		struct hwbp_ctx ctx;
		struct hwbp_slots percpu[1];
	} *a = calloc(1, sizeof(*a));
	int ret, id;

	if (!a)
		return -ENOMEM;
	ret = hwbp_ctx_init(&a->ctx, cpu, 1, a->percpu, hwbp_sim_glue(sim));
	/* Debug exceptions on, as a kernel keeps them (arm64: the OS lock and
	 * PSTATE.D released; the model knows). */
	if (ret == 0)
		ret = hwbp_sim_debug_ready(sim, 0);
	for (unsigned i = 0; ret == 0 && i < n; i++) {
		struct hwbp_request q = { where[i], 8, HWBP_RW, HWBP_SCOPE_BOTH, 0 };

		ret = hwbp_install(&a->ctx, &q, 0, NULL, &id);
	}
	free(a);
	return ret;
}

struct config {
	const char *name;
	const char *cpu;
	unsigned slots;
	bool far;
};

static const struct config configs[] = {
	{ "sim_slots0", "arm64-max16", 0, false },
	{ "sim_slots1", "arm64-max16", 1, false },
	{ "sim_slots4", "arm64-max16", 4, false },
	{ "sim_slots4_x86", "x86_64", 4, false },
	{ "sim_slots16", "arm64-max16", 16, false },
	{ "sim_far16", "arm64-max16", 16, true },
};

int bench_sim(uint64_t total)
{
	struct hwbp_sim_access *a = malloc(STREAM * sizeof(*a));
	double bare, ns[sizeof(configs) / sizeof(configs[0])];
	size_t hits[sizeof(configs) / sizeof(configs[0])];

	if (!a) {
		fprintf(stderr, "hwbp: bench: out of memory\n");
		return 1;
	}
	total = (total + STREAM - 1) / STREAM * STREAM;
	for (size_t i = 0; i < STREAM; i++) {
		uint32_t size = 1u << (bench_next() % 4);

		a[i].addr = REGION + ((bench_next() % REGION_SIZE) & ~(uint64_t)(size - 1));
		a[i].size = size;
		a[i].op = (bench_next() & 1) ? HWBP_SIM_READ : HWBP_SIM_WRITE;
	}
	/*
	 * The machine is shared and its clock noisy: every row, the bare loop
	 * included, runs in BENCH_ROUNDS interleaved slices of total/BENCH_ROUNDS accesses
	 * and keeps its fastest slice, so that a disturbance hits one slice
	 * of one row, not a whole row.
	 */
	struct hwbp_sim *sims[sizeof(configs) / sizeof(configs[0])];
	/* Round up: every row replays at least the accesses asked for. */
	uint64_t slice = (total + (uint64_t)BENCH_ROUNDS * STREAM - 1) / ((uint64_t)BENCH_ROUNDS * STREAM) * STREAM;

	total = slice * BENCH_ROUNDS;
	bare = 1e30;
	for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++) {
		const struct config *c = &configs[k];
		struct hwbp_cpu cpu;
		uint64_t where[16];
		int err;

		hwbp_cpu_preset(c->cpu, &cpu);
		sims[k] = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 1, &err);
		if (!sims[k]) {
			fprintf(stderr, "hwbp: bench: %s\n", hwbp_errno_name(err));
			for (size_t j = 0; j < k; j++)
				hwbp_sim_free(sims[j]);
			free(a);
			return 1;
		}
		for (unsigned i = 0; i < c->slots; i++)
			where[i] = c->far ? FAR_AWAY + 64 * i
					  : REGION + ((bench_next() % REGION_SIZE) & ~UINT64_C(7));
		if (arm(sims[k], &cpu, c->slots, where)) {
			fprintf(stderr, "hwbp: bench: arming %s failed\n", c->name);
			for (size_t j = 0; j <= k; j++)
				hwbp_sim_free(sims[j]);
			free(a);
			return 1;
		}
		ns[k] = 1e30;
		hits[k] = 0;
		hwbp_sim_run(sims[k], 0, a, STREAM); /* warm */
	}
	bare_loop(a, STREAM); /* warm */
	for (unsigned round = 0; round < BENCH_ROUNDS; round++) {
		double b = bare_loop(a, slice);

		if (b < bare)
			bare = b;
		for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++) {
			double t0 = bench_now_ns(), t;

			for (uint64_t done = 0; done < slice; done += STREAM)
				hits[k] += hwbp_sim_run(sims[k], 0, a, STREAM);
			t = (bench_now_ns() - t0) / (double)slice;
			if (t < ns[k])
				ns[k] = t;
		}
	}
	for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++)
		hwbp_sim_free(sims[k]);
	free(a);

	printf("hwbp bench sim: %" PRIu64 " accesses per row (a %u-access stream replayed) in %d\n"
	       "interleaved slices, fastest slice kept; one core\n\n", total, STREAM, BENCH_ROUNDS);
	printf("%-16s %-12s %6s %6s %12s %10s %10s\n", "row", "cpu", "slots", "near", "ns/access",
	       "x bare", "hits");
	printf("%-16s %-12s %6s %6s %12.3f %10.2f %10s\n", "bare_loop", "-", "-", "-", bare, 1.0, "-");
	for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++)
		printf("%-16s %-12s %6u %6s %12.3f %10.2f %10zu\n", configs[k].name, configs[k].cpu,
		       configs[k].slots, configs[k].far ? "no" : "yes", ns[k], ns[k] / bare, hits[k]);
	printf("\n");
	printf("bench sim_bare_loop %.3f ns/access\n", bare);
	for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++)
		printf("bench %s %.3f ns/access\n", configs[k].name, ns[k]);
	for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++)
		printf("bench %s_ratio %.3f x_bare\n", configs[k].name, ns[k] / bare);
	return 0;
}
