/* SPDX-License-Identifier: MIT */
/*
 * Events, the interface of events/ (internal): watched entries resolved
 * against a symbol table, and the event-management layer they feed (a
 * histogram, or per-CPU rings), with the stacks of hits (events/stacks.h)
 * and the histogram's additions (events/hist_add.h).  Used by the
 * folders above it: output, session, backends.
 */
#ifndef HWBP_TRACER_EVENTS_H
#define HWBP_TRACER_EVENTS_H

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>
#include <hwbp/trace.h>

#include "util/util.h"
#include "symbols/symbols.h"
#include "types/types.h"
#include "objects/objects.h"
#include "events/hist_add.h"
#include "events/stacks.h"

#define HWBPI_TRACE_MAX_CPUS HWBP_SIM_MAX_CPUS


/* One watched entry (a breakpoint of the histogram). */
struct hwbpi_watch {
	char name[HWBP_TRACE_SYM_LEN + 32];  /* "pid_max", "buf+8", "0x1000" */
	uint64_t addr, len;
	unsigned type;                       /* HWBP_R/W/X bits */
	bool entry;                          /* SYM:--x without /LEN: len is the CPU's
					      * instruction (hwbpi_watch_len) */
	bool len_given;                      /* the entry said /LEN */
	const struct hwbp_sym *sym;          /* the symbol it names, or NULL (0xADDR, TLS) */
	int req;                             /* request id once installed, else -1 */
	/* A thread-local variable of the executable (tracer/symbols/tls.h): each
	 * thread's copy is at its TLS block + addr (the offset in the block,
	 * +OFF included); only a backend with HWBP_TRACE_BACKEND_TLS knows
	 * where that is. */
	bool tls;
	uint64_t tls_memsz, tls_align;       /* the executable's PT_TLS p_memsz, p_align */
	bool pattern;                        /* one of a glob's matches: watched only when
					      * the CPU has room left (the session's
					      * fit_patterns()) */
	/* A C expression's (types/types.h): a bitfield's bits in the watched
	 * bytes (width 0: none), what the last step's type is, and, for a
	 * per-CPU variable, addr is its offset: each CPU's copy is at that
	 * CPU's __per_cpu_offset + addr (the kernel backends place it). */
	uint8_t bit_shift, bit_width;
	unsigned on_cpu;                     /* 0: watched on every CPU; c + 1: on CPU c
					      * only (a per-CPU copy: its CPU's) */
	bool expr;
	bool percpu;
	char type_name[HWBPI_TYPE_NAME_LEN];
	struct hwbpi_tstep step[HWBPI_EXPR_MAX_STEPS + 1];   /* the resolution (--dry-run) */
	uint8_t nsteps;
	/* A watch of objects (objects/objects.h): no address of its own
	 * (addr 0); each object the arming function is given is watched at
	 * its address + obj.off, len bytes, by a backend with
	 * HWBP_TRACE_BACKEND_OBJECTS, and kept in objs (allocated by
	 * hwbpi_tracer_start()). */
	bool object;
	struct hwbpi_objspec obj;
	struct hwbpi_objtab objs;
};

/* The length to plan for watch @w on @cpu: its own, or for an execute
 * watch of a symbol without /LEN one instruction at the symbol (1 byte on
 * x86, 4 on arm64 and powerpc: caps.inst_len), a breakpoint on entry. */
uint64_t hwbpi_watch_len(const struct hwbpi_watch *w, const struct hwbp_cpu *cpu);

struct hwbpi_tracer {
	const struct hwbp_symtab *syms;
	/* typed names: the session's type sources and where pointers are
	 * read when a watch is resolved (types/types.h); NULL, none */
	struct hwbpi_typer *typer;
	struct hwbpi_tmem mem;
	struct hwbpi_watch w[HWBP_MAX_REQUESTS];
	unsigned nw;
	/* event management */
	bool trace;                          /* rings instead of the histogram */
	unsigned hist_entries;
	struct hwbp_hist hist;
	struct hwbp_ring *ring[HWBPI_TRACE_MAX_CPUS];
	unsigned ncpus;
	uint64_t hits;                       /* histogram mode (trace mode: the rings count) */
	uint64_t filtered;
	uint64_t stray;                      /* events for a CPU >= ncpus (dropped) */
	const struct hwbpi_ksyms *ksyms;     /* --kernel: which symbols are per-CPU
					      * variables (watched on each CPU's copy);
					      * NULL otherwise */
	const char *missing_hint;            /* appended to "no symbol" (why a kernel may
					      * lack it), or NULL */
	uint64_t func_adjust;                /* subtracted from a data hit's IP to name its
					      * function: the trap IP of x86 and powerpc is
					      * the next instruction (hwbpi_linux_trap_ip_adjust) */
	bool key_ip;                         /* --sort srcline: histogram entries keyed by
					      * the access's instruction
					      * (hwbpi_tracer_func_ip), not its function */
	/* histogram mode: (ip, bp, kind) -> entry, so that a hit from an
	 * instruction seen before costs one compare (see tracer/events/hit.c) */
	struct hwbpi_hit_cache *cache;
	/* --stack=N: callers wanted per hit (0: no stacks); a backend that
	 * can see them passes them to hwbpi_tracer_hit_frames() */
	unsigned stack_depth;
	struct hwbpi_stacks *stacks;         /* the interned stacks (stacks.c), or NULL */
	/* watches of objects: --release's text (every such watch's release
	 * point), --objects (entries per watch; 0: HWBPI_OBJ_DEFAULT) and
	 * --rotate (ns between two rotations of the slots; 0: the default) */
	const char *release;
	unsigned nobjects;
	uint64_t rotate_ns;
	bool key_site;                       /* --sort site: an object's hits keyed in the
					      * histogram by where it was armed (the backend
					      * gives the site as the event's ip) */
};

/*
 * A CPU model given with --cpu to a backend of a real kernel (@backend:
 * "ptrace", "perf") must be one that kernel can program, @native its own:
 * the same architecture, no more slots of either kind and no longer
 * pieces.  A smaller model is fine (i386 on x86_64; cortex-a57 on an arm64
 * kernel with 4 watchpoints); another arch's plan would be encoded for the
 * wrong registers and count the wrong hits.
 * Returns 0, or -EINVAL with a one-line reason in @err.
 */
int hwbpi_model_fits(const char *backend, const struct hwbp_cpu *want,
		     const struct hwbp_cpu *native, char *err, size_t errlen);

/*
 * Add, remove (type 0) or clear ("*", type 0) a watch from a parsed filter
 * entry, resolving the symbol (hwbpi_symtab_resolve: also by its
 * demangled name).  A name no symbol has that holds '*', '?' or '['
 * is a pattern: one watch per matching symbol (hwbpi_symtab_glob: data
 * symbols, functions when the type has x), in address order, named as
 * each matched; PAT:--- removes the watches of the symbols it matches.
 * On error, @err holds one line for the user; on success it holds a
 * note for the user when non-empty (a pattern's matches), else "".
 * Errors: -ENOENT (no such symbol, or nothing matches the pattern),
 *         -EINVAL (no length known, or "*" with a type, or a function
 *         name without parameters that several overloads have), -ENOSPC
 *         (more than HWBP_MAX_REQUESTS watches, or a pattern matching
 *         more symbols), -ERANGE (a range wrapping past 2^64), -ENOMEM.
 *         A failure leaves the watches as they were.
 */
int hwbpi_tracer_apply(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e,
		       char *err, size_t errlen);

/*
 * hwbpi_watch_object_form - whether entry name @sym names the objects a
 * function is given (hwbpi_objspec_parse()) rather than a symbol: 1 and
 * *@spec, 0 when it has no such form or a symbol of @syms (may be NULL)
 * has that name by any of its names ("app::bump(int)"), or -EINVAL with
 * *@col and *@msg for a malformed one.  No allocation but the symbol
 * table's index of demangled names.
 */
int hwbpi_watch_object_form(const struct hwbp_symtab *syms, const char *sym,
			    struct hwbpi_objspec *spec, unsigned *col, const char **msg);

/* Set up the histogram (or rings of @ring_bytes each) for @ncpus CPUs;
 * after this no allocation happens until hwbpi_tracer_fini(). */
int hwbpi_tracer_start(struct hwbpi_tracer *t, unsigned ncpus, bool trace, size_t ring_bytes,
		       bool overwrite);
void hwbpi_tracer_fini(struct hwbpi_tracer *t);

/* The hit path: one event into the histogram or the CPU's ring.  Trace
 * mode: one caller per CPU may run at once (each touches only its CPU's
 * ring); histogram mode: one caller at a time. */
void hwbpi_tracer_hit(struct hwbpi_tracer *t, const struct hwbp_trace_event *ev);

/*
 * The hit path with a call stack: as hwbpi_tracer_hit(), keyed (histogram
 * mode) or tagged (trace mode: ev->stack) by @ev's function and @callers,
 * the return addresses of its callers, innermost first (@ev->ip is not
 * among them; at most t->stack_depth are used, the first 0 ends them;
 * @callers may be NULL when @n is 0).  The stack is interned in
 * t->stacks (tracer/events/stacks.h); trace mode sets ev->stack to its id, or 0
 * when the CPU's part of the table is full (counted: hwbpi_stacks_lost).
 * Without t->stacks (no --stack) it is hwbpi_tracer_hit() with
 * ev->stack 0; with it, hwbpi_tracer_hit() is this with no callers.
 * Allocation-free, lock-free, no system call; the same callers rule as
 * hwbpi_tracer_hit().
 */
void hwbpi_tracer_hit_frames(struct hwbpi_tracer *t, struct hwbp_trace_event *ev,
			     const uint64_t *callers, unsigned n);

/* The IP that names event @ev's function: its IP less t->func_adjust
 * for a data hit (a trap after the access reports the next instruction:
 * this lands inside the access instruction), its IP for an execute
 * breakpoint (a fault: the instruction itself).  The histogram keys a
 * hit in no function by it (hwbp_hist_entry.func), --sort srcline keys
 * every hit by it, and the outputs print it as hwbpi_symtab_describe()
 * says.  The hit path's; no allocation. */
static inline uint64_t hwbpi_tracer_func_ip(const struct hwbpi_tracer *t,
					    const struct hwbp_trace_event *ev)
{
	return ev->kind == HWBP_X ? ev->ip : ev->ip - t->func_adjust;
}

/* The function of event @ev's access: hwbpi_tracer_func_ip() in t->syms;
 * NULL if none.  No allocation. */
const struct hwbp_sym *hwbpi_tracer_func(const struct hwbpi_tracer *t,
					 const struct hwbp_trace_event *ev);

/* Hits so far: the histogram's count, or the sum of the rings' produced
 * counts (plus dropped events of unknown CPUs).  Read it once the
 * producers stopped (or accept a count that is a moment old). */
uint64_t hwbpi_tracer_hits(const struct hwbpi_tracer *t);

/*
 * Trace mode, a real process: how many hits a ring takes between two runs
 * of its consumer without a loss: half its capacity (one hit is one event
 * of one CPU's ring), at most @most (each run costs a pass over what came).
 * 0 in histogram mode: there is nothing to drain.
 */
uint64_t hwbpi_tracer_drain_every(const struct hwbpi_tracer *t, uint64_t most);

/* (hwbpi_hist_add_n, hwbpi_hist_overrun: hist_add.h) */

#endif /* HWBP_TRACER_EVENTS_H */
