/* SPDX-License-Identifier: MIT */
/*
 * The race detector's loop (race/race_int.h, hwbpi_race_loop_run()): the
 * process's threads' stops, each handled in turn: traps (a sample, race/window.c), watch hits, new threads,
 * forks, execs, signals.  Between stops the loop sleeps in
 * sigtimedwait(SIGCHLD) until the next thing due: the end of a delay,
 * the next trap the budget allows, the end of --duration.  At the end
 * every thread is let go as it was: every trap out of its code, every
 * debug register cleared, each detached with the signal it was stopped
 * for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "race/race_int.h"

static void note(struct hwbpi_race_loop *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct hwbpi_race_loop *L, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!L->r->note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	L->r->note(L->r->note_arg, line);
}

static bool stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* ---- stops ------------------------------------------------------------ */

/* A SIGTRAP of @th: one of our traps, a watch's hit, or its own. */
static void on_sigtrap(struct hwbpi_race_loop *L, struct rthr *th)
{
	const struct hwbp_regs *held = th->armed ? &L->w.regs :
				       th->win && th->win == L->last.id ? &L->last.regs : &L->off;
	struct hwbp_status hs;
	siginfo_t si;
	uint64_t pc;

	if (ptrace(PTRACE_GETSIGINFO, th->tid, NULL, &si))
		memset(&si, 0, sizeof(si));
	if (hwbpi_linux_trap_si(&si) && hwbpi_linux_pc(th->tid, &pc) == 0 &&
	    pc >= hwbpi_linux_trap_pc_after) {
		long c = hwbpi_race_cand_find(&L->r->cands, pc - hwbpi_linux_trap_pc_after);

		/* Ours, planted now or taken out since (another thread's
		 * sample, an eviction): the instruction's bytes are back or
		 * will be, so it runs it once set back on it. */
		if (c >= 0 && (L->r->cands.state[c] & HWBPI_RACE_TRAP_EVER)) {
			if (hwbpi_linux_trap_pc_after)
				hwbpi_linux_set_pc(th->tid, pc - hwbpi_linux_trap_pc_after);
			if (L->r->cands.state[c] & HWBPI_RACE_TRAP_ON)
				hwbpi_race_on_trap(L, th, c);
			return;
		}
	}
	if (hwbpi_linux_hit(th->tid, &L->cpu, held, &si, &hs) >= 0) {
		hwbpi_race_on_hit(L, th);
		return;
	}
	th->sig = SIGTRAP;   /* the program's own */
}

/* The process replaced its image: nothing of the old code is there, and
 * the new program is not sampled. */
static void on_exec(struct hwbpi_race_loop *L, struct rthr *th)
{
	unsigned long old = 0;

	hwbpi_race_window_drop(L);
	L->sampling = false;
	L->traps.n = L->traps.live = 0;
	L->ring_n = 0;
	if (L->r->cands.state)
		memset(L->r->cands.state, 0, L->r->cands.n);
	ptrace(PTRACE_GETEVENTMSG, th->tid, NULL, &old);
	if ((pid_t)old != th->tid)
		hwbpi_race_thr_del(L, (pid_t)old);   /* a non-leader exec'd: it took the leader's id */
	note(L, "the process exec'd a new program: it runs on, not sampled");
}

/* A clone, fork or vfork event of @th: the new thread known before its
 * own first stop.  Errors: -ENOMEM. */
static int on_new(struct hwbpi_race_loop *L, struct rthr *th, int ev)
{
	unsigned long nt = 0;
	pid_t tgid;

	ptrace(PTRACE_GETEVENTMSG, th->tid, NULL, &nt);
	if (!nt)
		return 0;
	if (ev == PTRACE_EVENT_VFORK)
		L->vforks++;
	tgid = ev == PTRACE_EVENT_CLONE ? hwbpi_proc_status_field((pid_t)nt, "Tgid") : (pid_t)nt;
	if (ev == PTRACE_EVENT_CLONE && tgid <= 0)
		tgid = L->pid;
	return hwbpi_race_thr_add(L, (pid_t)nt, tgid) ? 0 : -ENOMEM;
}

/* A stop of our process's thread @th: handled by kind.  It stays stopped
 * when it is the held one.  Errors: -ENOMEM. */
static int on_stop(struct hwbpi_race_loop *L, struct rthr *th, int sig, int ev)
{
	int ret = 0;

	if (ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK)
		ret = on_new(L, th, ev);
	else if (ev == PTRACE_EVENT_VFORK_DONE && L->vforks)
		L->vforks--;
	else if (ev == PTRACE_EVENT_EXEC)
		on_exec(L, th);
	else if (ev == 0 && sig == SIGTRAP)
		on_sigtrap(L, th);
	else if (ev == 0)
		th->sig = sig;   /* its own signal: delivered when it runs */
	th = hwbpi_race_thr_find(L, th->tid);   /* (the table may have moved) */
	if (!th)
		return ret;
	hwbpi_race_sync(L, th);
	if (hwbpi_race_budget_wait(&L->budget, hwbpi_race_now()) == 0)
		hwbpi_race_plant(L, th->tid, hwbpi_race_now());
	L->maint_asked = false;
	if (ev == PTRACE_EVENT_STOP && stop_signal(sig)) {
		/* A group-stop: it stays stopped, without running, until a
		 * SIGCONT (seized: PTRACE_LISTEN). */
		ptrace(PTRACE_LISTEN, th->tid, NULL, NULL);
		th->stopped = false;
		th->listening = true;
	}
	hwbpi_race_window_step(L, hwbpi_race_now());
	if ((th = hwbpi_race_thr_find(L, th->tid)))
		hwbpi_race_resume(L, th);
	return ret;
}

/* Wait status @st of tracee @w.  Errors: -ENOMEM. */
static int on_status(struct hwbpi_race_loop *L, pid_t w, int st)
{
	struct rthr *th = hwbpi_race_thr_find(L, w);
	int sig, ev;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		if (w == L->pid) {
			L->r->have_status = true;
			L->r->status = st;
		}
		if (L->w.st != W_IDLE && w == L->w.owner)
			hwbpi_race_window_drop(L);
		else if (L->w.st != W_IDLE)
			L->w.exited = true;
		hwbpi_race_thr_del(L, w);
		hwbpi_race_window_step(L, hwbpi_race_now());
		return 0;
	}
	if (!WIFSTOPPED(st))
		return 0;
	if (!th) {
		pid_t tgid = hwbpi_proc_status_field(w, "Tgid");

		if (!(th = hwbpi_race_thr_add(L, w, tgid > 0 ? tgid : w)))
			return -ENOMEM;
	}
	sig = WSTOPSIG(st);
	ev = st >> 16;
	th->stopped = true;
	th->listening = false;
	/* Whatever the stop, an interrupt asked before it is spent: entering
	 * any ptrace-stop clears a pending one (kernel/signal.c ptrace_stop():
	 * "any trap clears pending STOP trap"), so that waiting on for its
	 * own stop would wait for good. */
	th->interrupted = false;
	if (th->tgid != L->pid) {
		hwbpi_race_foreign(L, th);   /* a fork's child: let go */
		return 0;
	}
	if (!th->seen) {
		th->seen = true;
		L->r->counts.threads++;
	}
	if (L->detaching) {
		hwbpi_race_detach(L, th, sig, ev);
		return 0;
	}
	return on_stop(L, th, sig, ev);
}

/* ---- the loop ------------------------------------------------------------ */

/* No more samples; once the window is closed every thread is let go. */
static void begin_stop(struct hwbpi_race_loop *L, int sig)
{
	L->stopping = true;
	L->sampling = false;
	if (!L->attached && sig)
		L->r->stop_sig = sig;
}

static void start_detach(struct hwbpi_race_loop *L)
{
	L->detaching = true;
	for (size_t i = 0; i < L->nthr;) {
		struct rthr *th = &L->thr[i];
		size_t n = L->nthr;

		if (th->stopped)
			hwbpi_race_detach(L, th, 0, -1);
		else if (!th->interrupted && ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) == 0)
			th->interrupted = true;
		if (L->nthr == n)
			i++;
	}
}

/* A trap the budget allows, and a candidate without one to take it. */
static bool may_plant(const struct hwbpi_race_loop *L)
{
	return L->sampling && !L->stopping && !L->vforks && L->traps.live < L->r->cands.n;
}

/* Plant now with a stopped thread, or interrupt a running one to. */
static void plant_due(struct hwbpi_race_loop *L, uint64_t now)
{
	struct rthr *th;

	if (!may_plant(L) || hwbpi_race_budget_wait(&L->budget, now) > 0)
		return;
	if ((th = hwbpi_race_stopped(L))) {
		hwbpi_race_plant(L, th->tid, now);
		return;
	}
	for (size_t i = 0; !L->maint_asked && i < L->nthr; i++) {
		th = &L->thr[i];
		if (th->tgid == L->pid && th->seen && !th->listening && !th->interrupted &&
		    ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) == 0) {
			th->interrupted = true;
			L->maint_asked = true;
		}
	}
}

/* Sleep until a tracee's stop (SIGCHLD, blocked) or @ns have passed. */
static void sleep_for(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigtimedwait(&set, NULL, &ts);   /* EAGAIN, EINTR: looked at again */
}

/* How long until something is due. */
static uint64_t next_due(const struct hwbpi_race_loop *L, uint64_t now)
{
	uint64_t t = HWBPI_RACE_POLL_NS;

	if (L->w.st == W_OPEN)
		t = L->w.deadline_ns > now ? L->w.deadline_ns - now : 0;
	if (may_plant(L) && !L->maint_asked) {
		uint64_t p = hwbpi_race_budget_wait(&L->budget, now);

		t = p < t ? p : t;
	}
	if (L->end_ns && !L->stopping)
		t = L->end_ns > now ? (L->end_ns - now < t ? L->end_ns - now : t) : 0;
	return t;
}

int hwbpi_race_loop_run(struct hwbpi_race_loop *L)
{
	struct hwbpi_race_run *r = L->r;
	bool killed = false;
	int ret = 0;

	while (ret == 0 && L->nthr) {
		uint64_t now = hwbpi_race_now();
		int st;
		pid_t w;

		if (r->stop && !L->stopping)
			begin_stop(L, r->stop_sig);
		if (L->end_ns && now >= L->end_ns && !L->stopping)
			begin_stop(L, SIGTERM);
		if (r->stop > 1 && !L->attached && !killed) {
			kill(L->pid, SIGKILL);   /* asked twice: hurried */
			killed = true;
		}
		hwbpi_race_window_step(L, now);
		if (L->stopping && L->w.st == W_IDLE && !L->detaching)
			start_detach(L);
		plant_due(L, now);
		w = waitpid(-1, &st, __WALL | WNOHANG);
		if (w > 0)
			ret = on_status(L, w, st);
		else if (w == 0)
			sleep_for(next_due(L, now));
		else if (errno == ECHILD)
			break;
		else if (errno != EINTR)
			ret = -errno;
	}
	return ret;
}

