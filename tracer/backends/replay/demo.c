/* SPDX-License-Identifier: MIT */
/*
 * The demo workload: a small deterministic "kernel" of a few variables and
 * a couple of dozen functions on four CPUs.  jiffies is touched by more
 * functions than a histogram's default 16 entries, so that its overrun
 * shows.  The same table is what the qemu-x86 backend's kernel runs as
 * real code.  The functions call one another in known ways (paths[]), so
 * that --stack shows distinct call stacks with counts a test can derive
 * from these tables.
 */
#include <errno.h>
#include <string.h>

#include "backends/replay/replay.h"

#define TEXT UINT64_C(0xffffffff81000000)
#define DATA UINT64_C(0xffffffff82a00000)
#define FSIZE 0x400

enum var { JIFFIES, PID_MAX, NR_THREADS, TOTAL_FORKS, AVENRUN, NVAR };

static const struct {
	const char *name;
	uint64_t off, size;
} vars[NVAR] = {
	[JIFFIES] = { "jiffies", 0x000, 8 },
	[PID_MAX] = { "pid_max", 0x040, 4 },
	[NR_THREADS] = { "nr_threads", 0x080, 4 },
	[TOTAL_FORKS] = { "total_forks", 0x0c0, 8 },
	[AVENRUN] = { "avenrun", 0x100, 24 },
};

static const char *const funcs[] = {
	"do_timer", "tick_do_update_jiffies64", "get_jiffies_64", "msleep",
	"schedule_timeout", "process_timeout", "mod_timer", "add_timer",
	"round_jiffies", "wait_for_completion_timeout", "neigh_periodic_work",
	"__ratelimit", "time_out_leases", "dev_watchdog", "rcu_gp_kthread",
	"calc_global_load", "usleep_range_state", "blk_mq_timeout_work",
	"tcp_write_timer_handler", "kernel_clone", "copy_process", "alloc_pid",
	"do_exit", "release_task", "proc_dointvec_minmax", "loadavg_proc_show",
	/* callers only (paths[]): no access of their own */
	"tick_sched_timer", "__hrtimer_run_queues", "hrtimer_interrupt", "run_timer_softirq",
	"__do_softirq", "worker_thread", "kthread", "ret_from_fork", "__do_sys_clone",
	"do_syscall_64",
};

#define NFUNC (sizeof(funcs) / sizeof(funcs[0]))

static unsigned fn(const char *name)
{
	for (unsigned i = 0; i < NFUNC; i++)
		if (strcmp(funcs[i], name) == 0)
			return i;
	return 0;
}

/* One access site: on @cpu, function @f reads/writes @var every @every
 * rounds (R = load, W = store, M = read-modify-write: one write access). */
struct step {
	unsigned char cpu;
	const char *f;
	unsigned char var;
	char op;
	unsigned char size;
	unsigned short every;
};

static const struct step steps[] = {
	{ 0, "do_timer", JIFFIES, 'M', 8, 1 },
	{ 0, "tick_do_update_jiffies64", JIFFIES, 'R', 8, 1 },
	{ 1, "get_jiffies_64", JIFFIES, 'R', 8, 2 },
	{ 1, "msleep", JIFFIES, 'R', 8, 5 },
	{ 2, "schedule_timeout", JIFFIES, 'R', 8, 3 },
	{ 2, "process_timeout", JIFFIES, 'R', 8, 7 },
	{ 3, "mod_timer", JIFFIES, 'R', 8, 2 },
	{ 3, "add_timer", JIFFIES, 'R', 8, 11 },
	{ 1, "round_jiffies", JIFFIES, 'R', 8, 13 },
	{ 2, "wait_for_completion_timeout", JIFFIES, 'R', 8, 17 },
	{ 3, "neigh_periodic_work", JIFFIES, 'R', 8, 19 },
	{ 1, "__ratelimit", JIFFIES, 'R', 8, 23 },
	{ 2, "time_out_leases", JIFFIES, 'R', 8, 29 },
	{ 3, "dev_watchdog", JIFFIES, 'R', 8, 31 },
	{ 1, "rcu_gp_kthread", JIFFIES, 'R', 8, 37 },
	{ 0, "calc_global_load", JIFFIES, 'R', 8, 5 },
	{ 0, "calc_global_load", AVENRUN, 'W', 8, 5 },
	{ 2, "usleep_range_state", JIFFIES, 'R', 8, 41 },
	{ 3, "blk_mq_timeout_work", JIFFIES, 'R', 8, 43 },
	{ 1, "tcp_write_timer_handler", JIFFIES, 'R', 8, 47 },
	{ 2, "kernel_clone", JIFFIES, 'R', 8, 53 },
	{ 2, "kernel_clone", TOTAL_FORKS, 'M', 8, 6 },
	{ 2, "copy_process", NR_THREADS, 'R', 4, 6 },
	{ 2, "copy_process", NR_THREADS, 'M', 4, 6 },
	{ 2, "alloc_pid", PID_MAX, 'R', 4, 6 },
	{ 3, "do_exit", NR_THREADS, 'M', 4, 8 },
	{ 1, "release_task", NR_THREADS, 'R', 4, 8 },
	{ 0, "proc_dointvec_minmax", PID_MAX, 'R', 4, 97 },
	{ 0, "proc_dointvec_minmax", PID_MAX, 'W', 4, 97 },
	{ 3, "loadavg_proc_show", AVENRUN, 'R', 8, 10 },
	{ 3, "loadavg_proc_show", NR_THREADS, 'R', 4, 10 },
};

#define NSTEP (sizeof(steps) / sizeof(steps[0]))
#define ROUNDS 1200

/*
 * Who calls the functions of steps[]: each path is the callers, innermost
 * first, as in a kernel (timer interrupts, softirqs, kernel threads, the
 * clone system call); a function with a second path is called through the
 * two in turn, its k-th run (k = round / every of the step) through path
 * k % 2; a function not listed has no callers (a stack of one frame).
 * Each caller's frame is a return address: the call site of (caller,
 * callee) at CALL_SITE + 8 * callee (after the access sites, which end at
 * 0x20 + 0x10 * NSTEP) plus the 5 bytes of an x86 call.
 */
#define CALL_SITE 0x280
#define CALL_LEN 5
#define MAX_CALLERS 5

static const struct path {
	const char *f;
	const char *via[2][MAX_CALLERS];   /* NULL-ended; via[1][0] NULL: one path */
} paths[] = {
	{ "do_timer", { { "tick_do_update_jiffies64", "tick_sched_timer", "__hrtimer_run_queues",
			  "hrtimer_interrupt" } } },
	{ "tick_do_update_jiffies64", { { "tick_sched_timer", "__hrtimer_run_queues",
					  "hrtimer_interrupt" } } },
	{ "calc_global_load", { { "tick_do_update_jiffies64", "tick_sched_timer",
				  "__hrtimer_run_queues", "hrtimer_interrupt" } } },
	{ "get_jiffies_64", { { "rcu_gp_kthread", "kthread", "ret_from_fork" },
			      { "msleep", "worker_thread", "kthread", "ret_from_fork" } } },
	{ "msleep", { { "worker_thread", "kthread", "ret_from_fork" } } },
	{ "schedule_timeout", { { "msleep", "worker_thread", "kthread", "ret_from_fork" },
				{ "wait_for_completion_timeout", "worker_thread", "kthread",
				  "ret_from_fork" } } },
	{ "process_timeout", { { "run_timer_softirq", "__do_softirq" } } },
	{ "mod_timer", { { "neigh_periodic_work", "worker_thread", "kthread", "ret_from_fork" },
			 { "dev_watchdog", "run_timer_softirq", "__do_softirq" } } },
	{ "add_timer", { { "blk_mq_timeout_work", "worker_thread", "kthread", "ret_from_fork" } } },
	{ "rcu_gp_kthread", { { "kthread", "ret_from_fork" } } },
	{ "kernel_clone", { { "__do_sys_clone", "do_syscall_64" } } },
	{ "copy_process", { { "kernel_clone", "__do_sys_clone", "do_syscall_64" } } },
	{ "alloc_pid", { { "copy_process", "kernel_clone", "__do_sys_clone", "do_syscall_64" } } },
};

#define NPATH (sizeof(paths) / sizeof(paths[0]))

_Static_assert(MAX_CALLERS <= HWBPI_WORK_CALLERS, "an access holds every caller");
_Static_assert(CALL_SITE >= 0x20 + 0x10 * NSTEP && CALL_SITE + 8 * NFUNC + CALL_LEN < FSIZE,
	       "call sites lie after the access sites, inside the function");

/* The callers of step @st's function in round @round into @out (return
 * addresses); returns how many. */
static unsigned callers_of(const struct step *st, unsigned round, uint64_t *out)
{
	for (unsigned i = 0; i < NPATH; i++) {
		const char *const *via;
		unsigned n = 0, callee = fn(st->f);

		if (strcmp(paths[i].f, st->f) != 0)
			continue;
		via = paths[i].via[paths[i].via[1][0] && (round / st->every) % 2];
		for (; n < MAX_CALLERS && via[n]; n++) {
			out[n] = TEXT + (uint64_t)fn(via[n]) * FSIZE + CALL_SITE + 8 * (uint64_t)callee +
				 CALL_LEN;
			callee = fn(via[n]);
		}
		return n;
	}
	return 0;
}

struct hwbp_symtab *hwbpi_demo_symtab(int *err)
{
	struct hwbp_symtab *t = hwbp_symtab_new(err);
	int ret = 0;

	if (!t)
		return NULL;
	for (unsigned i = 0; ret == 0 && i < NFUNC; i++)
		ret = hwbp_symtab_add(t, funcs[i], TEXT + (uint64_t)i * FSIZE, FSIZE, 'T');
	for (unsigned i = 0; ret == 0 && i < NVAR; i++)
		ret = hwbp_symtab_add(t, vars[i].name, DATA + vars[i].off, vars[i].size, 'D');
	if (ret == 0)
		ret = hwbp_symtab_finish(t);
	if (ret) {
		hwbp_symtab_free(t);
		if (err)
			*err = ret;
		return NULL;
	}
	return t;
}

bool hwbpi_demo_next(void *state, struct hwbpi_work_access *a)
{
	struct hwbpi_demo_state *s = state;

	for (; s->round < ROUNDS; s->round++, s->step = 0) {
		while (s->step < NSTEP) {
			const struct step *st = &steps[s->step];
			unsigned site = s->step;

			s->step++;
			if (s->round % st->every)
				continue;
			a->cpu = st->cpu;
			/* each access site its own instruction inside the function */
			a->ip = TEXT + (uint64_t)fn(st->f) * FSIZE + 0x20 + 0x10 * (uint64_t)site;
			a->addr = DATA + vars[st->var].off;
			a->size = st->size;
			a->op = st->op == 'R' ? HWBP_SIM_READ : HWBP_SIM_WRITE;
			a->ncallers = callers_of(st, s->round, a->callers);
			s->ts++;
			return true;
		}
	}
	return false;
}

/* What the demo watches when no entry is given. */
const char *const hwbpi_demo_watches[] = {
	"jiffies:rw-", "pid_max:rw-", "nr_threads:rw-", "total_forks:-w-", NULL,
};
