/* SPDX-License-Identifier: MIT */
/* hwbp race's outputs (race_print.c): the summary on stderr, and the
 * races as text or JSON on stdout. */
#ifndef HWBP_CLI_RACE_PRINT_H
#define HWBP_CLI_RACE_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include <hwbp/trace.h>

/* ThreadSanitizer's exit status when it found a race (its exitcode
 * option's default), which hwbp race keeps. */
#define HWBP_CLI_EXIT_RACE 66

/*
 * race_print - after hwbp_race_run(): the summary on stderr (what was
 * sampled, what was left out and why, what was caught), then the races
 * on @out, as text or (@json) one JSON object that holds the summary's
 * numbers too; @cmd the command (NULL: attached), @status its wait
 * status when it ended (NULL: not known).  Returns 0, or 1 when @out
 * could not be written (said on stderr, naming it as @what).
 */
int race_print(struct hwbp_race *r, FILE *out, const char *what, bool json, char *const *cmd,
	       const int *status);

/* race_print_error - a run that failed with @err, as JSON on @out:
 * {"error": "ENAME", "message": "..."}; @out checked and closed as
 * race_print() does.  Returns 0 or 1. */
int race_print_error(FILE *out, const char *what, int err, const char *msg);

#endif
