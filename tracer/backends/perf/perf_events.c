/* SPDX-License-Identifier: MIT */
/*
 * The perf backend's events (tracer/backends/perf/perf_int.h): plan the watches into
 * pieces, open a PERF_TYPE_BREAKPOINT event per piece and thread (and CPU
 * when sampling), attach each CPU's mmap ring, and say in one line why
 * the kernel refused one.  References as in perf.c.
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

#include "backends/linux/linux.h"
#include "backends/perf/bpf.h"
#include "backends/perf/perf_int.h"

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
int hwbpi_perf_say_open(int ret, const char *what, pid_t pid, unsigned held, char *err, size_t n)
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
		    "%u per thread; other breakpoints of the process or its CPUs take the rest, such as "
		    "those a debugger or a ptrace trace set, which Linux keeps until the process execs)",
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

/*
 * One line for an error of a kernel-scope open (RESEARCH: the order of
 * the kernel's checks: perf_event_open() perf_allow_kernel() EACCES;
 * hw_breakpoint_parse() EPERM without CAP_SYS_ADMIN, EINVAL; the arch's
 * parse: x86 refuses the CPU entry area and per-CPU entry data
 * (within_cpu_entry()), powerpc ENODEV with the DAWR off (POWER9
 * errata); __reserve_bp_slot() ENOSPC, checked before the address).
 */
int hwbpi_perf_say_kernel(int ret, const char *what, unsigned cpu, unsigned held, char *err, size_t n)
{
	switch (ret) {
	case -EACCES:
		hwbpi_say(err, n, "%s: perf_event_open: permission denied (EACCES): kernel "
			  "breakpoints need CAP_PERFMON or kernel.perf_event_paranoid <= 1, and "
			  "CAP_SYS_ADMIN (run as root)", what);
		return ret;
	case -EPERM:
		hwbpi_say(err, n, "%s: perf_event_open: EPERM: a breakpoint on a kernel address "
			  "needs CAP_SYS_ADMIN in the initial user namespace (hw_breakpoint_parse())",
			  what);
		return ret;
	case -ENODEV:
		hwbpi_say(err, n, "%s: this CPU's data breakpoints are off in this kernel (ENODEV; "
			  "Linux disables the DAWR of POWER9 for its errata)", what);
		return ret;
	case -EINVAL:
		hwbpi_say(err, n, "%s: the kernel refused this breakpoint on CPU %u (EINVAL: the "
			  "address, length or type; x86 refuses the CPU entry area and per-CPU "
			  "entry data)", what, cpu);
		return ret;
	case -ENOSPC:
	case -EBUSY:
		hwbpi_say(err, n, "%s: no free debug register on CPU %u (the kernel said %s: this "
			  "trace holds %u there; every breakpoint of any process, a debugger's or "
			  "a ptrace trace's, takes one on every CPU)", what, cpu,
			  ret == -EBUSY ? "EBUSY" : "ENOSPC", held);
		return -ENOSPC;
	default:
		return hwbpi_perf_say_open(ret, what, -1, held, err, n);
	}
}

/* The online CPUs, as a bit per CPU below hwbpi_kernel_ncpus(). */
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
void hwbpi_perf_sess_close(struct sess *s)
{
	for (unsigned i = 0; s->ring && i < s->ncpus; i++) {
		if (s->ring[i].base)
			munmap(s->ring[i].base, s->ring[i].map_len);
		if (s->ring[i].vfd >= 0)
			close(s->ring[i].vfd);
	}
	for (unsigned i = 0; i < s->nev; i++)
		close(s->ev[i].fd);
	free(s->ring);
	free(s->ev);
	free(s->pc);
	if (s->dw && s->res)
		hwbpi_dwunw_stats(s->dw, &s->res->unwind);
	hwbpi_dwunw_free(s->dw);
	hwbpi_hit_dec_close(s->dec);
	free(s->rec);
	memset(s, 0, sizeof(*s));
}

/* Plan every watch; the pieces go in s->pc. */
int hwbpi_perf_plan_all(struct sess *s, const struct hwbp_cpu *cpu, const struct hwbpi_perf_opts *o,
		      char *err, size_t n)
{
	enum hwbp_scope scope = s->kernel ? HWBP_SCOPE_KERNEL : HWBP_SCOPE_USER;
	struct hwbpi_tracer *t = s->t;
	struct hwbp_caps caps;
	/* Slots used on each CPU: a watch bound to one CPU (a per-CPU
	 * variable's copy) takes slots there only. */
	unsigned used_d[HWBPI_TRACE_MAX_CPUS] = { 0 }, used_i[HWBPI_TRACE_MAX_CPUS] = { 0 };
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
		struct hwbp_request q = { w->addr, hwbpi_watch_len(w, cpu), w->type, scope,
					  HWBP_REQ_WIDEN };
		bool inst = (w->type & HWBP_X) && !caps.shared;
		unsigned pool = inst ? caps.inst_slots : caps.data_slots;
		unsigned used = 0;
		struct hwbp_plan plan;

		for (unsigned c = 0; c < HWBPI_TRACE_MAX_CPUS; c++) {
			unsigned u = caps.shared ? used_d[c] + used_i[c] : inst ? used_i[c] : used_d[c];

			if ((!w->on_cpu || w->on_cpu == c + 1) && u > used)
				used = u;
		}

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
			    ret == -EFAULT ? (s->kernel ? "not a kernel address: --kernel watches the "
					      "kernel; a process's variable needs -- CMD or -p PID without it"
					    : "not a user-space address: a kernel variable needs --kernel")
			    : "refused by the planner");
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
			/* A piece of one kind sees only that kind (an arm64 or
			 * powerpc load-only piece of an r-- watch). */
			p->tag = plan.type == HWBP_R || plan.type == HWBP_W || plan.type == HWBP_X
				 ? plan.type : 0;
			p->split = false;
			p->twin = -1;
		}
		for (unsigned c = 0; c < HWBPI_TRACE_MAX_CPUS; c++) {
			if (w->on_cpu && w->on_cpu != c + 1)
				continue;
			if (plan.inst && !caps.shared)
				used_i[c] += plan.n;
			else
				used_d[c] += plan.n;
		}
	}
	/* More than the registers, and each hit decoded: share them. */
	if (s->dec && o->sampling && !s->bpf && used_d[0] + used_i[0] > caps.data_slots &&
	    (ret = hwbpi_perf_plan_shared(s, cpu, scope)) != -ENOSPC) {
		if (ret)
			return ret;
		s->res->pieces = s->npc;
		return 0;
	}
	s->res->pieces = s->npc;
	return hwbpi_perf_split_kinds(s, &caps, o, err, n);
}

/* Where Linux drops hits outside an event's range itself
 * (hwbpi_linux_exact_range), ask for the watch's bytes of the piece only:
 * a hit on a neighbour sharing the hardware's granule is not counted. */
static void clamp_to_watch(const struct hwbpi_watch *w, struct perf_event_attr *a)
{
	uint64_t lo = a->bp_addr > w->addr ? a->bp_addr : w->addr;
	uint64_t hi = a->bp_addr + a->bp_len;

	if (w->addr + w->len < hi)
		hi = w->addr + w->len;
	if (hi > lo) {
		a->bp_addr = lo;
		a->bp_len = hi - lo;
	}
}

/*
 * --stack: what each sample carries for its callers.  fp and kernel
 * scope: the kernel's callchain (PERF_SAMPLE_CALLCHAIN: its frame-pointer
 * walk of user space, perf_callchain_user(); its own unwinder in the
 * kernel), of the one context the trace watches; dwarf: the registers an
 * unwind starts from and a copy of the user stack from SP
 * (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER), unwound when the
 * sample is read (hwbpi_perf_sample_callers()).  Fields after CPU, in the
 * record's order (man 2 perf_event_open): callchain, regs, stack.
 */
static void stack_attr(const struct sess *s, struct perf_event_attr *a,
		       const struct hwbpi_perf_opts *o)
{
	if (!s->cg)
		return;
	if (s->kernel || s->cg == HWBPI_CG_FP) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->sample_max_stack = (uint16_t)s->max_stack;
		a->exclude_callchain_user = s->kernel;
		a->exclude_callchain_kernel = !s->kernel;
	} else {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = hwbpi_linux_perf_uregs;
		a->sample_stack_user = HWBPI_UNWIND_PERF_DUMP;
		/* Every sample then holds the whole dump (its size field is
		 * the asked one, perf_output_sample_ustack()): a ring takes a
		 * few dozen, so the consumer is woken at a quarter of that
		 * (unless the caller chose). */
		if (!o->wakeup)
			a->wakeup_events = (uint32_t)(s->ring_bytes / (HWBPI_UNWIND_PERF_DUMP + 256) / 4);
		if (a->wakeup_events == 0)
			a->wakeup_events = 1;
	}
}

/* kernel.perf_event_max_stack: the most frames a callchain may ask for
 * (perf_event_open() refuses more with EOVERFLOW); 127 if unreadable
 * (the kernel's default, PERF_MAX_STACK_DEPTH). */
static unsigned max_stack_sysctl(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	unsigned v = 127;

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 127;
		fclose(f);
	}
	return v;
}

int hwbpi_perf_stacks_setup(struct sess *s, pid_t pid, bool lazy, const struct hwbpi_perf_opts *o,
			  char *err, size_t n)
{
	unsigned depth = s->t->stack_depth, most = max_stack_sysctl();
	int ret;

	if (!depth || !o->sampling || s->bpf)
		return 0;
	if (s->kernel) {
		s->cg = HWBPI_CG_FP;   /* the kernel's own unwinder: the only way */
	} else {
		s->cg = o->callgraph;
		if (!s->cg && (ret = hwbpi_callgraph_parse(NULL, &s->cg, err, n)))
			return ret;
	}
	/* The sample's IP comes first in its context, and x86's kernel
	 * unwinder may repeat it: two more than the callers wanted. */
	s->max_stack = depth + 2 < most ? depth + 2 : most;
	s->res->max_stack = s->max_stack;
	s->rec = malloc(65536);   /* a record's u16 size bounds it */
	if (!s->rec)
		return -ENOMEM;
	if (s->cg != HWBPI_CG_DWARF || s->kernel)
		return 0;
	/* A child held before its exec has not the program's maps yet: its
	 * modules are reported at its first sample. */
	s->dw_pid = pid;
	if (lazy)
		return 0;
	return hwbpi_dwunw_new(&s->dw, pid, err, n);
}

static void fill_attr(const struct sess *s, struct perf_event_attr *a, const struct piece *p,
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
	if (p->type != HWBP_X && hwbpi_linux_exact_range && !p->watches)
		clamp_to_watch(&s->t->w[p->watch], a);
	a->exclude_hv = 1;
	if (s->kernel) {
		/* Kernel scope: hits in the kernel, on every task of the CPU
		 * (pid -1); the kernel needs CAP_SYS_ADMIN for a kernel address
		 * (hw_breakpoint_parse()), and counts a user-mode hit of the
		 * same address nowhere (perf_exclude_event()). */
		a->exclude_user = 1;
		/* Values: enabled once every CPU's output event is in place
		 * (open_outputs()), so that no hit comes without its record. */
		a->disabled = s->vbpf != NULL;
	} else {
		/* User space only: perf_event_paranoid 2 allows nothing else to
		 * an unprivileged user, and the watches are the program's. */
		a->exclude_kernel = 1;
		a->inherit = 1;               /* threads and children created later */
		a->disabled = enable_on_exec;
		a->enable_on_exec = enable_on_exec;
	}
	if (s->bpf) {
		/* A BPF program runs only on a sampling event's overflow
		 * (__perf_event_overflow() returns early otherwise); it
		 * returns 0, so nothing is written to a ring. */
		a->sample_period = 1;
		a->sample_type = PERF_SAMPLE_IP;
	} else if (o->sampling) {
		a->sample_period = 1;         /* every hit */
		a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU;
		a->wakeup_events = s->wakeup;
		stack_attr(s, a, o);
		/* Last in the record (man 2 perf_event_open), so that it is
		 * found from the record's end whatever comes before it. */
		if (s->iregs) {
			a->sample_type |= PERF_SAMPLE_REGS_INTR;
			a->sample_regs_intr = hwbpi_linux_perf_iregs;
		}
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

/* Attach one new event: its id, its CPU's ring or the BPF program. */
static int attach(struct sess *s, int fd, unsigned k, unsigned cpu, unsigned pages,
		  const struct hwbpi_perf_opts *o, char *err, size_t n)
{
	int ret = add_event(s, fd, k);

	if (ret == 0 && s->bpf)
		ret = hwbpi_bpf_attach(s->bpf, fd, s->pc[k].watch, s->pc[k].tag, err, n);
	else if (ret == 0 && o->sampling)
		ret = attach_ring(s, fd, cpu, pages, err, n);
	if (ret == 0 && s->vbpf)
		ret = hwbpi_bpf_attach(s->vbpf, fd, s->pc[k].watch, s->pc[k].tag, err, n);
	return ret;
}

/*
 * Values (s->vbpf): each CPU with a ring gets an output event of the
 * program's records, writing into that ring (PERF_EVENT_IOC_SET_OUTPUT:
 * same CPU, same clock, kernel/events/core.c perf_event_set_output()), so
 * a hit's record and its sample are neighbours; then the breakpoint
 * events, opened disabled, are enabled.  The output events are enabled
 * from the start:
 * bpf_perf_event_output() drops a record for an event not active on the
 * CPU (__bpf_perf_event_output(): -EOPNOTSUPP), and it has no record
 * until a breakpoint fires.
 */
static int open_outputs(struct sess *s, char *err, size_t n)
{
	for (unsigned c = 0; c < s->ncpus; c++) {
		struct ring *r = &s->ring[c];
		struct perf_event_attr a;
		int fd, ret;

		if (r->fd < 0)
			continue;
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_SOFTWARE;
		a.size = sizeof(a);
		a.config = PERF_COUNT_SW_BPF_OUTPUT;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_RAW;
		a.wakeup_events = DEFAULT_WAKEUP;
		fd = hwbpi_kernel_event_open(&a, -1, (int)c);
		if (fd < 0) {
			hwbpi_say(err, n, "perf: the values' output event on CPU %u: %s", c,
			    hwbp_errno_name(fd));
			return fd;
		}
		r->vfd = fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &r->vid) < 0)
			r->vid = UINT64_MAX - s->nev - c;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0) {
			ret = -errno;
			hwbpi_say(err, n, "perf: the values' output event on CPU %u: "
			    "PERF_EVENT_IOC_SET_OUTPUT: %s", c, hwbp_errno_name(ret));
			return ret;
		}
		if ((ret = hwbpi_bpf_set_output(s->vbpf, c, fd, err, n)))
			return ret;
	}
	for (unsigned i = 0; i < s->nev; i++)
		if (ioctl(s->ev[i].fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
			int ret = -errno;

			hwbpi_say(err, n, "perf: PERF_EVENT_IOC_ENABLE: %s", hwbp_errno_name(ret));
			return ret;
		}
	return 0;
}

/*
 * Does a watch have several pieces (not counting kind events and twins,
 * which perf_sample.c pairs)?  Then one access can be reported by two of
 * them in one debug exception: an access across a piece boundary on any
 * CPU (Intel SDM Vol. 3B 17.2.3: DR6 has a B bit for every matching
 * breakpoint; arch/x86/kernel/hw_breakpoint.c hw_breakpoint_handler()
 * calls perf_bp_event() for each), and under QEMU's TCG a piece that
 * matched an earlier access and is reported again with every access that
 * another piece matches: its cpu_check_watchpoint() (accel/tcg/
 * watchpoint.c) stops at the first matching watchpoint of its list, so a
 * later one's BP_WATCHPOINT_HIT flag is not cleared, and
 * check_hw_breakpoints() (target/i386/tcg/system/bpt_helper.c) sets the
 * DR6 bit of every watchpoint with that flag.  The samples then carry
 * the trap frame's registers (fill_attr()), to tell those apart.
 */
static bool multi_piece(const struct sess *s)
{
	for (unsigned i = 0; i < s->npc; i++)
		for (unsigned j = i + 1; j < s->npc; j++)
			if (s->pc[i].watch == s->pc[j].watch && s->pc[i].twin < 0 &&
			    s->pc[j].twin < 0 && !s->pc[i].split && !s->pc[j].split)
				return true;
	return false;
}

int hwbpi_perf_open_all(struct sess *s, pid_t pid, bool all_threads,
		    bool enable_on_exec, const struct hwbpi_perf_opts *o, char *err, size_t n)
{
	/* With DWARF stacks every sample holds a stack dump of
	 * HWBPI_UNWIND_PERF_DUMP bytes: the default ring of 128 KiB would hold
	 * about 16, and a loop of hits outruns the consumer (420 of 600
	 * samples dropped in a test): unless --buffer-kb says, 64 times the
	 * default (8 MiB per CPU, ~1000 samples).  A decoded hit's sample
	 * holds its trap frame (21 more words: four times the plain
	 * sample): four times the default, for as many samples. */
	unsigned pages = o->ring_pages ? o->ring_pages :
			 s->cg == HWBPI_CG_DWARF && !s->kernel ? 64 * HWBPI_PERF_RING_PAGES :
			 s->dec ? 4 * HWBPI_PERF_RING_PAGES : HWBPI_PERF_RING_PAGES;
	bool per_cpu = o->sampling || s->kernel || s->bpf;
	pid_t *tids = NULL;
	unsigned ntid = 0;
	int ret;

	if (pages & (pages - 1)) {
		hwbpi_say(err, n, "perf: ring pages must be a power of two (%u)", pages);
		return -EINVAL;
	}
	/* Kernel scope: one "task", every task (pid -1, per CPU). */
	ret = s->kernel ? list_tids(-1, false, &tids, &ntid) : list_tids(pid, all_threads, &tids, &ntid);
	if (ret)
		return hwbpi_perf_say_open(ret, "perf", pid, 0, err, n);
	s->ncpus = hwbpi_kernel_ncpus();
	s->ring_bytes = (uint64_t)pages * s->page;
	/* The trap frame: to tell one access reported by two pieces (a watch
	 * of several), and to decode the access (s->dec). */
	if (o->sampling && !s->bpf && (multi_piece(s) || s->dec))
		s->iregs = (unsigned)__builtin_popcountll(hwbpi_linux_perf_iregs);
	/* Woken after this many samples: at most a quarter of what a ring
	 * holds (a small --buffer-kb, or samples made big by the trap frame,
	 * would fill before the wakeup came). */
	s->wakeup = o->wakeup ? o->wakeup : DEFAULT_WAKEUP;
	{
		uint64_t sample = 8 + 6 * 8 + (s->iregs ? 8 + (uint64_t)s->iregs * 8 : 0);
		uint64_t quarter = s->ring_bytes / sample / 4;

		if (!o->wakeup && quarter < s->wakeup)
			s->wakeup = quarter ? (unsigned)quarter : 1;
	}
	if (o->sampling && !s->bpf) {
		s->ring = calloc(s->ncpus, sizeof(*s->ring));
		if (!s->ring) {
			free(tids);
			return -ENOMEM;
		}
		for (unsigned c = 0; c < s->ncpus; c++)
			s->ring[c].fd = s->ring[c].vfd = -1;
	}
	for (unsigned k = 0; k < s->npc && ret == 0; k++) {
		const struct piece *p = &s->pc[k];
		struct perf_event_attr a;

		fill_attr(s, &a, p, enable_on_exec, o);
		for (unsigned i = 0; i < ntid && ret == 0; i++) {
			/* Counting a process: one per-task event (cpu -1).
			 * Sampling or BPF: one per (task, CPU), since perf_mmap()
			 * refuses inherited per-task events; kernel scope: one per
			 * CPU of --cpus. */
			unsigned ncpu = per_cpu ? s->ncpus : 1;

			for (unsigned c = 0; c < ncpu && ret == 0; c++) {
				int fd;

				if (per_cpu && (!cpu_online(c) || (s->cpus && !s->cpus[c])))
					continue;
				/* A per-CPU variable's copy: on its own CPU. */
				if (per_cpu && s->t->w[p->watch].on_cpu &&
				    s->t->w[p->watch].on_cpu != c + 1)
					continue;
				fd = hwbpi_kernel_event_open(&a, tids[i], per_cpu ? (int)c : -1);
				if (fd < 0) {
					char what[HWBP_TRACE_SYM_LEN + 64];

					snprintf(what, sizeof(what), "%s", s->t->w[p->watch].name);
					ret = s->kernel ? hwbpi_perf_say_kernel(fd, what, c, k, err, n)
							: hwbpi_perf_say_open(fd, what, tids[i], k, err, n);
					break;
				}
				ret = attach(s, fd, k, c, pages, o, err, n);
			}
		}
	}
	free(tids);
	if (ret == 0 && s->vbpf)
		ret = open_outputs(s, err, n);
	s->res->events = s->nev;
	return ret;
}

/* Copy @len bytes at ring offset @pos (the data area wraps around). */
