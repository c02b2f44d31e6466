/* SPDX-License-Identifier: MIT */
/*
 * hwbp — command-line front end: caps, plan, encode, decode.
 *
 * Exit status: 0 success; 1 the library refused the request (plan/encode
 * with an errno); 2 a bad command line (one line naming the argument).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>

#include "cli.h"
#include "format.h"

static const char *prog = "hwbp";

int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

/* Strict number parsing: decimal or 0x hex, whole string, no sign. */
static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static int parse_scope(const char *s, enum hwbp_scope *scope)
{
	if (strcmp(s, "both") == 0)
		*scope = HWBP_SCOPE_BOTH;
	else if (strcmp(s, "user") == 0)
		*scope = HWBP_SCOPE_USER;
	else if (strcmp(s, "kernel") == 0)
		*scope = HWBP_SCOPE_KERNEL;
	else
		return -EINVAL;
	return 0;
}

static const char *scope_name(enum hwbp_scope s)
{
	return s == HWBP_SCOPE_USER ? "user" : s == HWBP_SCOPE_KERNEL ? "kernel" : "both";
}

static int load_cpu(const char *name, struct hwbp_cpu *cpu)
{
	uint64_t dfr0;

	if (!name)
		return usage_error("%s", "missing --cpu PRESET (see 'hwbp caps --list')");
	/* "arm64:0xVALUE" builds an arm64 CPU from a raw ID_AA64DFR0_EL1. */
	if (strncmp(name, "arm64:", 6) == 0) {
		if (parse_u64(name + 6, &dfr0) || hwbp_cpu_arm64_from_dfr0(dfr0, cpu))
			return usage_error("bad --cpu '%s': expected arm64:ID_AA64DFR0_EL1 with DebugVer >= 6", name);
		return 0;
	}
	if (hwbp_cpu_preset(name, cpu))
		return usage_error("unknown --cpu '%s' (see 'hwbp caps --list')", name);
	return 0;
}

/* ---------------------------------------------------------------- caps */

static const char *timing_name(enum hwbp_timing t)
{
	return t == HWBP_TIMING_AFTER ? "after" : "before";
}

static const char *precision_name(enum hwbp_precision p)
{
	return p == HWBP_ADDR_EXACT ? "exact" : p == HWBP_ADDR_WINDOW ? "window" : "none";
}

static const char *align_text(const struct hwbp_caps *c)
{
	switch (c->align) {
	case HWBP_ALIGN_NATURAL:
		return "power-of-two lengths, address aligned to the length";
	case HWBP_ALIGN_BAS:
		return "any contiguous bytes within a doubleword (BAS), or an aligned power-of-two block of 8 B..2 GiB (MASK)";
	case HWBP_ALIGN_DWORD:
		return "doubleword ranges (address and length multiples of 8)";
	}
	return "?";
}

static void types_text(const struct hwbp_caps *c, char *buf, size_t n)
{
	static const unsigned all[] = { HWBP_R, HWBP_W, HWBP_RW, HWBP_X };
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < 4; i++)
		if ((c->types >> all[i]) & 1u)
			used += (size_t)snprintf(buf + used, n - used, "%s%s",
						 used ? " " : "", hwbp_type_name(all[i]));
}

static int caps_help(void)
{
	puts("usage: hwbp caps --list\n"
	     "       hwbp caps --cpu PRESET|arm64:DFR0 [--json]\n"
	     "Print the CPU presets, or the capability table of one CPU model.");
	return 0;
}

static int cmd_caps(int argc, char **argv)
{
	const char *cpuname = NULL;
	bool json = false, list = false;
	struct hwbp_cpu cpu;
	struct hwbp_caps c;
	char types[32];
	int ret;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return caps_help();
		else if (strcmp(argv[i], "--list") == 0)
			list = true;
		else if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--cpu") == 0 && i + 1 < argc)
			cpuname = argv[++i];
		else
			return usage_error("caps: unexpected argument '%s' (try --help)", argv[i]);
	}
	if (list) {
		for (unsigned i = 0; hwbp_cpu_preset_name(i); i++) {
			struct hwbp_cpu p;

			hwbp_cpu_preset(hwbp_cpu_preset_name(i), &p);
			printf("%-12s %s\n", hwbp_cpu_preset_name(i), hwbp_arch_name(p.arch));
		}
		return 0;
	}
	ret = load_cpu(cpuname, &cpu);
	if (ret)
		return ret;
	hwbp_caps_get(&cpu, &c);
	types_text(&c, types, sizeof(types));
	if (json) {
		printf("{\"cpu\": \"%s\", \"arch\": \"%s\", \"data_slots\": %u, \"inst_slots\": %u, "
		       "\"shared\": %s, \"types\": \"%s\", \"align\": \"%s\", "
		       "\"min_piece\": %" PRIu64 ", \"max_piece\": %" PRIu64 ", \"granule\": %" PRIu64 ", "
		       "\"boundary\": %" PRIu64 ", \"inst_len\": %" PRIu64 ", \"inst_align\": %" PRIu64 ", "
		       "\"data_timing\": \"%s\", \"inst_timing\": \"%s\", \"precision\": \"%s\", "
		       "\"kind_known\": %s, \"priv_filter\": %s, \"user_max\": %" PRIu64 ", "
		       "\"kernel_min\": %" PRIu64 ", \"addr_max\": %" PRIu64 "}\n",
		       cpu.name, hwbp_arch_name(cpu.arch), c.data_slots, c.inst_slots,
		       c.shared ? "true" : "false", types,
		       c.align == HWBP_ALIGN_NATURAL ? "natural" : c.align == HWBP_ALIGN_BAS ? "bas" : "dword",
		       c.min_piece, c.max_piece, c.granule, c.boundary, c.inst_len, c.inst_align,
		       timing_name(c.data_timing), timing_name(c.inst_timing),
		       precision_name(c.precision), c.kind_known ? "true" : "false",
		       c.priv_filter ? "true" : "false", c.user_max, c.kernel_min, c.addr_max);
		return 0;
	}
	printf("cpu         %s (%s)\n", cpu.name, hwbp_arch_name(cpu.arch));
	if (c.shared)
		printf("slots       %u, shared by execute and data\n", c.data_slots);
	else
		printf("slots       %u data (watchpoints), %u execute (breakpoints)\n",
		       c.data_slots, c.inst_slots);
	printf("types       %s%s\n", types,
	       (c.types >> HWBP_R) & 1u ? "" : "   (no read-only: --widen makes R into RW, writes filtered)");
	printf("lengths     %s\n", align_text(&c));
	printf("pieces      %" PRIu64 " .. %" PRIu64 " bytes each\n", c.min_piece, c.max_piece);
	printf("granule     %" PRIu64 " byte%s\n", c.granule, c.granule == 1 ? "" : "s (sub-granule requests get extraneous hits, filtered)");
	if (c.boundary)
		printf("boundary    a piece may not cross a %" PRIu64 "-byte boundary\n", c.boundary);
	else
		printf("boundary    none\n");
	printf("execute     %" PRIu64 " byte%s per breakpoint, address multiple of %" PRIu64 "\n",
	       c.inst_len, c.inst_len == 1 ? "" : "s", c.inst_align);
	printf("timing      data hits %s the access, execute hits %s the instruction\n",
	       timing_name(c.data_timing), timing_name(c.inst_timing));
	printf("address     %s\n",
	       c.precision == HWBP_ADDR_EXACT ? "exact: the access's effective address" :
	       c.precision == HWBP_ADDR_WINDOW ? "window: an address between the access start and the highest watched byte accessed" :
	       "none: the status names the slot only");
	printf("kind        %s\n", c.kind_known ? "read or write reported by the hardware" : "not reported (RW hits are of unknown kind)");
	printf("privilege   %s\n", c.priv_filter ? "filtered by hardware" : "not filtered by hardware (filtered at decode)");
	printf("user        0x0 .. 0x%" PRIx64 "\n", c.user_max);
	printf("kernel      0x%" PRIx64 " .. 0x%" PRIx64 "\n", c.kernel_min, c.addr_max);
	return 0;
}

/* ---------------------------------------------------------------- plan */

struct reqopts {
	const char *cpu;
	enum hwbp_scope scope;
	unsigned flags;
	bool json;
	uint64_t free;
	const char *pos[48];
	int npos;
};

/* Parse the options shared by plan/encode; positional words go to pos[]. */
static int parse_reqopts(int argc, char **argv, struct reqopts *o, int (*help)(void))
{
	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			help();
			return -1;
		} else if (strcmp(a, "--cpu") == 0 && i + 1 < argc) {
			o->cpu = argv[++i];
		} else if (strcmp(a, "--scope") == 0 && i + 1 < argc) {
			if (parse_scope(argv[++i], &o->scope))
				return usage_error("bad --scope '%s': expected user, kernel or both", argv[i]);
		} else if (strcmp(a, "--widen") == 0) {
			o->flags |= HWBP_REQ_WIDEN;
		} else if (strcmp(a, "--exact") == 0) {
			o->flags |= HWBP_REQ_EXACT;
		} else if (strcmp(a, "--local") == 0) {
			o->flags |= HWBP_REQ_LOCAL;
		} else if (strcmp(a, "--json") == 0) {
			o->json = true;
		} else if (strcmp(a, "--free") == 0 && i + 1 < argc) {
			if (parse_u64(argv[++i], &o->free) || o->free == 0 || o->free > HWBP_MAX_SLOTS)
				return usage_error("bad --free '%s': expected 1..16 slots", argv[i]);
		} else if (a[0] == '-' && a[1] == '-') {
			return usage_error("unknown or incomplete option '%s' (try --help)", a);
		} else {
			if (o->npos == (int)(sizeof(o->pos) / sizeof(o->pos[0])))
				return usage_error("too many arguments at '%s'", a);
			o->pos[o->npos++] = a;
		}
	}
	return 0;
}

static int parse_request(const char *const *w, const struct reqopts *o, struct hwbp_request *r)
{
	memset(r, 0, sizeof(*r));
	if (parse_u64(w[0], &r->addr))
		return usage_error("bad ADDR '%s': expected a number (decimal or 0x hex)", w[0]);
	if (parse_u64(w[1], &r->len))
		return usage_error("bad LEN '%s': expected a number of bytes", w[1]);
	if (hwbp_type_parse(w[2], &r->type))
		return usage_error("bad TYPE '%s': expected r, w, rw or x", w[2]);
	r->scope = o->scope;
	r->flags = o->flags;
	return 0;
}

static const char *errmsg(int err, const struct hwbp_cpu *cpu)
{
	switch (-err) {
	case EINVAL:
		return "invalid request (zero length, or an execute request off the instruction grid)";
	case ERANGE:
		return "the range is larger than this CPU can watch, or wraps the address space";
	case EFAULT:
		return "the address is outside the scope's address space (or non-canonical)";
	case EOPNOTSUPP:
		return cpu->arch == HWBP_ARCH_X86 ? "x86 cannot watch reads only (DR7 RW=10 is I/O): use --widen for RW with writes filtered"
						  : "this CPU lacks that type, or cannot express that scope for it";
	case ENOSPC:
		return "not enough free slots";
	}
	return strerror(-err);
}

static int plan_help(void)
{
	puts("usage: hwbp plan --cpu PRESET [--scope user|kernel|both] [--widen] [--exact]\n"
	     "                 [--free N] [--json] ADDR LEN TYPE\n"
	     "Split a request into hardware pieces. TYPE is r, w, rw or x. --free N plans\n"
	     "for N free slots (default: the whole pool). Exit 1 if the CPU cannot hold it.");
	return 0;
}

static void print_plan_json(const struct hwbp_cpu *cpu, const struct hwbp_plan *p)
{
	printf("{\"cpu\": \"%s\", \"addr\": %" PRIu64 ", \"len\": %" PRIu64
	       ", \"type\": \"%s\", \"hw_type\": \"%s\", \"scope\": \"%s\", \"widened\": %s, "
	       "\"exact\": %s, \"enlarged\": %s, \"extra_bytes\": %" PRIu64 ", \"slots\": %u, "
	       "\"pool\": \"%s\", \"pieces\": [",
	       cpu->name, p->req.addr, p->req.len, hwbp_type_name(p->req.type),
	       hwbp_type_name(p->type), scope_name(p->req.scope), p->widened ? "true" : "false",
	       p->exact ? "true" : "false", p->enlarged ? "true" : "false", p->extra_bytes,
	       p->n, p->inst ? "inst" : "data");
	for (unsigned i = 0; i < p->n; i++)
		printf("%s{\"addr\": %" PRIu64 ", \"len\": %" PRIu64 ", \"cover_addr\": %" PRIu64
		       ", \"cover_len\": %" PRIu64 "}", i ? ", " : "", p->piece[i].addr,
		       p->piece[i].len, p->piece[i].cover_lo, p->piece[i].cover_len);
	printf("]}\n");
}

static void print_plan_text(const struct hwbp_plan *p)
{
	printf("request  0x%" PRIx64 " len %" PRIu64 " %s scope %s\n", p->req.addr, p->req.len,
	       hwbp_type_name(p->req.type), scope_name(p->req.scope));
	printf("plan     %s%s, %u piece%s (%u %s slot%s), %" PRIu64 " extra byte%s watched\n",
	       p->exact ? "exact" : p->enlarged ? "enlarged" : "granule-rounded",
	       p->widened ? ", widened to RW" : "", p->n, p->n == 1 ? "" : "s", p->n,
	       p->inst ? "execute" : "data", p->n == 1 ? "" : "s", p->extra_bytes,
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

static int cmd_plan(int argc, char **argv)
{
	struct reqopts o;
	struct hwbp_cpu cpu;
	struct hwbp_request r;
	struct hwbp_plan p;
	int ret = parse_reqopts(argc, argv, &o, plan_help);

	if (ret)
		return ret < 0 ? 0 : ret;
	ret = load_cpu(o.cpu, &cpu);
	if (ret)
		return ret;
	if (o.npos != 3)
		return usage_error("plan: expected ADDR LEN TYPE%s", o.npos > 3 ? ", got more" : "");
	ret = parse_request(o.pos, &o, &r);
	if (ret)
		return ret;
	ret = hwbp_plan(&cpu, &r, (unsigned)o.free, &p);
	if (ret) {
		if (o.json)
			printf("{\"error\": \"%s\", \"message\": \"%s\"}\n", hwbp_errno_name(ret), errmsg(ret, &cpu));
		else
			fprintf(stderr, "hwbp: plan: %s: %s\n", hwbp_errno_name(ret), errmsg(ret, &cpu));
		return EXIT_REFUSED;
	}
	if (o.json)
		print_plan_json(&cpu, &p);
	else
		print_plan_text(&p);
	return 0;
}

/* -------------------------------------------------------------- encode */

static int encode_help(void)
{
	puts("usage: hwbp encode --cpu PRESET [--scope S] [--widen] [--local] [--exact]\n"
	     "                   ADDR LEN TYPE [ADDR LEN TYPE]...\n"
	     "Place the requests together on one CPU and print the debug registers.");
	return 0;
}

static void print_regs(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs)
{
	struct hwbp_reg_nv nv[80];
	int n = hwbp_regs_list(cpu, regs, nv, 80);

	for (int i = 0; i < n; i++)
		printf("%-8s = 0x%016" PRIx64 "\n", nv[i].name, nv[i].value);
}

static void print_slots_of(const struct hwbp_ctx *ctx, int id)
{
	const struct hwbp_slots *s = &ctx->percpu[0];
	char name[16];

	for (unsigned k = 0; k < HWBP_MAX_SLOTS; k++) {
		if (s->data[k].refs && (s->data[k].requests & (UINT64_C(1) << id))) {
			hwbpi_slot_name(&ctx->cpu, s->data[k].piece.type == HWBP_X, k, name, sizeof(name));
			printf(" %s", name);
		}
		if (s->inst[k].refs && (s->inst[k].requests & (UINT64_C(1) << id))) {
			hwbpi_slot_name(&ctx->cpu, true, k, name, sizeof(name));
			printf(" %s", name);
		}
	}
}

static int cmd_encode(int argc, char **argv)
{
	static struct hwbp_ctx ctx;
	static struct hwbp_slots percpu[1];
	struct reqopts o;
	struct hwbp_cpu cpu;
	int ret = parse_reqopts(argc, argv, &o, encode_help);

	if (ret)
		return ret < 0 ? 0 : ret;
	ret = load_cpu(o.cpu, &cpu);
	if (ret)
		return ret;
	if (o.npos == 0 || o.npos % 3)
		return usage_error("encode: expected ADDR LEN TYPE triples%s", "");
	hwbp_ctx_init(&ctx, &cpu, 1, percpu, NULL);
	for (int i = 0; i < o.npos; i += 3) {
		struct hwbp_request r;
		int id;

		ret = parse_request(&o.pos[i], &o, &r);
		if (ret)
			return ret;
		ret = hwbp_install(&ctx, &r, 0, NULL, &id);
		if (ret) {
			fprintf(stderr, "hwbp: encode: request %d (%s %s %s): %s: %s\n", i / 3,
				o.pos[i], o.pos[i + 1], o.pos[i + 2], hwbp_errno_name(ret), errmsg(ret, &cpu));
			return EXIT_REFUSED;
		}
		printf("request %d  0x%" PRIx64 " len %" PRIu64 " %s ->", id, r.addr, r.len,
		       hwbp_type_name(r.type));
		print_slots_of(&ctx, id);
		printf("%s\n", hwbp_plan_of(&ctx, id)->exact ? "" : "  (watches extra bytes)");
	}
	print_regs(&cpu, &ctx.percpu[0].regs);
	return 0;
}

/* -------------------------------------------------------------- decode */

static int decode_help(void)
{
	puts("usage: hwbp decode --cpu PRESET [--watch ADDR,LEN,TYPE]... [--access ADDR,SIZE,KIND]\n"
	     "                   [REG=VALUE]... STATUS=VALUE...\n"
	     "Decode a debug exception. STATUS is dr6 (x86), esr and far (arm64), or\n"
	     "vector, dsisr, dar and srr1 (powerpc), plus ip. With --watch the requests are placed\n"
	     "(as 'hwbp encode' would) and hits are mapped to them; otherwise give the\n"
	     "armed registers as REG=VALUE (dr7=..., dbgwcr0=..., dawrx0=...).\n"
	     "--access gives what is known of the access (KIND r, w, x or -) for filtering.");
	return 0;
}

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
	if (parse_u64(buf, a) || parse_u64(p1, b) || strlen(p2) >= cn)
		return -EINVAL;
	strcpy(c, p2);
	return 0;
}

static int cmd_decode(int argc, char **argv)
{
	static struct hwbp_ctx ctx;
	static struct hwbp_slots percpu[1];
	const char *cpuname = NULL;
	struct hwbp_cpu cpu;
	struct hwbp_regs regs;
	struct hwbp_status st;
	struct hwbp_access acc;
	struct hwbp_hit hit;
	bool have_acc = false, have_status = false, have_raw = false;
	int nwatch = 0, ret;
	char name[16];

	memset(&st, 0, sizeof(st));
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return decode_help();
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--cpu") == 0 && i + 1 < argc)
			cpuname = argv[i + 1];
	ret = load_cpu(cpuname, &cpu);
	if (ret)
		return ret;
	hwbp_ctx_init(&ctx, &cpu, 1, percpu, NULL);
	hwbp_regs_reset(&cpu, &regs);

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char kind[8], key[16];
		const char *eq;
		uint64_t v, x, y;

		if (strcmp(a, "--cpu") == 0) {
			i++;
		} else if (strcmp(a, "--watch") == 0 && i + 1 < argc) {
			struct hwbp_request r = { 0 };
			int id;

			a = argv[++i];
			if (split3(a, &r.addr, &r.len, kind, sizeof(kind)) || hwbp_type_parse(kind, &r.type))
				return usage_error("bad --watch '%s': expected ADDR,LEN,TYPE", a);
			r.flags = HWBP_REQ_WIDEN;
			ret = hwbp_install(&ctx, &r, 0, NULL, &id);
			if (ret) {
				fprintf(stderr, "hwbp: decode: --watch %s: %s: %s\n", a,
					hwbp_errno_name(ret), errmsg(ret, &cpu));
				return EXIT_REFUSED;
			}
			nwatch++;
		} else if (strcmp(a, "--access") == 0 && i + 1 < argc) {
			a = argv[++i];
			memset(&acc, 0, sizeof(acc));
			acc.priv = -1;
			if (split3(a, &x, &y, kind, sizeof(kind)))
				return usage_error("bad --access '%s': expected ADDR,SIZE,KIND", a);
			acc.addr = x;
			acc.size = y;
			if (strcmp(kind, "-") == 0)
				acc.kind = 0;
			else if (hwbp_type_parse(kind, &acc.kind) || acc.kind == HWBP_RW)
				return usage_error("bad --access kind in '%s': expected r, w, x or -", a);
			have_acc = true;
		} else if ((eq = strchr(a, '=')) && eq > a && (size_t)(eq - a) < sizeof(key)) {
			memcpy(key, a, (size_t)(eq - a));
			key[eq - a] = '\0';
			if (parse_u64(eq + 1, &v))
				return usage_error("bad value in '%s': expected a number", a);
			if (strcmp(key, "ip") == 0) {
				st.ip = v;
			} else if (cpu.arch == HWBP_ARCH_X86 && strcmp(key, "dr6") == 0) {
				st.u.x86.dr6 = v;
				have_status = true;
			} else if (cpu.arch == HWBP_ARCH_ARM64 && strcmp(key, "esr") == 0) {
				st.u.arm64.esr = v;
				have_status = true;
			} else if (cpu.arch == HWBP_ARCH_ARM64 && strcmp(key, "far") == 0) {
				st.u.arm64.far = v;
			} else if (cpu.arch == HWBP_ARCH_POWERPC && strcmp(key, "vector") == 0) {
				st.u.ppc.vector = v;
				have_status = true;
			} else if (cpu.arch == HWBP_ARCH_POWERPC && strcmp(key, "dsisr") == 0) {
				st.u.ppc.dsisr = v;
			} else if (cpu.arch == HWBP_ARCH_POWERPC && strcmp(key, "dar") == 0) {
				st.u.ppc.dar = v;
			} else if (cpu.arch == HWBP_ARCH_POWERPC && strcmp(key, "srr1") == 0) {
				st.u.ppc.srr1 = v;
			} else if (hwbp_regs_set(&cpu, &regs, key, v) == 0) {
				have_raw = true;
			} else {
				return usage_error("unknown register in '%s' for this CPU", a);
			}
		} else {
			return usage_error("decode: unexpected argument '%s' (try --help)", a);
		}
	}
	if (cpu.arch == HWBP_ARCH_POWERPC && !have_status && (st.u.ppc.dsisr || st.u.ppc.dar)) {
		st.u.ppc.vector = 0x300; /* DSI unless told otherwise */
		have_status = true;
	}
	if (!have_status)
		return usage_error("decode: missing the status register (%s)",
				   cpu.arch == HWBP_ARCH_X86 ? "dr6=..." :
				   cpu.arch == HWBP_ARCH_ARM64 ? "esr=... far=..." : "dsisr=... dar=...");
	if (nwatch && have_raw)
		return usage_error("decode: %s", "give either --watch requests or raw registers, not both");

	if (nwatch)
		ret = hwbp_decode(&ctx, 0, NULL, &st, have_acc ? &acc : NULL, &hit);
	else
		ret = hwbp_decode_status(&cpu, &regs, &st, &hit);
	if (ret) {
		fprintf(stderr, "hwbp: decode: %s: %s\n", hwbp_errno_name(ret),
			ret == -ENOENT ? "a debug event that matches no armed slot"
				       : "the status is not a debug event of this CPU");
		return EXIT_REFUSED;
	}
	printf("slots     ");
	for (unsigned k = 0; k < HWBP_MAX_SLOTS; k++) {
		if (hit.data_slots & (1u << k)) {
			hwbpi_slot_name(&cpu, false, k, name, sizeof(name));
			printf(" %s", name);
		}
		if (hit.inst_slots & (1u << k)) {
			hwbpi_slot_name(&cpu, true, k, name, sizeof(name));
			printf(" %s", name);
		}
	}
	putchar('\n');
	if (nwatch) {
		printf("requests  ");
		for (unsigned id = 0; id < HWBP_MAX_REQUESTS; id++) {
			const struct hwbp_plan *p = hwbp_plan_of(&ctx, (int)id);

			if (p && (hit.requests & (UINT64_C(1) << id)))
				printf(" #%u(0x%" PRIx64 "/%" PRIu64 ":%s)", id, p->req.addr, p->req.len,
				       hwbp_type_name(p->req.type));
		}
		printf("%s\n", hit.filtered ? " none: filtered (only extra bytes or another kind touched)" : "");
	}
	printf("kind       %s\n", hit.kind ? hwbp_type_name(hit.kind) : "unknown");
	if (hit.addr_known)
		printf("address    0x%" PRIx64 "\n", hit.addr);
	else
		printf("address    unknown\n");
	return 0;
}

/* ----------------------------------------------------------------- sim */

static int sim_help(void)
{
	puts("usage: hwbp sim [--profile sdm|qemu] [--emit] FILE...\n"
	     "       hwbp sim --quirks   (the table of QEMU departures from the manuals)\n"
	     "       hwbp sim --compile FILE...   (C table for the bare-metal harnesses)\n"
	     "Run scenario files (see docs/scenarios.md) on the simulator. Prints\n"
	     "FILE:LINE: expected ... got ... for each failed expectation and a final\n"
	     "'N passed, N failed'. --emit prints one canonical line per access instead.\n"
	     "Exit 0 when nothing failed, 1 when an expectation failed, 2 when a file\n"
	     "does not parse (FILE:LINE:COL: message).");
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t got;

		if (n == cap) {
			char *p;

			cap = cap ? cap * 2 : 65536;
			p = realloc(buf, cap);
			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

static int cmd_sim(int argc, char **argv)
{
	struct hwbp_scenario_opts o = { HWBP_SIM_SDM, false, stdout };
	struct hwbp_scenario_stats st = { 0, 0, 0 };
	bool bad_parse = false, compile = false;
	int nfiles = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return sim_help();
		if (strcmp(argv[i], "--profile") == 0) {
			if (i + 1 >= argc)
				return usage_error("%s", "--profile needs sdm or qemu");
			i++;
			if (strcmp(argv[i], "sdm") == 0)
				o.profile = HWBP_SIM_SDM;
			else if (strcmp(argv[i], "qemu") == 0)
				o.profile = HWBP_SIM_QEMU;
			else
				return usage_error("bad --profile '%s': expected sdm or qemu", argv[i]);
		} else if (strcmp(argv[i], "--emit") == 0) {
			o.emit = true;
		} else if (strcmp(argv[i], "--compile") == 0) {
			compile = true;
		} else if (strcmp(argv[i], "--quirks") == 0) {
			const struct hwbp_sim_quirk *q;

			for (unsigned k = 0; (q = hwbp_sim_quirk(k)); k++)
				printf("%s [%s]\n  manual: %s\n  qemu:   %s\n  evidence: %s\n", q->id,
				       q->arch, q->sdm, q->qemu, q->evidence);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error("sim: unknown option '%s' (try --help)", argv[i]);
		}
	}
	if (compile)
		printf("/* Generated by hwbp sim --compile: do not edit. */\n"
		       "#include \"hops.h\"\n\nconst struct hop hwbp_hops[] = {\n");
	for (int i = 1; i < argc; i++) {
		char err[512];
		size_t len = 0;
		char *text;
		int ret;

		if (argv[i][0] == '-' && argv[i][1]) {
			if (strcmp(argv[i], "--profile") == 0)
				i++;
			continue;
		}
		nfiles++;
		text = slurp(argv[i], &len);
		if (!text) {
			fprintf(stderr, "hwbp: sim: cannot read '%s': %s\n", argv[i], strerror(errno));
			bad_parse = true;
			continue;
		}
		if (compile)
			ret = hwbp_scenario_compile(argv[i], text, len, stdout, err, sizeof(err));
		else
			ret = hwbp_scenario_run(argv[i], text, len, &o, &st, err, sizeof(err));
		free(text);
		if (ret == -EINVAL) {
			fprintf(stderr, "%s\n", err);
			bad_parse = true;
		} else if (ret) {
			fprintf(stderr, "hwbp: sim: %s: %s\n", argv[i], hwbp_errno_name(ret));
			bad_parse = true;
		}
	}
	if (nfiles == 0)
		return usage_error("%s", "sim: expected scenario FILE...");
	if (compile) {
		printf("\t{ HOP_END, 0, 0, 0, 0, { 0 }, 0, 0, 0, 0, 0 },\n};\n");
		return bad_parse ? EXIT_USAGE : 0;
	}
	if (!o.emit)
		printf("%u passed, %u failed\n", st.passed, st.failed);
	if (bad_parse)
		return EXIT_USAGE;
	return st.failed ? EXIT_REFUSED : 0;
}

/* ---------------------------------------------------------------- main */

static int main_help(void)
{
	fputs("usage: hwbp COMMAND [--help] ...\n"
	      "commands:\n"
	      "  caps     list CPU presets or print one CPU's capabilities\n"
	      "  plan     split a request into hardware pieces\n"
	      "  encode   print the debug registers for requests placed together\n"
	      "  decode   decode a debug exception's status into slots and requests\n"
	      "  sim      run scenario files on the simulator\n"
	      "  trace    watch symbols by name: usage histograms or traces\n"
	      "  bench    benchmarks (bench sim, bench trace)\n",
	      stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("%s", "missing COMMAND: caps, plan, encode or decode (try --help)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0)
		return main_help();
	if (strcmp(argv[1], "caps") == 0)
		return cmd_caps(argc - 1, argv + 1);
	if (strcmp(argv[1], "plan") == 0)
		return cmd_plan(argc - 1, argv + 1);
	if (strcmp(argv[1], "encode") == 0)
		return cmd_encode(argc - 1, argv + 1);
	if (strcmp(argv[1], "decode") == 0)
		return cmd_decode(argc - 1, argv + 1);
	if (strcmp(argv[1], "sim") == 0)
		return cmd_sim(argc - 1, argv + 1);
	if (strcmp(argv[1], "bench") == 0)
		return hwbp_cli_bench(argc - 1, argv + 1);
	if (strcmp(argv[1], "trace") == 0)
		return hwbp_cli_trace(argc - 1, argv + 1);
	return usage_error("unknown command '%s' (try --help)", argv[1]);
}
