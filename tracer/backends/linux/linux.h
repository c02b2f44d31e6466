/* SPDX-License-Identifier: MIT */
/*
 * What the Linux backends share (backends/linux/): the one header of this
 * folder that the ptrace, perf and module backends (and the race
 * detector, tracer/race/) include, besides session/backend.h.  Children
 * and tracees (child.c, seize.c), the processes they trace (process.c),
 * the kernel scope (kernel.c), store-only twins (twins.c), code traps
 * (traps.c), user stacks (unwind.h) and the arch's Linux glue (glue.h,
 * arch/<a>/linux.c).  Linux only.  Every function that takes a session
 * reports its error as the session's message (hwbpi_fail) and returns the
 * negative errno.
 */
#ifndef HWBP_TRACER_BACKENDS_LINUX_H
#define HWBP_TRACER_BACKENDS_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "session/backend.h"
#include "backends/linux/glue.h"
#include "backends/linux/unwind.h"

struct perf_event_attr;

/*
 * Access kinds where a breakpoint event does not report them (--kinds):
 * an RW piece also gets events that see one kind only, in slots the plan
 * left free (hwbpi_linux_kind_split says how on this arch):
 *   pair   a load-only and a store-only event instead of the RW one
 *          (arm64, powerpc: the kernel's handler matches an access to the
 *          slot of its own kind);
 *   twin   the RW event plus a store-only twin (x86: no load-only type;
 *          a write hits both, so reads = RW - W per function).
 * auto splits what fits and says which watches kept '?'; exact refuses
 * (ENOSPC) when a watch cannot be split; off never splits.
 */
enum hwbpi_kinds { HWBPI_KINDS_AUTO = 0, HWBPI_KINDS_EXACT, HWBPI_KINDS_OFF };

/* Whether RW watches get store-only twins with @kinds on this CPU (a twin
 * arch, and its self-test passed: run once, a forked child).  No error. */
bool hwbpi_twins(enum hwbpi_kinds kinds);

/* The self-test behind hwbpi_twins(), run once per process (a forked child
 * stores 100 times and loads 50 times under an RW and a W-only event):
 * 0, or -errno with the reason in @why.  Errors: -ENODEV (one slot per
 * store: QEMU's x86 TCG), -ECHILD (the child failed), the events' open
 * errors; a failed fork is tried again at the next call. */
int hwbpi_twins_selftest(char *why, size_t n);

/* ---- child.c: children and tracees ---------------------------------- */

/* The child's side of a start: PTRACE_TRACEME if @traceme, exec @argv,
 * or report the errno on @ef (close-on-exec) and exit 127. */
void hwbpi_child_exec(char *const argv[], int ef, bool traceme) __attribute__((noreturn));

/*
 * Start @argv (fork, PTRACE_TRACEME, execvp) and run it to its ELF entry
 * point (hwbpi_child_run_to_entry()), where it is left stopped, for
 * events opened on it before its first instruction runs.
 * Errors: -EINVAL, -ENOENT and other execvp errors as they are (the child
 *         reported them), -EPERM (ptrace refused), -ECHILD, -EIO (it
 *         ended before its entry point), -errno of fork/pipe.
 */
int hwbpi_child_start(char *const argv[], pid_t *pid, char *err, size_t errlen);

/* Kill and reap a child left stopped by hwbpi_child_start(). */
void hwbpi_child_kill(pid_t pid);

/* Reap a child of ours (its status in *@wstatus, may be NULL). */
void hwbpi_child_reap(pid_t pid, int *wstatus);

/*
 * A child held before it runs, for hwbpi_child_held(): events opened on a
 * process count from its first instruction only if they are there before
 * it starts, and without ptrace (the self-tests, a command traced per CPU)
 * the one way to have it wait is a pipe it reads before it runs.
 */
struct hwbpi_held {
	/* In the child, once released: exec (a failed exec's errno written to
	 * @ef, the close-on-exec exec pipe) or _exit; it never returns. */
	void (*run)(void *arg, int ef);
	/* In the parent while the child waits: open the events on @pid.
	 * 0, or -errno: the child is killed and reaped. */
	int (*open)(void *arg, pid_t pid);
	/* In the parent once the child runs: wait for its end and reap it.
	 * NULL: hwbpi_child_reap() into wstatus. */
	void (*wait)(void *arg, pid_t pid);
	void *arg;
	int fork_err;   /* in: the error of a failed fork (0: its -errno) */
	pid_t pid;      /* out: the child, -1 if there is none (pipe2 or fork failed) */
	int wstatus;    /* out: its status, with wait NULL */
};

/*
 * Start @h's child held, open its events (h->open), release it and wait
 * for its end (h->wait).  Returns 0; the -errno of pipe2 or fork
 * (h->fork_err for fork; "fork: ..." in @err); h->open's error; -EIO (the
 * release failed) or the negated errno of a failed exec (a line in @err).
 * On an error after the fork the child is killed and reaped.
 */
int hwbpi_child_held(struct hwbpi_held *h, char *err, size_t n);

/* PTRACE_CONT of stopped tracee @tid with signal @sig. */
void hwbpi_child_resume(pid_t tid, int sig);

/* waitpid(@pid, __WALL), EINTR retried.  Errors: -errno. */
int hwbpi_child_wait(pid_t pid, int *st);

/*
 * hwbpi_child_run_to_entry - run tracee @pid, stopped just past its
 * execve() (PTRACE_TRACEME's SIGTRAP or a seized child's exec stop), to
 * its ELF entry point (AT_ENTRY), where the dynamic loader has mapped
 * every DT_NEEDED library and run their constructors, and leave it there
 * in a SIGTRAP signal-delivery stop (resume or detach it with signal 0),
 * its entry instruction not yet run, no debug register touched.  Signals
 * the program gets on the way are delivered.  @cmd names it in messages.
 * Errors: -ECHILD (it ended first: reaped), -EIO (the trap could not be
 * planted), waitpid's and ptrace's errors; after any but -ECHILD @pid is
 * still a stopped tracee.  Not async-signal-safe.
 */
int hwbpi_child_run_to_entry(pid_t pid, const char *cmd, char *err, size_t errlen);

/*
 * hwbpi_linux_fires - do the debug registers fire on this machine?  A
 * forked child gets a write watch through the glue and stores 3 times: 0
 * when 3 traps came.  Asked once per process (a fork failure aside).
 * Errors (@err: one line): -ENODEV ("hardware breakpoints do not fire on
 * this machine": some hypervisors drop them), -EOPNOTSUPP (no glue, or
 * no debug registers for ptrace), -EPERM, fork's and the planner's.
 * Context: forks (stdio flushed first); not in a signal handler.
 */
int hwbpi_linux_fires(char *err, size_t errlen);

/* ---- seize.c: seized tracees ------------------------------------------ */

/*
 * hwbpi_seize_spawn - fork; the child stops itself, is PTRACE_SEIZEd with
 * @opts (| PTRACE_O_EXITKILL: it dies with the tracer), then execs @argv
 * (PATH searched) or, with @fn, calls @fn(@arg) and exits with its value.
 * *@pid is left in a ptrace-stop: just past its execve()
 * (PTRACE_EVENT_EXEC), or before @fn (a SIGSTOP signal-delivery stop).
 * Seized rather than PTRACE_TRACEME'd: it can be PTRACE_INTERRUPTed and
 * reports group-stops as such.
 * Errors: -ENOENT, -EACCES... (@argv[0] cannot be run: a line in @err,
 *         the child reaped), -EPERM (ptrace not permitted), -EIO (it
 *         ended first: reaped), -EINVAL, waitpid's, fork's and pipe's.
 */
int hwbpi_seize_spawn(char *const argv[], int (*fn)(void *), void *arg, unsigned long opts,
		      pid_t *pid, char *err, size_t errlen);

/*
 * hwbpi_seize_threads - PTRACE_SEIZE (with @opts, no EXITKILL: an
 * attached process outlives its tracer) and PTRACE_INTERRUPT each thread
 * of process @pid that cb->known() does not know, wait for its stop and
 * give it to cb->add() with its wait status (it stays stopped; a
 * signal-delivery stop that came first is the caller's to deliver), or
 * with status -1 a thread a seized one created meanwhile (auto-attached:
 * its first stop comes through the caller's own wait); again until a
 * pass over /proc/PID/task finds no new thread.
 * Errors: -ESRCH (no such process), -EPERM (not permitted: another
 *         tracer, or kernel.yama.ptrace_scope; the line says which),
 *         ptrace's, -EINVAL, cb->add()'s (-ENOMEM).
 */
struct hwbpi_seize_cb {
	bool (*known)(void *arg, pid_t tid);
	int (*add)(void *arg, pid_t tid, int status);
	void *arg;
};
int hwbpi_seize_threads(pid_t pid, unsigned long opts, const struct hwbpi_seize_cb *cb,
			char *err, size_t errlen);

/* A number field of /proc/TID/status ("Tgid", "TracerPid"), or -1. */
pid_t hwbpi_proc_status_field(pid_t tid, const char *field);

/* SIGTRAP pending for thread @tid (SigPnd of /proc/TID/status: the
 * thread's own queue, where force_sig() puts a debug trap): before a
 * detach, a hit's trap still to come would kill the process. */
bool hwbpi_proc_trap_pending(pid_t tid);

/* The kernel's debug-register model for stopped thread @tid (hwbpi_linux_cpu),
 * with a one-line reason.  Errors: those of hwbpi_linux_cpu(). */
int hwbpi_child_model(pid_t tid, struct hwbp_cpu *cpu, char *err, size_t errlen);

/*
 * hwbpi_linux_glue_check - does this build have the Linux debug-register
 * glue of its CPU (arch/<a>/linux.c)?  0 if so; else -EOPNOTSUPP and one
 * line naming the CPU family (a build for a CPU hwbp has no arch/<a>/
 * linux.c for links tracer/backends/linux/linux_none.c and is compiled
 * with HWBP_LINUX_NO_GLUE, the family's name).  The ptrace, perf, bpf and
 * module backends ask it first, before any process is started or
 * attached.  Context: any; no system call.
 */
int hwbpi_linux_glue_check(char *err, size_t errlen);

/*
 * hwbpi_child_cpu - the same model without a tracee of the caller's (the
 * perf and bpf backends, hwbp_trace_host_cpu()): a child is forked,
 * stopped under PTRACE_TRACEME, asked and killed.  No self-test.
 * Errors: -EINVAL (NULL), -EOPNOTSUPP (no debug registers for ptrace),
 *         -EPERM (ptrace not permitted), fork/wait errors.
 */
int hwbpi_child_cpu(struct hwbp_cpu *cpu, char *err, size_t errlen);

/* ---- kernel.c: the kernel scope -------------------------------------- */

/* perf_event_open(2) of @a on @pid/@cpu, close-on-exec.  Returns the fd,
 * or -errno. */
int hwbpi_kernel_event_open(struct perf_event_attr *a, pid_t pid, int cpu);

/* CPUs the rings are indexed by: the highest online CPU + 1 (at least 1). */
unsigned hwbpi_kernel_ncpus(void);

/* How many data breakpoint events the kernel lets CPU @cpu open at the
 * kernel address @addr (each opened disabled and closed again), or -errno
 * of the first open when that was not ENOSPC.  Context: process; opens
 * and closes perf events, leaves none. */
int hwbpi_kernel_slots(uint64_t addr, int cpu);

/*
 * hwbpi_kernel_place - the view's place (session/backend.h) for --kernel:
 * each watch of a per-CPU variable (hwbpi_watch.percpu: its address an
 * offset) becomes one watch per CPU at that CPU's copy (percpu.c), named
 * NAME@cpuN, bound to that CPU (on_cpu) unless s->percpu_all; a note says
 * where the copies are and what is not seen.
 * Errors: -ENOENT (no __per_cpu_offset in the symbol table), those of
 * hwbpi_kcore_read(), -ENOSPC (more than HWBP_MAX_REQUESTS watches).
 */
int hwbpi_kernel_place(struct hwbpi_view *s);

/* --kernel's state from hwbpi_kernel_open(): the kernel's symbols, --cpus. */
struct hwbpi_kernel {
	struct hwbpi_ksyms ks;
	bool cpus[HWBPI_TRACE_MAX_CPUS];
	bool have_cpus;
};

/*
 * --kernel's open: --cpus, the CPU model, the kernel's symbols (with
 * --vmlinux or --symbols System.map) into s->syms; *@state (freed by
 * hwbpi_kernel_close) keeps what run needs.
 * Errors: -EINVAL (input: -p, --cpus, a file that is not this kernel's),
 * -EACCES (addresses hidden), those of hwbpi_ksyms_load(), -ENOMEM.
 */
int hwbpi_kernel_open(struct hwbpi_view *s, void **state);
void hwbpi_kernel_close(void *state);

/* For "no symbol X": why this kernel may not have it, or NULL. */
const char *hwbpi_kernel_missing_hint(const void *state);

/* ---- process.c: processes and the options ptrace and perf share ----- */

/* How --stack finds the callers of a process's hits (backends/linux/unwind.h). */
#define HWBPI_CALL_GRAPH_OPTION                                                                    \
	{ "call-graph", 0, "MODE", 0, NULL, "how call stacks are found: dwarf (CFI, with "      \
	  "libdw: the default) or fp (frame pointers: short stacks without them)" }

/* The workload: -- CMD or -p PID, exactly one; a PID that cannot be
 * traced for a reason of its own (gone, a zombie, a kernel thread) is
 * said.  Errors: -EINVAL (input), -ESRCH, -EPERM. */
int hwbpi_process_workload(struct hwbpi_view *s, pid_t *pid);

/* The symbols of stopped process @pid (the executable and what it maps)
 * into s->syms, files deleted since they were mapped said in notes.
 * Errors: -ENOMEM, those of hwbpi_proc_load_symbols(). */
int hwbpi_process_symbols(struct hwbpi_view *s, pid_t pid);

/* The running kernel's debug-register model into s->cpu (or a --cpu
 * given checked against it, @what naming the backend in the message).
 * Errors: those of hwbpi_child_cpu(), -EINVAL (a --cpu that does
 * not fit). */
int hwbpi_process_model(struct hwbpi_view *s, const char *what);

/* The tracer rings' consumer for the backends' loops (@arg: the view). */
void hwbpi_process_drain(void *arg);

/* --kinds MODE into *@out (default auto).  Errors: -EINVAL (input). */
int hwbpi_process_kinds(struct hwbpi_view *s, enum hwbpi_kinds *out);

/* --call-graph MODE into *@out (default: backends/linux/unwind.h's).
 * Errors: -EINVAL (input), -EOPNOTSUPP (dwarf without libdw). */
int hwbpi_process_callgraph(struct hwbpi_view *s, enum hwbpi_callgraph *out);

/* Process @pid is gone or a zombie (not ours: we cannot wait for it).
 * Context: a kill(2) and a read of /proc/PID/stat. */
bool hwbpi_process_gone(pid_t pid);

/* ---- code traps planted in a tracee (traps.c) ----------------------- */

/*
 * A table of traps (the arch's trap instruction, hwbpi_linux_trap, over
 * the first bytes of an instruction), each with the bytes it replaced,
 * reference-counted: the ptrace backend's arming and release functions,
 * the race detector's sampled instructions.  The process's threads share
 * the text, so any stopped thread of it may plant or remove one.
 */
struct hwbpi_trap {
	uint64_t addr;
	uint8_t orig[4];         /* the trap's length of bytes before it */
	unsigned refs;           /* its uses; 0: a free entry */
};
struct hwbpi_traps {
	struct hwbpi_trap *t;
	unsigned n, cap;         /* entries used (free ones among them), the most */
	unsigned live;           /* entries planted (refs > 0) */
};

/* An empty table of at most @cap traps.  Errors: -EINVAL (@cap 0),
 * -ENOMEM.  hwbpi_traps_fini(): free it (the code is not touched). */
int hwbpi_traps_init(struct hwbpi_traps *T, unsigned cap);
void hwbpi_traps_fini(struct hwbpi_traps *T);

/* The planted trap at @addr, or NULL.  No error; no system call. */
struct hwbpi_trap *hwbpi_trap_at(const struct hwbpi_traps *T, uint64_t addr);

/* A trap at @addr in the process of stopped thread @tid (one more use of
 * it if it is there).  Errors: -ENOSPC (the table is full), -EOPNOTSUPP
 * (no trap instruction for this CPU), ptrace's (-EIO, -EFAULT, -ESRCH). */
int hwbpi_trap_plant(struct hwbpi_traps *T, pid_t tid, uint64_t addr);

/* One use of the trap at @addr less; its bytes back once none is left.
 * Errors: -ENOENT (no trap there), ptrace's. */
int hwbpi_trap_unplant(struct hwbpi_traps *T, pid_t tid, uint64_t addr);

/* Write @tp's trap (@trap) or its original bytes into the process of
 * stopped thread @tid, the table unchanged (a step over it; a fork
 * child's copy of the text).  Errors: ptrace's. */
int hwbpi_trap_poke(pid_t tid, const struct hwbpi_trap *tp, bool trap);

/* Every planted trap's bytes (@trap) or original bytes into the process
 * of @tid: before a detach, or into a forked child's copy.  No error
 * (a failed write leaves that word as it was). */
void hwbpi_traps_poke_all(const struct hwbpi_traps *T, pid_t tid, bool trap);

/* ---- the access behind a data hit, decoded (access.c) -------------- */

/*
 * A decoder of the accesses behind a process's data hits, for an arch
 * whose exception does not report them (tracer/insn/insn.h: x86).
 * Errors: -EOPNOTSUPP (the arch reports them, or a build without
 * Capstone), -ENOMEM.
 */
struct hwbpi_hit_dec;
int hwbpi_hit_dec_open(enum hwbp_arch arch, struct hwbpi_hit_dec **out);
void hwbpi_hit_dec_close(struct hwbpi_hit_dec *h);
/* Forget the code read so far (a process that exec'd has other code).
 * No error; NULL is none. */
void hwbpi_hit_dec_forget(struct hwbpi_hit_dec *h);

/*
 * hwbpi_hit_access - the access of stopped thread @tid's data hit, whose
 * trap left the PC at @ip: the instruction that ended there (decoded from
 * its function's start in @syms) and, of its accesses, the first that
 * touches one of the @nr ranges [@lo[i], @lo[i] + @len[i]) (the watches
 * the hit names), into *@acc (address, size, kind; priv user); when none
 * touches one, the instruction's only locatable access (it touched bytes
 * the hardware watches beyond them: hwbp_decode() filters it).
 * Errors: -ENOENT (no function, no instruction ends at @ip, or no access
 * of it to give: its address lost with its base register, two that touch
 * no range, or a branch that trapped at its target), -EFAULT (the code unreadable),
 * ptrace's, -EOPNOTSUPP (no decoder).
 * Context: a stop of @tid; no allocation; reads its code and registers.
 */
int hwbpi_hit_access(struct hwbpi_hit_dec *h, pid_t tid, const struct hwbp_symtab *syms, uint64_t ip,
		     const uint64_t *lo, const uint64_t *len, unsigned nr, struct hwbp_access *acc);

/*
 * hwbpi_hit_access_regs - the same from registers the caller has: @regv
 * (HWBPI_INSN_REGS values by DWARF number, bit k of @known where regv[k]
 * holds one: hwbpi_linux_perf_dwarf_regs() of a perf sample), the code
 * read from process @tid (any thread of it), or with @tid 0 the kernel's
 * from /proc/kcore (root; priv then kernel).  Errors: as above, and
 * hwbpi_kcore_read()'s.  Context: no allocation; reads the code.
 */
int hwbpi_hit_access_regs(struct hwbpi_hit_dec *h, pid_t tid, const struct hwbp_symtab *syms,
			  uint64_t ip, const uint64_t *regv, uint64_t known, const uint64_t *lo,
			  const uint64_t *len, unsigned nr, struct hwbp_access *acc);

/* ---- watches of objects, armed asynchronously (objects.c) ---------- */

/*
 * hwbpi_linux_objects - the run of a session whose watches are all of
 * objects (objects/objects.h), armed asynchronously through perf events:
 * kprobe / uprobe samples of the arming and release functions, and
 * preallocated breakpoints re-pointed with PERF_EVENT_IOC_MODIFY_ATTRIBUTES
 * (the perf and bpf backends; the module backend's fallback).  The kernel
 * scope (@kernel, on @cpus or every online CPU; the session's -- CMD,
 * held until every event is open, bounds it) or process @pid (@started: a
 * child of ours stopped under ptrace at its entry, let go once the events
 * are open; else attached, every thread).  Each watch's table gets its
 * arming delays and the hits after a release; *@wstatus is a command's
 * status.
 * Errors (the session's message set): -EOPNOTSUPP and -EINVAL (input: a
 * watch this path cannot arm), -ENOENT (no kprobe / uprobe PMU), -ENOSPC
 * (more watches than slots), perf_event_open's (EINVAL for a kprobe: the
 * kernel will not probe that function), -ENOMEM.
 * Context: the session's thread; runs until the end of the trace.
 */
int hwbpi_linux_objects(struct hwbpi_view *s, bool kernel, const bool *cpus, pid_t pid, bool started,
			int *wstatus);

#endif /* HWBP_TRACER_BACKENDS_LINUX_H */
