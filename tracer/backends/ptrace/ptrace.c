/* SPDX-License-Identifier: MIT */
/*
 * The ptrace backend of the tracer (tracer/backends/ptrace/ptrace.h), arch-neutral:
 * the event loop: arm every thread, wait for stops, follow clones and
 * forks, take and feed hits.  Starting and attaching are ptrace_start.c,
 * the tables ptrace_task.c, /proc/PID/maps proc_maps.c.  The debug registers of one thread
 * are the arch's Linux glue (tracer/backends/linux/glue.h, arch/<a>/linux.c: x86
 * PTRACE_POKEUSER on u_debugreg, arm64 PTRACE_SETREGSET NT_ARM_HW_WATCH /
 * NT_ARM_HW_BREAK), always with hwbp's own encoding of the planned slots;
 * hits are decoded through the generic API.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "backends/linux/linux.h"
#include "backends/ptrace/ptrace_int.h"

/* How many stops were asked (a second one hurries), and the signal a
 * started process is to get at the first. */
static volatile sig_atomic_t stop_requested, stop_signal;

void hwbpi_ptrace_request_stop(int sig)
{
	if (stop_requested == 0)
		stop_signal = sig;
	if (stop_requested < 2)
		stop_requested++;
}

void hwbpi_ptrace_stop_reset(void)
{
	stop_requested = 0;
	stop_signal = 0;
}

/* Hits between two drains of trace mode's rings (hwbpi_ptrace_set_drain):
 * half a ring, at most 256 (a sixty-fourth of the default ring). */
#define HWBPI_PT_DRAIN_EVERY 256

static void read_shadow(struct hwbpi_pt_loop *L, struct proc *p, pid_t tid)
{
	for (unsigned i = 0; i < L->t->nw; i++) {
		const struct hwbpi_watch *w = &L->t->w[i];

		/* A thread-local one's bytes are each thread's (read_tls_shadow);
		 * an object's are its own (ptrace_objects.c). */
		if (!w->tls && !w->object && w->len <= sizeof(L->cur))
			hwbpi_ptrace_read_mem(tid, w->addr, p->shadow + L->off[i], w->len);
	}
}

/* ---- thread-local watches: one address per thread ---------------- */

/* Watch @w's bytes in thread @th: its own copy for a thread-local one
 * (events/events.h: w->addr is then the offset in the TLS block). */
static uint64_t watch_addr(const struct thr *th, const struct hwbpi_watch *w)
{
	return w->tls ? th->tls_block + w->addr : w->addr;
}

/* The shadow of watch @i for thread @th of process @p. */
static uint8_t *shadow_of(struct hwbpi_pt_loop *L, struct proc *p, struct thr *th, unsigned i)
{
	return (L->t->w[i].tls ? th->shadow : p->shadow) + L->off[i];
}

/* A thread's copies of the thread-local watches, into its own shadow. */
static void read_tls_shadow(struct hwbpi_pt_loop *L, struct thr *th)
{
	for (unsigned i = 0; i < L->t->nw; i++) {
		const struct hwbpi_watch *w = &L->t->w[i];

		if (w->tls && w->len <= sizeof(L->cur))
			hwbpi_ptrace_read_mem(th->tid, watch_addr(th, w), th->shadow + L->off[i], w->len);
	}
}

/* The trace ends with @ret, the reason said once. */
static int fail(struct hwbpi_pt_loop *L, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct hwbpi_pt_loop *L, int ret, const char *fmt, ...)
{
	va_list ap;

	if (L->fail)
		return L->fail;
	L->fail = ret;
	if (L->err && L->errlen) {
		va_start(ap, fmt);
		vsnprintf(L->err, L->errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* The name of the first thread-local watch, for messages. */
static const char *tls_name(const struct hwbpi_pt_loop *L)
{
	for (unsigned i = 0; i < L->t->nw; i++)
		if (L->t->w[i].tls)
			return L->t->w[i].name;
	return "?";
}

/*
 * Stopped thread @th's TLS block: from its thread pointer, which a new
 * thread has from its clone (CLONE_SETTLS, before its first stop) and
 * keeps (a program that moves it, arch_prctl or TPIDR_EL0 writes of its
 * own, is not followed).  Errors (L->fail): -EOPNOTSUPP (no thread
 * pointer yet), ptrace's.
 */
static int tls_block(struct hwbpi_pt_loop *L, const struct thr *th, uint64_t *block)
{
	int ret = hwbpi_linux_tls_block(th->tid, L->tls_memsz, L->tls_align, block);

	if (ret == -ENXIO)
		return fail(L, -EOPNOTSUPP, "thread-local variable '%s': thread %d has no thread "
			    "pointer yet (a statically linked program at its entry point?): "
			    "EOPNOTSUPP", tls_name(L), (int)th->tid);
	if (ret)
		return fail(L, ret, "thread-local variable '%s': cannot read thread %d's thread "
			    "pointer: %s", tls_name(L), (int)th->tid, hwbp_errno_name(ret));
	return 0;
}

/* Stopped thread @th's TLS block, once, and its shadow.  Errors
 * (L->fail): tls_block()'s, -ENOMEM. */
static int thr_tls(struct hwbpi_pt_loop *L, struct thr *th)
{
	if (!L->ntls || th->tls_known)
		return 0;
	if (tls_block(L, th, &th->tls_block))
		return L->fail;
	if (!th->shadow && !(th->shadow = calloc(1, L->shadow_len ? L->shadow_len : 1)))
		return fail(L, -ENOMEM, "out of memory");
	th->tls_known = true;
	read_tls_shadow(L, th);
	return 0;
}

/*
 * Move the plan's thread-local requests (and their twins) to the copies
 * in TLS block @block, and L->regs with them: the registers of the
 * thread that block is, to write or to decode its hit with.  Every
 * thread's block is aligned alike (p_align, and the thread pointer's
 * own alignment), so its copies take the same pieces, which
 * hwbp_modify() puts in the slots they leave (it plans as if the
 * request's own slots were free and takes the first free ones); a copy
 * that fits no more ends the trace.
 * Errors (L->fail): hwbp_modify()'s (-ENOSPC), hwbp_task_regs()'s.
 */
static int retarget(struct hwbpi_pt_loop *L, uint64_t block)
{
	int ret = 0;

	if (L->tls_at == block)
		return 0;
	for (unsigned i = 0; ret == 0 && i < L->t->nw; i++) {
		const struct hwbpi_watch *w = &L->t->w[i];
		struct hwbp_request q = hwbpi_pt_watch_req(L, w, block + w->addr);
		struct hwbp_request tq = hwbpi_pt_twin_req(w, block + w->addr);

		if (!w->tls || w->req < 0)
			continue;
		ret = hwbp_modify(&L->ctx, w->req, &q);
		if (ret == 0 && L->twin[i] >= 0)
			ret = hwbp_modify(&L->ctx, L->twin[i], &tq);
		if (ret)
			return fail(L, ret, "%s: the copy at 0x%" PRIx64 " cannot be planned as the "
				    "first thread's was: %s", w->name, block + w->addr,
				    hwbp_errno_name(ret));
	}
	L->tls_at = block;
	ret = hwbp_task_regs(&L->ctx, 0, &L->task, &L->regs);
	return ret ? fail(L, ret, "%s: %s", tls_name(L), hwbp_errno_name(ret)) : 0;
}

/* The registers thread @th holds (or is to hold): the plan's, with its
 * own copies of the thread-local watches; nothing armed when those
 * cannot be placed (the trace then ends: L->fail). */
const struct hwbp_regs *hwbpi_pt_thr_regs(struct hwbpi_pt_loop *L, struct thr *th)
{
	if (!L->ntls)
		return &L->regs;
	if (thr_tls(L, th) || retarget(L, th->tls_block))
		return &L->s->off;
	return &L->regs;
}

/* Where the hit is stepped over: the hit watches' bytes before the
 * access, read at the trap (the exception comes before it). */
static void read_pre(struct hwbpi_pt_loop *L, struct thr *th)
{
	for (unsigned i = 0; i < L->t->nw; i++) {
		const struct hwbpi_watch *w = &L->t->w[i];
		uint8_t b[8];

		if (w->req >= 0 && (th->hit_req & (UINT64_C(1) << w->req)) &&
		    hwbpi_ptrace_read_mem(th->tid, watch_addr(th, w), b, w->len < 8 ? w->len : 8) == 0)
			th->pre[i] = hwbpi_value_of_bytes(b, w->len);
	}
}

/*
 * The hit's access decoded (L->dec: x86), and the hit filtered by it: a
 * watch whose bytes it did not touch, or a kind it did not ask for (a
 * read-only watch widened to RW: the write), is dropped (counted as
 * filtered); th->hit_kind then gives the others their kind.  A hit that
 * does not decode is left as it was.
 */
static void decode_hit(struct hwbpi_pt_loop *L, struct thr *th, const struct hwbp_status *st,
		       struct hwbp_hit *hit)
{
	uint64_t lo[HWBP_MAX_REQUESTS], len[HWBP_MAX_REQUESTS], watched = 0;
	struct hwbp_access acc;
	struct hwbp_hit h2;
	unsigned nr = 0;
	int ret;

	/* Data watches only: an execute breakpoint's hit is the instruction
	 * at the PC, not one that ended there. */
	for (unsigned i = 0; i < L->t->nw; i++) {
		const struct hwbpi_watch *w = &L->t->w[i];

		if (w->req >= 0 && !(w->type & HWBP_X) && (hit->requests & (UINT64_C(1) << w->req))) {
			lo[nr] = watch_addr(th, w);
			len[nr++] = w->len;
			watched |= UINT64_C(1) << w->req;
		}
	}
	if (!nr)
		return;
	if ((ret = hwbpi_hit_access(L->dec, th->tid, L->t->syms, st->ip, lo, len, nr, &acc)) ||
	    (ret = hwbp_decode(&L->ctx, 0, &L->task, st, &acc, &h2))) {
		if (!L->s->undecoded++)
			L->s->undecoded_err = ret;
		return;
	}
	L->s->decoded++;
	if (!(h2.requests & watched))
		L->t->filtered++;
	hit->requests = h2.requests;
	th->hit_kind = (uint8_t)acc.kind;
}

/*
 * A hit @st of thread @th: decoded into the requests it names, kept in
 * the thread until emit() (at once, or after the step over it).
 */
static void take_hit(struct hwbpi_pt_loop *L, struct thr *th, const struct hwbp_status *st)
{
	struct proc *p = hwbpi_ptrace_proc_find(L->s, th->tgid);
	struct hwbp_hit hit;

	th->hit_req = 0;
	th->hit_kind = 0;
	th->hit_ip = st->ip;
	if (p && p->watched && hwbp_decode(&L->ctx, 0, &L->task, st, NULL, &hit) == 0) {
		if (hit.filtered)
			L->t->filtered++;
		else if (L->dec)
			decode_hit(L, th, st, &hit);
		th->hit_req = hit.requests;
	}
	if (hwbpi_linux_step_over)
		read_pre(L, th);
}

void hwbpi_pt_set_values(struct hwbp_trace_event *ev, uint64_t len, const uint64_t val[2])
{
	ev->vsize = (uint8_t)(len < 8 ? len : 8);
	ev->value = val[0];
	ev->vflags = HWBP_EV_VALUE;
	if (ev->kind == HWBP_W) {
		ev->old = val[1];
		ev->vflags |= HWBP_EV_OLD;
	}
}

bool hwbpi_pt_kind(const struct hwbpi_watch *w, unsigned hwtype, bool changed,
		   struct hwbp_trace_event *ev)
{
	if (hwtype == HWBP_R) {
		/* A load-only watch (arm64 LSC 01): every hit is a read, the
		 * value says nothing (it may change between hits, by
		 * unwatched writes). */
		ev->kind = HWBP_R;
		ev->kind_how = HWBP_KIND_TYPE;
	} else if (changed) {
		/* With W in the hardware type every write is a hit, so the
		 * bytes changed at this one.  An R watch the hardware widened
		 * to RW (x86): a write is not what was asked for. */
		if ((w->type & HWBP_RW) == HWBP_R)
			return false;
		ev->kind = HWBP_W;
		ev->kind_how = HWBP_KIND_VALUE;
	} else if (w->type == HWBP_W || w->type == HWBP_X) {
		ev->kind = (uint8_t)w->type;
		ev->kind_how = HWBP_KIND_TYPE;
	}
	return true;
}

/*
 * Feed the hit kept in @th to the tracer, once the access is done (x86:
 * at the trap; arm64: after the step).  The kind comes from the watched
 * bytes against the shadow copy (ptrace.h).
 */
static void emit(struct hwbpi_pt_loop *L, struct thr *th)
{
	struct hwbpi_tracer *t = L->t;
	struct proc *p = hwbpi_ptrace_proc_find(L->s, th->tgid);
	uint64_t callers[HWBPI_STACK_MAX];
	unsigned ncallers = 0, emitted = 0;
	struct timespec ts;
	uint64_t now;

	/* The time is taken here, where the access is done, not at the trap:
	 * where a hit is stepped over (arm64) another thread's hit may be
	 * emitted between one thread's trap and the end of its step, and a
	 * trace's events must come in time order (a CTF stream whose time
	 * goes backwards is refused: ERANGE, seen in the aarch64 guest with 4
	 * threads). */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	/* --stack: the thread's callers, once for every watch it hit */
	if (p && p->watched && t->stack_depth && th->hit_req)
		ncallers = hwbpi_unwind_thread(&L->uw, th->tid, callers,
					       t->stack_depth < HWBPI_STACK_MAX ? t->stack_depth
										: HWBPI_STACK_MAX);
	if (p && p->watched) {
		for (unsigned i = 0; i < t->nw; i++) {
			const struct hwbpi_watch *w = &t->w[i];
			const struct hwbp_plan *pl;
			struct hwbp_trace_event ev;
			bool changed = false, got = false;
			uint8_t *sh = shadow_of(L, p, th, i);
			uint64_t val[2] = { 0, 0 };   /* after the access, before it */
			unsigned hwtype;

			if (w->req < 0 || !(th->hit_req & (UINT64_C(1) << w->req)))
				continue;
			pl = hwbp_plan_of(&L->ctx, w->req);
			hwtype = pl ? pl->type : w->type;
			if (w->len <= sizeof(L->cur) &&
			    hwbpi_ptrace_read_mem(th->tid, watch_addr(th, w), L->cur, w->len) == 0) {
				changed = memcmp(L->cur, sh, w->len) != 0;
				/* Before: read at the trap where the hit is
				 * stepped over, else the bytes at the last hit
				 * (the trap came after the access). */
				got = true;
				val[0] = hwbpi_value_of_bytes(L->cur, w->len);
				val[1] = hwbpi_linux_step_over ? th->pre[i]
							       : hwbpi_value_of_bytes(sh, w->len);
				memcpy(sh, L->cur, w->len);
			}
			/* A hit without its status names every armed
			 * slot: only a watch whose bytes changed was it. */
			if (th->guess && !changed)
				continue;
			emitted++;
			memset(&ev, 0, sizeof(ev));
			ev.ts = now;
			ev.ip = th->hit_ip;
			ev.addr = watch_addr(th, w);
			ev.bp = (uint16_t)i;
			ev.tid = (uint32_t)th->tid;
			if (th->hit_kind) {
				/* The decoded instruction's access (decode_hit()),
				 * of the kinds this watch asked for. */
				ev.kind = (uint8_t)(th->hit_kind & w->type);
				ev.kind_how = HWBP_KIND_INSN;
				if (!ev.kind) {
					t->filtered++;
					continue;
				}
			} else if (L->twin[i] >= 0) {
				/* The twin's DR6 bit says store (add_twins()). */
				ev.kind = th->hit_req & (UINT64_C(1) << L->twin[i]) ? HWBP_W : HWBP_R;
				ev.kind_how = HWBP_KIND_HW;
				if (!(ev.kind & w->type)) {
					t->filtered++;
					continue;
				}
			} else if (!hwbpi_pt_kind(w, hwtype, changed, &ev)) {
				t->filtered++;
				continue;
			}
			if (got && w->type != HWBP_X)
				hwbpi_pt_set_values(&ev, w->len, val);
			if (t->stack_depth)
				hwbpi_tracer_hit_frames(t, &ev, callers, ncallers);
			else
				hwbpi_tracer_hit(t, &ev);
		}
		emitted += hwbpi_pt_objs_emit(L, th, now, callers, ncallers);
		if (th->guess) {
			L->s->lost_status++;
			L->s->lost_unknown += !emitted;
		}
	}
	th->guess = false;
	th->hit_req = 0;
	th->hit_kind = 0;
}

/*
 * A debug-register hit of stopped thread @th: fed to the tracer now, or,
 * where the exception comes before the access and the kernel leaves the
 * step to the tracer (hwbpi_linux_step_over), once a single step with
 * the thread's slots cleared has run the instruction (th->step); the
 * caller resumes it with hwbpi_ptrace_resume_thr(), which single-steps then.
 */
static void on_hit(struct hwbpi_pt_loop *L, struct thr *th, const struct hwbp_status *st)
{
	take_hit(L, th, st);
	hwbpi_linux_hit_done(th->tid);
	if (hwbpi_linux_step_over &&
	    hwbpi_linux_write(th->tid, &L->s->cpu, &L->s->off) == 0) {
		th->step = true;
		return;
	}
	emit(L, th);
}

/*
 * The end of a step over a hit (a SIGTRAP stop of a stepping thread):
 * the slots back, and the hit fed to the tracer, unless @ran is false:
 * a signal handler was entered instead (the kernel reports that with
 * ptrace_notify(), si_code SIGTRAP: kernel/signal.c signal_delivered()),
 * so the instruction has not run and will trap again after the handler.
 */
static void step_done(struct hwbpi_pt_loop *L, struct thr *th, bool ran)
{
	struct proc *p = hwbpi_ptrace_proc_find(L->s, th->tgid);

	th->step = false;
	if (p && p->watched)
		hwbpi_linux_write(th->tid, &L->s->cpu, hwbpi_pt_thr_regs(L, th));
	if (ran)
		emit(L, th);
	th->hit_req = 0;
}

/* First stop of a thread: give it the process's registers (its own
 * copies of the thread-local watches). */
static int arm(struct hwbpi_pt_loop *L, struct thr *th)
{
	struct proc *p = hwbpi_ptrace_proc_find(L->s, th->tgid);

	th->armed = true;
	if (!p || !p->watched)
		return 0;
	th->gen = L->gen;
	return hwbpi_linux_write(th->tid, &L->s->cpu, hwbpi_pt_thr_regs(L, th));
}

static bool group_stop(pid_t tid)
{
	siginfo_t si;

	/* man 2 ptrace: PTRACE_GETSIGINFO fails with EINVAL in group-stop. */
	return ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) && errno == EINVAL;
}

static bool stop_sig(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/*
 * The tracing loop has been asked to end (hwbpi_ptrace_request_stop()).
 * Attached: every thread interrupted, each then detached at its stop
 * (detach_stopped()).  Started: the process gets the signal given (it
 * is traced on until it ends, as under perf record); asked again, it is
 * killed; once it has ended, its traced children are killed (they would
 * be with the tracer anyway: PTRACE_O_EXITKILL).  Only tracees not
 * reaped yet are signalled: their pids cannot have been reused.
 */
static void stop_step(struct hwbpi_pt_loop *L)
{
	struct hwbpi_ptrace *s = L->s;

	if (!L->stopping) {
		L->stopping = true;
		L->detaching = s->attached;
		for (size_t i = 0; s->attached && i < s->nthr; i++)
			ptrace(PTRACE_INTERRUPT, s->thr[i].tid, NULL, NULL);
		if (!s->attached && !s->ended && stop_signal)
			kill(s->pid, stop_signal);
	}
	if (!s->attached && !s->ended && stop_requested > 1 && !L->hurried) {
		L->hurried = true;
		kill(s->pid, SIGKILL);
	}
	if (!s->attached && s->ended && !L->killing) {
		L->killing = true;
		for (size_t i = 0; i < s->nthr; i++)
			kill(s->thr[i].tgid, SIGKILL);
	}
}

/*
 * The first stop of thread @w, a new thread or child whose creator's
 * event has not been seen yet: the thread (and a new process) added.
 * NULL: -ENOMEM.
 */
static struct thr *first_stop(struct hwbpi_pt_loop *L, pid_t w)
{
	struct hwbpi_ptrace *s = L->s;
	pid_t tgid = hwbpi_proc_status_field(w, "Tgid");
	bool newproc;
	struct thr *th;
	struct proc *p;

	if (tgid <= 0)
		tgid = w;
	newproc = !hwbpi_ptrace_proc_find(s, tgid);
	th = hwbpi_ptrace_thr_add(s, w, tgid);
	p = th ? hwbpi_ptrace_proc_add(s, tgid, L->shadow_len) : NULL;
	if (!p)
		return NULL;
	/* A forked child: its bytes, stopped now. */
	if (newproc)
		read_shadow(L, p, w);
	return th;
}

/* A stop of thread @th (@w) while stopping an attached session: it is
 * detached, its signal delivered, unless a hit's trap is still queued. */
static void detach_stopped(struct hwbpi_pt_loop *L, struct thr *th, pid_t w, int sig, int ev)
{
	struct hwbpi_ptrace *s = L->s;

	/* A hit's SIGTRAP may already be queued to the thread (force_sig()
	 * from the debug exception) while this is another stop: once
	 * detached it would kill the process (SIGTRAP's default action).
	 * Let it surface first, with no breakpoint left to raise another.
	 * The traps planted for objects go first: the code as it was; a
	 * thread stopped by one goes back to its instruction. */
	if (ev == 0 && sig == SIGTRAP && !th->sbp_at)
		hwbpi_pt_objs_rewind(L, w);
	hwbpi_pt_objs_unplant(L, w);
	hwbpi_ptrace_disarm(s, w);
	if (ev == 0 && sig == SIGTRAP) {
		ptrace(PTRACE_DETACH, w, NULL, NULL);   /* suppressed */
	} else if (hwbpi_proc_trap_pending(w)) {
		th->step = false;
		hwbpi_child_resume(w, ev == 0 && !group_stop(w) ? sig : 0);
		return;
	} else {
		/* A signal-delivery stop: delivered on detach. */
		ptrace(PTRACE_DETACH, w, NULL,
		       (void *)(uintptr_t)(ev == 0 && !group_stop(w) ? sig : 0));
	}
	hwbpi_ptrace_thr_del(s, w);
}

/* A clone, fork or vfork event of thread @th (@w): the new thread (and
 * process) known before its own first stop.  Errors: -ENOMEM. */
static int on_clone(struct hwbpi_pt_loop *L, struct thr *th, pid_t w, int ev)
{
	struct hwbpi_ptrace *s = L->s;
	unsigned long nt = 0;
	pid_t tgid = th->tgid, ptgid = th->tgid;

	ptrace(PTRACE_GETEVENTMSG, w, NULL, &nt);
	if (ev != PTRACE_EVENT_CLONE || hwbpi_proc_status_field((pid_t)nt, "Tgid") == (pid_t)nt)
		tgid = (pid_t)nt;
	if (nt && !hwbpi_ptrace_thr_find(s, (pid_t)nt)) {
		struct proc *pp, *np;

		if (!hwbpi_ptrace_thr_add(s, (pid_t)nt, tgid) || !hwbpi_ptrace_proc_add(s, tgid, L->shadow_len))
			return -ENOMEM;
		/* fork copies memory: the child's bytes are the parent's,
		 * stopped now. */
		pp = hwbpi_ptrace_proc_find(s, ptgid);
		np = hwbpi_ptrace_proc_find(s, tgid);
		if (pp && np && np != pp) {
			np->watched = pp->watched;
			memcpy(np->shadow, pp->shadow, L->shadow_len);
		}
	}
	/* hwbpi_ptrace_thr_add() may have moved the array. */
	hwbpi_ptrace_resume_thr(hwbpi_ptrace_thr_find(s, w), 0);
	return 0;
}

/* An exec event of thread @th (@w).  The old address space and the
 * breakpoints are gone (flush_ptrace_hw_breakpoint() in flush_thread()). */
static void on_exec(struct hwbpi_pt_loop *L, struct thr *th, pid_t w)
{
	struct hwbpi_ptrace *s = L->s;
	struct proc *p = hwbpi_ptrace_proc_find(s, th->tgid);
	unsigned long old = 0;

	if (p)
		p->watched = false;
	if (th->tgid == s->pid)
		hwbpi_pt_objs_forget(L);
	hwbpi_hit_dec_forget(L->dec);   /* a new program (any tracee's): other code */
	ptrace(PTRACE_GETEVENTMSG, w, NULL, &old);
	if ((pid_t)old != w)
		hwbpi_ptrace_thr_del(s, (pid_t)old);   /* a non-leader exec'd */
	th = hwbpi_ptrace_thr_find(s, w);
	if (th)
		th->step = false;   /* exec ends a step (new image) */
	hwbpi_ptrace_resume_thr(th, 0);
}

/*
 * The step over a planted trap was made with the data watches off
 * (th->sbp_quiet): the watches back, and the stepped instruction's own
 * access, decoded, is the hit the hardware was not asked for.  Why: on
 * Debian's 6.1 kernel under QEMU 10's x86 TCG, a PTRACE_SINGLESTEP whose
 * instruction hits a data breakpoint (DR6 BS and Bn in one #DB) hangs the
 * whole machine (docs/fidelity.md); a function's first instruction often
 * writes the object its arming trap has just armed (--release scope).
 */
static void quiet_step_done(struct hwbpi_pt_loop *L, struct thr *th)
{
	struct proc *p = hwbpi_ptrace_proc_find(L->s, th->tgid);
	uint64_t lo[HWBP_MAX_REQUESTS], len[HWBP_MAX_REQUESTS], req = 0, pc;
	struct hwbp_access acc;
	unsigned nr = 0;

	th->sbp_quiet = false;
	if (!p || !p->watched)
		return;
	hwbpi_linux_write(th->tid, &L->s->cpu, hwbpi_pt_thr_regs(L, th));
	for (unsigned id = 0; id < HWBP_MAX_REQUESTS; id++)
		if (L->ctx.req[id].live && L->ctx.req[id].plan.req.type != HWBP_X) {
			lo[nr] = L->ctx.req[id].plan.req.addr;
			len[nr++] = L->ctx.req[id].plan.req.len;
		}
	if (!nr || hwbpi_linux_pc(th->tid, &pc) ||
	    hwbpi_hit_access(L->dec, th->tid, L->t->syms, pc, lo, len, nr, &acc))
		return;   /* no access, or none to locate: no hit */
	for (unsigned id = 0; id < HWBP_MAX_REQUESTS; id++) {
		const struct hwbp_request *r = &L->ctx.req[id].plan.req;

		if (L->ctx.req[id].live && r->type != HWBP_X && (r->type & acc.kind) &&
		    acc.addr < r->addr + r->len && r->addr < acc.addr + acc.size)
			req |= UINT64_C(1) << id;
	}
	if (!req)
		return;
	L->s->decoded++;
	th->hit_req = req;
	th->hit_kind = (uint8_t)acc.kind;
	th->hit_ip = pc;
	th->guess = false;
	emit(L, th);
	th->hit_req = 0;
}

/* A SIGTRAP signal-delivery stop of thread @th (@w): the end of a step
 * over a hit, a hit, or the program's own trap. */
static void on_sigtrap(struct hwbpi_pt_loop *L, struct thr *th, pid_t w)
{
	struct hwbpi_ptrace *s = L->s;
	struct proc *p = hwbpi_ptrace_proc_find(s, th->tgid);
	struct hwbp_status hs;
	siginfo_t si;
	int hr;

	if (ptrace(PTRACE_GETSIGINFO, w, NULL, &si))
		memset(&si, 0, sizeof(si));
	/* The step over a planted trap (ptrace_objects.c) is done; the
	 * stepped instruction may have hit a watch too: x86 reports both in
	 * one #DB (DR6 BS and Bn, one SIGTRAP: exc_debug_user()); arm64's
	 * watchpoint comes first, before the instruction ran, and the hit
	 * is stepped over before the trap goes back. */
	if (th->sbp_at && !th->step && si.si_code > 0 && si.si_code != SIGTRAP) {
		int hr = th->sbp_quiet ? -1 :
			 hwbpi_linux_hit(w, &s->cpu, p && p->watched ? hwbpi_pt_thr_regs(L, th) : &s->off,
					 &si, &hs);

		if (th->sbp_quiet)
			quiet_step_done(L, th);
		if (hr >= 0) {
			th->guess = hr > 0;
			on_hit(L, th, &hs);
			if (th->step) {
				hwbpi_ptrace_resume_thr(th, 0);
				return;
			}
		}
		hwbpi_pt_objs_step_done(L, th);
		hwbpi_pt_objs_tick(L, th, false);
		hwbpi_ptrace_resume_thr(th, 0);
		return;
	}
	/* The step over a hit is done (TRAP_TRACE; a step over a system
	 * call may report SI_USER from the kernel, si_pid 0:
	 * user_single_step_report()), or (si_code SIGTRAP) a handler was
	 * entered first.  A planted trap's step waiting behind it is done
	 * with it. */
	if (th->step && (si.si_code > 0 || (si.si_code == SI_USER && si.si_pid == 0))) {
		step_done(L, th, si.si_code != SIGTRAP);
		if (th->sbp_at && si.si_code != SIGTRAP)
			hwbpi_pt_objs_step_done(L, th);
		hwbpi_pt_objs_tick(L, th, false);
		hwbpi_ptrace_resume_thr(th, 0);
	} else if (!th->step && si.si_code != TRAP_HWBKPT && hwbpi_pt_objs_trap(L, th)) {
		/* A planted trap, before the debug registers are asked: x86
		 * keeps DR6's bits of the last hit until the next #DB, and INT3
		 * is #BP, not #DB.  Where hits are decoded, the step goes with
		 * the data watches off (quiet_step_done()). */
		if (th->sbp_at && L->dec && p && p->watched &&
		    hwbpi_linux_write(th->tid, &s->cpu, &s->off) == 0)
			th->sbp_quiet = true;
		hwbpi_ptrace_resume_thr(th, 0);   /* steps over it (th->sbp_at) */
	} else if (!th->step &&
		   (hr = hwbpi_linux_hit(w, &s->cpu, p && p->watched ? hwbpi_pt_thr_regs(L, th) : &s->off,
					 &si, &hs)) >= 0) {
		th->guess = hr > 0;
		on_hit(L, th, &hs);
		hwbpi_pt_objs_tick(L, th, false);
		hwbpi_ptrace_resume_thr(th, 0);
	} else {
		hwbpi_ptrace_resume_thr(th, SIGTRAP);   /* the program's own */
	}
}

/* A stop of armed thread @th (@w), by kind.  Errors: -ENOMEM. */
static int on_stop(struct hwbpi_pt_loop *L, struct thr *th, pid_t w, int sig, int ev)
{
	if (ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK)
		return on_clone(L, th, w, ev);
	if (ev == PTRACE_EVENT_EXEC) {
		on_exec(L, th, w);
	} else if (ev == PTRACE_EVENT_STOP) {
		/* Seized: group-stop stays stopped (PTRACE_LISTEN); an
		 * interrupt stop goes on. */
		if (stop_sig(sig))
			ptrace(PTRACE_LISTEN, w, NULL, NULL);
		else
			hwbpi_ptrace_resume_thr(th, 0);
	} else if (ev) {
		hwbpi_ptrace_resume_thr(th, 0);
	} else if (sig == SIGTRAP) {
		on_sigtrap(L, th, w);
	} else if (stop_sig(sig) && group_stop(w)) {
		hwbpi_ptrace_resume_thr(th, 0);
	} else {
		/* A signal while stepping over a hit: delivered with the
		 * step (the handler's entry ends it, on_sigtrap()). */
		hwbpi_ptrace_resume_thr(th, sig);
	}
	return 0;
}

/* Status @st of tracee @w from waitpid().  Errors: -ENOMEM. */
static int on_status(struct hwbpi_pt_loop *L, pid_t w, int st)
{
	struct hwbpi_ptrace *s = L->s;
	struct thr *th = hwbpi_ptrace_thr_find(s, w);
	int sig, ev;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		if (w == s->pid) {
			s->status = st;
			s->ended = true;
		}
		hwbpi_ptrace_thr_del(s, w);
		return 0;
	}
	if (!WIFSTOPPED(st))
		return 0;
	sig = WSTOPSIG(st);
	ev = st >> 16;
	if (!th && !(th = first_stop(L, w)))
		return -ENOMEM;
	if (L->detaching) {
		detach_stopped(L, th, w, sig, ev);
		return 0;
	}
	if (!th->armed) {
		arm(L, th);
		if ((sig == SIGSTOP && ev == 0) || ev == PTRACE_EVENT_STOP) {
			hwbpi_ptrace_resume_thr(th, 0);
			return 0;
		}
	}
	/* Watches of objects: registers changed since; at an interrupt
	 * stop (the rotation's timer brought it), a rotation due.  A
	 * SIGTRAP may be a hit: it is taken first (on_sigtrap() ticks
	 * after), so that it counts for the object that was in the slot. */
	if (!(ev == 0 && sig == SIGTRAP))
		hwbpi_pt_objs_tick(L, th, ev == PTRACE_EVENT_STOP);
	return on_stop(L, th, w, sig, ev);
}

/* Wait for every tracee's stops until none is left.  Errors: -ENOMEM,
 * -errno of waitpid(). */
static int event_loop(struct hwbpi_pt_loop *L)
{
	struct hwbpi_ptrace *s = L->s;
	int ret = 0;

	while (ret == 0) {
		int st;
		pid_t w;

		if (stop_requested)
			stop_step(L);
		hwbpi_pt_objs_alarm(L);
		/* Every tracee known (a new one is added at its creator's
		 * event or its own first stop, whichever comes first): none
		 * left is the end, even when the caller has other children
		 * (an attached process that is also its child, detached). */
		if (s->nthr == 0)
			break;
		w = waitpid(-1, &st, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != ECHILD)
				ret = -errno;
			break;
		}
		ret = on_status(L, w, st);
		if (ret == 0)
			ret = L->fail;
		if (s->drain && L->t->trace &&
		    hwbpi_tracer_hits(L->t) - L->drained_at >=
			    hwbpi_tracer_drain_every(L->t, HWBPI_PT_DRAIN_EVERY)) {
			s->drain(s->drain_arg);
			L->drained_at = hwbpi_tracer_hits(L->t);
		}
	}
	return ret;
}

/*
 * A model given by the caller must be one the kernel can program:
 * the same architecture, no more slots or longer pieces than the
 * kernel's own model (e.g. i386 on x86_64 is fine, cortex-a57 on an
 * arm64 kernel with 4 watchpoints too).
 */
static int check_model(struct hwbpi_ptrace *s, const struct hwbp_cpu *cpu, char *err, size_t errlen)
{
	return cpu ? hwbpi_model_fits("ptrace", cpu, &s->cpu, err, errlen) : 0;
}

/*
 * Thread-local watches: the executable's PT_TLS, and the TLS block the
 * plan starts at, the process leader's (or, attached after it ended,
 * another known thread's).  Errors (L->fail): thr_tls()'s.
 */
static int tls_start(struct hwbpi_pt_loop *L)
{
	struct hwbpi_ptrace *s = L->s;
	struct thr *th = hwbpi_ptrace_thr_find(s, s->pid);
	uint64_t block;
	int ret;

	for (unsigned i = 0; i < L->t->nw; i++)
		if (L->t->w[i].tls && L->ntls++ == 0) {
			L->tls_memsz = L->t->w[i].tls_memsz;
			L->tls_align = L->t->w[i].tls_align;
		}
	if (!L->ntls || (!th && !(th = s->nthr ? &s->thr[0] : NULL)))
		return 0;
	/* Its block only: the shadows are read once the plan has them. */
	ret = tls_block(L, th, &block);
	if (ret == 0)
		L->tls_at = block;
	return ret;
}

/* The plan (setup()), the first process and its bytes, every known
 * thread armed.  Errors: those of setup(), -ENOMEM, -EIO. */
static int start(struct hwbpi_pt_loop *L, const struct hwbp_cpu *cpu, char *err, size_t errlen)
{
	struct hwbpi_ptrace *s = L->s;
	int ret = tls_start(L);

	if (ret == 0)
		ret = hwbpi_pt_setup(L, cpu, err, errlen);

	if (ret == 0 && !hwbpi_ptrace_proc_add(s, s->pid, L->shadow_len))
		ret = -ENOMEM;
	if (ret == 0)
		read_shadow(L, hwbpi_ptrace_proc_find(s, s->pid), s->pid);
	/* Every known thread is stopped: arm them all, then let them go. */
	for (size_t i = 0; ret == 0 && i < s->nthr; i++) {
		const struct hwbp_regs *r = hwbpi_pt_thr_regs(L, &s->thr[i]);

		ret = L->fail ? L->fail : hwbpi_linux_write(s->thr[i].tid, &s->cpu, r);
		if (ret == -ESRCH && !L->fail) {
			ret = 0;   /* gone meanwhile: its exit comes through waitpid */
		} else if (ret && !L->fail) {
			hwbpi_say(err, errlen, "the kernel refused the debug registers: %s", strerror(-ret));
			ret = -EIO;
		}
	}
	/* Watches of objects: their functions' traps, before anything runs. */
	if (ret == 0)
		ret = hwbpi_pt_objs_start(L, s->pid, err, errlen);
	return ret;
}

int hwbpi_ptrace_trace(struct hwbpi_ptrace *s, struct hwbpi_tracer *t,
		       const struct hwbp_cpu *cpu, int *status, char *err, size_t errlen)
{
	struct hwbpi_pt_loop *L;
	int ret;

	if (!s || !t || s->traced || t->nw == 0)
		return -EINVAL;
	ret = check_model(s, cpu, err, errlen);
	if (ret)
		return ret;
	if (!cpu)
		cpu = &s->cpu;
	L = calloc(1, sizeof(*L));
	if (!L)
		return -ENOMEM;
	L->s = s;
	L->t = t;
	L->err = err;
	L->errlen = errlen;
	s->traced = true;
	/* --stack: the unwinder of the stopped process (for dwarf its
	 * modules, as they are mapped now), before any thread is armed */
	ret = t->stack_depth ? hwbpi_unwinder_init(&L->uw, (enum hwbpi_callgraph)s->callgraph,
						   s->pid, err, errlen) : 0;
	/* The hits' decoder, where the arch needs one (an error leaves the
	 * hits to twins and values, as without one); before the watches are
	 * installed, which share registers only where hits are decoded. */
	if (ret == 0 && s->decode && hwbpi_hit_dec_open(cpu->arch, &L->dec))
		L->dec = NULL;
	if (ret == 0)
		ret = start(L, cpu, err, errlen);
	if (ret) {
		hwbpi_hit_dec_close(L->dec);
		hwbpi_pt_objs_end(L);
		hwbpi_unwinder_fini(&L->uw);
		free(L);
		return ret;
	}
	for (size_t i = 0; i < s->nthr; i++) {
		hwbpi_ptrace_resume_thr(&s->thr[i], s->thr[i].pending);
		s->thr[i].pending = 0;
	}
	ret = event_loop(L);
	hwbpi_pt_objs_end(L);
	if (status)
		*status = s->status;
	hwbpi_unwinder_fini(&L->uw);
	hwbpi_hit_dec_close(L->dec);
	free(L);
	return ret;
}

void hwbpi_ptrace_set_callgraph(struct hwbpi_ptrace *s, int mode)
{
	if (s)
		s->callgraph = mode;
}
