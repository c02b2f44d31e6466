/* SPDX-License-Identifier: MIT */
/*
 * The perf and bpf backends' operations (registry/registry.c): one
 * perf_event_open breakpoint per planned piece, sampled (perf) or counted
 * in the kernel by a BPF program (bpf), on a command, a process, or the
 * kernel (--kernel: backends/linux/linux.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/perf/perf_int.h"

/* The kernel-scope options, the same for perf and bpf. */
#define KERNEL_OPTIONS(selects)                                                              \
	{ "kernel", 0, NULL, HWBP_TRACE_OPT_WORKLOAD | HWBP_TRACE_OPT_WITH_CMD | (selects), NULL, \
	  "watch kernel symbols on every CPU (with -- CMD: until it exits)" },                   \
	{ "cpus", 0, "LIST", 0, "kernel", "with --kernel: only these CPUs (0-3,5)" },            \
	{ "vmlinux", 0, "FILE", 0, "kernel", "with --kernel: names and sizes from this ELF "    \
	  "image of the running kernel" },                                                       \
	{ "kinds", 0, "MODE", 0, NULL, "exact, auto (default) or off: kind events in free "     \
	  "slots tell reads from writes" },                                                     \
	HWBPI_CALL_GRAPH_OPTION

/* perf takes the same process workloads, but is never their default. */
static const struct hwbp_trace_backend_option perf_options[] = {
	{ "cmd", 0, "CMD", HWBP_TRACE_OPT_WORKLOAD | HWBP_TRACE_OPT_ARGV, NULL,
	  "start CMD [ARGS] and trace it" },
	{ "pid", 'p', "PID", HWBP_TRACE_OPT_WORKLOAD, NULL, "attach to the running process PID" },
	KERNEL_OPTIONS(0),
	{ NULL, 0, NULL, 0, NULL, NULL },
};

/* bpf is the default of --kernel. */
static const struct hwbp_trace_backend_option bpf_options[] = {
	{ "cmd", 0, "CMD", HWBP_TRACE_OPT_WORKLOAD | HWBP_TRACE_OPT_ARGV, NULL,
	  "start CMD [ARGS] and trace it" },
	{ "pid", 'p', "PID", HWBP_TRACE_OPT_WORKLOAD, NULL, "attach to the running process PID" },
	KERNEL_OPTIONS(HWBP_TRACE_OPT_SELECTS),
	{ NULL, 0, NULL, 0, NULL, NULL },
};

/* --------------------------------------------------------- perf, bpf */

struct perf_state {
	pid_t pid;
	bool started;            /* a child of ours, still held stopped */
	bool kernel;             /* --kernel: kstate is the kernel scope's */
	void *kstate;
};

static int perf_open(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	struct perf_state *p = calloc(1, sizeof(*p));
	char err[256] = "";
	pid_t pid;
	int ret;

	enum hwbpi_kinds kinds;
	enum hwbpi_callgraph cg;

	if (!p)
		return hwbpi_fail(s, -ENOMEM, false, "out of memory");
	s->bstate = p;
	/* Bad input first, before anything starts. */
	if ((ret = hwbpi_process_kinds(s, &kinds)) || (ret = hwbpi_process_callgraph(s, &cg)))
		return ret;
	if ((ret = hwbpi_linux_glue_check(err, sizeof(err))))
		return hwbpi_fail(s, ret, false, "%s (%s)", err, hwbp_errno_name(ret));
	if (hwbpi_session_opt(s, "kernel")) {
		p->kernel = true;
		ret = hwbpi_kernel_open(s, &p->kstate);
		s->t.missing_hint = hwbpi_kernel_missing_hint(p->kstate);
		return ret;
	}
	if ((ret = hwbpi_process_workload(s, &pid)))
		return ret;
	/* Sampling: one ring per CPU the samples may come from. */
	s->ncpus = hwbpi_kernel_ncpus();
	if (s->ncpus > HWBPI_TRACE_MAX_CPUS)
		s->ncpus = HWBPI_TRACE_MAX_CPUS;
	if ((ret = hwbpi_process_model(s, s->backend->name)))
		return ret;
	if (pid) {
		p->pid = pid;
	} else {
		ret = hwbpi_child_start(s->argv, &p->pid, err, sizeof(err));
		if (ret)
			return hwbpi_fail(s, ret, false, "%s", err[0] ? err : hwbp_errno_name(ret));
		p->started = true;
	}
	return hwbpi_process_symbols(s, p->pid);
}

static int run_either(struct hwbpi_view *s, bool bpf)
{
	struct perf_state *p = s->bstate;
	struct hwbpi_perf_result res;
	bool started = p->started;
	int ret;

	p->started = false;   /* the trace lets it run, or kills it: nothing to abort */
	ret = hwbpi_perf_counted(s, p->kernel, p->kstate, p->pid, started, bpf, &res);
	if (ret == 0 && started) {
		s->status = res.wstatus;
		s->have_status = true;
		/* A program that raised no SIGTRAP of its own dies of one when
		 * a data hit's debug exception comes without its status (x86
		 * DR6 naming no slot: Linux takes it for INT1, exc_debug_user()),
		 * a hypervisor's departure (docs/fidelity.md).  The perf events
		 * cannot keep it alive; the ptrace backend can. */
		if (WIFSIGNALED(res.wstatus) && WTERMSIG(res.wstatus) == SIGTRAP)
			hwbpi_note(s, "the program died of SIGTRAP: unless it raised one itself, a "
				   "debug exception came without its status (x86 DR6 naming no slot, "
				   "a departure of some hypervisors under load), which Linux sends "
				   "as the program's own trap; --backend ptrace counts such a hit and "
				   "keeps the program alive");
	}
	return ret;
}

static int perf_run(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	return run_either(s, false);
}

static int bpf_run(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	return run_either(s, true);
}

static void perf_close(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	struct perf_state *p = s->bstate;

	if (p && p->started)
		hwbpi_child_kill(p->pid);
	if (p)
		hwbpi_kernel_close(p->kstate);
	free(p);
	s->bstate = NULL;
}

const struct hwbp_trace_backend hwbpi_backend_perf = {
	.name = "perf",
	.description = "a real process or the kernel through perf_event_open breakpoints, sampled",
	.workload = "-- CMD, -p PID or --kernel",
	.options = perf_options,
	.flags = HWBP_TRACE_BACKEND_CPU | HWBP_TRACE_BACKEND_RINGS | HWBP_TRACE_BACKEND_STACKS |
		 HWBP_TRACE_BACKEND_OBJECTS,
	.open = perf_open,
	.run = perf_run,
	.close = perf_close,
};

const struct hwbp_trace_backend hwbpi_backend_bpf = {
	.name = "bpf",
	.description = "perf_event_open breakpoints counted in the kernel by a BPF program "
		       "(trace mode: sampled)",
	.workload = "-- CMD, -p PID or --kernel",
	.options = bpf_options,
	.flags = HWBP_TRACE_BACKEND_CPU | HWBP_TRACE_BACKEND_RINGS | HWBP_TRACE_BACKEND_STACKS |
		 HWBP_TRACE_BACKEND_OBJECTS,
	.open = perf_open,
	.run = bpf_run,
	.close = perf_close,
};
