/* SPDX-License-Identifier: MIT */
/* hwbp caps: the CPU presets, or one CPU model's capability table. */
#include <inttypes.h>
#include <stdio.h>

#include <hwbp/hwbp.h>

#include "cli.h"
#include "common.h"

static const char usage[] =
	"usage: hwbp caps --list\n"
	"       hwbp caps --cpu PRESET|arm64:DFR0|host [--json]\n"
	"Print the CPU presets (name and architecture), or the capability table of\n"
	"one CPU model: slots, types, lengths, timing, address ranges and the\n"
	"status register fields 'hwbp decode' takes.\n"
	"  --list         the presets, one a line\n"
	"  --cpu PRESET   a preset, or arm64:0xVALUE from a raw ID_AA64DFR0_EL1, or\n"
	"                 host: this machine's model as the running kernel lets a\n"
	"                 tracer program it (Linux: a child asked through ptrace)\n"
	"  --json         one JSON object; addresses are \"0x...\" strings\n"
	"  --help, --version\n";

enum { OPT_LIST = CLI_OPT_BASE, OPT_CPU, OPT_JSON };

static const struct cli_opt opts[] = {
	{ "list", NULL, OPT_LIST },
	{ "cpu", "a PRESET", OPT_CPU },
	{ "json", NULL, OPT_JSON },
	{ NULL, NULL, 0 },
};

static const char *timing_name(enum hwbp_timing t)
{
	return t == HWBP_TIMING_AFTER ? "after" : "before";
}

static const char *precision_name(enum hwbp_precision p)
{
	return p == HWBP_ADDR_EXACT ? "exact" : p == HWBP_ADDR_WINDOW ? "window" : "none";
}

static const char *align_name(enum hwbp_align a)
{
	return a == HWBP_ALIGN_NATURAL ? "natural" : a == HWBP_ALIGN_BAS ? "bas" : "dword";
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

static void list_presets(void)
{
	for (unsigned i = 0; hwbp_cpu_preset_name(i); i++) {
		struct hwbp_cpu p;

		hwbp_cpu_preset(hwbp_cpu_preset_name(i), &p);
		printf("%-12s %s\n", hwbp_cpu_preset_name(i), hwbp_arch_name(p.arch));
	}
}

static void print_json(const char *label, const struct hwbp_cpu *cpu, const struct hwbp_caps *c)
{
	const char *f;

	printf("{\"cpu\": ");
	cli_json_str(label);
	/* host: the kernel's model behind the label */
	if (label != cpu->name) {
		printf(", \"model\": ");
		cli_json_str(cpu->name);
	}
	printf(", \"arch\": ");
	cli_json_str(hwbp_arch_name(cpu->arch));
	printf(", \"data_slots\": %u, \"inst_slots\": %u, \"shared\": %s, \"types\": ",
	       c->data_slots, c->inst_slots, cli_json_bool(c->shared));
	cli_json_types(c->types);
	printf(", \"align\": \"%s\", \"min_piece\": %" PRIu64 ", \"max_piece\": %" PRIu64
	       ", \"granule\": %" PRIu64 ", \"boundary\": %" PRIu64 ", \"inst_len\": %" PRIu64
	       ", \"inst_align\": %" PRIu64 ", \"data_timing\": \"%s\", \"inst_timing\": \"%s\""
	       ", \"precision\": \"%s\", \"kind_known\": %s, \"priv_filter\": %s",
	       align_name(c->align), c->min_piece, c->max_piece, c->granule, c->boundary,
	       c->inst_len, c->inst_align, timing_name(c->data_timing), timing_name(c->inst_timing),
	       precision_name(c->precision), cli_json_bool(c->kind_known),
	       cli_json_bool(c->priv_filter));
	printf(", \"user_max\": ");
	cli_json_hex(c->user_max);
	printf(", \"kernel_min\": ");
	cli_json_hex(c->kernel_min);
	printf(", \"addr_max\": ");
	cli_json_hex(c->addr_max);
	printf(", \"status_fields\": [");
	for (unsigned i = 0; (f = hwbp_status_field(cpu, i)); i++) {
		printf("%s", i ? ", " : "");
		cli_json_str(f);
	}
	printf("]}\n");
}

static void print_text(const char *label, const struct hwbp_cpu *cpu, const struct hwbp_caps *c)
{
	char types[32];
	const char *f;

	cli_types_text(c->types, types, sizeof(types));
	printf("cpu         %s (%s)\n", label, hwbp_arch_name(cpu->arch));
	if (c->shared)
		printf("slots       %u, shared by execute and data\n", c->data_slots);
	else
		printf("slots       %u data (watchpoints), %u execute (breakpoints)\n",
		       c->data_slots, c->inst_slots);
	printf("types       %s%s\n", types,
	       (c->types >> HWBP_R) & 1u ? "" : "   (no read-only: --widen makes R into RW, writes filtered)");
	printf("lengths     %s\n", align_text(c));
	printf("pieces      %" PRIu64 " .. %" PRIu64 " bytes each\n", c->min_piece, c->max_piece);
	printf("granule     %" PRIu64 " byte%s\n", c->granule,
	       c->granule == 1 ? "" : "s (sub-granule requests get extraneous hits, filtered)");
	if (c->boundary)
		printf("boundary    a piece may not cross a %" PRIu64 "-byte boundary\n", c->boundary);
	else
		printf("boundary    none\n");
	printf("execute     %" PRIu64 " byte%s per breakpoint, address multiple of %" PRIu64 "\n",
	       c->inst_len, c->inst_len == 1 ? "" : "s", c->inst_align);
	printf("timing      data hits %s the access, execute hits %s the instruction\n",
	       timing_name(c->data_timing), timing_name(c->inst_timing));
	printf("address     %s\n",
	       c->precision == HWBP_ADDR_EXACT ? "exact: the access's effective address" :
	       c->precision == HWBP_ADDR_WINDOW ? "window: an address between the access start and the highest watched byte accessed" :
	       "none: the status names the slot only");
	printf("kind        %s\n", c->kind_known ? "read or write reported by the hardware" : "not reported (RW hits are of unknown kind)");
	printf("privilege   %s\n", c->priv_filter ? "filtered by hardware" : "not filtered by hardware (filtered at decode)");
	printf("user        0x0 .. 0x%" PRIx64 "\n", c->user_max);
	printf("kernel      0x%" PRIx64 " .. 0x%" PRIx64 "\n", c->kernel_min, c->addr_max);
	printf("status     ");
	for (unsigned i = 0; (f = hwbp_status_field(cpu, i)); i++)
		printf(" %s", f);
	printf(" ip   (hwbp decode needs %s)\n", hwbp_status_hint(cpu));
}

int hwbp_cli_caps(int argc, char **argv)
{
	const char *cpuname = NULL, *label;
	bool json = false, list = false;
	char lbuf[160];
	struct hwbp_cpu cpu;
	struct hwbp_caps c;
	struct cli_args a;
	int ret, id;

	cli_init(&a, "caps", usage, argc, argv, opts);
	while ((id = cli_next(&a)) != CLI_END) {
		switch (id) {
		case CLI_EXIT:
			return a.status;
		case OPT_LIST:
			list = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_CPU:
			cpuname = a.arg;
			break;
		default:
			return usage_error("caps: unexpected argument '%s' (try --help)", a.arg);
		}
	}
	if (list) {
		/* The list is names, not JSON; --cpu picks one of them. */
		if (json || cpuname)
			return usage_error("caps: %s", "--list takes no --cpu or --json");
		list_presets();
		return 0;
	}
	ret = cli_load_cpu("caps", cpuname, &cpu);
	if (ret)
		return ret;
	hwbp_caps_get(&cpu, &c);
	label = cli_cpu_label(cpuname, &cpu, lbuf, sizeof(lbuf));
	if (json)
		print_json(label, &cpu, &c);
	else
		print_text(label, &cpu, &c);
	return 0;
}
