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
#include <sys/types.h>
#include <unistd.h>

#include "ctf.h"
#include "demangle.h"
#include "session.h"
#include "srcline.h"

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
	if (s->out.text) {
		/* where each line of a batch ends, to count what a failed
		 * write kept */
		s->line_end = malloc(HWBPI_DRAIN_EVENTS * sizeof(*s->line_end));
		if (!s->line_end)
			return hwbpi_fail(s, -ENOMEM, false, "cannot start: %s",
					  hwbp_errno_name(-ENOMEM));
	}
	/* Each function's name demangled once, as the first event names
	 * it (the histogram has its own, at print time). */
	if (!s->no_demangle) {
		s->dm = hwbpi_demangler_new(&ret);
		if (!s->dm)
			return hwbpi_fail(s, ret, false, "cannot start: %s", hwbp_errno_name(ret));
	}
	if (!s->out.ctf_dir)
		return 0;
	s->ctf = hwbpi_ctf_open(s->out.ctf_dir, s->ncpus, watch_names(s, names), s->t.nw,
				(s->force ? HWBPI_CTF_FORCE : 0) | (s->srcline ? HWBPI_CTF_SRCLINE : 0),
				&ret);
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

/* An output failed with @err (a negative errno): keep the first, and end
 * the run, since nothing more it gathers could be written. */
static void output_failed(struct hwbp_trace_session *s, int err)
{
	if (s->out_err == 0) {
		s->out_err = err;
		hwbp_trace_session_stop(s);
	}
}

/* Of a batch whose lines end at @end[0..n-1] (bytes from the batch's
 * start), the lines wholly in the file: the file's offset now (lseek: what
 * write(2) took, a short write included) against where the batch began;
 * none when that is not known (a pipe). */
static size_t lines_in_file(FILE *f, off_t start, const size_t *end, size_t n)
{
	off_t now = start >= 0 ? lseek(fileno(f), 0, SEEK_CUR) : -1;
	size_t k = 0;

	if (now < start)
		return 0;
	while (k < n && end[k] <= (size_t)(now - start))
		k++;
	return k;
}

/*
 * The fields of a text line that only some events have, at its end:
 * " tid N" (the thread), " value OLD -> NEW" or " value NEW" (the watched
 * bytes before and after the access, vsize of them as a little-endian
 * integer, in hex).  A thread-local watch's events are at the thread's
 * own copy, so the line's offset is 0 (ev->addr is that copy's start).
 */
static const char *line_extra(const struct hwbp_trace_event *e, char *buf, size_t n)
{
	int k = 0;

	buf[0] = '\0';
	if (e->tid)
		k = snprintf(buf, n, " tid %" PRIu32, e->tid);
	if (k >= 0 && (size_t)k < n && (e->vflags & HWBP_EV_OLD))
		snprintf(buf + k, n - (size_t)k, " value 0x%" PRIx64 " -> 0x%" PRIx64, e->old, e->value);
	else if (k >= 0 && (size_t)k < n && (e->vflags & HWBP_EV_VALUE))
		snprintf(buf + k, n - (size_t)k, " value 0x%" PRIx64, e->value);
	return buf;
}

/* Text: the batch's lines, flushed, so that "recorded" counts exactly the
 * lines the file took (a full disk fails the flush, not the fprintf). */
static void write_text(struct hwbp_trace_session *s, const struct hwbp_trace_event *buf, size_t n)
{
	const struct hwbpi_tracer *t = &s->t;
	FILE *out = s->out.text;
	off_t start;
	size_t done = 0, printed = 0, bytes = 0;
	bool bad = false;
	int err = 0;

	if (s->out_err || n == 0)
		return;
	/* Every batch ends flushed, so the stream's position is the file's. */
	start = ftello(out);
	for (; done < n; done++) {
		const struct hwbp_trace_event *e = &buf[done];
		const struct hwbp_sym *f = hwbpi_tracer_func(t, e);
		const struct hwbpi_watch *w = &t->w[e->bp];
		char extra[96], src[HWBPI_HIST_COL_BUF];
		int k = fprintf(out, "%3u %12" PRIu64 " %s+0x%" PRIx64 " %s %s%s%s%s\n", e->cpu, e->ts,
				w->name, w->tls ? 0 : e->addr - w->addr,
				e->kind ? hwbp_type_name(e->kind) : "?",
				f ? hwbpi_demangler_name(s->dm, f->name) : "?", s->srcline ? " at " : "",
				s->srcline ? hwbpi_srcline_event(s, e, src, sizeof(src)) : "",
				line_extra(e, extra, sizeof(extra)));

		if (k < 0) {
			bad = true;
			err = errno ? -errno : -EIO;
			break;
		}
		bytes += (size_t)k;
		s->line_end[printed++] = bytes;
	}
	errno = 0;
	if (!bad && (fflush(out) != 0 || ferror(out))) {
		bad = true;
		err = errno ? -errno : -EIO;
	}
	if (!bad) {
		s->recorded += n;
		return;
	}
	output_failed(s, err);
	s->recorded += lines_in_file(out, start, s->line_end, printed);
	/* The caller checks the stream as it closes it (ferror, fflush):
	 * the C library has dropped what failed, so errno is all it has. */
	errno = -err;
}

/* CTF: each event into its CPU's packet; "recorded" is what the writer
 * put in the files (hwbpi_ctf_close says the total). */
static void write_ctf(struct hwbp_trace_session *s, const struct hwbp_trace_event *buf, size_t n)
{
	const struct hwbpi_tracer *t = &s->t;

	for (size_t i = 0; i < n && !s->out_err; i++) {
		const struct hwbp_sym *f = hwbpi_tracer_func(t, &buf[i]);
		char src[HWBPI_HIST_COL_BUF];
		int r = hwbpi_ctf_write_src(s->ctf, &buf[i],
					    f ? hwbpi_demangler_name(s->dm, f->name) : NULL,
					    s->srcline ? hwbpi_srcline_event(s, &buf[i], src, sizeof(src))
						       : NULL);

		if (r)
			output_failed(s, r);
	}
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
	if (s->ctf)
		write_ctf(s, buf, n);
	else if (s->out.text)
		write_text(s, buf, n);
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
	int ret = 0;

	if (!ok) {
		/* A failed run: keep what was traced. */
		if (s->ctf)
			hwbpi_ctf_close(s->ctf, NULL, NULL);
		s->ctf = NULL;
		return 0;
	}
	if (!t->trace) {
		unsigned flags = (s->no_demangle ? 0 : HWBP_HIST_DEMANGLE) |
				 (s->wide ? HWBP_HIST_WIDE : 0);

		/* (A write error shows as the stream's, at its close.) */
		if (s->out.hist && t->key_ip)
			ret = hwbpi_srcline_hist_print(s, watch_names(s, names), flags, s->out.hist);
		else if (s->out.hist)
			ret = hwbp_hist_print_flags(&t->hist, watch_names(s, names), t->syms, flags,
						    s->out.hist);
		if (s->out.hist && ret == -ENOMEM)
			return hwbpi_fail(s, ret, false, "cannot print the histogram: %s",
					  hwbp_errno_name(ret));
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
	if (s->ctf) {
		uint64_t written = 0;

		ret = hwbpi_ctf_close(s->ctf, lost_cpu, &written);
		s->ctf = NULL;
		s->recorded = written;
		if (ret && !s->out_err)
			s->out_err = ret;
	}
	/* produced = recorded + lost + not written, whatever failed. */
	if (s->out_err)
		hwbpi_note(s, "%" PRIu64 " events produced, %" PRIu64 " recorded, %" PRIu64
			   " lost, %" PRIu64 " not written (%s)", produced, s->recorded, lost,
			   produced - lost - s->recorded, hwbp_errno_name(s->out_err));
	else
		hwbpi_note(s, "%" PRIu64 " events produced, %" PRIu64 " recorded, %" PRIu64 " lost",
			   produced, s->recorded, lost);
	if (s->out_err && s->out.ctf_dir)
		return hwbpi_fail(s, s->out_err, false, "writing CTF --trace '%s' failed: %s",
				  s->out.ctf_dir, hwbp_errno_name(s->out_err));
	/* Text: the caller reports it as it closes the stream (see
	 * write_text), with this errno. */
	if (s->out_err)
		errno = -s->out_err;
	return 0;
}
