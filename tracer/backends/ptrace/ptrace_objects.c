/* SPDX-License-Identifier: MIT */
/*
 * Watches of objects in the ptrace backend (tracer/objects/objects.h):
 * the arming and release functions stop the program at a trap planted
 * at their entry (the arch's, hwbpi_linux_trap: INT3, BRK #0, `trap`,
 * as GDB's breakpoints are), and a return value at a trap planted at
 * the return address that the entry saw.  At the stop the object's
 * address is read from the ABI's registers (hwbpi_linux_call()), its
 * request installed in the task's slots and the stopped thread's debug
 * registers written before it goes on: the watch is armed before the
 * function runs its first instruction, so every access is seen.  A
 * release removes the request before the freeing function runs: no hit
 * can come from freed memory.
 *
 * A trap is stepped over as GDB does without displaced stepping: the
 * original instruction put back, one PTRACE_SINGLESTEP, the trap again.
 * Another thread of the process running the same function during that
 * step passes unseen; the other threads get new registers at their next
 * stop (each is interrupted: PTRACE_INTERRUPT), so in a multi-threaded
 * program an access by another thread in those microseconds is missed.
 *
 * More live objects than slots: the slots rotate.  A released object's
 * slot goes to the next object waiting (round robin); and every
 * t->rotate_ns an interval timer (ITIMER_REAL, SIGALRM, only while some
 * object waits) makes the event loop interrupt the process, and each
 * slot of a watch moves to that watch's next waiting object
 * (hwbp_modify(): the same length and type, the same slots).  Each
 * object's time in a slot is kept (hwbpi_objtab_coverage()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <time.h>

#include "backends/linux/linux.h"
#include "backends/ptrace/ptrace_int.h"

#define MAX_TRAPS 64        /* planted traps: two per watch, and returns */
#define MAX_RETURNS 256     /* calls whose return is awaited (recursion, threads) */
#define SHADOW 64           /* bytes of an object's field kept to tell writes */

/* A call whose return is awaited: its thread, where it returns to, the
 * stack pointer at its entry (a recursive call's inner return has a
 * lower one), and for scope the object it armed. */
struct pending {
	pid_t tid;
	uint64_t ra, sp, ptr;
	unsigned watch;
};

/* An object in a slot: by request id. */
struct held {
	unsigned watch;          /* + 1; 0: the request is none of ours */
	int obj;
	uint8_t shadow[SHADOW];
};

struct hwbpi_pt_objs {
	struct hwbpi_traps traps;      /* backends/linux/traps.c */
	struct pending ret[MAX_RETURNS];
	unsigned nret;
	uint64_t ret_lost;       /* returns not awaited: the table was full */
	uint64_t refused;        /* objects the planner refused (an address it cannot watch) */
	struct held held[HWBP_MAX_REQUESTS];
	uint64_t rotate_ns, rot_at, rotations;
	bool timer;              /* ITIMER_REAL running */
	struct sigaction old_alrm;
	bool planted;            /* the traps are in the code */
};

static volatile sig_atomic_t alarm_due;

static void on_alarm(int sig)
{
	(void)sig;
	alarm_due = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the slots ------------------------------------------------------ */

/* The registers changed: the plan's again, every thread to be written. */
static void changed(struct hwbpi_pt_loop *L, struct thr *th)
{
	struct hwbpi_ptrace *s = L->s;

	hwbp_task_regs(&L->ctx, 0, &L->task, &L->regs);
	L->gen++;
	/* The stopped thread now, before it goes on; the others at their
	 * next stop, which an interrupt brings soon. */
	if (th && hwbpi_linux_write(th->tid, &s->cpu, hwbpi_pt_thr_regs(L, th)) == 0)
		th->gen = L->gen;
	for (size_t i = 0; i < s->nthr; i++)
		if (&s->thr[i] != th && s->thr[i].armed)
			ptrace(PTRACE_INTERRUPT, s->thr[i].tid, NULL, NULL);
}

/* Object @o's request: the watch's, at its field. */
static struct hwbp_request obj_req(const struct hwbpi_pt_loop *L, const struct hwbpi_watch *w,
				   const struct hwbpi_obj *o)
{
	return hwbpi_pt_watch_req(L, w, o->ptr + w->obj.off);
}

/* The field's bytes now, kept to tell a write by its value. */
static void read_shadow(const struct hwbpi_watch *w, const struct hwbpi_obj *o, pid_t tid,
			struct held *h)
{
	if (w->len <= SHADOW)
		hwbpi_ptrace_read_mem(tid, o->ptr + w->obj.off, h->shadow, w->len);
}

/* Object @i of watch @wi into a free slot: 0, -ENOSPC (none free: it
 * waits), or the planner's refusal (counted). */
static int take_slot(struct hwbpi_pt_loop *L, unsigned wi, int i, pid_t tid, uint64_t now)
{
	struct hwbpi_pt_objs *O = L->objs;
	struct hwbpi_watch *w = &L->t->w[wi];
	struct hwbpi_obj *o = &w->objs.obj[i];
	struct hwbp_request q = obj_req(L, w, o);
	int req = -1, ret = hwbp_install(&L->ctx, &q, 0, &L->task, &req);

	if (ret == 0 && (req < 0 || req >= HWBP_MAX_REQUESTS)) {
		hwbp_remove(&L->ctx, req);
		ret = -ENOSPC;
	}
	if (ret) {
		if (ret != -ENOSPC)
			O->refused++;
		return ret;
	}
	O->held[req].watch = wi + 1;
	O->held[req].obj = i;
	read_shadow(w, o, tid, &O->held[req]);
	hwbpi_objtab_slot(&w->objs, i, req, now);
	return 0;
}

/* Any object waiting, of watch @first or the others, into the slots
 * free now. */
static void fill_slots(struct hwbpi_pt_loop *L, unsigned first, pid_t tid, uint64_t now)
{
	for (unsigned k = 0; k < L->t->nw; k++) {
		unsigned wi = (first + k) % L->t->nw;
		struct hwbpi_objtab *tab = &L->t->w[wi].objs;
		unsigned live = L->t->w[wi].object ? hwbpi_objtab_live(tab, NULL) : 0;

		for (unsigned n = 0; n < live; n++) {
			int i = hwbpi_objtab_next_waiting(tab);

			if (i < 0 || take_slot(L, wi, i, tid, now))
				break;
		}
	}
}

/* Some object waits: the rotation's timer runs (else it stops). */
static void timer_set(struct hwbpi_pt_loop *L)
{
	struct hwbpi_pt_objs *O = L->objs;
	bool waiting = false;
	struct itimerval it;

	for (unsigned wi = 0; wi < L->t->nw && !waiting; wi++) {
		unsigned in, live;

		if (!L->t->w[wi].object)
			continue;
		live = hwbpi_objtab_live(&L->t->w[wi].objs, &in);
		waiting = live > in;
	}
	if (waiting == O->timer)
		return;
	memset(&it, 0, sizeof(it));
	if (waiting) {
		it.it_interval.tv_sec = (time_t)(O->rotate_ns / 1000000000u);
		it.it_interval.tv_usec = (suseconds_t)(O->rotate_ns % 1000000000u / 1000u);
		it.it_value = it.it_interval;
	}
	setitimer(ITIMER_REAL, &it, NULL);
	O->timer = waiting;
}

/* ---- arming and releasing ------------------------------------------- */

static void arm_obj(struct hwbpi_pt_loop *L, struct thr *th, unsigned wi, uint64_t ptr,
		    uint64_t site, uint64_t now)
{
	struct hwbpi_objtab *tab = &L->t->w[wi].objs;
	int i;

	if (!ptr)
		return;   /* NULL: nothing was made (a failed allocation) */
	i = hwbpi_objtab_arm(tab, ptr, site, now);
	if (i < 0 || tab->obj[i].armings > 1 || tab->obj[i].slot >= 0)
		return;
	if (take_slot(L, wi, i, th->tid, now) == 0)
		changed(L, th);
	else
		timer_set(L);
}

static void release_obj(struct hwbpi_pt_loop *L, struct thr *th, unsigned wi, uint64_t ptr,
			uint64_t now)
{
	struct hwbpi_objtab *tab = &L->t->w[wi].objs;
	int i = hwbpi_objtab_find(tab, ptr);
	int slot;

	if (i < 0) {
		tab->unknown_release++;
		return;
	}
	slot = tab->obj[i].slot;
	hwbpi_objtab_release(tab, i, now);
	if (slot < 0)
		return;
	hwbp_remove(&L->ctx, slot);
	L->objs->held[slot].watch = 0;
	fill_slots(L, wi, th->tid, now);
	changed(L, th);
	timer_set(L);
}

/* A planted trap at @addr hit by @th with call @c: each watch's use of it. */
static void on_trap(struct hwbpi_pt_loop *L, struct thr *th, uint64_t addr,
		    const struct hwbpi_linux_call *c, uint64_t now)
{
	struct hwbpi_pt_objs *O = L->objs;
	int best = -1;

	for (unsigned wi = 0; wi < L->t->nw; wi++) {
		const struct hwbpi_objspec *sp = &L->t->w[wi].obj;

		if (!L->t->w[wi].object)
			continue;
		if (sp->arm.addr == addr && (sp->arm.ret || sp->scope)) {
			/* Its return awaited: where it returns to, once per call. */
			if (O->nret == MAX_RETURNS || !c->ra || hwbpi_trap_plant(&O->traps, th->tid, c->ra)) {
				O->ret_lost++;
			} else {
				O->ret[O->nret++] = (struct pending){ th->tid, c->ra, c->sp,
					sp->arm.ret ? 0 : c->arg[sp->arm.index], wi };
			}
		}
		if (sp->arm.addr == addr && !sp->arm.ret)
			arm_obj(L, th, wi, c->arg[sp->arm.index], c->ra, now);
		if (!sp->scope && sp->rel.addr == addr)
			release_obj(L, th, wi, c->arg[sp->rel.index], now);
	}
	/* A return: the awaited call of this thread with the highest entry
	 * stack pointer at or below the one now (the innermost that has
	 * returned), and every watch waiting on that same call. */
	for (unsigned k = 0; k < O->nret; k++)
		if (O->ret[k].tid == th->tid && O->ret[k].ra == addr && O->ret[k].sp <= c->sp &&
		    (best < 0 || O->ret[k].sp > O->ret[best].sp))
			best = (int)k;
	for (unsigned k = 0; best >= 0 && k < O->nret;) {
		struct pending p = O->ret[k];

		if (p.tid != th->tid || p.ra != addr || p.sp != O->ret[best].sp) {
			k++;
			continue;
		}
		O->ret[k] = O->ret[--O->nret];
		if ((unsigned)best == O->nret)
			best = (int)k;
		hwbpi_trap_unplant(&O->traps, th->tid, addr);
		if (L->t->w[p.watch].obj.arm.ret)
			arm_obj(L, th, p.watch, c->ret, addr, now);
		else
			release_obj(L, th, p.watch, p.ptr, now);
	}
}

bool hwbpi_pt_objs_trap(struct hwbpi_pt_loop *L, struct thr *th)
{
	struct hwbpi_pt_objs *O = L->objs;
	struct hwbpi_linux_call c;
	uint64_t pc, addr;

	if (!O || !O->planted || hwbpi_linux_pc(th->tid, &pc))
		return false;
	addr = pc - hwbpi_linux_trap_pc_after;
	if (!hwbpi_trap_at(&O->traps, addr) || hwbpi_linux_call(th->tid, &c))
		return false;
	if (hwbpi_linux_trap_pc_after)
		hwbpi_linux_set_pc(th->tid, addr);
	on_trap(L, th, addr, &c, now_ns());
	/* Over the original instruction: one step, then the trap again
	 * (hwbpi_pt_objs_step_done). */
	if (hwbpi_trap_at(&O->traps, addr)) {
		hwbpi_trap_poke(th->tid, hwbpi_trap_at(&O->traps, addr), false);
		th->sbp_at = addr;
	}
	return true;
}

void hwbpi_pt_objs_step_done(struct hwbpi_pt_loop *L, struct thr *th)
{
	struct hwbpi_trap *tp = L->objs ? hwbpi_trap_at(&L->objs->traps, th->sbp_at) : NULL;

	if (tp && L->objs->planted)
		hwbpi_trap_poke(th->tid, tp, true);
	th->sbp_at = 0;
}

/* ---- hits ----------------------------------------------------------- */

unsigned hwbpi_pt_objs_emit(struct hwbpi_pt_loop *L, struct thr *th, uint64_t now,
			    const uint64_t *callers, unsigned ncallers)
{
	struct hwbpi_pt_objs *O = L->objs;
	struct hwbpi_tracer *t = L->t;
	unsigned n = 0;

	for (unsigned r = 0; O && r < HWBP_MAX_REQUESTS; r++) {
		struct held *h = &O->held[r];
		struct hwbpi_watch *w;
		const struct hwbp_plan *pl;
		struct hwbp_trace_event ev;
		const struct hwbp_sym *fn;
		uint8_t cur[SHADOW];
		bool changed = false, got = false;
		uint64_t val[2] = { 0, 0 };   /* after the access, before it */

		if (!h->watch || !(th->hit_req & (UINT64_C(1) << r)))
			continue;
		w = &t->w[h->watch - 1];
		pl = hwbp_plan_of(&L->ctx, (int)r);
		memset(&ev, 0, sizeof(ev));
		ev.ts = now;
		ev.ip = th->hit_ip;
		ev.addr = w->objs.obj[h->obj].ptr + w->obj.off;
		ev.bp = (uint16_t)(h->watch - 1);
		ev.tid = (uint32_t)th->tid;
		if (w->len <= SHADOW && hwbpi_ptrace_read_mem(th->tid, ev.addr, cur, w->len) == 0) {
			got = true;
			changed = memcmp(cur, h->shadow, w->len) != 0;
			val[0] = hwbpi_value_of_bytes(cur, w->len);
			val[1] = hwbpi_value_of_bytes(h->shadow, w->len);
			memcpy(h->shadow, cur, w->len);
		}
		if (th->guess && !changed)
			continue;   /* a hit without its status: not this one's bytes */
		n++;
		if (!hwbpi_pt_kind(w, pl ? pl->type : w->type, changed, &ev)) {
			t->filtered++;
			continue;
		}
		if (got)
			hwbpi_pt_set_values(&ev, w->len, val);
		fn = hwbpi_tracer_func(t, &ev);
		hwbpi_objtab_hit(&w->objs, h->obj,
				 fn ? fn->addr : hwbpi_tracer_func_ip(t, &ev), ev.kind);
		/* --sort site: the histogram's row is the arming call's (its
		 * return address: less the trap adjustment, inside the call). */
		if (t->key_site)
			ev.ip = w->objs.obj[h->obj].site;
		if (t->stack_depth)
			hwbpi_tracer_hit_frames(t, &ev, callers, ncallers);
		else
			hwbpi_tracer_hit(t, &ev);
	}
	return n;
}

/* ---- rotation ------------------------------------------------------- */

/* Each slot of a watch to its next waiting object (hwbp_modify(): the
 * same length and type, the same slots). */
static void rotate(struct hwbpi_pt_loop *L, struct thr *th, uint64_t now)
{
	struct hwbpi_pt_objs *O = L->objs;
	bool moved = false;

	for (unsigned r = 0; r < HWBP_MAX_REQUESTS; r++) {
		struct held *h = &O->held[r];
		struct hwbpi_watch *w;
		struct hwbp_request q;
		int next;

		if (!h->watch)
			continue;
		w = &L->t->w[h->watch - 1];
		next = hwbpi_objtab_next_waiting(&w->objs);
		if (next < 0)
			continue;
		q = obj_req(L, w, &w->objs.obj[next]);
		if (hwbp_modify(&L->ctx, (int)r, &q))
			continue;
		hwbpi_objtab_slot(&w->objs, h->obj, -1, now);
		h->obj = next;
		read_shadow(w, &w->objs.obj[next], th->tid, h);
		hwbpi_objtab_slot(&w->objs, next, (int)r, now);
		moved = true;
	}
	O->rot_at = now;
	if (moved) {
		O->rotations++;
		changed(L, th);
	}
}

void hwbpi_pt_objs_tick(struct hwbpi_pt_loop *L, struct thr *th, bool may_rotate)
{
	struct hwbpi_pt_objs *O = L->objs;
	struct proc *p;
	uint64_t now;

	if (!O || th->step || th->sbp_at)
		return;
	/* Not while a hit's SIGTRAP waits behind the interrupt: it belongs
	 * to the object in the slot now (the next interrupt rotates). */
	if (O->timer && may_rotate) {
		now = now_ns();
		if (now - O->rot_at >= O->rotate_ns && !hwbpi_proc_trap_pending(th->tid))
			rotate(L, th, now);
	}
	p = hwbpi_ptrace_proc_find(L->s, th->tgid);
	if (th->gen != L->gen && p && p->watched &&
	    hwbpi_linux_write(th->tid, &L->s->cpu, hwbpi_pt_thr_regs(L, th)) == 0)
		th->gen = L->gen;
}

void hwbpi_pt_objs_alarm(struct hwbpi_pt_loop *L)
{
	struct hwbpi_ptrace *s = L->s;

	if (!L->objs || !alarm_due)
		return;
	alarm_due = 0;
	/* A stop of the process's first thread: tick() rotates there. */
	if (s->nthr)
		ptrace(PTRACE_INTERRUPT, s->thr[0].tid, NULL, NULL);
}

/* ---- start and end -------------------------------------------------- */

void hwbpi_pt_objs_forget(struct hwbpi_pt_loop *L)
{
	if (L->objs)
		L->objs->planted = false;
}

void hwbpi_pt_objs_rewind(struct hwbpi_pt_loop *L, pid_t tid)
{
	siginfo_t si;
	uint64_t pc;

	/* (the traps stay listed after they are taken out: the other
	 * threads' stops may still be at one).  Only a trap's own stop: a
	 * step's end (TRAP_TRACE) or a hit (TRAP_HWBKPT) is past an
	 * instruction that ran, even a one-byte one at a trap's address. */
	if (!L->objs || !hwbpi_linux_trap_pc_after || hwbpi_linux_pc(tid, &pc) ||
	    ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) || si.si_code == TRAP_TRACE ||
	    si.si_code == TRAP_HWBKPT)
		return;
	if (hwbpi_trap_at(&L->objs->traps, pc - hwbpi_linux_trap_pc_after))
		hwbpi_linux_set_pc(tid, pc - hwbpi_linux_trap_pc_after);
}

void hwbpi_pt_objs_unplant(struct hwbpi_pt_loop *L, pid_t tid)
{
	struct hwbpi_pt_objs *O = L->objs;

	if (!O || !O->planted || hwbpi_proc_status_field(tid, "Tgid") != L->s->pid)
		return;
	hwbpi_traps_poke_all(&O->traps, tid, false);
	O->planted = false;
}

int hwbpi_pt_objs_start(struct hwbpi_pt_loop *L, pid_t tid, char *err, size_t errlen)
{
	struct hwbpi_tracer *t = L->t;
	struct hwbpi_pt_objs *O;
	struct sigaction sa;
	int ret = 0;
	bool any = false;

	for (unsigned i = 0; i < t->nw; i++)
		any |= t->w[i].object;
	if (!any)
		return 0;
	if (!hwbpi_linux_trap_len) {
		hwbpi_say(err, errlen, "watches of objects: no trap instruction for this CPU "
			  "(EOPNOTSUPP)");
		return -EOPNOTSUPP;
	}
	O = calloc(1, sizeof(*O));
	if (!O)
		return -ENOMEM;
	if (hwbpi_traps_init(&O->traps, MAX_TRAPS)) {
		free(O);
		return -ENOMEM;
	}
	L->objs = O;
	O->rotate_ns = t->rotate_ns ? t->rotate_ns : HWBPI_OBJ_ROTATE_MS * UINT64_C(1000000);
	O->rot_at = now_ns();
	for (unsigned i = 0; ret == 0 && i < t->nw; i++) {
		const struct hwbpi_objspec *sp = &t->w[i].obj;

		if (!t->w[i].object)
			continue;
		ret = hwbpi_trap_plant(&O->traps, tid, sp->arm.addr);
		if (ret == 0 && !sp->scope)
			ret = hwbpi_trap_plant(&O->traps, tid, sp->rel.addr);
		if (ret)
			hwbpi_say(err, errlen, "%s: cannot plant a trap at %s (%s)", t->w[i].name,
				  sp->arm.func, hwbp_errno_name(ret));
	}
	O->planted = true;
	if (ret) {
		hwbpi_pt_objs_unplant(L, tid);
		return ret == -ENOSPC ? ret : -EIO;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;   /* no SA_RESTART: waitpid() returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &O->old_alrm);
	alarm_due = 0;
	return 0;
}

void hwbpi_pt_objs_end(struct hwbpi_pt_loop *L)
{
	struct hwbpi_pt_objs *O = L->objs;
	struct itimerval off;
	uint64_t now = now_ns();

	if (!O)
		return;
	memset(&off, 0, sizeof(off));
	if (O->timer)
		setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &O->old_alrm, NULL);
	for (unsigned i = 0; i < L->t->nw; i++)
		if (L->t->w[i].object) {
			L->t->w[i].objs.rotations = O->rotations;
			L->t->w[i].objs.refused = O->refused;
			L->t->w[i].objs.ret_lost = O->ret_lost;
			hwbpi_objtab_close(&L->t->w[i].objs, now);
		}
	hwbpi_traps_fini(&O->traps);
	free(O);
	L->objs = NULL;
}
