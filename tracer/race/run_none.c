/* SPDX-License-Identifier: MIT */
/*
 * The race detector's run off Linux (race/race.h): it traces through
 * ptrace, which only the Linux build has.
 */
#include <errno.h>
#include <stdio.h>

#include "race/race.h"

int hwbpi_race_run(struct hwbpi_race_run *r)
{
	snprintf(r->msg, sizeof(r->msg), "hwbp race needs Linux (ptrace): EOPNOTSUPP");
	return -EOPNOTSUPP;
}

int hwbpi_race_kernel_run(struct hwbpi_race_run *r)
{
	snprintf(r->msg, sizeof(r->msg), "hwbp race --kernel needs Linux: EOPNOTSUPP");
	return -EOPNOTSUPP;
}
