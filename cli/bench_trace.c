/* SPDX-License-Identifier: MIT */
/*
 * hwbp bench trace: the tracer's hit path (histogram, ring) next to an
 * empty hit callback, IP -> function lookups next to elfutils'
 * dwfl_module_addrsym on the same table, and the lackey replay
 * (bench_lackey.c).  The table is bench_elf.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>
#include <hwbp/trace.h>

#if defined(HWBP_HAVE_LIBDW) && defined(HWBP_HAVE_LIBELF)
#include <elfutils/libdwfl.h>
#endif

#include "bench.h"
#include "util.h"
/* Internal to the tracer library: the hit path and lackey reader this
 * benchmark times.  To become the public session API of
 * include/hwbp/trace.h (issue 11), when the tracer helper's branch lands. */
#include "tracer.h"

#define HIT_EVENTS 4096u        /* the replayed hit events (a power of two) */
#define HIT_BPS 4u              /* breakpoints they are spread over */
#define LOOKUP_IPS (1u << 16)   /* random IPs, replayed (a power of two) */
#define AGREE_SAMPLE 1000u

#if defined(HWBP_HAVE_LIBDW) && defined(HWBP_HAVE_LIBELF)
/* Offline: the file is a file, not a process's memory. */
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static Dwfl *dwfl_open(const char *path)
{
	Dwfl *d = dwfl_begin(&offline_callbacks);

	if (!d)
		return NULL;
	if (!dwfl_report_offline(d, "bench", path, -1) || dwfl_report_end(d, NULL, NULL) != 0) {
		fprintf(stderr, "hwbp: bench: dwfl: %s\n", dwfl_errmsg(-1));
		dwfl_end(d);
		return NULL;
	}
	return d;
}

static const char *dwfl_lookup(Dwfl *d, uint64_t ip)
{
	Dwfl_Module *m = dwfl_addrmodule(d, ip);
	GElf_Sym sym;
	GElf_Word shndx;

	return m ? dwfl_module_addrsym(m, ip, &sym, &shndx) : NULL;
}
#define HAVE_DWFL 1
#else
#define HAVE_DWFL 0
#endif

/* ---------------------------------------------------------- hit path */

typedef void hit_fn(struct hwbpi_tracer *t, const struct hwbp_trace_event *ev);

/* The baseline: what any hit callback costs, doing nothing but touching
 * the event. */
static void empty_hit(struct hwbpi_tracer *t, const struct hwbp_trace_event *ev)
{
	t->hits += ev->ip ^ ev->bp;
}

/* A breakdown of the histogram row: its IP -> function lookup alone. */
static void lookup_hit(struct hwbpi_tracer *t, const struct hwbp_trace_event *ev)
{
	t->hits += (uintptr_t)hwbp_symtab_func(t->syms, ev->ip);
}

/*
 * Rows: the empty callback, the lookup alone, the histogram (lookup and
 * hwbp_hist_add, through hwbpi_tracer_hit itself) and the ring (the same
 * function in trace mode).  Read through a volatile pointer so that the
 * compiler cannot inline the callbacks: a backend reaches the tracer
 * through a pointer too.
 */
enum { HIT_EMPTY, HIT_LOOKUP, HIT_HIST, HIT_RING, HIT_ROWS };
static hit_fn *volatile hit_fns[HIT_ROWS] = { empty_hit, lookup_hit, hwbpi_tracer_hit,
					      hwbpi_tracer_hit };
static const char *const hit_names[HIT_ROWS] = { "trace_hit_empty", "trace_hit_lookup",
						 "trace_hit_hist", "trace_hit_ring" };

static size_t drain(struct hwbp_ring *r, struct hwbp_trace_event *buf, size_t cap)
{
	size_t got, all = 0;

	while ((got = hwbp_ring_pop(r, buf, cap)) > 0)
		all += got;
	return all;
}

struct hit_result {
	double ns[HIT_ROWS];
	uint64_t hits, overrun, produced, popped, lost;
	size_t chunk;
};

static int bench_hits(const struct bench_trace_opts *o, const struct hwbp_symtab *tab,
		      const struct bench_text *ft, struct hit_result *res)
{
	struct hwbp_trace_event *ev = malloc(HIT_EVENTS * sizeof(*ev)), *buf = NULL;
	struct hwbpi_tracer *tr = calloc(HIT_ROWS, sizeof(*tr));
	uint64_t func[BENCH_HIT_FUNCS], slice, idx = 0;
	int ret = -ENOMEM;

	memset(res, 0, sizeof(*res));
	if (!ev || !tr)
		goto out;
	/*
	 * A workload's hits come from a few functions (the demo: a dozen
	 * over all its variables): BENCH_HIT_FUNCS spread over the big table, both
	 * kinds each, so 16 (function, kind) pairs per breakpoint, which the
	 * default 16 entries hold: no overrun, the scan of a full histogram.
	 */
	for (unsigned f = 0; f < BENCH_HIT_FUNCS; f++)
		func[f] = (ft->n / BENCH_HIT_FUNCS) * f + ft->n / (2 * BENCH_HIT_FUNCS);
	for (unsigned i = 0; i < HIT_EVENTS; i++) {
		size_t s = func[bench_next() % BENCH_HIT_FUNCS];

		memset(&ev[i], 0, sizeof(ev[i]));
		ev[i].ts = i;
		/* A watchpoint is hit by a few load/store instructions of
		 * each function, not by arbitrary bytes of it: 4 sites each. */
		ev[i].ip = ft->addr[s] + (bench_next() % 4) * (ft->size[s] / 4);
		ev[i].addr = BENCH_WATCH_A;
		ev[i].bp = (uint16_t)(bench_next() % HIT_BPS);
		ev[i].kind = (bench_next() & 1) ? HWBP_R : HWBP_W;
		ev[i].kind_how = HWBP_KIND_SIM;
		ev[i].size = 8;
	}
	for (unsigned k = 0; k < HIT_ROWS; k++) {
		tr[k].syms = tab;
		tr[k].nw = HIT_BPS;   /* only the count matters to the hit path */
		tr[k].hist_entries = 16;
	}
	ret = hwbpi_tracer_start(&tr[HIT_HIST], 1, false, 0, false);
	if (ret == 0)
		ret = hwbpi_tracer_start(&tr[HIT_RING], 1, true, (size_t)o->buffer_kb * 1024, false);
	if (ret)
		goto out;
	/* The ring is drained between chunks of its capacity, as a consumer
	 * keeping up would: every push finds room and nothing is lost. */
	res->chunk = hwbp_ring_capacity(tr[HIT_RING].ring[0]);
	buf = malloc(res->chunk * sizeof(*buf));
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	slice = (o->hits + BENCH_ROUNDS - 1) / BENCH_ROUNDS;
	for (unsigned k = 0; k < HIT_ROWS; k++)
		res->ns[k] = 1e30;
	for (unsigned round = 0; round <= BENCH_ROUNDS; round++) {
		for (unsigned k = 0; k < HIT_ROWS; k++) {
			double spent = 0;

			for (uint64_t left = slice; left > 0;) {
				uint64_t n = left < res->chunk ? left : res->chunk;
				hit_fn *fn = hit_fns[k];
				struct hwbpi_tracer *t = &tr[k];
				double t0 = bench_now_ns();

				for (uint64_t i = 0; i < n; i++)
					fn(t, &ev[idx++ & (HIT_EVENTS - 1)]);
				spent += bench_now_ns() - t0;
				left -= n;
				if (k == HIT_RING)
					res->popped += drain(t->ring[0], buf, res->chunk);
			}
			/* Round 0 warms caches and the histogram's entries. */
			if (round > 0 && spent / (double)slice < res->ns[k])
				res->ns[k] = spent / (double)slice;
		}
	}
	res->hits = slice * BENCH_ROUNDS;
	for (unsigned b = 0; b < HIT_BPS; b++)
		res->overrun += tr[HIT_HIST].hist.overrun[b];
	hwbp_ring_stats(tr[HIT_RING].ring[0], &res->produced, &res->lost);
	bench_sink = tr[HIT_EMPTY].hits + tr[HIT_LOOKUP].hits;
out:
	if (tr) {
		hwbpi_tracer_fini(&tr[HIT_HIST]);
		hwbpi_tracer_fini(&tr[HIT_RING]);
	}
	free(tr);
	free(ev);
	free(buf);
	return ret;
}

/* ----------------------------------------------------------- lookups */

struct lookup_result {
	double hwbp_ps, dwfl_ps;     /* lookups per second */
	uint64_t n, dwfl_n;
	unsigned agree, compared;
	bool have_dwfl;
	const char *dwfl_note;
};

static void bench_lookups(const struct bench_trace_opts *o, const struct hwbp_symtab *tab,
			  const struct bench_text *ft, const char *elf_path, struct lookup_result *res)
{
	uint64_t *ip = malloc(LOOKUP_IPS * sizeof(*ip)), slice, dslice, j = 0, acc = 0;
	double best = 1e30, dbest = 1e30;

	memset(res, 0, sizeof(*res));
	res->dwfl_note = "not built with libdw (elfutils' libdw-dev)";
	if (!ip) {
		res->dwfl_note = "out of memory";
		return;
	}
	for (unsigned i = 0; i < LOOKUP_IPS; i++)
		ip[i] = ft->lo + bench_next() % (ft->hi - ft->lo);
	slice = (o->lookups + BENCH_ROUNDS - 1) / BENCH_ROUNDS;
	dslice = (o->dwfl_lookups + BENCH_ROUNDS - 1) / BENCH_ROUNDS;
#if HAVE_DWFL
	Dwfl *d = elf_path ? dwfl_open(elf_path) : NULL;

	if (!elf_path)
		res->dwfl_note = "no ELF file to give it";
	else if (!d)
		res->dwfl_note = "dwfl could not load the table";
	if (d) {
		/* The same answers, or the comparison means nothing. */
		res->compared = LOOKUP_IPS < AGREE_SAMPLE ? LOOKUP_IPS : AGREE_SAMPLE;
		for (unsigned i = 0; i < res->compared; i++) {
			const struct hwbp_sym *s = hwbp_symtab_func(tab, ip[i]);
			const char *n = dwfl_lookup(d, ip[i]);

			res->agree += s && n && strcmp(s->name, n) == 0;
		}
		res->have_dwfl = true;
	}
#else
	(void)elf_path;
#endif
	for (unsigned i = 0; i < LOOKUP_IPS; i++) /* warm */
		acc += (uintptr_t)hwbp_symtab_func(tab, ip[i]);
	for (unsigned round = 0; round < BENCH_ROUNDS; round++) {
		double t0 = bench_now_ns(), t;

		for (uint64_t i = 0; i < slice; i++)
			acc += (uintptr_t)hwbp_symtab_func(tab, ip[j++ & (LOOKUP_IPS - 1)]);
		t = bench_now_ns() - t0;
		if (t < best)
			best = t;
#if HAVE_DWFL
		if (d) {
			t0 = bench_now_ns();
			for (uint64_t i = 0; i < dslice; i++)
				acc += (uintptr_t)dwfl_lookup(d, ip[j++ & (LOOKUP_IPS - 1)]);
			t = bench_now_ns() - t0;
			if (t < dbest)
				dbest = t;
		}
#endif
	}
	bench_sink = acc;
	res->n = slice * BENCH_ROUNDS;
	res->dwfl_n = dslice * BENCH_ROUNDS;
	res->hwbp_ps = (double)slice / best * 1e9;
	if (res->have_dwfl)
		res->dwfl_ps = (double)dslice / dbest * 1e9;
#if HAVE_DWFL
	if (d)
		dwfl_end(d);
#endif
	(void)dbest;
	(void)dslice;
	free(ip);
}

/* ----------------------------------------------------- the command */

/*
 * The synthetic table as a symbol table: through an ELF file when built
 * with libelf, so that dwfl can be given the very same table.
 */
static int build_table(const struct bench_trace_opts *o, const struct bench_text *ft,
		       const char *elf_path, struct hwbp_symtab **out, bool *have_elf)
{
	struct hwbp_symtab *tab;
	int ret, err;

	*have_elf = false;
	tab = hwbp_symtab_new(&err);
	ret = tab ? 0 : err;
#ifdef HWBP_HAVE_LIBELF
	if (ret == 0)
		ret = bench_write_elf(elf_path, ft);
	if (ret == 0) {
		ret = hwbp_symtab_load_elf(tab, elf_path, 0);
		*have_elf = ret >= 0;
		if (ret >= 0 && (uint64_t)ret != o->symbols) {
			fprintf(stderr, "hwbp: bench: the ELF file gave %d symbols, not %" PRIu64 "\n",
				ret, o->symbols);
			ret = -EIO;
		}
	}
#else
	(void)elf_path;
	for (size_t i = 0; ret == 0 && i < ft->n; i++) {
		char name[32];

		bench_text_name(name, sizeof(name), i);
		ret = hwbp_symtab_add(tab, name, ft->addr[i], ft->size[i], 'T');
	}
#endif
	if (ret >= 0)
		ret = hwbp_symtab_finish(tab);
	if (ret < 0)
		fprintf(stderr, "hwbp: bench: building the %" PRIu64 "-symbol table: %s\n", o->symbols,
			cli_errno_name(ret));
	*out = tab;
	return ret;
}

static void print_report(const struct bench_text *ft, bool have_elf, const struct hit_result *hr,
			 const struct lookup_result *lr, const struct bench_lackey_result *kr)
{
	printf("hwbp bench trace: one core; every row in %d interleaved slices (lackey: %d),\n"
	       "fastest slice kept\n\n", BENCH_ROUNDS, BENCH_LACKEY_ROUNDS);
	printf("hit path: %" PRIu64 " hits per row, an indirect call per hit; IPs: 4 access\n"
	       "sites in each of %u functions of the %zu-symbol table, in random order (the\n"
	       "branch predictors' worst case), R and W, %u breakpoints, 16 entries each;\n"
	       "the ring (%zu events) drained between chunks of its capacity\n",
	       hr->hits, BENCH_HIT_FUNCS, ft->n, HIT_BPS, hr->chunk);
	printf("%-24s %10s %10s %10s\n", "row", "ns/hit", "x empty", "target");
	printf("%-24s %10.3f %10.2f %10s\n", "empty callback", hr->ns[HIT_EMPTY], 1.0, "-");
	printf("%-24s %10.3f %10.2f %10s\n", "histogram", hr->ns[HIT_HIST],
	       hr->ns[HIT_HIST] / hr->ns[HIT_EMPTY], "<= 10");
	printf("%-24s %10.3f %10.2f %10s\n", "  its lookup alone", hr->ns[HIT_LOOKUP],
	       hr->ns[HIT_LOOKUP] / hr->ns[HIT_EMPTY], "-");
	printf("%-24s %10.3f %10.2f %10s\n", "trace (ring)", hr->ns[HIT_RING],
	       hr->ns[HIT_RING] / hr->ns[HIT_EMPTY], "<= 20");
	printf("histogram overrun %" PRIu64 "; ring produced %" PRIu64 ", consumed %" PRIu64
	       ", lost %" PRIu64 "\n\n", hr->overrun, hr->produced, hr->popped, hr->lost);

	printf("IP -> function on a %zu-symbol table (%s),\n"
	       "random IPs in its range, warm\n", ft->n,
	       have_elf ? "both from the same ELF file" : "built in memory");
	printf("%-24s %10s %14s %12s %10s\n", "row", "lookups", "lookups/s", "ns/lookup", "target");
	printf("%-24s %10" PRIu64 " %14.0f %12.1f %10s\n", "hwbp_symtab_func", lr->n, lr->hwbp_ps,
	       1e9 / lr->hwbp_ps, ">= 30 M/s");
	if (lr->have_dwfl) {
		printf("%-24s %10" PRIu64 " %14.0f %12.1f %10s\n", "dwfl_module_addrsym", lr->dwfl_n,
		       lr->dwfl_ps, 1e9 / lr->dwfl_ps, "-");
		printf("hwbp / dwfl: %.0f x; the same function for %u of %u sampled IPs\n\n",
		       lr->hwbp_ps / lr->dwfl_ps, lr->agree, lr->compared);
	} else {
		printf("%-24s %10s %14s %12s %10s\n", "dwfl_module_addrsym", "-", "skipped", "-", "-");
		printf("dwfl skipped: %s\n\n", lr->dwfl_note);
	}

	printf("lackey replay: %.1f MB (10^6 bytes) of synthetic trace, 2 watches (8 bytes, rw),\n"
	       "%s simulator, histogram mode\n", (double)kr->bytes / 1e6, BENCH_LACKEY_CPU);
	printf("%-28s %12s %10s\n", "row", "MB/s", "x read");
	printf("%-28s %12.1f %10.2f\n", "read lines (fgets)", kr->mbps[0], 1.0);
	printf("%-28s %12.1f %10.2f\n", "parse (hwbpi_lackey_next)", kr->mbps[1], kr->mbps[1] / kr->mbps[0]);
	printf("%-28s %12.1f %10.2f\n", "replay (hwbpi_trace_sim)", kr->mbps[2], kr->mbps[2] / kr->mbps[0]);
	printf("hits %" PRIu64 " (expected %" PRIu64 "), bad lines %" PRIu64 "\n\n", kr->hits,
	       kr->expected, kr->bad);

	for (unsigned k = 0; k < HIT_ROWS; k++)
		printf("bench %s %.3f ns/hit\n", hit_names[k], hr->ns[k]);
	printf("bench trace_hit_hist_ratio %.3f x_empty\n", hr->ns[HIT_HIST] / hr->ns[HIT_EMPTY]);
	printf("bench trace_hit_ring_ratio %.3f x_empty\n", hr->ns[HIT_RING] / hr->ns[HIT_EMPTY]);
	printf("bench trace_lookup_hwbp %.0f lookups/s\n", lr->hwbp_ps);
	if (lr->have_dwfl) {
		printf("bench trace_lookup_dwfl %.0f lookups/s\n", lr->dwfl_ps);
		printf("bench trace_lookup_ratio %.1f x_dwfl\n", lr->hwbp_ps / lr->dwfl_ps);
	}
	printf("bench trace_lackey_read %.1f MB/s\n", kr->mbps[0]);
	printf("bench trace_lackey_parse %.1f MB/s\n", kr->mbps[1]);
	printf("bench trace_lackey_replay %.1f MB/s\n", kr->mbps[2]);
	printf("bench trace_lackey_replay_ratio %.3f x_read\n", kr->mbps[2] / kr->mbps[0]);
}

int bench_trace(const struct bench_trace_opts *o)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512], elf_path[600], lackey_path[600];
	struct bench_text ft;
	struct hwbp_symtab *tab = NULL;
	struct hit_result hr;
	struct lookup_result lr;
	struct bench_lackey_result kr;
	bool have_elf = false;
	uint64_t expected;
	int ret;

	snprintf(dir, sizeof(dir), "%s/hwbp-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "hwbp: bench: cannot make a temp dir in %s: %s (%s)\n",
			tmp && *tmp ? tmp : "/tmp", cli_errno_name(errno), strerror(errno));
		return 1;
	}
	snprintf(elf_path, sizeof(elf_path), "%s/table.elf", dir);
	snprintf(lackey_path, sizeof(lackey_path), "%s/trace.lackey", dir);
	if (bench_text_new(&ft, (size_t)o->symbols)) {
		fprintf(stderr, "hwbp: bench: out of memory\n");
		rmdir(dir);
		return 1;
	}
	ret = build_table(o, &ft, elf_path, &tab, &have_elf);
	if (ret < 0)
		goto out;
	ret = bench_hits(o, tab, &ft, &hr);
	if (ret) {
		fprintf(stderr, "hwbp: bench: hit path setup: %s\n", cli_errno_name(ret));
		goto out;
	}
	bench_lookups(o, tab, &ft, have_elf ? elf_path : NULL, &lr);
	expected = bench_write_lackey(lackey_path, o->lackey_mb * 1000000, &ft);
	if (expected == 0) {
		fprintf(stderr, "hwbp: bench: cannot write %s\n", lackey_path);
		ret = -EIO;
		goto out;
	}
	ret = bench_lackey_replay(lackey_path, expected, tab, &kr);
	if (ret)
		goto out;

	print_report(&ft, have_elf, &hr, &lr, &kr);
	/* Figures from a wrong run are worse than none. */
	if (hr.lost || hr.produced != hr.popped || kr.hits != kr.expected ||
	    (lr.have_dwfl && lr.agree != lr.compared)) {
		fprintf(stderr, "hwbp: bench: inconsistent results (see above)\n");
		ret = -EPROTO;
	}
out:
	hwbp_symtab_free(tab);
	bench_text_free(&ft);
	unlink(elf_path);
	unlink(lackey_path);
	rmdir(dir);
	return ret ? 1 : 0;
}
