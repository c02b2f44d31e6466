/* SPDX-License-Identifier: MIT */
/*
 * The harnesses' scenario runner: executes the compiled table (hops.h) on
 * real debug registers through the generic hwbp API and the arch's glue,
 * and prints the canonical lines with the simulator's own formatter
 * (sim/format.c), so that `scripts/harness --check` can diff them against
 * `hwbp sim --profile qemu --emit` line for line.
 *
 * Output:  "== FILE", then "LINE: ..." per access (and per resume, and per
 * set that raised an exception), or "# skip: REASON" when the file uses
 * something this harness cannot execute (the file then counts as skipped,
 * never as passed); "== END" at the very end.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "format.h"
#include "harness.h"

#define NAME_LEN 32

static struct hwbp_cpu cpu;
static struct hwbp_ctx ctx;
static struct hwbp_slots percpu[HARNESS_MAX_CPUS];
static char names[HWBP_MAX_REQUESTS][NAME_LEN];
static struct hwbpi_arenas arenas;
static unsigned ncpus = 1;   /* arch_ncpus() */
static unsigned cur;         /* `mode cpu=`: the CPU the commands run on */
const char *harness_why;
int harness_cut;

/*
 * Every arch_* call goes to the CPU it acts on through arch_on_cpu(): the
 * registers, the exception and the execution state are that CPU's own.
 * Each call's arguments and result travel in one of these.
 */
struct on {
	const struct hwbp_regs *regs_in;
	struct hwbp_regs *regs_out;
	const char *name;
	uint64_t value;
	const struct hwbp_sim_access *acc;
	struct hwbp_sim_result *res;
	const struct hwbp_cpu *model;
};

static int on_write_regs(void *p)
{
	return arch_write_regs(((struct on *)p)->regs_in);
}

static int on_read_regs(void *p)
{
	arch_read_regs(((struct on *)p)->regs_out);
	return 0;
}

static int on_set_reg(void *p)
{
	struct on *o = p;

	return arch_set_reg(o->name, o->value, o->res);
}

static int on_mode(void *p)
{
	struct on *o = p;

	return arch_mode(o->name, o->value);
}

static int on_access(void *p)
{
	struct on *o = p;

	return arch_access(o->acc, o->res);
}

static int on_held(void *p)
{
	arch_held_result(((struct on *)p)->res);
	return 0;
}

/* No harness holds a line unless it says so (x86: MOV SS). */
__attribute__((weak)) void arch_held_result(struct hwbp_sim_result *res)
{
	memset(res, 0, sizeof(*res));
}

static int on_get(void *p)
{
	struct on *o = p;

	return arch_get_reg(o->name, o->res);
}

static int on_resume(void *p)
{
	arch_resume(((struct on *)p)->res);
	return 0;
}

static int on_reset(void *p)
{
	arch_reset(((struct on *)p)->model);
	return 0;
}

/* hwbp's glue: write_regs runs on the CPU it names (hwbp_install's
 * on_cpu, or directly), on_cpu through the harness's own. */
static int glue_write(void *arg, unsigned c, const struct hwbp_regs *regs)
{
	struct on o = { .regs_in = regs };

	(void)arg;
	return arch_on_cpu(c, on_write_regs, &o);
}

static int glue_on_cpu(void *arg, unsigned c, int (*fn)(void *), void *fnarg)
{
	(void)arg;
	return arch_on_cpu(c, fn, fnarg);
}

const struct hwbp_glue harness_glue = { glue_write, glue_on_cpu, NULL };

static uint64_t resolve(const struct hop *h)
{
	switch (h->base) {
	case HB_B:
		return arenas.b + h->a;
	case HB_C:
		return arenas.c + h->a;
	}
	return h->a;
}

static void print_result(const struct hop *h, const struct hwbp_sim_result *res)
{
	struct hwbp_regs live;
	char buf[256];

	struct on o = { .regs_out = &live };

	/* The slots as the decoder reads them from the status and the live
	 * registers (of the CPU that took it): exactly what the simulator's
	 * --emit prints. */
	arch_on_cpu(cur, on_read_regs, &o);
	hwbpi_sim_result_text(&cpu, &live, res, &arenas, buf, sizeof(buf));
	h_printf("%u: %s\n", (unsigned)h->line, buf);
}

/* A line whose result comes with the next line's (harness.h). */
static const struct hop *held;

static bool is_insn(const struct hop *h)
{
	return h->kind == HOP_SET || h->kind == HOP_READ || h->kind == HOP_WRITE ||
	       h->kind == HOP_EXEC || h->kind == HOP_IO || h->kind == HOP_ZERO ||
	       h->kind == HOP_INSN || h->kind == HOP_GET;
}

/* The held line's result, printed before the line that released it. */
static void print_held(void)
{
	struct hwbp_sim_result res;
	struct on o = { .res = &res };

	if (!held)
		return;
	memset(&res, 0, sizeof(res));
	arch_on_cpu(cur, on_held, &o);
	print_result(held, &res);
	held = NULL;
}

static int find_name(const char *n)
{
	for (int i = 0; i < HWBP_MAX_REQUESTS; i++)
		if (names[i][0] && strcmp(names[i], n) == 0)
			return i;
	return -1;
}

/* Skip to the next file: returns the index of its HOP_FILE (or HOP_END). */
static size_t skip_file(size_t i, const char *why, const char *what)
{
	if (harness_cut && hwbp_hops[i].kind != HOP_FILE)
		h_printf("# cut %u: ", (unsigned)hwbp_hops[i].line);
	else
		h_printf("# skip: ");
	h_printf("%s%s%s%s%s\n", why, what ? " " : "", what ? what : "",
		 harness_why ? ": " : "", harness_why ? harness_why : "");
	harness_why = NULL;
	for (i++; hwbp_hops[i].kind != HOP_END && hwbp_hops[i].kind != HOP_FILE; i++)
		;
	return i;
}

/*
 * Before the scenarios: the on_cpu self-check (selftest.c) on the model of
 * the CPU the harness booted on, every CPU reset before it (after it, the
 * first file resets them again).  Not the first file's model: a POWER9
 * file's one DAWR cannot hold the check's two watches, and the check is of
 * the machine, not of a file.  A failure stops the harness: no per-CPU
 * line could be trusted.
 */
static void selftest(void)
{
	struct on o = { .model = &cpu };
	unsigned c;

	if (hwbp_cpu_preset(arch_machine_model(), &cpu) || arch_cpu_unsupported(&cpu)) {
		h_printf("# harness: no CPU model to run the on_cpu self-check on\n");
		arch_exit(3);
	}
	for (c = 0; c < ncpus; c++)
		arch_on_cpu(c, on_reset, &o);
	if (harness_selftest(&cpu, ncpus, arenas.b)) {
		h_printf("# harness: the on_cpu self-check failed\n");
		arch_exit(3);
	}
}

int harness_main(void)
{
	unsigned files = 0, skipped = 0;
	size_t i = 0;

	arenas.b = arch_arena_b();
	arenas.c = arch_arena_c();
	arenas.size = 0x10000;
	ncpus = arch_ncpus();
	if (ncpus < 1 || ncpus > HARNESS_MAX_CPUS)
		ncpus = 1;
	h_printf("# harness: %u CPU%s\n", ncpus, ncpus == 1 ? "" : "s");
	selftest();
	while (hwbp_hops[i].kind != HOP_END) {
		const struct hop *h = &hwbp_hops[i];
		struct hwbp_sim_result res;
		struct hwbp_sim_access a;
		struct on o = { .res = &res, .acc = &a, .model = &cpu };
		const char *why;
		unsigned c;
		int ret;

		memset(&res, 0, sizeof(res));
		if (held && h->kind == HOP_FILE) {
			h_printf("# harness: line %u (held for the next line) ended its file: not run\n",
				 (unsigned)held->line);
			held = NULL;
		}
		if (held && !is_insn(h)) {
			/* The held line runs with an instruction line only. */
			held = NULL;
			skipped++;
			i = skip_file(i, "a held line (MOV SS) is followed by no instruction line", NULL);
			continue;
		}
		switch (h->kind) {
		case HOP_FILE:
			files++;
			h_printf("== %s\n", h->name);
			if (hwbp_cpu_preset(h->name2, &cpu)) {
				skipped++;
				i = skip_file(i, "unknown cpu", h->name2);
				continue;
			}
			why = arch_cpu_unsupported(&cpu);
			if (why) {
				skipped++;
				i = skip_file(i, why, h->name2);
				continue;
			}
			for (c = 0; c < ncpus; c++)
				arch_on_cpu(c, on_reset, &o);
			cur = 0;
			memset(names, 0, sizeof(names));
			if (hwbp_ctx_init(&ctx, &cpu, ncpus, percpu, &harness_glue)) {
				skipped++;
				i = skip_file(i, "hwbp_ctx_init failed", NULL);
				continue;
			}
			break;
		case HOP_SET:
			o.name = h->name;
			o.value = resolve(h);
			ret = arch_on_cpu(cur, on_set_reg, &o);
			if (ret) {
				held = NULL;
				skipped++;
				i = skip_file(i, ret == -ENOENT ? "no such register" : "cannot write",
					      h->name);
				continue;
			}
			print_held();
			if (res.cls != HWBP_SIM_NONE)
				print_result(h, &res);
			break;
		case HOP_WATCH: {
			struct hwbp_request q;
			int id;

			memset(&q, 0, sizeof(q));
			q.addr = resolve(h);
			q.len = h->b;
			q.type = h->type;
			q.scope = (enum hwbp_scope)h->scope;
			q.flags = ((h->flags & 1) ? HWBP_REQ_WIDEN : 0) |
				  ((h->flags & 2) ? HWBP_REQ_SHARE : 0);
			/* A failing watch prints nothing, as in the simulator. */
			if (find_name(h->name) >= 0)
				break;
			ret = hwbp_install(&ctx, &q, HWBP_CPU_ALL, NULL, &id);
			if (ret == 0) {
				strncpy(names[id], h->name, NAME_LEN - 1);
			} else if (ret == -EOPNOTSUPP && harness_why) {
				/* The harness could not write what hwbp planned (a
				 * refusal of the host's, not of hwbp's). */
				skipped++;
				i = skip_file(i, "cannot install watch", h->name);
				continue;
			}
			break;
		}
		case HOP_UNWATCH: {
			int id = find_name(h->name);

			if (id >= 0 && hwbp_remove(&ctx, id) == 0)
				names[id][0] = '\0';
			break;
		}
		case HOP_MODE:
			o.name = h->name;
			o.value = h->a;
			if (strcmp(h->name, "cpu") == 0) {
				if (h->a >= ncpus) {
					skipped++;
					i = skip_file(i, "needs more CPUs than booted (mode cpu=N)", NULL);
					continue;
				}
				cur = (unsigned)h->a;
			} else if (arch_on_cpu(cur, on_mode, &o)) {
				skipped++;
				i = skip_file(i, "cannot enter mode", h->name);
				continue;
			}
			break;
		case HOP_READ:
		case HOP_WRITE:
		case HOP_EXEC:
		case HOP_IO:
		case HOP_ZERO:
		case HOP_INSN:
			a.addr = resolve(h);
			a.size = (uint32_t)h->b;
			a.op = h->kind == HOP_READ ? HWBP_SIM_READ : h->kind == HOP_WRITE ? HWBP_SIM_WRITE :
			       h->kind == HOP_EXEC ? HWBP_SIM_EXEC : h->kind == HOP_IO ? HWBP_SIM_IO :
			       h->kind == HOP_ZERO ? HWBP_SIM_ZERO : h->type;
			ret = arch_on_cpu(cur, on_access, &o);
			if (ret == 1 && !held) {
				/* Held: printed after the next line ran. */
				held = h;
				break;
			}
			if (ret) {
				held = NULL;
				skipped++;
				i = skip_file(i, "cannot make this access", NULL);
				continue;
			}
			print_held();
			print_result(h, &res);
			break;
		case HOP_GET:
			o.name = h->name;
			if (arch_on_cpu(cur, on_get, &o)) {
				held = NULL;
				skipped++;
				i = skip_file(i, "cannot read register", h->name);
				continue;
			}
			print_held();
			print_result(h, &res);
			break;
		case HOP_RESUME:
			arch_on_cpu(cur, on_resume, &o);
			print_result(h, &res);
			break;
		}
		i++;
	}
	h_printf("== END %u files, %u skipped\n", files, skipped);
	return 0;
}

/* ------------------------------------------------------------ output */

static void put_str(const char *s)
{
	while (*s)
		arch_putc(*s++);
}

void h_vprintf(const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	put_str(buf);
}

void h_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	h_vprintf(fmt, ap);
	va_end(ap);
}
