/* SPDX-License-Identifier: MIT */
/*
 * What a backend sees of its session: the interface of session/ toward
 * the backends (internal), and the one header of the tracer a backend
 * includes besides its own folder's (and, for the Linux backends,
 * backends/linux/linux.h).  It brings the folders below (util, insn,
 * symbols, events) with it.
 *
 * A backend's operations (struct hwbp_trace_backend in <hwbp/trace.h>)
 * are given the session; hwbpi_view() is all a backend does with it.  The
 * rest of the session (options of the outputs, the outputs themselves,
 * the state of a run) is the session's own (session/session_int.h).
 */
#ifndef HWBP_TRACER_SESSION_BACKEND_H
#define HWBP_TRACER_SESSION_BACKEND_H

#include <signal.h>
#include <stdbool.h>

#include <hwbp/trace.h>

#include "util/util.h"
#include "insn/insn.h"
#include "symbols/symbols.h"
#include "events/events.h"

#define HWBPI_SESSION_MAX_SYMFILES 8
/* The largest trace-mode ring per CPU (--buffer-kb 65536): 64 MiB holds
 * over a million events, and the rings are allocated for every CPU. */
#define HWBPI_RING_MAX_BYTES ((size_t)64 << 20)

struct hwbpi_dwarf;

struct hwbpi_view {
	const struct hwbp_trace_backend *backend;
	void *bstate;                          /* the backend's, from open to close */
	/* given before open, read by the backend */
	char *const *argv;                     /* -- CMD, or NULL */
	bool have_cpu;                         /* --cpu given: cpu is it */
	struct hwbp_cpu cpu;                   /* else the backend's open sets its default */
	const char *symfile[HWBPI_SESSION_MAX_SYMFILES];   /* --symbols: a backend that reads */
	unsigned nsymfile;                     /* them itself sets nsymfile to 0 */
	struct hwbp_trace_mode mode;
	struct hwbpi_dwarf *dwarf;             /* the debug files of the traced files */
	bool arm_nothing;                      /* --dry-run: open resolves, nothing is armed
					       * (a backend skips its firing self-test) */
	bool percpu_all;                       /* --percpu-all: each copy of a per-CPU
					       * variable watched on every CPU */
	/* set by the backend's open */
	struct hwbp_symtab *syms;
	bool syms_finished;                    /* the backend finished the table */
	const char *const *default_entries;    /* watched when none is given */
	/* where typed names (types/types.h) read pointers when the watches
	 * are resolved (read NULL: nothing; none says why), and whose types
	 * they are: a process's files (dwarf above), or the running kernel's
	 * BTF and --vmlinux, whose addresses run at file address + kaslr */
	struct hwbpi_tmem mem;
	long mem_pid;                          /* the process mem.read reads */
	bool kernel;
	int64_t kaslr;
	/* set by the backend's open, or NULL: called once the watches are
	 * resolved, before anything is planned, to place what only the
	 * backend can (per-CPU copies); an error sets the message */
	int (*place)(struct hwbpi_view *s);
	unsigned ncpus;
	/* the watches to arm (t.w[0..nw)) and where hits go (hwbpi_tracer_hit) */
	struct hwbpi_tracer t;
	volatile sig_atomic_t stop;            /* hwbp_trace_session_stop() was called */
	volatile sig_atomic_t stop_sig;        /* with a signal for a started command */
	/* results */
	bool have_status;                      /* a started command's wait status */
	int status;
	char msg[512];                         /* hwbpi_fail()'s */
	bool input;
};

/* The view of session @s: what a backend's operation does first.  Any
 * context. */
static inline struct hwbpi_view *hwbpi_view(struct hwbp_trace_session *s)
{
	return (struct hwbpi_view *)(void *)s;
}

/* Set the session's message (one line) and whether it was the caller's
 * input; returns @ret, so that `return hwbpi_fail(s, -EINVAL, true, ...)`. */
int hwbpi_fail(struct hwbpi_view *s, int ret, bool input, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A note for the user on the session's diag stream (the prefix before it). */
void hwbpi_note(struct hwbpi_view *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The value of option @name, NULL when not given (a flag's value is ""). */
const char *hwbpi_session_opt(const struct hwbpi_view *s, const char *name);

/* Trace mode: take what the rings hold into the outputs now (the backend
 * calls it between batches of work; cheap when nothing is pending). */
void hwbpi_session_drain(struct hwbpi_view *s);

#endif /* HWBP_TRACER_SESSION_BACKEND_H */
