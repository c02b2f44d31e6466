/* SPDX-License-Identifier: MIT */
/*
 * The simulator engine: argument checks, the glue, the quirk table, the
 * table of models (each preset's model, and the cache block its `zero`
 * stores), and the property that the precomputed filter never changes a result: for random
 * requests armed through the generic API on every preset, and random
 * accesses at and around them, the filtered hot path and the model called
 * unconditionally agree exactly.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"

static uint64_t seed = 12345;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static void test_args(void **state)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim;
	struct hwbp_sim_result r;
	struct hwbp_sim_access a = { 0x1000, 4, HWBP_SIM_READ };
	uint64_t v;
	int err = 0;

	(void)state;
	hwbp_cpu_preset("x86_64", &cpu);
	assert_null(hwbp_sim_new(NULL, HWBP_SIM_SDM, 1, &err));
	assert_int_equal(err, -EINVAL);
	assert_null(hwbp_sim_new(&cpu, HWBP_SIM_SDM, 0, &err));
	assert_null(hwbp_sim_new(&cpu, HWBP_SIM_SDM, HWBP_SIM_MAX_CPUS + 1, &err));
	assert_null(hwbp_sim_new(&cpu, (enum hwbp_sim_profile)7, 1, &err));
	assert_int_equal(err, -EINVAL);
	sim = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 2, &err);
	assert_non_null(sim);
	assert_int_equal(err, 0);
	assert_int_equal(hwbp_sim_access(sim, 2, &a, &r), -EINVAL);
	a.size = 0;
	assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), -EINVAL);
	a.size = 65;
	assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), -EINVAL);
	a.size = 4;
	a.op = HWBP_SIM_STI + 1;
	assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), -EINVAL);
	assert_int_equal(hwbp_sim_set_reg(sim, 5, "dr7", 0, &r), -EINVAL);
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "dbgwcr0", 0, &r), -ENOENT);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "nosuch", &v), -ENOENT);
	assert_int_equal(hwbp_sim_mode(sim, 0, "nosuch", 1), -ENOENT);
	assert_int_equal(hwbp_sim_resume(sim, 3, &r), -EINVAL);
	assert_int_equal(hwbp_sim_priv(sim, 3), -EINVAL);
	assert_int_equal((int)hwbp_sim_run(sim, 3, &a, 1), 0);
	hwbp_sim_free(sim);
	hwbp_sim_free(NULL);
	assert_string_equal(hwbp_sim_class_name(HWBP_SIM_DSI), "dsi");
	assert_string_equal(hwbp_sim_class_name(HWBP_SIM_WATCHPOINT), "watchpoint");
}

/* Every row of the profile table is complete. */
static void test_quirk_table(void **state)
{
	unsigned n = 0;

	(void)state;
	for (const struct hwbp_sim_quirk *q; (q = hwbp_sim_quirk(n)); n++) {
		assert_non_null(q->id);
		assert_true(strlen(q->sdm) > 0 && strlen(q->qemu) > 0 && strlen(q->evidence) > 0);
		assert_true(strcmp(q->profile, "qemu") == 0 || strcmp(q->profile, "linux") == 0);
		/* qemu rows first, then linux rows (model.h's numbering) */
		assert_int_equal(strcmp(q->profile, "linux") == 0, n >= HWBPI_Q_QEMU_COUNT);
		assert_true(strcmp(q->arch, "x86") == 0 || strcmp(q->arch, "arm64") == 0 ||
			    strcmp(q->arch, "powerpc") == 0 || strcmp(q->arch, "riscv") == 0);
	}
	assert_int_equal(n, HWBPI_Q_COUNT);
	assert_null(hwbp_sim_quirk(n));
}

/* Debug exceptions must be possible before requests can fire. */
static void enable_debug(struct hwbp_sim *sim, const struct hwbp_cpu *cpu, unsigned ncpu)
{
	struct hwbp_sim_result r;

	if (cpu->arch != HWBP_ARCH_ARM64)
		return;
	for (unsigned c = 0; c < ncpu; c++) {
		assert_int_equal(hwbp_sim_set_reg(sim, c, "oslar", 0, &r), 0);
		assert_int_equal(hwbp_sim_set_reg(sim, c, "daif_d", 0, &r), 0);
	}
}

static void same_result(const struct hwbp_sim_result *x, const struct hwbp_sim_result *y,
			const char *cpu, uint64_t addr, uint32_t size, uint32_t op)
{
	if (x->cls != y->cls || x->timing != y->timing || x->data_slots != y->data_slots ||
	    x->inst_slots != y->inst_slots || x->nstatus != y->nstatus ||
	    x->addr_known != y->addr_known || (x->addr_known && x->addr != y->addr))
		fail_msg("%s: access 0x%llx/%u op %u: filtered path %s/%x, model %s/%x", cpu,
			 (unsigned long long)addr, size, op, hwbp_sim_class_name(x->cls),
			 x->data_slots, hwbp_sim_class_name(y->cls), y->data_slots);
	for (unsigned i = 0; i < x->nstatus; i++)
		assert_true(x->status[i].value == y->status[i].value);
}

static void test_filter_is_exact(void **state)
{
	static const char *const presets[] = {
		"x86_64", "i386", "cortex-a57", "arm64-max16", "power7", "power9", "power10",
	};
	static const unsigned types[] = { HWBP_W, HWBP_RW, HWBP_R };
	unsigned compared = 0, fired = 0;

	(void)state;
	for (size_t p = 0; p < sizeof(presets) / sizeof(presets[0]); p++) {
		for (int profile = 0; profile < 2; profile++) {
			for (int round = 0; round < 40; round++) {
				struct hwbp_cpu cpu;
				struct hwbp_sim *a, *b;
				static struct hwbp_ctx ca, cb;
				static struct hwbp_slots pa[1], pb[1];
				uint64_t base = 0x10000000 + (rnd() % 4096);
				int err, id;

				hwbp_cpu_preset(presets[p], &cpu);
				a = hwbp_sim_new(&cpu, (enum hwbp_sim_profile)profile, 1, &err);
				b = hwbp_sim_new(&cpu, (enum hwbp_sim_profile)profile, 1, &err);
				assert_non_null(a);
				assert_non_null(b);
				enable_debug(a, &cpu, 1);
				enable_debug(b, &cpu, 1);
				assert_int_equal(hwbp_ctx_init(&ca, &cpu, 1, pa, hwbp_sim_glue(a)), 0);
				assert_int_equal(hwbp_ctx_init(&cb, &cpu, 1, pb, hwbp_sim_glue(b)), 0);
				for (int k = 0; k < 3; k++) {
					struct hwbp_request q = { base + rnd() % 256, 1 + rnd() % 24,
								  types[rnd() % 3], HWBP_SCOPE_BOTH,
								  HWBP_REQ_WIDEN };

					/* Both or neither: the same request on the same model. */
					assert_int_equal(hwbp_install(&ca, &q, HWBP_CPU_ALL, NULL, &id),
							 hwbp_install(&cb, &q, HWBP_CPU_ALL, NULL, &id));
				}
				for (int i = 0; i < 400; i++) {
					struct hwbp_sim_access acc;
					struct hwbp_sim_result x, y;

					acc.addr = base - 64 + rnd() % 512;
					acc.size = 1u << (rnd() % 4);
					acc.op = (rnd() & 1) ? HWBP_SIM_READ : HWBP_SIM_WRITE;
					if (i % 50 == 0)
						acc.addr = base + 0x100000; /* far */
					assert_int_equal(hwbp_sim_access(a, 0, &acc, &x), 0);
					assert_int_equal(hwbpi_sim_access_unfiltered(b, 0, &acc, &y), 0);
					same_result(&x, &y, presets[p], acc.addr, acc.size, acc.op);
					if (x.cls != HWBP_SIM_NONE) {
						fired++;
						hwbp_sim_resume(a, 0, &x);
						hwbp_sim_resume(b, 0, &y);
					}
					compared++;
				}
				hwbp_sim_free(a);
				hwbp_sim_free(b);
			}
		}
	}
	assert_true(compared == 7 * 2 * 40 * 400);
	/* The comparison means something only if the models do fire. */
	assert_true(fired > compared / 50);
}

/*
 * hwbp_sim_run() picks one of several hand-written loops from a sample of
 * the stream; whichever it picks, it must count exactly the exceptions
 * that the model, called on every access, raises.  Streams below, above,
 * among and across the slots, with execute and I/O ops mixed in.
 */
static void test_run_equals_model(void **state)
{
	static const char *const presets[] = { "x86_64", "cortex-a57", "power10" };
	static struct hwbp_sim_access s[4096];
	unsigned checked = 0;

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		for (int shape = 0; shape < 5; shape++) {
			struct hwbp_cpu cpu;
			struct hwbp_sim *a, *b;
			static struct hwbp_ctx ca, cb;
			static struct hwbp_slots pa[1], pb[1];
			uint64_t base = 0x10000000, lo, span;
			size_t want = 0, got;
			int err, id;

			hwbp_cpu_preset(presets[p], &cpu);
			a = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 1, &err);
			b = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 1, &err);
			enable_debug(a, &cpu, 1);
			enable_debug(b, &cpu, 1);
			hwbp_ctx_init(&ca, &cpu, 1, pa, hwbp_sim_glue(a));
			hwbp_ctx_init(&cb, &cpu, 1, pb, hwbp_sim_glue(b));
			for (int k = 0; k < 2; k++) {
				struct hwbp_request q = { base + 0x1000 + 0x200 * (uint64_t)k, 16,
							  HWBP_RW, HWBP_SCOPE_BOTH, 0 };

				assert_int_equal(hwbp_install(&ca, &q, HWBP_CPU_ALL, NULL, &id), 0);
				assert_int_equal(hwbp_install(&cb, &q, HWBP_CPU_ALL, NULL, &id), 0);
			}
			/* 0 below, 1 above, 2 among, 3 across, 4 below with the
			 * slots reached at the end of the stream */
			lo = shape == 0 || shape == 4 ? base : shape == 1 ? base + 0x2000 : base + 0x1000;
			span = shape == 3 ? 0x3000 : shape == 2 ? 0x220 : 0x800;
			if (shape == 3)
				lo = base;
			for (size_t i = 0; i < 4096; i++) {
				s[i].size = 1u << (rnd() % 4);
				s[i].addr = (lo + rnd() % span) & ~(uint64_t)(s[i].size - 1);
				s[i].op = (rnd() & 1) ? HWBP_SIM_READ : HWBP_SIM_WRITE;
				if (cpu.arch == HWBP_ARCH_X86 && rnd() % 64 == 0)
					s[i].op = rnd() & 1 ? HWBP_SIM_EXEC : HWBP_SIM_IO;
				if (shape == 4 && i > 4000)
					s[i].addr = base + 0x1000 + rnd() % 0x210;
			}
			got = hwbp_sim_run(a, 0, s, 4096);
			for (size_t i = 0; i < 4096; i++) {
				struct hwbp_sim_result r;

				hwbpi_sim_access_unfiltered(b, 0, &s[i], &r);
				if (r.cls != HWBP_SIM_NONE) {
					want++;
					hwbp_sim_resume(b, 0, &r);
				}
			}
			if (got != want)
				fail_msg("%s shape %d: hwbp_sim_run counted %zu, the model %zu",
					 presets[p], shape, got, want);
			if (shape >= 2 || shape == 4)
				assert_true(want > 0);
			checked++;
			hwbp_sim_free(a);
			hwbp_sim_free(b);
		}
	}
	assert_int_equal(checked, 15);
}

/* The glue copies control registers, not status ones (x86 DR6 stays). */
static void test_glue(void **state)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim;
	const struct hwbp_glue *g;
	struct hwbp_regs regs;
	uint64_t v;
	int err;

	(void)state;
	hwbp_cpu_preset("x86_64", &cpu);
	sim = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 2, &err);
	g = hwbp_sim_glue(sim);
	hwbp_regs_reset(&cpu, &regs);
	regs.u.x86.dr[1] = 0x1234;
	regs.u.x86.dr7 = 0x40c;
	regs.u.x86.dr6 = 0x1;
	assert_int_equal(g->write_regs(g->arg, 1, &regs), 0);
	assert_int_equal(hwbp_sim_get_reg(sim, 1, "dr1", &v), 0);
	assert_true(v == 0x1234);
	assert_int_equal(hwbp_sim_get_reg(sim, 1, "dr6", &v), 0);
	assert_true(v == 0xffff0ff0);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "dr1", &v), 0);
	assert_true(v == 0);
	assert_int_equal(g->write_regs(g->arg, 2, &regs), -EINVAL);
	hwbp_sim_free(sim);
}

/* A 4-byte kernel write to @addr on CPU @c: did it raise anything? */
static bool write_hits(struct hwbp_sim *sim, unsigned c, uint64_t addr)
{
	struct hwbp_sim_access a = { addr, 4, HWBP_SIM_WRITE };
	struct hwbp_sim_result r, done;

	assert_int_equal(hwbp_sim_access(sim, c, &a, &r), 0);
	if (r.cls == HWBP_SIM_NONE)
		return false;
	assert_int_equal(hwbp_sim_resume(sim, c, &done), 0);
	return true;
}

/*
 * hwbp_sim_debug_ready: a write watch armed through the glue, as a kernel
 * arms it, fires at kernel privilege once the CPU is debug-ready; before,
 * only where nothing holds debug exceptions off at reset (arm64's OS lock
 * and PSTATE.D do).  The other CPU is left as it was.
 */
static void test_debug_ready(void **state)
{
	static const struct {
		const char *preset;
		bool fires_at_reset;
	} rows[] = {
		{ "x86_64", true },
		{ "i386", true },
		{ "cortex-a57", false },
		{ "arm64-max16", false },
		{ "power8", true },
		{ "power9", true },
		{ "power10", true },
	};
	static struct hwbp_ctx ctx;
	static struct hwbp_slots percpu[2];

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct hwbp_request q = { 0x1000, 4, HWBP_W, HWBP_SCOPE_BOTH, 0 };
		struct hwbp_cpu cpu;
		struct hwbp_sim *sim;
		int err, id;

		assert_int_equal(hwbp_cpu_preset(rows[i].preset, &cpu), 0);
		sim = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 2, &err);
		assert_non_null(sim);
		assert_int_equal(hwbp_ctx_init(&ctx, &cpu, 2, percpu, hwbp_sim_glue(sim)), 0);
		assert_int_equal(hwbp_install(&ctx, &q, HWBP_CPU_ALL, NULL, &id), 0);
		assert_int_equal(write_hits(sim, 0, 0x1000), rows[i].fires_at_reset);
		assert_int_equal(hwbp_sim_debug_ready(sim, 0), 0);
		assert_true(write_hits(sim, 0, 0x1000));
		assert_false(write_hits(sim, 0, 0x1008));
		assert_int_equal(write_hits(sim, 1, 0x1000), rows[i].fires_at_reset);
		assert_int_equal(hwbp_sim_debug_ready(sim, 2), -EINVAL);
		assert_int_equal(hwbp_sim_debug_ready(NULL, 0), -EINVAL);
		hwbp_sim_free(sim);
	}
}

/* A `zero` at @addr on CPU 0 of @sim: did it raise anything? */
static bool zero_hits(struct hwbp_sim *sim, uint64_t addr)
{
	struct hwbp_sim_access a = { addr, 0, HWBP_SIM_ZERO };
	struct hwbp_sim_result r, done;

	assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), 0);
	if (r.cls == HWBP_SIM_NONE)
		return false;
	/* Complete the store, so that the next one starts afresh. */
	assert_int_equal(hwbp_sim_resume(sim, 0, &done), 0);
	return true;
}

/*
 * Every preset has a model of its arch, and a model's zero_block is the
 * block its cache-block store really writes: a write watch on the last
 * doubleword of a block fires for a store from the block's first byte,
 * not from the next block's.  A model without one gives `zero` no meaning.
 */
static void test_models(void **state)
{
	const uint64_t b = 0x10000000;   /* user, aligned for every block */
	const char *name;

	(void)state;
	for (unsigned i = 0; (name = hwbp_cpu_preset_name(i)); i++) {
		const struct hwbpi_sim_model *m;
		struct hwbp_slots *percpu = calloc(1, sizeof(*percpu));
		struct hwbp_ctx *ctx = calloc(1, sizeof(*ctx));
		struct hwbp_sim_result r;
		struct hwbp_sim *sim;
		struct hwbp_request q;
		struct hwbp_cpu cpu;
		int err, id;

		assert_non_null(percpu);
		assert_non_null(ctx);
		assert_int_equal(hwbp_cpu_preset(name, &cpu), 0);
		m = hwbpi_sim_model(cpu.arch);
		if (!m) {
			/* An arch with no simulator model yet (RISC-V): the
			 * simulator refuses its CPUs, and nothing else here
			 * applies. */
			err = 0;
			assert_null(hwbp_sim_new(&cpu, HWBP_SIM_SDM, 1, &err));
			assert_true(err < 0);
			free(percpu);
			free(ctx);
			continue;
		}
		assert_int_equal(m->arch, cpu.arch);
		sim = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 1, &err);
		assert_non_null(sim);
		/* Registers that gate debug at reset, where the CPU has them. */
		hwbp_sim_set_reg(sim, 0, "oslar", 0, &r);
		hwbp_sim_set_reg(sim, 0, "daif_d", 0, &r);
		assert_int_equal(hwbp_ctx_init(ctx, &cpu, 1, percpu, hwbp_sim_glue(sim)), 0);
		q = (struct hwbp_request){ b + (m->zero_block ? m->zero_block : 64) - 8, 8, HWBP_W, 0, 0 };
		assert_int_equal(hwbp_install(ctx, &q, HWBP_CPU_ALL, NULL, &id), 0);
		if (m->zero_block) {
			assert_true(m->zero_block >= 8 && !(m->zero_block & (m->zero_block - 1)));
			assert_true(zero_hits(sim, b));
			assert_true(zero_hits(sim, b + m->zero_block - 1));
			assert_false(zero_hits(sim, b + m->zero_block));
		} else {
			assert_false(zero_hits(sim, b));
			assert_false(zero_hits(sim, b + 56));
		}
		hwbp_sim_free(sim);
		free(ctx);
		free(percpu);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_quirk_table),
		cmocka_unit_test(test_glue),
		cmocka_unit_test(test_models),
		cmocka_unit_test(test_debug_ready),
		cmocka_unit_test(test_filter_is_exact),
		cmocka_unit_test(test_run_equals_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
