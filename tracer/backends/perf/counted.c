/* SPDX-License-Identifier: MIT */
/*
 * A run of the perf and bpf backends (hwbpi_perf_counted), in the kernel
 * scope (--kernel, opened by backends/linux/kernel.c) or on a process, and
 * the in-kernel histogram of the bpf backend in both scopes:
 *
 *   symbols   the running kernel's, loaded by the kernel scope's open
 *             (symbols/ksyms.h: /proc/kallsyms with modules, or --vmlinux /
 *             a System.map moved by the KASLR offset), each watch checked
 *             here (.init, per-CPU offsets, user addresses);
 *   events    one PERF_TYPE_BREAKPOINT event per planned piece on every
 *             CPU of --cpus, pid -1, kernel only (backends/perf/perf.h
 *             hwbpi_perf_kernel()), so that split, enlarged or widened
 *             pieces are filtered exactly as in the other backends;
 *   counting  histogram mode with the bpf backend: a BPF program on each
 *             event counts (watch, kind, function) in a preallocated map
 *             (backends/perf/bpf.h), read once at the end: no per-hit transport;
 *             where the kernel refuses BPF, perf sampling instead, said;
 *   checking  every event's own count (read(2): every hit, counted before
 *             any overflow handler, perf_swevent_event()) against the
 *             histogram, so that "nothing lost" is a measurement.
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/perf/perf_int.h"



unsigned hwbpi_perf_ring_pages(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 1;

	/* The kernel's ring per CPU for --buffer-kb: data pages, a power of
	 * two (perf_mmap() refuses any other count), the most that fit; 0:
	 * the backend's default. */
	if (bytes == 0)
		return 0;
	while (n * 2 * page <= bytes)
		n *= 2;
	return (unsigned)n;
}

/* ------------------------------------------------------------ lengths */

/* The largest aligned piece this kernel programs in one slot: the model's
 * longest, halved until the arch's Linux rules take it (arm64: one
 * doubleword without MASK). */
static uint64_t piece_max(const struct hwbp_cpu *cpu)
{
	struct hwbp_caps caps;
	uint64_t len;

	if (hwbp_caps_get(cpu, &caps))
		return 8;
	len = caps.max_piece;
	while (len > 4096)
		len /= 2;
	for (; len > 1; len /= 2) {
		struct hwbp_piece p = { .addr = 0, .len = len, .cover_lo = 0, .cover_len = len,
					.type = HWBP_RW };
		char why[8];

		if (hwbpi_linux_piece_ok(cpu, false, &p, why, sizeof(why)) == 0)
			break;
	}
	return len ? len : 1;
}

/*
 * The note on a watch whose length is the symbol's inferred size (up to
 * @next, the next symbol at a higher address, if there is one): the
 * length, and when one piece of @cap is less, what the next symbol would
 * have left.  One format for both: the number of bytes first is always
 * the length the watch gets.
 */
static void note_len(struct hwbpi_view *s, const struct hwbpi_watch *w,
		     const struct hwbp_sym *next, uint64_t cap)
{
	char capped[96] = "";

	if (w->len > cap)
		snprintf(capped, sizeof(capped), "%s would be %" PRIu64 ": capped at one piece of %"
			 PRIu64, next ? "," : "", w->len, cap);
	hwbpi_note(s, "%s: %" PRIu64 " bytes (up to the next symbol%s%s%s; /LEN chooses)", w->name,
		   w->len > cap ? cap : w->len, next ? ", " : "", next ? next->name : "", capped);
}

/* Each watch's checks (.init, per-CPU offsets, user addresses) and, for a
 * symbol whose length the source did not give, the length: up to the
 * next symbol, at most one piece; said in a note. */
static int check_watches(struct hwbpi_view *s, const struct hwbpi_kernel *k)
{
	uint64_t cap = piece_max(&s->cpu);
	char err[320];

	for (unsigned i = 0; i < s->t.nw; i++) {
		struct hwbpi_watch *w = &s->t.w[i];
		const struct hwbp_sym *sym = w->sym;
		int ret;

		err[0] = '\0';
		ret = hwbpi_ksyms_check(&k->ks, s->syms, sym ? sym->name : NULL, w->addr, w->len,
					err, sizeof(err));
		if (ret)
			return hwbpi_fail(s, ret, true, "%s", err[0] ? err : hwbp_errno_name(ret));
		if (!sym || w->len_given || w->entry || !hwbpi_symtab_size_inferred(s->syms, sym))
			continue;
		note_len(s, w, hwbpi_symtab_next(s->syms, sym), cap);
		if (w->len > cap)
			w->len = cap;
	}
	return 0;
}

/* ------------------------------------------------------- BPF counting */

struct bpf_ent {
	unsigned watch, tag;
	uint32_t func;
	uint64_t ip;      /* HWBPI_BPF_UNKNOWN: where the hit was */
	uint64_t count;
};

struct bpf_read {
	struct bpf_ent *e;
	size_t n, cap;
	bool nomem;
};

static void collect(void *arg, unsigned watch, unsigned tag, uint32_t func, uint64_t ip,
		    uint64_t count)
{
	struct bpf_read *r = arg;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct bpf_ent *e = realloc(r->e, cap * sizeof(*e));

		if (!e) {
			r->nomem = true;
			return;
		}
		r->e = e;
		r->cap = cap;
	}
	r->e[r->n++] = (struct bpf_ent){ watch, tag, func, ip, count };
}

/* Most hits first, then by function and tag: where the map kept more
 * keys than the histogram's n (a -w- watch beside twin-split ones), the
 * histogram's entries are the busiest, whatever the map's order. */
static int ent_cmp(const void *pa, const void *pb)
{
	const struct bpf_ent *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	if (a->ip != b->ip)
		return a->ip < b->ip ? -1 : 1;
	if (a->watch != b->watch)
		return a->watch < b->watch ? -1 : 1;
	return (a->tag > b->tag) - (a->tag < b->tag);
}

/* Whether (@watch, @tag, @func, @ip) is among @r's entries; its count in *@n. */
static bool find_count(const struct bpf_read *r, unsigned watch, unsigned tag, uint32_t func,
		       uint64_t ip, uint64_t *n)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].watch == watch && r->e[i].tag == tag && r->e[i].func == func &&
		    r->e[i].ip == ip) {
			*n = r->e[i].count;
			return true;
		}
	*n = 0;
	return false;
}

/*
 * One map entry into the histogram: its kind from its event's tag, or for
 * a twin split, loads = RW - W of the same function.  A function whose W
 * twin found no map entry (the watch overran in the kernel) cannot be
 * split: its RW count stays of unknown kind.  The session's histogram
 * applies its n entries and counts its own overrun, in hits.
 */
static void add_entry(struct hwbpi_view *s, const struct bpf_read *r, const struct bpf_ent *e,
		      const uint64_t *starts, size_t nstart, const struct hwbpi_perf_result *res,
		      const uint64_t *overrun)
{
	const struct hwbpi_watch *w = &s->t.w[e->watch];
	/* A hit in no known function is keyed by its IP, as the sampling
	 * backends key it (hwbpi_tracer_hit): shown as where it is, not "?". */
	uint64_t func = e->func < nstart ? starts[e->func] : e->ip, n = e->count;
	unsigned kind = e->tag;

	if (res->split_how[e->watch] == HWBPI_SPLIT_TWIN) {
		if (e->tag == 0) {
			uint64_t wr;
			bool have = find_count(r, e->watch, HWBP_W, e->func, e->ip, &wr);

			n = n > wr ? n - wr : 0;
			kind = have || !overrun[e->watch] ? HWBP_R : 0;
		}
	} else if (!kind && (w->type == HWBP_W || w->type == HWBP_X)) {
		kind = w->type;
	}
	if (!n)
		return;
	if (kind && kind != HWBP_X && !(kind & w->type)) {
		s->t.filtered += n;
		return;
	}
	hwbpi_hist_add_n(&s->t.hist, e->watch, func, kind, n);
}

/* The maps into the session's histogram; a note says what the kernel
 * counted that the maps lack, if anything. */
static int bpf_finish(struct hwbpi_view *s, struct hwbpi_bpf *b,
		      const struct hwbpi_perf_result *res)
{
	struct bpf_read r = { 0 };
	uint64_t overrun[HWBP_MAX_REQUESTS] = { 0 }, lost = 0, kernel = 0, seen = 0, hits = 0;
	uint64_t merged = 0;
	const uint64_t *starts;
	size_t nstart = hwbpi_symtab_func_starts(s->syms, &starts);
	int ret = hwbpi_bpf_read(b, collect, &r, overrun, &lost);

	if (ret == 0)
		ret = hwbpi_bpf_merged(b, &merged);
	if (ret == 0 && r.nomem)
		ret = -ENOMEM;
	if (ret) {
		free(r.e);
		return hwbpi_fail(s, ret, false, "cannot read the in-kernel histogram: %s",
				  hwbp_errno_name(ret));
	}
	qsort(r.e, r.n, sizeof(*r.e), ent_cmp);
	for (size_t i = 0; i < r.n; i++) {
		add_entry(s, &r, &r.e[i], starts, nstart, res, overrun);
		seen += r.e[i].count;
	}
	for (unsigned i = 0; i < s->t.nw; i++) {
		hwbpi_hist_overrun(&s->t.hist, i, overrun[i]);
		seen += overrun[i];
		hits += res->count[i];
	}
	/* (In events: a twin counts a store a second time, in the maps too.
	 * An access that two pieces reported is one hit, in the events
	 * twice: the program counted it once, and merged the other.) */
	kernel = res->raw;
	seen += merged;
	hits = hits > merged ? hits - merged : 0;
	if (merged)
		hwbpi_note(s, "%" PRIu64 " events were a second piece's report of an access "
			   "already counted (one debug exception, the same registers): counted once",
			   merged);
	free(r.e);
	/* Every hit is in an event's count; a hit the program did not count
	 * ran while another BPF program was active on that CPU
	 * (bpf_overflow_handler() skips it) or failed its map update. */
	if (kernel > seen)
		hwbpi_note(s, "in-kernel counts: %" PRIu64 " hits; %" PRIu64 " of %" PRIu64 " events "
			   "were not counted by hwbp's program (%" PRIu64 " failed map updates; the "
			   "rest came while a BPF program was already running on that CPU, which "
			   "the kernel's bpf_overflow_handler() skips)", hits,
			   kernel - seen, kernel, lost);
	else
		hwbpi_note(s, "in-kernel counts: %" PRIu64 " hits, nothing lost", hits);
	return 0;
}

/* Load the counting program for the session's watches, or say why not
 * (then the caller samples). */
static struct hwbpi_bpf *bpf_begin(struct hwbpi_view *s, enum hwbpi_kinds kinds)
{
	const uint64_t *starts;
	size_t nstart = hwbpi_symtab_func_starts(s->syms, &starts);
	struct hwbpi_bpf *b = NULL;
	char err[256] = "";
	/* The map keeps the first n keys of a watch to arrive, as the
	 * histogram keeps its first n entries; with twins, 2n: a twin split
	 * keeps (RW, W) keys for one (function, W) entry, and the histogram
	 * then applies its own n, in hits. */
	unsigned n = s->t.hist.n * (hwbpi_twins(kinds) ? 2 : 1);
	int ret = hwbpi_bpf_open(&b, s->t.nw, n, starts, nstart, hwbpi_linux_trap_ip_adjust, err,
				 sizeof(err));

	if (ret) {
		hwbpi_note(s, "counting in the kernel is not possible (%s): perf samples are "
			   "counted instead", err[0] ? err : hwbp_errno_name(ret));
		return NULL;
	}
	return b;
}

/* Trace mode in the kernel scope with the bpf backend: the values
 * program, which reads each hit's watched bytes, or NULL and a note why
 * not (then the events carry no values). */
static struct hwbpi_bpf *values_begin(struct hwbpi_view *s)
{
	uint64_t addr[HWBP_MAX_REQUESTS];
	unsigned len[HWBP_MAX_REQUESTS];
	struct hwbpi_bpf *b = NULL;
	char err[256] = "";
	int ret;

	/* The program reads the bytes at the trap: after the access only
	 * where the trap follows it (x86); arm64 and powerpc stop before
	 * it, and their kernels step over it with no program after. */
	if (hwbpi_linux_step_over) {
		hwbpi_note(s, "values: the bpf backend reads the watched bytes at the breakpoint, "
			   "which on this arch comes before the access: events carry none");
		return NULL;
	}
	for (unsigned i = 0; i < s->t.nw; i++) {
		addr[i] = s->t.w[i].addr;
		len[i] = (unsigned)(s->t.w[i].len < 8 ? s->t.w[i].len : 8);
	}
	ret = hwbpi_bpf_open_values(&b, s->t.nw, addr, len, hwbpi_kernel_ncpus(), err, sizeof(err));
	if (ret) {
		hwbpi_note(s, "values: cannot read the watched bytes in the kernel (%s): events carry "
			   "none", err[0] ? err : hwbp_errno_name(ret));
		return NULL;
	}
	/* Each watch's bytes now, as GDB reads a watch's value when it sets
	 * it: the first hit's "before".  Without /proc/kcore (lockdown, no
	 * CONFIG_PROC_KCORE) the first hit has none, which the note says. */
	for (unsigned i = 0; i < s->t.nw; i++) {
		uint8_t bytes[8];

		ret = hwbpi_kcore_read(NULL, addr[i], bytes, len[i]);
		if (ret) {
			hwbpi_note(s, "values: /proc/kcore: %s: a watch's first hit has no value before "
				   "it", hwbp_errno_name(ret));
			break;
		}
		if (hwbpi_bpf_seed(b, i, hwbpi_value_of_bytes(bytes, len[i]), err, sizeof(err)))
			break;
	}
	return b;
}

/* ------------------------------------------------------------ notes */

/* Whether the watches need more data slots than the CPU has, and fit
 * when they share them, as a decoder would let them (perf_share.c). */
static bool needs_sharing(struct hwbpi_view *s, bool kernel)
{
	enum hwbp_scope scope = kernel ? HWBP_SCOPE_KERNEL : HWBP_SCOPE_USER;
	struct hwbp_caps caps;
	unsigned n = 0;

	if (!hwbpi_insn_arch(s->cpu.arch) || !hwbpi_insn_available() ||
	    hwbp_caps_get(&s->cpu, &caps))
		return false;
	for (unsigned i = 0; i < s->t.nw; i++) {
		const struct hwbpi_watch *w = &s->t.w[i];
		struct hwbp_request q = { w->addr, hwbpi_watch_len(w, &s->cpu), w->type, scope,
					  HWBP_REQ_WIDEN };
		struct hwbp_plan plan;

		if (w->on_cpu || (w->type & HWBP_X) || hwbp_plan(&s->cpu, &q, 0, &plan))
			return false;
		n += plan.n;
	}
	return n > caps.data_slots && hwbpi_perf_share_fits(&s->t, &s->cpu, scope);
}

static void kinds_notes(struct hwbpi_view *s, const struct hwbpi_perf_result *res)
{
	if (res->shared)
		hwbpi_note(s, "%u watches share %u debug register%s (more watches than registers): "
			   "each hit went to the watches its decoded access touched", res->shared,
			   res->shared_slots, res->shared_slots > 1 ? "s" : "");
	if (res->unattributed)
		hwbpi_note(s, "%" PRIu64 " hits of a shared debug register did not decode: no "
			   "watch could be told, none counted them", res->unattributed);
	if (res->undecoded)
		hwbpi_note(s, "%" PRIu64 " of %" PRIu64 " data hits did not decode (the first: %s%s): "
			   "their kinds from %s", res->undecoded, res->decoded + res->undecoded,
			   hwbp_errno_name(res->undecoded_err),
			   res->undecoded_err == -ENOENT ? ", no instruction ended at the PC with an "
			   "access to the watch: an address lost with its base register, a branch "
			   "through memory" :
			   res->undecoded_err == -EFAULT ? ", its code unreadable" :
			   res->undecoded_err == -EACCES || res->undecoded_err == -EPERM ?
			   ", /proc/kcore needs root" : "",
			   res->split ? "the store-only twins" : "the watched bytes ('?' when unchanged)");
	if (res->kinds_broken && res->unsplit)
		hwbpi_note(s, "access kinds of RW watches stay '?': %s", res->kinds_why);
	else if (res->unsplit)
		hwbpi_note(s, "access kinds of %u RW watch%s stay '?': no debug register is free for "
			   "%s kind events (fewer watches, or -w-/r-- entries, free some)", res->unsplit,
			   res->unsplit > 1 ? "es" : "", res->unsplit > 1 ? "their" : "its");
}

static void loss_note(struct hwbpi_view *s, const struct hwbpi_perf_opts *po,
		      const struct hwbpi_perf_result *res)
{
	if (res->lost)
		hwbpi_note(s, "the kernel dropped %" PRIu64 " of %" PRIu64 " samples: its rings of "
			   "%zu KiB per CPU were full; a larger --buffer-kb (at most %zu) keeps more",
			   res->lost, res->lost + res->samples,
			   (size_t)(po->ring_pages ? po->ring_pages : HWBPI_PERF_RING_PAGES) *
			   (size_t)sysconf(_SC_PAGESIZE) / 1024, HWBPI_RING_MAX_BYTES / 1024);
	if (res->merged)
		hwbpi_note(s, "%" PRIu64 " samples were a second piece's report of an access "
			   "already counted (one debug exception, the same registers): counted once",
			   res->merged);
}

/* --stack: what the kernel scope and the in-kernel counting do instead. */
static void stack_notes(struct hwbpi_view *s, bool kernel, bool want_bpf,
			const struct hwbpi_perf_result *res)
{
	if (!s->t.stack_depth)
		return;
	if (want_bpf && !s->mode.trace)
		hwbpi_note(s, "--stack: the bpf backend's in-kernel counting keeps no call stacks: "
			   "hits were sampled with perf instead");
	if (kernel && hwbpi_session_opt(s, "call-graph"))
		hwbpi_note(s, "--call-graph does not apply to --kernel: the kernel's own unwinder "
			   "gives its stacks");
	if (res->stack_why[0])
		hwbpi_note(s, "no call stacks: %s", res->stack_why);
}

int hwbpi_perf_counted(struct hwbpi_view *s, bool kernel, void *state, pid_t pid,
			bool started, bool want_bpf, struct hwbpi_perf_result *res)
{
	struct hwbpi_kernel *k = kernel ? state : NULL;
	struct hwbpi_perf_opts po;
	struct hwbpi_bpf *b = NULL;
	char err[320] = "";
	int ret;

	memset(&po, 0, sizeof(po));
	memset(res, 0, sizeof(*res));
	if ((ret = hwbpi_process_kinds(s, &po.kinds)) || (ret = hwbpi_process_callgraph(s, &po.callgraph)))
		return ret;
	/* Watches of objects: their own run, armed as the functions are
	 * called (backends/linux/objects.c). */
	for (unsigned wi = 0; wi < s->t.nw; wi++)
		if (s->t.w[wi].object) {
			s->t.func_adjust = hwbpi_linux_trap_ip_adjust;
			ret = hwbpi_linux_objects(s, kernel, k && k->have_cpus ? k->cpus : NULL, pid,
						  started, &res->wstatus);
			if (ret == 0 && want_bpf)
				hwbpi_note(s, "watches of objects: the hits were perf samples, attributed "
					   "to each object by time (a count in a BPF map would not tell one "
					   "object from the next)");
			return ret;
		}
	if (k && (ret = check_watches(s, k)))
		return ret;
	po.sampling = true;
	po.kernel = kernel;
	po.cpus = k && k->have_cpus ? k->cpus : NULL;
	po.stop = &s->stop;
	po.stop_sig = &s->stop_sig;
	po.drain = hwbpi_process_drain;
	po.drain_arg = s;
	po.ring_pages = hwbpi_perf_ring_pages(s->mode.ring_bytes);
	s->t.func_adjust = hwbpi_linux_trap_ip_adjust;
	/* The counting program keeps (watch, kind, function) per hit: no
	 * stack (--stack samples: stack_notes()), no instruction (--sort
	 * srcline's keys come from the samples). */
	/* Sharing registers needs each hit decoded, in user space. */
	if (want_bpf && !s->mode.trace && po.kinds != HWBPI_KINDS_OFF && needs_sharing(s, kernel))
		hwbpi_note(s, "more watches than debug registers: they share registers, and each "
			   "hit's watch is found by decoding its instruction, which the in-kernel "
			   "counting cannot do: perf samples are counted instead");
	else if (want_bpf && !s->mode.trace && s->t.key_ip)
		hwbpi_note(s, "--sort srcline: perf samples are counted (the in-kernel histogram "
			   "counts by function)");
	else if (want_bpf && !s->mode.trace && !s->t.stack_depth)
		po.bpf = b = bpf_begin(s, po.kinds);
	else if (want_bpf && s->mode.trace && kernel)
		po.values_bpf = b = values_begin(s);
	/* Where the arch does not report a hit's access (x86), each sample's
	 * trap frame and its function's code give it (tracer/insn/insn.h),
	 * as in the ptrace backend: exact kinds with no twin, enlarged
	 * pieces filtered.  Not in the kernel's counting program, which
	 * cannot decode: its twins stay. */
	po.decode = !po.bpf && po.kinds != HWBPI_KINDS_OFF && hwbpi_insn_arch(s->cpu.arch) != NULL;
	po.syms = s->syms;
	if (kernel)
		ret = hwbpi_perf_kernel(&s->t, &s->cpu, s->argv, &po, res, err, sizeof(err));
	else
		ret = hwbpi_perf_trace(&s->t, &s->cpu, pid, started, &po, res, err, sizeof(err));
	if (ret == 0 && po.bpf)
		ret = bpf_finish(s, b, res);
	hwbpi_bpf_close(b);
	if (ret)
		return s->msg[0] ? ret : hwbpi_fail(s, ret, false, "%s", err[0] ? err : hwbp_errno_name(ret));
	if (kernel && s->argv) {
		s->status = res->wstatus;
		s->have_status = true;
	}
	kinds_notes(s, res);
	stack_notes(s, kernel, want_bpf, res);
	if (!po.bpf)
		loss_note(s, &po, res);
	return 0;
}
