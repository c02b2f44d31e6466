/* SPDX-License-Identifier: MIT */
/*
 * hwbp bench trace: the tracer's hit path (histogram, ring: a prepared
 * session's hwbp_trace_session_hit; a histogram keyed by call stacks,
 * hwbp_trace_session_hit_frames) next to an empty hit callback, IP ->
 * function lookups next to elfutils' dwfl_module_addrsym on the same
 * table, and the lackey replay (bench_lackey.c).  The table is
 * bench_elf.c's, as an ELF file that the bench's own table, dwfl and the
 * sessions all load.  Only the public API of include/hwbp/.
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

#define HIT_EVENTS 4096u        /* the replayed hit events (a power of two) */
#define HIT_BPS 4u              /* breakpoints they are spread over */
#define LOOKUP_IPS (1u << 16)   /* random IPs, replayed (a power of two) */
#define STACK_DEPTH 8u          /* callers per hit of the stack rows (--stack=8) */
#define STACK_PATHS 2u          /* call paths per function */
#define STACK_ENTRIES 32u       /* BENCH_HIT_FUNCS x STACK_PATHS x 2 kinds: no overrun */
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

typedef void hit_fn(struct hwbp_trace_session *s, const struct hwbp_trace_event *ev);

/* The baseline rows are no session: their callbacks take the arguments
 * of hwbp_trace_session_hit() (and ignore the session), their state is
 * here, so that every row costs the same indirect call. */
static const struct hwbp_symtab *hit_tab;
static uint64_t hit_acc;

/* The baseline: what any hit callback costs, doing nothing but touching
 * the event. */
static void empty_hit(struct hwbp_trace_session *s, const struct hwbp_trace_event *ev)
{
	(void)s;
	hit_acc += ev->ip ^ ev->bp;
}

/* A breakdown of the histogram row: its IP -> function lookup alone. */
static void lookup_hit(struct hwbp_trace_session *s, const struct hwbp_trace_event *ev)
{
	(void)s;
	hit_acc += (uintptr_t)hwbp_symtab_func(hit_tab, ev->ip);
}

/*
 * Rows: the empty callback, the lookup alone, the histogram (lookup and
 * hwbp_hist_add, through hwbp_trace_session_hit on a session in histogram
 * mode) and the ring (the same function, a session in trace mode).  Read
 * through a volatile pointer so that the compiler cannot inline the
 * callbacks: a backend reaches the tracer through a pointer too.
 */
enum { HIT_EMPTY, HIT_LOOKUP, HIT_HIST, HIT_RING, HIT_ROWS };
static hit_fn *volatile hit_fns[HIT_ROWS] = { empty_hit, lookup_hit, hwbp_trace_session_hit,
					      hwbp_trace_session_hit };
static const char *const hit_names[HIT_ROWS] = { "trace_hit_empty", "trace_hit_lookup",
						 "trace_hit_hist", "trace_hit_ring" };
/* HIT_BPS watches: only their count matters to the hit path (the events
 * name their breakpoint), not what they watch. */
static const char *const hit_watches[HIT_BPS] = { "0x40000000/8:rw-", "0x40000040/8:rw-",
						  "0x40000080/8:rw-", "0x400000c0/8:rw-" };

static size_t drain(struct hwbp_ring *r, struct hwbp_trace_event *buf, size_t cap)
{
	size_t got, all = 0;

	while ((got = hwbp_ring_pop(r, buf, cap)) > 0)
		all += got;
	return all;
}

/*
 * The stack rows: two sessions of the `sim` backend (--demo), the backend
 * that takes --stack, fed the same events: one plain, one with --stack=8,
 * each event with the STACK_DEPTH callers of one of its function's
 * STACK_PATHS call paths.  Its demo symbols do not hold the events' IPs
 * (the big table is the lackey sessions'), so both rows name no function:
 * the hit path's work is the same all the same (each IP's lookup is made
 * once, then cached), and the ratio of the two is what keying by stack
 * costs.  A stack hit also passes its callers, so it has its own call.
 */
enum { STACK_PLAIN, STACK_KEYED, STACK_ROWS };
typedef void frames_fn(struct hwbp_trace_session *s, struct hwbp_trace_event *ev,
		       const uint64_t *callers, unsigned n);
static hit_fn *volatile plain_fn = hwbp_trace_session_hit;
static frames_fn *volatile frames_hit = hwbp_trace_session_hit_frames;

struct hit_result {
	double ns[HIT_ROWS];
	double stack_ns[STACK_ROWS];
	uint64_t hits, overrun, produced, popped, lost;
	uint64_t stack_overrun, stack_hits;
	size_t chunk;
};

/* The replayed events: BENCH_HIT_FUNCS functions spread over the big
 * table, 4 access sites each, R and W, HIT_BPS breakpoints. */
static void make_hit_events(const struct bench_text *ft, struct hwbp_trace_event *ev)
{
	uint64_t func[BENCH_HIT_FUNCS];

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
}

/* Each event's callers: the STACK_DEPTH return addresses of one of its
 * function's STACK_PATHS paths, chosen at random; a caller is a return
 * address inside a random function of the table (after the events, so
 * that those are the other rows' own). */
static void make_callers(const struct bench_text *ft, const struct hwbp_trace_event *ev,
			 uint64_t (*callers)[STACK_DEPTH])
{
	uint64_t paths[BENCH_HIT_FUNCS][STACK_PATHS][STACK_DEPTH];

	for (unsigned f = 0; f < BENCH_HIT_FUNCS; f++)
		for (unsigned p = 0; p < STACK_PATHS; p++)
			for (unsigned k = 0; k < STACK_DEPTH; k++) {
				size_t s = bench_next() % ft->n;

				paths[f][p][k] = ft->addr[s] + 1 + bench_next() % ft->size[s];
			}
	for (unsigned i = 0; i < HIT_EVENTS; i++) {
		unsigned f = 0;

		/* the function of make_hit_events' choice: its rank among
		 * the BENCH_HIT_FUNCS, from where the IP lies */
		for (unsigned g = 0; g < BENCH_HIT_FUNCS; g++) {
			size_t s = (ft->n / BENCH_HIT_FUNCS) * g + ft->n / (2 * BENCH_HIT_FUNCS);

			if (ev[i].ip >= ft->addr[s] && ev[i].ip < ft->addr[s] + ft->size[s])
				f = g;
		}
		memcpy(callers[i], paths[f][bench_next() % STACK_PATHS], sizeof(callers[i]));
	}
}

/* The stack rows' slices of one round (see time_hits). */
static void time_stack_round(uint64_t slice, bool keep, struct hwbp_trace_session *const *ss,
			     struct hwbp_trace_event *ev, const uint64_t (*callers)[STACK_DEPTH],
			     uint64_t *idx, struct hit_result *res)
{
	for (unsigned k = 0; k < STACK_ROWS; k++) {
		struct hwbp_trace_session *s = ss[k];
		double t0 = bench_now_ns(), spent;

		if (k == STACK_PLAIN) {
			hit_fn *fn = plain_fn;

			for (uint64_t i = 0; i < slice; i++)
				fn(s, &ev[(*idx)++ & (HIT_EVENTS - 1)]);
		} else {
			frames_fn *fn = frames_hit;

			for (uint64_t i = 0; i < slice; i++, (*idx)++)
				fn(s, &ev[*idx & (HIT_EVENTS - 1)], callers[*idx & (HIT_EVENTS - 1)],
				   STACK_DEPTH);
		}
		spent = bench_now_ns() - t0;
		if (keep && spent / (double)slice < res->stack_ns[k])
			res->stack_ns[k] = spent / (double)slice;
	}
}

/* Every row in BENCH_ROUNDS interleaved slices (and a warm-up round),
 * the fastest kept; the ring drained between chunks of its capacity, as a
 * consumer keeping up would: every push finds room and nothing is lost. */
static void time_hits(const struct bench_trace_opts *o, struct hwbp_trace_session *const *sess,
		      struct hwbp_trace_session *const *ss, struct hwbp_trace_event *ev,
		      const uint64_t (*callers)[STACK_DEPTH], struct hwbp_trace_event *buf,
		      struct hit_result *res)
{
	uint64_t sidx = 0;

	struct hwbp_ring *ring = hwbp_trace_session_ring(sess[HIT_RING], 0);
	uint64_t slice = (o->hits + BENCH_ROUNDS - 1) / BENCH_ROUNDS, idx = 0;

	for (unsigned k = 0; k < HIT_ROWS; k++)
		res->ns[k] = 1e30;
	for (unsigned k = 0; k < STACK_ROWS; k++)
		res->stack_ns[k] = 1e30;
	for (unsigned round = 0; round <= BENCH_ROUNDS; round++) {
		time_stack_round(slice, round > 0, ss, ev, callers, &sidx, res);
		for (unsigned k = 0; k < HIT_ROWS; k++) {
			double spent = 0;

			for (uint64_t left = slice; left > 0;) {
				uint64_t n = left < res->chunk ? left : res->chunk;
				hit_fn *fn = hit_fns[k];
				struct hwbp_trace_session *s = sess[k];
				double t0 = bench_now_ns();

				for (uint64_t i = 0; i < n; i++)
					fn(s, &ev[idx++ & (HIT_EVENTS - 1)]);
				spent += bench_now_ns() - t0;
				left -= n;
				if (k == HIT_RING)
					res->popped += drain(ring, buf, res->chunk);
			}
			/* Round 0 warms caches and the histogram's entries. */
			if (round > 0 && spent / (double)slice < res->ns[k])
				res->ns[k] = spent / (double)slice;
		}
	}
	res->hits = slice * BENCH_ROUNDS;
}

/* A prepared session of the `sim` backend (--demo) watching hit_watches,
 * histogram mode with STACK_ENTRIES entries, with --stack=8 or not; NULL
 * (the reason printed) on error. */
static struct hwbp_trace_session *demo_session(bool stack)
{
	const struct hwbp_trace_mode mode = { false, STACK_ENTRIES, 0, false };
	const struct hwbp_trace_output none = { NULL, NULL, NULL, NULL, NULL };
	struct hwbp_trace_session *s = hwbp_trace_session_new(hwbp_trace_backend_find("sim"), NULL);
	int ret = s ? hwbp_trace_session_option(s, "demo", NULL) : -ENOMEM;

	if (ret == 0 && stack)
		ret = hwbp_trace_session_option(s, "stack", "8");
	for (unsigned i = 0; ret == 0 && i < HIT_BPS; i++)
		ret = hwbp_trace_session_entry(s, hit_watches[i], "bench");
	if (ret == 0)
		ret = hwbp_trace_session_mode(s, &mode);
	if (ret == 0)
		ret = hwbp_trace_session_output(s, &none);
	if (ret == 0)
		ret = hwbp_trace_session_prepare(s);
	if (ret) {
		fprintf(stderr, "hwbp: bench: sim session: %s%s%s\n", hwbp_errno_name(ret),
			s ? ": " : "", s ? hwbp_trace_session_message(s, NULL) : "");
		hwbp_trace_session_free(s);
		return NULL;
	}
	return s;
}

static int bench_hits(const struct bench_trace_opts *o, const struct hwbp_symtab *tab,
		      const struct bench_text *ft, const char *lackey_path, const char *elf_path,
		      struct hit_result *res)
{
	struct hwbp_trace_event *ev = malloc(HIT_EVENTS * sizeof(*ev)), *buf = NULL;
	uint64_t (*callers)[STACK_DEPTH] = malloc(HIT_EVENTS * sizeof(*callers));
	struct hwbp_trace_session *sess[HIT_ROWS] = { NULL }, *ss[STACK_ROWS] = { NULL };
	const struct hwbp_trace_mode hist_mode = { false, 16, 0, false };
	const struct hwbp_trace_mode ring_mode = { true, 0, (size_t)o->buffer_kb * 1024, false };
	/* Trace mode needs an output; these sessions never run, so it stays
	 * empty (tmpfile: removed when closed). */
	FILE *text = tmpfile();
	const struct hwbp_trace_output none = { NULL, NULL, NULL, NULL, NULL };
	const struct hwbp_trace_output to_text = { NULL, text, NULL, NULL, NULL };
	const struct hwbp_hist *h;
	struct hwbp_ring *ring;
	int ret = -ENOMEM;

	memset(res, 0, sizeof(*res));
	if (!ev || !text || !callers)
		goto out;
	make_hit_events(ft, ev);
	make_callers(ft, ev, callers);
	hit_tab = tab;
	ret = -EIO;
	sess[HIT_HIST] = bench_session(lackey_path, elf_path, &hist_mode, &none, hit_watches, HIT_BPS);
	sess[HIT_RING] = bench_session(lackey_path, elf_path, &ring_mode, &to_text, hit_watches,
				       HIT_BPS);
	ss[STACK_PLAIN] = demo_session(false);
	ss[STACK_KEYED] = demo_session(true);
	h = hwbp_trace_session_hist(sess[HIT_HIST]);
	ring = hwbp_trace_session_ring(sess[HIT_RING], 0);
	if (!h || !ring || !ss[STACK_PLAIN] || !ss[STACK_KEYED])
		goto out;
	res->chunk = hwbp_ring_capacity(ring);
	buf = malloc(res->chunk * sizeof(*buf));
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	time_hits(o, sess, ss, ev, (const uint64_t (*)[STACK_DEPTH])callers, buf, res);
	for (unsigned b = 0; b < h->nbp; b++)
		res->overrun += h->overrun[b];
	h = hwbp_trace_session_hist(ss[STACK_KEYED]);
	for (unsigned b = 0; b < h->nbp; b++) {
		res->stack_overrun += h->overrun[b];
		res->stack_hits += h->hits[b];
	}
	hwbp_ring_stats(ring, &res->produced, &res->lost);
	bench_sink = hit_acc;
	ret = 0;
out:
	hwbp_trace_session_free(sess[HIT_HIST]);
	hwbp_trace_session_free(sess[HIT_RING]);
	hwbp_trace_session_free(ss[STACK_PLAIN]);
	hwbp_trace_session_free(ss[STACK_KEYED]);
	if (text)
		fclose(text);
	free(ev);
	free(callers);
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
 * The synthetic table as an ELF file, loaded into the bench's own symbol
 * table (the lookup rows): dwfl and the sessions of the `lackey` backend,
 * which take their symbols from a program's ELF file, load the very same
 * file.  Without libelf there is no such file, and no such session.
 */
static int build_table(const struct bench_trace_opts *o, const struct bench_text *ft,
		       const char *elf_path, struct hwbp_symtab **out)
{
	struct hwbp_symtab *tab;
	int ret, err;

	tab = hwbp_symtab_new(&err);
	ret = tab ? 0 : err;
	if (ret == 0)
		ret = bench_write_elf(elf_path, ft);
	if (ret == -EOPNOTSUPP) {
		fprintf(stderr, "hwbp: bench: trace needs hwbp built with libelf (its sessions read "
			"the table from an ELF file)\n");
		*out = tab;
		return ret;
	}
	if (ret == 0) {
		ret = hwbp_symtab_load_elf(tab, elf_path, 0);
		if (ret >= 0 && (uint64_t)ret != o->symbols) {
			fprintf(stderr, "hwbp: bench: the ELF file gave %d symbols, not %" PRIu64 "\n",
				ret, o->symbols);
			ret = -EIO;
		}
	}
	if (ret >= 0)
		ret = hwbp_symtab_finish(tab);
	if (ret < 0)
		fprintf(stderr, "hwbp: bench: building the %" PRIu64 "-symbol table: %s\n", o->symbols,
			hwbp_errno_name(ret));
	*out = tab;
	return ret;
}

/* The decode rows (bench_decode.c), against the histogram hit. */
static void print_decode(const struct hit_result *hr, const struct bench_decode_result *dr)
{
	printf("hit decoding (hwbp_decoder_access, %s: the instruction that ended at the trap's\n"
	       "IP, from its function's start, %u instructions; what ptrace and perf add per\n"
	       "hit):\n", dr->ok ? dr->arch : "-", dr->insns);
	printf("%-28s %10s %10s\n", "row", "ns/hit", "x hist");
	if (!dr->ok) {
		printf("%-28s %10s %10s\n", "decode", "skipped", "-");
		printf("decode skipped: %s\n\n", dr->why);
		return;
	}
	printf("%-28s %10.1f %10.1f\n", "decode, first at its PC", dr->cold_ns,
	       dr->cold_ns / hr->ns[HIT_HIST]);
	printf("%-28s %10.1f %10.1f\n", "decode, a PC seen before", dr->warm_ns,
	       dr->warm_ns / hr->ns[HIT_HIST]);
	printf("\n");
}

static void print_report(const struct bench_text *ft, const struct hit_result *hr,
			 const struct lookup_result *lr, const struct bench_lackey_result *kr,
			 const struct bench_decode_result *dr)
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

	printf("call stacks: the same hits on two sessions of the sim backend (the one that\n"
	       "takes --stack; its demo symbols do not hold these IPs, so neither row names\n"
	       "a function), %u entries each; --stack=%u: %u callers per hit, %u call paths\n"
	       "per function\n", STACK_ENTRIES, STACK_DEPTH, STACK_DEPTH, STACK_PATHS);
	printf("%-24s %10s %10s %10s\n", "row", "ns/hit", "x plain", "target");
	printf("%-24s %10.3f %10.2f %10s\n", "histogram (sim)", hr->stack_ns[STACK_PLAIN], 1.0, "-");
	printf("%-24s %10.3f %10.2f %10s\n", "histogram, --stack=8", hr->stack_ns[STACK_KEYED],
	       hr->stack_ns[STACK_KEYED] / hr->stack_ns[STACK_PLAIN], "<= 2");
	printf("stack-keyed overrun %" PRIu64 " of %" PRIu64 " hits\n\n", hr->stack_overrun,
	       hr->stack_hits);

	printf("IP -> function on a %zu-symbol table (both from the same ELF file),\n"
	       "random IPs in its range, warm\n", ft->n);
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

	print_decode(hr, dr);
	printf("lackey replay: %.1f MB (10^6 bytes) of synthetic trace, 2 watches (8 bytes, rw),\n"
	       "%s simulator, histogram mode, a session of the lackey backend\n",
	       (double)kr->bytes / 1e6, BENCH_LACKEY_CPU);
	printf("%-28s %12s %10s\n", "row", "MB/s", "x read");
	printf("%-28s %12.1f %10.2f\n", "read lines (fgets)", kr->mbps[0], 1.0);
	printf("%-28s %12.1f %10.2f\n", "parse (lackey_scan)", kr->mbps[1], kr->mbps[1] / kr->mbps[0]);
	printf("%-28s %12.1f %10.2f\n", "replay (session_run)", kr->mbps[2], kr->mbps[2] / kr->mbps[0]);
	printf("hits %" PRIu64 " (expected %" PRIu64 "), bad lines %" PRIu64 "\n\n", kr->hits,
	       kr->expected, kr->bad);

	for (unsigned k = 0; k < HIT_ROWS; k++)
		printf("bench %s %.3f ns/hit\n", hit_names[k], hr->ns[k]);
	printf("bench trace_hit_hist_ratio %.3f x_empty\n", hr->ns[HIT_HIST] / hr->ns[HIT_EMPTY]);
	printf("bench trace_hit_ring_ratio %.3f x_empty\n", hr->ns[HIT_RING] / hr->ns[HIT_EMPTY]);
	printf("bench trace_hit_hist_sim %.3f ns/hit\n", hr->stack_ns[STACK_PLAIN]);
	printf("bench trace_hit_stack %.3f ns/hit\n", hr->stack_ns[STACK_KEYED]);
	printf("bench trace_hit_stack_ratio %.3f x_plain\n",
	       hr->stack_ns[STACK_KEYED] / hr->stack_ns[STACK_PLAIN]);
	printf("bench trace_lookup_hwbp %.0f lookups/s\n", lr->hwbp_ps);
	if (lr->have_dwfl) {
		printf("bench trace_lookup_dwfl %.0f lookups/s\n", lr->dwfl_ps);
		printf("bench trace_lookup_ratio %.1f x_dwfl\n", lr->hwbp_ps / lr->dwfl_ps);
	}
	printf("bench trace_lackey_read %.1f MB/s\n", kr->mbps[0]);
	printf("bench trace_lackey_parse %.1f MB/s\n", kr->mbps[1]);
	printf("bench trace_lackey_replay %.1f MB/s\n", kr->mbps[2]);
	printf("bench trace_lackey_replay_ratio %.3f x_read\n", kr->mbps[2] / kr->mbps[0]);
	if (dr->ok) {
		printf("bench trace_decode_cold %.1f ns/hit\n", dr->cold_ns);
		printf("bench trace_decode_warm %.1f ns/hit\n", dr->warm_ns);
	}
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
	struct bench_decode_result dr;
	uint64_t expected;
	int ret;

	snprintf(dir, sizeof(dir), "%s/hwbp-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "hwbp: bench: cannot make a temp dir in %s: %s (%s)\n",
			tmp && *tmp ? tmp : "/tmp", hwbp_errno_name(errno), strerror(errno));
		return 1;
	}
	snprintf(elf_path, sizeof(elf_path), "%s/table.elf", dir);
	snprintf(lackey_path, sizeof(lackey_path), "%s/trace.lackey", dir);
	if (bench_text_new(&ft, (size_t)o->symbols)) {
		fprintf(stderr, "hwbp: bench: out of memory\n");
		rmdir(dir);
		return 1;
	}
	ret = build_table(o, &ft, elf_path, &tab);
	if (ret < 0)
		goto out;
	/* Before the hit rows: their sessions are the lackey backend's, which
	 * opens its trace (and replays it only when run). */
	expected = bench_write_lackey(lackey_path, o->lackey_mb * 1000000, &ft);
	if (expected == 0) {
		fprintf(stderr, "hwbp: bench: cannot write %s\n", lackey_path);
		ret = -EIO;
		goto out;
	}
	ret = bench_hits(o, tab, &ft, lackey_path, elf_path, &hr);
	if (ret) {
		fprintf(stderr, "hwbp: bench: hit path setup: %s\n", hwbp_errno_name(ret));
		goto out;
	}
	bench_lookups(o, tab, &ft, elf_path, &lr);
	ret = bench_lackey_replay(lackey_path, elf_path, expected, &kr);
	if (ret)
		goto out;
	/* No decoder here (no Capstone) is a skipped row, not a failure; a
	 * decode that fails is. */
	if (bench_decode(BENCH_ROUNDS * 100, &dr) == -EIO) {
		fprintf(stderr, "hwbp: bench: decode: %s\n", dr.why);
		ret = -EIO;
		goto out;
	}

	print_report(&ft, &hr, &lr, &kr, &dr);
	/* Figures from a wrong run are worse than none. */
	if (hr.lost || hr.produced != hr.popped || kr.hits != kr.expected || hr.stack_overrun ||
	    (lr.have_dwfl && lr.agree != lr.compared)) {
		fprintf(stderr, "hwbp: bench: inconsistent results (see above)\n");
		ret = -EPROTO;
	}
out:
	hwbp_symtab_free(tab);
	bench_text_free(&ft);
	/* The temp dir's two files, then the dir: nothing else is in it. */
	unlink(elf_path);
	unlink(lackey_path);
	rmdir(dir);
	return ret ? 1 : 0;
}
