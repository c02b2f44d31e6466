/* SPDX-License-Identifier: MIT */
/*
 * The perf backend's samples and access kinds (tracer/backends/perf/perf_int.h): each
 * PERF_RECORD_SAMPLE becomes one event of the tracer; where an RW piece
 * was split into kind events (--kinds, tracer/backends/perf/perf.h) the kind comes from
 * the event that saw the access, and a twin split pairs the RW sample
 * with its store-only twin's.  A self-test checks first that this CPU
 * reports both slots of a twin pair.
 *
 * References: man 2 perf_event_open (PERF_RECORD_SAMPLE layout);
 * arch/x86/kernel/hw_breakpoint.c hw_breakpoint_handler() (one
 * perf_bp_event() per DR6 bit set, lowest slot first, all before the
 * handler returns: the two samples of one store are written one after the
 * other into the CPU's ring); Intel SDM Vol. 3B 18.2.3 (DR6 B0-B3 are set
 * for every matching breakpoint).
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/perf/bpf_abi.h"
#include "backends/linux/linux.h"
#include "backends/perf/perf_int.h"

static const struct event *find_event(struct sess *s, uint64_t id)
{
	if (s->last < s->nev && s->ev[s->last].id == id)
		return &s->ev[s->last];
	for (unsigned i = 0; i < s->nev; i++)
		if (s->ev[i].id == id) {
			s->last = i;
			return &s->ev[i];
		}
	return NULL;
}

/* The values a values program read for the sample @v (V_VFLAGS), if
 * they are of watch @wi: the bytes after the access (the program runs at
 * x86's trap, after it) and, for a write, those the previous hit left
 * (trace.h's value and old, as the ptrace backend gives them). */
static void set_values(struct hwbp_trace_event *ev, const struct hwbpi_watch *w, unsigned wi,
		       const uint64_t *v)
{
	if (!(v[V_VFLAGS] & HWBPI_BPF_REC_VALUE) || v[V_VWATCH] != wi)
		return;
	ev->vsize = (uint8_t)(w->len < 8 ? w->len : 8);
	ev->value = v[V_VALUE];
	ev->vflags = HWBP_EV_VALUE;
	if (ev->kind == HWBP_W && (v[V_VFLAGS] & HWBPI_BPF_REC_OLD)) {
		ev->old = v[V_OLD];
		ev->vflags |= HWBP_EV_OLD;
	}
}

/* One event of the tracer for watch @wi from a sample of piece @pi with
 * @kind known (0: from the piece and its watch). */
static void emit_watch(struct sess *s, unsigned pi, unsigned wi, const uint64_t *v, unsigned kind,
		       const uint64_t *callers, unsigned n)
{
	const struct piece *p = &s->pc[pi];
	const struct hwbpi_watch *w = &s->t->w[wi];
	struct hwbp_trace_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.ts = v[V_TIME];
	ev.ip = v[V_IP];
	/* A breakpoint sample's address is the breakpoint's (perf_bp_event()
	 * sets bp_addr), not the access's: the piece, clamped into the watch. */
	ev.addr = v[V_ADDR] >= w->addr && v[V_ADDR] - w->addr < w->len ? v[V_ADDR] : w->addr;
	ev.cpu = (uint16_t)(uint32_t)v[V_CPU];
	ev.bp = (uint16_t)wi;
	if (v[V_DKIND]) {
		/* Decoded: an access of the piece's bytes beyond the watch's
		 * (an enlarged piece) is not its hit; else the instruction says
		 * the kind, and a read-modify-write of a one-kind watch is of
		 * the kind it asked for. */
		if (v[V_DADDR] >= w->addr + w->len || w->addr >= v[V_DADDR] + v[V_DSIZE]) {
			s->t->filtered++;
			return;
		}
		ev.addr = v[V_DADDR] >= w->addr ? v[V_DADDR] : w->addr;
		ev.kind = (uint8_t)v[V_DKIND];
		if ((ev.kind & w->type) && w->type != HWBP_X)
			ev.kind &= (uint8_t)w->type;
		ev.kind_how = HWBP_KIND_INSN;
	} else if (kind || p->split) {
		/* a kind event, or the pairing of a twin: the hardware said */
		ev.kind = (uint8_t)(kind ? kind : p->tag);
		ev.kind_how = HWBP_KIND_HW;
	} else if (p->tag) {
		ev.kind = (uint8_t)p->tag;   /* a piece of one kind: known by its type */
		ev.kind_how = HWBP_KIND_TYPE;
	} else if (w->type == HWBP_W || w->type == HWBP_X) {
		ev.kind = (uint8_t)w->type;
		ev.kind_how = HWBP_KIND_TYPE;
	} else {
		ev.kind = 0;                 /* a sample does not say read or write */
		ev.kind_how = HWBP_KIND_UNKNOWN;
	}
	/* Values that changed: a write, whatever the sample could not say
	 * (x86 RW watches without kind events), as the ptrace backend
	 * tells it from its shadow. */
	if (!ev.kind && (v[V_VFLAGS] & HWBPI_BPF_REC_OLD) && v[V_VWATCH] == wi &&
	    v[V_OLD] != v[V_VALUE]) {
		ev.kind = HWBP_W;
		ev.kind_how = HWBP_KIND_VALUE;
	}
	/* An access of a kind the watch does not want (a read of a -w- watch
	 * widened to RW; a store of an r-- watch seen by its twin) is not
	 * the watch's hit. */
	if (ev.kind && ev.kind != HWBP_X && !(ev.kind & w->type)) {
		s->t->filtered++;
		return;
	}
	set_values(&ev, w, wi, v);
	if (s->cg)
		hwbpi_tracer_hit_frames(s->t, &ev, callers, n);
	else
		hwbpi_tracer_hit(s->t, &ev);
}

/*
 * The events of a sample of piece @pi: its watch's; for a register that
 * several watches share, those whose bytes the decoded access touched
 * (none: the access touched only bytes between them, filtered).  A
 * sample of a shared register that did not decode names no watch.
 */
static void emit(struct sess *s, unsigned pi, const uint64_t *v, unsigned kind,
		 const uint64_t *callers, unsigned n)
{
	const struct piece *p = &s->pc[pi];
	bool any = false;

	if (!p->watches) {
		emit_watch(s, pi, p->watch, v, kind, callers, n);
		return;
	}
	if (!v[V_DKIND]) {
		s->res->unattributed++;
		return;
	}
	for (unsigned wi = 0; wi < s->t->nw; wi++) {
		const struct hwbpi_watch *w = &s->t->w[wi];

		if (!(p->watches & (UINT64_C(1) << wi)) || v[V_DADDR] >= w->addr + w->len ||
		    w->addr >= v[V_DADDR] + v[V_DSIZE])
			continue;
		emit_watch(s, pi, wi, v, kind, callers, n);
		any = true;
	}
	if (!any)
		s->t->filtered++;
}

/* The piece of a pending record. */
static int pending_piece(struct sess *s, const struct ring *r)
{
	const struct event *e = find_event(s, r->pend[V_ID]);

	return e ? (int)e->piece : -1;
}

/* A pending sample alone: the RW piece's without its twin is a load, the
 * twin's alone (the CPU reported only it) a store. */
void hwbpi_perf_kind_flush(struct sess *s, struct ring *r)
{
	int pi;

	if (!r->pending)
		return;
	r->pending = false;
	pi = pending_piece(s, r);
	if (pi >= 0)
		emit(s, (unsigned)pi, r->pend, s->pc[pi].tag ? HWBP_W : HWBP_R, r->pend_callers,
		     r->pend_n);
}

/*
 * Is sample @v of piece @pi the access that the ring's previous sample
 * reported already?  Both from one debug exception: consecutive in this
 * CPU's ring (one handler writes both, nothing between them), of two
 * pieces of one watch (neither a kind event), the same thread, and the
 * same trap frame -- every general register and the IP equal, which two
 * accesses of a loop over the watched bytes never have (the index or the
 * pointer moved).  Records the sample as the ring's previous one.
 */
static bool same_access(const struct sess *s, struct ring *r, unsigned pi, const uint64_t *v)
{
	const struct piece *p = &s->pc[pi];
	bool same = r->prev_ok && v[V_SIG] && r->prev_piece != pi &&
		    s->pc[r->prev_piece].watch == p->watch && r->prev_tid == v[V_TID] &&
		    r->prev_sig == v[V_SIG];

	r->prev_ok = v[V_SIG] && !p->split;
	r->prev_piece = pi;
	r->prev_tid = v[V_TID];
	r->prev_sig = v[V_SIG];
	return same;
}

/*
 * The access of sample @v of piece @pi, decoded (s->dec) from the trap
 * frame perf.c read (s->iv) and its function's code: into @d, a copy of
 * @v with V_DKIND, V_DADDR, V_DSIZE set.  Returns @d, or @v when it did
 * not decode (counted, the first reason kept).
 */
static const uint64_t *decode_sample(struct sess *s, unsigned pi, const uint64_t *v, uint64_t *d)
{
	const struct piece *p = &s->pc[pi];
	const struct hwbpi_watch *w = &s->t->w[p->watch];
	uint64_t regv[HWBPI_INSN_REGS], known, lo[HWBP_MAX_REQUESTS], len[HWBP_MAX_REQUESTS];
	unsigned nr = 0;
	struct hwbp_access acc;
	/* The process's code (its pid: PERF_SAMPLE_TID's first half), or the
	 * kernel's. */
	pid_t pid = s->kernel ? 0 : (pid_t)(uint32_t)v[V_TID];
	int ret;

	if (!s->dec || !s->iv_ok || (w->type & HWBP_X) || w->tls)
		return v;
	/* The watch's bytes, or those of every watch sharing the register. */
	for (unsigned wi = 0; wi < s->t->nw; wi++)
		if (p->watches ? (p->watches & (UINT64_C(1) << wi)) != 0 : wi == p->watch) {
			lo[nr] = s->t->w[wi].addr;
			len[nr++] = s->t->w[wi].len;
		}
	ret = hwbpi_linux_perf_dwarf_regs(s->iv, s->iregs, regv, HWBPI_INSN_REGS, &known);
	if (ret == 0)
		ret = hwbpi_hit_access_regs(s->dec, pid, s->syms, v[V_IP], regv, known, lo, len, nr,
					    &acc);
	if (ret) {
		if (!s->res->undecoded++)
			s->res->undecoded_err = ret;
		return v;
	}
	s->res->decoded++;
	memcpy(d, v, V_N * sizeof(*d));
	d[V_DKIND] = acc.kind;
	d[V_DADDR] = acc.addr;
	d[V_DSIZE] = acc.size;
	return d;
}

void hwbpi_perf_kind_sample(struct sess *s, struct ring *r, const uint64_t *v,
			  const uint64_t *callers, unsigned n)
{
	const struct event *e = find_event(s, v[V_ID]);
	const struct piece *p;
	uint64_t d[V_N];

	if (!e) {
		s->res->unknown++;
		return;
	}
	s->res->samples++;
	v = decode_sample(s, e->piece, v, d);
	p = &s->pc[e->piece];
	if (p->twin < 0) {
		hwbpi_perf_kind_flush(s, r);
		if (p->split) {
			r->prev_ok = false;
		} else if (same_access(s, r, e->piece, v)) {
			s->res->merged++;
			return;
		}
		emit(s, e->piece, v, 0, callers, n);
		return;
	}
	r->prev_ok = false;
	/* The two samples of one store: same thread, same IP, consecutive in
	 * this CPU's ring (one #DB handler writes both). */
	if (r->pending) {
		int q = pending_piece(s, r);

		if (q >= 0 && s->pc[q].twin == (int)e->piece && r->pend[V_TID] == v[V_TID] &&
		    r->pend[V_IP] == v[V_IP]) {
			uint64_t both[V_N];

			r->pending = false;
			/* One access: the two samples' callers are the same.  Its
			 * values are the first sample's: the program ran twice,
			 * and the second run's "before" is the first's "after". */
			memcpy(both, p->tag ? r->pend : v, sizeof(both));
			both[V_OLD] = r->pend[V_OLD];
			both[V_VFLAGS] = r->pend[V_VFLAGS];
			emit(s, p->tag ? (unsigned)q : e->piece, both, HWBP_W, callers, n);
			return;
		}
		hwbpi_perf_kind_flush(s, r);
	}
	memcpy(r->pend, v, sizeof(r->pend));
	if (n)
		memcpy(r->pend_callers, callers, n * sizeof(*callers));
	r->pend_n = n;
	r->pending = true;
}

/* ------------------------------------------------------------ stacks */

/* The modules of a held child's process, at its first sample (it has
 * exec'd by then: the kernel enabled the events at its exec). */
static bool dwarf_ready(struct sess *s)
{
	char err[256] = "";

	if (!s->dw && !s->dw_failed && s->dw_pid > 0 &&
	    hwbpi_dwunw_new(&s->dw, s->dw_pid, err, sizeof(err))) {
		s->dw_failed = true;
		snprintf(s->res->stack_why, sizeof(s->res->stack_why), "%s", err);
	}
	return s->dw != NULL;
}

/* Bounded reads of a sample's fields, in order. */
struct cursor {
	const uint8_t *p, *end;
};

static bool take(struct cursor *c, void *dst, size_t len)
{
	if ((size_t)(c->end - c->p) < len)
		return false;
	if (dst)
		memcpy(dst, c->p, len);
	c->p += len;
	return true;
}

unsigned hwbpi_perf_sample_callers(struct sess *s, const uint8_t *body, size_t len,
				 uint64_t *callers)
{
	struct cursor c = { body, body + len };
	unsigned depth = s->t->stack_depth, nregs = 0;
	uint64_t v[6], nr, abi, regs[64], size, dyn = 0;
	struct hwbpi_stack_dump dump;
	struct hwbpi_uregs u;

	if (depth > HWBPI_STACK_MAX)
		depth = HWBPI_STACK_MAX;
	if (!take(&c, v, sizeof(v)))
		return 0;
	if (s->kernel || s->cg == HWBPI_CG_FP) {
		/* u64 nr, u64 ips[nr] */
		if (!take(&c, &nr, 8) || nr > (uint64_t)(c.end - c.p) / 8)
			return 0;
		return hwbpi_unwind_chain((const uint64_t *)(const void *)c.p, nr, v[V_IP], s->kernel,
					  callers, depth);
	}
	/* u64 abi, u64 regs[weight(mask)]; u64 size, char data[size],
	 * u64 dyn_size (the bytes the kernel could copy) */
	if (!take(&c, &abi, 8))
		return 0;
	if (abi) {
		nregs = (unsigned)__builtin_popcountll(hwbpi_linux_perf_uregs);
		if (nregs > 64 || !take(&c, regs, nregs * 8))
			return 0;
	}
	if (!take(&c, &size, 8) || size > (uint64_t)(c.end - c.p))
		return 0;
	dump.data = c.p;
	c.p += size;
	if (size && !take(&c, &dyn, 8))
		return 0;
	if (!abi || hwbpi_linux_uregs_perf(abi, regs, nregs, &u) || !dwarf_ready(s))
		return 0;
	dump.sp = u.sp;
	dump.len = dyn < size ? (size_t)dyn : (size_t)size;
	return hwbpi_dwunw_unwind(s->dw, &u, &dump, NULL, NULL, callers, depth);
}

/* ------------------------------------------------------------ splitting */

/* The pieces of watch @w that a split would double. */
static unsigned rw_pieces(const struct sess *s, unsigned w)
{
	unsigned n = 0;

	for (unsigned k = 0; k < s->npc; k++)
		n += s->pc[k].watch == w && s->pc[k].type == HWBP_RW;
	return n;
}

int hwbpi_perf_split_kinds(struct sess *s, const struct hwbp_caps *caps,
			 const struct hwbpi_perf_opts *o, char *err, size_t n)
{
	enum hwbpi_linux_split how = hwbpi_linux_kind_split;
	struct hwbpi_perf_result *res = s->res;
	unsigned used = 0, free_slots, npc = s->npc;
	struct piece *pc;
	int ret;

	for (unsigned k = 0; k < s->npc; k++)
		s->pc[k].twin = -1;
	for (unsigned k = 0; k < s->npc; k++)
		used += s->pc[k].type != HWBP_X || caps->shared;
	for (unsigned w = 0; w < s->t->nw; w++)
		if (rw_pieces(s, w) && (s->t->w[w].type & HWBP_R))
			res->unsplit++;
	/* Counting without samples reports no kinds: nothing to split.  With
	 * a decoder the instruction gives each hit's kind: no twin, unless
	 * kinds exact asks for both (a hit may not decode). */
	if (!res->unsplit || o->kinds == HWBPI_KINDS_OFF || (!o->sampling && !o->bpf) ||
	    (s->dec && o->kinds != HWBPI_KINDS_EXACT)) {
		res->unsplit = 0;   /* asked for none, or nothing to say */
		return 0;
	}
	if (how == HWBPI_SPLIT_NONE) {
		snprintf(res->kinds_why, sizeof(res->kinds_why),
			 "this kernel's breakpoints cannot tell loads from stores");
		res->kinds_broken = true;
	} else if (how == HWBPI_SPLIT_TWIN &&
		   (ret = hwbpi_twins_selftest(res->kinds_why, sizeof(res->kinds_why)))) {
		res->kinds_broken = true;
	}
	if (res->kinds_broken) {
		if (o->kinds == HWBPI_KINDS_EXACT) {
			hwbpi_say(err, n, "--kinds exact: %s", res->kinds_why);
			return -EOPNOTSUPP;
		}
		return 0;
	}
	/* Each split costs one more slot per RW piece (PAIR: R + W for RW;
	 * TWIN: RW + W).  Watches in order, each whole or not at all. */
	pc = realloc(s->pc, (size_t)npc * 2 * sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	s->pc = pc;
	free_slots = caps->data_slots > used ? caps->data_slots - used : 0;
	res->unsplit = 0;
	for (unsigned w = 0; w < s->t->nw; w++) {
		unsigned need = rw_pieces(s, w);

		if (!need || !(s->t->w[w].type & HWBP_R))
			continue;
		if (need > free_slots) {
			res->unsplit++;
			if (o->kinds == HWBPI_KINDS_EXACT) {
				hwbpi_say(err, n, "%s: --kinds exact needs %u more debug registers, %u are "
					  "free", s->t->w[w].name, need, free_slots);
				return -ENOSPC;
			}
			continue;
		}
		free_slots -= need;
		res->split++;
		res->split_how[w] = (unsigned char)how;
		for (unsigned k = 0; k < npc; k++) {
			struct piece *p = &s->pc[k], *q;

			if (p->watch != w || p->type != HWBP_RW)
				continue;
			q = &s->pc[s->npc];
			*q = *p;
			q->type = HWBP_W;
			q->tag = HWBP_W;
			q->split = p->split = true;
			if (how == HWBPI_SPLIT_PAIR) {
				p->type = HWBP_R;
				p->tag = HWBP_R;
				q->twin = -1;
			} else {
				p->twin = (int)s->npc;
				q->twin = (int)k;
			}
			s->npc++;
		}
	}
	res->pieces = s->npc;
	return 0;
}
