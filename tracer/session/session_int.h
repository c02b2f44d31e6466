/* SPDX-License-Identifier: MIT */
/*
 * The tracer session behind include/hwbp/trace.h: session/'s private
 * header.  Its backends see only its view (session/backend.h).
 */
#ifndef HWBP_TRACER_SESSION_H
#define HWBP_TRACER_SESSION_H

#include <signal.h>

#include "session/backend.h"
#include "output/output.h"

#define HWBPI_SESSION_MAX_OPTS 16
#define HWBPI_SESSION_MAX_ENTRIES (2 * HWBP_MAX_REQUESTS)
/* The longest --filter-file line (its newline aside): long enough for any
 * entry and comment a person writes, short enough that a file without
 * newlines ends with an error rather than eating memory. */
#define HWBPI_FILTER_LINE_MAX 65536u
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
	HWBPI_SORT_SRCLINE,                    /* its source line (tracer/output/srcline.c) */
	HWBPI_SORT_STACK,                      /* its call stack: as "stack" (depth 8) */
	HWBPI_SORT_SITE,                       /* an object's: where it was armed */
};

struct hwbp_trace_session {
	/* What its backend sees (session/backend.h); first, so that the
	 * session a backend's operation is given is its view too
	 * (hwbpi_view()). */
	struct hwbpi_view v;
	bool opened, prepared, ran;
	/* the backend's options (borrowed strings) */
	struct {
		const char *name, *value;
	} opt[HWBPI_SESSION_MAX_OPTS];
	unsigned nopt;
	/* entries and filter files, in the order given */
	struct {
		const char *text, *where;      /* where NULL: text is a filter file */
	} entry[HWBPI_SESSION_MAX_ENTRIES];
	unsigned nentry;
	struct hwbp_trace_output out;
	bool force;                            /* option "force": CTF may replace */
	bool no_demangle;                      /* option "no-demangle": names as they are */
	bool wide;                             /* option "wide": full names in the histogram */
	bool dry_run;                          /* option "dry-run": resolve and plan, arm nothing */
	bool json;                             /* option "json": --dry-run's output as JSON */
	unsigned stack_depth;                  /* option "stack": callers per hit (0: none) */
	const char *folded;                    /* option "folded": the file, or NULL */
	/* debug information (tracer/output/srcline.c) */
	bool srcline;                          /* option "srcline": trace events' lines */
	const char *debug_dir;                 /* option "debug-dir": one more root, or NULL */
	const char *sort;                      /* option "sort", or NULL */
	const char *objects, *rotate;          /* options "objects" (entries per watch of
					       * objects), "rotate" (ms), or NULL */
	const char *objects_log;               /* option "objects-log" (a file), or NULL */
	enum hwbpi_sort sort_key;
	char debug_hint[600];                  /* "no symbol": no debug file was found */
	/* while running */
	bool tracer_started;
	uint64_t polls;
	struct hwbpi_output o;                 /* the outputs, from prepare to free */
	/* results */
};

/* debuginfo.c: before the backend opens, the options of debug
 * information checked and s->v.dwarf made (errors as the session's
 * message: -EINVAL, -ENOENT, -ENOTDIR, -EACCES for --debug-dir,
 * -EOPNOTSUPP without libdw, -ENOMEM; a second call keeps what the first
 * made); once it loaded its symbols, the notes on the debug files read and
 * the hint for "no symbol" errors. */
int hwbpi_debuginfo_open(struct hwbp_trace_session *s);
void hwbpi_debuginfo_loaded(struct hwbp_trace_session *s);

#endif /* HWBP_TRACER_SESSION_H */
