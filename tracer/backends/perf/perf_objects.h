/* SPDX-License-Identifier: MIT */
/*
 * Watches of objects in the perf and bpf backends (perf_objects.c):
 * armed asynchronously, from kprobe / uprobe samples of the arming and
 * release functions, on preallocated breakpoints re-pointed with
 * PERF_EVENT_IOC_MODIFY_ATTRIBUTES.
 */
#ifndef HWBP_TRACER_PERF_OBJECTS_H
#define HWBP_TRACER_PERF_OBJECTS_H

#include "backends/perf/perf_int.h"

/*
 * hwbpi_perf_objects - the run of a session whose watches are all of
 * objects: the kernel scope (@kernel, on @cpus or every online CPU; the
 * session's -- CMD, held until every event is open, bounds it) or
 * process @pid (@started: a child of ours stopped under ptrace at its
 * entry, let go once the events are open; else attached, every thread).
 * Each watch's table gets its arming delays and the hits after a
 * release (objects/objects.h); res->wstatus is a command's status.
 * Errors (the session's message set): -EOPNOTSUPP and -EINVAL (input: a
 * watch these backends cannot arm), -ENOENT (no kprobe / uprobe PMU),
 * -ENOSPC (more watches than slots), perf_event_open's (EINVAL for a
 * kprobe: the kernel will not probe that function), -ENOMEM.
 * Context: the session's thread; runs until the end of the trace.
 */
int hwbpi_perf_objects(struct hwbpi_view *s, bool kernel, const bool *cpus, pid_t pid, bool started,
		       struct hwbpi_perf_result *res);

#endif /* HWBP_TRACER_PERF_OBJECTS_H */
