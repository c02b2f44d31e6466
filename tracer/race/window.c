/* SPDX-License-Identifier: MIT */
/*
 * A sample of the race detector (race/race_int.h): a thread stopped at a
 * trap, its access decoded from its registers, the watch on it given to
 * every other thread, the thread held for the delay, the bytes compared,
 * the watch taken back, and only then the thread let go; and the traps
 * planted as the budget allows.  What the watch catches: catch.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <time.h>

#include "race/race_int.h"

uint64_t hwbpi_race_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- traps ------------------------------------------------------------ */

static void take_out(struct hwbpi_race_loop *L, pid_t tid, long c)
{
	hwbpi_trap_unplant(&L->traps, tid, L->r->cands.ip[c]);
	L->r->cands.state[c] &= (uint8_t)~HWBPI_RACE_TRAP_ON;
}

/* Room for one more trap: the oldest still planted evicted when the
 * table is full (re-sampling: a trap at cold code does not stay for
 * good). */
static void make_room(struct hwbpi_race_loop *L, pid_t tid)
{
	while (L->traps.live >= HWBPI_RACE_MAX_TRAPS && L->ring_n) {
		uint64_t ip = L->ring[L->ring_head];
		long c = hwbpi_race_cand_find(&L->r->cands, ip);

		L->ring_head = (L->ring_head + 1) % HWBPI_RACE_MAX_TRAPS;
		L->ring_n--;
		if (c >= 0 && (L->r->cands.state[c] & HWBPI_RACE_TRAP_ON))
			take_out(L, tid, c);
	}
}

void hwbpi_race_plant(struct hwbpi_race_loop *L, pid_t tid, uint64_t now_ns)
{
	size_t untrapped = L->r->cands.n - L->traps.live;
	unsigned n;

	if (!L->sampling || L->stopping || L->vforks || !untrapped)
		return;
	/* (at most one per candidate without a trap: the budget keeps the
	 * rest for when traps are taken) */
	n = hwbpi_race_budget_take(&L->budget, now_ns,
				   untrapped > HWBPI_RACE_MAX_TRAPS ? HWBPI_RACE_MAX_TRAPS : (unsigned)untrapped);
	while (n--) {
		long c;

		make_room(L, tid);
		if ((c = hwbpi_race_pick(&L->r->cands, &L->rng)) < 0)
			break;
		if (hwbpi_trap_plant(&L->traps, tid, L->r->cands.ip[c]))
			break;
		L->r->cands.state[c] |= HWBPI_RACE_TRAP_ON | HWBPI_RACE_TRAP_EVER;
		L->ring[(L->ring_head + L->ring_n++) % HWBPI_RACE_MAX_TRAPS] = L->r->cands.ip[c];
		L->r->counts.traps++;
	}
}

/* ---- a sample ----------------------------------------------------------- */

/* The access stopped thread @th is about to make at @ip, into *@a. */
static int sampled_access(struct hwbpi_race_loop *L, struct rthr *th, uint64_t ip,
			  struct hwbpi_race_side *a)
{
	struct hwbpi_insn_regs regs;
	struct hwbpi_insn in;
	uint8_t code[HWBPI_RACE_INSN_MAX];
	int ret;

	if ((ret = hwbpi_race_read_mem(th->tid, ip, code, sizeof(code))))
		return ret;
	if ((ret = hwbpi_linux_dwarf_regs(th->tid, regs.v, HWBPI_INSN_REGS, &regs.known)))
		return ret;
	if ((ret = L->ia->at_pc(L->dec, code, sizeof(code), ip, &regs, &in)))
		return ret;
	for (unsigned k = 0; k < in.n; k++)
		if (in.acc[k].addr_known && in.acc[k].size && in.acc[k].size <= HWBPI_RACE_ACCESS_MAX) {
			*a = (struct hwbpi_race_side){ ip, in.acc[k].addr, in.acc[k].size,
						       in.acc[k].kind, th->tid };
			return 0;
		}
	return -ENOENT;
}

/* Another thread of the process that could touch the bytes. */
static bool others(const struct hwbpi_race_loop *L, pid_t owner)
{
	for (size_t i = 0; i < L->nthr; i++)
		if (L->thr[i].tgid == L->pid && L->thr[i].tid != owner)
			return true;
	return false;
}

/* The watch for the other threads: a read is raced by a write (W), a
 * write by any access (RW); widened where the pieces do not fit, then
 * the decoded hit says whether it touched the bytes. */
static int plan_watch(struct hwbpi_race_loop *L)
{
	struct window *w = &L->w;
	struct hwbp_request q = { w->lo, w->len, (w->a.kind & HWBP_W) ? HWBP_RW : HWBP_W,
				  HWBP_SCOPE_USER, HWBP_REQ_LOCAL | HWBP_REQ_WIDEN };
	const struct hwbp_plan *pl;
	int ret;

	if ((ret = hwbp_install(&L->ctx, &q, 0, &L->task, &w->req))) {
		w->req = -1;
		return ret;
	}
	pl = hwbp_plan_of(&L->ctx, w->req);
	w->exact = pl && pl->exact && !pl->extra_bytes;
	return hwbp_task_regs(&L->ctx, 0, &L->task, &w->regs);
}

static void open_window(struct hwbpi_race_loop *L, struct rthr *th, const struct hwbpi_race_side *a)
{
	struct window *w = &L->w;

	memset(w, 0, sizeof(*w));
	w->req = -1;
	w->id = L->last.id + 1;
	w->owner = th->tid;
	w->a = *a;
	w->lo = a->addr;
	w->len = a->size;
	if (plan_watch(L)) {
		if (w->req >= 0)
			hwbp_remove(&L->ctx, w->req);
		w->req = -1;
		L->r->counts.passed++;
		return;
	}
	w->st = W_ARMING;
	L->r->counts.samples++;
	L->gen++;
	hwbpi_race_spread(L);
	hwbpi_race_window_step(L, hwbpi_race_now());
}

void hwbpi_race_on_trap(struct hwbpi_race_loop *L, struct rthr *th, long c)
{
	uint64_t ip = L->r->cands.ip[c];
	struct hwbpi_race_side a;
	bool code;

	/* One-shot: the instruction's own bytes are back at once, so that
	 * the threads that reach it meanwhile run it, watched. */
	take_out(L, th->tid, c);
	if (!L->sampling || L->stopping || L->w.st != W_IDLE) {
		L->r->counts.passed++;
		return;
	}
	if (sampled_access(L, th, ip, &a)) {
		L->r->counts.passed++;
		return;
	}
	if (hwbpi_race_is_syncvar(L, a.addr, a.size)) {
		L->r->counts.synced_skips++;
		return;
	}
	if ((code = hwbpi_race_atomic_code(L->r, a.ip)) || hwbpi_race_atomic_object(L, a.addr)) {
		/* an atomic operation though a plain instruction: one of an
		 * atomic class's is never sampled again, nor the object */
		L->r->counts.atomic_objects++;
		if (code)
			L->r->cands.state[c] |= HWBPI_RACE_CAND_ATOMIC;
		hwbpi_race_add_syncvar(L, a.addr);
		return;
	}
	if (!others(L, th->tid)) {
		L->r->counts.alone++;   /* no one to race with now */
		return;
	}
	open_window(L, th, &a);
}

/* ---- the window's course ------------------------------------------------ */

/* Whether a thread that held this window's watch has a trap still
 * queued (its hit made, not yet reported: the stop that disarmed it came
 * first), which will be caught late; then no change is unseen. */
static bool hit_pending(const struct hwbpi_race_loop *L)
{
	for (size_t i = 0; i < L->nthr; i++)
		if (L->thr[i].win == L->w.id && L->thr[i].tid != L->w.owner &&
		    hwbpi_proc_trap_pending(L->thr[i].tid))
			return true;
	return false;
}

/* The bytes as they were at the delay's end, every other thread still
 * armed, judged once every one is disarmed, the held thread not yet run:
 * a change that no watch caught (nor will: no hit queued) was made by a
 * writer the watches do not see.  (Read at the judging instead, they
 * could hold a write of a thread disarmed and let go first while the
 * others were still being stopped: another CPU's, unwatched.) */
static void unseen_writer(struct hwbpi_race_loop *L)
{
	struct window *w = &L->w;
	struct hwbpi_race_pair p;
	long i;

	if (!w->have_before || !w->have_after || w->caught || w->hit || w->exited ||
	    !memcmp(w->after, w->before, w->len) || hit_pending(L))
		return;
	memset(&p, 0, sizeof(p));
	p.a = w->a;
	p.unseen = true;
	p.lo = w->lo;
	p.len = w->len;
	p.before = hwbpi_value_of_bytes(w->before, w->len);
	p.after = hwbpi_value_of_bytes(w->after, w->len);
	i = hwbpi_race_pairs_add(&L->r->pairs, &p);
	if (i >= 0 && L->r->pairs.p[i].count == 1)
		hwbpi_race_first_seen(L, &L->r->pairs.p[i], w->owner, 0, w->lo);
	L->r->counts.unseen++;
}

/* The delay is over: the watch taken back from the other threads. */
static void close_window(struct hwbpi_race_loop *L)
{
	struct window *w = &L->w;

	if (w->opened_ns)
		L->r->counts.held_ns += hwbpi_race_now() - w->opened_ns;
	w->have_after = hwbpi_race_read_mem(w->owner, w->lo, w->after, w->len) == 0;
	w->st = W_CLOSING;
	L->gen++;
	hwbpi_race_spread(L);
}

/* Every other thread disarmed: the bytes compared, and the held thread
 * runs its instruction. */
static void end_window(struct hwbpi_race_loop *L)
{
	struct rthr *owner = hwbpi_race_thr_find(L, L->w.owner);

	if (owner && L->w.opened_ns)
		unseen_writer(L);
	if (L->w.req >= 0)
		hwbp_remove(&L->ctx, L->w.req);
	L->w.req = -1;
	L->w.st = W_IDLE;
	L->last = L->w;
	if (owner)
		hwbpi_race_resume(L, owner);
}

void hwbpi_race_window_step(struct hwbpi_race_loop *L, uint64_t now_ns)
{
	struct window *w = &L->w;

	if (w->st == W_ARMING && hwbpi_race_all_synced(L)) {
		/* The bytes as they are once every other thread holds the
		 * watch: read earlier, a write made by a thread still running
		 * unarmed (another CPU, while the rest were being stopped)
		 * would pass for an unseen writer's. */
		w->have_before = hwbpi_race_read_mem(w->owner, w->lo, w->before, w->len) == 0;
		w->st = W_OPEN;
		w->opened_ns = now_ns;
		w->deadline_ns = now_ns + L->r->delay_ns;
	}
	if (w->st == W_OPEN && (now_ns >= w->deadline_ns || L->stopping))
		close_window(L);
	if (w->st == W_CLOSING && hwbpi_race_all_synced(L))
		end_window(L);
}

void hwbpi_race_window_drop(struct hwbpi_race_loop *L)
{
	if (L->w.st == W_IDLE)
		return;
	if (L->w.req >= 0)
		hwbp_remove(&L->ctx, L->w.req);
	L->w.req = -1;
	L->w.st = W_IDLE;
	L->last = L->w;
	L->gen++;
	hwbpi_race_spread(L);
}
