/* SPDX-License-Identifier: MIT */
/*
 * The race detector's threads (race/race_int.h): the table, bringing a
 * stopped thread's debug registers to the generation, interrupting the
 * running ones so that they stop to be brought, letting them run again,
 * and letting them go (detach) at the end or when they are another
 * process's (a fork's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "race/race_int.h"

struct rthr *hwbpi_race_thr_find(struct hwbpi_race_loop *L, pid_t tid)
{
	for (size_t i = 0; i < L->nthr; i++)
		if (L->thr[i].tid == tid)
			return &L->thr[i];
	return NULL;
}

struct rthr *hwbpi_race_thr_add(struct hwbpi_race_loop *L, pid_t tid, pid_t tgid)
{
	struct rthr *th = hwbpi_race_thr_find(L, tid);

	if (th)
		return th;
	if (L->nthr == L->cthr) {
		size_t c = L->cthr ? 2 * L->cthr : 16;
		struct rthr *n = realloc(L->thr, c * sizeof(*n));

		if (!n)
			return NULL;
		L->thr = n;
		L->cthr = c;
	}
	th = &L->thr[L->nthr++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->tgid = tgid;
	th->gen = UINT64_MAX;   /* never written: brought at its first stop */
	return th;
}

void hwbpi_race_thr_del(struct hwbpi_race_loop *L, pid_t tid)
{
	struct rthr *th = hwbpi_race_thr_find(L, tid);

	if (th)
		*th = L->thr[--L->nthr];
}

/* Whether @th should hold the window's watch now. */
static bool wants_watch(const struct hwbpi_race_loop *L, const struct rthr *th)
{
	return (L->w.st == W_ARMING || L->w.st == W_OPEN) && th->tid != L->w.owner &&
	       th->tgid == L->pid && th->quiet_win != L->w.id && !L->detaching;
}

void hwbpi_race_sync(struct hwbpi_race_loop *L, struct rthr *th)
{
	bool want;

	if (th->gen == L->gen || th->tgid != L->pid)
		return;
	want = wants_watch(L, th);
	/* A thread that holds nothing and should hold nothing costs no
	 * write: most threads, most of the time. */
	if (want || th->armed) {
		if (hwbpi_linux_write(th->tid, &L->cpu, want ? &L->w.regs : &L->off))
			return;   /* gone meanwhile: its exit comes */
		th->armed = want;
		if (want)
			th->win = L->w.id;
	}
	th->gen = L->gen;
}

void hwbpi_race_spread(struct hwbpi_race_loop *L)
{
	for (size_t i = 0; i < L->nthr; i++) {
		struct rthr *th = &L->thr[i];

		if (th->tgid != L->pid || !th->seen || th->gen == L->gen)
			continue;
		if (th->stopped)
			hwbpi_race_sync(L, th);
		else if (!th->listening && !th->interrupted &&
			 ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) == 0)
			th->interrupted = true;
	}
}

bool hwbpi_race_all_synced(const struct hwbpi_race_loop *L)
{
	/* Not yet seen (a new thread before its first stop) and group-stopped
	 * threads cannot run: each is brought up to date before it does. */
	for (size_t i = 0; i < L->nthr; i++) {
		const struct rthr *th = &L->thr[i];

		if (th->tgid == L->pid && th->seen && !th->listening && th->gen != L->gen &&
		    th->tid != L->w.owner)
			return false;
	}
	return true;
}

void hwbpi_race_resume(struct hwbpi_race_loop *L, struct rthr *th)
{
	if (!th->stopped || (L->w.st != W_IDLE && th->tid == L->w.owner))
		return;
	/* ESRCH: killed meanwhile (its exit comes through waitpid). */
	ptrace(PTRACE_CONT, th->tid, NULL, (void *)(uintptr_t)th->sig);
	th->sig = 0;
	th->stopped = false;
}

struct rthr *hwbpi_race_stopped(struct hwbpi_race_loop *L)
{
	for (size_t i = 0; i < L->nthr; i++)
		if (L->thr[i].tgid == L->pid && L->thr[i].stopped)
			return &L->thr[i];
	return NULL;
}

/* Whether @th's SIGTRAP stop is one of ours: a trap of a candidate
 * (rewound onto its instruction, whose bytes are back) or a watch's
 * hit. */
static bool own_trap(struct hwbpi_race_loop *L, struct rthr *th)
{
	siginfo_t si;
	uint64_t pc;
	long c;

	if (ptrace(PTRACE_GETSIGINFO, th->tid, NULL, &si))
		return false;
	if (si.si_code == TRAP_HWBKPT)
		return true;
	if (hwbpi_linux_pc(th->tid, &pc) || pc < hwbpi_linux_trap_pc_after)
		return false;
	c = hwbpi_race_cand_find(&L->r->cands, pc - hwbpi_linux_trap_pc_after);
	if (c < 0 || !(L->r->cands.state[c] & HWBPI_RACE_TRAP_EVER))
		return false;
	if (hwbpi_linux_trap_pc_after)
		hwbpi_linux_set_pc(th->tid, pc - hwbpi_linux_trap_pc_after);
	return true;
}

void hwbpi_race_detach(struct hwbpi_race_loop *L, struct rthr *th, int sig, int ev)
{
	if (!L->traps_out) {
		hwbpi_traps_poke_all(&L->traps, th->tid, false);
		L->traps_out = true;
	}
	if (ev == 0 && sig == SIGTRAP && own_trap(L, th))
		sig = 0;
	if (th->armed)
		hwbpi_linux_write(th->tid, &L->cpu, &L->off);
	th->armed = false;
	/* A watch's trap still queued would kill the process once it is no
	 * longer traced: let it come first (its stop brings us back here,
	 * with nothing armed to raise another). */
	if (hwbpi_proc_trap_pending(th->tid)) {
		th->sig = ev == 0 && sig != SIGTRAP ? sig : th->sig;
		ptrace(PTRACE_CONT, th->tid, NULL, NULL);
		th->stopped = false;
		return;
	}
	if (ev == PTRACE_EVENT_STOP)
		sig = 0;   /* a group-stop's signal is not delivered again */
	ptrace(PTRACE_DETACH, th->tid, NULL, (void *)(uintptr_t)(sig ? sig : th->sig));
	hwbpi_race_thr_del(L, th->tid);
}

void hwbpi_race_foreign(struct hwbpi_race_loop *L, struct rthr *th)
{
	/* A fork's copy of the text has the traps that were planted: out,
	 * or the child dies of a SIGTRAP once let go.  (A vfork child shares
	 * the text: that takes them out of ours too, and our table still
	 * counts them planted: they are lost until evicted, a small price
	 * for a child that only runs until its exec.) */
	hwbpi_traps_poke_all(&L->traps, th->tid, false);
	ptrace(PTRACE_DETACH, th->tid, NULL, NULL);
	hwbpi_race_thr_del(L, th->tid);
}
