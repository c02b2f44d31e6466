/* SPDX-License-Identifier: MIT */
/*
 * hwbp bench: benchmarks, not tests: they print figures (a table and one
 * "bench NAME VALUE UNIT" line each) and assert nothing about speed.
 *
 *   sim    the simulator's hot path against a bare loop over the same
 *          access stream, in the same process (bench_sim.c);
 *   trace  the tracer's hit path (histogram, ring: prepared sessions'
 *          hwbp_trace_session_hit) against an empty hit callback, IP ->
 *          function lookups against elfutils' dwfl on the same table, and
 *          lackey replay (a session of the lackey backend) against reading
 *          the lines (bench_trace.c, bench_lackey.c, bench_elf.c).
 *
 * The machine is shared and its clock noisy: rows run in interleaved
 * slices and keep their fastest one.  This file is the command line.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "common.h"
#include "util.h"

static const char sim_usage[] =
	"usage: hwbp bench sim [--accesses N]\n"
	"Replay a synthetic access stream through the simulator with 0, 1, 4 and 16\n"
	"armed slots near the stream and 16 far from it, next to a bare loop over the\n"
	"same stream; print ns per access and the ratio to the bare loop, as a table\n"
	"and one 'bench NAME VALUE UNIT' line per figure.\n"
	"  --accesses N      accesses per row (default 100000000)\n"
	"  --help, --version\n";

static const char trace_usage[] =
	"usage: hwbp bench trace [--hits N] [--lookups N] [--dwfl-lookups N] [--symbols N]\n"
	"                        [--lackey-mb N] [--buffer-kb N]\n"
	"Time the tracer's hit path (hwbp_trace_session_hit on a prepared session) in\n"
	"histogram and trace mode next to an empty callback, IP -> function lookups\n"
	"next to elfutils' dwfl_module_addrsym on the same table (it scans the symbol\n"
	"table linearly, milliseconds each), and lackey replay throughput on a\n"
	"synthetic trace (reading, parsing, a lackey-backend session); print a table\n"
	"and one 'bench NAME VALUE UNIT' line per figure.  The table (an ELF file) and\n"
	"the trace go to a new directory in $TMPDIR (else /tmp), removed at the end;\n"
	"needs hwbp built with libelf.\n"
	"  --hits N          hits per hit-path row (default 20000000)\n"
	"  --lookups N       hwbp_symtab_func lookups (default 20000000)\n"
	"  --dwfl-lookups N  dwfl_module_addrsym lookups (default 1000)\n"
	"  --symbols N       symbols in the table (default 150000, at least 8)\n"
	"  --lackey-mb N     size of the lackey trace in MB (default 50)\n"
	"  --buffer-kb N     the trace-mode ring in KiB (default 1024)\n"
	"  --help, --version\n";

enum { OPT_ACCESSES = CLI_OPT_BASE, OPT_HITS, OPT_LOOKUPS, OPT_DWFL, OPT_SYMBOLS, OPT_LACKEY,
       OPT_BUFFER };

static const struct cli_opt sim_opts[] = {
	{ "accesses", "a number", OPT_ACCESSES },
	{ NULL, NULL, 0 },
};

static const struct cli_opt trace_opts[] = {
	{ "hits", "a number", OPT_HITS },
	{ "lookups", "a number", OPT_LOOKUPS },
	{ "dwfl-lookups", "a number", OPT_DWFL },
	{ "symbols", "a number", OPT_SYMBOLS },
	{ "lackey-mb", "a number", OPT_LACKEY },
	{ "buffer-kb", "a number", OPT_BUFFER },
	{ NULL, NULL, 0 },
};

static int sim_main(int argc, char **argv)
{
	uint64_t total = UINT64_C(100000000);
	struct cli_args a;
	int id;

	cli_init(&a, "bench sim", sim_usage, argc, argv, sim_opts);
	while ((id = cli_next(&a)) != CLI_END) {
		if (id == CLI_EXIT)
			return a.status;
		if (id == CLI_ARG)
			return usage_error("bench sim: unexpected argument '%s' (try --help)", a.arg);
		if (cli_number(&a, "--accesses", 1, UINT64_C(1) << 40, &total))
			return EXIT_USAGE;
	}
	return bench_sim(total);
}

static int trace_main(int argc, char **argv)
{
	struct bench_trace_opts o = { 20000000, 20000000, 1000, 150000, 50, 1024 };
	struct cli_args a;
	int id;

	cli_init(&a, "bench trace", trace_usage, argc, argv, trace_opts);
	while ((id = cli_next(&a)) != CLI_END) {
		uint64_t *dst = NULL, max = UINT64_C(1) << 40;
		const char *name = "";

		switch (id) {
		case CLI_EXIT:
			return a.status;
		case CLI_ARG:
			return usage_error("bench trace: unexpected argument '%s' (try --help)", a.arg);
		case OPT_HITS:
			dst = &o.hits, name = "--hits";
			break;
		case OPT_LOOKUPS:
			dst = &o.lookups, name = "--lookups";
			break;
		case OPT_DWFL:
			dst = &o.dwfl_lookups, name = "--dwfl-lookups";
			break;
		case OPT_SYMBOLS:
			dst = &o.symbols, name = "--symbols", max = 10000000;
			break;
		case OPT_LACKEY:
			dst = &o.lackey_mb, name = "--lackey-mb", max = 100000;
			break;
		case OPT_BUFFER:
			dst = &o.buffer_kb, name = "--buffer-kb", max = 1u << 20;
			break;
		}
		if (dst && cli_number(&a, name, 1, max, dst))
			return EXIT_USAGE;
	}
	if (o.symbols < BENCH_HIT_FUNCS)
		return usage_error("bench trace: --symbols must be at least %s", "8");
	return bench_trace(&o);
}

int hwbp_cli_bench(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("%s", "bench: expected a benchmark name: sim, trace");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		/* Both benchmarks' usage. */
		fputs(sim_usage, stdout);
		fputs(trace_usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0)
		return cli_version();
	if (strcmp(argv[1], "trace") == 0)
		return trace_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "sim") == 0)
		return sim_main(argc - 1, argv + 1);
	return usage_error("bench: unknown benchmark '%s' (sim, trace)", argv[1]);
}
