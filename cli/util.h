/* SPDX-License-Identifier: MIT */
/*
 * Helpers every hwbp subcommand shares: the one number parser, --version,
 * and checked output (a failed write is an error).  Errno names are the
 * library's hwbp_errno_name(), which names every errno.
 */
#ifndef HWBP_CLI_UTIL_H
#define HWBP_CLI_UTIL_H

#include <stdint.h>
#include <stdio.h>

/* Print "hwbp VERSION" on stdout (the --version of every subcommand);
 * returns the exit status (0, or 1 when stdout cannot be written). */
int cli_version(void);

/*
 * cli_close_output - flush @f and check its error flag: on a failed write
 * print "hwbp: write error on WHAT: ENAME (text)" and return 1, else 0.
 * Call it before exiting 0 for stdout and for every output file (which
 * it closes unless it is stdout or stderr).
 */
int cli_close_output(FILE *f, const char *what);

#endif /* HWBP_CLI_UTIL_H */
