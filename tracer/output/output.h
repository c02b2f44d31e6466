/* SPDX-License-Identifier: MIT */
/*
 * Outputs, the interface of output/ (internal): what a session's run
 * leaves for the user.  In trace mode, events drained from the per-CPU
 * rings into text lines or a CTF trace, merged by timestamp, with source
 * lines and stacks; in histogram mode, the table (by function, source
 * line or call stack) and the folded stacks.  Not on the hit path.
 *
 * The session fills a struct hwbpi_output's settings and calls open,
 * drain (as often as it likes), finish and free.  Errors come back as a
 * negative errno with one line in o->msg (o->input: the user's input was
 * wrong); notes go to o->note.  Output knows nothing of the session.
 */
#ifndef HWBP_TRACER_OUTPUT_H
#define HWBP_TRACER_OUTPUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hwbp/trace.h>

#include "events/events.h"

/* Events taken from the rings in one batch (sorted by time together). */
#define HWBPI_DRAIN_EVENTS (1u << 16)

struct hwbpi_ctf;
struct hwbpi_demangler;
struct hwbpi_dwarf;

struct hwbpi_output {
	/* settings, before hwbpi_output_open() */
	const struct hwbp_trace_output *out;   /* the streams and the CTF directory */
	struct hwbpi_tracer *t;                /* what the run gathered */
	unsigned ncpus;
	const char *folded;                    /* --folded FILE, or NULL */
	const char *objects_log;               /* --objects-log FILE, or NULL */
	bool force;                            /* CTF may replace an earlier trace */
	bool no_demangle, wide, srcline;
	struct hwbpi_dwarf *dwarf;             /* source lines (srcline, --sort srcline) */
	/* a note for the user: printf's @fmt with @ap, one line */
	void (*note)(void *arg, const char *fmt, va_list ap);
	void *note_arg;
	/* its own, from open to free */
	FILE *folded_f;
	FILE *objects_log_f;
	struct hwbpi_ctf *ctf;
	struct hwbp_trace_event *drain;        /* trace mode: HWBPI_DRAIN_EVENTS, for sorting */
	size_t *line_end;                      /* text: HWBPI_DRAIN_EVENTS line ends */
	struct hwbpi_demangler *dm;            /* trace mode: function names shown, or NULL */
	int out_err;                           /* the first failed write (text, CTF) */
	uint64_t recorded;
	char msg[512];                         /* the last error's line */
	bool input;                            /* ... the user's input was wrong */
};

/*
 * hwbpi_output_open - once the tracer started: the trace mode's buffers
 * and the demangler, the CTF directory or the --folded file (created new,
 * so that a bad path fails before the run).
 * Errors: -ENOMEM, -EEXIST / -ENOTEMPTY (a CTF directory or --folded
 * file that is there; input), the errors of creating them.
 */
int hwbpi_output_open(struct hwbpi_output *o);

/*
 * hwbpi_output_drain - trace mode: what the rings hold into the outputs
 * now (cheap when nothing is pending).  Returns 0, or the first failed
 * write's negative errno (o->out_err: nothing more can be written, the
 * run should end).  The consumer's: one thread at a time.
 */
int hwbpi_output_drain(struct hwbpi_output *o);

/*
 * hwbpi_output_finish - the end of a run: with @ok the histogram (and
 * folded file) or the last events and the summary notes; without, what
 * was traced is kept (the CTF closed) and nothing printed.
 * Errors: -ENOMEM (the histogram), a failed write of the CTF trace or the
 * folded file (message set); a failed text write is left for the caller
 * to find as it closes the stream, errno set.
 */
int hwbpi_output_finish(struct hwbpi_output *o, bool ok);

/*
 * hwbpi_objects_print - the table of objects of each watch of objects of
 * @t (tracer/objects/objects.h), after the run, to @f.
 * Errors: -ENOMEM, -EIO (@f failed).
 */
int hwbpi_objects_print(FILE *f, const struct hwbpi_tracer *t);

/* Free what open made; a --folded file never written (the run did not
 * end well) is removed.  NULL-safe. */
void hwbpi_output_free(struct hwbpi_output *o);

/*
 * hwbpi_srcline_event - "file.c:LINE" of event @ev's access instruction
 * into @buf (@n bytes), or "?" when no line is known; returns @buf.
 * Cached per instruction.
 */
const char *hwbpi_srcline_event(const struct hwbpi_output *o, const struct hwbp_trace_event *ev,
				char *buf, size_t n);

/*
 * hwbpi_hist_print_col - hwbp_hist_print_flags() with one more column
 * before the Counter (@col NULL: none, the same table): its @title, and
 * per row the text @text writes for the row's key (its entry's func) into
 * a buffer of @n bytes (HWBPI_HIST_COL_BUF); @unit replaces "functions" in
 * the summary lines, which count distinct keys.  Not on a hit path.
 * Errors: as hwbp_hist_print_flags().
 */
#define HWBPI_HIST_COL_BUF 256
struct hwbpi_hist_column {
	const char *title;
	void (*text)(void *arg, uint64_t key, char *buf, size_t n);
	void *arg;
	const char *unit;
};
int hwbpi_hist_print_col(const struct hwbp_hist *h, const char *const *names,
			 const struct hwbp_symtab *syms, unsigned flags,
			 const struct hwbpi_hist_column *col, FILE *out);

/*
 * The histogram with stacks (hist_stacks.c): each entry's func field is
 * a stack id of @st, its kind the access kind.  Rows are made per
 * breakpoint, kind and the names of the stack's functions: stacks that
 * differ only in where a caller made its call (two return addresses in
 * one function) are one row, their counts added.
 *
 * hwbpi_hist_print_stacks - as hwbp_hist_print_flags (same @flags, same
 * columns), the Function column holding "bump <- work <- main" (the hit's
 * function, then its callers), each name shortened as the plain table
 * shortens names unless HWBP_HIST_WIDE; most hits first; then per
 * breakpoint "SYM: N stacks of M functions, overrun K".
 *
 * hwbpi_hist_write_folded - the same rows in the folded-stack format of
 * flamegraph.pl and inferno: "jiffies [W];main;work;bump 300", one line
 * per row, the root frame naming the watch and the kind, then the frames
 * outermost first, full names (demangled with HWBP_HIST_DEMANGLE), ';' in
 * a name written as ':' and control characters as '?' (the format's
 * separators), then a space and the count; rows in the table's order.
 *
 * Not on the hit path: they allocate.  Errors: -EINVAL (NULL, an unknown
 * flag), -ENOMEM, -EIO (the stream failed).
 */
/* Shared by hist.c and hist_stacks.c: the table's width for a function
 * name (HWBP_HIST_WIDE aside) and a buffer for one so shortened (60
 * characters of up to 4 bytes); "R", "W", "X", combinations in rwx order
 * ("RW"), or "?" for an unknown kind; breakpoint @bp's name, or "#bp". */
#define HWBPI_HIST_NAME_WIDTH 60
#define HWBPI_HIST_NAME_BUF (4 * HWBPI_HIST_NAME_WIDTH + 1)
void hwbpi_hist_kind_str(unsigned kind, char buf[4]);
const char *hwbpi_hist_bp_name(const char *const *names, unsigned bp, char buf[16]);

int hwbpi_hist_print_stacks(const struct hwbp_hist *h, const char *const *names,
			    const struct hwbp_symtab *syms, const struct hwbpi_stacks *st,
			    unsigned flags, FILE *out);
int hwbpi_hist_write_folded(const struct hwbp_hist *h, const char *const *names,
			    const struct hwbp_symtab *syms, const struct hwbpi_stacks *st,
			    unsigned flags, FILE *out);


/*
 * hwbpi_output_dry_run - --dry-run: the watches of @t, resolved and not
 * armed, onto @f: each one's bytes, the steps of a C expression's
 * resolution and the core's plan of its pieces on @cpu (@kernel: kernel
 * addresses), as text or (@json) one JSON object.
 * Errors: -EIO (a failed write).  Not on a hit path.
 */
int hwbpi_output_dry_run(FILE *f, const struct hwbpi_tracer *t, const struct hwbp_cpu *cpu,
			 bool kernel, bool json);

#endif /* HWBP_TRACER_OUTPUT_H */
