/* SPDX-License-Identifier: MIT */
/*
 * Opening the events of the perf and bpf backends' watches of objects
 * (objects_int.h): the kprobe or uprobe event of each arming and
 * release function (its entry, or its return), and the preallocated
 * breakpoints, every one per CPU into that CPU's ring.
 *
 * References: man 2 perf_event_open (the kprobe and uprobe PMUs' config1
 * and config2, PERF_EVENT_IOC_SET_OUTPUT); kernel/events/core.c
 * (perf_kprobe_init(), perf_uprobe_init(), perf_event_set_output(): the
 * same CPU and clock); kernel/events/hw_breakpoint.c (reserve_bp_slot():
 * a disabled breakpoint holds its slot).
 */
#define _GNU_SOURCE 1

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backends/linux/objects_int.h"

/* ---- opening ------------------------------------------------------- */

/* The type of PMU @name (/sys/bus/event_source/devices/NAME/type), and
 * its retprobe bit.  Errors: -ENOENT (no such PMU: CONFIG_KPROBE_EVENTS
 * or CONFIG_UPROBE_EVENTS off, or a kernel before 4.17). */
static int pmu_type(const char *name, unsigned *type, unsigned *retbit)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", name);
	if (!(f = fopen(path, "r")))
		return -ENOENT;
	ok = fscanf(f, "%u", type) == 1;
	fclose(f);
	*retbit = 0;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/retprobe", name);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "config:%u", retbit) != 1)
			*retbit = 0;
		fclose(f);
	}
	return ok ? 0 : -ENOENT;
}

static int add_ev(struct pobj *P, int fd, enum what what, unsigned idx)
{
	if (P->nev == P->cap) {
		unsigned cap = P->cap ? P->cap * 2 : 64;
		struct oev *e = realloc(P->ev, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		P->ev = e;
		P->cap = cap;
	}
	P->ev[P->nev] = (struct oev){ .fd = fd, .what = what, .idx = idx };
	if (ioctl(fd, PERF_EVENT_IOC_ID, &P->ev[P->nev].id) < 0)
		P->ev[P->nev].id = UINT64_MAX - P->nev;
	P->nev++;
	return 0;
}

/* Event @fd of CPU @cpu writes into that CPU's ring (the first one opened
 * there owns it: PERF_EVENT_IOC_SET_OUTPUT wants the same CPU). */
static int to_ring(struct pobj *P, int fd, unsigned cpu)
{
	struct oring *r = &P->ring[cpu];

	if (r->fd >= 0)
		return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) ? -errno : 0;
	r->len = (RING_PAGES + 1) * P->page;
	r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -errno;
	}
	r->fd = fd;
	r->size = (uint64_t)RING_PAGES * P->page;
	return 0;
}

static void common_attr(struct perf_event_attr *a, bool kernel)
{
	a->size = sizeof(*a);
	a->sample_period = 1;
	/* Hits, calls and the ioctls' end on one clock (perf_event_set_output
	 * also wants the same clock on every event of a ring). */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_hv = 1;
	if (kernel)
		a->exclude_user = 1;
	else
		a->exclude_kernel = 1, a->inherit = 1;
}

/* Open @a on every CPU for @pid (-1: the kernel scope; else each of
 * @tids), into the rings.  Errors: perf_event_open's (in @err), -ENOMEM. */
static int open_each(struct pobj *P, struct perf_event_attr *a, const pid_t *tids, unsigned ntids,
		     enum what what, unsigned idx, const char *name)
{
	for (unsigned c = 0; c < P->ncpus; c++) {
		if (!P->cpu_on[c])
			continue;
		for (unsigned k = 0; k < ntids; k++) {
			int fd = (int)syscall(SYS_perf_event_open, a, tids[k], (int)c, -1,
					      PERF_FLAG_FD_CLOEXEC);
			int ret;

			if (fd < 0) {
				ret = -errno;
				hwbpi_say(P->err, P->errlen, "%s: perf_event_open on CPU %u: %s (%s)", name, c,
					  strerror(-ret), hwbp_errno_name(ret));
				return ret;
			}
			if ((ret = to_ring(P, fd, c)) || (ret = add_ev(P, fd, what, idx))) {
				close(fd);
				hwbpi_say(P->err, P->errlen, "%s: the ring of CPU %u: %s", name, c,
					  hwbp_errno_name(ret));
				return ret;
			}
		}
	}
	return 0;
}

/* The uprobe of @addr in @pid: the file mapped there and its offset
 * (/proc/PID/maps).  Errors: -ENOENT (no file mapped at @addr). */
static int file_of(pid_t pid, uint64_t addr, char *path, size_t n, uint64_t *off)
{
	char line[4608], file[4096];
	FILE *f;
	int ret = -ENOENT;

	snprintf(line, sizeof(line), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(line, "r")))
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, pg;

		file[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi, &pg, file) < 3)
			continue;
		if (addr >= lo && addr < hi && file[0] == '/') {
			snprintf(path, n, "%s", file);
			*off = addr - lo + pg;
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* A probe of function @fn (its entry, or its return with @ret). */
static int open_probe(struct pobj *P, const struct hwbpi_objfn *fn, bool ret, enum what what,
		      unsigned watch, pid_t pid, const pid_t *tids, unsigned ntids)
{
	struct perf_event_attr a;
	unsigned type, retbit;
	char path[4096];
	uint64_t off = 0;
	int r;

	memset(&a, 0, sizeof(a));
	if ((r = pmu_type(P->kernel ? "kprobe" : "uprobe", &type, &retbit))) {
		hwbpi_say(P->err, P->errlen, "%s(): no %s PMU in this kernel (/sys/bus/event_source/"
			  "devices/%s: CONFIG_%s_EVENTS, Linux 4.17) to see it called (ENOENT)", fn->func,
			  P->kernel ? "kprobe" : "uprobe", P->kernel ? "kprobe" : "uprobe",
			  P->kernel ? "KPROBE" : "UPROBE");
		return r;
	}
	common_attr(&a, P->kernel);
	a.type = type;
	a.config = ret ? UINT64_C(1) << retbit : 0;
	/* A call wakes the loop at once: its object waits for it. */
	a.wakeup_events = 1;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU;
	if (P->kernel) {
		/* kprobe_func: the kernel finds the symbol itself. */
		a.config1 = (uint64_t)(uintptr_t)fn->func;
		a.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_INTR;
		a.sample_regs_intr = hwbpi_linux_perf_callregs;
		a.sample_max_stack = 4;
		a.exclude_callchain_user = 1;
	} else {
		if ((r = file_of(pid, fn->addr, path, sizeof(path), &off))) {
			hwbpi_say(P->err, P->errlen, "%s(): no file mapped at 0x%" PRIx64 " in process %d (%s)",
				  fn->func, fn->addr, (int)pid, hwbp_errno_name(r));
			return r;
		}
		a.config1 = (uint64_t)(uintptr_t)path;
		a.config2 = off;
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = hwbpi_linux_perf_callregs;
		a.sample_stack_user = 8;
	}
	r = open_each(P, &a, tids, ntids, what, watch, fn->func);
	if (r == -EINVAL && P->kernel)
		hwbpi_say(P->err, P->errlen, "the kernel will not probe %s()%s: a function of its "
			  "kprobe blacklist (/sys/kernel/debug/kprobes/blacklist) or no probe point "
			  "(EINVAL)", fn->func, ret ? "'s return" : "");
	return r;
}

/* The slots: the CPU's data slots shared among the watches (a watch gets
 * at least one), each one breakpoint per CPU, disabled, on a placeholder
 * address: the arming function's entry, rounded down to the length. */
static int open_slots(struct pobj *P, const struct hwbp_cpu *cpu, const pid_t *tids, unsigned ntids)
{
	struct hwbpi_tracer *t = P->t;
	struct hwbp_caps caps;
	unsigned per;
	int ret;

	if ((ret = hwbp_caps_get(cpu, &caps)))
		return ret;
	per = caps.data_slots / t->nw;
	if (per == 0) {
		hwbpi_say(P->err, P->errlen, "%u watches of objects, %u debug registers: one each at least "
			  "(ENOSPC)", t->nw, caps.data_slots);
		return -ENOSPC;
	}
	for (unsigned wi = 0; wi < t->nw; wi++) {
		const struct hwbpi_watch *w = &t->w[wi];

		for (unsigned k = 0; k < per; k++) {
			struct oslot *sl = &P->sl[P->nsl];
			struct perf_event_attr *a = &sl->attr;
			int r;

			memset(sl, 0, sizeof(*sl));
			sl->watch = wi;
			sl->obj = -1;
			common_attr(a, P->kernel);
			a->type = PERF_TYPE_BREAKPOINT;
			a->bp_type = w->type == HWBP_W ? HW_BREAKPOINT_W :
				     w->type == HWBP_R ? HW_BREAKPOINT_R : HW_BREAKPOINT_RW;
			a->bp_len = w->len;
			a->bp_addr = w->obj.arm.addr & ~(w->len - 1);
			a->disabled = 1;
			/* Hits never wake the loop (its poll's timeout drains
			 * them).  On arm64 a kernel watchpoint's handler steps
			 * over the access with the watchpoint off
			 * (watchpoint_handler()); a wakeup's irq_work interrupt
			 * taken before the step completes in the interrupt, the
			 * watchpoint comes back on and the access traps again:
			 * with a wakeup per hit every trap renewed the cycle
			 * (121,702 hits of 25 writes in the aarch64 guest), with
			 * one per 64 samples a hit now and then counted twice
			 * (27 for 26). */
			a->wakeup_events = UINT32_C(0x7fffffff);
			a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU;
			sl->first = P->nev;
			if ((r = open_each(P, a, tids, ntids, E_SLOT, P->nsl, w->name)))
				return r;
			sl->n = P->nev - sl->first;
			P->nsl++;
		}
	}
	return 0;
}

/* What only these backends refuse: watches that are not all of objects,
 * a length no single breakpoint takes, a read-only watch where the CPU
 * has no such breakpoint. */
int hwbpi_pobj_check(struct pobj *P, const struct hwbp_cpu *cpu)
{
	struct hwbpi_tracer *t = P->t;
	struct hwbp_caps caps;

	if (hwbp_caps_get(cpu, &caps))
		return -EINVAL;
	for (unsigned wi = 0; wi < t->nw; wi++) {
		const struct hwbpi_watch *w = &t->w[wi];

		if (!w->object) {
			hwbpi_say(P->err, P->errlen, "-e '%s': with watches of objects, %s watches only "
				  "objects (--backend ptrace mixes them) (EOPNOTSUPP)", w->name,
				  P->s->backend->name);
			return -EOPNOTSUPP;
		}
		if (w->len > 8 || (w->len & (w->len - 1)) || w->len > caps.max_piece) {
			hwbpi_say(P->err, P->errlen, "-e '%s': %" PRIu64 " bytes: %s arms an object's "
				  "watch in one breakpoint of 1, 2, 4 or 8 bytes (EOPNOTSUPP)", w->name,
				  w->len, P->s->backend->name);
			return -EOPNOTSUPP;
		}
		if (w->type == HWBP_R && !(caps.types & (1u << HWBP_R))) {
			hwbpi_say(P->err, P->errlen, "-e '%s': this CPU has no read-only breakpoint: "
				  "watch rw- (EOPNOTSUPP)", w->name);
			return -EOPNOTSUPP;
		}
		if (w->type & HWBP_X) {
			hwbpi_say(P->err, P->errlen, "-e '%s': an object's field is data: r, w or rw "
				  "(EINVAL)", w->name);
			return -EINVAL;
		}
	}
	if (P->s->mode.trace || t->stack_depth) {
		hwbpi_say(P->err, P->errlen, "watches of objects with %s: --backend ptrace (EOPNOTSUPP)",
			  t->stack_depth ? "--stack" : "--trace");
		return -EOPNOTSUPP;
	}
	return 0;
}

static bool cpu_online(unsigned c)
{
	char path[96];
	FILE *f;
	int on = 1;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", c);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%d", &on) != 1)
			on = 1;
		fclose(f);
	}
	return on == 1;
}

/* The threads of process @pid now (its later ones: inherit).  Errors:
 * -ESRCH, -ENOMEM. */
static int threads(pid_t pid, pid_t **out, unsigned *n)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	pid_t *v = NULL;
	unsigned cap = 0;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(dir = opendir(path)))
		return -ESRCH;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		if (*n == cap) {
			pid_t *nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(dir);
				return -ENOMEM;
			}
			v = nv;
		}
		v[(*n)++] = (pid_t)atoi(d->d_name);
	}
	closedir(dir);
	*out = v;
	return *n ? 0 : -ESRCH;
}

/* Every event: the slots, then each watch's probes. */
int hwbpi_pobj_open_all(struct pobj *P, pid_t pid, bool attached)
{
	struct hwbpi_tracer *t = P->t;
	pid_t one = P->kernel ? -1 : pid, *tids = &one;
	unsigned ntids = 1;
	int ret;

	if (attached && (ret = threads(pid, &tids, &ntids))) {
		hwbpi_say(P->err, P->errlen, "process %d: its threads (%s)", (int)pid, hwbp_errno_name(ret));
		return ret;
	}
	ret = open_slots(P, &P->s->cpu, tids, ntids);
	for (unsigned wi = 0; ret == 0 && wi < t->nw; wi++) {
		const struct hwbpi_objspec *o = &t->w[wi].obj;

		if (!o->arm.ret)
			ret = open_probe(P, &o->arm, false, E_ARM, wi, pid, tids, ntids);
		if (ret == 0 && (o->arm.ret || o->scope))
			ret = open_probe(P, &o->arm, true, E_RET, wi, pid, tids, ntids);
		if (ret == 0 && !o->scope)
			ret = open_probe(P, &o->rel, false, E_REL, wi, pid, tids, ntids);
	}
	if (tids != &one)
		free(tids);
	return ret;
}

struct pobj *hwbpi_pobj_new(struct hwbpi_view *s, bool kernel, const bool *cpus, char *err,
			    size_t errlen)
{
	struct pobj *P = calloc(1, sizeof(*P));
	uint64_t m = hwbpi_linux_perf_callregs;

	if (!P || !(P->batch = calloc(BATCH, sizeof(*P->batch)))) {
		free(P);
		return NULL;
	}
	P->s = s;
	P->t = &s->t;
	P->kernel = kernel;
	P->err = err;
	P->errlen = errlen;
	P->page = (size_t)sysconf(_SC_PAGESIZE);
	P->ncpus = hwbpi_kernel_ncpus();
	if (P->ncpus > HWBPI_TRACE_MAX_CPUS)
		P->ncpus = HWBPI_TRACE_MAX_CPUS;
	for (unsigned c = 0; c < HWBPI_TRACE_MAX_CPUS; c++) {
		P->ring[c].fd = -1;
		P->cpu_on[c] = c < P->ncpus && (cpus ? cpus[c] : cpu_online(c));
	}
	for (; m; m &= m - 1)
		P->nregs++;
	if (!P->t->rotate_ns)
		P->t->rotate_ns = (uint64_t)HWBPI_OBJ_ROTATE_MS * 1000000u;
	return P;
}


void hwbpi_pobj_close(struct pobj *P)
{
	for (unsigned c = 0; c < HWBPI_TRACE_MAX_CPUS; c++)
		if (P->ring[c].base)
			munmap(P->ring[c].base, P->ring[c].len);
	for (unsigned i = 0; i < P->nev; i++)
		close(P->ev[i].fd);
	free(P->ev);
	free(P->batch);
	free(P);
}
