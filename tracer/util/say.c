/* SPDX-License-Identifier: MIT */
/*
 * One-line messages for the user (util/util.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "util/util.h"

void hwbpi_say(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (!err || !n)
		return;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
}
