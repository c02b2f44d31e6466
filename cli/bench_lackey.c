/* SPDX-License-Identifier: MIT */
/*
 * hwbp bench trace, its lackey rows: a synthetic Valgrind lackey trace,
 * then reading it, parsing it and replaying it through the simulator.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>
#include <hwbp/trace.h>

#include "bench.h"
#include "util.h"
/* Internal to the tracer library: the hit path and lackey reader this
 * benchmark times.  To become the public session API of
 * include/hwbp/trace.h (issue 11), when the tracer helper's branch lands. */
#include "tracer.h"

/*
 * A synthetic lackey trace of about @bytes: instructions walking through
 * the table's functions (a jump now and then), 0-2 data accesses each,
 * most to a stack, 1 in 64 to one of two watched variables.  Returns the
 * watched accesses (the hits a replay must find), or 0 on error.
 */
uint64_t bench_write_lackey(const char *path, uint64_t bytes, const struct bench_text *ft)
{
	static const char ops[] = "LLLSSM";
	FILE *f = fopen(path, "w");
	uint64_t written = 0, watched = 0, ip = ft->lo;
	char line[64];

	if (!f)
		return 0;
	while (written < bytes) {
		int n;

		if (bench_next() % 24 == 0 || ip >= ft->hi)
			ip = ft->lo + bench_next() % (ft->hi - ft->lo);
		n = snprintf(line, sizeof(line), "I  %08" PRIx64 ",%u\n", ip, 1 + (unsigned)(bench_next() % 7));
		ip += 1 + bench_next() % 7;
		fputs(line, f);
		written += (uint64_t)n;
		for (unsigned k = bench_next() % 3; k > 0; k--) {
			char op = ops[bench_next() % 6];
			uint64_t a;
			unsigned size;

			if (bench_next() % 64 == 0) {
				a = (bench_next() & 1) ? BENCH_WATCH_A : BENCH_WATCH_B;
				size = 8;
				watched++;
			} else {
				size = (bench_next() & 1) ? 8 : 4;
				a = UINT64_C(0x1ffefff000) + (bench_next() % 4096 & ~(uint64_t)7);
			}
			n = snprintf(line, sizeof(line), " %c %010" PRIx64 ",%u\n", op, a, size);
			fputs(line, f);
			written += (uint64_t)n;
		}
	}
	if (fclose(f) != 0)
		return 0;
	return watched;
}

int bench_lackey_replay(const char *path, uint64_t expected, const struct hwbp_symtab *tab,
			struct bench_lackey_result *res)
{
	static const char *const entries[] = { "0x40000000/8:rw-", "0x40000040/8:rw-" };
	struct hwbpi_tracer *t = calloc(1, sizeof(*t));
	struct hwbp_cpu cpu;
	char err[160];
	int ret = 0;

	memset(res, 0, sizeof(*res));
	res->expected = expected;
	if (!t)
		return -ENOMEM;
	t->syms = tab;
	t->hist_entries = 16;
	for (unsigned i = 0; i < 2; i++) {
		struct hwbp_trace_entry e;
		unsigned col;
		const char *msg;

		ret = hwbp_trace_filter_parse(entries[i], &e, &col, &msg);
		if (ret == 0)
			ret = hwbpi_tracer_apply(t, &e, err, sizeof(err));
		if (ret)
			goto out;
	}
	hwbp_cpu_preset(BENCH_LACKEY_CPU, &cpu);
	for (unsigned round = 0; round < BENCH_LACKEY_ROUNDS; round++) {
		for (unsigned k = 0; k < 3; k++) {
			struct hwbpi_lackey s = { 0 };
			struct hwbpi_work_access a;
			char line[256];
			uint64_t bytes = 0;
			double t0;

			s.in = fopen(path, "r");
			if (!s.in) {
				ret = -errno;
				goto out;
			}
			t0 = bench_now_ns();
			if (k == 0) {
				/* The baseline: only reading the lines. */
				while (fgets(line, sizeof(line), s.in))
					bytes += strlen(line);
			} else if (k == 1) {
				/* Parsing them, without the simulator. */
				while (hwbpi_lackey_next(&s, &a))
					;
				bytes = s.bytes;
			} else {
				ret = hwbpi_tracer_start(t, 1, false, 0, false);
				if (ret == 0)
					ret = hwbpi_trace_sim(t, &cpu, 1, hwbpi_lackey_next, &s, err,
							      sizeof(err));
				bytes = s.bytes;
				res->hits = hwbpi_tracer_hits(t);
				res->bad = s.bad;
				hwbpi_tracer_fini(t);
			}
			t0 = bench_now_ns() - t0;
			fclose(s.in);
			if (ret)
				goto out;
			res->bytes = bytes;
			if ((double)bytes / t0 * 1e3 > res->mbps[k])
				res->mbps[k] = (double)bytes / t0 * 1e3;
		}
	}
out:
	if (ret)
		fprintf(stderr, "hwbp: bench: lackey replay: %s %s\n", cli_errno_name(ret), err);
	free(t);
	return ret;
}
