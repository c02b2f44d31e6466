/* SPDX-License-Identifier: MIT */
/*
 * The qemu-x86 backend's operations (registry/registry.c): the demo
 * kernel as real code under QEMU (backends/qemu/qemu_x86.h), with the
 * demo's symbols and default watches (backends/replay/replay.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/qemu/qemu_x86.h"
#include "backends/replay/replay.h"

struct qemu_state {
	char kernel[4096], symbols[4096];
};

static int qemu_open(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	struct qemu_state *q;
	char err[512] = "";
	int ret;

	if (!hwbpi_session_opt(s, "demo"))
		return hwbpi_fail(s, -EINVAL, true, "--backend %s traces %s", s->backend->name,
				  s->backend->workload);
	q = calloc(1, sizeof(*q));
	if (!q)
		return hwbpi_fail(s, -ENOMEM, false, "out of memory");
	s->bstate = q;
	ret = hwbpi_qemu_x86_files(q->kernel, q->symbols, sizeof(q->kernel), err, sizeof(err));
	if (ret)
		return hwbpi_fail(s, ret, false, "qemu-x86: %s", err[0] ? err : hwbp_errno_name(ret));
	/* The demo as real code: its symbols are the kernel ELF's own. */
	s->syms = hwbp_symtab_new(&ret);
	if (s->syms && (ret = hwbp_symtab_load_elf(s->syms, q->symbols, 0)) >= 0)
		ret = 0;
	if (ret)
		return hwbpi_fail(s, ret, false, "qemu-x86: cannot read %s: %s", q->symbols,
				  hwbp_errno_name(ret));
	hwbp_cpu_preset("x86_64", &s->cpu);
	s->ncpus = 1;
	s->default_entries = hwbpi_demo_watches;
	return 0;
}

static int qemu_run(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	struct qemu_state *q = s->bstate;
	char err[512] = "";
	uint64_t disagree = 0;
	int ret = hwbpi_trace_qemu_x86(&s->t, q->kernel, &s->stop, &disagree, err, sizeof(err));

	/* A watch the planner refused, as the sim backend says it; anything
	 * else is QEMU or the demo kernel failing (a missing image, an exec
	 * error, a crash). */
	if (ret == -ENOSPC || ret == -ERANGE || ret == -EOPNOTSUPP || ret == -EFAULT)
		return hwbpi_fail(s, ret, false, "cannot watch %s", err[0] ? err : hwbp_errno_name(ret));
	if (ret)
		return hwbpi_fail(s, ret, false, "qemu-x86: %s", err[0] ? err : hwbp_errno_name(ret));
	if (disagree)
		hwbpi_note(s, "qemu-x86: %" PRIu64 " loads (by the access site table) changed the "
			   "watched bytes", disagree);
	return 0;
}

static void qemu_close(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	free(s->bstate);
	s->bstate = NULL;
}

static const struct hwbp_trace_backend_option qemu_options[] = {
	{ "demo", 0, NULL, HWBP_TRACE_OPT_WORKLOAD, NULL,
	  "the built-in demo, as real code in a bare-metal kernel" },
	{ NULL, 0, NULL, 0, NULL, NULL },
};

const struct hwbp_trace_backend hwbpi_backend_qemu_x86 = {
	.name = "qemu-x86",
	.description = "the demo kernel as real code under QEMU (an x86_64 CPU)",
	.workload = "--demo",
	.options = qemu_options,
#ifdef HWBP_HAVE_QEMU_X86_DEMO
	.flags = 0,
#else
	.flags = HWBP_TRACE_BACKEND_MISSING,
#endif
	.open = qemu_open,
	.run = qemu_run,
	.close = qemu_close,
};
