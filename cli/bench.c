/* SPDX-License-Identifier: MIT */
/*
 * hwbp bench sim: the simulator's hot path against a bare loop over the
 * same access stream, in the same process.  A benchmark, not a test: it
 * prints figures (a table and one "bench NAME VALUE UNIT" line each) and
 * asserts nothing about speed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>

#include "cli.h"

#define STREAM (1u << 20)          /* accesses in the replayed stream */
#define REGION UINT64_C(0x40000000) /* where the stream's accesses fall */
#define REGION_SIZE (1u << 20)
#define FAR_AWAY UINT64_C(0x7f000000)
#define ROUNDS 10

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	/* xorshift64*: deterministic, so every run replays the same stream. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile uint64_t sink;

/* The baseline: touch every access of the stream and nothing else. */
static double bare_loop(const struct hwbp_sim_access *a, uint64_t total)
{
	double t0 = now_ns();
	uint64_t acc = 0;

	for (uint64_t done = 0; done < total; done += STREAM)
		for (size_t i = 0; i < STREAM; i++)
			acc += a[i].addr + a[i].size + a[i].op;
	sink = acc;
	return (now_ns() - t0) / (double)total;
}

/* Arm @n watchpoints (8 bytes, read/write) at @where[] on slot 0.. */
static int arm(struct hwbp_sim *sim, const struct hwbp_cpu *cpu, unsigned n, const uint64_t *where)
{
	struct hwbp_sim_result r;
	char name[32];
	uint64_t dr7 = 0x400;
	int ret = 0;

	if (cpu->arch == HWBP_ARCH_X86) {
		for (unsigned i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "dr%u", i);
			ret |= hwbp_sim_set_reg(sim, 0, name, where[i], &r);
			/* Gn, RW=11 (read or write), LEN=10 (8 bytes): SDM §17.2.4 */
			dr7 |= (2ull << (2 * i)) | (0xbull << (16 + 4 * i));
		}
		return ret | hwbp_sim_set_reg(sim, 0, "dr7", dr7, &r);
	}
	/* arm64: clear the OS lock, MDSCR.MDE|KDE, PSTATE.D = 0 (Arm ARM
	 * D2.4), then DBGWCR: E, PAC=11, LSC=11, BAS=0xff. */
	ret |= hwbp_sim_set_reg(sim, 0, "oslar", 0, &r);
	ret |= hwbp_sim_set_reg(sim, 0, "mdscr", (1u << 15) | (1u << 13), &r);
	ret |= hwbp_sim_set_reg(sim, 0, "daif_d", 0, &r);
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "dbgwvr%u", i);
		ret |= hwbp_sim_set_reg(sim, 0, name, where[i], &r);
		snprintf(name, sizeof(name), "dbgwcr%u", i);
		ret |= hwbp_sim_set_reg(sim, 0, name, 0x1fffu, &r);
	}
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

static int bench_sim(uint64_t total)
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
		uint32_t size = 1u << (next() % 4);

		a[i].addr = REGION + ((next() % REGION_SIZE) & ~(uint64_t)(size - 1));
		a[i].size = size;
		a[i].op = (next() & 1) ? HWBP_SIM_READ : HWBP_SIM_WRITE;
	}
	/*
	 * The machine is shared and its clock noisy: every row, the bare loop
	 * included, runs in ROUNDS interleaved slices of total/ROUNDS accesses
	 * and keeps its fastest slice, so that a disturbance hits one slice
	 * of one row, not a whole row.
	 */
	struct hwbp_sim *sims[sizeof(configs) / sizeof(configs[0])];
	/* Round up: every row replays at least the accesses asked for. */
	uint64_t slice = (total + (uint64_t)ROUNDS * STREAM - 1) / ((uint64_t)ROUNDS * STREAM) * STREAM;

	total = slice * ROUNDS;
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
					  : REGION + ((next() % REGION_SIZE) & ~UINT64_C(7));
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
	for (unsigned round = 0; round < ROUNDS; round++) {
		double b = bare_loop(a, slice);

		if (b < bare)
			bare = b;
		for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++) {
			double t0 = now_ns(), t;

			for (uint64_t done = 0; done < slice; done += STREAM)
				hits[k] += hwbp_sim_run(sims[k], 0, a, STREAM);
			t = (now_ns() - t0) / (double)slice;
			if (t < ns[k])
				ns[k] = t;
		}
	}
	for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++)
		hwbp_sim_free(sims[k]);
	free(a);

	printf("hwbp bench sim: %" PRIu64 " accesses per row (a %u-access stream replayed) in %d\n"
	       "interleaved slices, fastest slice kept; one core\n\n", total, STREAM, ROUNDS);
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

static int bench_help(void)
{
	puts("usage: hwbp bench sim [--accesses N]\n"
	     "Replay a synthetic access stream (default 100 million accesses) through the\n"
	     "simulator with 0, 1, 4 and 16 armed slots near the stream and 16 far from\n"
	     "it, next to a bare loop over the same stream; print ns per access, the\n"
	     "ratio to the bare loop, and one 'bench NAME VALUE UNIT' line per figure.");
	return 0;
}

int hwbp_cli_bench(int argc, char **argv)
{
	uint64_t total = 100000000ull;

	if (argc < 2)
		return usage_error("%s", "bench: expected a benchmark name: sim");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return bench_help();
	if (strcmp(argv[1], "sim") != 0)
		return usage_error("bench: unknown benchmark '%s' (sim)", argv[1]);
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return bench_help();
		if (strcmp(argv[i], "--accesses") == 0 && i + 1 < argc) {
			char *end;

			errno = 0;
			total = strtoull(argv[++i], &end, 0);
			if (errno || *end || total == 0 || argv[i][0] == '-')
				return usage_error("bad --accesses '%s': expected a positive number", argv[i]);
		} else {
			return usage_error("bench sim: unexpected argument '%s' (try --help)", argv[i]);
		}
	}
	return bench_sim(total);
}
