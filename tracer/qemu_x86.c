/* SPDX-License-Identifier: MIT */
/*
 * The qemu-x86 backend of the tracer demo: build the x86_64 bare-metal
 * demo kernel (tests/qemu/x86/build_demo.sh: the demo of tracer/demo.c as
 * real code), boot it under QEMU (tests/qemu/x86/run.sh) with the watch
 * list on its command line, and feed the hit lines it prints on the serial
 * port into the tracer, exactly as the simulator backend feeds its hits.
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

#include "tracer.h"

#ifndef HWBP_SRCDIR
#define HWBP_SRCDIR "."
#endif

static void say(char *err, size_t n, const char *fmt, const char *a, const char *b)
{
	if (err && n)
		snprintf(err, n, fmt, a, b);
}

const char *hwbpi_qemu_x86_srcdir(void)
{
	const char *s = getenv("HWBP_SRCDIR");

	/* The source tree holds the kernel's sources and scripts: the one
	 * this program was built from, unless the environment says. */
	return s && *s ? s : HWBP_SRCDIR;
}

/* Paths go into a shell command line in single quotes. */
static bool quotable(const char *s)
{
	return strchr(s, '\'') == NULL;
}

int hwbpi_qemu_x86_build(const char *srcdir, const char *outdir, char *err, size_t errlen)
{
	char cmd[4096];
	int st;

	if (!srcdir || !outdir || !quotable(srcdir) || !quotable(outdir))
		return -EINVAL;
	if (snprintf(cmd, sizeof(cmd), "sh '%s/tests/qemu/x86/build_demo.sh' '%s' >/dev/null",
		     srcdir, outdir) >= (int)sizeof(cmd))
		return -ENAMETOOLONG;
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		say(err, errlen, "building the demo kernel failed (%s/tests/qemu/x86/build_demo.sh)%s",
		    srcdir, "");
		return -EIO;
	}
	return 0;
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

int hwbpi_trace_qemu_x86(struct hwbpi_tracer *t, const char *srcdir, const char *kernel,
			 char *err, size_t errlen)
{
	char cmd[8192], line[256];
	size_t n;
	FILE *p;
	struct hwbpi_qemu_x86_run run;
	int st;

	if (!t || !srcdir || !kernel || !quotable(srcdir) || !quotable(kernel) || t->nw == 0)
		return -EINVAL;
	n = (size_t)snprintf(cmd, sizeof(cmd), "sh '%s/tests/qemu/x86/run.sh' '%s' -append 'hwbp.watch=",
			     srcdir, kernel);
	for (unsigned i = 0; i < t->nw && n < sizeof(cmd); i++) {
		const struct hwbpi_watch *w = &t->w[i];

		if (w->type & HWBP_X) {
			say(err, errlen, "%s: the qemu-x86 demo kernel watches data only%s", w->name, "");
			return -EOPNOTSUPP;
		}
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s%" PRIx64 ",%" PRIx64 ",%x",
				      i ? ";" : "", w->addr, w->len, w->type);
	}
	if (n + 2 >= sizeof(cmd))
		return -ENAMETOOLONG;
	/* run.sh's own complaints go to a log next to the kernel: shown only
	 * when the kernel's lines do not say what went wrong. */
	if (n + strlen(kernel) + 32 >= sizeof(cmd))
		return -ENAMETOOLONG;
	/* A check of the fallback: the kernel ignores its site table. */
	if (getenv("HWBP_QEMU_X86_NOSITES"))
		strcat(cmd, " hwbp.nosites");
	strcat(cmd, "' 2>'");
	strcat(cmd, kernel);
	strcat(cmd, ".log'");
	memset(&run, 0, sizeof(run));
	fflush(NULL);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while (fgets(line, sizeof(line), p))
		hwbpi_qemu_x86_line(t, &run, line, err, errlen);
	st = pclose(p);
	if (run.ret)
		return run.ret;
	if (run.disagree)
		fprintf(stderr, "hwbp: trace: qemu-x86: %" PRIu64 " loads (by the access site table) "
			"changed the watched bytes\n", run.disagree);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || !run.ended) {
		int code = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;

		if (code == 125) {
			say(err, errlen, "qemu-system-x86_64 not found%s%s", "", "");
			return -ENOENT;
		}
		{
			char log[4096], last[sizeof(line)] = "";
			FILE *f;

			snprintf(log, sizeof(log), "%s.log", kernel);
			f = fopen(log, "r");
			while (f && fgets(line, sizeof(line), f))
				if (line[0] != '\n')
					snprintf(last, sizeof(last), "%s", line);
			if (f)
				fclose(f);
			last[strcspn(last, "\n")] = '\0';
			say(err, errlen, "the demo kernel did not finish: %s%s",
			    last[0] ? last : code == 124 ? "timeout" : "run.sh failed", "");
		}
		return -EIO;
	}
	return 0;
}
