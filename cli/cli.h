/* SPDX-License-Identifier: MIT */
/* Shared between the hwbp program's source files: exit statuses and the
 * subcommands' entry points (each takes its own name as argv[0]). */
#ifndef HWBP_CLI_H
#define HWBP_CLI_H

#define EXIT_REFUSED 1
#define EXIT_USAGE 2

/* Print "hwbp: <fmt with arg>" as one line on stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, const char *arg);

int hwbp_cli_caps(int argc, char **argv);
int hwbp_cli_plan(int argc, char **argv);
int hwbp_cli_encode(int argc, char **argv);
int hwbp_cli_decode(int argc, char **argv);
int hwbp_cli_sim(int argc, char **argv);

/* hwbp bench ... */
int hwbp_cli_bench(int argc, char **argv);

/* hwbp trace ... */
int hwbp_cli_trace(int argc, char **argv);

/* hwbp race ... */
int hwbp_cli_race(int argc, char **argv);

#endif
