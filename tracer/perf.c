/* SPDX-License-Identifier: MIT */
/*
 * The perf_event_open backend of the tracer: PERF_TYPE_BREAKPOINT events
 * per planned piece, counting or sampling (see perf.h for the design).
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
#include <fcntl.h>
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

#include "compat_linux.h"
#include "linux.h"
#include "perf.h"

#define POLL_MS 50
#define DEFAULT_RING_PAGES 32u
#define DEFAULT_WAKEUP 64u

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	/* No glibc wrapper (man 2 perf_event_open, NOTES). */
	long fd = syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -100;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -100;
		fclose(f);
	}
	return v;
}

/*
 * One line for an error of perf_event_open (man 2 perf_event_open, ERRORS).
 * Returns the error to report: EBUSY (older kernels, or a slot taken
 * exclusively) is reported as -ENOSPC, like the kernel's own slot error.
 */
static int say_open(int ret, const char *what, pid_t pid, unsigned held, char *err, size_t n)
{
	int p;

	switch (ret) {
	case -EACCES:
	case -EPERM:
		p = paranoid();
		if (p > 2)
			hwbpi_say(err, n, "%s: perf_event_open: permission denied: kernel.perf_event_paranoid is "
			    "%d; user-only breakpoints need 2 or lower (sysctl kernel.perf_event_paranoid=2) "
			    "or CAP_PERFMON", what, p);
		else
			hwbpi_say(err, n, "%s: perf_event_open: permission denied on PID %d "
			    "(kernel.perf_event_paranoid is %d; the process must be one you may ptrace: "
			    "same user, kernel.yama.ptrace_scope)", what, (int)pid, p);
		return ret;
	case -ENOSPC:
	case -EBUSY:
		hwbpi_say(err, n, "%s: no free debug register (the kernel said %s: this trace already holds "
		    "%u per thread; other breakpoints of the process or its CPUs take the rest)",
		    what, ret == -EBUSY ? "EBUSY" : "ENOSPC", held);
		return -ENOSPC;
	case -ENOENT:
	case -EOPNOTSUPP:
		hwbpi_say(err, n, "%s: this kernel has no hardware breakpoint events "
		    "(PERF_TYPE_BREAKPOINT, CONFIG_HAVE_HW_BREAKPOINT)", what);
		return ret;
	case -ENOSYS:
		hwbpi_say(err, n, "%s: perf_event_open is not available (kernel without "
		    "CONFIG_PERF_EVENTS, or a seccomp filter)", what);
		return ret;
	case -ESRCH:
		hwbpi_say(err, n, "%s: no such process: %d", what, (int)pid);
		return ret;
	case -EINVAL:
		hwbpi_say(err, n, "%s: the kernel refused this breakpoint (address, length or type)", what);
		return ret;
	case -EMFILE:
	case -ENFILE:
		hwbpi_say(err, n, "%s: too many open files for the perf events (ulimit -n)", what);
		return ret;
	default:
		hwbpi_say(err, n, "%s: perf_event_open: %s", what, strerror(-ret));
		return ret;
	}
}

/* ------------------------------------------------------------ helpers */

unsigned hwbpi_perf_ncpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	unsigned a, b, max = 0;
	int c;

	if (!f) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		return n > 0 ? (unsigned)n : 1;
	}
	/* "0-3,5,7-8" */
	while (fscanf(f, "%u", &a) == 1) {
		b = a;
		c = fgetc(f);
		if (c == '-') {
			if (fscanf(f, "%u", &b) != 1)
				break;
			c = fgetc(f);
		}
		if (b + 1 > max)
			max = b + 1;
		if (c != ',')
			break;
	}
	fclose(f);
	return max ? max : 1;
}

/* The online CPUs, as a bit per CPU below hwbpi_perf_ncpus(). */
static bool cpu_online(unsigned cpu)
{
	char path[64];
	FILE *f;
	int v = 1;

	if (cpu == 0)
		return true;   /* cpu0 often has no "online" file */
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
	f = fopen(path, "r");
	if (!f)
		return true;
	if (fscanf(f, "%d", &v) != 1)
		v = 1;
	fclose(f);
	return v != 0;
}

/* A process that is gone or a zombie (not ours: we cannot wait for it). */
static bool proc_gone(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* "PID (comm) S ...": the state follows the last ')' (comm may hold one) */
	p = strrchr(buf, ')');
	return !p || p[1] == 0 || p[2] == 'Z' || p[2] == 'X';
}

static void reap(pid_t pid, int *wstatus)
{
	int st = 0;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (wstatus)
		*wstatus = st;
}

void hwbpi_perf_abort(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	reap(pid, NULL);
}

/* --------------------------------------------------------- the session */

struct piece {
	unsigned watch;
	uint64_t addr, len;
	unsigned type;          /* hardware type (after widening) */
};

struct event {
	int fd;
	unsigned piece;
	uint64_t id;            /* PERF_EVENT_IOC_ID */
};

struct ring {
	int fd;                 /* the event that owns the buffer, or -1 */
	void *base;
	size_t map_len;
	uint64_t off, size;     /* data area in the mapping */
};

struct sess {
	struct hwbpi_tracer *t;
	struct hwbpi_perf_result *res;
	struct piece *pc;
	unsigned npc;
	struct event *ev;
	unsigned nev, cap;
	struct ring *ring;
	unsigned ncpus;
	size_t page;
	unsigned last;          /* the event of the previous sample (a cache) */
};

static void sess_close(struct sess *s)
{
	for (unsigned i = 0; s->ring && i < s->ncpus; i++)
		if (s->ring[i].base)
			munmap(s->ring[i].base, s->ring[i].map_len);
	for (unsigned i = 0; i < s->nev; i++)
		close(s->ev[i].fd);
	free(s->ring);
	free(s->ev);
	free(s->pc);
	memset(s, 0, sizeof(*s));
}

/* Plan every watch; the pieces go in s->pc. */
static int plan_all(struct sess *s, const struct hwbp_cpu *cpu, char *err, size_t n)
{
	struct hwbpi_tracer *t = s->t;
	struct hwbp_caps caps;
	unsigned used_d = 0, used_i = 0;
	int ret = hwbp_caps_get(cpu, &caps);

	if (ret) {
		hwbpi_say(err, n, "perf backend: unknown CPU model");
		return ret;
	}
	s->pc = calloc((size_t)t->nw * HWBP_MAX_PIECES, sizeof(*s->pc));
	if (!s->pc)
		return -ENOMEM;
	for (unsigned i = 0; i < t->nw; i++) {
		const struct hwbpi_watch *w = &t->w[i];
		struct hwbp_request q = { w->addr, hwbpi_watch_len(w, cpu), w->type, HWBP_SCOPE_USER,
					  HWBP_REQ_WIDEN };
		bool inst = (w->type & HWBP_X) && !caps.shared;
		unsigned pool = inst ? caps.inst_slots : caps.data_slots;
		unsigned used = caps.shared ? used_d + used_i : inst ? used_i : used_d;
		struct hwbp_plan plan;

		if ((w->type & HWBP_X) && (w->type & HWBP_RW)) {
			hwbpi_say(err, n, "%s: watch data (rw) or execution (x), not both", w->name);
			return -EINVAL;
		}
		/* Plan within what this trace left free, so that a watch is
		 * enlarged rather than refused while slots remain; with none
		 * left, plan for one and let the kernel, which knows every
		 * breakpoint of the task and its CPUs, say ENOSPC. */
		ret = hwbp_plan(cpu, &q, pool > used ? pool - used : 1, &plan);
		if (ret) {
			hwbpi_say(err, n, "%s: %s (%s)", w->name, hwbp_errno_name(ret),
			    ret == -ENOSPC ? "not enough debug registers left" :
			    ret == -ERANGE ? "larger than this CPU can watch" :
			    ret == -EOPNOTSUPP ? "a type this CPU lacks" :
			    ret == -EFAULT ? "not a user-space address" : "refused by the planner");
			return ret;
		}
		/* Pieces Linux cannot program for a task (arm64: no MASK block,
		 * at most 8 bytes in one doubleword, arch_build_bp_info();
		 * powerpc: no instruction breakpoint): the same hw_breakpoint
		 * rules as for ptrace, refused here rather than by an EINVAL. */
		for (unsigned k = 0; k < plan.n; k++) {
			char why[160];

			ret = hwbpi_linux_piece_ok(cpu, plan.inst, &plan.piece[k], why, sizeof(why));
			if (ret) {
				hwbpi_say(err, n, "%s: %s", w->name, why);
				return ret;
			}
		}
		for (unsigned k = 0; k < plan.n; k++) {
			struct piece *p = &s->pc[s->npc++];

			p->watch = i;
			p->addr = plan.piece[k].addr;
			p->len = plan.piece[k].len;
			p->type = plan.type;
		}
		if (plan.inst && !caps.shared)
			used_i += plan.n;
		else
			used_d += plan.n;
	}
	s->res->pieces = s->npc;
	return 0;
}

static void fill_attr(struct perf_event_attr *a, const struct piece *p,
		      bool enable_on_exec, const struct hwbpi_perf_opts *o)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = sizeof(*a);
	a->bp_addr = p->addr;
	switch (p->type) {
	case HWBP_R:
		a->bp_type = HW_BREAKPOINT_R;    /* arm64, ppc; x86 plans widen to RW */
		break;
	case HWBP_W:
		a->bp_type = HW_BREAKPOINT_W;
		break;
	case HWBP_X:
		a->bp_type = HW_BREAKPOINT_X;
		break;
	default:
		a->bp_type = HW_BREAKPOINT_RW;
		break;
	}
	/* HW_BREAKPOINT_LEN_n == n.  Execute breakpoints: the length this
	 * kernel's arch demands (x86 sizeof(long), hw_breakpoint_arch_parse;
	 * arm64 an A64 instruction, 4): the Linux glue knows it. */
	if (p->type == HWBP_X)
		a->bp_len = hwbpi_linux_exec_len();
	else
		a->bp_len = p->len;
	/* User space only: perf_event_paranoid 2 allows nothing else to an
	 * unprivileged user, and the watches are the program's. */
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->inherit = 1;                   /* threads and children created later */
	a->disabled = enable_on_exec;
	a->enable_on_exec = enable_on_exec;
	if (o->sampling) {
		a->sample_period = 1;         /* every hit */
		a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU;
		a->wakeup_events = o->wakeup ? o->wakeup : DEFAULT_WAKEUP;
	}
}

static int add_event(struct sess *s, int fd, unsigned piece)
{
	if (s->nev == s->cap) {
		unsigned cap = s->cap ? s->cap * 2 : 16;
		struct event *e = realloc(s->ev, cap * sizeof(*e));

		if (!e) {
			close(fd);
			return -ENOMEM;
		}
		s->ev = e;
		s->cap = cap;
	}
	s->ev[s->nev].fd = fd;
	s->ev[s->nev].piece = piece;
	s->ev[s->nev].id = 0;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &s->ev[s->nev].id) < 0)
		s->ev[s->nev].id = UINT64_MAX - s->nev;   /* kernels before 3.12 */
	s->nev++;
	return 0;
}

/* The event's CPU ring: the first event of a CPU owns it, the others write
 * into it (PERF_EVENT_IOC_SET_OUTPUT requires the same CPU). */
static int attach_ring(struct sess *s, int fd, unsigned cpu, unsigned pages, char *err, size_t n)
{
	struct ring *r = &s->ring[cpu];
	struct perf_event_mmap_page *mp;

	if (r->fd >= 0) {
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0) {
			hwbpi_say(err, n, "perf: PERF_EVENT_IOC_SET_OUTPUT: %s", strerror(errno));
			return -errno;
		}
		return 0;
	}
	/* One metadata page plus 2^n data pages (man 2 perf_event_open). */
	r->map_len = (size_t)(pages + 1) * s->page;
	r->base = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		int e = errno;

		r->base = NULL;
		hwbpi_say(err, n, "perf: mmap of a %zu-byte ring: %s%s", r->map_len, strerror(e),
		    e == EPERM ? " (over kernel.perf_event_mlock_kb: use fewer ring pages)" : "");
		return -e;
	}
	r->fd = fd;
	mp = r->base;
	/* data_offset/data_size exist since Linux 4.1; before, the data
	 * area is the pages after the first. */
	r->off = mp->data_offset ? mp->data_offset : s->page;
	r->size = mp->data_size ? mp->data_size : (uint64_t)pages * s->page;
	return 0;
}

/* The threads to open events on: @pid alone (a child we hold, whose later
 * threads inherit), or every thread of a running process. */
static int list_tids(pid_t pid, bool all, pid_t **out, unsigned *nout)
{
	char path[64];
	struct dirent *d;
	unsigned n = 0, cap = 8;
	pid_t *v = malloc(cap * sizeof(*v));
	DIR *dir;

	if (!v)
		return -ENOMEM;
	if (!all) {
		v[0] = pid;
		*out = v;
		*nout = 1;
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir) {
		free(v);
		return errno == ENOENT ? -ESRCH : -errno;
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		if (n == cap) {
			pid_t *nv = realloc(v, 2 * cap * sizeof(*v));

			if (!nv) {
				closedir(dir);
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap *= 2;
		}
		v[n++] = (pid_t)atoi(d->d_name);
	}
	closedir(dir);
	if (!n) {
		free(v);
		return -ESRCH;
	}
	*out = v;
	*nout = n;
	return 0;
}

static int open_all(struct sess *s, pid_t pid, bool all_threads,
		    bool enable_on_exec, const struct hwbpi_perf_opts *o, char *err, size_t n)
{
	unsigned pages = o->ring_pages ? o->ring_pages : DEFAULT_RING_PAGES;
	pid_t *tids = NULL;
	unsigned ntid = 0;
	int ret;

	if (pages & (pages - 1)) {
		hwbpi_say(err, n, "perf: ring pages must be a power of two (%u)", pages);
		return -EINVAL;
	}
	ret = list_tids(pid, all_threads, &tids, &ntid);
	if (ret)
		return say_open(ret, "perf", pid, 0, err, n);
	if (o->sampling) {
		s->ncpus = hwbpi_perf_ncpus();
		s->ring = calloc(s->ncpus, sizeof(*s->ring));
		if (!s->ring) {
			free(tids);
			return -ENOMEM;
		}
		for (unsigned c = 0; c < s->ncpus; c++)
			s->ring[c].fd = -1;
	}
	for (unsigned k = 0; k < s->npc && ret == 0; k++) {
		const struct piece *p = &s->pc[k];
		struct perf_event_attr a;

		fill_attr(&a, p, enable_on_exec, o);
		for (unsigned i = 0; i < ntid && ret == 0; i++) {
			/* Counting: one per-task event (cpu -1).  Sampling: one per
			 * (task, CPU), since perf_mmap() refuses inherited per-task
			 * events. */
			unsigned ncpu = o->sampling ? s->ncpus : 1;

			for (unsigned c = 0; c < ncpu && ret == 0; c++) {
				int fd;

				if (o->sampling && !cpu_online(c))
					continue;
				fd = perf_open(&a, tids[i], o->sampling ? (int)c : -1);
				if (fd < 0) {
					char what[HWBP_TRACE_SYM_LEN + 64];

					snprintf(what, sizeof(what), "%s", s->t->w[p->watch].name);
					ret = say_open(fd, what, tids[i], k, err, n);
					break;
				}
				ret = add_event(s, fd, k);
				if (ret == 0 && o->sampling)
					ret = attach_ring(s, fd, c, pages, err, n);
			}
		}
	}
	free(tids);
	s->res->events = s->nev;
	return ret;
}

/* Copy @len bytes at ring offset @pos (the data area wraps around). */
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

static const struct event *find_event(struct sess *s, uint64_t id)
{
	if (s->last < s->nev && s->ev[s->last].id == id)
		return &s->ev[s->last];
	for (unsigned i = 0; i < s->nev; i++)
		if (s->ev[i].id == id) {
			s->last = i;
			return &s->ev[i];
		}
	return NULL;
}

static void sample(struct sess *s, const uint64_t *v)
{
	/* PERF_SAMPLE_IDENTIFIER, IP, TID (pid, tid), TIME, ADDR, CPU (cpu,
	 * res): the order of man 2 perf_event_open, PERF_RECORD_SAMPLE. */
	const struct event *e = find_event(s, v[0]);
	const struct piece *p;
	const struct hwbpi_watch *w;
	struct hwbp_trace_event ev;

	if (!e) {
		s->res->unknown++;
		return;
	}
	p = &s->pc[e->piece];
	w = &s->t->w[p->watch];
	memset(&ev, 0, sizeof(ev));
	ev.ts = v[3];
	ev.ip = v[1];
	/* A breakpoint sample's address is the breakpoint's (perf_bp_event()
	 * sets bp_addr), not the access's: the piece, clamped into the watch. */
	ev.addr = v[4] >= w->addr && v[4] - w->addr < w->len ? v[4] : w->addr;
	ev.cpu = (uint16_t)(uint32_t)v[5];
	ev.bp = (uint16_t)p->watch;
	if (w->type == HWBP_W || w->type == HWBP_X) {
		ev.kind = (uint8_t)w->type;
		ev.kind_how = HWBP_KIND_TYPE;
	} else if (p->type == HWBP_R) {
		ev.kind = HWBP_R;            /* a load-only breakpoint (arm64, ppc) */
		ev.kind_how = HWBP_KIND_TYPE;
	} else {
		ev.kind = 0;                 /* a sample does not say read or write */
		ev.kind_how = HWBP_KIND_UNKNOWN;
	}
	s->res->samples++;
	hwbpi_tracer_hit(s->t, &ev);
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
	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t rec[16];

		ring_copy(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;   /* cannot happen with a sane kernel */
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 6 * 8) {
			ring_copy(r, tail + sizeof(h), rec, 6 * 8);
			sample(s, rec);
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 2 * 8) {
			ring_copy(r, tail + sizeof(h), rec, 2 * 8);   /* id, lost */
			s->res->lost += rec[1];
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

/* Wait for the end (our child exits, the process is gone, or *stop),
 * draining the rings meanwhile. */
static void wait_end(struct sess *s, pid_t pid, bool ours, const struct hwbpi_perf_opts *o)
{
	struct pollfd *pf = NULL;
	unsigned npf = 0;

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
		} else if (proc_gone(pid)) {
			break;
		}
		if (o->stop && *o->stop) {
			if (ours)
				hwbpi_perf_abort(pid);
			break;
		}
		/* POLLHUP comes with the end of the task on newer kernels;
		 * the timeout covers older ones and the checks above. */
		if (npf && !o->drain_at_end)
			poll(pf, npf, POLL_MS);
		else
			poll(NULL, 0, POLL_MS);
		if (!o->drain_at_end)
			drain_all(s);
	}
	drain_all(s);
	free(pf);
}

static void read_counts(struct sess *s)
{
	for (unsigned i = 0; i < s->nev; i++) {
		uint64_t v;

		/* With inherit the value includes the exited threads' counts
		 * (perf_event_exit_task() adds them to the parent event). */
		if (read(s->ev[i].fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			s->res->count[s->pc[s->ev[i].piece].watch] += v;
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

static int trace_impl(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, pid_t pid, enum how how,
		      int go_fd, int exec_fd, const struct hwbpi_perf_opts *opts,
		      struct hwbpi_perf_result *res, char *err, size_t errlen)
{
	static const struct hwbpi_perf_opts defaults;
	const struct hwbpi_perf_opts *o = opts ? opts : &defaults;
	struct sess s;
	bool ours = how != ATTACHED;
	int ret;

	memset(&s, 0, sizeof(s));
	memset(res, 0, sizeof(*res));
	s.t = t;
	s.res = res;
	s.page = (size_t)sysconf(_SC_PAGESIZE);
	ret = selftest_once(err, errlen);
	if (ret == 0)
		ret = plan_all(&s, cpu, err, errlen);
	if (ret == 0)
		ret = open_all(&s, pid, how == ATTACHED, how == HELD_CHILD, o, err, errlen);
	if (ret) {
		sess_close(&s);
		if (ours)
			hwbpi_perf_abort(pid);
		return ret;
	}
	/* Let it go. */
	if (how == STOPPED_CHILD && ptrace(PTRACE_DETACH, pid, NULL, NULL) < 0) {
		ret = -errno;
		hwbpi_say(err, errlen, "perf: PTRACE_DETACH of %d: %s", (int)pid, strerror(errno));
	} else if (how == HELD_CHILD) {
		int e = 0;
		ssize_t r = 0;

		if (write(go_fd, "g", 1) != 1) {
			ret = -EIO;
			hwbpi_say(err, errlen, "perf: cannot release the child: %s", strerror(errno));
		}
		/* The exec pipe is close-on-exec: EOF means the exec happened. */
		while (ret == 0 && (r = read(exec_fd, &e, sizeof(e))) < 0 && errno == EINTR)
			;
		if (ret == 0 && r == (ssize_t)sizeof(e)) {
			ret = -e;
			hwbpi_say(err, errlen, "cannot run the command: %s", strerror(e));
		}
	}
	if (ret) {
		sess_close(&s);
		hwbpi_perf_abort(pid);
		return ret;
	}
	wait_end(&s, pid, ours, o);
	read_counts(&s);
	if (o->sampling) {
		/* Every count without a sample was dropped: the kernel writes a
		 * PERF_RECORD_LOST only with the next record that fits, so the
		 * last loss may never have come.  (Breakpoint samples are not
		 * throttled: kernel/events/core.c perf_swevent_overflow() passes
		 * throttle = 0 for a hit's single overflow; were they, the
		 * throttled ones would be counted here too.) */
		uint64_t total = 0;

		for (unsigned i = 0; i < t->nw; i++)
			total += res->count[i];
		if (total > res->samples + res->lost)
			res->lost = total - res->samples;
	}
	sess_close(&s);
	return 0;
}

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
			hwbpi_perf_abort(pid);
		return -EINVAL;
	}
	return trace_impl(t, cpu, pid, started ? STOPPED_CHILD : ATTACHED, -1, -1, opts, res,
			  err, errlen);
}

/* The child's side of a start: wait for @go (if >= 0), exec, or report
 * the exec's errno on @ef (close-on-exec) and exit 127. */
static void __attribute__((noreturn)) child(char *const argv[], int go, int ef, bool traceme)
{
	int e;
	char c;

	if (go >= 0 && read(go, &c, 1) != 1)
		_exit(127);     /* the parent gave up */
	if (traceme && ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
		e = errno;
		if (write(ef, &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	execvp(argv[0], argv);
	e = errno;
	if (write(ef, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int hwbpi_perf_start(char *const argv[], pid_t *pid, char *err, size_t errlen)
{
	int ef[2], st, e = 0;
	pid_t p;
	ssize_t r;

	if (!argv || !argv[0] || !pid)
		return -EINVAL;
	if (pipe2(ef, O_CLOEXEC) < 0)
		return -errno;
	p = fork();
	if (p < 0) {
		e = errno;
		close(ef[0]);
		close(ef[1]);
		hwbpi_say(err, errlen, "fork: %s", strerror(e));
		return -e;
	}
	if (p == 0) {
		close(ef[0]);
		child(argv, -1, ef[1], true);
	}
	close(ef[1]);
	while ((r = read(ef[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(ef[0]);
	if (r == (ssize_t)sizeof(e)) {
		reap(p, NULL);
		hwbpi_say(err, errlen, "%s: %s", argv[0], strerror(e));
		return -e;
	}
	/* The SIGTRAP stop after a successful execve under PTRACE_TRACEME. */
	while (waitpid(p, &st, 0) < 0) {
		if (errno != EINTR) {
			hwbpi_say(err, errlen, "%s: waitpid: %s", argv[0], strerror(errno));
			return -ECHILD;
		}
	}
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP) {
		if (WIFSTOPPED(st))
			hwbpi_perf_abort(p);
		hwbpi_say(err, errlen, "%s: did not stop after exec", argv[0]);
		return -ECHILD;
	}
	*pid = p;
	return 0;
}

int hwbpi_perf_run(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, char *const argv[],
		   pid_t pid, const struct hwbpi_perf_opts *opts, struct hwbpi_perf_result *res,
		   char *err, size_t errlen)
{
	int go[2], ef[2], ret;
	pid_t p;

	if (!args_ok(t, cpu, res, err, errlen))
		return -EINVAL;
	if (!argv)
		return hwbpi_perf_trace(t, cpu, pid, false, opts, res, err, errlen);
	if (!argv[0])
		return -EINVAL;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ef, O_CLOEXEC) < 0) {
		ret = -errno;
		close(go[0]);
		close(go[1]);
		return ret;
	}
	p = fork();
	if (p < 0) {
		ret = -errno;
		hwbpi_say(err, errlen, "fork: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		close(ef[0]);
		close(ef[1]);
		return ret;
	}
	if (p == 0) {
		close(go[1]);
		close(ef[0]);
		child(argv, go[0], ef[1], false);
	}
	close(go[0]);
	close(ef[1]);
	ret = trace_impl(t, cpu, p, HELD_CHILD, go[1], ef[0], opts, res, err, errlen);
	close(go[1]);
	close(ef[0]);
	return ret;
}

/* ----------------------------------------------------------- self-test */

static volatile uint64_t selftest_var;

int hwbpi_perf_selftest(char *err, size_t errlen)
{
	struct perf_event_attr a;
	int go[2], fd, st;
	uint64_t v = 0;
	pid_t p;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	p = fork();
	if (p < 0) {
		close(go[0]);
		close(go[1]);
		return -ECHILD;
	}
	if (p == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		/* Same address space layout as the parent after fork. */
		for (int i = 0; i < 100; i++)
			selftest_var = (uint64_t)i;
		_exit(0);
	}
	close(go[0]);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)&selftest_var;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = perf_open(&a, p, -1);
	if (fd < 0) {
		int ret = say_open(fd, "self-test", p, 0, err, errlen);

		close(go[1]);
		hwbpi_perf_abort(p);
		return ret;
	}
	if (write(go[1], "g", 1) != 1) {
		close(go[1]);
		close(fd);
		hwbpi_perf_abort(p);
		return -EIO;
	}
	close(go[1]);
	reap(p, &st);
	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		v = 0;
	close(fd);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		hwbpi_say(err, errlen, "self-test: the test child failed");
		return -ECHILD;
	}
	if (v == 0) {
		hwbpi_say(err, errlen, "hardware breakpoints do not fire on this machine (a perf breakpoint "
		    "on a variable written 100 times counted 0; some hypervisors do not pass "
		    "debug registers through)");
		return -ENODEV;
	}
	return 0;
}
