/* SPDX-License-Identifier: MIT */
/*
 * A sample of the race detector (race/race_int.h): a thread stopped at a
 * trap, its access decoded from its registers, the watch on it given to
 * every other thread, the thread held for the delay, the bytes compared,
 * the watch taken back, and only then the thread let go; what the watch
 * catches meanwhile; and the traps planted as the budget allows.
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

/* @len bytes of process memory at @addr (code or data). */
static int read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

static bool is_syncvar(const struct hwbpi_race_loop *L, uint64_t lo, uint64_t len)
{
	for (unsigned i = 0; i < L->nsync; i++)
		if (L->syncvar[i] >= lo && L->syncvar[i] < lo + len)
			return true;
	return false;
}

/* An address an atomic instruction was caught at: a synchronisation
 * variable, not sampled again (the oldest forgotten when full). */
static void add_syncvar(struct hwbpi_race_loop *L, uint64_t addr)
{
	if (is_syncvar(L, addr, 1))
		return;
	if (L->nsync < HWBPI_RACE_SYNCVARS)
		L->syncvar[L->nsync++] = addr;
	else
		L->syncvar[L->sync_at++ % HWBPI_RACE_SYNCVARS] = addr;
}

static int read_fn(void *arg, uint64_t addr, void *buf, size_t len)
{
	return read_mem(*(pid_t *)arg, addr, buf, len);
}

/* Whether the object at @addr is atomic by its variable's type, or the
 * type a global pointer to it has (typed.c).  Then no access to it races
 * (C11 5.1.2.4p25). */
static bool atomic_object(struct hwbpi_race_loop *L, uint64_t addr)
{
	char name[8];
	bool atomic = false;

	return hwbpi_race_typed(L->r, addr, read_fn, &L->pid, name, sizeof(name), &atomic) == 0 &&
	       atomic;
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

	if ((ret = read_mem(th->tid, ip, code, sizeof(code))))
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
	if (is_syncvar(L, a.addr, a.size)) {
		L->r->counts.synced_skips++;
		return;
	}
	if ((code = hwbpi_race_atomic_code(L->r, a.ip)) || atomic_object(L, a.addr)) {
		/* an atomic operation though a plain instruction: one of an
		 * atomic class's is never sampled again, nor the object */
		L->r->counts.atomic_objects++;
		if (code)
			L->r->cands.state[c] |= HWBPI_RACE_CAND_ATOMIC;
		add_syncvar(L, a.addr);
		return;
	}
	if (!others(L, th->tid)) {
		L->r->counts.alone++;   /* no one to race with now */
		return;
	}
	open_window(L, th, &a);
}

/* ---- what a watch catches ------------------------------------------------ */

/* The code read at @start (@len bytes) as the program has it: the other
 * traps planted there replaced by the bytes they hide, or a decoder
 * walking forward from the function's start would fall out of step at
 * the first one. */
static void untrap(const struct hwbpi_race_loop *L, uint8_t *code, uint64_t start, uint64_t len)
{
	for (unsigned i = 0; i < L->traps.n; i++) {
		const struct hwbpi_trap *t = &L->traps.t[i];

		if (t->refs && t->addr >= start && t->addr + hwbpi_linux_trap_len <= start + len)
			memcpy(code + (t->addr - start), t->orig, hwbpi_linux_trap_len);
	}
}

/* The instruction a data trap came after (x86: the one that ended at the
 * PC, decoded forward from its function's start), into @in[0..*@n). */
static int decode_after(struct hwbpi_race_loop *L, struct rthr *th, uint64_t pc,
			const struct hwbpi_insn_regs *regs, struct hwbpi_insn in[2], unsigned *n)
{
	const struct hwbp_sym *f;
	uint64_t len;

	if (!L->ia->at_trap)
		return -EOPNOTSUPP;
	if (!(f = hwbp_symtab_func(L->r->syms, pc - 1)) || pc - f->addr > sizeof(L->code) - 16)
		return -ENOENT;
	len = pc - f->addr + HWBPI_RACE_INSN_MAX;
	if (read_mem(th->tid, f->addr, L->code, (size_t)len) &&
	    read_mem(th->tid, f->addr, L->code, (size_t)(len = pc - f->addr)))
		return -EFAULT;
	untrap(L, L->code, f->addr, len);
	return L->ia->at_trap(L->dec, L->code, (size_t)len, f->addr, pc, regs, in, n);
}

/* The instruction a data exception came before (arm64: Arm ARM D2.10.5,
 * the watchpoint exception is taken before the access, ELR on the load
 * or store), decoded at the PC from the registers it has not changed yet,
 * into @in[0] (*@n 1).  The thread then runs it once the caller has taken
 * its watch away (one catch per window), as the ptrace backend steps over
 * a hit. */
static int decode_before(struct hwbpi_race_loop *L, struct rthr *th, uint64_t pc,
			 const struct hwbpi_insn_regs *regs, struct hwbpi_insn in[2], unsigned *n)
{
	uint8_t code[HWBPI_RACE_INSN_MAX];
	int ret;

	if (read_mem(th->tid, pc, code, sizeof(code)) &&
	    read_mem(th->tid, pc, code, hwbpi_linux_trap_len))
		return -EFAULT;
	untrap(L, code, pc, hwbpi_linux_trap_len);
	if ((ret = L->ia->at_pc(L->dec, code, sizeof(code), pc, regs, &in[0])))
		return ret;
	*n = 1;
	return 0;
}

/* The instruction that made a data hit of stopped @th and its access that
 * touched @win's bytes, into *@b; *@atomic set for an atomic instruction.
 * Errors: -ENOENT (no function, no instruction, or no access there). */
static int caught_access(struct hwbpi_race_loop *L, struct rthr *th, const struct window *win,
			 struct hwbpi_race_side *b, bool *atomic)
{
	struct hwbpi_insn_regs regs;
	struct hwbpi_insn in[2];
	unsigned n = 0;
	uint64_t pc;
	int ret;

	if ((ret = hwbpi_linux_dwarf_regs(th->tid, regs.v, HWBPI_INSN_REGS, &regs.known)) ||
	    (ret = hwbpi_linux_pc(th->tid, &pc)))
		return ret;
	ret = L->hit_before ? decode_before(L, th, pc, &regs, in, &n) :
			      decode_after(L, th, pc, &regs, in, &n);
	if (ret)
		return ret;
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < in[i].n; k++) {
			const struct hwbpi_insn_access *x = &in[i].acc[k];

			if (!x->addr_known || x->addr >= win->lo + win->len || win->lo >= x->addr + x->size)
				continue;
			*b = (struct hwbpi_race_side){ in[i].ip, x->addr, x->size, x->kind, th->tid };
			*atomic = in[i].atomic;
			return 0;
		}
	/* An access whose address the registers after it no longer give (a
	 * load into its own base register: "mov rax, [rax]", everywhere in
	 * -O0 code).  When the watch held exactly the window's bytes and the
	 * instruction that ended at the PC has one memory access, the
	 * hardware has said where it went: those bytes. */
	if (win->exact && n >= 1 && in[0].n == 1 && !in[0].acc[0].addr_known) {
		const struct hwbpi_insn_access *x = &in[0].acc[0];

		*b = (struct hwbpi_race_side){ in[0].ip, win->lo, x->size, x->kind, th->tid };
		*atomic = in[0].atomic;
		return 0;
	}
	return -ENOENT;
}

/* A race caught the first time: what holds its bytes, and the callers of
 * each side's function (@a held, @b stopped at its hit, 0: none), read
 * now, while both threads are stopped where they made their accesses. */
static void first_seen(struct hwbpi_race_loop *L, struct hwbpi_race_pair *p, pid_t a, pid_t b,
		       uint64_t lo)
{
	unsigned depth = L->r->stack_depth;
	bool atomic;

	hwbpi_race_where(L->pid, lo, p->where, sizeof(p->where));
	/* a heap object's name needs the pointers' values: now */
	hwbpi_race_typed(L->r, lo, read_fn, &L->pid, p->expr, sizeof(p->expr), &atomic);
	if (!L->uw_ok || !depth)
		return;
	p->nstack[0] = hwbpi_unwind_thread(&L->uw, a, p->stack[0], depth);
	if (b)
		p->nstack[1] = hwbpi_unwind_thread(&L->uw, b, p->stack[1], depth);
}

/* Record the race of @win's access with @b. */
static void record(struct hwbpi_race_loop *L, const struct window *win,
		   const struct hwbpi_race_side *b)
{
	struct hwbpi_race_pair p;
	long i;

	memset(&p, 0, sizeof(p));
	p.a = win->a;
	p.b = *b;
	p.lo = win->lo;
	p.len = win->len;
	i = hwbpi_race_pairs_add(&L->r->pairs, &p);
	if (i >= 0 && L->r->pairs.p[i].count == 1)
		first_seen(L, &L->r->pairs.p[i], win->owner, b->tid, win->lo);
	L->r->counts.conflicts++;
}

void hwbpi_race_on_hit(struct hwbpi_race_loop *L, struct rthr *th)
{
	struct window *win = NULL;
	struct hwbpi_race_side b;
	bool atomic = false;

	/* A hit belongs to the window the thread was armed for: the one now,
	 * or (its trap delivered after its disarming stop) the one before,
	 * whose held thread had not run its instruction when it was made. */
	if (L->w.st != W_IDLE && th->win == L->w.id)
		win = &L->w;
	else if (th->win && th->win == L->last.id)
		win = &L->last;
	if (win) {
		int ret = caught_access(L, th, win, &b, &atomic);

		win->hit = true;
		if (ret == 0 && !((win->a.kind | b.kind) & HWBP_W))
			ret = -ENOENT;   /* two reads: no race (an RW watch's read of a write) */
		if (ret == 0 && !atomic && (hwbpi_race_atomic_code(L->r, b.ip) ||
					    atomic_object(L, b.addr))) {
			L->r->counts.atomic_objects++;
			add_syncvar(L, win->lo);
			win->caught = true;
		} else if (ret == 0 && atomic) {
			L->r->counts.atomic++;
			add_syncvar(L, win->lo);
			win->caught = true;
		} else if (ret == 0) {
			record(L, win, &b);
			win->caught = true;
		} else if (win->exact) {
			/* the hardware saw the bytes touched, the decoder not how */
			L->r->counts.undecoded++;
			win->caught = true;
		}
		/* One catch per thread and window: its watch off for the rest. */
		th->quiet_win = win->id;
		if (win == &L->w && th->armed && hwbpi_linux_write(th->tid, &L->cpu, &L->off) == 0)
			th->armed = false;
	}
	hwbpi_linux_hit_done(th->tid);
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
		first_seen(L, &L->r->pairs.p[i], w->owner, 0, w->lo);
	L->r->counts.unseen++;
}

/* The delay is over: the watch taken back from the other threads. */
static void close_window(struct hwbpi_race_loop *L)
{
	struct window *w = &L->w;

	if (w->opened_ns)
		L->r->counts.held_ns += hwbpi_race_now() - w->opened_ns;
	w->have_after = read_mem(w->owner, w->lo, w->after, w->len) == 0;
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
		w->have_before = read_mem(w->owner, w->lo, w->before, w->len) == 0;
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
