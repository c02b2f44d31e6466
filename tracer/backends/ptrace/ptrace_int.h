/* SPDX-License-Identifier: MIT */
/*
 * The ptrace backend's private parts (tracer/ptrace*.c): the session's
 * processes and threads, and the helpers the event loop (ptrace.c), the
 * start/attach code (ptrace_start.c) and the tables (ptrace_task.c) share.
 * Linux only.
 */
#ifndef HWBP_TRACER_PTRACE_INT_H
#define HWBP_TRACER_PTRACE_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backends/ptrace/ptrace.h"

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4   /* include/uapi/asm-generic/siginfo.h */
#endif
#ifndef TRAP_TRACE
#define TRAP_TRACE 2
#endif

#define OPTS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC)

struct thr {
	pid_t tid, tgid;
	bool armed;          /* its first stop was seen and DRs written */
	int pending;         /* signal to deliver at the first resume */
	/*
	 * Stepping over a hit (hwbpi_linux_step_over: the exception came
	 * before the access and the kernel does not step for ptrace): the
	 * thread's slots are cleared and it single-steps; the hit is fed to
	 * the tracer when the step is done (then the bytes show whether it
	 * wrote), with the trap's ip; its time is the emit's (ptrace.c emit()).
	 */
	bool step;
	uint64_t hit_req, hit_ip;
	uint8_t hit_kind;    /* the decoded access's kind (HWBP_R/W, both: RMW), 0: none */
	bool guess;          /* the hit came without its status: hit_req names every
			      * armed data slot, the watched bytes say which (emit()) */
	/*
	 * Thread-local watches (tracer/symbols/tls.h): where this thread's copy of
	 * the executable's TLS block is (from its thread pointer, read at
	 * its first stop), and its own shadow of those watches' bytes (laid
	 * out as the process's, NULL without such watches): each thread's
	 * copy changes on its own.
	 */
	bool tls_known;
	uint64_t tls_block;
	uint8_t *shadow;
	/* Where the hit is stepped over: each hit watch's bytes before the
	 * access (its first 8, as an event's value), read at the trap. */
	uint64_t pre[HWBP_MAX_REQUESTS];
	/* Stepping over a planted trap (ptrace_objects.c): its address, the
	 * original instruction back in place until the step is done. */
	uint64_t sbp_at;
	bool sbp_quiet;      /* stepping over it with the data watches off (on_sigtrap()) */
	uint64_t gen;        /* the loop's gen its registers were written at */
};

struct proc {
	pid_t tgid;
	bool watched;        /* false after an exec */
	uint8_t *shadow;     /* the watched bytes at the last hit */
};

struct hwbpi_ptrace {
	pid_t pid;
	struct hwbp_cpu cpu;       /* the kernel's model (hwbpi_linux_cpu()) */
	struct hwbp_regs off;      /* nothing armed */
	bool attached, traced;
	bool ended;                /* the process @pid was reaped: status is its */
	unsigned armed_left;       /* threads detached with a slot still enabled */
	void (*drain)(void *arg);  /* trace mode: empty the rings (hwbpi_ptrace_set_drain) */
	bool twins, kinds_exact;   /* store-only twins for RW watches (hwbpi_ptrace_set_kinds) */
	bool decode;               /* decode each data hit's instruction (hwbpi_ptrace_set_decode) */
	uint64_t decoded, undecoded;  /* data hits whose access was decoded, and not */
	int undecoded_err;            /* why the first one did not */
	unsigned shared, shared_slots; /* watches sharing debug registers, and those */
	unsigned twin_split, twin_unsplit;  /* watches with a twin, RW ones left without */
	uint64_t lost_status;      /* hits that came without their status (hwbpi_linux_hit() 1) */
	uint64_t lost_unknown;     /* ... of which no watched bytes changed: not counted */
	void *drain_arg;
	int callgraph;             /* --stack: enum hwbpi_callgraph (hwbpi_ptrace_set_callgraph) */
	int status;
	struct thr *thr;
	size_t nthr, cthr;
	struct proc *proc;
	size_t nproc, cproc;
};

struct hwbpi_pt_objs;

/* The tracing loop's state (ptrace.c's, and ptrace_objects.c's for the
 * watches of objects). */
struct hwbpi_pt_loop {
	struct hwbpi_ptrace *s;
	struct hwbpi_tracer *t;
	struct hwbp_ctx ctx;
	struct hwbp_slots percpu[1];
	struct hwbp_task task;
	struct hwbp_regs regs;
	size_t off[HWBP_MAX_REQUESTS], shadow_len;
	uint8_t cur[4096];
	bool stopping;   /* asked to stop: the started process got its signal */
	bool hurried;    /* asked twice: the started process killed */
	bool detaching;  /* every stop of a tracee detaches it (attached) */
	bool killing;    /* the started process ended after a stop: the rest killed */
	uint64_t drained_at;   /* hits when the rings were last drained */
	int twin[HWBP_MAX_REQUESTS];   /* per watch: its store-only twin request, or -1 */
	/* Thread-local watches (tls.h): how many, the executable's PT_TLS,
	 * and the TLS block whose copies their requests hold now (one
	 * thread's: retarget()).  A thread whose copy cannot be placed ends
	 * the trace with @fail, the reason in @err. */
	unsigned ntls;
	uint64_t tls_memsz, tls_align, tls_at;
	int fail;
	char *err;
	size_t errlen;
	struct hwbpi_unwinder uw;      /* --stack (t->stack_depth > 0) */
	struct hwbpi_pt_objs *objs;    /* watches of objects (ptrace_objects.c), or NULL */
	struct hwbpi_hit_dec *dec;     /* the hits' decoder (s->decode), or NULL */
	bool share;      /* watches share debug registers (HWBP_REQ_SHARE): they
			  * did not fit one each, and each hit's address is
			  * known (decoded, or the CPU's FAR) */
	uint64_t gen;                  /* bumped when the registers change: a thread
					* whose gen differs is written at its next stop */
};

/* ---- tracer/backends/ptrace/ptrace_task.c: the tables and small ptrace helpers ---- */

/* The thread table: find, add (NULL: -ENOMEM), delete by tid (its
 * shadow freed). */
struct thr *hwbpi_ptrace_thr_find(struct hwbpi_ptrace *s, pid_t tid);
struct thr *hwbpi_ptrace_thr_add(struct hwbpi_ptrace *s, pid_t tid, pid_t tgid);
void hwbpi_ptrace_thr_del(struct hwbpi_ptrace *s, pid_t tid);
/* The process table; a new process gets a shadow of @shadow_len bytes
 * (the watched bytes, to tell writes by value).  NULL: none / -ENOMEM. */
struct proc *hwbpi_ptrace_proc_find(struct hwbpi_ptrace *s, pid_t tgid);
struct proc *hwbpi_ptrace_proc_add(struct hwbpi_ptrace *s, pid_t tgid, size_t shadow_len);
/* A session of process @pid with the kernel's model @cpu (NULL: -ENOMEM). */
struct hwbpi_ptrace *hwbpi_ptrace_session_new(pid_t pid, bool attached, const struct hwbp_cpu *cpu);

/* Read @len bytes of the stopped thread's memory.  Errors: -errno of the read. */
int hwbpi_ptrace_read_mem(pid_t tid, uint64_t addr, uint8_t *buf, size_t len);
/* Clear every slot of stopped thread @tid and read them back, twice if
 * need be; a thread still armed after that is counted in s->armed_left.
 * Errors: -EIO (still armed), ptrace's (-ESRCH: gone). */
int hwbpi_ptrace_disarm(struct hwbpi_ptrace *s, pid_t tid);
/* PTRACE_CONT with @sig (a thread: its pending signal first). */
void hwbpi_ptrace_resume_thr(const struct thr *th, int sig);

/* Forget earlier stop requests (hwbpi_ptrace_request_stop()): start and
 * attach call it first, so that a request made while they run (a signal
 * during the attach) ends the trace that follows. */
void hwbpi_ptrace_stop_reset(void);

/* ---- tracer/backends/ptrace/ptrace_start.c ---- */

/* Fork and stop the child at its entry point (argv) or before calling
 * fn(arg); the session in *out.  Errors: as hwbpi_ptrace_start(). */
int hwbpi_ptrace_spawn(struct hwbpi_ptrace **out, char *const argv[], int (*fn)(void *), void *arg,
		   char *err, size_t errlen);

/* ---- tracer/backends/ptrace/ptrace_setup.c ---- */

/* The request of watch @w at @addr: user addresses, local enable bits
 * (x86 Ln: per task, as Linux itself programs them), R widened to RW
 * where the CPU has no R (x86), shared (L->share) once the watches did
 * not fit one register each; its store-only twin's; and where the plan's
 * requests for @w are now (a thread-local watch: L->tls_at's copy). */
struct hwbp_request hwbpi_pt_watch_req(const struct hwbpi_pt_loop *L, const struct hwbpi_watch *w,
				      uint64_t addr);
struct hwbp_request hwbpi_pt_twin_req(const struct hwbpi_watch *w, uint64_t addr);
uint64_t hwbpi_pt_plan_addr(const struct hwbpi_pt_loop *L, const struct hwbpi_watch *w);

/* The context, the task and every watch with an address installed, then
 * the twins; L->regs the task's registers.  Errors (@err: one line naming
 * the watch): the planner's, -ENOSPC, -EOPNOTSUPP (a piece Linux refuses),
 * -EINVAL (data and execution in one watch). */
int hwbpi_pt_setup(struct hwbpi_pt_loop *L, const struct hwbp_cpu *cpu, char *err, size_t errlen);

/* ---- tracer/backends/ptrace/ptrace.c ---- */

/* The kind of a hit of @w (no twin) into @ev: the hardware type @hwtype
 * says R, else changed bytes say W, else a W or X watch's type; false
 * when it is not what @w asked for (an R watch widened to RW, written:
 * the caller counts it filtered). */
bool hwbpi_pt_kind(const struct hwbpi_watch *w, unsigned hwtype, bool changed,
		   struct hwbp_trace_event *ev);

/* The event's values (trace.h): the bytes after the access, val[0], and
 * for a write those before it, val[1]; their first min(@len, 8). */
void hwbpi_pt_set_values(struct hwbp_trace_event *ev, uint64_t len, const uint64_t val[2]);


/* The registers thread @th holds (or is to hold): the plan's, with its
 * own copies of the thread-local watches; nothing armed when those
 * cannot be placed (the trace then ends: L->fail). */
const struct hwbp_regs *hwbpi_pt_thr_regs(struct hwbpi_pt_loop *L, struct thr *th);

/* ---- tracer/backends/ptrace/ptrace_objects.c: watches of objects ---- */

/*
 * Plant a trap at each arming and release function of t's watches of
 * objects, in the stopped process of thread @tid (L->objs stays NULL
 * without such watches).  Errors (@err): -EOPNOTSUPP (no trap glue),
 * -EIO (the code could not be written), -ENOMEM.
 */
int hwbpi_pt_objs_start(struct hwbpi_pt_loop *L, pid_t tid, char *err, size_t errlen);

/* A SIGTRAP stop of @th: true when it is one of the planted traps, then
 * handled (objects armed or released) and @th set to step over it. */
bool hwbpi_pt_objs_trap(struct hwbpi_pt_loop *L, struct thr *th);

/* The step over a planted trap is done: the trap back in place. */
void hwbpi_pt_objs_step_done(struct hwbpi_pt_loop *L, struct thr *th);

/* The hits of @th on objects' requests (th->hit_req), fed to the tracer
 * and to each object's counts; @now the event time, @callers the stack.
 * Returns how many. */
unsigned hwbpi_pt_objs_emit(struct hwbpi_pt_loop *L, struct thr *th, uint64_t now,
			const uint64_t *callers, unsigned ncallers);

/* At a stop of @th: write its registers if they changed since (L->gen),
 * and with @may_rotate (an interrupt stop: the program is at no access
 * of its own) rotate the slots among the live objects when it is time. */
void hwbpi_pt_objs_tick(struct hwbpi_pt_loop *L, struct thr *th, bool may_rotate);

/* In the event loop, before each wait: the rotation's timer rang, so
 * the process is interrupted (its stop ticks). */
void hwbpi_pt_objs_alarm(struct hwbpi_pt_loop *L);

/* Before a detach: every planted trap out of the process of @tid. */
void hwbpi_pt_objs_unplant(struct hwbpi_pt_loop *L, pid_t tid);
/* A thread stopped by a planted trap whose stop is not handled (a detach
 * comes first): its PC back on the trap's instruction (x86's INT3 leaves
 * it past the trap), so that it runs the original one once detached. */
void hwbpi_pt_objs_rewind(struct hwbpi_pt_loop *L, pid_t tid);

/* The traced process exec'd: its traps went with its old image. */
void hwbpi_pt_objs_forget(struct hwbpi_pt_loop *L);

/* At the end: each live object's watch spell closed; the state freed. */
void hwbpi_pt_objs_end(struct hwbpi_pt_loop *L);

#endif /* HWBP_TRACER_PTRACE_INT_H */
