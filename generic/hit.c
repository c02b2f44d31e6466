/* SPDX-License-Identifier: MIT */
/*
 * What a CPU holds while a task runs (hwbp_task_regs) and hit dispatch
 * (hwbp_decode): from the status the CPU reported to the requests it
 * concerns, filtered by what the caller knows of the access.  The slot
 * sets are slots.c's (see its invariant); nothing here changes them.
 */
#include "hwbp_libc.h"
#include "slots.h"

/*
 * Slot numbers of a task's pieces on a CPU: the CPU's own pieces keep their
 * slots, the task's take the free ones in order.  The accounting invariant
 * guarantees there are enough.
 */
static void task_slotno(const struct hwbp_ctx *ctx, unsigned cpu,
			const struct hwbp_task *task, bool inst, int *slotno)
{
	struct hwbpi_pool cp = hwbpi_pool_of(ctx, &ctx->percpu[cpu], inst);
	struct hwbpi_pool tp = hwbpi_pool_of(ctx, (struct hwbp_slots *)&task->slots, inst);
	unsigned next = 0;

	for (unsigned k = 0; k < tp.n; k++) {
		slotno[k] = -1;
		if (!tp.s[k].refs)
			continue;
		while (next < cp.n && cp.s[next].refs)
			next++;
		slotno[k] = (int)next++;
	}
}

int hwbp_task_regs(const struct hwbp_ctx *ctx, unsigned cpu,
		   const struct hwbp_task *task, struct hwbp_regs *regs)
{
	int dno[HWBP_MAX_SLOTS], ino[HWBP_MAX_SLOTS];

	if (!ctx || !regs || cpu >= ctx->ncpus)
		return -EINVAL;
	*regs = ctx->percpu[cpu].regs;
	if (!task)
		return 0;
	if (!hwbpi_task_registered(ctx, task))
		return -EINVAL;
	task_slotno(ctx, cpu, task, false, dno);
	hwbpi_encode_pool(ctx, task->slots.data, dno, hwbpi_pool_size(ctx, false), regs);
	if (!ctx->caps.shared) {
		task_slotno(ctx, cpu, task, true, ino);
		hwbpi_encode_pool(ctx, task->slots.inst, ino, hwbpi_pool_size(ctx, true), regs);
	}
	return 0;
}

/* Requests behind hardware slot @no of a pool on @cpu (with @task). */
static uint64_t requests_of(const struct hwbp_ctx *ctx, unsigned cpu,
			    const struct hwbp_task *task, bool inst, unsigned no)
{
	const struct hwbp_slots *cs = &ctx->percpu[cpu];
	const struct hwbp_slot *s = (inst && !ctx->caps.shared) ? cs->inst : cs->data;
	int tno[HWBP_MAX_SLOTS];

	if (s[no].refs)
		return s[no].requests;
	if (!task)
		return 0;
	task_slotno(ctx, cpu, task, inst, tno);
	s = (inst && !ctx->caps.shared) ? task->slots.inst : task->slots.data;
	for (unsigned k = 0; k < hwbpi_pool_size(ctx, inst); k++)
		if (tno[k] == (int)no)
			return s[k].requests;
	return 0;
}

/* Should request @rec be reported for this access? */
static bool request_matches(const struct hwbp_plan *plan, const struct hwbp_hit *h,
			    const struct hwbp_access *acc, enum hwbp_precision prec)
{
	const struct hwbp_request *r = &plan->req;
	uint64_t rlast = r->addr + (r->len - 1);
	unsigned kind = acc && acc->kind ? acc->kind : h->kind;

	if (acc && acc->size) {
		uint64_t alast = acc->addr + (acc->size - 1);

		/* Touched only bytes outside the request (extra bytes of an
		 * enlarged plan, or a ppc doubleword's neighbours). */
		if (alast < r->addr || acc->addr > rlast)
			return false;
	} else if (h->addr_known && prec == HWBP_ADDR_EXACT && r->type != HWBP_X) {
		/* DAR is the access's first byte (Power ISA Book III, DSI):
		 * an access starting past the request cannot touch it.  One
		 * starting before may still reach in, so keep it. */
		if (h->addr > rlast)
			return false;
	}
	/* The kind, when known, must be the request's: an instruction fetch
	 * is not a data access of an RW watch on the same bytes, nor a load
	 * the fetch of an execute breakpoint (x86 DR6 may name a data slot
	 * and an execute slot together). */
	if (kind && (kind == HWBP_X) != (r->type == HWBP_X))
		return false;
	if (kind && r->type != HWBP_X) {
		if (kind == HWBP_R && !(r->type & HWBP_R))
			return false;
		if (kind == HWBP_W && !(r->type & HWBP_W))
			return false;
	}
	if (acc && acc->priv >= 0) {
		if (r->scope == HWBP_SCOPE_USER && acc->priv == 0)
			return false;
		if (r->scope == HWBP_SCOPE_KERNEL && acc->priv == 1)
			return false;
	}
	return true;
}

/*
 * A shared slot's requests (HWBP_REQ_SHARE) when only the CPU's reported
 * address is known (arm64 FAR: an address the access touched, inside the
 * watched piece, Arm ARM D2.10.5): the request holding it was hit, its
 * neighbours in the slot were not, unless none holds it (a byte of the
 * piece nobody asked for: then all stay).  An access wider than a byte
 * may have touched more of them; only its size (struct hwbp_access) says.
 */
static uint64_t by_reported_addr(const struct hwbp_ctx *ctx, const struct hwbp_hit *h)
{
	uint64_t shared = 0, holding = 0;

	for (unsigned id = 0; id < HWBP_MAX_REQUESTS; id++) {
		const struct hwbp_request *r = &ctx->req[id].plan.req;

		if (!(h->requests & (UINT64_C(1) << id)) || !(r->flags & HWBP_REQ_SHARE))
			continue;
		shared |= UINT64_C(1) << id;
		if (h->addr >= r->addr && h->addr - r->addr < r->len)
			holding |= UINT64_C(1) << id;
	}
	return holding ? h->requests & ~(shared & ~holding) : h->requests;
}

int hwbp_decode(const struct hwbp_ctx *ctx, unsigned cpu,
		const struct hwbp_task *task, const struct hwbp_status *st,
		const struct hwbp_access *acc, struct hwbp_hit *hit)
{
	const struct hwbp_regs *regs;
	struct hwbp_hit h;
	uint64_t cand = 0;
	int ret;

	if (!ctx || !st || !hit || cpu >= ctx->ncpus)
		return -EINVAL;
	/*
	 * The registers CPU @cpu holds: its own set's, or with a task the
	 * combination hwbp_task_regs() computes, built in that CPU's scratch
	 * (a register block does not fit the 512-byte frame budget, and the
	 * ctx's own scratch belongs to install/modify/remove).
	 */
	if (task) {
		ret = hwbp_task_regs(ctx, cpu, task, &ctx->percpu[cpu].live);
		if (ret)
			return ret;
		regs = &ctx->percpu[cpu].live;
	} else {
		regs = &ctx->percpu[cpu].regs;
	}
	ret = hwbp_decode_status(&ctx->cpu, regs, st, &h);
	if (task)
		hwbpi_scrub(&ctx->percpu[cpu].live, sizeof(ctx->percpu[cpu].live));
	if (ret)
		return ret;
	for (unsigned i = 0; i < HWBP_MAX_SLOTS; i++) {
		if (h.data_slots & (1u << i))
			cand |= requests_of(ctx, cpu, task, false, i);
		if (h.inst_slots & (1u << i))
			cand |= requests_of(ctx, cpu, task, true, i);
	}
	h.requests = 0;
	for (unsigned id = 0; id < HWBP_MAX_REQUESTS; id++) {
		if (!(cand & (UINT64_C(1) << id)) || !ctx->req[id].live)
			continue;
		if (request_matches(&ctx->req[id].plan, &h, acc, ctx->caps.precision))
			h.requests |= UINT64_C(1) << id;
	}
	if (!(acc && acc->size) && h.addr_known && ctx->caps.precision == HWBP_ADDR_WINDOW)
		h.requests = by_reported_addr(ctx, &h);
	h.filtered = cand && !h.requests;
	/* A widened request reports the kind only when it is known. */
	if (acc && acc->kind)
		h.kind = acc->kind;
	*hit = h;
	return 0;
}
