/* SPDX-License-Identifier: MIT */
/*
 * hwbp bench trace, its lackey rows: a synthetic Valgrind lackey trace,
 * then reading it, parsing it (hwbp_trace_lackey_scan) and replaying it
 * through a session of the `lackey` backend, the simulator behind it.
 * Also the prepared sessions the hit-path rows feed (bench_trace.c): the
 * same backend, so that their histogram looks IPs up in the same table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwbp/hwbp.h>
#include <hwbp/trace.h>

#include "bench.h"
#include "util.h"

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

struct hwbp_trace_session *bench_session(const char *lackey, const char *elf,
					 const struct hwbp_trace_mode *m,
					 const struct hwbp_trace_output *o,
					 const char *const *entries, unsigned n)
{
	struct hwbp_trace_session *s;
	int ret;

	s = hwbp_trace_session_new(hwbp_trace_backend_find("lackey"), &ret);
	if (!s) {
		fprintf(stderr, "hwbp: bench: lackey session: %s\n", hwbp_errno_name(ret));
		return NULL;
	}
	/* The table's ELF is not position-independent: no bias to guess
	 * (guessing would read the whole trace). */
	ret = hwbp_trace_session_option(s, "lackey", lackey);
	if (ret == 0)
		ret = hwbp_trace_session_option(s, "elf", elf);
	if (ret == 0)
		ret = hwbp_trace_session_option(s, "load-bias", "0");
	if (ret == 0)
		ret = hwbp_trace_session_cpu(s, BENCH_LACKEY_CPU);
	for (unsigned i = 0; ret == 0 && i < n; i++)
		ret = hwbp_trace_session_entry(s, entries[i], "bench");
	if (ret == 0)
		ret = hwbp_trace_session_mode(s, m);
	if (ret == 0)
		ret = hwbp_trace_session_output(s, o);
	if (ret == 0)
		ret = hwbp_trace_session_prepare(s);
	if (ret) {
		const char *msg = hwbp_trace_session_message(s, NULL);

		fprintf(stderr, "hwbp: bench: lackey session: %s%s%s\n", hwbp_errno_name(ret),
			msg[0] ? ": " : "", msg);
		hwbp_trace_session_free(s);
		return NULL;
	}
	return s;
}

/* The replay's hits: every watch's count in the session's histogram. */
static uint64_t session_hits(const struct hwbp_trace_session *s)
{
	const struct hwbp_hist *h = hwbp_trace_session_hist(s);
	uint64_t n = 0;

	for (unsigned b = 0; h && b < h->nbp; b++)
		n += h->hits[b];
	return n;
}

/*
 * One row's pass over the file: 0 reads its lines, 1 parses them, 2
 * replays them through session @s (prepared: its symbol table loaded, so
 * that only the replay is timed).  Returns the bytes, or 0 with *ret set.
 */
static uint64_t lackey_pass(unsigned k, const char *path, struct hwbp_trace_session *s,
			    struct bench_lackey_result *res, int *ret)
{
	struct hwbp_trace_lackey_counts c;
	uint64_t bytes = 0;
	char line[256];
	FILE *f = NULL;

	*ret = 0;
	if (k == 0) {
		/* The baseline: only reading the lines. */
		if (!(f = fopen(path, "r"))) {
			*ret = -errno;
			return 0;
		}
		while (fgets(line, sizeof(line), f))
			bytes += strlen(line);
		fclose(f);
	} else if (k == 1) {
		/* Parsing them, without the simulator. */
		if (!(f = fopen(path, "r"))) {
			*ret = -errno;
			return 0;
		}
		*ret = hwbp_trace_lackey_scan(f, &c);
		fclose(f);
		bytes = c.bytes;
		res->bad = c.bad;
	} else {
		*ret = hwbp_trace_session_run(s);
		res->hits = session_hits(s);
		bytes = res->bytes;   /* the file the parse row measured */
	}
	return bytes;
}

int bench_lackey_replay(const char *path, const char *elf, uint64_t expected,
			struct bench_lackey_result *res)
{
	static const char *const entries[] = { "0x40000000/8:rw-", "0x40000040/8:rw-" };
	const struct hwbp_trace_mode mode = { false, 16, 0, false };
	const struct hwbp_trace_output out = { NULL, NULL, NULL, NULL, NULL };
	int ret = 0;

	memset(res, 0, sizeof(*res));
	res->expected = expected;
	for (unsigned round = 0; round < BENCH_LACKEY_ROUNDS; round++) {
		for (unsigned k = 0; k < 3; k++) {
			/* A session runs once: a new one per replay, prepared
			 * before the clock starts. */
			struct hwbp_trace_session *s = NULL;
			uint64_t bytes;
			double t0;

			if (k == 2 && !(s = bench_session(path, elf, &mode, &out, entries, 2)))
				return -EIO;
			t0 = bench_now_ns();
			bytes = lackey_pass(k, path, s, res, &ret);
			t0 = bench_now_ns() - t0;
			if (ret && s)
				fprintf(stderr, "hwbp: bench: lackey replay: %s %s\n", hwbp_errno_name(ret),
					hwbp_trace_session_message(s, NULL));
			else if (ret)
				fprintf(stderr, "hwbp: bench: lackey: %s: %s\n", path, hwbp_errno_name(ret));
			hwbp_trace_session_free(s);
			if (ret)
				return ret;
			res->bytes = bytes;
			if ((double)bytes / t0 * 1e3 > res->mbps[k])
				res->mbps[k] = (double)bytes / t0 * 1e3;
		}
	}
	return 0;
}
