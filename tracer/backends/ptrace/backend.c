/* SPDX-License-Identifier: MIT */
/*
 * The ptrace backend's operations (registry/registry.c): a stop per hit
 * on a command it starts (-- CMD) or a process it attaches (-p PID),
 * whose symbols are read from /proc/PID/maps once it is stopped with
 * everything mapped (backends/linux/linux.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ptrace/ptrace.h"

static const struct hwbp_trace_backend_option ptrace_options[] = {
	{ "cmd", 0, "CMD", HWBP_TRACE_OPT_WORKLOAD | HWBP_TRACE_OPT_SELECTS | HWBP_TRACE_OPT_ARGV,
	  NULL, "start CMD [ARGS] and trace it" },
	{ "pid", 'p', "PID", HWBP_TRACE_OPT_WORKLOAD | HWBP_TRACE_OPT_SELECTS, NULL,
	  "attach to the running process PID" },
	{ "kinds", 0, "MODE", 0, NULL, "exact, auto (default) or off: a store-only twin in a "
	  "free slot tells reads from writes (x86)" },
	HWBPI_CALL_GRAPH_OPTION,
	{ NULL, 0, NULL, 0, NULL, NULL },
};

/* ------------------------------------------------------------- ptrace */

static int ptrace_open(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	struct hwbpi_ptrace *ps = NULL;
	char err[256] = "";
	enum hwbpi_kinds kinds;
	enum hwbpi_callgraph cg;
	pid_t pid;
	int ret = hwbpi_process_workload(s, &pid);

	/* bad input before anything starts */
	if (ret == 0 && (ret = hwbpi_linux_glue_check(err, sizeof(err))))
		return hwbpi_fail(s, ret, false, "%s (%s)", err, hwbp_errno_name(ret));
	if (ret == 0)
		ret = hwbpi_process_kinds(s, &kinds);
	if (ret == 0)
		ret = hwbpi_process_callgraph(s, &cg);
	if (ret)
		return ret;
	/* Stopped once its executable and libraries are mapped. */
	if (s->arm_nothing)
		ret = hwbpi_ptrace_open_unarmed(&ps, s->argv, pid, err, sizeof(err));
	else
		ret = pid ? hwbpi_ptrace_attach(&ps, pid, err, sizeof(err))
			  : hwbpi_ptrace_start(&ps, s->argv, err, sizeof(err));
	if (ret)
		return hwbpi_fail(s, ret, false, "%s", err[0] ? err : hwbp_errno_name(ret));
	s->bstate = ps;
	/* The model the session plans patterns with (without --cpu: the
	 * kernel's, as the run uses). */
	if (!s->have_cpu && hwbpi_ptrace_cpu(ps, &s->cpu))
		memset(&s->cpu, 0, sizeof(s->cpu));
	return hwbpi_process_symbols(s, hwbpi_ptrace_pid(ps));
}

static int ptrace_run(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	char err[256] = "";
	enum hwbpi_kinds kinds;
	enum hwbpi_callgraph cg;
	int status = 0;
	int ret;

	if ((ret = hwbpi_process_kinds(s, &kinds)))
		return ret;
	/* Kinds from DR6 where this arch pairs a store-only twin (x86) and
	 * the CPU reports both slots; elsewhere the watched bytes say. */
	if (kinds == HWBPI_KINDS_EXACT && !hwbpi_twins(kinds))
		return hwbpi_fail(s, -EOPNOTSUPP, false, "--kinds exact: the ptrace backend takes "
				  "kinds from store-only twins, which this CPU cannot pair (EOPNOTSUPP)");
	/* Where the arch does not report a hit's access (x86), its decoded
	 * instruction gives it (tracer/insn/insn.h): the address, size and
	 * kind of every hit that decodes, with no slot spent on a twin.
	 * --kinds exact keeps the twins too (a hit may not decode: a load
	 * into its own base register); --kinds off neither. */
	bool dec = kinds != HWBPI_KINDS_OFF && hwbpi_insn_arch(s->cpu.arch) != NULL;

	hwbpi_ptrace_set_decode(s->bstate, dec);
	hwbpi_ptrace_set_kinds(s->bstate, hwbpi_twins(kinds) && (kinds == HWBPI_KINDS_EXACT || !dec),
			       kinds == HWBPI_KINDS_EXACT);
	hwbpi_ptrace_set_drain(s->bstate, hwbpi_process_drain, s);
	if ((ret = hwbpi_process_callgraph(s, &cg)))
		return ret;
	hwbpi_ptrace_set_callgraph(s->bstate, cg);
	/* A data hit's IP is the trap's, as for perf: past the access on
	 * x86 and powerpc (its function and line are the instruction's). */
	s->t.func_adjust = hwbpi_linux_trap_ip_adjust;
	/* A stop asked for before the process was started or attached (a
	 * Ctrl-C while hwbp set up: the open reset the backend's own record
	 * of it) is asked for again: the session kept it. */
	for (int k = 0; k < s->stop; k++)
		hwbpi_ptrace_request_stop(s->stop_sig);
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
	uint64_t undecoded, decoded;
	unsigned shared, shared_slots;
	int why;

	if ((shared = hwbpi_ptrace_shared(s->bstate, &shared_slots)))
		hwbpi_note(s, "%u watches share %u debug register%s (more watches than registers): "
			   "each hit went to the watches its access touched (%s)", shared, shared_slots,
			   shared_slots > 1 ? "s" : "", hwbpi_insn_arch(s->cpu.arch) ?
			   "its instruction decoded" : "the address the CPU reported");
	decoded = hwbpi_ptrace_decoded(s->bstate, &undecoded, &why);
	if (undecoded)
		hwbpi_note(s, "%" PRIu64 " of %" PRIu64 " data hits did not decode (the first: %s%s): "
			   "their kinds from %s", undecoded, decoded + undecoded, hwbp_errno_name(why),
			   why == -ENOENT ? ", no instruction ended at the PC with an access to the "
			   "watch: an address lost with its base register, a branch through memory" :
			   why == -EFAULT ? ", its code unreadable" : "",
			   kinds == HWBPI_KINDS_EXACT ? "the store-only twins" :
			   "the watched bytes ('?' when unchanged)");
	uint64_t unknown, lost = hwbpi_ptrace_lost_status(s->bstate, &unknown);

	if (lost)
		hwbpi_note(s, "%" PRIu64 " hit%s came without the debug status (x86 DR6 naming no "
			   "slot, a departure of this machine's hypervisor): %" PRIu64 " told by the "
			   "watched bytes, %" PRIu64 " not counted (no watched bytes changed)", lost,
			   lost > 1 ? "s" : "", lost - unknown, unknown);
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

static void ptrace_stop(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	hwbpi_ptrace_request_stop(s->stop_sig);
}

static void ptrace_close(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	/* A started process still alive is killed, an attached one left running. */
	hwbpi_ptrace_free(s->bstate);
	s->bstate = NULL;
}

const struct hwbp_trace_backend hwbpi_backend_ptrace = {
	.name = "ptrace",
	.description = "a real process on this machine's debug registers, a stop per hit",
	.workload = "-- CMD or -p PID",
	.options = ptrace_options,
	.flags = HWBP_TRACE_BACKEND_CPU | HWBP_TRACE_BACKEND_TLS | HWBP_TRACE_BACKEND_STACKS |
		 HWBP_TRACE_BACKEND_OBJECTS,
	.open = ptrace_open,
	.run = ptrace_run,
	.stop = ptrace_stop,
	.close = ptrace_close,
};

