/* SPDX-License-Identifier: MIT */
/* Shared between the hwbp program's source files. */
#ifndef HWBP_CLI_H
#define HWBP_CLI_H

#define EXIT_REFUSED 1
#define EXIT_USAGE 2

/* Print "hwbp: <fmt with arg>" as one line on stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, const char *arg);

/* hwbp bench ... */
int hwbp_cli_bench(int argc, char **argv);

/* hwbp trace ... */
int hwbp_cli_trace(int argc, char **argv);

#endif
