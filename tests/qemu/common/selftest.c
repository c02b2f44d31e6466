/* SPDX-License-Identifier: MIT */
/*
 * The harnesses' on_cpu self-check, before any scenario: hwbp_install()
 * on one CPU and on every CPU, hwbp_modify(), a task's registers at
 * switch-in and hwbp_remove() go through the glue (write_regs run on its
 * CPU by arch_on_cpu()), and after each step every CPU reads its own
 * registers back.  Each CPU must hold exactly what hwbp's accounting says
 * it holds (hwbp_regs_apply() of what was written over what it held): a
 * change made on the wrong CPU, or a CPU answering with another's
 * registers, stops the harness.  The scenario language only installs on
 * every CPU; this is where one CPU, a modify and a task are checked.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"

#define MAX_NV 48

static struct hwbp_ctx ctx;
static struct hwbp_slots percpu[HARNESS_MAX_CPUS];
static struct hwbp_regs held[HARNESS_MAX_CPUS];   /* what each CPU holds now */
static unsigned compared;

struct call {
	const struct hwbp_regs *in;
	struct hwbp_regs *out;
};

static int on_write(void *p)
{
	return arch_write_regs(((struct call *)p)->in);
}

static int on_read(void *p)
{
	arch_read_regs(((struct call *)p)->out);
	return 0;
}

/* CPU @c's live registers against @want, register by register (the
 * names and values hwbp_regs_list() gives: status registers included,
 * which no step here changes). */
static int same(const struct hwbp_cpu *cpu, unsigned c, const struct hwbp_regs *want,
		const char *step)
{
	static struct hwbp_reg_nv a[MAX_NV], b[MAX_NV];
	struct hwbp_regs live;
	struct call k = { .out = &live };
	int na, nb;

	memset(&live, 0, sizeof(live));
	arch_on_cpu(c, on_read, &k);
	na = hwbp_regs_list(cpu, want, a, MAX_NV);
	nb = hwbp_regs_list(cpu, &live, b, MAX_NV);
	if (na <= 0 || na != nb) {
		h_printf("# harness: on_cpu self-check, %s: CPU %u: %d registers, want %d\n", step, c,
			 nb, na);
		return -1;
	}
	for (int i = 0; i < na; i++) {
		compared++;
		if (strcmp(a[i].name, b[i].name) || a[i].value != b[i].value) {
			h_printf("# harness: on_cpu self-check, %s: CPU %u: %s = %llx, want %llx\n",
				 step, c, b[i].name, (unsigned long long)b[i].value,
				 (unsigned long long)a[i].value);
			return -1;
		}
	}
	return 0;
}

/* After a step: every CPU holds what hwbp wrote to it over what it held. */
static int check_all(const struct hwbp_cpu *cpu, unsigned n, const char *step)
{
	for (unsigned c = 0; c < n; c++) {
		hwbp_regs_apply(cpu, &held[c], &ctx.percpu[c].regs);
		if (same(cpu, c, &held[c], step))
			return -1;
	}
	return 0;
}

static struct hwbp_request req(uint64_t addr)
{
	struct hwbp_request q;

	memset(&q, 0, sizeof(q));
	q.addr = addr;
	/* 8 aligned bytes: one piece on every arch (QEMU's RISC-V triggers
	 * have no 4-byte size, so 4 bytes would take both of its two). */
	q.len = 8;
	q.type = HWBP_W;
	q.scope = HWBP_SCOPE_BOTH;
	return q;
}

/* The task switched in on CPU @c (the host writes hwbp_task_regs()), then
 * out again (the CPU's own registers). */
static int task_on(const struct hwbp_cpu *cpu, unsigned c, struct hwbp_task *t)
{
	struct hwbp_regs in, want;
	struct call k = { .in = &in };

	if (hwbp_task_regs(&ctx, c, t, &in) || arch_on_cpu(c, on_write, &k))
		return -1;
	want = held[c];
	hwbp_regs_apply(cpu, &want, &in);
	if (same(cpu, c, &want, "task switched in"))
		return -1;
	k.in = &ctx.percpu[c].regs;
	if (arch_on_cpu(c, on_write, &k))
		return -1;
	return same(cpu, c, &held[c], "task switched out");
}

static int steps(const struct hwbp_cpu *cpu, unsigned n, uint64_t b)
{
	static struct hwbp_task task;
	int one[HARNESS_MAX_CPUS], all, tid;
	struct hwbp_request q;

	/* One request on each CPU, each at its own address. */
	for (unsigned c = 0; c < n; c++) {
		q = req(b + 0x100 + 0x40 * c);
		if (hwbp_install(&ctx, &q, (int)c, NULL, &one[c]) || check_all(cpu, n, "install on one CPU"))
			return -1;
	}
	/* Move CPU 0's (only CPU 0 changes). */
	q = req(b + 0x400);
	if (hwbp_modify(&ctx, one[0], &q) || check_all(cpu, n, "modify on one CPU"))
		return -1;
	/* A task's request touches no CPU until the task runs there (a slot
	 * of every CPU is kept for it: with powerpc's two DAWRs, the last). */
	q = req(b + 0xc00);
	if (hwbp_task_init(&ctx, &task) || hwbp_install(&ctx, &q, 0, &task, &tid) ||
	    check_all(cpu, n, "install in a task"))
		return -1;
	for (unsigned c = 0; c < n; c++)
		if (task_on(cpu, c, &task))
			return -1;
	if (hwbp_remove(&ctx, tid) || hwbp_task_fini(&ctx, &task))
		return -1;
	q = req(b + 0x800);
	if (hwbp_install(&ctx, &q, HWBP_CPU_ALL, NULL, &all) || check_all(cpu, n, "install on every CPU"))
		return -1;
	if (hwbp_remove(&ctx, all) || check_all(cpu, n, "remove from every CPU"))
		return -1;
	for (unsigned c = 0; c < n; c++)
		if (hwbp_remove(&ctx, one[c]) || check_all(cpu, n, "remove from one CPU"))
			return -1;
	return 0;
}

int harness_selftest(const struct hwbp_cpu *cpu, unsigned n, uint64_t arena_b)
{
	compared = 0;
	if (n < 1 || n > HARNESS_MAX_CPUS || hwbp_ctx_init(&ctx, cpu, n, percpu, &harness_glue))
		return -EINVAL;
	/* Start from what every CPU holds now (the caller reset them). */
	for (unsigned c = 0; c < n; c++) {
		struct call k = { .out = &held[c] };

		arch_on_cpu(c, on_read, &k);
	}
	if (steps(cpu, n, arena_b))
		return -EIO;
	h_printf("# harness: on_cpu self-check: install on each of %u CPUs, modify, install on all, "
		 "a task on each, remove: %u registers compared, all as hwbp wrote them\n", n, compared);
	return 0;
}
