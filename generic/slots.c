/* SPDX-License-Identifier: MIT */
/*
 * Slot accounting and installation through the host's glue (the registers
 * a task needs and hit dispatch are hit.c's).
 *
 * Model (after Linux kernel/events/hw_breakpoint.c): every CPU has its own
 * slot set for CPU-bound requests; a task has a slot set that follows it
 * from CPU to CPU.  Since a task may run on any CPU, the invariant is
 *
 *     for every CPU c and pool p:  used(c, p) + max_task used(t, p) <= size(p)
 *
 * which is what makes hwbp_task_regs() always able to place a task's
 * pieces in the slots its CPU leaves free.
 *
 * Installation, modification and removal are all-or-nothing without
 * allocation: each CPU's new registers are computed on a copy of its set
 * and written; if the glue fails on some CPU, the CPUs already written get
 * their old registers back, and the sets are changed only once every write
 * succeeded (change_cpus()).
 */

#include "hwbp_libc.h"
#include "slots.h"

/* slot bit masks and the identity slot table below */
_Static_assert(HWBP_MAX_SLOTS == 16, "identity[] lists HWBP_MAX_SLOTS slot numbers");

static unsigned used(const struct hwbp_ctx *ctx, const struct hwbp_slots *set, bool inst)
{
	struct hwbpi_pool p = hwbpi_pool_of(ctx, (struct hwbp_slots *)set, inst);
	unsigned u = 0;

	for (unsigned i = 0; i < p.n; i++)
		u += p.s[i].refs != 0;
	return u;
}

static unsigned max_task_used(const struct hwbp_ctx *ctx, bool inst)
{
	unsigned m = 0;

	for (const struct hwbp_task *t = ctx->tasks; t; t = t->next) {
		unsigned u = used(ctx, &t->slots, inst);

		if (u > m)
			m = u;
	}
	return m;
}

static unsigned max_cpu_used(const struct hwbp_ctx *ctx, bool inst)
{
	unsigned m = 0;

	for (unsigned c = 0; c < ctx->ncpus; c++) {
		unsigned u = used(ctx, &ctx->percpu[c], inst);

		if (u > m)
			m = u;
	}
	return m;
}

/* Free slots for a new request; cpu == HWBP_CPU_ALL means the minimum. */
static unsigned free_in(const struct hwbp_ctx *ctx, int cpu,
			const struct hwbp_task *task, bool inst)
{
	unsigned size = hwbpi_pool_size(ctx, inst), taken;

	if (task) {
		taken = max_cpu_used(ctx, inst) + used(ctx, &task->slots, inst);
	} else {
		unsigned u = cpu == HWBP_CPU_ALL ? max_cpu_used(ctx, inst)
					     : used(ctx, &ctx->percpu[cpu], inst);

		taken = u + max_task_used(ctx, inst);
	}
	return taken >= size ? 0 : size - taken;
}

int hwbp_ctx_init(struct hwbp_ctx *ctx, const struct hwbp_cpu *cpu,
		  unsigned ncpus, struct hwbp_slots *percpu,
		  const struct hwbp_glue *glue)
{
	struct hwbp_caps caps;
	int ret;

	if (!ctx || !cpu || !percpu || ncpus == 0)
		return -EINVAL;
	if (glue && (!glue->write_regs || !glue->on_cpu))
		return -EINVAL;
	ret = hwbp_caps_get(cpu, &caps);
	if (ret)
		return ret;
	memset(ctx, 0, sizeof(*ctx));
	ctx->cpu = *cpu;
	ctx->caps = caps;
	ctx->ncpus = ncpus;
	ctx->percpu = percpu;
	ctx->glue = glue;
	for (unsigned c = 0; c < ncpus; c++) {
		memset(&percpu[c], 0, sizeof(percpu[c]));
		hwbp_regs_reset(cpu, &percpu[c].regs);
	}
	return 0;
}

int hwbp_task_init(struct hwbp_ctx *ctx, struct hwbp_task *task)
{
	if (!ctx || !task)
		return -EINVAL;
	if (hwbpi_task_registered(ctx, task))
		return -EBUSY;
	memset(task, 0, sizeof(*task));
	hwbp_regs_reset(&ctx->cpu, &task->slots.regs);
	task->ctx = ctx;
	task->next = ctx->tasks;
	ctx->tasks = task;
	return 0;
}

int hwbp_task_fini(struct hwbp_ctx *ctx, struct hwbp_task *task)
{
	struct hwbp_task **pp;

	if (!ctx || !task || !hwbpi_task_registered(ctx, task))
		return -EINVAL;
	for (unsigned i = 0; i < HWBP_MAX_REQUESTS; i++)
		if (ctx->req[i].live && ctx->req[i].task == task)
			return -EBUSY;
	for (pp = &ctx->tasks; *pp != task; pp = &(*pp)->next)
		;
	*pp = task->next;
	task->next = NULL;
	task->ctx = NULL;
	return 0;
}

static bool same_piece(const struct hwbp_slot *s, const struct hwbp_piece *p,
		       enum hwbp_scope scope, bool local)
{
	return s->piece.addr == p->addr && s->piece.len == p->len &&
	       s->piece.type == p->type && s->scope == scope && s->local == local;
}

/*
 * Add request @id's pieces to @set, sharing identical ones, and with
 * HWBP_REQ_SHARE joining pieces a slot can hold together (share.c).
 * Returns false when a piece found no slot (only fits_sharing() asks
 * without having checked there is room; the rest of the plan is then not
 * applied).  unapply() undoes it (the slots it took, and the pieces it
 * grew, as they were).
 */
static bool apply(const struct hwbp_ctx *ctx, struct hwbp_slots *set, int id,
		  const struct hwbp_plan *plan)
{
	struct hwbpi_pool p = hwbpi_pool_of(ctx, set, plan->inst);
	bool local = plan->req.flags & HWBP_REQ_LOCAL;

	for (unsigned i = 0; i < plan->n; i++) {
		const struct hwbp_piece *pc = &plan->piece[i];
		unsigned w = hwbpi_piece_slots(&ctx->cpu, plan->inst, pc);
		struct hwbp_piece merged;
		int at = -1;

		for (unsigned k = 0; k < p.n && at < 0; k++)
			if (p.s[k].refs && same_piece(&p.s[k], pc, plan->req.scope, local))
				at = (int)k;
		for (unsigned k = 0; k < p.n && at < 0 && w == 1; k++)
			if (hwbpi_share_join(ctx, &p.s[k], id, plan, i, &merged)) {
				at = (int)k;
				p.s[k].piece = merged;
			}
		/* The first run of @w free slots (w = 1 on most arches). */
		for (unsigned k = 0; k + w <= p.n && at < 0; k++) {
			unsigned f = 0;

			while (f < w && !p.s[k + f].refs)
				f++;
			if (f == w)
				at = (int)k;
		}
		if (at < 0)
			return false;
		if (!p.s[at].refs) {
			p.s[at].piece = *pc;
			p.s[at].scope = plan->req.scope;
			p.s[at].local = local;
			p.s[at].requests = 0;
		}
		/*
		 * A piece of several slots: the slots after the first continue
		 * it (same scope, type and requests; piece.len 0 marks them),
		 * so that they count as used and are freed with it.
		 */
		for (unsigned f = 0; f < w; f++) {
			struct hwbp_slot *sl = &p.s[(unsigned)at + f];

			if (f && !sl->refs) {
				*sl = p.s[at];
				sl->piece.len = 0;
				sl->piece.cover_len = 0;
				sl->refs = 0;
				sl->requests = 0;
			}
			sl->refs++;
			sl->requests |= UINT64_C(1) << id;
		}
	}
	return true;
}

/*
 * An arch whose pieces may take several slots keeps its sets packed: the
 * armed slots first, in their order, the free ones after them.  Then the
 * free slots of a set are one run, and so are those a CPU's set leaves to
 * a task's pieces (hit.c, task_slotno()), which is what lets a run of
 * consecutive slots be found whenever enough slots are free.  Pieces move
 * down when one before them is removed; the registers are re-encoded from
 * the set anyway.  Other arches never move a piece.
 */
static void pack(const struct hwbp_ctx *ctx, struct hwbp_slots *set, bool inst)
{
	const struct hwbpi_arch_ops *ops = hwbpi_arch_ops(ctx->cpu.arch);
	struct hwbpi_pool p = hwbpi_pool_of(ctx, set, inst);
	unsigned to = 0;

	if (!ops || !ops->piece_slots)
		return;
	for (unsigned k = 0; k < p.n; k++) {
		if (!p.s[k].refs)
			continue;
		if (k != to) {
			p.s[to] = p.s[k];
			memset(&p.s[k], 0, sizeof(p.s[k]));
		}
		to++;
	}
}

static void unapply(const struct hwbp_ctx *ctx, struct hwbp_slots *set, int id,
		    const struct hwbp_plan *plan)
{
	struct hwbpi_pool p = hwbpi_pool_of(ctx, set, plan->inst);

	/* One reference per slot holding this request: two pieces of one
	 * plan never share a slot (they are disjoint, and share.c lets one
	 * piece per request into a shared one).  The continuation slots of
	 * a piece of several slots hold the same requests as its first. */
	for (unsigned k = 0; k < p.n; k++) {
		if (!(p.s[k].requests & (UINT64_C(1) << id)))
			continue;
		p.s[k].refs--;
		p.s[k].requests &= ~(UINT64_C(1) << id);
		if (!p.s[k].refs)
			memset(&p.s[k], 0, sizeof(p.s[k]));
		else if (p.s[k].piece.len)
			hwbpi_share_shrink(ctx, &p.s[k]);
	}
	pack(ctx, set, plan->inst);
}

/*
 * Encode one pool into @regs at the given slot numbers.  The piece's type
 * says whether it is an execute piece: on x86's shared pool both kinds sit
 * in data[].
 */
void hwbpi_encode_pool(const struct hwbp_ctx *ctx, const struct hwbp_slot *s,
		       const int *slotno, unsigned n, struct hwbp_regs *regs)
{
	for (unsigned k = 0; k < n; k++) {
		/* A continuation slot (piece.len 0) is encoded with its first. */
		if (!s[k].refs || slotno[k] < 0 || !s[k].piece.len)
			continue;
		/* Pieces were produced by this arch's split() and checked at
		 * plan time, so encoding cannot fail. */
		hwbp_encode_piece(&ctx->cpu, regs, (unsigned)slotno[k],
				  s[k].piece.type == HWBP_X, &s[k].piece,
				  s[k].scope, s[k].local);
	}
}

static const int identity[HWBP_MAX_SLOTS] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
};

static void reencode(const struct hwbp_ctx *ctx, struct hwbp_slots *set)
{
	hwbp_regs_reset(&ctx->cpu, &set->regs);
	hwbpi_encode_pool(ctx, set->data, identity, hwbpi_pool_size(ctx, false), &set->regs);
	if (!ctx->caps.shared)
		hwbpi_encode_pool(ctx, set->inst, identity, hwbpi_pool_size(ctx, true), &set->regs);
}

struct write_call {
	const struct hwbp_ctx *ctx;
	unsigned cpu;
	const struct hwbp_regs *regs;
};

static int write_on_cpu(void *arg)
{
	const struct write_call *w = arg;

	return w->ctx->glue->write_regs(w->ctx->glue->arg, w->cpu, w->regs);
}

/* Write @regs to CPU @cpu's debug registers, on that CPU. */
static int write_cpu(const struct hwbp_ctx *ctx, unsigned cpu, const struct hwbp_regs *regs)
{
	struct write_call w = { ctx, cpu, regs };

	if (!ctx->glue)
		return 0;
	return ctx->glue->on_cpu(ctx->glue->arg, cpu, write_on_cpu, &w);
}

/*
 * The change one request makes to a slot set: take out its old plan (if
 * any), put in its new one (if any), re-encode.  Deterministic: the same
 * set and plans always give the same slots and registers, which is what
 * lets change_cpus() compute a CPU's new registers on a copy first and
 * commit the very same change later.
 */
static bool transform(const struct hwbp_ctx *ctx, struct hwbp_slots *set, int id,
		      const struct hwbp_plan *oldp, const struct hwbp_plan *newp)
{
	bool placed = true;

	if (oldp)
		unapply(ctx, set, id, oldp);
	if (newp)
		placed = apply(ctx, set, id, newp);
	reencode(ctx, set);
	return placed;
}

/*
 * Change CPUs [first, last] for request @id from @oldp to @newp (install:
 * oldp NULL; remove: newp NULL; modify: both); all-or-nothing.
 *
 * Two phases.  First every CPU's new registers are computed on a copy of
 * its set and written; the accounting is not touched.  If the glue fails
 * on CPU c (write_regs or on_cpu), CPUs first..c get their unchanged
 * registers written back and nothing else has changed.  Why not change the
 * sets in place and undo: the undo of a removal (re-adding the pieces)
 * puts them in the first free slots, which need not be the ones they had,
 * so the registers after the undo could differ from those before.  Only
 * after every write succeeded are the same changes committed to the sets.
 *
 * CPU c itself is rewritten too: a glue that fails part-way may have
 * written some registers.  A rollback write that fails as well cannot be
 * helped; the first error is the one the caller needs.  Between a CPU's
 * write and the commit, hwbp_decode() still sees the old accounting: the
 * host serialises decoding with changes of the context, as it must for
 * any change of it.  Without a glue (pure accounting) nothing is written.
 */
static int change_cpus(struct hwbp_ctx *ctx, unsigned first, unsigned last, int id,
		       const struct hwbp_plan *oldp, const struct hwbp_plan *newp)
{
	/* The copy lives in the ctx, not on the stack (a slot set is a few
	 * KiB; a kernel stack has 16 KiB in all). */
	struct hwbp_slots *tmp = &ctx->scratch_set;

	for (unsigned c = first; c <= last && ctx->glue; c++) {
		int ret;

		*tmp = ctx->percpu[c];
		(void)transform(ctx, tmp, id, oldp, newp);
		ret = write_cpu(ctx, c, &tmp->regs);
		if (ret) {
			for (unsigned u = c + 1; u-- > first;)
				(void)write_cpu(ctx, u, &ctx->percpu[u].regs);
			hwbpi_scrub(tmp, sizeof(*tmp));
			return ret;
		}
	}
	if (ctx->glue)
		hwbpi_scrub(tmp, sizeof(*tmp));
	for (unsigned c = first; c <= last; c++)
		(void)transform(ctx, &ctx->percpu[c], id, oldp, newp);
	return 0;
}

/* The CPUs a non-task request lives on. */
static void cpu_range(const struct hwbp_ctx *ctx, int cpu, unsigned *first, unsigned *last)
{
	*first = cpu == HWBP_CPU_ALL ? 0 : (unsigned)cpu;
	*last = cpu == HWBP_CPU_ALL ? ctx->ncpus - 1 : (unsigned)cpu;
}

/*
 * Move request @id from @oldp to @newp where it lives (@task, or CPU @cpu /
 * every CPU): a task's registers are written by the host at switch-in
 * (hwbp_task_regs), so only the CPUs' change can fail, all-or-nothing.
 */
static int change_request(struct hwbp_ctx *ctx, int cpu, struct hwbp_task *task, int id,
			  const struct hwbp_plan *oldp, const struct hwbp_plan *newp)
{
	unsigned first, last;

	if (task) {
		(void)transform(ctx, &task->slots, id, oldp, newp);
		return 0;
	}
	cpu_range(ctx, cpu, &first, &last);
	return change_cpus(ctx, first, last, id, oldp, newp);
}

/*
 * Whether request @id's @newp (replacing @oldp, if any) fits where it
 * lives (@task, or CPU @cpu / every CPU) once its pieces join shared ones:
 * the change made on a copy of each set, the accounting invariant checked
 * on the copy.
 */
static bool fits_sharing(struct hwbp_ctx *ctx, int cpu, struct hwbp_task *task, int id,
			 const struct hwbp_plan *oldp, const struct hwbp_plan *newp)
{
	struct hwbp_slots *tmp = &ctx->scratch_set;  /* not on the stack */
	unsigned size = hwbpi_pool_size(ctx, newp->inst);
	bool ok = true;

	if (task) {
		*tmp = task->slots;
		ok = transform(ctx, tmp, id, oldp, newp) &&
		     max_cpu_used(ctx, newp->inst) + used(ctx, tmp, newp->inst) <= size;
	} else {
		unsigned first, last, tu = max_task_used(ctx, newp->inst);

		cpu_range(ctx, cpu, &first, &last);
		for (unsigned c = first; c <= last && ok; c++) {
			*tmp = ctx->percpu[c];
			ok = transform(ctx, tmp, id, oldp, newp) &&
			     used(ctx, tmp, newp->inst) + tu <= size;
		}
	}
	hwbpi_scrub(tmp, sizeof(*tmp));
	return ok;
}

/*
 * A HWBP_REQ_SHARE request that did not fit the free slots: its plan for
 * the whole pool (exact pieces join shared slots best), kept when its
 * pieces fit once joined (the planner prefers sharing over -ENOSPC).
 * Without the flag a request needs free slots for its pieces, one each
 * (as in Linux's accounting), even where they would then turn out
 * identical to armed ones and share their slots.
 */
static int plan_sharing(struct hwbp_ctx *ctx, const struct hwbp_request *req, int cpu,
			struct hwbp_task *task, int id, const struct hwbp_plan *oldp,
			struct hwbp_plan *plan)
{
	int ret = hwbp_plan(&ctx->cpu, req, 0, plan);

	if (ret)
		return ret;
	return fits_sharing(ctx, cpu, task, id, oldp, plan) ? 0 : -ENOSPC;
}

/* Check @req, then plan it into @freeslots slots of the pool it needs. */
static int plan_into(const struct hwbp_ctx *ctx, const struct hwbp_request *req,
		     unsigned freeslots, struct hwbp_plan *plan)
{
	int ret = hwbp_request_check(&ctx->cpu, req);

	if (ret)
		return ret;
	if (freeslots == 0 && !hwbpi_pool_size(ctx, req->type == HWBP_X))
		return -EOPNOTSUPP;
	if (freeslots == 0) {
		/*
		 * Nothing free now.  Whether that is -ENOSPC (fits once slots
		 * are freed) or -ERANGE (no number of this CPU's slots ever
		 * holds it) is the whole pool's plan's to say (a plan for 0
		 * free slots is one for the whole pool); the caller scrubs
		 * @plan on error.
		 */
		ret = hwbp_plan(&ctx->cpu, req, 0, plan);
		return ret ? ret : -ENOSPC;
	}
	return hwbp_plan(&ctx->cpu, req, freeslots, plan);
}

int hwbp_install(struct hwbp_ctx *ctx, const struct hwbp_request *req,
		 int cpu, struct hwbp_task *task, int *id)
{
	struct hwbp_plan *plan;
	int slot = -1, ret;

	if (!ctx || !req || !id)
		return -EINVAL;
	if (task) {
		if (!hwbpi_task_registered(ctx, task))
			return -EINVAL;
		cpu = HWBP_CPU_TASK;
	} else if (cpu < HWBP_CPU_ALL || (cpu >= 0 && (unsigned)cpu >= ctx->ncpus)) {
		return -EINVAL;
	}
	for (int i = 0; i < HWBP_MAX_REQUESTS && slot < 0; i++)
		if (!ctx->req[i].live)
			slot = i;

	/*
	 * Plan against the pool the request needs, straight into the free
	 * record (not live until the end, so nothing sees it before); with no
	 * free record the plan's own errors still come first.
	 */
	plan = slot < 0 ? &ctx->scratch_plan : &ctx->req[slot].plan;
	ret = plan_into(ctx, req, free_in(ctx, cpu, task, req->type == HWBP_X), plan);
	if (ret == -ENOSPC && slot >= 0 && (req->flags & HWBP_REQ_SHARE))
		ret = plan_sharing(ctx, req, cpu, task, slot, NULL, plan);
	if (ret == 0 && slot < 0)
		ret = -ENOSPC;
	if (ret == 0)
		ret = change_request(ctx, cpu, task, slot, NULL, plan);
	if (ret) {
		hwbpi_scrub(plan, sizeof(*plan));
		return ret;
	}
	ctx->req[slot].live = true;
	ctx->req[slot].cpu = cpu;
	ctx->req[slot].task = task;
	*id = slot;
	return 0;
}

int hwbp_remove(struct hwbp_ctx *ctx, int id)
{
	struct hwbp_reqrec *rec;
	int ret;

	if (!ctx || id < 0 || id >= HWBP_MAX_REQUESTS || !ctx->req[id].live)
		return -EINVAL;
	rec = &ctx->req[id];
	ret = change_request(ctx, rec->cpu, rec->task, id, &rec->plan, NULL);
	if (ret)
		return ret;
	memset(rec, 0, sizeof(*rec));
	return 0;
}

/*
 * Free slots for request @id's replacement: as free_in(), but with @id's
 * own pieces taken out first (virtually, on a copy), so that a modify
 * needing no more slots than it holds cannot fail for lack of room.
 */
static unsigned free_for_modify(struct hwbp_ctx *ctx, int id, bool inst)
{
	const struct hwbp_reqrec *rec = &ctx->req[id];
	unsigned size = hwbpi_pool_size(ctx, inst), taken;
	struct hwbp_slots *tmp = &ctx->scratch_set;  /* not on the stack */

	if (rec->task) {
		/* Other tasks do not limit this one: only the busiest CPU. */
		*tmp = rec->task->slots;
		unapply(ctx, tmp, id, &rec->plan);
		taken = max_cpu_used(ctx, inst) + used(ctx, tmp, inst);
	} else {
		unsigned first, last, u = 0;

		cpu_range(ctx, rec->cpu, &first, &last);
		for (unsigned c = first; c <= last; c++) {
			unsigned uc;

			*tmp = ctx->percpu[c];
			unapply(ctx, tmp, id, &rec->plan);
			uc = used(ctx, tmp, inst);
			if (uc > u)
				u = uc;
		}
		taken = u + max_task_used(ctx, inst);
	}
	hwbpi_scrub(tmp, sizeof(*tmp));
	return taken >= size ? 0 : size - taken;
}

int hwbp_modify(struct hwbp_ctx *ctx, int id, const struct hwbp_request *req)
{
	struct hwbp_plan *plan;
	struct hwbp_reqrec *rec;
	int ret;

	if (!ctx || !req || id < 0 || id >= HWBP_MAX_REQUESTS || !ctx->req[id].live)
		return -EINVAL;
	rec = &ctx->req[id];
	/* The new plan waits in the ctx until the change is committed. */
	plan = &ctx->scratch_plan;
	ret = plan_into(ctx, req, free_for_modify(ctx, id, req->type == HWBP_X), plan);
	if (ret == -ENOSPC && (req->flags & HWBP_REQ_SHARE))
		ret = plan_sharing(ctx, req, rec->cpu, rec->task, id, &rec->plan, plan);
	if (ret == 0)
		ret = change_request(ctx, rec->cpu, rec->task, id, &rec->plan, plan);
	if (ret == 0)
		rec->plan = *plan;
	hwbpi_scrub(plan, sizeof(*plan));
	return ret;
}

const struct hwbp_plan *hwbp_plan_of(const struct hwbp_ctx *ctx, int id)
{
	if (!ctx || id < 0 || id >= HWBP_MAX_REQUESTS || !ctx->req[id].live)
		return NULL;
	return &ctx->req[id].plan;
}

int hwbp_free_slots(const struct hwbp_ctx *ctx, int cpu,
		    const struct hwbp_task *task, bool inst)
{
	if (!ctx)
		return -EINVAL;
	if (task) {
		if (!hwbpi_task_registered(ctx, task))
			return -EINVAL;
	} else if (cpu < HWBP_CPU_ALL || (cpu >= 0 && (unsigned)cpu >= ctx->ncpus)) {
		return -EINVAL;
	}
	return (int)free_in(ctx, task ? HWBP_CPU_TASK : cpu, task, inst);
}
