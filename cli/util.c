/* SPDX-License-Identifier: MIT */
/* See util.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hwbp/hwbp.h>

#include "util.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * By hand, not strtoull: strtoull takes blanks, signs ("-1" is 2^64 - 1)
 * and octal, none of which a user means by an address or a length.
 */
int cli_parse_u64(const char *s, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;
	int d;

	if (!s || !out)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		d = hexval(*s);
		if (d < 0 || (unsigned)d >= base)
			return -EINVAL;
		if (v > (UINT64_MAX - (unsigned)d) / base)
			return -ERANGE;
		v = v * base + (unsigned)d;
	}
	*out = v;
	return 0;
}

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
