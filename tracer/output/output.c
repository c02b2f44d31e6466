/* SPDX-License-Identifier: MIT */
/*
 * The consumer side of a session: trace-mode events drained from the
 * per-CPU rings into text lines or a CTF trace, merged by timestamp; the
 * histogram and the summary at the end.  Not on the hit path.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "output/output_int.h"

/* The error of a call: its line in o->msg; returns @ret. */
static int fail(struct hwbpi_output *o, int ret, bool input, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct hwbpi_output *o, int ret, bool input, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->msg, sizeof(o->msg), fmt, ap);
	va_end(ap);
	o->input = input;
	return ret;
}

/* A note for the user, through the session's callback. */
static void note(struct hwbpi_output *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct hwbpi_output *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->note)
		return;
	va_start(ap, fmt);
	o->note(o->note_arg, fmt, ap);
	va_end(ap);
}

static int cmp_ev(const void *a, const void *b)
{
	const struct hwbp_trace_event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->cpu - y->cpu;
}

static const char **watch_names(const struct hwbpi_output *o, const char **names)
{
	for (unsigned i = 0; i < o->t->nw; i++)
		names[i] = o->t->w[i].name;
	return names;
}

/*
 * A file of option --@opt (--folded, --objects-log) at @path, created
 * new (O_EXCL: never over a file of the user's, whatever it is;
 * O_NOFOLLOW: never through a symlink planted there, as the CTF files),
 * now, so that a bad path fails before the trace, into *@f.
 */
static int create_new(struct hwbpi_output *o, const char *opt, const char *path, FILE **f)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666), ret;

	if (fd < 0) {
		ret = -errno;
		return fail(o, ret, true, ret == -EEXIST ?
				  "--%s '%s' exists (the file is always made new): %s" :
				  "cannot write --%s '%s': %s", opt, path, hwbp_errno_name(ret));
	}
	*f = fdopen(fd, "w");
	if (!*f) {
		ret = errno ? -errno : -ENOMEM;
		close(fd);
		unlink(path);
		return fail(o, ret, false, "cannot write --%s '%s': %s", opt, path,
				  hwbp_errno_name(ret));
	}
	return 0;
}

/* --objects-log FILE: written as objects come and go
 * (tracer/objects/objects.h), closed at the end. */
static int open_objects_log(struct hwbpi_output *o)
{
	int ret = create_new(o, "objects-log", o->objects_log, &o->objects_log_f);

	for (unsigned i = 0; ret == 0 && i < o->t->nw; i++)
		if (o->t->w[i].object)
			o->t->w[i].objs.log = o->objects_log_f;
	return ret;
}

int hwbpi_output_open(struct hwbpi_output *o)
{
	const char *names[HWBP_MAX_REQUESTS];
	int ret = 0;

	if (o->objects_log && (ret = open_objects_log(o)))
		return ret;
	if (!o->t->trace)
		return o->folded ? create_new(o, "folded", o->folded, &o->folded_f) : 0;
	/* The consumer's sorting buffer: one per session, made at setup. */
	o->drain = malloc(HWBPI_DRAIN_EVENTS * sizeof(*o->drain));
	if (!o->drain)
		return fail(o, -ENOMEM, false, "cannot start: %s", hwbp_errno_name(-ENOMEM));
	if (o->out->text) {
		/* where each line of a batch ends, to count what a failed
		 * write kept */
		o->line_end = malloc(HWBPI_DRAIN_EVENTS * sizeof(*o->line_end));
		if (!o->line_end)
			return fail(o, -ENOMEM, false, "cannot start: %s",
					  hwbp_errno_name(-ENOMEM));
	}
	/* Each function's name demangled once, as the first event names
	 * it (the histogram has its own, at print time). */
	if (!o->no_demangle) {
		o->dm = hwbpi_demangler_new(&ret);
		if (!o->dm)
			return fail(o, ret, false, "cannot start: %s", hwbp_errno_name(ret));
	}
	if (!o->out->ctf_dir)
		return 0;
	o->ctf = hwbpi_ctf_open(o->out->ctf_dir, o->ncpus, watch_names(o, names), o->t->nw,
				(o->force ? HWBPI_CTF_FORCE : 0) | (o->srcline ? HWBPI_CTF_SRCLINE : 0) |
				(o->t->stacks ? HWBPI_CTF_STACKS : 0), &ret);
	if (!o->ctf && ret == -EEXIST)
		return fail(o, ret, true,
				  "CTF --trace '%s' is a directory that is not empty (--force "
				  "replaces an earlier hwbp trace there): %s",
				  o->out->ctf_dir, hwbp_errno_name(ret));
	if (!o->ctf && ret == -ENOTEMPTY)
		return fail(o, ret, true,
				  "CTF --trace '%s' holds files that are not an hwbp trace: "
				  "nothing replaced: %s",
				  o->out->ctf_dir, hwbp_errno_name(ret));
	if (!o->ctf)
		return fail(o, ret, true, "cannot write CTF --trace '%s': %s", o->out->ctf_dir,
				  hwbp_errno_name(ret));
	return 0;
}

/* An output failed with @err (a negative errno): keep the first
 * (hwbpi_output_drain returns it: the run should end, since nothing more
 * it gathers could be written). */
static void output_failed(struct hwbpi_output *o, int err)
{
	if (o->out_err == 0)
		o->out_err = err;
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
 * integer, in hex; a bitfield's " field OLD -> NEW" after them: its
 * bits, unsigned).  A thread-local watch's events are at the thread's
 * own copy, so the line's offset is 0 (ev->addr is that copy's start).
 */
static const char *line_extra(const struct hwbp_trace_event *e, const struct hwbpi_watch *w,
			      char *buf, size_t n)
{
	int k = 0;

	buf[0] = '\0';
	if (e->tid)
		k = snprintf(buf, n, " tid %" PRIu32, e->tid);
	if (k >= 0 && (size_t)k < n && (e->vflags & HWBP_EV_OLD))
		k += snprintf(buf + k, n - (size_t)k, " value 0x%" PRIx64 " -> 0x%" PRIx64, e->old,
			      e->value);
	else if (k >= 0 && (size_t)k < n && (e->vflags & HWBP_EV_VALUE))
		k += snprintf(buf + k, n - (size_t)k, " value 0x%" PRIx64, e->value);
	/* A bitfield's watch holds the bytes around its bits: the field
	 * itself, as an unsigned number, after them. */
	if (k >= 0 && (size_t)k < n && w->bit_width && (e->vflags & HWBP_EV_VALUE)) {
		uint64_t mask = w->bit_width >= 64 ? UINT64_MAX : (UINT64_C(1) << w->bit_width) - 1;

		if (e->vflags & HWBP_EV_OLD)
			snprintf(buf + k, n - (size_t)k, " field %" PRIu64 " -> %" PRIu64,
				 (e->old >> w->bit_shift) & mask, (e->value >> w->bit_shift) & mask);
		else
			snprintf(buf + k, n - (size_t)k, " field %" PRIu64,
				 (e->value >> w->bit_shift) & mask);
	}
	return buf;
}

/*
 * The rest of an event's text line with --stack (@k bytes so far): its
 * callers after its function, innermost first, each "<- work+0x12" (the
 * function the call was made from and the return address's offset in it,
 * see hwbpi_stacks_frame_name), named once per stack (the tid and value
 * fields follow them).
 * An event whose CPU's table of stacks was full (stack 0) says "<- ?".
 * Returns the line's bytes, or -1 (errno set).
 */
static int text_callers(struct hwbpi_output *o, const struct hwbp_trace_event *e, int k)
{
	const char *names = NULL;
	int n = 0, r;

	if (e->stack)
		n = hwbpi_stacks_callers(o->t->stacks, e->stack, o->t->syms, o->dm, &names);
	if (n < 0) {
		errno = -n;
		return -1;
	}
	if (!e->stack) {
		names = "?";
		n = 1;
	}
	for (int i = 0; i < n; i++, names += strlen(names) + 1) {
		if ((r = fprintf(o->out->text, " <- %s", names)) < 0)
			return -1;
		k += r;
	}
	return k;
}

/* The function of event @e as shown (demangled unless --no-demangle),
 * else where its IP is ("libfoo.so+0x1234", 0xADDR) in @buf. */
static const char *func_shown(struct hwbpi_output *o, const struct hwbp_trace_event *e,
			      char buf[HWBPI_SYMTAB_DESCRIBE_MAX])
{
	const struct hwbp_sym *f = hwbpi_tracer_func(o->t, e);

	return f ? hwbpi_demangler_name(o->dm, f->name) :
		hwbpi_symtab_describe(o->t->syms, hwbpi_tracer_func_ip(o->t, e), buf,
				      HWBPI_SYMTAB_DESCRIBE_MAX);
}

/* Text: the batch's lines, flushed, so that "recorded" counts exactly the
 * lines the file took (a full disk fails the flush, not the fprintf). */
static void write_text(struct hwbpi_output *o, const struct hwbp_trace_event *buf, size_t n)
{
	const struct hwbpi_tracer *t = o->t;
	FILE *out = o->out->text;
	off_t start;
	size_t done = 0, printed = 0, bytes = 0;
	bool bad = false;
	int err = 0;

	if (o->out_err || n == 0)
		return;
	/* Every batch ends flushed, so the stream's position is the file's. */
	start = ftello(out);
	for (; done < n; done++) {
		const struct hwbp_trace_event *e = &buf[done];
		const struct hwbpi_watch *w = &t->w[e->bp];
		char extra[160], fb[HWBPI_SYMTAB_DESCRIBE_MAX], src[HWBPI_HIST_COL_BUF];
		/* function, its line (--srcline), its callers (--stack), then tid
		 * and value; the offset into the watch's bytes (a thread's or an
		 * object's own copy: the event's address is where they start) */
		int k = fprintf(out, "%3u %12" PRIu64 " %s+0x%" PRIx64 " %s %s%s%s", e->cpu, e->ts,
				w->name, w->tls || w->object ? 0 : e->addr - w->addr,
				e->kind ? hwbp_type_name(e->kind) : "?", func_shown(o, e, fb),
				o->srcline ? " at " : "",
				o->srcline ? hwbpi_srcline_event(o, e, src, sizeof(src)) : "");

		if (k >= 0 && t->stacks)
			k = text_callers(o, e, k);
		if (k >= 0) {
			int r = fprintf(out, "%s\n", line_extra(e, w, extra, sizeof(extra)));

			k = r < 0 ? r : k + r;
		}
		if (k < 0) {
			bad = true;
			err = errno ? -errno : -EIO;
			break;
		}
		bytes += (size_t)k;
		o->line_end[printed++] = bytes;
	}
	errno = 0;
	if (!bad && (fflush(out) != 0 || ferror(out))) {
		bad = true;
		err = errno ? -errno : -EIO;
	}
	if (!bad) {
		o->recorded += n;
		return;
	}
	output_failed(o, err);
	o->recorded += lines_in_file(out, start, o->line_end, printed);
	/* The caller checks the stream as it closes it (ferror, fflush):
	 * the C library has dropped what failed, so errno is all it has. */
	errno = -err;
}

/* CTF: each event into its CPU's packet; "recorded" is what the writer
 * put in the files (hwbpi_ctf_close says the total). */
static void write_ctf(struct hwbpi_output *o, const struct hwbp_trace_event *buf, size_t n)
{
	const struct hwbpi_tracer *t = o->t;

	for (size_t i = 0; i < n && !o->out_err; i++) {
		char fb[HWBPI_SYMTAB_DESCRIBE_MAX];
		const uint64_t *frames = NULL;
		const char *names = NULL;
		int r = 0, nf = t->stacks ? (int)hwbpi_stacks_get(t->stacks, buf[i].stack, &frames) : 0;
		char src[HWBPI_HIST_COL_BUF];

		/* the callers: the frames after the function (named once per
		 * stack; a stack 0, lost to a full table, has none) */
		if (nf > 1)
			r = hwbpi_stacks_callers(t->stacks, buf[i].stack, t->syms, o->dm, &names);
		if (r >= 0)
			r = hwbpi_ctf_write_full(o->ctf, &buf[i], func_shown(o, &buf[i], fb),
						 nf > 1 ? frames + 1 : NULL, nf > 1 ? (unsigned)nf - 1 : 0,
						 names, o->srcline ? hwbpi_srcline_event(o, &buf[i], src,
											sizeof(src)) : NULL);
		if (r)
			output_failed(o, r);
	}
}

/* One batch: up to an equal share of the buffer from each CPU's ring,
 * merged by time.  Returns true when a ring may hold more. */
static bool drain_batch(struct hwbpi_output *o)
{
	struct hwbp_trace_event *buf = o->drain;
	struct hwbpi_tracer *t = o->t;
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
	if (o->ctf)
		write_ctf(o, buf, n);
	else if (o->out->text)
		write_text(o, buf, n);
	/* Each CPU's loss so far, so that a CTF packet ends where its ring
	 * lost events. */
	for (unsigned c = 0; o->ctf && c < t->ncpus; c++) {
		uint64_t p, l;

		hwbp_ring_stats(t->ring[c], &p, &l);
		hwbpi_ctf_lost(o->ctf, c, l);
	}
	return more;
}

int hwbpi_output_drain(struct hwbpi_output *o)
{
	/* The sim backend drains every 1024 accesses, far fewer events than
	 * a batch holds; a real process's rings are drained at the end, and
	 * may hold many batches. */
	if (o->t->trace && o->drain)
		while (drain_batch(o))
			;
	return o->out_err;
}

/* The folded stacks into the file made at prepare, closed.  Returns 0,
 * or the errno of the failed write or close with the message set (the
 * file, incomplete, is left for the user to see). */
static int write_folded(struct hwbpi_output *o, unsigned flags)
{
	const char *names[HWBP_MAX_REQUESTS];
	FILE *f = o->folded_f;
	int ret;

	o->folded_f = NULL;
	ret = hwbpi_hist_write_folded(&o->t->hist, watch_names(o, names), o->t->syms, o->t->stacks,
				      flags & ~HWBP_HIST_WIDE, f);
	errno = 0;
	if ((ret == 0 || ret == -EIO) && fflush(f) != 0)
		ret = errno ? -errno : -EIO;
	errno = 0;
	if (fclose(f) != 0 && ret == 0)
		ret = errno ? -errno : -EIO;
	if (ret)
		return fail(o, ret, false, "writing --folded '%s' failed: %s", o->folded,
				  hwbp_errno_name(ret));
	return 0;
}

/* Histogram mode: the table (by stacks with --stack), then the folded
 * file.  A stack lost can only be one that found the table full, which
 * hwbpi_tracer_start sizes so that it never is (see hwbpi_stacks_fit):
 * said when it happens, since those hits are then overrun. */
static int finish_hist(struct hwbpi_output *o)
{
	struct hwbpi_tracer *t = o->t;
	const char *names[HWBP_MAX_REQUESTS];
	unsigned flags = (o->no_demangle ? 0 : HWBP_HIST_DEMANGLE) | (o->wide ? HWBP_HIST_WIDE : 0);

	int ret = 0;

	/* (A write error shows as the stream's, at its close.) */
	if (o->out->hist && t->stacks)
		ret = hwbpi_hist_print_stacks(&t->hist, watch_names(o, names), t->syms, t->stacks,
					      flags, o->out->hist);
	else if (o->out->hist && t->key_ip)
		ret = hwbpi_srcline_hist_print(o, watch_names(o, names), flags, o->out->hist);
	else if (o->out->hist)
		ret = hwbp_hist_print_flags(&t->hist, watch_names(o, names), t->syms, flags,
					    o->out->hist);
	if (o->out->hist && ret == -ENOMEM)
		return fail(o, ret, false, "cannot print the histogram: %s",
				  hwbp_errno_name(ret));
	if (t->stacks && hwbpi_stacks_lost(t->stacks))
		note(o, "%" PRIu64 " hits found the table of %u stacks full (counted as "
			   "overrun)", hwbpi_stacks_lost(t->stacks), hwbpi_stacks_capacity(t->stacks));
	if (o->out->hist && hwbpi_objects_print(o->out->hist, t) == -ENOMEM)
		return fail(o, -ENOMEM, false, "cannot print the objects: ENOMEM");
	return o->folded_f ? write_folded(o, flags) : 0;
}

int hwbpi_output_finish(struct hwbpi_output *o, bool ok)
{
	struct hwbpi_tracer *t = o->t;
	uint64_t produced = 0, lost = 0, lost_cpu[HWBPI_TRACE_MAX_CPUS] = { 0 };
	int ret = 0;

	if (!ok) {
		/* A failed run: keep what was traced (the folded file, written
		 * only at the end, goes with the session). */
		if (o->ctf)
			hwbpi_ctf_close(o->ctf, NULL, NULL);
		o->ctf = NULL;
		return 0;
	}
	if (!t->trace)
		return finish_hist(o);
	hwbpi_output_drain(o);
	for (unsigned c = 0; c < t->ncpus; c++) {
		uint64_t p, l;

		hwbp_ring_stats(t->ring[c], &p, &l);
		produced += p;
		lost += l;
		lost_cpu[c] = l;
		if (l)
			note(o, "cpu %u lost %" PRIu64 " of %" PRIu64 " events", c, l, p);
	}
	if (o->ctf) {
		uint64_t written = 0;

		ret = hwbpi_ctf_close(o->ctf, lost_cpu, &written);
		o->ctf = NULL;
		o->recorded = written;
		if (ret && !o->out_err)
			o->out_err = ret;
	}
	/* produced = recorded + lost + not written, whatever failed. */
	if (o->out_err)
		note(o, "%" PRIu64 " events produced, %" PRIu64 " recorded, %" PRIu64
			   " lost, %" PRIu64 " not written (%s)", produced, o->recorded, lost,
			   produced - lost - o->recorded, hwbp_errno_name(o->out_err));
	else
		note(o, "%" PRIu64 " events produced, %" PRIu64 " recorded, %" PRIu64 " lost",
			   produced, o->recorded, lost);
	/* The objects after the events (or on the histogram's stream). */
	if (o->out->hist || o->out->text)
		hwbpi_objects_print(o->out->hist ? o->out->hist : o->out->text, t);
	/* Exactly: every produced event has its stack, or is one of these. */
	if (t->stacks)
		note(o, "%u stacks held (at most %u per CPU), %" PRIu64 " events without theirs",
			   hwbpi_stacks_used(t->stacks), hwbpi_stacks_capacity(t->stacks),
			   hwbpi_stacks_lost(t->stacks));
	if (o->out_err && o->out->ctf_dir)
		return fail(o, o->out_err, false, "writing CTF --trace '%s' failed: %s",
				  o->out->ctf_dir, hwbp_errno_name(o->out_err));
	/* Text: the caller reports it as it closes the stream (see
	 * write_text), with this errno. */
	if (o->out_err)
		errno = -o->out_err;
	return 0;
}

void hwbpi_output_free(struct hwbpi_output *o)
{
	if (!o)
		return;
	/* prepared but never run, or run and failed before the end: the
	 * folded file this run created holds nothing */
	if (o->folded_f) {
		fclose(o->folded_f);
		unlink(o->folded);
		o->folded_f = NULL;
	}
	if (o->objects_log_f) {
		fclose(o->objects_log_f);
		o->objects_log_f = NULL;
		for (unsigned i = 0; i < o->t->nw; i++)
			o->t->w[i].objs.log = NULL;
	}
	free(o->drain);
	free(o->line_end);
	hwbpi_demangler_free(o->dm);
	o->drain = NULL;
	o->line_end = NULL;
	o->dm = NULL;
}
