/* SPDX-License-Identifier: MIT */
/*
 * Watches of objects (objects/objects.h) armed asynchronously, for the
 * perf and bpf backends and the module backend's fallback (linux.h).  The arming and release functions are probed by
 * perf events of the kprobe PMU (--kernel) or the uprobe PMU (a process):
 * every call writes a sample with the registers of its arguments
 * (PERF_SAMPLE_REGS_INTR / REGS_USER, hwbpi_linux_perf_callregs) into the
 * CPU's ring, beside the hits of the breakpoints.  No BPF program is
 * needed to report the object: the sample carries the argument's
 * register, read through the arch's glue (hwbpi_linux_call_perf()).
 *
 * The breakpoints are preallocated: the CPU's data slots shared among the
 * watches, each slot one PERF_TYPE_BREAKPOINT event per CPU (or per CPU
 * of the process), opened disabled on a placeholder address so that the
 * kernel reserves the slot once (kernel/events/hw_breakpoint.c,
 * reserve_bp_slot()).  User space re-points a slot at an object with
 * PERF_EVENT_IOC_MODIFY_ATTRIBUTES (perf_event_modify_breakpoint():
 * modify_user_hw_breakpoint_check() takes the new bp_addr and disabled,
 * and nothing else may differ from the attributes it was opened with):
 * no close and open per object.
 *
 * So an object is watched from the moment the ioctls return, not from
 * the call that gave it: the delay (the sample's time to the ioctls' end,
 * both CLOCK_MONOTONIC: use_clockid) is measured per object and printed.
 * A release disarms after the freeing function has started: hits between
 * the release call and the disarm are on freed memory and are dropped
 * (counted).  Hits are attributed by time: each slot keeps its last
 * spells (from when, which object), and a hit goes to the spell it fell
 * in, so a hit drained after its slot moved on is still its object's.
 *
 * The samples of all CPUs are taken in rounds, sorted by time, then
 * applied: an object armed on one CPU and released on another is seen in
 * that order (a sample not yet written when a round drains comes in the
 * next one).
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backends/linux/objects_int.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the rings ----------------------------------------------------- */

static void ring_read(const struct oring *r, uint64_t pos, void *dst, size_t len)
{
	const unsigned char *data = (const unsigned char *)r->base + (r->len - r->size);
	uint64_t at = pos % r->size;
	size_t first = len;

	if (at + len > r->size)
		first = (size_t)(r->size - at);
	memcpy(dst, data + at, first);
	memcpy((unsigned char *)dst + first, data, len - first);
}

static int ev_of(const struct pobj *P, uint64_t id)
{
	for (unsigned i = 0; i < P->nev; i++)
		if (P->ev[i].id == id)
			return (int)i;
	return -1;
}

/* A sample's fields into @out, in the order of the sample_type its event
 * has (man 2 perf_event_open: IDENTIFIER, IP, TID, TIME, ADDR, CPU,
 * CALLCHAIN, REGS_USER, STACK_USER, REGS_INTR).  False: not ours, or cut. */
static bool parse(const struct pobj *P, const uint64_t *v, size_t n, struct rec *out)
{
	size_t i = 0;
	int e;

	if (n < 5 || (e = ev_of(P, v[0])) < 0)
		return false;
	memset(out, 0, sizeof(*out));
	out->ev = (unsigned)e;
	out->ip = v[1];
	out->tid = (uint32_t)(v[2] >> 32);
	out->time = v[3];
	i = 4;
	if (P->ev[e].what == E_SLOT)
		out->addr = v[i++];
	if (i >= n)
		return false;
	out->cpu = (uint32_t)v[i++];
	if (P->ev[e].what == E_SLOT)
		return true;
	if (P->kernel) {
		uint64_t nr;

		if (i >= n)
			return false;
		nr = v[i++];
		if (nr > n - i)
			return false;
		/* The kernel's stack from the probe: markers (PERF_CONTEXT_*,
		 * at the top of the address space) skipped, the probed function
		 * first, then its caller, as the kernel's unwinder sees it at
		 * the entry (ORC on x86: exact; a frame-pointer unwind before the
		 * prologue skips the caller). */
		for (uint64_t k = 0, seen = 0; k < nr; k++) {
			uint64_t ip = v[i + k];

			if (ip >= (uint64_t)PERF_CONTEXT_MAX)
				continue;
			if (seen++ == (P->ev[e].what == E_RET ? 0 : 1)) {
				out->site = ip;
				break;
			}
		}
		i += nr;
		if (i >= n || v[i] == PERF_SAMPLE_REGS_ABI_NONE || i + 1 + P->nregs > n)
			return false;
		out->call_ok = hwbpi_linux_call_perf(&v[i + 1], P->nregs, 0, &out->call) == 0;
	} else {
		uint64_t abi, stack0 = 0;
		size_t regs;

		if (i >= n || (abi = v[i++]) == PERF_SAMPLE_REGS_ABI_NONE || i + P->nregs >= n)
			return false;
		regs = i;
		i += P->nregs;
		if (v[i] >= 8 && i + 1 < n)
			stack0 = v[i + 1];
		out->call_ok = hwbpi_linux_call_perf(&v[regs], P->nregs, stack0, &out->call) == 0;
		out->site = P->ev[e].what == E_RET ? out->ip : out->call.ra;
	}
	return true;
}

/* Every record of @r into the batch (PERF_RECORD_LOST counted). */
static void drain(struct pobj *P, struct oring *r)
{
	struct perf_event_mmap_page *mp = r->base;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE), tail = mp->data_tail;
	uint64_t buf[512];

	while (tail < head && P->nbatch < BATCH) {
		struct perf_event_header h;

		ring_read(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_SAMPLE && h.size - sizeof(h) <= sizeof(buf)) {
			size_t len = h.size - sizeof(h);

			ring_read(r, tail + sizeof(h), buf, len);
			if (parse(P, buf, len / 8, &P->batch[P->nbatch]))
				P->nbatch++;
		} else if (h.type == PERF_RECORD_LOST) {
			uint64_t l[2];

			ring_read(r, tail + sizeof(h), l, sizeof(l));
			P->lost += l[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static int by_time(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* ---- slots --------------------------------------------------------- */

/* Slot @sl to @addr and enabled, or disabled (@addr 0): one ioctl per
 * event.  Returns the ioctls' end (CLOCK_MONOTONIC), 0 on a refusal. */
static uint64_t point(struct pobj *P, struct oslot *sl, uint64_t addr)
{
	struct perf_event_attr a = sl->attr;
	uint64_t t0 = now_ns(), t1;

	a.bp_addr = addr ? addr : sl->attr.bp_addr;
	a.disabled = addr == 0;
	for (unsigned k = 0; k < sl->n; k++)
		if (ioctl(P->ev[sl->first + k].fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) < 0)
			return 0;
	t1 = now_ns();
	P->arm_ns += t1 - t0;
	P->arm_n++;
	return t1;
}

static void spell_open(struct oslot *sl, uint64_t from, int obj, uint64_t seq, uint64_t addr)
{
	sl->sp[sl->nsp % SPELLS] = (struct spell){ .from = from, .addr = addr, .seq = seq, .obj = obj };
	sl->nsp++;
}

/* Object @i of the slot's watch into slot @sl (from wherever it was). */
static void slot_take(struct pobj *P, struct oslot *sl, int i, bool first)
{
	struct hwbpi_watch *w = &P->t->w[sl->watch];
	struct hwbpi_obj *o = &w->objs.obj[i];
	uint64_t addr = o->ptr + w->obj.off, at;

	if (addr % w->len) {
		w->objs.refused++;
		return;
	}
	if (!(at = point(P, sl, addr))) {
		w->objs.refused++;
		return;
	}
	if (sl->obj >= 0)
		hwbpi_objtab_slot(&w->objs, sl->obj, -1, at);
	sl->obj = i;
	spell_open(sl, at, i, o->seq, addr);
	hwbpi_objtab_slot(&w->objs, i, (int)(sl - P->sl), at);
	if (first && P->ndelay[sl->watch] < DELAYS)
		P->delays[sl->watch][P->ndelay[sl->watch]++] = at > o->born ? at - o->born : 0;
}

/* Slot @sl emptied (its object released or gone), then given to the next
 * object waiting, if any. */
static void slot_free(struct pobj *P, struct oslot *sl)
{
	struct hwbpi_objtab *tab = &P->t->w[sl->watch].objs;
	uint64_t at = point(P, sl, 0);
	int next;

	if (!at)
		at = now_ns();
	if (sl->obj >= 0)
		hwbpi_objtab_slot(tab, sl->obj, -1, at);
	sl->obj = -1;
	spell_open(sl, at, -1, 0, 0);
	if ((next = hwbpi_objtab_next_waiting(tab)) >= 0)
		slot_take(P, sl, next, tab->obj[next].since == 0 && tab->obj[next].watched_ns == 0);
}

static struct oslot *free_slot(struct pobj *P, unsigned watch)
{
	for (unsigned k = 0; k < P->nsl; k++)
		if (P->sl[k].watch == watch && P->sl[k].obj < 0)
			return &P->sl[k];
	return NULL;
}

/* Every slot to its watch's next waiting object (round robin), when
 * some wait. */
static void rotate(struct pobj *P)
{
	for (unsigned k = 0; k < P->nsl; k++) {
		struct oslot *sl = &P->sl[k];
		struct hwbpi_objtab *tab = &P->t->w[sl->watch].objs;
		int next;

		if (sl->obj < 0 || (next = hwbpi_objtab_next_waiting(tab)) < 0)
			continue;
		tab->rotations++;
		slot_take(P, sl, next, tab->obj[next].since == 0 && tab->obj[next].watched_ns == 0);
	}
}

/* ---- the calls and the hits ---------------------------------------- */

static void arm(struct pobj *P, unsigned wi, uint64_t ptr, const struct rec *r)
{
	struct hwbpi_watch *w = &P->t->w[wi];
	struct oslot *sl;
	int i;

	if (!ptr)
		return;
	i = hwbpi_objtab_arm(&w->objs, ptr, r->site, r->time);
	if (i < 0 || w->objs.obj[i].slot >= 0 || w->objs.obj[i].armings > 1)
		return;
	if ((sl = free_slot(P, wi)))
		slot_take(P, sl, i, true);
	if (w->obj.scope)
		for (unsigned k = 0; k < SCOPES; k++)
			if (!P->scope[k].ptr) {
				P->scope[k] = (struct scope_call){ .tid = r->tid, .watch = wi, .ptr = ptr };
				break;
			}
}

static void release(struct pobj *P, unsigned wi, uint64_t ptr, uint64_t when)
{
	struct hwbpi_objtab *tab = &P->t->w[wi].objs;
	int i = hwbpi_objtab_find(tab, ptr);
	int slot;

	if (i < 0) {
		tab->unknown_release++;
		return;
	}
	/* Its watched time ends at the release call (the table closes its
	 * spell there), not at the disarm that comes later: the memory is
	 * freed from then on, and hits after it are dropped (hit()). */
	slot = tab->obj[i].slot;
	hwbpi_objtab_release(tab, i, when);
	if (slot >= 0) {
		P->sl[slot].obj = -1;
		slot_free(P, &P->sl[slot]);
	}
}

/* A call's sample: arming (entry or return value), release, or a scope's
 * return. */
static void call(struct pobj *P, const struct rec *r)
{
	const struct oev *e = &P->ev[r->ev];
	struct hwbpi_watch *w = &P->t->w[e->idx];

	if (!r->call_ok)
		return;
	if (e->what == E_ARM && !w->obj.arm.ret) {
		arm(P, e->idx, r->call.arg[w->obj.arm.index], r);
	} else if (e->what == E_RET && w->obj.arm.ret) {
		arm(P, e->idx, r->call.ret, r);
	} else if (e->what == E_RET) {
		/* scope: this thread's latest call of the arming function */
		for (unsigned k = SCOPES; k-- > 0;)
			if (P->scope[k].ptr && P->scope[k].tid == r->tid && P->scope[k].watch == e->idx) {
				release(P, e->idx, P->scope[k].ptr, r->time);
				P->scope[k].ptr = 0;
				break;
			}
	} else if (e->what == E_REL) {
		release(P, e->idx, r->call.arg[w->obj.rel.index], r->time);
	}
}

/* A breakpoint's hit: the object of the spell it fell in. */
static void hit(struct pobj *P, const struct rec *r)
{
	struct oslot *sl = &P->sl[P->ev[r->ev].idx];
	struct hwbpi_watch *w = &P->t->w[sl->watch];
	const struct spell *sp = NULL;
	const struct hwbpi_obj *o;
	struct hwbp_trace_event ev;
	const struct hwbp_sym *fn;

	for (unsigned k = 0; k < SPELLS && k < sl->nsp; k++) {
		const struct spell *c = &sl->sp[(sl->nsp - 1 - k) % SPELLS];

		if (c->from <= r->time) {
			sp = c;
			break;
		}
	}
	if (!sp || !sp->seq || sp->addr != r->addr || w->objs.obj[sp->obj].seq != sp->seq) {
		P->stray++;
		return;
	}
	o = &w->objs.obj[sp->obj];
	if (o->state == HWBPI_OBJ_RELEASED && r->time >= o->died) {
		w->objs.after_release++;
		return;
	}
	memset(&ev, 0, sizeof(ev));
	ev.ts = r->time;
	ev.ip = r->ip;
	ev.addr = r->addr;
	ev.bp = (uint16_t)sl->watch;
	ev.tid = r->tid;
	ev.cpu = r->cpu;
	/* A breakpoint of one kind says its hits' kind; an RW one does not
	 * (a sample has no status). */
	ev.kind = w->type == HWBP_W || w->type == HWBP_R ? (uint8_t)w->type : 0;
	ev.kind_how = ev.kind ? HWBP_KIND_TYPE : HWBP_KIND_UNKNOWN;
	fn = hwbpi_tracer_func(P->t, &ev);
	hwbpi_objtab_hit(&w->objs, sp->obj, fn ? fn->addr : hwbpi_tracer_func_ip(P->t, &ev), ev.kind);
	if (P->t->key_site)
		ev.ip = o->site;
	hwbpi_tracer_hit(P->t, &ev);
}

/* One round: every ring drained, the samples applied in time order. */
static void round_(struct pobj *P)
{
	P->nbatch = 0;
	for (unsigned c = 0; c < P->ncpus; c++)
		if (P->ring[c].base)
			drain(P, &P->ring[c]);
	qsort(P->batch, P->nbatch, sizeof(*P->batch), by_time);
	for (unsigned k = 0; k < P->nbatch; k++) {
		if (P->ev[P->batch[k].ev].what == E_SLOT)
			hit(P, &P->batch[k]);
		else
			call(P, &P->batch[k]);
	}
}

/* ---- the run ------------------------------------------------------- */

static bool waiting(const struct pobj *P)
{
	for (unsigned wi = 0; wi < P->t->nw; wi++) {
		unsigned in = 0, live = hwbpi_objtab_live(&P->t->w[wi].objs, &in);

		if (live > in)
			return true;
	}
	return false;
}

/* Until @pid ends (ours: reaped, its status in *@wstatus), or a stop. */
static void loop(struct pobj *P, pid_t pid, bool ours, int *wstatus)
{
	struct pollfd pf[HWBPI_TRACE_MAX_CPUS];
	unsigned npf = 0, passed = 0;

	for (unsigned c = 0; c < P->ncpus; c++)
		if (P->ring[c].fd >= 0)
			pf[npf++] = (struct pollfd){ .fd = P->ring[c].fd, .events = POLLIN };
	P->rot_at = now_ns() + P->t->rotate_ns;
	for (;;) {
		uint64_t now;

		if (ours) {
			int st;
			pid_t r = waitpid(pid, &st, WNOHANG);

			if (r == pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
				*wstatus = st;
				break;
			}
			if (r < 0 && errno == ECHILD)
				break;
		} else if (pid > 0 && hwbpi_process_gone(pid)) {
			break;
		}
		if (P->s->stop) {
			if (!ours || pid <= 0)
				break;
			/* A command of ours gets the signal (or, at a second
			 * stop, SIGKILL) and ends the trace when it ends. */
			if (!passed++)
				kill(pid, P->s->stop_sig ? P->s->stop_sig : SIGTERM);
			if (P->s->stop > 1)
				kill(pid, SIGKILL);
		}
		poll(pf, npf, P->t->rotate_ns / 1000000 < POLL_MS && waiting(P) ?
			 (int)(P->t->rotate_ns / 1000000) : POLL_MS);
		round_(P);
		now = now_ns();
		if (now >= P->rot_at) {
			if (waiting(P))
				rotate(P);
			P->rot_at = now + P->t->rotate_ns;
		}
	}
	round_(P);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The report's figures: each watch's arming delays, the table closed. */
static void finish(struct pobj *P)
{
	uint64_t end = now_ns();

	for (unsigned wi = 0; wi < P->t->nw; wi++) {
		struct hwbpi_objtab *tab = &P->t->w[wi].objs;
		unsigned n = P->ndelay[wi];

		tab->async = true;
		tab->delay_n = n;
		if (n) {
			qsort(P->delays[wi], n, sizeof(uint64_t), cmp_u64);
			tab->delay_median = P->delays[wi][(n - 1) / 2];
			tab->delay_max = P->delays[wi][n - 1];
		}
		hwbpi_objtab_close(tab, end);
	}
	if (P->stray)
		hwbpi_note(P->s, "%" PRIu64 " hits matched no object's spell in their slot (not counted)",
			   P->stray);
	if (P->lost)
		hwbpi_note(P->s, "the kernel lost %" PRIu64 " samples of calls and hits (the rings were "
			   "full)", P->lost);
	if (P->arm_n)
		hwbpi_note(P->s, "re-pointing a slot: %.1f us on average (%" PRIu64 " times, %u events "
			   "each: PERF_EVENT_IOC_MODIFY_ATTRIBUTES)", (double)P->arm_ns / (double)P->arm_n / 1e3,
			   P->arm_n, P->nsl ? P->sl[0].n : 0);
}

/* A command held before its exec while the kernel's events open. */
struct held {
	struct pobj *P;
	int wstatus;
};

static void held_run(void *arg, int ef)
{
	struct held *h = arg;

	hwbpi_child_exec(h->P->s->argv, ef, false);
}

static int held_open(void *arg, pid_t pid)
{
	(void)arg;
	(void)pid;
	return 0;   /* the kernel's events are open already */
}

static void held_wait(void *arg, pid_t pid)
{
	struct held *h = arg;

	loop(h->P, pid, true, &h->wstatus);
}

int hwbpi_linux_objects(struct hwbpi_view *s, bool kernel, const bool *cpus, pid_t pid, bool started,
			int *wstatus)
{
	char err[512] = "";
	struct pobj *P = hwbpi_pobj_new(s, kernel, cpus, err, sizeof(err));
	int ret;

	if (!P) {
		if (started)
			hwbpi_child_kill(pid);
		return hwbpi_fail(s, -ENOMEM, false, "out of memory");
	}
	ret = hwbpi_pobj_check(P, &s->cpu);
	if (ret == 0 && !P->nregs) {
		hwbpi_say(err, sizeof(err), "no registers of a call known for this CPU's perf samples "
			  "(EOPNOTSUPP)");
		ret = -EOPNOTSUPP;
	}
	if (ret == 0)
		ret = hwbpi_pobj_open_all(P, pid, !kernel && !started);
	if (ret) {
		if (started)
			hwbpi_child_kill(pid);
		hwbpi_pobj_close(P);
		return hwbpi_fail(s, ret, ret == -EOPNOTSUPP || ret == -EINVAL, "%s",
				  err[0] ? err : hwbp_errno_name(ret));
	}
	if (kernel && s->argv) {
		struct held h = { .P = P };
		struct hwbpi_held hh = { .run = held_run, .open = held_open, .wait = held_wait, .arg = &h };

		ret = hwbpi_child_held(&hh, err, sizeof(err));
		*wstatus = h.wstatus;
	} else if (kernel) {
		loop(P, 0, false, wstatus);
	} else {
		/* A child of ours waits at its entry under ptrace: the events
		 * are open (inherit: its threads to come), let it go. */
		if (started && ptrace(PTRACE_DETACH, pid, NULL, NULL) < 0) {
			ret = -errno;
			hwbpi_child_kill(pid);
		} else {
			loop(P, pid, started, wstatus);
		}
	}
	if (ret == 0)
		finish(P);
	hwbpi_pobj_close(P);
	if (ret)
		return hwbpi_fail(s, ret, false, "%s", err[0] ? err : hwbp_errno_name(ret));
	return 0;
}
