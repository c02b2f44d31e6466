/* SPDX-License-Identifier: MIT */
/*
 * The perf_event_open backend of the tracer (Linux only; tracer/backends/perf/perf.c):
 * every watch of a struct hwbpi_tracer is planned for the CPU model
 * (hwbp_plan) and each piece becomes one PERF_TYPE_BREAKPOINT event on the
 * traced process (man 2 perf_event_open; kernel/events/hw_breakpoint.c
 * does the slot accounting, arch/x86/kernel/hw_breakpoint.c the encoding).
 *
 * Two modes:
 *   counting  one counter per piece (cpu = -1, inherit = 1 so that threads
 *             and children created later count too); read() at the end
 *             gives each watch's total.  No per-hit stop, no IP: the
 *             tracer is not fed, only res->count[].
 *   sampling  sample_period = 1: every hit is a PERF_RECORD_SAMPLE with
 *             IP, TID, time, address and CPU in an mmap ring, fed to
 *             hwbpi_tracer_hit() (a histogram by function without a ptrace
 *             stop per hit).  The kernel refuses mmap() of an inherited
 *             per-task event (kernel/events/core.c perf_mmap(): "Don't
 *             allow mmap() of inherited per-task counters"), so, as
 *             `perf record` does, events are opened per (task, CPU) with
 *             inherit = 1 and every event of a CPU writes into that CPU's
 *             one ring (PERF_EVENT_IOC_SET_OUTPUT); samples say which
 *             event they came from through PERF_SAMPLE_IDENTIFIER (an
 *             inherited event reports its parent's id).  Start the tracer
 *             with hwbpi_kernel_ncpus() CPUs so that ev.cpu fits its rings.
 *
 * Events of a hit: ts = sample time (perf_clock, ns), ip = sample IP,
 * addr = the piece's address clamped into the watch (breakpoint samples
 * carry the breakpoint's address, not the access's), cpu, bp = watch index,
 * kind = HWBP_W/HWBP_X with HWBP_KIND_TYPE for W-only and X watches, else
 * 0 with HWBP_KIND_UNKNOWN (an x86 RW breakpoint does not say which).  A
 * watch split into several pieces counts once per piece an access touches.
 *
 * Processes:
 *   hwbpi_perf_run(argv)   fork; the child waits on a pipe before exec;
 *                          the events are opened on it with disabled = 1
 *                          and enable_on_exec = 1; then it execs.  For
 *                          watches at fixed addresses (non-PIE data).
 *   hwbpi_child_start(argv) + hwbpi_perf_trace(started = true)
 *                          for watches resolved after exec (PIE, shared
 *                          libraries): start forks a child that calls
 *                          PTRACE_TRACEME and execs; from the SIGTRAP
 *                          stop right after execve (man 2 ptrace,
 *                          "execve(2) under ptrace") it runs to its ELF
 *                          entry point (hwbpi_child_run_to_entry()) and
 *                          stays stopped there, so that /proc/PID/maps
 *                          holds the program and every library the
 *                          dynamic loader mapped.  trace opens the
 *                          events (enabled: the child is stopped) and
 *                          PTRACE_DETACHes it, which lets it run.  After a
 *                          start that is not followed by trace, call
 *                          hwbpi_child_kill().
 *   pid (argv NULL)        attach to a running process: every thread in
 *                          /proc/PID/task at the time, plus the threads
 *                          they create later (inherit); ends when the
 *                          process is gone or *opts->stop is set.
 *
 * Every error leaves one line for the user in @err (see perf.c say_open()).
 */
#ifndef HWBP_TRACER_PERF_H
#define HWBP_TRACER_PERF_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backends/linux/linux.h"

/* Data pages per CPU ring unless hwbpi_perf_opts.ring_pages says (128 KiB
 * with 4 KiB pages). */
#define HWBPI_PERF_RING_PAGES 32u

struct hwbpi_bpf;

struct hwbpi_perf_opts {
	bool sampling;                    /* else counting */
	unsigned ring_pages;              /* data pages per CPU ring, a power of two;
					     0: HWBPI_PERF_RING_PAGES */
	unsigned wakeup;                  /* samples per poll() wakeup; 0: 64 (the
					     kernel also wakes at half a ring) */
	bool drain_at_end;                /* read the rings only once the process
					     ended: a ring that fills loses the rest
					     (counted in lost; for tests) */
	volatile sig_atomic_t *stop;      /* optional: nonzero ends the trace (e.g.
					     set by a SIGINT handler); for a child of
					     ours, 1 passes *stop_sig on and waits for
					     its end, 2 (a second request) kills it */
	volatile sig_atomic_t *stop_sig;  /* optional: the signal to pass on to a
					     child of ours (0: none, it got it) */
	void (*drain)(void *arg);         /* optional: empties the tracer's rings,
					     called after each read of the kernel's */
	void *drain_arg;
	/* Kernel scope (hwbpi_perf_kernel): */
	bool kernel;                      /* kernel addresses, system-wide: one event
					     per piece and CPU, pid -1, exclude_user */
	const bool *cpus;                 /* [hwbpi_kernel_ncpus()]: the CPUs to watch
					     (NULL: every online CPU) */
	enum hwbpi_kinds kinds;           /* split RW pieces into kind events */
	struct hwbpi_bpf *bpf;            /* histogram mode: count in this BPF
					     program's maps, no samples (NULL: sample) */
	struct hwbpi_bpf *values_bpf;     /* trace mode, kernel scope: this program
					     of hwbpi_bpf_open_values() on every
					     event, and each CPU's output event in
					     its ring: samples carry the values */
	/* --stack (t->stack_depth > 0; sampling without bpf): how the
	 * callers are found (tracer/backends/linux/unwind.h); 0: the default.  Kernel
	 * scope takes the kernel's callchain whatever this says. */
	enum hwbpi_callgraph callgraph;
	/* Decode each data hit's instruction (sampling without bpf; an arch
	 * with a decoder: x86), from the sample's trap frame and the code of
	 * the function in @syms that holds it: its address, size and kind
	 * filter and attribute the hit, with no twin (unless kinds is
	 * exact, which keeps them).  @syms: the process's or the kernel's. */
	bool decode;
	const struct hwbp_symtab *syms;
};

struct hwbpi_perf_result {
	uint64_t count[HWBP_MAX_REQUESTS];  /* per watch: what the counters saw (its hits) */
	uint64_t raw;                       /* every event's count, kind events included */
	uint64_t samples;                   /* samples fed to hwbpi_tracer_hit() */
	uint64_t lost;                      /* samples the kernel dropped: PERF_RECORD_LOST,
					       or, if more, the counts minus the samples
					       (samples + lost == the counts' sum) */
	uint64_t unknown;                   /* samples of no event of ours (ignored) */
	uint64_t merged;                    /* samples of a second piece of a watch for
					       the same access (counted once) */
	unsigned events;                    /* perf events opened */
	unsigned pieces;                    /* pieces of all watches (slots per thread) */
	unsigned shared;                    /* watches sharing debug registers (0: none) */
	unsigned shared_slots;              /* the registers they share */
	uint64_t unattributed;              /* samples of a shared register that did not
					       decode: no watch could be told */
	uint64_t decoded;                   /* samples whose access was decoded (o->decode) */
	uint64_t undecoded;                 /* samples that were not (kinds as without) */
	int undecoded_err;                  /* why the first one was not */
	unsigned split;                     /* watches whose kinds come from kind events */
	unsigned unsplit;                   /* RW watches left without (no free slot) */
	bool kinds_broken;                  /* the kind self-test failed: none split */
	char kinds_why[256];                /* why, for a note */
	unsigned char split_how[HWBP_MAX_REQUESTS];  /* per watch: its hwbpi_linux_split, 0: none */
	int wstatus;                        /* wait status of a child we started, else 0 */
	/* --stack */
	unsigned max_stack;                 /* frames a callchain was allowed (sample_max_stack) */
	struct hwbpi_dwunw_stats unwind;    /* dwarf: what the unwinds cost */
	char stack_why[256];                /* why samples have no stacks, if they have none */
};

/*
 * Self-test: a W breakpoint on a variable that a forked child writes 100
 * times must count.  hwbpi_perf_trace()/run() run it once per process
 * before their first trace (and fail with its error), so that a machine
 * whose breakpoints never fire (some hypervisors) is reported as such,
 * never as "0 hits"; callable on its own too (e.g. before starting a CMD).
 * Errors: -ENODEV (the breakpoint counted nothing), the errors of
 *         perf_event_open as hwbpi_perf_trace() reports them, -ECHILD/-EIO
 *         (the test child went wrong).
 */
int hwbpi_perf_selftest(char *err, size_t errlen);

/*
 * Trace @pid until it ends (or *opts->stop): open the events of every
 * watch of @t planned for @cpu, let a @started child go (PTRACE_DETACH),
 * poll and feed samples, then read the counters into @res.  In sampling
 * mode @t must have been started (hwbpi_tracer_start) with
 * hwbpi_kernel_ncpus() CPUs.  A @started child is reaped (res->wstatus);
 * on error it is killed and reaped.
 * Errors (one line in @err): -EINVAL (no watch, bad argument, a watch of
 *         both data and execution, or the kernel refused a breakpoint),
 *         the planner's errors (-ERANGE, -EOPNOTSUPP, -EFAULT), -EACCES
 *         / -EPERM (perf_event_paranoid or ptrace access), -ENOSPC (no
 *         free debug register: the kernel's ENOSPC or EBUSY), -ENOENT /
 *         -EOPNOTSUPP (no breakpoint events in this kernel), -ESRCH (no
 *         such process), -ENOMEM, -EIO.
 */
int hwbpi_perf_trace(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, pid_t pid,
		     bool started, const struct hwbpi_perf_opts *opts,
		     struct hwbpi_perf_result *res, char *err, size_t errlen);

/*
 * One call: @argv non-NULL: fork, open the events with enable_on_exec on
 * the child held before its exec, release it, trace it to its end; else
 * trace the running process @pid.
 * Errors: those of hwbpi_perf_trace() and hwbpi_child_start().
 */
int hwbpi_perf_run(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, char *const argv[],
		   pid_t pid, const struct hwbpi_perf_opts *opts, struct hwbpi_perf_result *res,
		   char *err, size_t errlen);

/*
 * Kernel scope: trace the kernel addresses of every watch of @t on the
 * CPUs of opts->cpus (opts->kernel must be set) until *opts->stop, or,
 * with @argv, until that command (started after the events are open, so
 * its first instruction is watched) ends (res->wstatus).  In sampling
 * mode @t must have been started with hwbpi_kernel_ncpus() CPUs; with
 * opts->bpf the hits are counted in that program's maps (read them with
 * hwbpi_bpf_read() afterwards) and res->count[] has the kernel's own
 * counts to compare with.  Every event is closed on return.
 * Errors (one line in @err): those of hwbpi_perf_trace(), -EPERM (a
 * kernel address needs CAP_SYS_ADMIN), -ENODEV (the CPU's breakpoints
 * are off, e.g. POWER9's DAWR), -ENOENT and other execvp errors.
 */
int hwbpi_perf_kernel(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, char *const argv[],
		      const struct hwbpi_perf_opts *opts, struct hwbpi_perf_result *res,
		      char *err, size_t errlen);

/* The backend, for the registry. */
extern const struct hwbp_trace_backend hwbpi_backend_perf, hwbpi_backend_bpf;

#endif /* HWBP_TRACER_PERF_H */
