/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the filter parser (hwbp_trace_filter_parse).  Any
 * input must either parse into a consistent entry that prints back to
 * text parsing to the same entry, or be refused with -EINVAL/-ERANGE, a
 * message and a column inside the input, leaving the output untouched.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwbp/trace.h>

#include "fuzz_common.h"

/* The canonical text of an entry. */
static void format(const struct hwbp_trace_entry *e, char *buf, size_t len)
{
	char type[4] = { e->type & HWBP_R ? 'r' : '-', e->type & HWBP_W ? 'w' : '-',
			 e->type & HWBP_X ? 'x' : '-', '\0' };
	int n;

	if (e->sym[0] == '\0')
		n = snprintf(buf, len, "0x%" PRIx64, e->addr);
	else
		n = snprintf(buf, len, "%s", e->sym);
	if (e->off)
		n += snprintf(buf + n, len - (size_t)n, "+%" PRIu64, e->off);
	if (e->len)
		n += snprintf(buf + n, len - (size_t)n, "/0x%" PRIx64, e->len);
	snprintf(buf + n, len - (size_t)n, ":%s", type);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwbp_trace_entry e, before, again;
	char text[HWBP_TRACE_SYM_LEN + 96];
	const char *msg = NULL;
	unsigned col = 12345;
	char *s;
	int ret;

	if (size > 4096)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0'; /* an embedded NUL just ends the entry early */

	memset(&e, 0xa5, sizeof(e));
	before = e;
	ret = hwbp_trace_filter_parse(s, &e, &col, &msg);
	if (ret) {
		CHECK(ret == -EINVAL || ret == -ERANGE);
		CHECK(msg != NULL && msg[0] != '\0');
		CHECK(col >= 1 && col <= strlen(s) + 1);
		CHECK(memcmp(&e, &before, sizeof(e)) == 0);
	} else {
		size_t n = strnlen(e.sym, sizeof(e.sym));

		CHECK(col == 0 && msg == NULL);
		CHECK(n < sizeof(e.sym));
		CHECK((e.type & ~(HWBP_R | HWBP_W | HWBP_X)) == 0);
		if (strcmp(e.sym, "*") == 0)
			CHECK(e.type == 0 && e.off == 0 && e.len == 0 && e.addr == 0);
		else if (n == 0)
			CHECK(e.off == 0 && (e.len == 0 || e.len - 1 <= UINT64_MAX - e.addr));
		else
			CHECK(e.addr == 0);
		/* Round trip through the canonical text. */
		format(&e, text, sizeof(text));
		memset(&again, 0, sizeof(again));
		CHECK(hwbp_trace_filter_parse(text, &again, NULL, NULL) == 0);
		CHECK(strcmp(e.sym, again.sym) == 0 && e.addr == again.addr &&
		      e.off == again.off && e.len == again.len && e.type == again.type);
	}
	free(s);
	return 0;
}
