/* SPDX-License-Identifier: MIT */
/*
 * Slot accounting, installation through a glue, tasks and hit dispatch.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <hwbp/hwbp.h>

#define NCPU 4

/* A test glue: "hardware" registers per CPU, and a write that fails on the
 * k-th call when asked to. */
struct fake_hw {
	struct hwbp_regs hw[NCPU];
	int writes;
	int fail_at;      /* fail the write with this index (-1: never) */
	int fail_err;
	int on_cpu_calls;
};

static int fake_write(void *arg, unsigned cpu, const struct hwbp_regs *regs)
{
	struct fake_hw *f = arg;
	int n = f->writes++;

	if (n == f->fail_at)
		return f->fail_err;
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
	F.hw.fail_at = -1;
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
			assert_int_equal(hwbp_install(&F.ctx, &r, -1, NULL, &ids[k]), 0);
		}
		assert_int_equal(hwbp_free_slots(&F.ctx, -1, NULL, rows[i].type == HWBP_X), 0);
		before = F.ctx;
		memcpy(pbefore, F.percpu, sizeof(pbefore));
		r = rq(0x900000, rows[i].len, rows[i].type);
		r.scope = HWBP_SCOPE_USER;
		if (hwbp_install(&F.ctx, &r, -1, NULL, &id) != -ENOSPC)
			fail_msg("row %zu (%s): install into a full pool did not fail with ENOSPC", i, rows[i].cpu);
		assert_memory_equal(&before, &F.ctx, sizeof(before));
		assert_memory_equal(pbefore, F.percpu, sizeof(pbefore));
		assert_int_equal(hwbp_remove(&F.ctx, ids[0]), 0);
		assert_int_equal(hwbp_free_slots(&F.ctx, -1, NULL, rows[i].type == HWBP_X), 1);
		assert_int_equal(hwbp_install(&F.ctx, &r, -1, NULL, &id), 0);
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
	assert_int_equal(hwbp_install(&F.ctx, &r, -1, NULL, &a), 0);
	assert_int_equal(hwbp_install(&F.ctx, &r, -1, NULL, &b), 0);
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
	assert_int_equal(hwbp_install(&F.ctx, &r, -1, NULL, &a), 0);
	r.type = HWBP_W;
	assert_int_equal(hwbp_install(&F.ctx, &r, -1, NULL, &b), 0);
	assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, false), 2);
	/* Removing twice, or an unknown id, is -EINVAL. */
	assert_int_equal(hwbp_remove(&F.ctx, b), 0);
	assert_int_equal(hwbp_remove(&F.ctx, b), -EINVAL);
	assert_int_equal(hwbp_remove(&F.ctx, -1), -EINVAL);
	assert_int_equal(hwbp_remove(&F.ctx, HWBP_MAX_REQUESTS), -EINVAL);
}

/*
 * All-or-nothing: a glue write failing at every position k during install
 * and during remove leaves every CPU's registers and the accounting exactly
 * as before, and the error reaches the caller.
 */
static void test_all_or_nothing(void **state)
{
	static const char *const cpus[] = { "x86_64", "cortex-a57", "power10" };

	(void)state;
	for (size_t ci = 0; ci < 3; ci++) {
		for (int k = 0; k < NCPU; k++) {
			struct hwbp_request base = rq(0x4000, 8, HWBP_W), r = rq(0x5003, 9, HWBP_RW);
			struct hwbp_ctx before;
			struct hwbp_slots pb[NCPU];
			struct hwbp_regs hb[NCPU];
			int id0, id;

			setup_ctx(cpus[ci], NCPU);
			assert_int_equal(hwbp_install(&F.ctx, &base, -1, NULL, &id0), 0);
			before = F.ctx;
			memcpy(pb, F.percpu, sizeof(pb));
			memcpy(hb, F.hw.hw, sizeof(hb));

			F.hw.writes = 0;
			F.hw.fail_at = k;
			F.hw.fail_err = -EIO;
			assert_int_equal(hwbp_install(&F.ctx, &r, -1, NULL, &id), -EIO);
			assert_memory_equal(&before, &F.ctx, sizeof(before));
			assert_memory_equal(pb, F.percpu, sizeof(pb));
			assert_memory_equal(hb, F.hw.hw, sizeof(hb));

			/* And removal. */
			F.hw.fail_at = -1;
			assert_int_equal(hwbp_install(&F.ctx, &r, -1, NULL, &id), 0);
			before = F.ctx;
			memcpy(pb, F.percpu, sizeof(pb));
			memcpy(hb, F.hw.hw, sizeof(hb));
			F.hw.writes = 0;
			F.hw.fail_at = k;
			F.hw.fail_err = -EBUSY;
			assert_int_equal(hwbp_remove(&F.ctx, id), -EBUSY);
			assert_memory_equal(&before, &F.ctx, sizeof(before));
			assert_memory_equal(pb, F.percpu, sizeof(pb));
			assert_memory_equal(hb, F.hw.hw, sizeof(hb));
			F.hw.fail_at = -1;
			assert_int_equal(hwbp_remove(&F.ctx, id), 0);
		}
	}
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
	assert_int_equal(hwbp_free_slots(&F.ctx, -1, NULL, false), 0);
	assert_true(F.hw.hw[1].u.x86.dr7 == 0x400);
	assert_int_equal(hwbp_install(&F.ctx, &r, 1, NULL, &id), 0);
	assert_int_equal(hwbp_install(&F.ctx, &r, NCPU, NULL, &id), -EINVAL);
	assert_int_equal(hwbp_install(&F.ctx, &r, -3, NULL, &id), -EINVAL);
	assert_int_equal(hwbp_install(&F.ctx, &r, -1, NULL, &id), -ENOSPC);
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
	assert_int_equal(hwbp_install(&F.ctx, &r, -1, &t1, &ta), 0);
	r.addr = 0x3100;
	assert_int_equal(hwbp_install(&F.ctx, &r, -1, &t1, &tb), 0);
	/* CPU 0: 1 own + 2 of the busiest task = 3; one left for CPU 0, and
	 * one left for t1 (4 - max CPU 1 - t1 2). */
	assert_int_equal(hwbp_free_slots(&F.ctx, 0, NULL, false), 1);
	assert_int_equal(hwbp_free_slots(&F.ctx, -1, &t1, false), 1);
	assert_int_equal(hwbp_free_slots(&F.ctx, -1, &t2, false), 3);
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
	assert_int_equal(hwbp_install(&F.ctx, &r, -1, &stranger, &id), -EINVAL);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_fill_free),
		cmocka_unit_test(test_pools),
		cmocka_unit_test(test_sharing),
		cmocka_unit_test(test_all_or_nothing),
		cmocka_unit_test(test_per_cpu),
		cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_decode_filter),
		cmocka_unit_test(test_decode_ppc),
		cmocka_unit_test(test_request_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
