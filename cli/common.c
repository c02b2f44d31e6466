/* SPDX-License-Identifier: MIT */
/* See common.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <hwbp/hwbp.h>
#include <hwbp/trace.h>

#include "cli.h"
#include "common.h"
#include "util.h"

enum { ID_HELP = 'h', ID_VERSION = CLI_OPT_BASE - 1 };

void cli_init(struct cli_args *a, const char *cmd, const char *usage, int argc, char **argv,
	      const struct cli_opt *opts)
{
	unsigned n = 0;

	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	a->usage = usage;
	a->argc = argc;
	a->argv = argv;
	a->opts = opts;
	a->neg = -1;
	for (; opts && opts[n].name && n < CLI_MAX_OPTS; n++)
		a->lo[n] = (struct option){ opts[n].name, opts[n].value ? required_argument : no_argument,
					    NULL, opts[n].id };
	a->lo[n++] = (struct option){ "help", no_argument, NULL, ID_HELP };
	a->lo[n++] = (struct option){ "version", no_argument, NULL, ID_VERSION };
	a->lo[n] = (struct option){ NULL, 0, NULL, 0 };
	/* A fresh scan; opterr 0: the messages below are one line each and
	 * name the command. */
	optind = 0;
	opterr = 0;
}

static const struct cli_opt *opt_of(const struct cli_args *a, int id)
{
	for (unsigned i = 0; a->opts && a->opts[i].name; i++)
		if (a->opts[i].id == id)
			return &a->opts[i];
	return NULL;
}

static bool negative_number(const char *s)
{
	return s && s[0] == '-' && s[1] >= '0' && s[1] <= '9';
}

int cli_next(struct cli_args *a)
{
	for (;;) {
		int cur = optind ? optind : 1, c;

		if (a->rest) {
			if (a->rest >= a->argc)
				return CLI_END;
			a->arg = a->argv[a->rest++];
			return CLI_ARG;
		}
		/*
		 * "-" first: words come back in order as 1 (RETURN_IN_ORDER),
		 * so "plan 0x1000 4 w --cpu x" and positional order both
		 * work; ":" then: a missing value returns ':'.
		 */
		c = getopt_long(a->argc, a->argv, "-:h", a->lo, NULL);
		a->arg = optarg;
		if (c == -1) {
			if (optind < a->argc) {
				a->rest = optind; /* after "--" */
				continue;
			}
			return CLI_END;
		}
		if (c == 1)
			return CLI_ARG;
		if (c == ID_HELP) {
			fputs(a->usage, stdout);
			a->status = 0;
			return CLI_EXIT;
		}
		if (c == ID_VERSION) {
			a->status = cli_version();
			return CLI_EXIT;
		}
		if (c == ':') {
			const struct cli_opt *o = opt_of(a, optopt);

			fprintf(stderr, "hwbp: %s: --%s needs %s\n", a->cmd, o ? o->name : "?",
				o ? o->value : "a value");
			a->status = EXIT_USAGE;
			return CLI_EXIT;
		}
		if (c == '?') {
			/* "-4": a short option to getopt, a number to the user.
			 * getopt walks "-44" a letter a call: skip the rest. */
			if (negative_number(a->argv[cur]) && optopt >= '0' && optopt <= '9') {
				if (a->neg == cur)
					continue;
				a->neg = cur;
				a->arg = a->argv[cur];
				return CLI_ARG;
			}
			if (optopt >= ID_VERSION)
				fprintf(stderr, "hwbp: %s: unexpected argument '%s' "
					"(that option takes no value)\n", a->cmd, a->argv[optind - 1]);
			else if (optopt)
				fprintf(stderr, "hwbp: %s: unexpected argument '-%c' (try --help)\n",
					a->cmd, optopt);
			else
				fprintf(stderr, "hwbp: %s: unexpected argument '%s' "
					"(not an option of %s; try --help)\n",
					a->cmd, a->argv[optind - 1], a->cmd);
			a->status = EXIT_USAGE;
			return CLI_EXIT;
		}
		return c;
	}
}

int cli_bad_value(const struct cli_args *a, const char *opt, const char *why)
{
	fprintf(stderr, "hwbp: %s: bad %s '%s': %s\n", a->cmd, opt, a->arg, why);
	return EXIT_USAGE;
}

int cli_number(const struct cli_args *a, const char *opt, uint64_t min, uint64_t max,
	       uint64_t *out)
{
	uint64_t v;

	if (hwbp_parse_u64(a->arg, &v) || v < min || v > max) {
		fprintf(stderr, "hwbp: %s: bad %s '%s': expected %" PRIu64 "..%" PRIu64 "\n", a->cmd,
			opt, a->arg, min, max);
		return EXIT_USAGE;
	}
	*out = v;
	return 0;
}

/*
 * --cpu host: the kernel's model of this machine (hwbp_trace_host_cpu(),
 * a stopped child asked through ptrace).  Off Linux there is nothing to
 * ask: a usage error, as a backend this system lacks is; on Linux a
 * refusal (ptrace not permitted, no debug registers) is a failure.
 */
static int load_host(const char *cmd, struct hwbp_cpu *cpu)
{
	char err[256] = "";
	int ret = hwbp_trace_host_cpu(cpu, err, sizeof(err));

	if (ret == 0)
		return 0;
	fprintf(stderr, "hwbp: %s: --cpu host: %s (%s)\n", cmd, err[0] ? err : "cannot ask the kernel",
		hwbp_errno_name(ret));
#ifdef __linux__
	return EXIT_REFUSED;
#else
	return EXIT_USAGE;
#endif
}

int cli_load_cpu(const char *cmd, const char *name, struct hwbp_cpu *cpu)
{
	static const char raw[] = "arm64:";
	uint64_t dfr0;

	if (!name)
		return usage_error("%s", "missing --cpu PRESET (see 'hwbp caps --list')");
	if (strcmp(name, "host") == 0)
		return load_host(cmd, cpu);
	/* "arm64:0xVALUE" builds a CPU from a raw ID_AA64DFR0_EL1, as the
	 * library's hwbp_cpu_arm64_from_dfr0() does. */
	if (strncmp(name, raw, sizeof(raw) - 1) == 0) {
		if (hwbp_parse_u64(name + sizeof(raw) - 1, &dfr0) || hwbp_cpu_arm64_from_dfr0(dfr0, cpu))
			return usage_error("bad --cpu '%s': expected arm64:ID_AA64DFR0_EL1 with DebugVer >= 6", name);
		return 0;
	}
	if (hwbp_cpu_preset(name, cpu))
		return usage_error("unknown --cpu '%s' (see 'hwbp caps --list')", name);
	return 0;
}

/* A size in bytes as a person writes it: "8-byte", "2 GiB". */
static void size_text(uint64_t v, char *buf, size_t n)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;

	if (v < 1024 || v % 1024) {
		snprintf(buf, n, "%" PRIu64 "-byte", v);
		return;
	}
	for (v /= 1024; v >= 1024 && v % 1024 == 0 && u + 1 < 4; u++)
		v /= 1024;
	snprintf(buf, n, "%" PRIu64 " %s", v, unit[u]);
}

const char *cli_cpu_label(const char *given, const struct hwbp_cpu *cpu, char *buf, size_t n)
{
	struct hwbp_caps c;
	char slots[64], piece[32];

	if (!given || strcmp(given, "host") != 0 || hwbp_caps_get(cpu, &c))
		return cpu->name;
	if (c.shared)
		snprintf(slots, sizeof(slots), "%u slot%s", c.data_slots, c.data_slots == 1 ? "" : "s");
	else
		snprintf(slots, sizeof(slots), "%u watchpoint%s, %u breakpoint%s", c.data_slots,
			 c.data_slots == 1 ? "" : "s", c.inst_slots, c.inst_slots == 1 ? "" : "s");
	size_text(c.max_piece, piece, sizeof(piece));
	snprintf(buf, n, "host (%s, %s, %s pieces)", cpu->name, slots, piece);
	return buf;
}

int cli_parse_scope(const char *s, enum hwbp_scope *scope)
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

const char *cli_scope_name(enum hwbp_scope s)
{
	return s == HWBP_SCOPE_USER ? "user" : s == HWBP_SCOPE_KERNEL ? "kernel" : "both";
}

const char *cli_refusal(int err, const struct hwbp_cpu *cpu, unsigned type)
{
	struct hwbp_caps c;

	switch (-err) {
	case EINVAL:
		return "invalid request (zero length, or an execute request off the instruction grid)";
	case ERANGE:
		return "the range is larger than this CPU can watch, or wraps the address space";
	case EFAULT:
		return "the address is outside the scope's address space (or non-canonical)";
	case EOPNOTSUPP:
		/* From the capability table, not the arch: whichever CPU
		 * lacks a native read-only watch. */
		if (type == HWBP_R && hwbp_caps_get(cpu, &c) == 0 && !((c.types >> HWBP_R) & 1u) &&
		    ((c.types >> HWBP_RW) & 1u))
			return "this CPU cannot watch reads only: use --widen for RW with writes filtered";
		return "this CPU lacks that type, or cannot express that scope for it";
	case ENOSPC:
		return "not enough free slots";
	}
	return strerror(-err);
}

static const unsigned all_types[] = { HWBP_R, HWBP_W, HWBP_RW, HWBP_X };

void cli_types_text(unsigned types, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < sizeof(all_types) / sizeof(all_types[0]); i++)
		if (((types >> all_types[i]) & 1u) && used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? " " : "",
						 hwbp_type_name(all_types[i]));
}

void cli_json_str(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

void cli_json_hex(uint64_t v)
{
	printf("\"0x%" PRIx64 "\"", v);
}

void cli_json_types(unsigned types)
{
	bool first = true;

	putchar('[');
	for (unsigned i = 0; i < sizeof(all_types) / sizeof(all_types[0]); i++) {
		if (!((types >> all_types[i]) & 1u))
			continue;
		printf("%s", first ? "" : ", ");
		cli_json_str(hwbp_type_name(all_types[i]));
		first = false;
	}
	putchar(']');
}

const char *cli_json_bool(bool b)
{
	return b ? "true" : "false";
}
