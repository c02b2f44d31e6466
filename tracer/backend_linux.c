/* SPDX-License-Identifier: MIT */
/*
 * The Linux backends of the registry (tracer/backends.c): `ptrace` (a stop
 * per hit, tracer/ptrace.h) and `perf` (perf_event_open sampling,
 * tracer/perf.h), both on a command they start (-- CMD) or a process they
 * attach (-p PID), whose symbols are read from /proc/PID/maps once it is
 * stopped with everything mapped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_linux.h"
#include "dwarf.h"
#include "linux.h"
#include "perf.h"
#include "ptrace.h"
#include "session.h"

/* PF_KTHREAD in /proc/PID/stat's flags (include/linux/sched.h). */
#define PF_KTHREAD_FLAG 0x00200000u

/*
 * A process given with -p that cannot be traced for a reason of its own
 * gets its own message, before any ptrace or perf call would answer with a
 * bare EPERM or ESRCH (or, for perf, wait for ever on a kernel thread):
 * no such process, a zombie (it has exited), a kernel thread (no user
 * space).  From /proc/PID/stat: the state is the field after the command
 * name (which may hold blanks and parentheses: the last ')' ends it), the
 * flags the seventh after it (proc(5)).
 */
static int check_target(struct hwbp_trace_session *s, pid_t pid)
{
	char path[64], buf[512], state = 0;
	unsigned long flags = 0;
	const char *rp;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return hwbpi_fail(s, -ESRCH, false, "no process %ld: ESRCH", (long)pid);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	if (!rp || sscanf(rp + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
		return 0;   /* unreadable: let ptrace or perf say */
	if (state == 'Z' || state == 'X')
		return hwbpi_fail(s, -ESRCH, false, "process %ld is a zombie: it has exited, "
				  "nothing is left to trace: ESRCH", (long)pid);
	if (flags & PF_KTHREAD_FLAG)
		return hwbpi_fail(s, -EPERM, false, "process %ld is a kernel thread: it has no "
				  "user space to watch: EPERM", (long)pid);
	return 0;
}

/* The workload both take: -- CMD or -p PID, exactly one. */
static int workload(struct hwbp_trace_session *s, pid_t *pid)
{
	const char *p = hwbpi_session_opt(s, "pid");
	uint64_t v;

	*pid = 0;
	if (!p == !s->argv)
		return hwbpi_fail(s, -EINVAL, true, "--backend %s traces %s", s->backend->name,
				  s->backend->workload);
	if (p && (hwbp_parse_u64(p, &v) || v == 0 || v > INT32_MAX))
		return hwbpi_fail(s, -EINVAL, true, "bad process id '%s'", p);
	if (p)
		*pid = (pid_t)v;
	return p ? check_target(s, *pid) : 0;
}

/* Symbols of the stopped process: the executable and what is mapped. */
static int process_symbols(struct hwbp_trace_session *s, pid_t pid)
{
	struct hwbpi_proc_gone gone;
	int ret;

	s->syms = hwbp_symtab_new(&ret);
	if (!s->syms)
		return hwbpi_fail(s, ret, false, "cannot build the symbol table");
	hwbpi_symtab_set_dwarf(s->syms, s->dwarf);   /* debug files, lines (srcline.c) */
	ret = hwbpi_proc_load_symbols(s->syms, pid, &gone);
	if (ret < 0)
		return hwbpi_fail(s, ret, false, "cannot read the symbols of process %ld: %s",
				  (long)pid, hwbp_errno_name(ret));
	/* Files unlinked since they were mapped (a rebuilt program, an
	 * upgraded library): said, as their symbols may not be the ones a
	 * new copy on disk has. */
	if (gone.read)
		hwbpi_note(s, "%s%s was deleted since process %ld mapped it: its symbols are read "
			   "from the process's own copy (/proc/%ld/)", gone.first,
			   gone.read > 1 ? " (and others)" : "", (long)pid, (long)pid);
	if (gone.unread)
		hwbpi_note(s, "%s%s was deleted since process %ld mapped it and cannot be read "
			   "through /proc/%ld/map_files (%s): its symbols are missing", gone.lib,
			   gone.unread > 1 ? " (and others)" : "", (long)pid, (long)pid,
			   hwbp_errno_name(gone.err));
	return 0;
}

/* How --stack finds the callers of a process's hits (tracer/unwind.h). */
#define CALL_GRAPH_OPTION                                                                    \
	{ "call-graph", 0, "MODE", 0, NULL, "how call stacks are found: dwarf (CFI, with "      \
	  "libdw: the default) or fp (frame pointers: short stacks without them)" }

static const struct hwbp_trace_backend_option linux_options[] = {
	{ "cmd", 0, "CMD", HWBP_TRACE_OPT_WORKLOAD | HWBP_TRACE_OPT_SELECTS | HWBP_TRACE_OPT_ARGV,
	  NULL, "start CMD [ARGS] and trace it" },
	{ "pid", 'p', "PID", HWBP_TRACE_OPT_WORKLOAD | HWBP_TRACE_OPT_SELECTS, NULL,
	  "attach to the running process PID" },
	{ "kinds", 0, "MODE", 0, NULL, "exact, auto (default) or off: a store-only twin in a "
	  "free slot tells reads from writes (x86)" },
	CALL_GRAPH_OPTION,
	{ NULL, 0, NULL, 0, NULL, NULL },
};

/* The kernel-scope options, the same for perf and bpf. */
#define KERNEL_OPTIONS(selects)                                                              \
	{ "kernel", 0, NULL, HWBP_TRACE_OPT_WORKLOAD | HWBP_TRACE_OPT_WITH_CMD | (selects), NULL, \
	  "watch kernel symbols on every CPU (with -- CMD: until it exits)" },                   \
	{ "cpus", 0, "LIST", 0, "kernel", "with --kernel: only these CPUs (0-3,5)" },            \
	{ "vmlinux", 0, "FILE", 0, "kernel", "with --kernel: names and sizes from this ELF "    \
	  "image of the running kernel" },                                                       \
	{ "kinds", 0, "MODE", 0, NULL, "exact, auto (default) or off: kind events in free "     \
	  "slots tell reads from writes" },                                                     \
	CALL_GRAPH_OPTION

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

/* ------------------------------------------------------------- ptrace */

static int ptrace_open(struct hwbp_trace_session *s)
{
	struct hwbpi_ptrace *ps = NULL;
	char err[256] = "";
	enum hwbpi_kinds kinds;
	enum hwbpi_callgraph cg;
	pid_t pid;
	int ret = workload(s, &pid);

	/* bad input before anything starts */
	if (ret == 0)
		ret = hwbpi_kernel_kinds(s, &kinds);
	if (ret == 0)
		ret = hwbpi_linux_callgraph(s, &cg);
	if (ret)
		return ret;
	/* Stopped once its executable and libraries are mapped. */
	ret = pid ? hwbpi_ptrace_attach(&ps, pid, err, sizeof(err))
		  : hwbpi_ptrace_start(&ps, s->argv, err, sizeof(err));
	if (ret)
		return hwbpi_fail(s, ret, false, "%s", err[0] ? err : hwbp_errno_name(ret));
	s->bstate = ps;
	/* The model the session plans patterns with (without --cpu: the
	 * kernel's, as the run uses). */
	if (!s->have_cpu && hwbpi_ptrace_cpu(ps, &s->cpu))
		memset(&s->cpu, 0, sizeof(s->cpu));
	return process_symbols(s, hwbpi_ptrace_pid(ps));
}

void hwbpi_linux_drain(void *arg)
{
	hwbpi_session_drain(arg);
}

static int ptrace_run(struct hwbp_trace_session *s)
{
	char err[256] = "";
	enum hwbpi_kinds kinds;
	enum hwbpi_callgraph cg;
	int status = 0;
	int ret;

	if ((ret = hwbpi_kernel_kinds(s, &kinds)))
		return ret;
	/* Kinds from DR6 where this arch pairs a store-only twin (x86) and
	 * the CPU reports both slots; elsewhere the watched bytes say. */
	if (kinds == HWBPI_KINDS_EXACT && !hwbpi_perf_twins(kinds))
		return hwbpi_fail(s, -EOPNOTSUPP, false, "--kinds exact: the ptrace backend takes "
				  "kinds from store-only twins, which this CPU cannot pair (EOPNOTSUPP)");
	hwbpi_ptrace_set_kinds(s->bstate, hwbpi_perf_twins(kinds), kinds == HWBPI_KINDS_EXACT);
	hwbpi_ptrace_set_drain(s->bstate, hwbpi_linux_drain, s);
	if ((ret = hwbpi_linux_callgraph(s, &cg)))
		return ret;
	hwbpi_ptrace_set_callgraph(s->bstate, cg);
	/* A data hit's IP is the trap's, as for perf: past the access on
	 * x86 and powerpc (its function and line are the instruction's). */
	s->t.func_adjust = hwbpi_linux_trap_ip_adjust;
	/* Without --cpu: the model of the kernel's own debug registers. */
	ret = hwbpi_ptrace_trace(s->bstate, &s->t, s->have_cpu ? &s->cpu : NULL, &status, err,
				     sizeof(err));

	if (ret)
		return hwbpi_fail(s, ret, false, "%s", err[0] ? err : hwbp_errno_name(ret));
	if (hwbpi_ptrace_twin_unsplit(s->bstate))
		hwbpi_note(s, "%u RW watch%s without a store-only twin (no debug register free): "
			   "kinds from the watched bytes ('?' when unchanged)",
			   hwbpi_ptrace_twin_unsplit(s->bstate),
			   hwbpi_ptrace_twin_unsplit(s->bstate) > 1 ? "es" : "");
	if (hwbpi_ptrace_armed_left(s->bstate))
		hwbpi_note(s, "%u threads detached with a debug register the kernel did not clear "
			   "(read back after clearing): they may die of SIGTRAP",
			   hwbpi_ptrace_armed_left(s->bstate));
	if (s->argv) {
		s->status = status;
		s->have_status = true;
	}
	return 0;
}

static void ptrace_stop(struct hwbp_trace_session *s)
{
	hwbpi_ptrace_request_stop(s->stop_sig);
}

static void ptrace_close(struct hwbp_trace_session *s)
{
	/* A started process still alive is killed, an attached one left running. */
	hwbpi_ptrace_free(s->bstate);
	s->bstate = NULL;
}

const struct hwbp_trace_backend hwbpi_backend_ptrace = {
	.name = "ptrace",
	.description = "a real process on this machine's debug registers, a stop per hit",
	.workload = "-- CMD or -p PID",
	.options = linux_options,
	.flags = HWBP_TRACE_BACKEND_CPU | HWBP_TRACE_BACKEND_TLS | HWBP_TRACE_BACKEND_STACKS,
	.open = ptrace_open,
	.run = ptrace_run,
	.stop = ptrace_stop,
	.close = ptrace_close,
};

/* --------------------------------------------------------- perf, bpf */

struct perf_state {
	pid_t pid;
	bool started;            /* a child of ours, still held stopped */
	bool kernel;             /* --kernel: kstate is the kernel scope's */
	void *kstate;
};

int hwbpi_linux_model(struct hwbp_trace_session *s, const char *what)
{
	struct hwbp_cpu native;
	char err[256] = "";
	int ret;

	/* The model of the kernel's own debug registers, asked before
	 * anything is started: the default --cpu, and what a --cpu given
	 * must fit (as for ptrace). */
	ret = hwbpi_ptrace_native_cpu(&native, err, sizeof(err));
	if (ret)
		return hwbpi_fail(s, ret, false, "%s", err[0] ? err : hwbp_errno_name(ret));
	if (!s->have_cpu)
		s->cpu = native;
	else if ((ret = hwbpi_model_fits(what, &s->cpu, &native, err, sizeof(err))))
		return hwbpi_fail(s, ret, false, "%s", err);
	return 0;
}

static int perf_open(struct hwbp_trace_session *s)
{
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
	if ((ret = hwbpi_kernel_kinds(s, &kinds)) || (ret = hwbpi_linux_callgraph(s, &cg)))
		return ret;
	if (hwbpi_session_opt(s, "kernel")) {
		p->kernel = true;
		ret = hwbpi_kernel_open(s, &p->kstate);
		s->t.missing_hint = hwbpi_kernel_missing_hint(p->kstate);
		return ret;
	}
	if ((ret = workload(s, &pid)))
		return ret;
	/* Sampling: one ring per CPU the samples may come from. */
	s->ncpus = hwbpi_perf_ncpus();
	if (s->ncpus > HWBPI_TRACE_MAX_CPUS)
		s->ncpus = HWBPI_TRACE_MAX_CPUS;
	if ((ret = hwbpi_linux_model(s, s->backend->name)))
		return ret;
	if (pid) {
		p->pid = pid;
	} else {
		ret = hwbpi_perf_start(s->argv, &p->pid, err, sizeof(err));
		if (ret)
			return hwbpi_fail(s, ret, false, "%s", err[0] ? err : hwbp_errno_name(ret));
		p->started = true;
	}
	return process_symbols(s, p->pid);
}

unsigned hwbpi_linux_ring_pages(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 1;

	/* The kernel's ring per CPU for --buffer-kb: data pages, a power of
	 * two (perf_mmap() refuses any other count), the most that fit; 0:
	 * the backend's default. */
	if (bytes == 0)
		return 0;
	while (n * 2 * page <= bytes)
		n *= 2;
	return (unsigned)n;
}

static int run_either(struct hwbp_trace_session *s, bool bpf)
{
	struct perf_state *p = s->bstate;
	struct hwbpi_perf_result res;
	bool started = p->started;
	int ret;

	p->started = false;   /* the trace lets it run, or kills it: nothing to abort */
	ret = hwbpi_trace_counted(s, p->kernel, p->kstate, p->pid, started, bpf, &res);
	if (ret == 0 && started) {
		s->status = res.wstatus;
		s->have_status = true;
	}
	return ret;
}

static int perf_run(struct hwbp_trace_session *s)
{
	return run_either(s, false);
}

static int bpf_run(struct hwbp_trace_session *s)
{
	return run_either(s, true);
}

static void perf_close(struct hwbp_trace_session *s)
{
	struct perf_state *p = s->bstate;

	if (p && p->started)
		hwbpi_perf_abort(p->pid);
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
	.flags = HWBP_TRACE_BACKEND_CPU | HWBP_TRACE_BACKEND_RINGS | HWBP_TRACE_BACKEND_STACKS,
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
	.flags = HWBP_TRACE_BACKEND_CPU | HWBP_TRACE_BACKEND_RINGS | HWBP_TRACE_BACKEND_STACKS,
	.open = perf_open,
	.run = bpf_run,
	.close = perf_close,
};
