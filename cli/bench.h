/* SPDX-License-Identifier: MIT */
/*
 * Shared by the hwbp bench files: bench.c (the command line), bench_sim.c,
 * bench_trace.c, bench_lackey.c and bench_elf.c (the synthetic symbol
 * table, the test data of bench trace).
 */
#ifndef HWBP_CLI_BENCH_H
#define HWBP_CLI_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include <hwbp/trace.h>

/* Every row runs in this many interleaved slices and keeps its fastest. */
#define BENCH_ROUNDS 10

/* xorshift64*: deterministic, so every run replays the same streams. */
uint64_t bench_next(void);
/* CLOCK_MONOTONIC in nanoseconds. */
double bench_now_ns(void);
/* Results are stored here so that the compiler cannot drop the work. */
extern volatile uint64_t bench_sink;

/* hwbp bench sim: @total accesses per row. */
int bench_sim(uint64_t total);

struct bench_trace_opts {
	uint64_t hits;          /* hits per hit-path row */
	uint64_t lookups;       /* hwbp_symtab_func lookups */
	uint64_t dwfl_lookups;  /* dwfl_module_addrsym lookups (it is much slower) */
	uint64_t symbols;       /* symbols in the lookup table */
	uint64_t lackey_mb;     /* size of the synthetic lackey trace */
	uint64_t buffer_kb;     /* the trace-mode ring */
};

#define BENCH_HIT_FUNCS 8u      /* functions the hits come from (--symbols at least) */

/* hwbp bench trace. */
int bench_trace(const struct bench_trace_opts *o);

/* The decode rows of bench trace (bench_decode.c): ns per hit decoded (the
 * first arch with a decoder),
 * the first time at its PC (cold) and again (warm), in a function of
 * @insns instructions.  Errors: -EOPNOTSUPP (no Capstone: @why says),
 * -EIO (a decode failed). */
struct bench_decode_result {
	int ok;
	const char *arch;       /* the arch whose decoder was timed */
	unsigned insns;
	double cold_ns, warm_ns;
	char why[160];
};
int bench_decode(unsigned rounds, struct bench_decode_result *res);

/*
 * The synthetic symbol table (bench_elf.c): function starts and sizes,
 * contiguous functions of 16..512 bytes from 0x400000, like a kernel's
 * text, named fn_000000 ...
 */
struct bench_text {
	uint64_t *addr, *size;
	size_t n;
	uint64_t lo, hi;
};

/* Errors: -ENOMEM. */
int bench_text_new(struct bench_text *ft, size_t n);
void bench_text_free(struct bench_text *ft);
void bench_text_name(char *buf, size_t len, size_t i);
/* The table as an ELF file at @path.  Errors: -EOPNOTSUPP (built without
 * libelf), -ENOMEM, -EIO, or an errno of open(). */
int bench_write_elf(const char *path, const struct bench_text *ft);

/* The lackey rows (bench_lackey.c). */
#define BENCH_WATCH_A UINT64_C(0x40000000)
#define BENCH_WATCH_B UINT64_C(0x40000040)
#define BENCH_LACKEY_ROUNDS 3
/* The CPU model the replay simulates (a preset name: test data). */
#define BENCH_LACKEY_CPU "x86_64"

struct bench_lackey_result {
	double mbps[3];              /* read, parse, replay */
	uint64_t bytes, hits, expected, bad;
};

/* A synthetic lackey trace of about @bytes at @path; returns the watched
 * accesses in it (the hits a replay must find), or 0 on error. */
uint64_t bench_write_lackey(const char *path, uint64_t bytes, const struct bench_text *ft);

/*
 * A prepared session of the `lackey` backend: the trace at @lackey, the
 * symbols of the table's ELF file @elf (load bias 0), the BENCH_LACKEY_CPU
 * model, the @n @entries, mode @m and outputs @o (borrowed: they must
 * outlive it).  NULL on error, said on stderr.
 */
struct hwbp_trace_session *bench_session(const char *lackey, const char *elf,
					 const struct hwbp_trace_mode *m,
					 const struct hwbp_trace_output *o,
					 const char *const *entries, unsigned n);

/* The read, parse and replay rows of the trace at @path, replayed with
 * the symbols of @elf.  Errors: -EIO (a session could not be made), the
 * errno of reading @path, a session's run's error. */
int bench_lackey_replay(const char *path, const char *elf, uint64_t expected,
			struct bench_lackey_result *res);

#endif /* HWBP_CLI_BENCH_H */
