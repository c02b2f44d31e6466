/* SPDX-License-Identifier: MIT */
/*
 * The race detector's run from start to end (race/race.h,
 * hwbpi_race_run()): the debug registers asked whether they fire, the
 * process started at its entry point or attached (seized, every thread
 * stopped), its symbols and source lines read, the decoder opened, the
 * candidates chosen and the first traps planted; then the loop
 * (engine.c); then a started command waited for.  On an error before the
 * loop, a started command is killed and an attached process let go as it
 * was (nothing was written to it yet).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "race/race_int.h"

static int fail(struct hwbpi_race_run *r, int ret, bool input, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct hwbpi_race_run *r, int ret, bool input, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->input = input;
	return ret;
}

static int read_code(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(*(pid_t *)arg, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

static bool seize_known(void *arg, pid_t tid)
{
	return hwbpi_race_thr_find(arg, tid) != NULL;
}

static int seize_add(void *arg, pid_t tid, int st)
{
	struct hwbpi_race_loop *L = arg;
	struct rthr *th = hwbpi_race_thr_add(L, tid, L->pid);

	if (!th)
		return -ENOMEM;
	if (st != -1) {
		th->seen = th->stopped = true;
		L->r->counts.threads++;
		if ((st >> 16) == 0)
			th->sig = WSTOPSIG(st);   /* a signal-delivery stop came first */
	}
	return 0;
}

/* The process, stopped: a command at its entry point, or every thread of
 * r->pid.  Errors: seize's, the model's, run_to_entry's. */
static int begin(struct hwbpi_race_loop *L)
{
	struct hwbpi_race_run *r = L->r;
	struct rthr *th = NULL;
	int ret;

	if (r->argv) {
		ret = hwbpi_seize_spawn(r->argv, NULL, NULL, HWBPI_RACE_OPTS, &L->pid, r->msg,
					sizeof(r->msg));
		if (ret)
			return ret;
		if (!(th = hwbpi_race_thr_add(L, L->pid, L->pid)))
			return -ENOMEM;
		th->seen = th->stopped = true;
		r->counts.threads++;
		ret = hwbpi_child_model(L->pid, &L->cpu, r->msg, sizeof(r->msg));
		return ret ? ret : hwbpi_child_run_to_entry(L->pid, r->argv[0], r->msg, sizeof(r->msg));
	}
	L->attached = true;
	/* A thread's id given: its process's (the threads it creates carry
	 * that Tgid, and a thread of another one is a fork's). */
	L->pid = hwbpi_proc_status_field(r->pid, "Tgid");
	if (L->pid <= 0)
		L->pid = r->pid;
	{
		struct hwbpi_seize_cb cb = { seize_known, seize_add, L };

		ret = hwbpi_seize_threads(L->pid, HWBPI_RACE_OPTS, &cb, r->msg, sizeof(r->msg));
	}
	if (ret == 0 && !(th = hwbpi_race_stopped(L)))
		ret = fail(r, -ESRCH, false, "process %d ended while being attached", (int)L->pid);
	return ret ? ret : hwbpi_child_model(th->tid, &L->cpu, r->msg, sizeof(r->msg));
}

/* The process's symbols (and, with libdw, its source lines), and the
 * name of its executable, the default object. */
static int symbols(struct hwbpi_race_loop *L)
{
	struct hwbpi_race_run *r = L->r;
	char p[64], path[4096];
	ssize_t n;
	int ret = 0;

	if (!(r->syms = hwbp_symtab_new(&ret)))
		return fail(r, ret, false, "symbols: %s", hwbp_errno_name(ret));
	r->dwarf = hwbpi_dwarf_new(NULL, true, &ret);   /* NULL without libdw: no lines */
	hwbpi_symtab_set_dwarf(r->syms, r->dwarf);
	ret = hwbpi_proc_load_symbols(r->syms, L->pid, NULL);
	if (ret >= 0)
		ret = hwbp_symtab_finish(r->syms);
	if (ret < 0)
		return fail(r, ret, false, "cannot read the symbols of process %d: %s", (int)L->pid,
			    hwbp_errno_name(ret));
	snprintf(p, sizeof(p), "/proc/%d/exe", (int)L->pid);
	n = readlink(p, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = '\0';
	/* (a name, not a path: NAME_MAX fits) */
	snprintf(r->exe, sizeof(r->exe), "%.*s", (int)sizeof(r->exe) - 1,
		 strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	r->sel.exe = r->exe;
	return 0;
}

/* Whether an --only or --exclude entry has a function pattern. */
static bool has_pattern(const struct hwbpi_race_sel *sel)
{
	for (unsigned i = 0; i < sel->nonly; i++)
		if (strchr(sel->only[i], ':'))
			return true;
	for (unsigned i = 0; i < sel->nexclude; i++)
		if (strchr(sel->exclude[i], ':'))
			return true;
	return false;
}

/* The decoder and the candidates.  Errors: -EOPNOTSUPP (no decoder),
 * -ENOENT (nothing to sample: input when --only chose it), -ENOMEM. */
static int candidates(struct hwbpi_race_loop *L)
{
	struct hwbpi_race_run *r = L->r;
	struct hwbpi_race_cands *c = &r->cands;
	struct hwbp_caps caps;
	int ret;

	/* (a data hit after its access is decoded back from the PC: at_trap;
	 * one before it, at the PC: at_pc) */
	if ((ret = hwbp_caps_get(&L->cpu, &caps)))
		return fail(r, ret, false, "the CPU's model: %s", hwbp_errno_name(ret));
	L->hit_before = caps.data_timing == HWBP_TIMING_BEFORE;
	L->ia = hwbpi_insn_race_arch(L->cpu.arch);
	if (!L->ia || (!L->hit_before && !L->ia->at_trap))
		return fail(r, -EOPNOTSUPP, false, "no instruction decoder for this CPU: hwbp race "
			    "decodes the sampled accesses (x86-64 and arm64 in this release)");
	if ((ret = L->ia->open(&L->dec)))
		return fail(r, ret, false, "the instruction decoder: %s%s", hwbp_errno_name(ret),
			    ret == -EOPNOTSUPP ? " (built without Capstone)" : "");
	ret = hwbpi_race_candidates(r->syms, &r->sel, L->ia, L->dec, read_code, &L->pid, c);
	if (ret)
		return fail(r, ret, false, "choosing the instructions: %s", hwbp_errno_name(ret));
	if (!c->objects && r->sel.nonly)
		return fail(r, -ENOENT, true, "--only %s: no object of that name is mapped in "
			    "process %d (its last path component, as libfoo.so.1)", r->sel.only[0],
			    (int)L->pid);
	if (c->objects && !c->functions && has_pattern(&r->sel))
		return fail(r, -ENOENT, true, "--only/--exclude: no function of %s matches (a "
			    "pattern after OBJ:, as prog:worker_*)", c->first_obj);
	if (!c->objects || !c->functions)
		return fail(r, -ENOENT, false, "%s: no function symbols to sample (a stripped "
			    "program? --only chooses a library)", c->objects ? c->first_obj : r->exe);
	if (!c->n)
		return fail(r, -ENOENT, false, "%s: no memory access that could race among its %llu "
			    "instructions", c->first_obj, (unsigned long long)c->instructions);
	return 0;
}

/* The rest of the loop's state: the watch's planner, the traps, the
 * random choice and its budget. */
static int ready(struct hwbpi_race_loop *L)
{
	struct hwbpi_race_run *r = L->r;
	int ret = hwbp_ctx_init(&L->ctx, &L->cpu, 1, L->percpu, NULL);

	if (ret == 0)
		ret = hwbp_task_init(&L->ctx, &L->task);
	if (ret == 0)
		ret = hwbp_regs_reset(&L->cpu, &L->off);
	if (ret == 0)
		ret = hwbpi_traps_init(&L->traps, HWBPI_RACE_MAX_TRAPS);
	if (ret)
		return fail(r, ret, false, "setting up: %s", hwbp_errno_name(ret));
	L->w.req = L->last.req = -1;
	/* Callers: the process's modules now (at its entry point every
	 * library it needs is mapped); one that cannot be read costs the
	 * reports their callers, not the run. */
	if (r->stack_depth) {
		char why[256];

		L->uw_ok = hwbpi_unwinder_init(&L->uw, HWBPI_CG_DEFAULT, L->pid, why,
					       sizeof(why)) == 0;
		if (!L->uw_ok && r->note) {
			char line[320];

			snprintf(line, sizeof(line), "no callers in the reports: %s", why);
			r->note(r->note_arg, line);
		}
	}
	L->sampling = true;
	hwbpi_race_rng_seed(&L->rng, r->seed);
	hwbpi_race_budget_init(&L->budget, r->millirate, hwbpi_race_now());
	return 0;
}

/* Before the loop ran: a started command killed, an attached process's
 * threads let go (nothing was written to them). */
static void give_up(struct hwbpi_race_loop *L)
{
	if (L->pid <= 0)
		return;
	if (!L->attached) {
		hwbpi_child_kill(L->pid);
		return;
	}
	for (size_t i = 0; i < L->nthr; i++)
		if (L->thr[i].stopped)
			ptrace(PTRACE_DETACH, L->thr[i].tid, NULL, (void *)(uintptr_t)L->thr[i].sig);
		else
			ptrace(PTRACE_DETACH, L->thr[i].tid, NULL, NULL);
}

/* A started command let go at a stop (--duration, a signal): it gets the
 * signal asked for, and is waited for; asked again, killed. */
static void wait_command(struct hwbpi_race_loop *L)
{
	struct hwbpi_race_run *r = L->r;
	int st;

	if (L->attached || r->have_status)
		return;
	if (r->stop_sig)
		kill(L->pid, r->stop_sig);
	for (;;) {
		if (r->stop > 1)
			kill(L->pid, SIGKILL);
		if (waitpid(L->pid, &st, 0) == L->pid) {
			r->have_status = true;
			r->status = st;
			return;
		}
		if (errno != EINTR)
			return;
	}
}

int hwbpi_race_run(struct hwbpi_race_run *r)
{
	struct hwbpi_race_loop *L;
	sigset_t chld, old;
	int ret;

	if (!r || (!r->argv == !r->pid))
		return -EINVAL;
	r->msg[0] = '\0';
	if ((ret = hwbpi_linux_fires(r->msg, sizeof(r->msg))))
		return ret;
	if (!(L = calloc(1, sizeof(*L))))
		return -ENOMEM;
	L->r = r;
	/* SIGCHLD blocked, so that the loop can sleep until a stop in
	 * sigtimedwait() (a blocked signal is queued even when ignored). */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old);
	ret = begin(L);
	if (ret == 0)
		ret = symbols(L);
	if (ret == 0)
		ret = candidates(L);
	if (ret == 0)
		ret = ready(L);
	if (ret) {
		give_up(L);
	} else {
		struct rthr *th = hwbpi_race_stopped(L);

		if (r->duration_ns)
			L->end_ns = hwbpi_race_now() + r->duration_ns;
		hwbpi_race_plant(L, th->tid, hwbpi_race_now());
		for (size_t i = 0; i < L->nthr; i++)
			hwbpi_race_resume(L, &L->thr[i]);
		ret = hwbpi_race_loop_run(L);
		wait_command(L);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (L->dec)
		L->ia->close(L->dec);
	hwbpi_traps_fini(&L->traps);
	if (L->uw_ok)
		hwbpi_unwinder_fini(&L->uw);
	free(L->thr);
	free(L);
	return ret;
}
