/* SPDX-License-Identifier: MIT */
/*
 * The qemu-x86 backend of the tracer demo: boot the x86_64 bare-metal demo
 * kernel (tests/qemu/x86/trace_kernel.c: the demo of tracer/backends/replay/demo.c as real
 * code, built when hwbp is built and installed under the data directory)
 * under QEMU with the watch list on its command line, and feed the hit
 * lines it prints on the serial port into the tracer, exactly as the
 * simulator backend feeds its hits.  QEMU is started directly (fork and
 * exec, no shell), with the machine tests/qemu/x86/run.sh describes.
 *
 * The protocol (tests/qemu/x86/trace_kernel.c), hex fields:
 *   W <bp> <addr> <len> <type> <errno>   a watch installed (errno 0) or not
 *   H <bp> <ip> <kind> <how>             a hit; how: I (the instruction at
 *                                        the trap site, from the kernel's
 *                                        table of its own access sites),
 *                                        V (the watched bytes changed),
 *                                        T (write-only watch), ? (unknown)
 *   E <hits> <dbs> <disagree>            the workload ended (disagree: loads,
 *                                        by the site table, after which the
 *                                        watched bytes had changed)
 *   X ...                                the kernel failed
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "backends/qemu/qemu_x86.h"

static void say(char *err, size_t n, const char *fmt, const char *a, const char *b)
{
	if (err && n)
		snprintf(err, n, fmt, a, b);
}

static int parse_fields(const char *s, uint64_t *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		char *end;

		errno = 0;
		v[i] = strtoull(s, &end, 16);
		if (errno || end == s)
			return -1;
		s = end;
	}
	return 0;
}

int hwbpi_qemu_x86_line(struct hwbpi_tracer *t, struct hwbpi_qemu_x86_run *r, const char *line,
			char *err, size_t errlen)
{
	uint64_t v[5];

	if (!t || !r || !line)
		return -EINVAL;
	if (line[0] == 'H' && r->ret == 0 && parse_fields(line + 1, v, 3) == 0 && v[0] < t->nw &&
	    v[2] <= HWBP_TYPE_MASK) {
		struct hwbp_trace_event ev;
		/* The fourth field, a letter, is the last one. */
		const char *how = strrchr(line, ' ');

		memset(&ev, 0, sizeof(ev));
		ev.ts = ++r->clock;   /* hits so far: the kernel has no clock of ours */
		ev.ip = v[1];
		ev.addr = t->w[v[0]].addr;
		ev.cpu = 0;
		ev.bp = (uint16_t)v[0];
		ev.kind = (uint8_t)v[2];
		switch (how ? how[1] : '?') {
		case 'I':
			ev.kind_how = HWBP_KIND_INSN;
			break;
		case 'V':
			ev.kind_how = HWBP_KIND_VALUE;
			break;
		case 'T':
			ev.kind_how = HWBP_KIND_TYPE;
			break;
		default:
			/* Never a kind without a reason for it. */
			ev.kind = 0;
			ev.kind_how = HWBP_KIND_UNKNOWN;
		}
		if (!ev.kind)
			ev.kind_how = HWBP_KIND_UNKNOWN;
		hwbpi_tracer_hit(t, &ev);
	} else if (line[0] == 'W' && parse_fields(line + 1, v, 5) == 0 && v[0] < t->nw) {
		if (v[4] && r->ret == 0) {
			int e = v[4] < 4096 ? -(int)v[4] : -EIO;
			char why[96];

			snprintf(why, sizeof(why), ": %s (%s)", hwbp_errno_name(e),
				 e == -ENOSPC ? "not enough debug registers left" :
				 e == -ERANGE ? "larger than this CPU can watch" :
				 e == -EOPNOTSUPP ? "a type this CPU lacks" : "refused by the planner");
			say(err, errlen, "%s%s", t->w[v[0]].name, why);
			r->ret = e;
		}
	} else if (line[0] == 'E') {
		r->ended = true;
		if (parse_fields(line + 1, v, 3) == 0)
			r->disagree = v[2];
	} else if (line[0] == 'X' && r->ret == 0) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s", line);
		msg[strcspn(msg, "\n")] = '\0';
		say(err, errlen, "the demo kernel failed: %s%s", msg, "");
		r->ret = -EIO;
	}
	return r->ret;
}

