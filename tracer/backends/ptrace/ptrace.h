/* SPDX-License-Identifier: MIT */
/*
 * The ptrace backend of the tracer (internal, Linux only): watch a program
 * or a running process with the CPU's debug registers, written into each of
 * its threads through ptrace(2), and feed every hit to the tracer.
 *
 * Two phases, so that watches are resolved against the running program's
 * symbols (a PIE and its libraries are placed at load time):
 *
 *   struct hwbpi_ptrace *s;
 *   hwbpi_ptrace_start(&s, argv, err, n)     (or hwbpi_ptrace_attach(&s, pid, ...))
 *       -> the process is stopped: for -- CMD at its ELF entry point, with
 *          the executable, ld.so and every DT_NEEDED library mapped
 *   hwbpi_proc_load_symbols(syms, hwbpi_ptrace_pid(s), NULL); hwbp_symtab_finish(syms);
 *   hwbpi_tracer_apply(t, entry, ...)...; hwbpi_tracer_start(t, 1, ...);
 *   hwbpi_ptrace_trace(s, t, cpu, &status, err, n)   runs to the end
 *   hwbpi_ptrace_free(s);
 *
 * What is watched (decided here, tested in tests/unit/test_ptrace.c):
 *  - every thread of the process, including threads created later
 *    (PTRACE_O_TRACECLONE: each new thread is armed at its first stop,
 *    because Linux gives a new thread no ptrace breakpoints:
 *    arch/x86/kernel/process.c copy_thread() clears ptrace_bps);
 *  - children the program forks (PTRACE_O_TRACEFORK/TRACEVFORK): fork
 *    copies the address space, so the same addresses hold the same
 *    variables; the tracer arms the child itself (Linux clears a forked
 *    child's debug registers) and its hits count with the parent's;
 *  - a thread-local variable of the executable (hwbpi_watch.tls) in each
 *    thread's own copy: its TLS block from its thread pointer at its
 *    first stop (hwbpi_linux_tls_block()), the plan's requests moved
 *    there with hwbp_modify() whenever another thread's registers are
 *    written or its hit decoded (the same pieces in the same slots: the
 *    copies are equally aligned), and a shadow per thread;
 *  - not after an exec in a child: exec replaces the address space and
 *    Linux drops the ptrace breakpoints (flush_thread() ->
 *    flush_ptrace_hw_breakpoint()); such a process runs on unwatched.
 *
 * The debug registers are the arch's (tracer/backends/linux/glue.h, arch/<a>/linux.c):
 * x86_64 DR0-DR7 through PTRACE_POKEUSER; arm64 DBGWCR/DBGBCR through
 * PTRACE_SETREGSET NT_ARM_HW_WATCH / NT_ARM_HW_BREAK, with the kernel's
 * slot counts as the CPU model (hwbpi_ptrace_cpu()); powerpc one DAWR or
 * DABR through PPC_PTRACE_SETHWDEBUG.  Where the exception comes before
 * the access (arm64 watchpoints and breakpoints, powerpc DAWR) and Linux
 * leaves the step to the tracer (do_watchpoint(): no step for ptrace's
 * overflow handler), the thread's slots are cleared, it single-steps the
 * instruction, and they are written back: one hit per access, as on x86.
 *
 * Events: ts CLOCK_MONOTONIC ns (at the trap), ip = the thread's PC at
 * the trap (x86 data breakpoints are traps: RIP is the instruction after
 * the access, Intel SDM vol. 3 §17.3.1.2; x86 execute breakpoints and
 * every arm64 one are taken before: PC is the instruction), addr = the
 * watch's address (x86 DR6 names the slot, not the data address; arm64's
 * FAR is only near it; a thread-local watch's: the thread's own copy),
 * cpu 0, bp = the watch index, size 0, tid = the thread, value (and for
 * a write old) = the watched bytes after (and before) the access, their
 * first 8 (x86: before is the shadow, the bytes at the previous hit;
 * where the hit is stepped over, read at the trap).  Kind:
 * neither says read or write to a tracer, so it comes from the watched
 * bytes, after the access, compared with a shadow copy taken at the
 * previous hit: changed -> W (HWBP_KIND_VALUE); unchanged -> W for a
 * write-only watch, X for an execute watch (HWBP_KIND_TYPE), else unknown
 * (0).  A write of the value already there is unknown, and two threads
 * trapping on the same watch at once can leave the second one's write
 * unknown.  An R watch widened to RW (x86) drops hits whose bytes changed
 * (counted in t->filtered); where R is native (arm64 LSC = load) every
 * hit is R (HWBP_KIND_TYPE), an atomic read-modify-write included (it
 * reads).
 *
 * Callers: start/attach, trace and free must run in one thread (Linux
 * ties a tracee to the tracing thread, man 2 ptrace "tracer").  The
 * tracing loop waits with waitpid(-1, __WALL): it may also reap other
 * children of the caller that end meanwhile.  With rings (t->trace) all
 * events go to ring 0 and nothing drains it during the run: size it for
 * the run, or drain it from another thread.
 *
 * Builds: Linux on x86_64, aarch64 and ppc64 (the CPUs with an
 * arch/<a>/linux.c).  Tested on x86_64 hosts and in an aarch64 Linux
 * guest; the powerpc glue (PPC_PTRACE_SETHWDEBUG: one data breakpoint
 * per thread, no instruction breakpoint) is built but has not run yet.
 */
#ifndef HWBP_TRACER_PTRACE_H
#define HWBP_TRACER_PTRACE_H

#include <sys/types.h>

#include "backends/linux/linux.h"

struct hwbpi_ptrace;

/*
 * hwbpi_ptrace_selftest - fork a child, watch one of its variables, and
 * check that its 3 writes give 3 hits.  The result is remembered: later
 * calls cost nothing.  start and attach run it first.
 * Errors (@err: one line): -EPERM (ptrace not permitted),
 *         -ENODEV ("hardware breakpoints do not fire on this machine":
 *         some hypervisors drop the guest's debug registers),
 *         -EOPNOTSUPP (no debug registers for ptrace: kernel, CPU, or an
 *         arch whose glue is missing), -ENOMEM, other fork/wait errors.
 */
int hwbpi_ptrace_selftest(char *err, size_t errlen);

/*
 * hwbpi_ptrace_start - run @argv (PATH searched) under ptrace and stop it
 * at its ELF entry point (AT_ENTRY of /proc/PID/auxv, reached with a
 * hardware execute breakpoint, so no code byte is changed), where the
 * executable and its DT_NEEDED libraries are mapped.  The process is
 * killed when the tracer dies (PTRACE_O_EXITKILL).
 * Errors: those of the self-test; -ENOENT, -EACCES... (@argv[0] cannot
 *         be run), -EPERM (ptrace not permitted), -ECHILD (it exited or was
 *         killed before its entry point), -EINVAL, -ENOMEM.
 */
int hwbpi_ptrace_start(struct hwbpi_ptrace **out, char *const argv[], char *err,
		       size_t errlen);

/*
 * hwbpi_ptrace_start_fn - the same for a function run in a forked child
 * (the tests, the self-test): the child stops before calling @fn(@arg)
 * and exits with its return value.  Errors: as hwbpi_ptrace_start().
 */
int hwbpi_ptrace_start_fn(struct hwbpi_ptrace **out, int (*fn)(void *), void *arg,
			  char *err, size_t errlen);

/*
 * hwbpi_ptrace_attach - PTRACE_SEIZE and PTRACE_INTERRUPT every thread of
 * @pid (/proc/PID/task) and leave them stopped.  Unlike start, the process
 * is left running (detached, watches removed) when tracing is stopped with
 * hwbpi_ptrace_request_stop() or the session freed.
 * Errors: those of the self-test; -ESRCH (no such process), -EPERM (not
 *         permitted: another tracer, or kernel.yama.ptrace_scope), -EINVAL,
 *         -ENOMEM.
 */
int hwbpi_ptrace_attach(struct hwbpi_ptrace **out, pid_t pid, char *err, size_t errlen);

/*
 * hwbpi_ptrace_open_unarmed - hwbpi_ptrace_attach() (@pid > 0) or
 * hwbpi_ptrace_start() (@argv) without the self-test, for a session that
 * arms nothing (--dry-run: its symbols and memory are read, whether the
 * debug registers fire is not its question).  Errors: theirs, the
 * self-test's aside.
 */
int hwbpi_ptrace_open_unarmed(struct hwbpi_ptrace **out, char *const argv[], pid_t pid,
			      char *err, size_t errlen);

/* The traced process (thread group leader). */
pid_t hwbpi_ptrace_pid(const struct hwbpi_ptrace *s);

/*
 * hwbpi_ptrace_cpu - the CPU model of the kernel's debug registers for
 * the traced process (x86_64: the x86_64 preset; arm64: the slot counts
 * Linux reports), the default of hwbpi_ptrace_trace().  A caller's --cpu
 * is checked against it there.
 * Errors: -EINVAL (NULL).
 */
int hwbpi_ptrace_cpu(const struct hwbpi_ptrace *s, struct hwbp_cpu *cpu);

/*
 * hwbpi_ptrace_trace - plan the watches t->w[0..nw) for @cpu (NULL: the
 * kernel's model, hwbpi_ptrace_cpu(); else a model of the same arch with
 * no more slots or longer pieces) as requests of one hwbp task (the
 * slots of each thread, shared by all watches), arm every thread, run until the
 * process and every traced child are gone (or a stop is requested), and
 * feed each hit to hwbpi_tracer_hit().  t->w[i].req gets the request id.
 * hwbpi_tracer_start() must have been called (ncpus >= 1: events carry
 * cpu 0).  *@status (may be NULL) gets the process's wait status (0 when
 * detached).  Call once per session.
 * Errors (@err: one line naming the watch): -ENOSPC ("NAME: no free debug
 *         register: N of M in use"), the planner's other errors
 *         (-EOPNOTSUPP, -ERANGE, -EINVAL: rw and x together), -EOPNOTSUPP
 *         (a piece the kernel cannot program through ptrace: an arm64
 *         MASK block, more than 8 bytes), -EINVAL (a @cpu of another
 *         arch or with more slots than the kernel's), -EIO (the kernel
 *         refused the debug registers), -ENOMEM; a thread-local watch:
 *         -EOPNOTSUPP (a thread without a thread pointer yet: a static
 *         program at its entry), -ENOSPC (a thread's copy would need
 *         other slots than the first thread's), ending the trace.
 */
int hwbpi_ptrace_trace(struct hwbpi_ptrace *s, struct hwbpi_tracer *t,
		       const struct hwbp_cpu *cpu, int *status, char *err, size_t errlen);

/*
 * hwbpi_ptrace_request_stop - async-signal-safe: make a running
 * hwbpi_ptrace_trace() stop soon.  An attached process is detached: every
 * thread stopped, its debug registers cleared, then PTRACE_DETACH with
 * any signal it was stopped for; it runs on untouched.  A started one
 * is sent @sig (0: none, e.g. the terminal sent it the signal itself) and
 * traced on until it ends, as under perf record; a second request kills
 * it (SIGKILL).  Once it has ended, its traced children are killed (as
 * PTRACE_O_EXITKILL would).  Install the signal handler without
 * SA_RESTART so that the tracer's waitpid() returns.
 */
void hwbpi_ptrace_request_stop(int sig);

/*
 * hwbpi_ptrace_armed_left - how many threads were detached with a debug
 * register still enabled after clearing and reading back (twice): 0
 * unless the kernel kept a slot (hwbpi_ptrace_disarm()).  No error.
 */
unsigned hwbpi_ptrace_armed_left(const struct hwbpi_ptrace *s);

/*
 * hwbpi_ptrace_set_drain - while hwbpi_ptrace_trace() runs, call @fn(@arg)
 * every 256 hits or half a ring, whichever is fewer (between two stops,
 * never on the hit path itself): the
 * consumer that empties trace mode's rings, so that a long trace keeps
 * every event a ring of the default size would drop.  It runs on the
 * event loop's thread, the rings' only producer, between two stops.
 */
void hwbpi_ptrace_set_drain(struct hwbpi_ptrace *s, void (*fn)(void *arg), void *arg);

/*
 * hwbpi_ptrace_set_kinds - before hwbpi_ptrace_trace(): with @twins, each
 * RW watch that reads gets a store-only twin in a free slot and its hits
 * their kind from DR6 (HWBP_KIND_HW) instead of the watched bytes; only
 * where the CPU reports both slots of a store (hwbpi_twins()).  With
 * @exact a twin that finds no slot fails the trace (-ENOSPC) instead of
 * leaving that watch to the value comparison
 * (hwbpi_ptrace_twin_unsplit() counts those).  No error.
 */
void hwbpi_ptrace_set_kinds(struct hwbpi_ptrace *s, bool twins, bool exact);
unsigned hwbpi_ptrace_twin_unsplit(const struct hwbpi_ptrace *s);

/*
 * hwbpi_ptrace_set_decode - before hwbpi_ptrace_trace(): with @on, each
 * data hit's instruction is decoded where the arch does not report the
 * access (x86: backends/linux/linux.h hwbpi_hit_access()), and its
 * address, size and kind filter the hit (hwbp_decode()'s access) and give
 * its kind (HWBP_KIND_INSN), before twins and values; a hit that does not
 * decode falls back to them.  hwbpi_ptrace_decoded() says how many did
 * and did not, and the first failure's error (hwbpi_hit_access()'s).  No
 * error (without a decoder it does nothing).
 */
void hwbpi_ptrace_set_decode(struct hwbpi_ptrace *s, bool on);
uint64_t hwbpi_ptrace_decoded(const struct hwbpi_ptrace *s, uint64_t *undecoded, int *why);

/* hwbpi_ptrace_shared - after hwbpi_ptrace_trace(): how many watches
 * shared debug registers (more watches than registers, each hit's access
 * known: decoded, or arm64's FAR), and in *@slots how many registers they
 * shared; 0 when none did.  No error. */
unsigned hwbpi_ptrace_shared(const struct hwbpi_ptrace *s, unsigned *slots);

/*
 * hwbpi_ptrace_set_callgraph - before hwbpi_ptrace_trace(): how the
 * callers of a hit are found when t->stack_depth asks for them
 * (tracer/backends/linux/unwind.h: HWBPI_CG_FP, HWBPI_CG_DWARF; HWBPI_CG_DEFAULT: dwarf
 * where libdw is built in).  The thread is stopped at the hit: on x86 a
 * data breakpoint traps after the access, its PC is the next instruction
 * of the same function, and the unwind from its registers is right; where
 * the tracer steps over the access first (arm64, powerpc) the PC after
 * the step is, as well.  No error (trace reports a bad mode).
 */
void hwbpi_ptrace_set_callgraph(struct hwbpi_ptrace *s, int mode);

/*
 * hwbpi_ptrace_lost_status - how many hits came without their status (a
 * debug exception whose DR6 named no slot: hwbpi_linux_hit() 1), and in
 * *@unknown (may be NULL) how many of those changed no watched bytes and
 * were not counted.  No error.
 */
uint64_t hwbpi_ptrace_lost_status(const struct hwbpi_ptrace *s, uint64_t *unknown);

/* Kill a started process still alive, detach an attached one; free. */
void hwbpi_ptrace_free(struct hwbpi_ptrace *s);

/*
 * hwbpi_ptrace_run - all in one, without symbols (watches already hold
 * absolute addresses): start @argv (non-NULL) or attach to @attach_pid,
 * then trace.  Errors: those of start/attach and trace.
 */
int hwbpi_ptrace_run(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, char *const argv[],
		     pid_t attach_pid, int *status, char *err, size_t errlen);

/* The backend, for the registry. */
extern const struct hwbp_trace_backend hwbpi_backend_ptrace;

#endif /* HWBP_TRACER_PTRACE_H */
