/* SPDX-License-Identifier: MIT */
/*
 * hwbp decode: a debug exception's status, given as register values,
 * mapped to the slots it names and, with --watch, to the requests.
 * Which status fields a CPU has comes from the library
 * (hwbp_status_field, hwbp_status_set): nothing here knows an arch.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <hwbp/hwbp.h>

#include "cli.h"
#include "common.h"
#include "util.h"

static const char usage[] =
	"usage: hwbp decode --cpu PRESET [--watch ADDR,LEN,TYPE]... [--access ADDR,SIZE,KIND]\n"
	"                   [--json] [REG=VALUE]... STATUS=VALUE...\n"
	"Decode a debug exception. STATUS=VALUE gives the CPU's status register fields\n"
	"(listed by 'hwbp caps --cpu PRESET' on its 'status' line) and ip. With --watch\n"
	"the requests are placed (as 'hwbp encode' would) and hits are mapped to them;\n"
	"otherwise give the armed debug registers as REG=VALUE, with the names\n"
	"'hwbp encode' prints. Exit 1 when the status is no debug event of this CPU or\n"
	"matches no armed slot.\n"
	"  --cpu PRESET             the CPU model (hwbp caps --list), or host\n"
	"  --watch ADDR,LEN,TYPE    a request placed before decoding (repeatable)\n"
	"  --access ADDR,SIZE,KIND  what is known of the access (KIND r, w, x or -),\n"
	"                           for filtering hits on extra bytes\n"
	"  --json                   one JSON object; addresses are \"0x...\" strings\n"
	"  --help, --version\n";

enum { OPT_CPU = CLI_OPT_BASE, OPT_WATCH, OPT_ACCESS, OPT_JSON };

static const struct cli_opt opts[] = {
	{ "cpu", "a PRESET", OPT_CPU },
	{ "watch", "ADDR,LEN,TYPE", OPT_WATCH },
	{ "access", "ADDR,SIZE,KIND", OPT_ACCESS },
	{ "json", NULL, OPT_JSON },
	{ NULL, NULL, 0 },
};

struct decode_args {
	const char *cpu;
	const char *watch[HWBP_MAX_REQUESTS];
	unsigned nwatch;
	const char *access;
	const char *regs[64];   /* REG=VALUE and STATUS=VALUE words */
	unsigned nregs;
	bool json;
};

static int split3(const char *s, uint64_t *a, uint64_t *b, char *c, size_t cn)
{
	char buf[128], *p1, *p2;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	p1 = strchr(buf, ',');
	if (!p1)
		return -EINVAL;
	*p1++ = '\0';
	p2 = strchr(p1, ',');
	if (!p2)
		return -EINVAL;
	*p2++ = '\0';
	if (hwbp_parse_u64(buf, a) || hwbp_parse_u64(p1, b) || strlen(p2) >= cn)
		return -EINVAL;
	strcpy(c, p2);
	return 0;
}

static int parse_args(int argc, char **argv, struct decode_args *d)
{
	struct cli_args a;
	int id;

	memset(d, 0, sizeof(*d));
	cli_init(&a, "decode", usage, argc, argv, opts);
	while ((id = cli_next(&a)) != CLI_END) {
		switch (id) {
		case CLI_EXIT:
			return a.status ? a.status : -1;
		case OPT_CPU:
			d->cpu = a.arg;
			break;
		case OPT_JSON:
			d->json = true;
			break;
		case OPT_ACCESS:
			d->access = a.arg;
			break;
		case OPT_WATCH:
			if (d->nwatch == HWBP_MAX_REQUESTS)
				return usage_error("decode: too many --watch at '%s'", a.arg);
			d->watch[d->nwatch++] = a.arg;
			break;
		case CLI_ARG:
			if (!strchr(a.arg, '=') || a.arg[0] == '=')
				return usage_error("decode: unexpected argument '%s' (try --help)", a.arg);
			if (d->nregs == sizeof(d->regs) / sizeof(d->regs[0]))
				return usage_error("decode: too many registers at '%s'", a.arg);
			d->regs[d->nregs++] = a.arg;
			break;
		}
	}
	return 0;
}

static int parse_access(const char *s, struct hwbp_access *acc)
{
	char kind[8];

	memset(acc, 0, sizeof(*acc));
	acc->priv = -1;
	if (split3(s, &acc->addr, &acc->size, kind, sizeof(kind)))
		return usage_error("bad --access '%s': expected ADDR,SIZE,KIND", s);
	if (strcmp(kind, "-") == 0)
		acc->kind = 0;
	else if (hwbp_type_parse(kind, &acc->kind) || acc->kind == HWBP_RW)
		return usage_error("bad --access kind in '%s': expected r, w, x or -", s);
	return 0;
}

/* REG=VALUE words: status fields first, then the debug registers. */
static int parse_regs(const struct decode_args *d, const struct hwbp_cpu *cpu,
		      struct hwbp_status *st, struct hwbp_regs *regs, bool *have_status,
		      bool *have_raw)
{
	for (unsigned i = 0; i < d->nregs; i++) {
		const char *w = d->regs[i], *eq = strchr(w, '=');
		char key[16];
		uint64_t v;
		int r;

		if ((size_t)(eq - w) >= sizeof(key))
			return usage_error("unknown register in '%s' for this CPU", w);
		memcpy(key, w, (size_t)(eq - w));
		key[eq - w] = '\0';
		if (hwbp_parse_u64(eq + 1, &v))
			return usage_error("bad value in '%s': expected a number", w);
		r = hwbp_status_set(cpu, st, key, v);
		if (r == 1)
			*have_status = true;
		else if (r == 0)
			;
		else if (hwbp_regs_set(cpu, regs, key, v) == 0)
			*have_raw = true;
		else
			return usage_error("unknown register in '%s' for this CPU", w);
	}
	return 0;
}

static void print_result(const struct decode_args *d, const struct hwbp_ctx *ctx,
			 const struct hwbp_hit *hit)
{
	char name[16];
	bool first = true;

	printf(d->json ? "{\"cpu\": " : "slots     ");
	if (d->json) {
		cli_json_str(ctx->cpu.name);
		printf(", \"slots\": [");
	}
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned k = 0; k < HWBP_MAX_SLOTS; k++) {
			if (!(((pass ? hit->inst_slots : hit->data_slots) >> k) & 1u))
				continue;
			hwbp_slot_name(&ctx->cpu, pass, k, name, sizeof(name));
			printf("%s", d->json ? (first ? "" : ", ") : " ");
			if (d->json)
				cli_json_str(name);
			else
				fputs(name, stdout);
			first = false;
		}
	printf(d->json ? "]" : "\n");
	if (d->nwatch) {
		printf(d->json ? ", \"requests\": [" : "requests  ");
		first = true;
		for (unsigned id = 0; id < HWBP_MAX_REQUESTS; id++) {
			const struct hwbp_plan *p = hwbp_plan_of(ctx, (int)id);

			if (!p || !(hit->requests & (UINT64_C(1) << id)))
				continue;
			if (!d->json) {
				printf(" #%u(0x%" PRIx64 "/%" PRIu64 ":%s)", id, p->req.addr,
				       p->req.len, hwbp_type_name(p->req.type));
				continue;
			}
			printf("%s{\"id\": %u, \"addr\": ", first ? "" : ", ", id);
			cli_json_hex(p->req.addr);
			printf(", \"len\": %" PRIu64 ", \"type\": \"%s\"}", p->req.len,
			       hwbp_type_name(p->req.type));
			first = false;
		}
		if (d->json)
			printf("], \"filtered\": %s", cli_json_bool(hit->filtered));
		else
			printf("%s\n", hit->filtered ? " none: filtered (only extra bytes or another kind touched)" : "");
	}
	if (d->json) {
		printf(", \"kind\": ");
		if (hit->kind)
			cli_json_str(hwbp_type_name(hit->kind));
		else
			printf("null");
		printf(", \"address\": ");
		if (hit->addr_known)
			cli_json_hex(hit->addr);
		else
			printf("null");
		printf("}\n");
		return;
	}
	printf("kind       %s\n", hit->kind ? hwbp_type_name(hit->kind) : "unknown");
	if (hit->addr_known)
		printf("address    0x%" PRIx64 "\n", hit->addr);
	else
		printf("address    unknown\n");
}

static int refused(const struct decode_args *d, const char *what, int err, const char *why)
{
	if (d->json) {
		printf("{\"error\": \"%s\", \"message\": ", hwbp_errno_name(err));
		cli_json_str(why);
		printf("}\n");
	} else {
		fprintf(stderr, "hwbp: decode: %s%s: %s\n", what, hwbp_errno_name(err), why);
	}
	return EXIT_REFUSED;
}

int hwbp_cli_decode(int argc, char **argv)
{
	static struct hwbp_ctx ctx;
	static struct hwbp_slots percpu[1];
	struct decode_args d;
	struct hwbp_cpu cpu;
	struct hwbp_regs regs;
	struct hwbp_status st;
	struct hwbp_access acc;
	struct hwbp_hit hit;
	bool have_status = false, have_raw = false;
	int ret = parse_args(argc, argv, &d);

	if (ret)
		return ret < 0 ? 0 : ret;
	ret = cli_load_cpu("decode", d.cpu, &cpu);
	if (ret)
		return ret;
	if (d.access && (ret = parse_access(d.access, &acc)))
		return ret;
	hwbp_ctx_init(&ctx, &cpu, 1, percpu, NULL);
	hwbp_regs_reset(&cpu, &regs);
	memset(&st, 0, sizeof(st));
	for (unsigned i = 0; i < d.nwatch; i++) {
		struct hwbp_request r = { 0 };
		char kind[8], what[160];
		int id;

		if (split3(d.watch[i], &r.addr, &r.len, kind, sizeof(kind)) ||
		    hwbp_type_parse(kind, &r.type))
			return usage_error("bad --watch '%s': expected ADDR,LEN,TYPE", d.watch[i]);
		r.flags = HWBP_REQ_WIDEN;
		ret = hwbp_install(&ctx, &r, 0, NULL, &id);
		if (ret) {
			snprintf(what, sizeof(what), "--watch %s: ", d.watch[i]);
			return refused(&d, what, ret, cli_refusal(ret, &cpu, r.type));
		}
	}
	ret = parse_regs(&d, &cpu, &st, &regs, &have_status, &have_raw);
	if (ret)
		return ret;
	if (!have_status)
		return usage_error("decode: missing the status register: give %s", hwbp_status_hint(&cpu));
	if (d.access && !d.nwatch)
		return usage_error("decode: %s", "--access filters --watch requests: give them too");
	if (d.nwatch && have_raw)
		return usage_error("decode: %s", "give either --watch requests or raw registers, not both");
	if (d.nwatch)
		ret = hwbp_decode(&ctx, 0, NULL, &st, d.access ? &acc : NULL, &hit);
	else
		ret = hwbp_decode_status(&cpu, &regs, &st, &hit);
	if (ret)
		return refused(&d, "", ret, ret == -ENOENT ? "a debug event that matches no armed slot"
							   : "the status is not a debug event of this CPU");
	print_result(&d, &ctx, &hit);
	return 0;
}
