/* SPDX-License-Identifier: MIT */
/*
 * The race detector's ptrace loop (race/'s private header: engine.c,
 * threads.c, window.c, catch.c; Linux only).  One sample at a time: its window
 * goes IDLE -> ARMING (the other threads interrupted, each given the
 * watch at its stop) -> OPEN (the delay runs, the sampled thread held)
 * -> CLOSING (each other thread disarmed at its stop) -> IDLE, and only
 * then does the sampled thread run its instruction.  So every access a
 * watch catches was made while that instruction was still to come.
 *
 * A thread's debug registers can be written only while it is stopped, so
 * they follow a generation: each change of what the threads should hold
 * bumps L->gen, running threads are interrupted, and every stop of a
 * thread first brings its registers to the generation (sync()).
 */
#ifndef HWBP_TRACER_RACE_INT_H
#define HWBP_TRACER_RACE_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/types.h>

#include "backends/linux/linux.h"
#include "race/race.h"

/* The most bytes a sampled access may have (two 8-byte pieces) and the
 * code read to decode one instruction. */
#define HWBPI_RACE_ACCESS_MAX 16
#define HWBPI_RACE_INSN_MAX 16
/* Traps planted at once at most (a hot program's traps go as fast as
 * they come; a cold one's wait here, the oldest evicted first). */
#define HWBPI_RACE_MAX_TRAPS 256
/* Addresses seen accessed by atomic instructions: no more samples there
 * (DataCollider's pruning of synchronisation variables). */
#define HWBPI_RACE_SYNCVARS 64
/* How long the loop sleeps at most between looks at the stop flag. */
#define HWBPI_RACE_POLL_NS UINT64_C(200000000)

struct rthr {
	pid_t tid, tgid;
	bool seen;                   /* its first stop seen */
	bool stopped;                /* in a ptrace-stop we have not ended */
	bool listening;              /* in a group-stop (PTRACE_LISTEN): it cannot run */
	bool interrupted;            /* PTRACE_INTERRUPT sent, its stop not seen yet */
	bool armed;                  /* its debug registers hold a window's watch */
	uint64_t gen;                /* L->gen when they were last brought up to date */
	uint64_t win;                /* the window it was last armed for (0: none) */
	uint64_t quiet_win;          /* caught in this window: no watch for the rest of it */
	int sig;                     /* to deliver when it next runs */
};

enum wstate { W_IDLE = 0, W_ARMING, W_OPEN, W_CLOSING };

/* A sample: the held thread, its access and the watch on it. */
struct window {
	enum wstate st;
	uint64_t id;                 /* 1, 2, ...; 0: none yet */
	pid_t owner;
	struct hwbpi_race_side a;
	uint64_t lo, len;
	uint8_t before[HWBPI_RACE_ACCESS_MAX];   /* when every other thread is armed */
	uint8_t after[HWBPI_RACE_ACCESS_MAX];    /* at the delay's end, before disarming */
	bool have_before, have_after;
	bool caught;                 /* some access was caught (a race or an atomic) */
	bool hit;                    /* a watch fired, whether or not its access was
				      * told: a changed value then has its writer */
	bool exited;                 /* a thread ended meanwhile: the kernel writes its
				      * thread id's word (CLONE_CHILD_CLEARTID), which
				      * no watch sees and which is no race */
	bool exact;                  /* the watch holds exactly [lo, lo + len) */
	uint64_t opened_ns, deadline_ns;
	struct hwbp_regs regs;       /* the other threads' registers */
	int req;                     /* its request in L->ctx, -1: none */
};

struct hwbpi_race_loop {
	struct hwbpi_race_run *r;
	pid_t pid;
	bool attached;
	struct hwbp_cpu cpu;
	struct hwbp_regs off;
	struct hwbp_ctx ctx;         /* the window's watch, planned */
	struct hwbp_slots percpu[1];
	struct hwbp_task task;
	const struct hwbpi_insn_arch *ia;
	bool hit_before;             /* a data hit stops its thread before the access
				      * (the CPU's data_timing: arm64), else after it */
	struct hwbpi_insn_dec *dec;
	struct hwbpi_traps traps;
	uint64_t ring[HWBPI_RACE_MAX_TRAPS];   /* planted, oldest first: eviction order */
	unsigned ring_head, ring_n;
	struct hwbpi_race_rng rng;
	struct hwbpi_race_budget budget;
	struct rthr *thr;
	size_t nthr, cthr;
	uint64_t gen;
	struct window w;             /* the sample now */
	struct window last;          /* the one before: a hit may come late */
	uint64_t syncvar[HWBPI_RACE_SYNCVARS];
	unsigned nsync, sync_at;
	bool sampling;               /* traps planted and taken (false after an exec) */
	bool stopping;               /* no more samples; then every thread let go */
	bool detaching;              /* each stop lets its thread go */
	bool traps_out;              /* the traps are out of the code (before a detach) */
	bool maint_asked;            /* a thread was interrupted to plant traps */
	unsigned vforks;             /* vfork children sharing the memory now: no planting */
	uint64_t end_ns;             /* --duration's end, 0: none */
	struct hwbpi_unwinder uw;    /* a race's callers, the first time it is caught */
	bool uw_ok;                  /* uw ready (r->stack_depth and it could be made) */
	uint8_t code[65536 + HWBPI_RACE_INSN_MAX];   /* a function's code, decoded */
};

/* ptrace options: new threads, forks and execs reported. */
#define HWBPI_RACE_OPTS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
			 PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXEC)

/* ---- engine.c ------------------------------------------------------- */

/* Handle the threads' stops until none is left (the process ended, or
 * every thread let go after a stop).  Errors: -ENOMEM, waitpid's. */
int hwbpi_race_loop_run(struct hwbpi_race_loop *L);

/* ---- threads.c ------------------------------------------------------ */

struct rthr *hwbpi_race_thr_find(struct hwbpi_race_loop *L, pid_t tid);
/* Added unseen (a clone's new thread, or a stop of an unknown one); NULL:
 * -ENOMEM. */
struct rthr *hwbpi_race_thr_add(struct hwbpi_race_loop *L, pid_t tid, pid_t tgid);
void hwbpi_race_thr_del(struct hwbpi_race_loop *L, pid_t tid);

/* Bring stopped @th's debug registers to the generation: the window's
 * watch while one is armed and it is not the held thread (nor caught in
 * it already), else none.  No error (a thread gone meanwhile). */
void hwbpi_race_sync(struct hwbpi_race_loop *L, struct rthr *th);

/* After a change of generation: each other thread of the process that is
 * stopped brought up to date now, each running one interrupted. */
void hwbpi_race_spread(struct hwbpi_race_loop *L);

/* Whether every thread that can run holds the generation. */
bool hwbpi_race_all_synced(const struct hwbpi_race_loop *L);

/* Let stopped @th run (its pending signal delivered), unless it is the
 * held one. */
void hwbpi_race_resume(struct hwbpi_race_loop *L, struct rthr *th);

/* A stopped thread of the process (any: to write its text), or NULL. */
struct rthr *hwbpi_race_stopped(struct hwbpi_race_loop *L);

/* While stopping: @th let go (the traps out of the code first, its
 * registers cleared, its PC back on an instruction a trap stopped it at)
 * and forgotten; @sig/@ev its stop. */
void hwbpi_race_detach(struct hwbpi_race_loop *L, struct rthr *th, int sig, int ev);

/* A process forked or vforked by the program: its copy of the text
 * cleaned of traps, and let go at its first stop. */
void hwbpi_race_foreign(struct hwbpi_race_loop *L, struct rthr *th);

/* ---- window.c -------------------------------------------------------- */

/* Thread @th stopped at candidate @c's trap (its PC set back on it): the
 * trap is taken out, and when nothing else is sampled, a window opens
 * with @th held. */
void hwbpi_race_on_trap(struct hwbpi_race_loop *L, struct rthr *th, long c);

/* The window's state moves on once its threads are synced, or the delay
 * is over (@now_ns). */
void hwbpi_race_window_step(struct hwbpi_race_loop *L, uint64_t now_ns);

/* Abandon the window (its held thread gone, or the image replaced). */
void hwbpi_race_window_drop(struct hwbpi_race_loop *L);

/* Plant traps while the budget allows, with stopped thread @tid. */
void hwbpi_race_plant(struct hwbpi_race_loop *L, pid_t tid, uint64_t now_ns);

/* CLOCK_MONOTONIC in ns. */
uint64_t hwbpi_race_now(void);

/* ---- catch.c --------------------------------------------------------- */

/* A debug-register hit in @th: the other side of a race, an atomic
 * access, or a stray one. */
void hwbpi_race_on_hit(struct hwbpi_race_loop *L, struct rthr *th);

/* Race pair @p seen the first time, sampled thread @a held, @b stopped
 * at its access (0: none, an unseen writer): the mapping, typed name and
 * callers that need the process as it is now. */
void hwbpi_race_first_seen(struct hwbpi_race_loop *L, struct hwbpi_race_pair *p, pid_t a,
			   pid_t b, uint64_t lo);

/* @len bytes of process @pid's memory at @addr: 0, -EFAULT. */
int hwbpi_race_read_mem(pid_t pid, uint64_t addr, void *buf, size_t len);

/* Whether an address in [@lo, @lo + @len) was seen accessed atomically. */
bool hwbpi_race_is_syncvar(const struct hwbpi_race_loop *L, uint64_t lo, uint64_t len);

/* @addr seen accessed atomically: not sampled again (the oldest of
 * HWBPI_RACE_SYNCVARS forgotten when full). */
void hwbpi_race_add_syncvar(struct hwbpi_race_loop *L, uint64_t addr);

/* Whether the object at @addr is atomic by its type (typed.c). */
bool hwbpi_race_atomic_object(struct hwbpi_race_loop *L, uint64_t addr);

#endif /* HWBP_TRACER_RACE_INT_H */
