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
	unsigned twin_split, twin_unsplit;  /* watches with a twin, RW ones left without */
	void *drain_arg;
	int callgraph;             /* --stack: enum hwbpi_callgraph (hwbpi_ptrace_set_callgraph) */
	int status;
	struct thr *thr;
	size_t nthr, cthr;
	struct proc *proc;
	size_t nproc, cproc;
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
/* A number field of /proc/TID/status ("Tgid", "TracerPid"), or -1. */
pid_t hwbpi_ptrace_status_field(pid_t tid, const char *field);
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

#endif /* HWBP_TRACER_PTRACE_INT_H */
