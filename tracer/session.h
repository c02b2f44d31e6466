/* SPDX-License-Identifier: MIT */
/*
 * The tracer session behind include/hwbp/trace.h (internal): what a
 * backend's operations see of it, and the helpers they share.
 */
#ifndef HWBP_TRACER_SESSION_H
#define HWBP_TRACER_SESSION_H

#include <signal.h>

#include "tracer.h"

#define HWBPI_SESSION_MAX_OPTS 16
#define HWBPI_SESSION_MAX_SYMFILES 8
#define HWBPI_SESSION_MAX_ENTRIES (2 * HWBP_MAX_REQUESTS)
#define HWBPI_DRAIN_EVENTS (1u << 16)
/* The longest --filter-file line (its newline aside): long enough for any
 * entry and comment a person writes, short enough that a file without
 * newlines ends with an error rather than eating memory. */
#define HWBPI_FILTER_LINE_MAX 65536u
/* The largest trace-mode ring per CPU (--buffer-kb 65536): 64 MiB holds
 * over a million events, and the rings are allocated for every CPU. */
#define HWBPI_RING_MAX_BYTES ((size_t)64 << 20)
#define HWBPI_FILTER_LINE_MAX_TEXT "65536"
/* --stack without a depth (and --folded without --stack): 8 callers, as
 * deep as a histogram row stays readable. */
#define HWBPI_STACK_DEFAULT 8u

struct hwbpi_ctf;
struct hwbpi_demangler;
struct hwbpi_dwarf;

/* --sort KEY: what a histogram entry counts (session.c's table). */
enum hwbpi_sort {
	HWBPI_SORT_FUNCTION,                   /* the access's function (default) */
	HWBPI_SORT_SRCLINE,                    /* its source line (tracer/srcline.c) */
	HWBPI_SORT_STACK,                      /* its call stack: as "stack" (depth 8) */
};

struct hwbp_trace_session {
	const struct hwbp_trace_backend *backend;
	void *bstate;                          /* the backend's, from open to close */
	bool opened, prepared, ran;
	/* the backend's options (borrowed strings) */
	struct {
		const char *name, *value;
	} opt[HWBPI_SESSION_MAX_OPTS];
	unsigned nopt;
	char *const *argv;                     /* -- CMD, or NULL */
	/* the CPU: given (--cpu), else the backend's default */
	bool have_cpu;
	struct hwbp_cpu cpu;
	const char *symfile[HWBPI_SESSION_MAX_SYMFILES];
	unsigned nsymfile;
	/* entries and filter files, in the order given */
	struct {
		const char *text, *where;      /* where NULL: text is a filter file */
	} entry[HWBPI_SESSION_MAX_ENTRIES];
	unsigned nentry;
	struct hwbp_trace_mode mode;
	struct hwbp_trace_output out;
	bool force;                            /* option "force": CTF may replace */
	bool no_demangle;                      /* option "no-demangle": names as they are */
	bool wide;                             /* option "wide": full names in the histogram */
	unsigned stack_depth;                  /* option "stack": callers per hit (0: none) */
	const char *folded;                    /* option "folded": the file, or NULL */
	FILE *folded_f;                        /* it, created at prepare, closed at the end */
	/* debug information (tracer/srcline.c) */
	bool srcline;                          /* option "srcline": trace events' lines */
	const char *debug_dir;                 /* option "debug-dir": one more root, or NULL */
	const char *sort;                      /* option "sort", or NULL */
	enum hwbpi_sort sort_key;
	struct hwbpi_dwarf *dwarf;             /* the traced files, from prepare to free */
	char debug_hint[600];                  /* "no symbol": no debug file was found */
	/* set by the backend's open */
	struct hwbp_symtab *syms;
	bool syms_finished;                    /* the backend finished the table */
	const char *const *default_entries;    /* watched when none is given */
	unsigned ncpus;
	/* while running */
	struct hwbpi_tracer t;
	bool tracer_started;
	struct hwbpi_ctf *ctf;
	struct hwbp_trace_event *drain;        /* trace mode: HWBPI_DRAIN_EVENTS, for sorting */
	size_t *line_end;                      /* text: HWBPI_DRAIN_EVENTS line ends */
	struct hwbpi_demangler *dm;            /* trace mode: function names shown, or NULL */
	int out_err;                           /* the first failed write (text, CTF) */
	uint64_t recorded, polls;
	volatile sig_atomic_t stop;
	volatile sig_atomic_t stop_sig;        /* for a started command (stop_signal) */
	/* results */
	bool have_status;
	int status;
	char msg[512];
	bool input;
};

/* Set the session's message (one line) and whether it was the caller's
 * input; returns @ret, so that `return hwbpi_fail(s, -EINVAL, true, ...)`. */
int hwbpi_fail(struct hwbp_trace_session *s, int ret, bool input, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A note for the user on the session's diag stream (the prefix before it). */
void hwbpi_note(struct hwbp_trace_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The value of option @name, NULL when not given (a flag's value is ""). */
const char *hwbpi_session_opt(const struct hwbp_trace_session *s, const char *name);

/* Trace mode: take what the rings hold into the outputs now (the backend
 * calls it between batches of work; cheap when nothing is pending). */
void hwbpi_session_drain(struct hwbp_trace_session *s);

#endif /* HWBP_TRACER_SESSION_H */
