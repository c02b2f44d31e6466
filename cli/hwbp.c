/* SPDX-License-Identifier: MIT */
/*
 * hwbp — the command-line front end: a table of subcommands, each in its
 * own file (cmd_*.c, bench*.c).
 *
 * Exit status, for every subcommand: 0 success; 1 the request failed
 * (the library refused it, an expectation failed, output could not be
 * written); 2 a bad command line (one line on stderr naming the word).
 */
#include <stdio.h>
#include <string.h>

#include <hwbp/hwbp.h>

#include "cli.h"
#include "util.h"

int usage_error(const char *fmt, const char *arg)
{
	fputs("hwbp: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "caps", hwbp_cli_caps, "list CPU presets or print one CPU's capabilities" },
	{ "plan", hwbp_cli_plan, "split a request into hardware pieces" },
	{ "encode", hwbp_cli_encode, "print the debug registers for requests placed together" },
	{ "decode", hwbp_cli_decode, "decode a debug exception's status into slots and requests" },
	{ "sim", hwbp_cli_sim, "run scenario files on the simulator" },
	{ "trace", hwbp_cli_trace, "watch symbols by name: usage histograms or traces" },
	{ "race", hwbp_cli_race, "find data races in an unmodified program (DataCollider's method)" },
	{ "bench", hwbp_cli_bench, "benchmarks (bench sim, bench trace)" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static int main_help(void)
{
	printf("usage: hwbp COMMAND [OPTION]... [ARG]...\n"
	       "       hwbp --help | --version\n"
	       "       hwbp help COMMAND   (the same as hwbp COMMAND --help)\n"
	       "Hardware breakpoints and watchpoints: plan, encode, decode, simulate, trace.\n"
	       "commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		printf("  %-8s %s\n", commands[i].name, commands[i].summary);
	printf("Every command takes --help and --version. Exit status: 0 success, 1 the\n"
	       "request failed, 2 a bad command line (race: 66 when it found a race).\n");
	return 0;
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *c;
	char names[128];
	size_t used = 0;
	int ret;

	if (argc < 2) {
		for (size_t i = 0; i < NCOMMANDS; i++)
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
						 i ? (i + 1 < NCOMMANDS ? ", " : " or ") : "",
						 commands[i].name);
		return usage_error("missing COMMAND: %s (try --help)", names);
	}
	if (strcmp(argv[1], "--version") == 0)
		return cli_version();
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    (strcmp(argv[1], "help") == 0 && argc == 2)) {
		main_help();
		return cli_close_output(stdout, "stdout");
	}
	if (strcmp(argv[1], "help") == 0) {
		/* "hwbp help plan" is "hwbp plan --help". */
		char help[] = "--help", *av[] = { argv[2], help, NULL };

		if (argc > 3)
			return usage_error("help: expected one COMMAND, got '%s' too", argv[3]);
		if (!(c = find(argv[2])))
			return usage_error("unknown command '%s' (try --help)", argv[2]);
		ret = c->run(2, av);
	} else if ((c = find(argv[1])) && argc > 2 && strcmp(argv[2], "--version") == 0) {
		/* "hwbp CMD --version", whatever CMD's own options are. */
		return cli_version();
	} else if (c) {
		ret = c->run(argc - 1, argv + 1);
	} else {
		return usage_error("unknown command '%s' (try --help)", argv[1]);
	}
	/*
	 * Output is checked once, here, for every command: a full disk or a
	 * closed pipe is a failure, not a success with a short file.  A
	 * command that failed has said why already.
	 */
	if (ret == 0)
		ret = cli_close_output(stdout, "stdout");
	return ret;
}
