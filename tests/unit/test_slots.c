/* SPDX-License-Identifier: MIT */
/*
 * Slot accounting, installation through a glue, tasks and hit dispatch.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>

#define NCPU 4

/* A test glue: "hardware" registers per CPU (the fault-injection test
 * below wraps the simulator's glue instead). */
struct fake_hw {
	struct hwbp_regs hw[NCPU];
	int writes;
	int on_cpu_calls;
};

static int fake_write(void *arg, unsigned cpu, const struct hwbp_regs *regs)
{
	struct fake_hw *f = arg;

	f->writes++;
	f->hw[cpu] = *regs;
	return 0;
}

static int fake_on_cpu(void *arg, unsigned cpu, int (*fn)(void *), void *fnarg)
{
	struct fake_hw *f = arg;

	(void)cpu;
	f->on_cpu_calls++;
	return fn(fnarg);
}

struct fixture {
	struct hwbp_cpu cpu;
	struct hwbp_ctx ctx;
	struct hwbp_slots percpu[NCPU];
	struct fake_hw hw;
	struct hwbp_glue glue;
};

static struct fixture F;

static void setup_ctx(const char *preset, unsigned ncpu)
{
	memset(&F, 0, sizeof(F));
	assert_int_equal(hwbp_cpu_preset(preset, &F.cpu), 0);
	F.glue.write_regs = fake_write;
	F.glue.on_cpu = fake_on_cpu;
	F.glue.arg = &F.hw;
	for (unsigned c = 0; c < NCPU; c++)
		hwbp_regs_reset(&F.cpu, &F.hw.hw[c]);
	assert_int_equal(hwbp_ctx_init(&F.ctx, &F.cpu, ncpu, F.percpu, &F.glue), 0);
}

static struct hwbp_request rq(uint64_t addr, uint64_t len, unsigned type)
{
	struct hwbp_request r = { addr, len, type, HWBP_SCOPE_BOTH, 0 };

	return r;
}

static void test_init_errors(void **state)
{
	struct hwbp_cpu cpu;
	struct hwbp_ctx ctx;
	struct hwbp_slots s[1];
	struct hwbp_glue bad = { NULL, NULL, NULL };

	(void)state;
	assert_int_equal(hwbp_cpu_preset("x86_64", &cpu), 0);
	assert_int_equal(hwbp_ctx_init(NULL, &cpu, 1, s, NULL), -EINVAL);
	assert_int_equal(hwbp_ctx_init(&ctx, NULL, 1, s, NULL), -EINVAL);
	assert_int_equal(hwbp_ctx_init(&ctx, &cpu, 0, s, NULL), -EINVAL);
	assert_int_equal(hwbp_ctx_init(&ctx, &cpu, 1, NULL, NULL), -EINVAL);
	assert_int_equal(hwbp_ctx_init(&ctx, &cpu, 1, s, &bad), -EINVAL);
}

/* The test: fill every slot, expect -ENOSPC, free one, succeed. */
static void test_fill_free(void **state)
{
	static const struct {
		const char *cpu;
		unsigned type;
		unsigned slots;
		uint64_t stride, len;
	} rows[] = {
		{ "x86_64", HWBP_W, 4, 0x100, 8 },      /* DR0-3 shared (SDM §17.2) */
		{ "x86_64", HWBP_X, 4, 0x100, 1 },      /* same pool for execute */
		{ "cortex-a57", HWBP_RW, 4, 0x100, 8 }, /* 4 watchpoints */
		{ "cortex-a57", HWBP_X, 6, 0x100, 4 },  /* 6 breakpoints */
		{ "arm64-max16", HWBP_W, 16, 0x100, 8 },
		{ "arm64-max16", HWBP_X, 16, 0x100, 4 },
		{ "power7", HWBP_W, 1, 0x100, 8 },      /* DABR */
		{ "power9", HWBP_W, 1, 0x1000, 64 },    /* DAWR0 */
		{ "power10", HWBP_W, 2, 0x1000, 64 },   /* DAWR0 + DAWR1 */
		{ "power10", HWBP_X, 1, 0x1000, 4 },    /* CIABR */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int ids[HWBP_MAX_SLOTS], id;
		struct hwbp_request r;
		struct hwbp_ctx before;
		struct hwbp_slots pbefore[NCPU];

		setup_ctx(rows[i].cpu, NCPU);
		for (unsigned k = 0; k < rows[i].slots; k++) {
			r = rq(0x100000 + k * rows[i].stride, rows[i].len, rows[i].type);
			r.scope = HWBP_SCOPE_USER;
			assert_int_equal(hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, NULL, &ids[k]), 0);
		}
		assert_int_equal(hwbp_free_slots(&F.ctx, HWBP_CPU_ALL, NULL, rows[i].type == HWBP_X), 0);
		before = F.ctx;
		memcpy(pbefore, F.percpu, sizeof(pbefore));
		r = rq(0x900000, rows[i].len, rows[i].type);
		r.scope = HWBP_SCOPE_USER;
		if (hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, NULL, &id) != -ENOSPC)
			fail_msg("row %zu (%s): install into a full pool did not fail with ENOSPC", i, rows[i].cpu);
		assert_memory_equal(&before, &F.ctx, sizeof(before));
		assert_memory_equal(pbefore, F.percpu, sizeof(pbefore));
		assert_int_equal(hwbp_remove(&F.ctx, ids[0]), 0);
		assert_int_equal(hwbp_free_slots(&F.ctx, HWBP_CPU_ALL, NULL, rows[i].type == HWBP_X), 1);
		assert_int_equal(hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, NULL, &id), 0);
		/* The glue wrote what the set encodes to, on every CPU. */
		for (unsigned c = 0; c < NCPU; c++)
			assert_memory_equal(&F.hw.hw[c], &F.percpu[c].regs, sizeof(struct hwbp_regs));
	}
}

/* arm64 and powerpc keep separate pools: full watchpoints leave
 * breakpoints free; x86 shares one pool. */
static void test_pools(void **state)
{
	struct hwbp_request w = rq(0x1000, 8, HWBP_W), x = rq(0x2000, 4, HWBP_X);
	int id;

	(void)state;
	setup_ctx("cortex-a57", 1);
	for (int k = 0; k < 4; k++) {
		w.addr = 0x1000 + 0x100 * (uint64_t)k;
		assert_int_equal(hwbp_install(&F.ctx, &w, 0, NULL, &id), 0);
	}
	assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, false), 0);
	assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, true), 6);
	assert_int_equal(hwbp_install(&F.ctx, &x, 0, NULL, &id), 0);

	setup_ctx("x86_64", 1);
	for (int k = 0; k < 3; k++) {
		w.addr = 0x1000 + 0x100 * (uint64_t)k;
		assert_int_equal(hwbp_install(&F.ctx, &w, 0, NULL, &id), 0);
	}
	assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, true), 1);
	x.len = 1;
	assert_int_equal(hwbp_install(&F.ctx, &x, 0, NULL, &id), 0);
	assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, false), 0);
	/* The execute piece sits in DR3 with RW=00 LEN=00 (SDM §17.2.4). */
	assert_true(F.percpu[0].regs.u.x86.dr[3] == 0x2000);
	assert_true(((F.percpu[0].regs.u.x86.dr7 >> 28) & 0xf) == 0);
	assert_true(F.percpu[0].regs.u.x86.dr7 & (1u << 7));

	/* power7 has no execute pool at all. */
	setup_ctx("power7", 1);
	x.len = 4;
	assert_int_equal(hwbp_install(&F.ctx, &x, 0, NULL, &id), -EOPNOTSUPP);
}

/* Identical pieces are shared with a reference count. */
static void test_sharing(void **state)
{
	struct hwbp_request r = rq(0x1000, 8, HWBP_RW);
	int a, b;

	(void)state;
	setup_ctx("x86_64", 2);
	assert_int_equal(hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, NULL, &a), 0);
	assert_int_equal(hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, NULL, &b), 0);
	assert_int_not_equal(a, b);
	assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, false), 3);
	assert_int_equal(F.percpu[0].data[0].refs, 2);
	assert_true(F.percpu[0].data[0].requests == ((1ull << a) | (1ull << b)));
	assert_int_equal(hwbp_remove(&F.ctx, a), 0);
	assert_int_equal(F.percpu[1].data[0].refs, 1);
	assert_true(F.hw.hw[1].u.x86.dr7 & 0x2); /* still armed: G0 */
	assert_int_equal(hwbp_remove(&F.ctx, b), 0);
	assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, false), 4);
	assert_true(F.hw.hw[1].u.x86.dr7 == 0x400);
	/* A different type is a different piece. */
	assert_int_equal(hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, NULL, &a), 0);
	r.type = HWBP_W;
	assert_int_equal(hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, NULL, &b), 0);
	assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, false), 2);
	/* Removing twice, or an unknown id, is -EINVAL. */
	assert_int_equal(hwbp_remove(&F.ctx, b), 0);
	assert_int_equal(hwbp_remove(&F.ctx, b), -EINVAL);
	assert_int_equal(hwbp_remove(&F.ctx, -1), -EINVAL);
	assert_int_equal(hwbp_remove(&F.ctx, HWBP_MAX_REQUESTS), -EINVAL);
}

/* ------------------------------------------------------------------ */
/* Fault injection (issue 7): a glue that wraps the simulator's and    */
/* fails the k-th write_regs or the k-th on_cpu call, for every k.      */
/* ------------------------------------------------------------------ */
enum fault_mode { FAULT_NONE, FAULT_WRITE, FAULT_ON_CPU };

struct fault_glue {
	const struct hwbp_glue *inner;   /* the simulator's glue */
	enum fault_mode mode;
	int k;                           /* index of the call that fails */
	int err;
	int writes, calls;               /* calls seen since arming */
	bool fired;
};

static int fault_write(void *arg, unsigned cpu, const struct hwbp_regs *regs)
{
	struct fault_glue *f = arg;
	int n = f->writes++;

	if (f->mode == FAULT_WRITE && n == f->k) {
		f->fired = true;
		return f->err;
	}
	return f->inner->write_regs(f->inner->arg, cpu, regs);
}

/* A failing on_cpu never runs @fn (the IPI was not delivered). */
static int fault_on_cpu(void *arg, unsigned cpu, int (*fn)(void *), void *fnarg)
{
	struct fault_glue *f = arg;
	int n = f->calls++;

	if (f->mode == FAULT_ON_CPU && n == f->k) {
		f->fired = true;
		return f->err;
	}
	return f->inner->on_cpu(f->inner->arg, cpu, fn, fnarg);
}

enum fop { OP_INSTALL, OP_MODIFY, OP_REMOVE };
enum fplace { PLACE_CPU, PLACE_ALL, PLACE_TASK };

#define FMAXCPU 8
#define FMAXREG 80

struct frig {
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim;
	struct fault_glue fg;
	struct hwbp_glue glue;
	struct hwbp_ctx ctx;
	struct hwbp_slots percpu[FMAXCPU];
	struct hwbp_task task;
	unsigned ncpus;
	int id;                          /* the request the operation acts on */
};

/* Everything the operation could change. */
struct fsnap {
	struct hwbp_reg_nv hw[FMAXCPU][FMAXREG];  /* read back from the simulator */
	int nreg;
	struct hwbp_slots percpu[FMAXCPU];
	struct hwbp_slots task;
	struct hwbp_reqrec req[HWBP_MAX_REQUESTS];
	int freeslots[FMAXCPU + 2][2];            /* cpu -1..n-1, then the task */
};

static void fsnap_take(const struct frig *g, struct fsnap *s)
{
	struct hwbp_regs r;

	memset(s, 0, sizeof(*s));
	/* The names come from hwbp_regs_list(); the values from the
	 * simulator's own register file. */
	hwbp_regs_reset(&g->cpu, &r);
	s->nreg = hwbp_regs_list(&g->cpu, &r, s->hw[0], FMAXREG);
	assert_true(s->nreg > 0 && s->nreg < FMAXREG);
	for (unsigned c = 0; c < g->ncpus; c++)
		for (int i = 0; i < s->nreg; i++) {
			memcpy(s->hw[c][i].name, s->hw[0][i].name, sizeof(s->hw[c][i].name));
			assert_int_equal(hwbp_sim_get_reg(g->sim, c, s->hw[0][i].name,
							  &s->hw[c][i].value), 0);
		}
	memcpy(s->percpu, g->percpu, sizeof(s->percpu[0]) * g->ncpus);
	s->task = g->task.slots;
	memcpy(s->req, g->ctx.req, sizeof(s->req));
	for (int c = -1; c < (int)g->ncpus; c++)
		for (int inst = 0; inst < 2; inst++)
			s->freeslots[c + 1][inst] = hwbp_free_slots(&g->ctx, c, NULL, inst);
	for (int inst = 0; inst < 2; inst++)
		s->freeslots[FMAXCPU + 1][inst] = hwbp_free_slots(&g->ctx, HWBP_CPU_ALL, &g->task, inst);
}

static void fsnap_same(const struct fsnap *a, const struct fsnap *b, unsigned ncpus,
		       const char *what)
{
	for (unsigned c = 0; c < ncpus; c++)
		for (int i = 0; i < a->nreg; i++)
			if (a->hw[c][i].value != b->hw[c][i].value)
				fail_msg("%s: cpu %u %s was 0x%llx, now 0x%llx", what, c,
					 a->hw[c][i].name, (unsigned long long)a->hw[c][i].value,
					 (unsigned long long)b->hw[c][i].value);
	if (memcmp(a->percpu, b->percpu, sizeof(a->percpu[0]) * ncpus))
		fail_msg("%s: per-CPU slot sets changed", what);
	if (memcmp(&a->task, &b->task, sizeof(a->task)))
		fail_msg("%s: the task's slot set changed", what);
	if (memcmp(a->req, b->req, sizeof(a->req)))
		fail_msg("%s: request records changed", what);
	if (memcmp(a->freeslots, b->freeslots, sizeof(a->freeslots)))
		fail_msg("%s: hwbp_free_slots() changed", what);
}

/* The simulator holds exactly what the context's slot sets encode to. */
static void fsim_matches_ctx(const struct frig *g, const char *what)
{
	for (unsigned c = 0; c < g->ncpus; c++) {
		struct hwbp_reg_nv nv[FMAXREG];
		int n = hwbp_regs_list(&g->cpu, &g->percpu[c].regs, nv, FMAXREG);

		assert_true(n > 0);
		for (int i = 0; i < n; i++) {
			uint64_t v;

			assert_int_equal(hwbp_sim_get_reg(g->sim, c, nv[i].name, &v), 0);
			if (v != nv[i].value)
				fail_msg("%s: cpu %u %s: simulator 0x%llx, context 0x%llx", what, c,
					 nv[i].name, (unsigned long long)v,
					 (unsigned long long)nv[i].value);
		}
	}
}

static struct hwbp_request frq(uint64_t addr, uint64_t len, unsigned type, enum hwbp_scope sc)
{
	struct hwbp_request r = { addr, len, type, sc, 0 };

	return r;
}

/* The request an install puts, and the one a modify turns it into. */
static const struct hwbp_request f_target = { 0x5003, 9, HWBP_RW, HWBP_SCOPE_BOTH, 0 };
static const struct hwbp_request f_modified = { 0x7010, 12, HWBP_W, HWBP_SCOPE_USER, 0 };

/*
 * Build the state before the operation, with the glue not yet faulting.
 * Where the pool allows, a keeper request stays on every CPU (it also keeps
 * arm64 MDSCR.MDE/KDE set: the simulator's glue only ever sets those bits,
 * as a kernel does, so they could not return to 0 after a rollback), and a
 * request installed then removed leaves a hole below the target's slots,
 * so that a rollback that re-adds pieces in the first free slots would be
 * caught (it was, in the first version of change_cpus()).
 */
static void frig_setup(struct frig *g, const char *preset, unsigned ncpus,
		       enum fop op, enum fplace place)
{
	struct hwbp_caps caps;
	int err = 0, keep, hole;
	unsigned pool;

	memset(g, 0, sizeof(*g));
	g->ncpus = ncpus;
	assert_int_equal(hwbp_cpu_preset(preset, &g->cpu), 0);
	assert_int_equal(hwbp_caps_get(&g->cpu, &caps), 0);
	g->sim = hwbp_sim_new(&g->cpu, HWBP_SIM_SDM, ncpus, &err);
	assert_non_null(g->sim);
	g->fg.inner = hwbp_sim_glue(g->sim);
	g->glue.write_regs = fault_write;
	g->glue.on_cpu = fault_on_cpu;
	g->glue.arg = &g->fg;
	assert_int_equal(hwbp_ctx_init(&g->ctx, &g->cpu, ncpus, g->percpu, &g->glue), 0);
	assert_int_equal(hwbp_task_init(&g->ctx, &g->task), 0);
	pool = caps.data_slots;
	if (pool >= 3) {
		struct hwbp_request k = frq(0x1000, 8, HWBP_W, HWBP_SCOPE_BOTH);

		assert_int_equal(hwbp_install(&g->ctx, &k, HWBP_CPU_ALL, NULL, &keep), 0);
	}
	hole = -1;
	if (pool >= 2) {
		struct hwbp_request h = frq(0x2000, 8, HWBP_W, HWBP_SCOPE_BOTH);

		assert_int_equal(hwbp_install(&g->ctx, &h, HWBP_CPU_ALL, NULL, &hole), 0);
	}
	g->id = -1;
	if (op != OP_INSTALL)
		assert_int_equal(hwbp_install(&g->ctx, &f_target,
					      place == PLACE_CPU ? (int)ncpus - 1 : -1,
					      place == PLACE_TASK ? &g->task : NULL, &g->id), 0);
	if (hole >= 0)
		assert_int_equal(hwbp_remove(&g->ctx, hole), 0);
	(void)keep;
}

static void frig_free(struct frig *g)
{
	hwbp_sim_free(g->sim);
}

static int frig_run(struct frig *g, enum fop op, enum fplace place)
{
	int cpu = place == PLACE_CPU ? (int)g->ncpus - 1 : -1;

	switch (op) {
	case OP_INSTALL:
		return hwbp_install(&g->ctx, &f_target, cpu,
				    place == PLACE_TASK ? &g->task : NULL, &g->id);
	case OP_MODIFY:
		return hwbp_modify(&g->ctx, g->id, &f_modified);
	case OP_REMOVE:
		return hwbp_remove(&g->ctx, g->id);
	}
	return -EINVAL;
}

/* After a successful operation: the change happened, where it should. */
static void frig_check_done(const struct frig *g, const struct fsnap *before,
			    enum fop op, enum fplace place, const char *what)
{
	const struct hwbp_plan *pl = hwbp_plan_of(&g->ctx, g->id);
	const struct hwbp_request *want = op == OP_MODIFY ? &f_modified : &f_target;

	fsim_matches_ctx(g, what);
	if (op == OP_REMOVE) {
		assert_null(pl);
	} else {
		assert_non_null(pl);
		assert_true(pl->req.addr == want->addr && pl->req.len == want->len);
		assert_int_equal(pl->req.type, want->type);
		assert_int_equal(pl->req.scope, want->scope);
		assert_int_equal(g->ctx.req[g->id].cpu,
				 place == PLACE_CPU ? (int)g->ncpus - 1 : place == PLACE_ALL ? HWBP_CPU_ALL : HWBP_CPU_TASK);
	}
	/* Only the request's place changed. */
	for (unsigned c = 0; c < g->ncpus; c++) {
		bool touched = place == PLACE_ALL || (place == PLACE_CPU && c == g->ncpus - 1);
		bool same = memcmp(&before->percpu[c], &g->percpu[c], sizeof(g->percpu[c])) == 0;

		if (touched == same)
			fail_msg("%s: cpu %u %s", what, c, touched ? "unchanged" : "changed");
	}
	if ((place == PLACE_TASK) == !memcmp(&before->task, &g->task.slots, sizeof(g->task.slots)))
		fail_msg("%s: task slots %s", what, place == PLACE_TASK ? "unchanged" : "changed");
}

/*
 * Issue 7: for every k, fail the k-th glue call of one kind during
 * install / modify / remove; the error reaches the caller and the
 * registers of every CPU, the slot sets, the request records and the free
 * counts are exactly as before.  k runs until the operation completes
 * without reaching the k-th call; then it must have succeeded.
 */
static void test_fault_injection(void **state)
{
	static const struct {
		const char *preset;
		unsigned ncpus;
	} machines[] = {
		{ "x86_64", 4 }, { "x86_64", 8 },
		{ "cortex-a57", 4 }, { "arm64-max16", 8 },
		{ "power9", 4 }, { "power10", 8 },
	};
	static const int errs[] = { -EIO, -EBUSY, -ENODEV, -EAGAIN };
	static const char *const opname[] = { "install", "modify", "remove" };
	static const char *const placename[] = { "cpu", "all", "task" };
	static const char *const modename[] = { "none", "write_regs", "on_cpu" };
	unsigned row = 0, total_k = 0;

	(void)state;
	for (size_t m = 0; m < sizeof(machines) / sizeof(machines[0]); m++)
	for (int op = OP_INSTALL; op <= OP_REMOVE; op++)
	for (int place = PLACE_CPU; place <= PLACE_TASK; place++)
	for (int mode = FAULT_WRITE; mode <= FAULT_ON_CPU; mode++, row++) {
		int err = errs[row % 4], k;
		char what[160];

		for (k = 0;; k++) {
			struct frig g;
			struct fsnap before, after;
			int ret;

			snprintf(what, sizeof(what), "%s/%u %s %s, %s fails at %d (%d)",
				 machines[m].preset, machines[m].ncpus, opname[op],
				 placename[place], modename[mode], k, err);
			assert_true(k <= 64);
			frig_setup(&g, machines[m].preset, machines[m].ncpus, (enum fop)op,
				   (enum fplace)place);
			fsnap_take(&g, &before);
			g.fg.mode = (enum fault_mode)mode;
			g.fg.writes = g.fg.calls = 0;
			g.fg.k = k;
			g.fg.err = err;
			ret = frig_run(&g, (enum fop)op, (enum fplace)place);
			g.fg.mode = FAULT_NONE;
			if (!g.fg.fired) {
				/* Completed before the k-th call: success. */
				if (ret != 0)
					fail_msg("%s: returned %s without a fault", what,
						 hwbp_errno_name(ret));
				frig_check_done(&g, &before, (enum fop)op, (enum fplace)place, what);
				frig_free(&g);
				break;
			}
			if (ret != err)
				fail_msg("%s: returned %s", what, hwbp_errno_name(ret));
			fsnap_take(&g, &after);
			fsnap_same(&before, &after, g.ncpus, what);
			/* The failed call left a usable context: it now succeeds. */
			assert_int_equal(frig_run(&g, (enum fop)op, (enum fplace)place), 0);
			fsim_matches_ctx(&g, what);
			frig_free(&g);
		}
		printf("fault row %2u: %-11s %u CPUs %-7s %-4s %-10s: %d failing k, success at k = %d\n",
		       row, machines[m].preset, machines[m].ncpus, opname[op], placename[place],
		       modename[mode], k, k);
		total_k += (unsigned)k;
		/* Every CPU-wide call went through the glue once per CPU (and
		 * failed at each position), so cross-CPU calls were covered. */
		if (place == PLACE_ALL && k < (int)machines[m].ncpus)
			fail_msg("row %u: only %d fault positions for %u CPUs", row, k,
				 machines[m].ncpus);
		if (place == PLACE_CPU && k != 1)
			fail_msg("row %u: one-CPU %s made %d glue calls", row, opname[op], k);
		/* A task's registers are written at switch-in: no glue call. */
		if (place == PLACE_TASK && k != 0)
			fail_msg("row %u: task %s called the glue", row, opname[op]);
	}
	printf("fault injection: %u rows, %u failing positions checked\n", row, total_k);
}

/* hwbp_modify: keeps the id, frees its own slots first, all-or-nothing on
 * plan errors. */
static void test_modify(void **state)
{
	struct hwbp_request r = rq(0x1001, 7, HWBP_W), bad;
	struct hwbp_ctx before;
	struct hwbp_slots pb[NCPU];
	struct hwbp_task t;
	int id, other, tid;

	(void)state;
	setup_ctx("x86_64", NCPU);
	/* 7 bytes at 0x1001 exactly: 1 + 2 + 4 = three DRs. */
	r.flags = HWBP_REQ_EXACT;
	assert_int_equal(hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, NULL, &id), 0);
	assert_int_equal(hwbp_plan_of(&F.ctx, id)->n, 3);
	bad = rq(0x9000, 1, HWBP_X);
	assert_int_equal(hwbp_install(&F.ctx, &bad, HWBP_CPU_ALL, NULL, &other), 0);
	assert_int_equal(hwbp_free_slots(&F.ctx, HWBP_CPU_ALL, NULL, false), 0);
	/* Another three-piece region fits in the slots the request holds. */
	r.addr = 0x2001;
	assert_int_equal(hwbp_modify(&F.ctx, id, &r), 0);
	assert_true(hwbp_plan_of(&F.ctx, id)->req.addr == 0x2001);
	assert_int_equal(hwbp_plan_of(&F.ctx, id)->n, 3);
	for (unsigned c = 0; c < NCPU; c++)
		assert_memory_equal(&F.hw.hw[c], &F.percpu[c].regs, sizeof(struct hwbp_regs));

	/* Errors leave everything as it was. */
	before = F.ctx;
	memcpy(pb, F.percpu, sizeof(pb));
	bad = rq(0x3001, 15, HWBP_W);      /* 1+2+4+8: four exact pieces */
	bad.flags = HWBP_REQ_EXACT;
	assert_int_equal(hwbp_modify(&F.ctx, id, &bad), -ENOSPC);
	bad = rq(0x3000, 0, HWBP_W);
	assert_int_equal(hwbp_modify(&F.ctx, id, &bad), -EINVAL);
	bad = rq(0x3000, 4, HWBP_R);       /* x86 has no read-only */
	assert_int_equal(hwbp_modify(&F.ctx, id, &bad), -EOPNOTSUPP);
	assert_int_equal(hwbp_modify(&F.ctx, id, NULL), -EINVAL);
	assert_int_equal(hwbp_modify(NULL, id, &r), -EINVAL);
	assert_int_equal(hwbp_modify(&F.ctx, -1, &r), -EINVAL);
	assert_int_equal(hwbp_modify(&F.ctx, HWBP_MAX_REQUESTS, &r), -EINVAL);
	assert_int_equal(hwbp_modify(&F.ctx, 40, &r), -EINVAL);   /* not live */
	assert_memory_equal(&before, &F.ctx, sizeof(before));
	assert_memory_equal(pb, F.percpu, sizeof(pb));
	/* Without EXACT the same region is enlarged into the slots it has. */
	bad.addr = 0x3001;
	bad.len = 15;
	bad.type = HWBP_W;
	assert_int_equal(hwbp_modify(&F.ctx, id, &bad), 0);
	assert_true(hwbp_plan_of(&F.ctx, id)->enlarged);

	/* Type change across pools on arm64: a watchpoint becomes a
	 * breakpoint; the watchpoint slot is freed. */
	setup_ctx("cortex-a57", 2);
	r = rq(0x4000, 8, HWBP_RW);
	assert_int_equal(hwbp_install(&F.ctx, &r, 1, NULL, &id), 0);
	assert_int_equal(hwbp_free_slots(&F.ctx, 1, NULL, false), 3);
	r = rq(0x4000, 4, HWBP_X);
	assert_int_equal(hwbp_modify(&F.ctx, id, &r), 0);
	assert_int_equal(hwbp_free_slots(&F.ctx, 1, NULL, false), 4);
	assert_int_equal(hwbp_free_slots(&F.ctx, 1, NULL, true), 5);
	assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, true), 6);
	assert_true(hwbp_plan_of(&F.ctx, id)->inst);
	assert_int_equal(F.ctx.req[id].cpu, 1);
	assert_memory_equal(&F.hw.hw[1], &F.percpu[1].regs, sizeof(struct hwbp_regs));

	/* A task's request stays in the task. */
	assert_int_equal(hwbp_task_init(&F.ctx, &t), 0);
	r = rq(0x5000, 8, HWBP_W);
	assert_int_equal(hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, &t, &tid), 0);
	r = rq(0x6000, 4, HWBP_RW);
	assert_int_equal(hwbp_modify(&F.ctx, tid, &r), 0);
	assert_true(F.ctx.req[tid].task == &t);
	assert_true(t.slots.data[0].piece.addr == 0x6000);
	assert_int_equal(hwbp_free_slots(&F.ctx, HWBP_CPU_ALL, &t, false), 3);
	assert_int_equal(hwbp_remove(&F.ctx, tid), 0);
	assert_int_equal(hwbp_task_fini(&F.ctx, &t), 0);
}

/* Per-CPU requests touch only their CPU. */
static void test_per_cpu(void **state)
{
	struct hwbp_request r = rq(0x1000, 4, HWBP_W);
	int id;

	(void)state;
	setup_ctx("x86_64", NCPU);
	for (int k = 0; k < 4; k++) {
		assert_int_equal(hwbp_install(&F.ctx, &r, 2, NULL, &id), 0);
		r.addr += 0x10;
	}
	assert_int_equal(hwbp_free_slots(&F.ctx, 2, NULL, false), 0);
	assert_int_equal(hwbp_free_slots(&F.ctx, 1, NULL, false), 4);
	assert_int_equal(hwbp_free_slots(&F.ctx, HWBP_CPU_ALL, NULL, false), 0);
	assert_true(F.hw.hw[1].u.x86.dr7 == 0x400);
	assert_int_equal(hwbp_install(&F.ctx, &r, 1, NULL, &id), 0);
	assert_int_equal(hwbp_install(&F.ctx, &r, NCPU, NULL, &id), -EINVAL);
	assert_int_equal(hwbp_install(&F.ctx, &r, -3, NULL, &id), -EINVAL);
	assert_int_equal(hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, NULL, &id), -ENOSPC);
}

/* Tasks: their slots count against every CPU; their registers merge into
 * the CPU's free slots at switch-in, and decoding maps them back. */
static void test_tasks(void **state)
{
	struct hwbp_task t1, t2, stranger;
	struct hwbp_request r = rq(0x1000, 8, HWBP_RW);
	struct hwbp_regs regs;
	struct hwbp_status st;
	struct hwbp_hit hit;
	int c0, c1, ta, tb, id;

	(void)state;
	setup_ctx("x86_64", 2);
	assert_int_equal(hwbp_task_init(&F.ctx, &t1), 0);
	assert_int_equal(hwbp_task_init(&F.ctx, &t1), -EBUSY);
	assert_int_equal(hwbp_task_init(&F.ctx, &t2), 0);
	assert_int_equal(hwbp_install(&F.ctx, &r, 0, NULL, &c0), 0);
	r.addr = 0x2000;
	assert_int_equal(hwbp_install(&F.ctx, &r, 1, NULL, &c1), 0);
	r.addr = 0x3000;
	assert_int_equal(hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, &t1, &ta), 0);
	r.addr = 0x3100;
	assert_int_equal(hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, &t1, &tb), 0);
	/* CPU 0: 1 own + 2 of the busiest task = 3; one left for CPU 0, and
	 * one left for t1 (4 - max CPU 1 - t1 2). */
	assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, false), 1);
	assert_int_equal(hwbp_free_slots(&F.ctx, HWBP_CPU_ALL, &t1, false), 1);
	assert_int_equal(hwbp_free_slots(&F.ctx, HWBP_CPU_ALL, &t2, false), 3);
	/* t1's pieces land in DR1 and DR2 on CPU 0 (DR0 is the CPU's). */
	assert_int_equal(hwbp_task_regs(&F.ctx, 0, &t1, &regs), 0);
	assert_true(regs.u.x86.dr[0] == 0x1000);
	assert_true(regs.u.x86.dr[1] == 0x3000);
	assert_true(regs.u.x86.dr[2] == 0x3100);
	/* A #DB with DR6.B2 while t1 runs on CPU 0 is t1's second request. */
	memset(&st, 0, sizeof(st));
	st.u.x86.dr6 = 0xffff0ff0 | 0x4;
	assert_int_equal(hwbp_decode(&F.ctx, 0, &t1, &st, NULL, &hit), 0);
	assert_true(hit.requests == (1ull << tb));
	st.u.x86.dr6 = 0xffff0ff0 | 0x1;
	assert_int_equal(hwbp_decode(&F.ctx, 0, &t1, &st, NULL, &hit), 0);
	assert_true(hit.requests == (1ull << c0));
	/* A task with requests cannot leave; a stranger is not registered. */
	assert_int_equal(hwbp_task_fini(&F.ctx, &t1), -EBUSY);
	assert_int_equal(hwbp_task_fini(&F.ctx, &stranger), -EINVAL);
	assert_int_equal(hwbp_task_regs(&F.ctx, 0, &stranger, &regs), -EINVAL);
	assert_int_equal(hwbp_install(&F.ctx, &r, HWBP_CPU_ALL, &stranger, &id), -EINVAL);
	assert_int_equal(hwbp_remove(&F.ctx, ta), 0);
	assert_int_equal(hwbp_remove(&F.ctx, tb), 0);
	assert_int_equal(hwbp_task_fini(&F.ctx, &t1), 0);
	assert_int_equal(hwbp_task_fini(&F.ctx, &t2), 0);
	assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, false), 3);
	(void)c1;
}

/* Decoding: filtering of extra bytes, widened reads, scopes. */
static void test_decode_filter(void **state)
{
	struct hwbp_request r = rq(0x1001, 3, HWBP_W);
	struct hwbp_status st;
	struct hwbp_access acc = { 0, 0, 0, -1 };
	struct hwbp_hit hit;
	int id, idr;

	(void)state;
	setup_ctx("x86_64", 1);
	/* 3 bytes at 0x1001 need two DRs exactly (1 + 2); with only one
	 * free slot the plan is enlarged to the 4-byte block at 0x1000. */
	for (int k = 0; k < 3; k++) {
		struct hwbp_request f = rq(0x8000 + 0x10 * (uint64_t)k, 1, HWBP_W);

		assert_int_equal(hwbp_install(&F.ctx, &f, 0, NULL, &id), 0);
	}
	assert_int_equal(hwbp_install(&F.ctx, &r, 0, NULL, &id), 0);
	assert_true(hwbp_plan_of(&F.ctx, id)->enlarged);
	assert_true(hwbp_plan_of(&F.ctx, id)->extra_bytes == 1);
	memset(&st, 0, sizeof(st));
	st.u.x86.dr6 = 0xffff0ff0 | 0x8;
	/* Access to the extra byte 0x1000: the CPU traps, hwbp filters. */
	acc.addr = 0x1000;
	acc.size = 1;
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), 0);
	assert_true(hit.filtered);
	assert_true(hit.requests == 0);
	assert_true(hit.data_slots == 0x8);
	/* A 2-byte access at 0x0fff touches 0x1000 only: filtered too. */
	acc.addr = 0xfff;
	acc.size = 2;
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), 0);
	assert_true(hit.filtered);
	/* 0x1002 is the request's. */
	acc.addr = 0x1002;
	acc.size = 1;
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), 0);
	assert_false(hit.filtered);
	assert_true(hit.requests == (1ull << id));
	/* Without access information nothing can be filtered. */
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, NULL, &hit), 0);
	assert_true(hit.requests == (1ull << id));

	/* Widened x86 read: writes dropped when the kind is known, reported
	 * with kind unknown when it is not. */
	setup_ctx("x86_64", 1);
	r = rq(0x2000, 4, HWBP_R);
	r.flags = HWBP_REQ_WIDEN;
	assert_int_equal(hwbp_install(&F.ctx, &r, 0, NULL, &idr), 0);
	st.u.x86.dr6 = 0xffff0ff0 | 0x1;
	acc.addr = 0x2000;
	acc.size = 4;
	acc.kind = HWBP_W;
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), 0);
	assert_true(hit.filtered);
	acc.kind = HWBP_R;
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), 0);
	assert_true(hit.requests == (1ull << idr));
	assert_int_equal(hit.kind, HWBP_R);
	acc.kind = 0;
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), 0);
	assert_true(hit.requests == (1ull << idr));
	assert_int_equal(hit.kind, 0);

	/* Scope: x86 has no privilege filter; a user request is dropped for
	 * a kernel-mode access when the privilege is known. */
	setup_ctx("x86_64", 1);
	r = rq(0x3000, 8, HWBP_RW);
	r.scope = HWBP_SCOPE_USER;
	assert_int_equal(hwbp_install(&F.ctx, &r, 0, NULL, &id), 0);
	acc.addr = 0x3000;
	acc.size = 8;
	acc.kind = HWBP_R;
	acc.priv = 0;
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), 0);
	assert_true(hit.filtered);
	acc.priv = 1;
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), 0);
	assert_true(hit.requests == (1ull << id));

	/* The kind must be the request's: x86 DR6 may name an execute slot
	 * and a data slot at once (both B bits), and a fetch is no access
	 * of the RW watch, nor a load the fetch of the execute breakpoint
	 * (found by tests/fuzz/fuzz_decode.c). */
	{
		struct hwbp_request x = rq(0x3000, 1, HWBP_X);
		int idx;

		assert_int_equal(hwbp_install(&F.ctx, &x, 0, NULL, &idx), 0);
		st.u.x86.dr6 = 0xffff0ff0 | 0x3;
		acc.addr = 0x3000;
		acc.size = 1;
		acc.priv = 1;
		acc.kind = HWBP_X;
		assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), 0);
		assert_true(hit.requests == (1ull << idx));
		acc.kind = HWBP_R;
		assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), 0);
		assert_true(hit.requests == (1ull << id));
		acc.kind = 0;   /* unknown: both stay */
		assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), 0);
		assert_true(hit.requests == ((1ull << id) | (1ull << idx)));
	}
	/* Not a debug event at all. */
	st.u.x86.dr6 = 0xffff0ff0;
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), -EINVAL);
	assert_int_equal(hwbp_decode(&F.ctx, 5, NULL, &st, &acc, &hit), -EINVAL);
}

/* powerpc: the DAR filters hits on a doubleword's neighbours. */
static void test_decode_ppc(void **state)
{
	struct hwbp_request r = rq(0x1004, 2, HWBP_RW);
	struct hwbp_status st;
	struct hwbp_access acc = { 0x1000, 4, HWBP_W, -1 };
	struct hwbp_hit hit;
	int id;

	(void)state;
	setup_ctx("power9", 1);
	r.scope = HWBP_SCOPE_KERNEL;
	r.addr = 0xc000000000001004ull;
	assert_int_equal(hwbp_install(&F.ctx, &r, 0, NULL, &id), 0);
	assert_false(hwbp_plan_of(&F.ctx, id)->exact);
	memset(&st, 0, sizeof(st));
	st.u.ppc.vector = 0x300;
	st.u.ppc.dsisr = 0x00400000 | 0x02000000; /* DABR match, store */
	st.u.ppc.dar = 0xc000000000001000ull;
	acc.addr = st.u.ppc.dar;
	/* A 4-byte store at 0x..1000: same doubleword, not the request. */
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, &acc, &hit), 0);
	assert_true(hit.filtered);
	assert_int_equal(hit.kind, HWBP_W);
	/* Without access size, a DAR past the request is still filtered. */
	st.u.ppc.dar = 0xc000000000001006ull;
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, NULL, &hit), 0);
	assert_true(hit.filtered);
	st.u.ppc.dar = 0xc000000000001005ull;
	assert_int_equal(hwbp_decode(&F.ctx, 0, NULL, &st, NULL, &hit), 0);
	assert_true(hit.requests == (1ull << id));
}

static void test_request_limit(void **state)
{
	struct hwbp_request r = rq(0x1000, 8, HWBP_W);
	int id;

	(void)state;
	setup_ctx("x86_64", 1);
	/* Identical requests share one slot; the id table is the limit. */
	for (int k = 0; k < HWBP_MAX_REQUESTS; k++)
		assert_int_equal(hwbp_install(&F.ctx, &r, 0, NULL, &id), 0);
	assert_int_equal(hwbp_install(&F.ctx, &r, 0, NULL, &id), -ENOSPC);
	assert_int_equal(F.percpu[0].data[0].refs, HWBP_MAX_REQUESTS);
}

/*
 * -ENOSPC means "fits once slots are free", -ERANGE "never fits this CPU",
 * whatever is free now: with the pool full, a request no pool could hold
 * is still -ERANGE, one the empty pool holds -ENOSPC, and nothing changes.
 */
static void test_full_pool_errors(void **state)
{
	static const struct {
		const char *preset;
		uint64_t addr, len;
		unsigned type, flags;
		int when_empty, when_full;
	} rows[] = {
		/* 24 unaligned bytes: 4 doublewords, enlarged into 4 slots. */
		{ "x86_64", 0x1001, 24, HWBP_W, 0, 0, -ENOSPC },
		/* 32 unaligned bytes touch 5 doublewords: no 4-slot plan. */
		{ "x86_64", 0x1001, 32, HWBP_W, 0, -ERANGE, -ERANGE },
		{ "x86_64", 0x1001, 4096, HWBP_W, 0, -ERANGE, -ERANGE },
		{ "x86_64", 0x1000, 16, HWBP_RW, HWBP_REQ_EXACT, 0, -ENOSPC },
		/* 1 + 2 + 4 + 4 + 2 bytes: 5 exact pieces, never 4. */
		{ "x86_64", 0x1001, 13, HWBP_RW, HWBP_REQ_EXACT, -ERANGE, -ERANGE },
		{ "x86_64", 0x1000, 4, HWBP_R, 0, -EOPNOTSUPP, -EOPNOTSUPP },
		{ "power9", 0x1000, 1024, HWBP_W, 0, -ERANGE, -ERANGE },
		{ "power9", 0x1000, 64, HWBP_W, 0, 0, -ENOSPC },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct hwbp_request r = rq(rows[i].addr, rows[i].len, rows[i].type);
		struct hwbp_caps caps;
		int id, ret;

		r.flags = rows[i].flags;
		setup_ctx(rows[i].preset, 1);
		assert_int_equal(hwbp_caps_get(&F.cpu, &caps), 0);
		ret = hwbp_install(&F.ctx, &r, 0, NULL, &id);
		if (ret != rows[i].when_empty)
			print_message("row %zu: empty pool gives %d\n", i, ret);
		assert_int_equal(ret, rows[i].when_empty);
		if (ret == 0)
			assert_int_equal(hwbp_remove(&F.ctx, id), 0);
		/* Fill the pool: one distinct 1-byte watch per slot. */
		for (unsigned k = 0; k < caps.data_slots; k++) {
			struct hwbp_request fill = rq(0x100000 + 0x1000 * k, 1, HWBP_W);

			assert_int_equal(hwbp_install(&F.ctx, &fill, 0, NULL, &id), 0);
		}
		assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, false), 0);
		{
			struct hwbp_slots before = F.percpu[0];

			assert_int_equal(hwbp_install(&F.ctx, &r, 0, NULL, &id), rows[i].when_full);
			assert_memory_equal(&before, &F.percpu[0], sizeof(before));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_fill_free),
		cmocka_unit_test(test_pools),
		cmocka_unit_test(test_sharing),
		cmocka_unit_test(test_fault_injection),
		cmocka_unit_test(test_modify),
		cmocka_unit_test(test_per_cpu),
		cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_decode_filter),
		cmocka_unit_test(test_decode_ppc),
		cmocka_unit_test(test_request_limit),
		cmocka_unit_test(test_full_pool_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
