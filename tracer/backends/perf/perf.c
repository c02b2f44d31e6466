/* SPDX-License-Identifier: MIT */
/*
 * The perf_event_open backend of the tracer: PERF_TYPE_BREAKPOINT events
 * per planned piece, counting or sampling (see perf.h for the design):
 * the samples read from the rings, the tracing loop, the processes and
 * the self-test.  Opening the events is perf_events.c.
 *
 * References: man 2 perf_event_open; kernel/events/core.c (perf_mmap,
 * perf_event_set_output, inherit); kernel/events/hw_breakpoint.c (slot
 * accounting: -ENOSPC when a CPU or task has no free slot);
 * arch/x86/kernel/hw_breakpoint.c (hw_breakpoint_arch_parse: x86 has no
 * read-only type, execute breakpoints need bp_len == sizeof(long));
 * tools/include/linux/ring_buffer.h (the data_head/data_tail protocol).
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <dirent.h>
#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/perf/perf_int.h"

#define POLL_MS 50

static void ring_copy(const struct ring *r, uint64_t pos, void *dst, size_t len)
{
	const unsigned char *data = (const unsigned char *)r->base + r->off;
	uint64_t at = pos & (r->size - 1);
	size_t first = len;

	if (at + len > r->size)
		first = (size_t)(r->size - at);
	memcpy(dst, data + at, first);
	memcpy((unsigned char *)dst + first, data, len - first);
}

/* Values: the record of this CPU's output event (id, u32 size, then the
 * struct hwbpi_bpf_rec), kept for the hit's sample that follows it. */
static void values_record(struct ring *r, uint64_t at, size_t len)
{
	uint32_t size;

	r->vrec_ok = false;
	if (len < 8 + 4 + sizeof(r->vrec))
		return;
	ring_copy(r, at + 8, &size, sizeof(size));
	if (size < sizeof(r->vrec))
		return;
	ring_copy(r, at + 12, &r->vrec, sizeof(r->vrec));
	r->vrec_ok = true;
}

/* The trap frame's registers at the end of a sample of @len bytes at @at
 * (PERF_SAMPLE_REGS_INTR: the ABI, then s->iregs values), hashed
 * (FNV-1a); 0 where there are none (PERF_SAMPLE_REGS_ABI_NONE). */
static uint64_t regs_sig(const struct sess *s, struct ring *r, uint64_t at, size_t len)
{
	uint64_t v[65], h = 0xcbf29ce484222325ull;
	size_t n = (size_t)s->iregs + 1;

	if (n > 65 || len < n * 8)
		return 0;
	ring_copy(r, at + len - n * 8, v, n * 8);
	if (v[0] == PERF_SAMPLE_REGS_ABI_NONE)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (unsigned b = 0; b < 64; b += 8) {
			h ^= (v[i] >> b) & 0xff;
			h *= 0x100000001b3ull;
		}
	return h | 1;
}

/* The sample of @len bytes at ring offset @at (after its header): the
 * fixed fields, and with --stack the whole record for its callers; or
 * the values record before a hit's sample. */
static void sample(struct sess *s, struct ring *r, uint64_t at, size_t len)
{
	uint64_t rec[V_N] = { 0 }, callers[HWBPI_STACK_MAX];
	unsigned n = 0;

	if (s->cg) {
		ring_copy(r, at, s->rec, len);
		memcpy(rec, s->rec, V_NREC * sizeof(*rec));
	} else {
		ring_copy(r, at, rec, V_NREC * sizeof(*rec));
	}
	if (s->vbpf && rec[V_ID] == r->vid) {
		values_record(r, at, len);
		return;
	}
	/* The record just before it is this hit's if it is of the same IP
	 * (the program ran on this event's overflow, then perf wrote the
	 * sample: nothing comes between on one CPU). */
	if (r->vrec_ok && r->vrec.ip == rec[V_IP]) {
		rec[V_VALUE] = r->vrec.value;
		rec[V_OLD] = r->vrec.old;
		rec[V_VWATCH] = r->vrec.watch;
		rec[V_VFLAGS] = r->vrec.flags;
	}
	r->vrec_ok = false;
	if (s->iregs)
		rec[V_SIG] = regs_sig(s, r, at, len);
	/* The trap frame for the decoder, as it is: perf_sample.c decodes. */
	s->iv_ok = false;
	if (s->dec && rec[V_SIG] && s->iregs <= 64 && len >= ((size_t)s->iregs + 1) * 8) {
		ring_copy(r, at + len - (size_t)s->iregs * 8, s->iv, (size_t)s->iregs * 8);
		s->iv_ok = true;
	}
	if (s->cg)
		n = hwbpi_perf_sample_callers(s, s->rec, len, callers);
	hwbpi_perf_kind_sample(s, r, rec, callers, n);
}

static void drain(struct sess *s, struct ring *r)
{
	struct perf_event_mmap_page *mp = r->base;
	uint64_t head, tail;

	if (!mp)
		return;
	/* Acquire: the records before data_head are visible once we see it
	 * (the smp_rmb() of man 2 perf_event_open). */
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	/* The kernel's ring may hold far more samples than the tracer's:
	 * the tracer's consumer runs between them, every drain_every. */
	unsigned since = 0;

	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t rec[16];

		ring_copy(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;   /* cannot happen with a sane kernel */
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 6 * 8) {
			sample(s, r, tail + sizeof(h), h.size - sizeof(h));
			if (s->drain && ++since >= s->drain_every) {
				s->drain(s->drain_arg);
				since = 0;
			}
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 2 * 8) {
			ring_copy(r, tail + sizeof(h), rec, 2 * 8);   /* id, lost */
			/* (the values' records lost are no hit's) */
			if (!s->vbpf || rec[0] != r->vid)
				s->res->lost += rec[1];
			r->prev_ok = false;   /* what came between is not known */
		}
		tail += h.size;
	}
	/* Release: our reads are done before the kernel may overwrite. */
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(struct sess *s)
{
	for (unsigned c = 0; s->ring && c < s->ncpus; c++)
		drain(s, &s->ring[c]);
}

/* The last read of the rings: a twin sample still waiting is fed alone. */
static void drain_last(struct sess *s)
{
	drain_all(s);
	for (unsigned c = 0; s->ring && c < s->ncpus; c++)
		hwbpi_perf_kind_flush(s, &s->ring[c]);
}

/*
 * A stop request while our child runs: as under `perf record`, the child
 * gets the signal that stopped hwbp (unless the terminal sent it to the
 * whole foreground group already: *stop_sig 0) and the trace goes on until
 * the child ends, so that its last hits count; a second request kills it.
 * An attached process is left alone: the events are closed after the wait.
 * Returns true when the wait is over.
 */
static bool stop_child(pid_t pid, bool ours, const struct hwbpi_perf_opts *o, int *passed)
{
	if (!ours)
		return true;
	if (!*passed) {
		*passed = 1;
		if (o->stop_sig && *o->stop_sig)
			kill(pid, *o->stop_sig);
	}
	if (*o->stop > 1 && *passed < 2) {
		*passed = 2;
		kill(pid, SIGKILL);
	}
	return false;
}

/* Wait for the end (our child exits, the process is gone, or *stop),
 * draining the rings meanwhile. */
static void wait_end(struct sess *s, pid_t pid, bool ours, const struct hwbpi_perf_opts *o)
{
	struct pollfd *pf = NULL;
	unsigned npf = 0;
	int passed = 0;

	if (s->ring) {
		pf = calloc(s->ncpus, sizeof(*pf));
		for (unsigned c = 0; pf && c < s->ncpus; c++)
			if (s->ring[c].fd >= 0) {
				pf[npf].fd = s->ring[c].fd;
				pf[npf].events = POLLIN;
				npf++;
			}
	}
	for (;;) {
		if (ours) {
			int st;
			pid_t r = waitpid(pid, &st, WNOHANG);

			if (r == pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
				s->res->wstatus = st;
				break;
			}
			if (r < 0 && errno == ECHILD)
				break;
		} else if (pid > 0 && hwbpi_process_gone(pid)) {
			break;   /* (kernel scope without a command: only a stop ends it) */
		}
		if (o->stop && *o->stop && stop_child(pid, ours, o, &passed))
			break;
		/* POLLHUP comes with the end of the task on newer kernels;
		 * the timeout covers older ones and the checks above. */
		if (npf && !o->drain_at_end)
			poll(pf, npf, POLL_MS);
		else
			poll(NULL, 0, POLL_MS);
		if (!o->drain_at_end) {
			drain_all(s);
			/* The tracer's rings too, for what came last. */
			if (s->drain)
				s->drain(s->drain_arg);
		}
	}
	drain_last(s);
	free(pf);
}

static void read_counts(struct sess *s)
{
	for (unsigned i = 0; i < s->nev; i++) {
		const struct piece *p = &s->pc[s->ev[i].piece];
		uint64_t v;

		/* With inherit the value includes the exited threads' counts
		 * (perf_event_exit_task() adds them to the parent event).  A
		 * watch's hits are those of its own pieces: a twin's are the
		 * same stores again (a pair's R and W events each see some). */
		if (read(s->ev[i].fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			continue;
		s->res->raw += v;
		if (!(p->tag && p->twin >= 0))
			s->res->count[p->watch] += v;
	}
}

enum how { ATTACHED, STOPPED_CHILD, HELD_CHILD };

/* The self-test once per process: a trace never starts on a machine whose
 * breakpoints do not fire, whatever the caller did. */
static int selftest_once(char *err, size_t errlen)
{
	static bool passed;
	int ret;

	if (passed)
		return 0;
	ret = hwbpi_perf_selftest(err, errlen);
	passed = ret == 0;
	return ret;
}

/* The session of a trace on @pid: the self-test, the plan, the events
 * opened as @how needs them.  On an error it is closed again. */
static int sess_start(struct sess *s, struct hwbpi_tracer *t, const struct hwbp_cpu *cpu,
		      pid_t pid, enum how how, const struct hwbpi_perf_opts *o,
		      struct hwbpi_perf_result *res, char *err, size_t errlen)
{
	int ret;

	memset(s, 0, sizeof(*s));
	memset(res, 0, sizeof(*res));
	s->t = t;
	s->res = res;
	s->drain_every = (unsigned)hwbpi_tracer_drain_every(t, 64);
	if (o->drain && s->drain_every) {
		s->drain = o->drain;
		s->drain_arg = o->drain_arg;
	}
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	s->kernel = o->kernel;
	s->cpus = o->cpus;
	s->bpf = o->bpf;
	s->vbpf = o->sampling && !o->bpf ? o->values_bpf : NULL;
	/* The hits' decoder (an error leaves the hits to twins and values,
	 * as without one); before the plan, which then splits no twin. */
	s->syms = o->syms;
	if (o->decode && o->sampling && !o->bpf && o->syms && cpu &&
	    hwbpi_hit_dec_open(cpu->arch, &s->dec))
		s->dec = NULL;
	/* The self-test watches a user-space store; kernel scope does not
	 * depend on user-space breakpoints (QEMU's powerpc never fires them,
	 * and its kernel ones work). */
	ret = o->kernel ? 0 : selftest_once(err, errlen);
	if (ret == 0)
		ret = hwbpi_perf_plan_all(s, cpu, o, err, errlen);
	if (ret == 0)
		ret = hwbpi_perf_stacks_setup(s, pid, how == HELD_CHILD, o, err, errlen);
	if (ret == 0)
		ret = hwbpi_perf_open_all(s, pid, how == ATTACHED, how == HELD_CHILD && !o->kernel, o,
					err, errlen);
	if (ret)
		hwbpi_perf_sess_close(s);
	return ret;
}

/* The rest of a trace once the process runs: its end, the counts; the
 * session closed. */
static void sess_finish(struct sess *s, pid_t pid, bool ours, const struct hwbpi_perf_opts *o)
{
	struct hwbpi_perf_result *res = s->res;

	wait_end(s, pid, ours, o);
	read_counts(s);
	if (o->sampling) {
		/* Every count without a sample was dropped: the kernel writes a
		 * PERF_RECORD_LOST only with the next record that fits, so the
		 * last loss may never have come.  (Breakpoint samples are not
		 * throttled: kernel/events/core.c perf_swevent_overflow() passes
		 * throttle = 0 for a hit's single overflow; were they, the
		 * throttled ones would be counted here too.) */
		if (!o->bpf && res->raw > res->samples + res->lost)
			res->lost = res->raw - res->samples;
	}
	hwbpi_perf_sess_close(s);
}

static const struct hwbpi_perf_opts *opts_or_defaults(const struct hwbpi_perf_opts *opts)
{
	static const struct hwbpi_perf_opts defaults;

	return opts ? opts : &defaults;
}

/* A trace of a process attached to or our child stopped by ptrace (a held
 * child is run_held's). */
static int trace_impl(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, pid_t pid, enum how how,
		      const struct hwbpi_perf_opts *opts, struct hwbpi_perf_result *res,
		      char *err, size_t errlen)
{
	const struct hwbpi_perf_opts *o = opts_or_defaults(opts);
	struct sess s;
	bool ours = how != ATTACHED;
	int ret;

	ret = sess_start(&s, t, cpu, pid, how, o, res, err, errlen);
	/* Let it go. */
	if (ret == 0 && how == STOPPED_CHILD && ptrace(PTRACE_DETACH, pid, NULL, NULL) < 0) {
		ret = -errno;
		hwbpi_say(err, errlen, "perf: PTRACE_DETACH of %d: %s", (int)pid, strerror(errno));
		hwbpi_perf_sess_close(&s);
	}
	if (ret) {
		if (ours)
			hwbpi_child_kill(pid);
		return ret;
	}
	sess_finish(&s, pid, ours, o);
	return 0;
}

static int run_held(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, char *const argv[],
		    const struct hwbpi_perf_opts *opts, struct hwbpi_perf_result *res,
		    char *err, size_t errlen);

static bool args_ok(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu,
		    struct hwbpi_perf_result *res, char *err, size_t errlen)
{
	if (!t || !cpu || !res || t->nw == 0 || t->nw > HWBP_MAX_REQUESTS) {
		hwbpi_say(err, errlen, "perf backend: nothing to watch");
		return false;
	}
	return true;
}

int hwbpi_perf_trace(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, pid_t pid,
		     bool started, const struct hwbpi_perf_opts *opts,
		     struct hwbpi_perf_result *res, char *err, size_t errlen)
{
	if (!args_ok(t, cpu, res, err, errlen) || pid <= 0) {
		if (started)
			hwbpi_child_kill(pid);
		return -EINVAL;
	}
	return trace_impl(t, cpu, pid, started ? STOPPED_CHILD : ATTACHED, opts, res, err, errlen);
}

int hwbpi_perf_run(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, char *const argv[],
		   pid_t pid, const struct hwbpi_perf_opts *opts, struct hwbpi_perf_result *res,
		   char *err, size_t errlen)
{
	if (!args_ok(t, cpu, res, err, errlen))
		return -EINVAL;
	if (!argv)
		return hwbpi_perf_trace(t, cpu, pid, false, opts, res, err, errlen);
	return run_held(t, cpu, argv, opts, res, err, errlen);
}

int hwbpi_perf_kernel(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, char *const argv[],
		      const struct hwbpi_perf_opts *opts, struct hwbpi_perf_result *res,
		      char *err, size_t errlen)
{
	if (!args_ok(t, cpu, res, err, errlen) || !opts || !opts->kernel)
		return -EINVAL;
	/* The events are per CPU, so the command needs no ptrace stop: held
	 * before its exec, released once every event is open. */
	return argv ? run_held(t, cpu, argv, opts, res, err, errlen)
		    : trace_impl(t, cpu, 0, ATTACHED, opts, res, err, errlen);
}

/* A trace of a command held before its exec: hwbpi_child_held()'s
 * callbacks. */
struct held_trace {
	struct sess s;
	struct hwbpi_tracer *t;
	const struct hwbp_cpu *cpu;
	char *const *argv;
	const struct hwbpi_perf_opts *o;
	struct hwbpi_perf_result *res;
	char *err;
	size_t errlen;
};

static void held_exec(void *arg, int ef)
{
	const struct held_trace *h = arg;

	hwbpi_child_exec(h->argv, ef, false);
}

static int held_open(void *arg, pid_t pid)
{
	struct held_trace *h = arg;

	return sess_start(&h->s, h->t, h->cpu, pid, HELD_CHILD, h->o, h->res, h->err, h->errlen);
}

static void held_wait(void *arg, pid_t pid)
{
	struct held_trace *h = arg;

	sess_finish(&h->s, pid, true, h->o);
}

/* Fork @argv held before its exec, open the events, release it, trace it
 * to its end. */
static int run_held(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, char *const argv[],
		    const struct hwbpi_perf_opts *opts, struct hwbpi_perf_result *res,
		    char *err, size_t errlen)
{
	struct held_trace ht = { .t = t, .cpu = cpu, .argv = argv, .o = opts_or_defaults(opts),
				 .res = res, .err = err, .errlen = errlen };
	struct hwbpi_held h = { .run = held_exec, .open = held_open, .wait = held_wait, .arg = &ht };
	int ret;

	if (!argv[0])
		return -EINVAL;
	ret = hwbpi_child_held(&h, err, errlen);
	/* A failed release leaves the session open (a failed open closed
	 * it, held_wait closes it at the end). */
	if (ret)
		hwbpi_perf_sess_close(&ht.s);
	return ret;
}

/* ----------------------------------------------------------- self-test */

static volatile uint64_t selftest_var;

/* The self-test's child and its event (hwbpi_child_held()'s callbacks). */
struct selftest_run {
	int fd;
	char *err;
	size_t errlen;
};

static void selftest_child(void *arg, int ef)
{
	(void)arg;
	(void)ef;
	/* Same address space layout as the parent after fork. */
	for (int i = 0; i < 100; i++)
		selftest_var = (uint64_t)i;
	_exit(0);
}

static int selftest_open(void *arg, pid_t p)
{
	struct selftest_run *r = arg;
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)&selftest_var;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = hwbpi_kernel_event_open(&a, p, -1);
	if (fd < 0)
		return hwbpi_perf_say_open(fd, "self-test", p, 0, r->err, r->errlen);
	r->fd = fd;
	return 0;
}

int hwbpi_perf_selftest(char *err, size_t errlen)
{
	struct selftest_run r = { .fd = -1, .err = err, .errlen = errlen };
	/* No child (a failed fork) is -ECHILD, as a failed child is. */
	struct hwbpi_held h = { .run = selftest_child, .open = selftest_open, .arg = &r,
				.fork_err = -ECHILD };
	uint64_t v = 0;
	int ret;

	/* Its lines in @err are the self-test's own: a failed start or
	 * release says only its errno. */
	ret = hwbpi_child_held(&h, NULL, 0);
	if (ret == 0 && read(r.fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		v = 0;
	if (r.fd >= 0)
		close(r.fd);
	if (ret)
		return ret;
	if (!WIFEXITED(h.wstatus) || WEXITSTATUS(h.wstatus) != 0) {
		hwbpi_say(err, errlen, "self-test: the test child failed");
		return -ECHILD;
	}
	if (v == 0) {
		hwbpi_say(err, errlen, "hardware breakpoints do not fire on this machine (perf "
		    "counted 0 of 100 writes; some hypervisors do not pass them through)"
		    HWBPI_NO_FIRE_HINT);
		return -ENODEV;
	}
	return 0;
}
