/* SPDX-License-Identifier: MIT */
/*
 * The consumer side of a session: trace-mode events drained from the
 * per-CPU rings into text lines or a CTF trace, merged by timestamp; the
 * histogram and the summary at the end.  Not on the hit path.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf.h"
#include "session.h"

int hwbpi_output_open(struct hwbp_trace_session *s);
int hwbpi_output_finish(struct hwbp_trace_session *s, bool ok);

static int cmp_ev(const void *a, const void *b)
{
	const struct hwbp_trace_event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->cpu - y->cpu;
}

static const char **watch_names(const struct hwbp_trace_session *s, const char **names)
{
	for (unsigned i = 0; i < s->t.nw; i++)
		names[i] = s->t.w[i].name;
	return names;
}

int hwbpi_output_open(struct hwbp_trace_session *s)
{
	const char *names[HWBP_MAX_REQUESTS];
	int ret = 0;

	if (!s->mode.trace)
		return 0;
	/* The consumer's sorting buffer: one per session, made at setup. */
	s->drain = malloc(HWBPI_DRAIN_EVENTS * sizeof(*s->drain));
	if (!s->drain)
		return hwbpi_fail(s, -ENOMEM, false, "cannot start: %s", hwbp_errno_name(-ENOMEM));
	if (!s->out.ctf_dir)
		return 0;
	s->ctf = hwbpi_ctf_open(s->out.ctf_dir, s->ncpus, watch_names(s, names), s->t.nw,
				s->force, &ret);
	if (!s->ctf && ret == -EEXIST)
		return hwbpi_fail(s, ret, true,
				  "CTF --trace '%s' is a directory that is not empty (--force "
				  "replaces an earlier hwbp trace there): %s",
				  s->out.ctf_dir, hwbp_errno_name(ret));
	if (!s->ctf && ret == -ENOTEMPTY)
		return hwbpi_fail(s, ret, true,
				  "CTF --trace '%s' holds files that are not an hwbp trace: "
				  "nothing replaced: %s",
				  s->out.ctf_dir, hwbp_errno_name(ret));
	if (!s->ctf)
		return hwbpi_fail(s, ret, true, "cannot write CTF --trace '%s': %s", s->out.ctf_dir,
				  hwbp_errno_name(ret));
	return 0;
}

/* One batch: up to an equal share of the buffer from each CPU's ring,
 * merged by time.  Returns true when a ring may hold more. */
static bool drain_batch(struct hwbp_trace_session *s)
{
	struct hwbp_trace_event *buf = s->drain;
	struct hwbpi_tracer *t = &s->t;
	size_t n = 0, share = HWBPI_DRAIN_EVENTS / t->ncpus;
	bool more = false;

	for (unsigned c = 0; c < t->ncpus; c++) {
		size_t got = hwbp_ring_pop(t->ring[c], buf + n, share);

		n += got;
		more |= got == share;
	}
	/* Text is one merged stream; CTF streams are per CPU (the reader
	 * merges them: sorting only keeps the code shared). */
	qsort(buf, n, sizeof(buf[0]), cmp_ev);
	for (size_t i = 0; i < n; i++) {
		const struct hwbp_trace_event *e = &buf[i];
		const struct hwbp_sym *f = t->syms ? hwbp_symtab_func(t->syms, e->ip) : NULL;

		if (s->ctf) {
			int r = hwbpi_ctf_write(s->ctf, e, f ? f->name : NULL);

			if (r == 0)
				s->recorded++;
			else if (s->out_err == 0)
				s->out_err = r;
		} else if (s->out.text) {
			const struct hwbpi_watch *w = &t->w[e->bp];

			fprintf(s->out.text, "%3u %12" PRIu64 " %s+0x%" PRIx64 " %s %s\n", e->cpu,
				e->ts, w->name, e->addr - w->addr,
				e->kind ? hwbp_type_name(e->kind) : "?", f ? f->name : "?");
			s->recorded++;
		}
	}
	/* Each CPU's loss so far, so that a CTF packet ends where its ring
	 * lost events. */
	for (unsigned c = 0; s->ctf && c < t->ncpus; c++) {
		uint64_t p, l;

		hwbp_ring_stats(t->ring[c], &p, &l);
		hwbpi_ctf_lost(s->ctf, c, l);
	}
	return more;
}

void hwbpi_session_drain(struct hwbp_trace_session *s)
{
	/* The sim backend drains every 1024 accesses, far fewer events than
	 * a batch holds; a real process's rings are drained at the end, and
	 * may hold many batches. */
	if (s->t.trace && s->drain)
		while (drain_batch(s))
			;
}

int hwbpi_output_finish(struct hwbp_trace_session *s, bool ok)
{
	struct hwbpi_tracer *t = &s->t;
	uint64_t produced = 0, lost = 0, lost_cpu[HWBPI_TRACE_MAX_CPUS] = { 0 };
	const char *names[HWBP_MAX_REQUESTS];
	int ret;

	if (!ok) {
		/* A failed run: keep what was traced. */
		if (s->ctf)
			hwbpi_ctf_close(s->ctf, NULL);
		s->ctf = NULL;
		return 0;
	}
	if (!t->trace) {
		if (s->out.hist)
			hwbp_hist_print(&t->hist, watch_names(s, names), t->syms, s->out.hist);
		return 0;
	}
	hwbpi_session_drain(s);
	for (unsigned c = 0; c < t->ncpus; c++) {
		uint64_t p, l;

		hwbp_ring_stats(t->ring[c], &p, &l);
		produced += p;
		lost += l;
		lost_cpu[c] = l;
		if (l)
			hwbpi_note(s, "cpu %u lost %" PRIu64 " of %" PRIu64 " events", c, l, p);
	}
	hwbpi_note(s, "%" PRIu64 " events produced, %" PRIu64 " recorded, %" PRIu64 " lost",
		   produced, s->recorded, lost);
	if (!s->ctf)
		return 0;
	ret = hwbpi_ctf_close(s->ctf, lost_cpu);
	s->ctf = NULL;
	if (s->out_err || ret)
		return hwbpi_fail(s, s->out_err ? s->out_err : ret, false,
				  "writing CTF --trace '%s' failed: %s", s->out.ctf_dir,
				  hwbp_errno_name(s->out_err ? s->out_err : ret));
	return 0;
}
