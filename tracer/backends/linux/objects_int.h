/* SPDX-License-Identifier: MIT */
/*
 * The private parts of the asynchronous arming of objects
 * (hwbpi_linux_objects(), linux.h): the run's state (objects.c: the
 * loop, the slots' spells, the calls and the hits) and what opening its
 * events gives it (objects_open.c: the kprobe / uprobe events, the
 * preallocated breakpoints, the rings).
 */
#ifndef HWBP_TRACER_LINUX_OBJECTS_INT_H
#define HWBP_TRACER_LINUX_OBJECTS_INT_H

#include <linux/perf_event.h>

#include "backends/linux/linux.h"

#define POLL_MS 20
#define RING_PAGES 64
#define SPELLS 8             /* a slot's last spells, for hits drained late */
#define DELAYS 4096          /* arming delays kept for the median */
#define BATCH 8192           /* samples applied per round */
#define SCOPES 256           /* scope calls awaiting their return */

enum what { E_SLOT, E_ARM, E_RET, E_REL };

struct oev {
	int fd;
	uint64_t id;
	enum what what;
	unsigned idx;            /* the slot, or the watch of a probe */
};

struct spell {
	uint64_t from, addr, seq;   /* seq 0: empty */
	int obj;
};

struct oslot {
	unsigned watch;
	struct perf_event_attr attr;   /* as opened: only bp_addr and disabled change */
	unsigned first, n;       /* its events in ev[] */
	int obj;                 /* -1: none */
	struct spell sp[SPELLS];
	unsigned nsp;
};

struct rec {
	uint64_t time, ip, addr, site;
	uint32_t tid, cpu;
	unsigned ev;
	bool call_ok;
	struct hwbpi_linux_call call;
};

struct scope_call {
	uint32_t tid;
	unsigned watch;
	uint64_t ptr;
};

struct oring {
	int fd;
	void *base;
	size_t len;
	uint64_t size;
};

struct pobj {
	struct hwbpi_view *s;
	struct hwbpi_tracer *t;
	bool kernel;
	struct oev *ev;
	unsigned nev, cap;
	struct oslot sl[HWBP_MAX_REQUESTS];
	unsigned nsl;
	struct oring ring[HWBPI_TRACE_MAX_CPUS];
	bool cpu_on[HWBPI_TRACE_MAX_CPUS];
	unsigned ncpus;
	size_t page;
	unsigned nregs;
	struct rec *batch;
	unsigned nbatch;
	uint64_t delays[HWBP_MAX_REQUESTS][DELAYS];
	unsigned ndelay[HWBP_MAX_REQUESTS];
	struct scope_call scope[SCOPES];
	uint64_t stray, lost, rot_at;
	uint64_t arm_ns, arm_n;  /* the ioctl path's cost, for the bench */
	char *err;
	size_t errlen;
};

/* The run's state for session @s (its CPUs: @cpus, or the online ones),
 * errors written to @err; NULL: out of memory. */
struct pobj *hwbpi_pobj_new(struct hwbpi_view *s, bool kernel, const bool *cpus, char *err,
			    size_t errlen);
/* What only these backends refuse (every watch of objects, one
 * breakpoint of 1-8 bytes, a type the CPU has; no --trace or --stack).
 * Errors (in P->err): -EOPNOTSUPP, -EINVAL. */
int hwbpi_pobj_check(struct pobj *P, const struct hwbp_cpu *cpu);
/* Every event: the slots, then each watch's probes, for the kernel or
 * process @pid (@attached: every thread it has now).  Errors (in
 * P->err): perf_event_open's (EINVAL for a kprobe: the kernel will not
 * probe that function), -ENOENT (no kprobe / uprobe PMU), -ENOSPC,
 * -ESRCH, -ENOMEM. */
int hwbpi_pobj_open_all(struct pobj *P, pid_t pid, bool attached);
/* Every event and ring closed, @P freed. */
void hwbpi_pobj_close(struct pobj *P);

#endif /* HWBP_TRACER_LINUX_OBJECTS_INT_H */
