/* SPDX-License-Identifier: MIT */
/*
 * hwbp plan and hwbp encode: one request split into hardware pieces, or
 * several placed together on one CPU and the debug registers they give.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <hwbp/hwbp.h>

#include "cli.h"
#include "common.h"
#include "util.h"

static const char plan_usage[] =
	"usage: hwbp plan --cpu PRESET [--scope user|kernel|both] [--widen] [--exact]\n"
	"                 [--free N] [--json] ADDR LEN TYPE\n"
	"Split a request into hardware pieces. TYPE is r, w, rw or x; ADDR and LEN are\n"
	"decimal or 0x hex. Exit 1 if the CPU cannot hold it.\n"
	"  --cpu PRESET   the CPU model (hwbp caps --list), or host: this machine's\n"
	"                 as the kernel lets a tracer program it\n"
	"  --scope S      user, kernel or both (default both)\n"
	"  --widen        turn a read-only watch the CPU lacks into RW, writes filtered\n"
	"  --exact        refuse a plan that watches extra bytes\n"
	"  --free N       plan for N free slots (default: the whole pool)\n"
	"  --json         one JSON object; addresses are \"0x...\" strings\n"
	"  --help, --version\n";

static const char encode_usage[] =
	"usage: hwbp encode --cpu PRESET [--scope S] [--widen] [--local] [--exact] [--json]\n"
	"                   ADDR LEN TYPE [ADDR LEN TYPE]...\n"
	"Place the requests together on one CPU and print the debug registers.\n"
	"  --cpu PRESET   the CPU model (hwbp caps --list), or host: this machine's\n"
	"                 as the kernel lets a tracer program it\n"
	"  --scope S      user, kernel or both (default both)\n"
	"  --widen        turn a read-only watch the CPU lacks into RW, writes filtered\n"
	"  --local        use the CPU's task-local enable bits where it has them\n"
	"  --exact        refuse a request that would watch extra bytes\n"
	"  --json         one JSON object; register values are \"0x...\" strings\n"
	"  --help, --version\n";

enum { OPT_CPU = CLI_OPT_BASE, OPT_SCOPE, OPT_WIDEN, OPT_EXACT, OPT_LOCAL, OPT_FREE, OPT_JSON };

static const struct cli_opt plan_opts[] = {
	{ "cpu", "a PRESET", OPT_CPU },
	{ "scope", "user, kernel or both", OPT_SCOPE },
	{ "widen", NULL, OPT_WIDEN },
	{ "exact", NULL, OPT_EXACT },
	{ "free", "a number of slots", OPT_FREE },
	{ "json", NULL, OPT_JSON },
	{ NULL, NULL, 0 },
};

static const struct cli_opt encode_opts[] = {
	{ "cpu", "a PRESET", OPT_CPU },
	{ "scope", "user, kernel or both", OPT_SCOPE },
	{ "widen", NULL, OPT_WIDEN },
	{ "exact", NULL, OPT_EXACT },
	{ "local", NULL, OPT_LOCAL },
	{ "json", NULL, OPT_JSON },
	{ NULL, NULL, 0 },
};

#define MAX_WORDS (3 * HWBP_MAX_REQUESTS)

struct reqopts {
	const char *cpu;
	enum hwbp_scope scope;
	unsigned flags;
	bool json;
	uint64_t free;
	const char *pos[MAX_WORDS];
	int npos;
};

/* The options plan and encode share; @a's table says which apply. */
static int parse_reqopts(struct cli_args *a, struct reqopts *o)
{
	int id;

	memset(o, 0, sizeof(*o));
	while ((id = cli_next(a)) != CLI_END) {
		switch (id) {
		case CLI_EXIT:
			return a->status ? a->status : -1;
		case CLI_ARG:
			if (o->npos == MAX_WORDS)
				return usage_error("too many arguments at '%s'", a->arg);
			o->pos[o->npos++] = a->arg;
			break;
		case OPT_CPU:
			o->cpu = a->arg;
			break;
		case OPT_SCOPE:
			if (cli_parse_scope(a->arg, &o->scope))
				return usage_error("bad --scope '%s': expected user, kernel or both", a->arg);
			break;
		case OPT_WIDEN:
			o->flags |= HWBP_REQ_WIDEN;
			break;
		case OPT_EXACT:
			o->flags |= HWBP_REQ_EXACT;
			break;
		case OPT_LOCAL:
			o->flags |= HWBP_REQ_LOCAL;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_FREE:
			if (cli_number(a, "--free", 1, HWBP_MAX_SLOTS, &o->free))
				return EXIT_USAGE;
			break;
		}
	}
	return 0;
}

static int parse_request(const char *const *w, const struct reqopts *o, struct hwbp_request *r)
{
	memset(r, 0, sizeof(*r));
	if (hwbp_parse_u64(w[0], &r->addr))
		return usage_error("bad ADDR '%s': expected a number (decimal or 0x hex)", w[0]);
	if (hwbp_parse_u64(w[1], &r->len))
		return usage_error("bad LEN '%s': expected a number of bytes", w[1]);
	if (hwbp_type_parse(w[2], &r->type))
		return usage_error("bad TYPE '%s': expected r, w, rw or x", w[2]);
	r->scope = o->scope;
	r->flags = o->flags;
	return 0;
}

/* A refused request: a JSON object on stdout with --json, else a line on
 * stderr.  Returns EXIT_REFUSED. */
static int refused(const struct reqopts *o, const char *what, int err,
		   const struct hwbp_cpu *cpu, unsigned type)
{
	const char *why = cli_refusal(err, cpu, type);

	if (o->json) {
		printf("{\"error\": \"%s\", \"message\": ", hwbp_errno_name(err));
		cli_json_str(why);
		printf("}\n");
	} else {
		fprintf(stderr, "hwbp: %s: %s: %s\n", what, hwbp_errno_name(err), why);
	}
	return EXIT_REFUSED;
}

/* ---------------------------------------------------------------- plan */

static void print_plan_json(const char *cpuname, const struct hwbp_cpu *cpu,
			    const struct hwbp_plan *p)
{
	int slots = hwbp_plan_slots(cpu, p);

	printf("{\"cpu\": ");
	cli_json_str(cpuname);
	printf(", \"addr\": ");
	cli_json_hex(p->req.addr);
	printf(", \"len\": %" PRIu64 ", \"type\": \"%s\", \"hw_type\": \"%s\", \"scope\": \"%s\", "
	       "\"widened\": %s, \"exact\": %s, \"enlarged\": %s, \"extra_bytes\": %" PRIu64
	       ", \"slots\": %u, \"pool\": \"%s\", \"pieces\": [",
	       p->req.len, hwbp_type_name(p->req.type), hwbp_type_name(p->type),
	       cli_scope_name(p->req.scope), cli_json_bool(p->widened), cli_json_bool(p->exact),
	       cli_json_bool(p->enlarged), p->extra_bytes, slots < 0 ? p->n : (unsigned)slots,
	       p->inst ? "inst" : "data");
	for (unsigned i = 0; i < p->n; i++) {
		printf("%s{\"addr\": ", i ? ", " : "");
		cli_json_hex(p->piece[i].addr);
		printf(", \"len\": %" PRIu64 ", \"cover_addr\": ", p->piece[i].len);
		cli_json_hex(p->piece[i].cover_lo);
		printf(", \"cover_len\": %" PRIu64 "}", p->piece[i].cover_len);
	}
	printf("]}\n");
}

static void print_plan_text(const struct hwbp_cpu *cpu, const struct hwbp_plan *p)
{
	/* A piece may take several slots (a RISC-V chained pair): ask. */
	int r = hwbp_plan_slots(cpu, p);
	unsigned slots = r < 0 ? p->n : (unsigned)r;

	printf("request  0x%" PRIx64 " len %" PRIu64 " %s scope %s\n", p->req.addr, p->req.len,
	       hwbp_type_name(p->req.type), cli_scope_name(p->req.scope));
	printf("plan     %s%s, %u piece%s (%u %s slot%s), %" PRIu64 " extra byte%s watched\n",
	       p->exact ? "exact" : p->enlarged ? "enlarged" : "granule-rounded",
	       p->widened ? ", widened to RW" : "", p->n, p->n == 1 ? "" : "s", slots,
	       p->inst ? "execute" : "data", slots == 1 ? "" : "s", p->extra_bytes,
	       p->extra_bytes == 1 ? "" : "s");
	for (unsigned i = 0; i < p->n; i++) {
		const struct hwbp_piece *pc = &p->piece[i];

		printf("  piece %-2u 0x%-16" PRIx64 " len %-10" PRIu64, i, pc->addr, pc->len);
		if (pc->cover_len)
			printf(" covers 0x%" PRIx64 "..0x%" PRIx64, pc->cover_lo,
			       pc->cover_lo + pc->cover_len - 1);
		if (pc->len > pc->cover_len)
			printf(" (+%" PRIu64 " extra)", pc->len - pc->cover_len);
		putchar('\n');
	}
}

int hwbp_cli_plan(int argc, char **argv)
{
	struct cli_args a;
	struct reqopts o;
	struct hwbp_cpu cpu;
	struct hwbp_request r;
	struct hwbp_plan p;
	char label[160];
	int ret;

	cli_init(&a, "plan", plan_usage, argc, argv, plan_opts);
	ret = parse_reqopts(&a, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	ret = cli_load_cpu("plan", o.cpu, &cpu);
	if (ret)
		return ret;
	if (o.npos != 3)
		return usage_error("plan: expected ADDR LEN TYPE%s", o.npos > 3 ? ", got more" : "");
	ret = parse_request(o.pos, &o, &r);
	if (ret)
		return ret;
	ret = hwbp_plan(&cpu, &r, (unsigned)o.free, &p);
	if (ret)
		return refused(&o, "plan", ret, &cpu, r.type);
	if (o.json)
		print_plan_json(cli_cpu_label(o.cpu, &cpu, label, sizeof(label)), &cpu, &p);
	else
		print_plan_text(&cpu, &p);
	return 0;
}

/* -------------------------------------------------------------- encode */

/* The names of the slots request @id holds, "dr0" ..., at most @max. */
static unsigned slots_of(const struct hwbp_ctx *ctx, int id, char (*names)[16], unsigned max)
{
	const struct hwbp_slots *s = &ctx->percpu[0];
	unsigned n = 0;

	for (unsigned k = 0; k < HWBP_MAX_SLOTS; k++) {
		if (s->data[k].refs && (s->data[k].requests & (UINT64_C(1) << id)) && n < max)
			hwbp_slot_name(&ctx->cpu, s->data[k].piece.type == HWBP_X, k, names[n++], 16);
		if (s->inst[k].refs && (s->inst[k].requests & (UINT64_C(1) << id)) && n < max)
			hwbp_slot_name(&ctx->cpu, true, k, names[n++], 16);
	}
	return n;
}

static void print_request(const struct reqopts *o, const struct hwbp_ctx *ctx, int id,
			  const struct hwbp_request *r, bool first)
{
	char names[2 * HWBP_MAX_SLOTS][16];
	unsigned n = slots_of(ctx, id, names, 2 * HWBP_MAX_SLOTS);
	bool exact = hwbp_plan_of(ctx, id)->exact;

	if (!o->json) {
		printf("request %d  0x%" PRIx64 " len %" PRIu64 " %s ->", id, r->addr, r->len,
		       hwbp_type_name(r->type));
		for (unsigned i = 0; i < n; i++)
			printf(" %s", names[i]);
		printf("%s\n", exact ? "" : "  (watches extra bytes)");
		return;
	}
	printf("%s{\"id\": %d, \"addr\": ", first ? "" : ", ", id);
	cli_json_hex(r->addr);
	printf(", \"len\": %" PRIu64 ", \"type\": \"%s\", \"exact\": %s, \"slots\": [", r->len,
	       hwbp_type_name(r->type), cli_json_bool(exact));
	for (unsigned i = 0; i < n; i++) {
		printf("%s", i ? ", " : "");
		cli_json_str(names[i]);
	}
	printf("]}");
}

static void print_regs(const struct reqopts *o, const struct hwbp_cpu *cpu,
		       const struct hwbp_regs *regs)
{
	struct hwbp_reg_nv nv[80];
	int n = hwbp_regs_list(cpu, regs, nv, 80);

	for (int i = 0; i < n; i++) {
		if (!o->json) {
			printf("%-8s = 0x%016" PRIx64 "\n", nv[i].name, nv[i].value);
			continue;
		}
		printf("%s", i ? ", " : "");
		cli_json_str(nv[i].name);
		printf(": ");
		cli_json_hex(nv[i].value);
	}
}

int hwbp_cli_encode(int argc, char **argv)
{
	static struct hwbp_ctx ctx;
	static struct hwbp_slots percpu[1];
	struct hwbp_request r[HWBP_MAX_REQUESTS];
	int ids[HWBP_MAX_REQUESTS];
	struct cli_args a;
	struct reqopts o;
	struct hwbp_cpu cpu;
	char label[160];
	int ret, n;

	cli_init(&a, "encode", encode_usage, argc, argv, encode_opts);
	ret = parse_reqopts(&a, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	ret = cli_load_cpu("encode", o.cpu, &cpu);
	if (ret)
		return ret;
	if (o.npos == 0 || o.npos % 3)
		return usage_error("encode: expected ADDR LEN TYPE triples%s", "");
	n = o.npos / 3;
	/* Every word first: a bad one is a usage error, before any output. */
	for (int i = 0; i < n; i++)
		if ((ret = parse_request(&o.pos[3 * i], &o, &r[i])))
			return ret;
	hwbp_ctx_init(&ctx, &cpu, 1, percpu, NULL);
	for (int i = 0; i < n; i++) {
		ret = hwbp_install(&ctx, &r[i], 0, NULL, &ids[i]);
		if (ret) {
			char what[160];

			snprintf(what, sizeof(what), "encode: request %d (%s %s %s)", i, o.pos[3 * i],
				 o.pos[3 * i + 1], o.pos[3 * i + 2]);
			return refused(&o, what, ret, &cpu, r[i].type);
		}
	}
	if (o.json) {
		printf("{\"cpu\": ");
		cli_json_str(cli_cpu_label(o.cpu, &cpu, label, sizeof(label)));
		printf(", \"requests\": [");
	}
	for (int i = 0; i < n; i++)
		print_request(&o, &ctx, ids[i], &r[i], i == 0);
	if (o.json)
		printf("], \"registers\": {");
	print_regs(&o, &cpu, &ctx.percpu[0].regs);
	if (o.json)
		printf("}}\n");
	return 0;
}
