/* SPDX-License-Identifier: MIT */
/* See util.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hwbp/hwbp.h>

#include "util.h"

int cli_version(void)
{
	printf("hwbp %s\n", hwbp_version());
	return cli_close_output(stdout, "stdout");
}

int cli_close_output(FILE *f, const char *what)
{
	int bad = fflush(f) != 0 || ferror(f);
	int err = errno;

	if (f != stdout && f != stderr && fclose(f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (!bad)
		return 0;
	if (!err)
		err = EIO;
	fprintf(stderr, "hwbp: write error on %s: %s (%s)\n", what, hwbp_errno_name(err),
		strerror(err));
	return 1;
}
