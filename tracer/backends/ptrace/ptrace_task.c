/* SPDX-License-Identifier: MIT */
/*
 * The ptrace backend's tables (tracer/backends/ptrace/ptrace_int.h): the threads and
 * processes of a session, the small ptrace helpers every part uses
 * (resume, wait, read memory), the kernel's CPU model, and the self-test
 * that start and attach run first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/linux/linux.h"
#include "backends/ptrace/ptrace_int.h"


pid_t hwbpi_ptrace_pid(const struct hwbpi_ptrace *s)
{
	return s ? s->pid : -1;
}

void hwbpi_ptrace_set_drain(struct hwbpi_ptrace *s, void (*fn)(void *arg), void *arg)
{
	if (s) {
		s->drain = fn;
		s->drain_arg = arg;
	}
}

void hwbpi_ptrace_set_kinds(struct hwbpi_ptrace *s, bool twins, bool exact)
{
	if (s) {
		s->twins = twins;
		s->kinds_exact = exact;
	}
}

void hwbpi_ptrace_set_decode(struct hwbpi_ptrace *s, bool on)
{
	if (s)
		s->decode = on;
}

uint64_t hwbpi_ptrace_decoded(const struct hwbpi_ptrace *s, uint64_t *undecoded, int *why)
{
	if (undecoded)
		*undecoded = s ? s->undecoded : 0;
	if (why)
		*why = s ? s->undecoded_err : 0;
	return s ? s->decoded : 0;
}

unsigned hwbpi_ptrace_shared(const struct hwbpi_ptrace *s, unsigned *slots)
{
	if (slots)
		*slots = s ? s->shared_slots : 0;
	return s ? s->shared : 0;
}

unsigned hwbpi_ptrace_twin_unsplit(const struct hwbpi_ptrace *s)
{
	return s ? s->twin_unsplit : 0;
}

uint64_t hwbpi_ptrace_lost_status(const struct hwbpi_ptrace *s, uint64_t *unknown)
{
	if (unknown)
		*unknown = s ? s->lost_unknown : 0;
	return s ? s->lost_status : 0;
}

unsigned hwbpi_ptrace_armed_left(const struct hwbpi_ptrace *s)
{
	return s ? s->armed_left : 0;
}

int hwbpi_ptrace_cpu(const struct hwbpi_ptrace *s, struct hwbp_cpu *cpu)
{
	if (!s || !cpu)
		return -EINVAL;
	*cpu = s->cpu;
	return 0;
}

struct thr *hwbpi_ptrace_thr_find(struct hwbpi_ptrace *s, pid_t tid)
{
	for (size_t i = 0; i < s->nthr; i++)
		if (s->thr[i].tid == tid)
			return &s->thr[i];
	return NULL;
}

struct thr *hwbpi_ptrace_thr_add(struct hwbpi_ptrace *s, pid_t tid, pid_t tgid)
{
	if (s->nthr == s->cthr) {
		size_t c = s->cthr ? 2 * s->cthr : 16;
		struct thr *n = realloc(s->thr, c * sizeof(*n));

		if (!n)
			return NULL;
		s->thr = n;
		s->cthr = c;
	}
	memset(&s->thr[s->nthr], 0, sizeof(s->thr[0]));
	s->thr[s->nthr].tid = tid;
	s->thr[s->nthr].tgid = tgid;
	return &s->thr[s->nthr++];
}

void hwbpi_ptrace_thr_del(struct hwbpi_ptrace *s, pid_t tid)
{
	struct thr *t = hwbpi_ptrace_thr_find(s, tid);

	if (t) {
		free(t->shadow);
		*t = s->thr[--s->nthr];
	}
}

struct proc *hwbpi_ptrace_proc_find(struct hwbpi_ptrace *s, pid_t tgid)
{
	for (size_t i = 0; i < s->nproc; i++)
		if (s->proc[i].tgid == tgid)
			return &s->proc[i];
	return NULL;
}

struct proc *hwbpi_ptrace_proc_add(struct hwbpi_ptrace *s, pid_t tgid, size_t shadow_len)
{
	struct proc *p = hwbpi_ptrace_proc_find(s, tgid);

	if (p)
		return p;
	if (s->nproc == s->cproc) {
		size_t c = s->cproc ? 2 * s->cproc : 4;
		struct proc *n = realloc(s->proc, c * sizeof(*n));

		if (!n)
			return NULL;
		s->proc = n;
		s->cproc = c;
	}
	p = &s->proc[s->nproc];
	p->tgid = tgid;
	p->watched = true;
	p->shadow = calloc(1, shadow_len ? shadow_len : 1);
	if (!p->shadow)
		return NULL;
	s->nproc++;
	return p;
}

struct hwbpi_ptrace *hwbpi_ptrace_session_new(pid_t pid, bool attached, const struct hwbp_cpu *cpu)
{
	struct hwbpi_ptrace *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pid = pid;
	s->attached = attached;
	s->cpu = *cpu;
	hwbp_regs_reset(cpu, &s->off);
	return s;
}

/* The kernel's debug-register model for stopped thread @tid, with the
 * line a user reads when there is none. */

/* Memory of a stopped tracee, word by word (PTRACE_PEEKDATA). */
int hwbpi_ptrace_read_mem(pid_t tid, uint64_t addr, uint8_t *buf, size_t len)
{
	uint64_t a = addr & ~UINT64_C(7);

	while (a < addr + len) {
		long w;
		uint8_t b[8];

		errno = 0;
		w = ptrace(PTRACE_PEEKDATA, tid, (void *)(uintptr_t)a, NULL);
		if (errno)
			return -errno;
		memcpy(b, &w, 8);
		for (unsigned k = 0; k < 8; k++)
			if (a + k >= addr && a + k < addr + len)
				buf[a + k - addr] = b[k];
		a += 8;
	}
	return 0;
}

int hwbpi_ptrace_disarm(struct hwbpi_ptrace *s, pid_t tid)
{
	int ret = 1;

	/* Once more if the read-back says a slot survived the write. */
	for (int k = 0; k < 2 && ret > 0; k++) {
		ret = hwbpi_linux_write(tid, &s->cpu, &s->off);
		if (ret == 0)
			ret = hwbpi_linux_armed(tid, &s->cpu);
	}
	if (ret > 0 || (ret && ret != -ESRCH))
		s->armed_left++;
	return ret > 0 ? -EIO : ret;
}

/* Resume a known thread: single-stepping while it steps over a hit. */
void hwbpi_ptrace_resume_thr(const struct thr *th, int sig)
{
	if (th && (th->step || th->sbp_at))
		ptrace(PTRACE_SINGLESTEP, th->tid, NULL, (void *)(uintptr_t)sig);
	else if (th)
		hwbpi_child_resume(th->tid, sig);
}

/* ---- self-test ------------------------------------------------------ */
static int selftest_result = 1;   /* 1: not run yet */
static char selftest_msg[512];
static volatile uint64_t selftest_var;

static int selftest_child(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		selftest_var = selftest_var + 1;
	return 0;
}

int hwbpi_ptrace_selftest(char *err, size_t errlen)
{
	struct hwbpi_tracer *t;
	struct hwbpi_ptrace *s;
	int ret;

	if (selftest_result <= 0) {
		if (selftest_result)
			hwbpi_say(err, errlen, "%s", selftest_msg);
		return selftest_result;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	snprintf(t->w[0].name, sizeof(t->w[0].name), "self-test");
	t->w[0].addr = (uint64_t)(uintptr_t)&selftest_var;
	t->w[0].len = sizeof(selftest_var);
	t->w[0].type = HWBP_W;
	t->nw = 1;
	ret = hwbpi_tracer_start(t, 1, false, 0, false);
	if (ret == 0)
		ret = hwbpi_ptrace_spawn(&s, NULL, selftest_child, NULL, err, errlen);
	if (ret == 0) {
		ret = hwbpi_ptrace_trace(s, t, NULL, NULL, err, errlen);
		hwbpi_ptrace_free(s);
		if (ret == 0 && hwbpi_tracer_hits(t) != 3) {
			hwbpi_say(err, errlen, "hardware breakpoints do not fire on this machine "
			    "(self-test: %" PRIu64 " of 3 writes seen; some hypervisors do not pass "
			    "them through)" HWBPI_NO_FIRE_HINT,
			    hwbpi_tracer_hits(t));
			ret = -ENODEV;
		}
	}
	hwbpi_tracer_fini(t);
	free(t);
	/* Remembered, with its line: a machine does not change; -ENOMEM
	 * might. */
	if (ret != -ENOMEM) {
		selftest_result = ret;
		if (ret && err && errlen && !err[0])
			hwbpi_say(err, errlen, "ptrace self-test: %s", strerror(-ret));
		snprintf(selftest_msg, sizeof(selftest_msg), "%s", ret && err ? err : "");
	}
	return ret;
}


int hwbpi_ptrace_run(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, char *const argv[],
		     pid_t attach_pid, int *status, char *err, size_t errlen)
{
	struct hwbpi_ptrace *s = NULL;
	int ret;

	if (!t || (!argv && attach_pid <= 0))
		return -EINVAL;
	ret = argv ? hwbpi_ptrace_start(&s, argv, err, errlen)
		   : hwbpi_ptrace_attach(&s, attach_pid, err, errlen);
	if (ret == 0)
		ret = hwbpi_ptrace_trace(s, t, cpu, status, err, errlen);
	hwbpi_ptrace_free(s);
	return ret;
}

