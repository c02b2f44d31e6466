/* SPDX-License-Identifier: MIT */
/*
 * CTF 1.8 output of the tracer (internal): a directory holding a TSDL
 * `metadata` file and one binary stream per CPU (stream_0, stream_1, ...),
 * as babeltrace2 and Trace Compass read it.  Events are the fixed-size
 * struct hwbp_trace_event plus the names the tables give them (watch,
 * function); events the rings lost appear as the packet context's
 * events_discarded counter, which readers report as discarded events.
 *
 * Not on the hit path: it is the consumer side (it buffers one packet per
 * CPU and writes it with stdio).
 */
#ifndef HWBP_TRACER_CTF_H
#define HWBP_TRACER_CTF_H

#include <stdbool.h>
#include <stdint.h>

#include <hwbp/trace.h>

/* CPUs a CTF trace may have (stream files stream_0 .. stream_63). */
#define HWBPI_CTF_MAX_CPUS 64

struct hwbpi_ctf;

/*
 * hwbpi_ctf_open - create directory @dir, or take an existing empty one,
 * or with @force one holding only an earlier trace of this writer (a
 * regular `metadata` file it wrote, recognised by its env's tracer_name
 * "hwbp", and regular stream_N files), which is removed; then write the
 * metadata.  Every file is created with O_EXCL | O_NOFOLLOW: never a
 * user's file truncated, never a symlink followed; on failure only files
 * this call created are removed (and @dir if it made it).  @watch_names[bp]
 * names breakpoint bp (copied; at most 255 names).  @flags: HWBPI_CTF_FORCE
 * (the @force above), HWBPI_CTF_SRCLINE (events end with a string field
 * "src", the access's source line: hwbpi_ctf_write_src), HWBPI_CTF_STACKS (every event has four more
 * fields, its call stack: see hwbpi_ctf_write_stack).
 * Errors (NULL, *err): -EINVAL (NULL/empty dir, ncpus 0 or above
 *         HWBPI_CTF_MAX_CPUS, nwatch above 255 or a NULL name, an unknown
 *         flag), -ENOMEM,
 *         -EEXIST (@dir not empty, no @force), -ENOTEMPTY (@force, but @dir
 *         holds a file that is not this writer's: nothing removed), or the
 *         errno of mkdir/open/write (-ENOTDIR, -EACCES, -EIO ...).
 */
#define HWBPI_CTF_FORCE 1u
#define HWBPI_CTF_SRCLINE 2u
#define HWBPI_CTF_STACKS 4u
struct hwbpi_ctf *hwbpi_ctf_open(const char *dir, unsigned ncpus, const char *const *watch_names,
				 unsigned nwatch, unsigned flags, int *err);

/*
 * hwbpi_ctf_write - append one event to its CPU's stream; @func_name is
 * the function containing ev->ip, or NULL (written as "?").  Events of one
 * CPU must come in timestamp order (CPUs may interleave freely: readers
 * merge the streams by time).  Names longer than 4095 bytes are cut.
 * Errors: -EINVAL (NULL, ev->cpu >= ncpus, ev->bp >= nwatch), -ERANGE
 *         (ev->ts before the CPU's previous event), the write's errno
 *         (-ENOSPC, -EIO ...: writing a full packet failed; the event is
 *         not recorded).
 */
int hwbpi_ctf_write(struct hwbpi_ctf *c, const struct hwbp_trace_event *ev, const char *func_name);
/* The same with the access's source line @src (NULL: "?"), written when
 * the trace was opened with HWBPI_CTF_SRCLINE (else ignored). */
int hwbpi_ctf_write_src(struct hwbpi_ctf *c, const struct hwbp_trace_event *ev,
			const char *func_name, const char *src);

/*
 * hwbpi_ctf_write_stack - hwbpi_ctf_write with the event's call stack, for
 * a trace opened with HWBPI_CTF_STACKS (hwbpi_ctf_write writes none
 * there): ev->stack as `stack`, then `ncallers`, the callers' return
 * addresses innermost first as the sequence `callers` and their names
 * (@names: @n NUL-ended strings one after the other, "work+0x12"; NULL:
 * "?" each) as the sequence `caller_names`, each cut at 255 bytes.
 * Errors: as hwbpi_ctf_write; -EINVAL also for @n above HWBPI_CTF_MAX_CALLERS
 *         or NULL @callers with @n.
 */
#define HWBPI_CTF_MAX_CALLERS 64
int hwbpi_ctf_write_stack(struct hwbpi_ctf *c, const struct hwbp_trace_event *ev,
			  const char *func_name, const uint64_t *callers, unsigned n,
			  const char *names);

/* Both: the call stack (HWBPI_CTF_STACKS) and the source line
 * (HWBPI_CTF_SRCLINE), each written when the trace has it; the errors of
 * hwbpi_ctf_write_stack. */
int hwbpi_ctf_write_full(struct hwbpi_ctf *c, const struct hwbp_trace_event *ev,
			 const char *func_name, const uint64_t *callers, unsigned n,
			 const char *names, const char *src);

/*
 * hwbpi_ctf_lost - the ring of @cpu has lost @lost_total events so far
 * (cumulative, as hwbp_ring_stats says).  When that grew, the CPU's current
 * packet ends after the events written so far, so readers place the loss
 * between the packet's neighbours in time rather than somewhere in the
 * whole trace.  Optional: hwbpi_ctf_close() takes the final counts anyway.
 * Errors: -EINVAL (NULL, cpu >= ncpus, @lost_total below an earlier one).
 */
int hwbpi_ctf_lost(struct hwbpi_ctf *c, unsigned cpu, uint64_t lost_total);

/*
 * hwbpi_ctf_close - write every CPU's last packet, its events_discarded
 * being @lost_per_cpu[cpu] (NULL: no more than hwbpi_ctf_lost said), and
 * free @c (always, even on error); *@written (may be NULL) the events in
 * packets the files took (all written, or fewer after a failed write).  A
 * CPU without events still gets one empty packet, so every stream file is
 * a valid stream.
 * Errors: the errno of a failed write or close (-ENOSPC, -EIO ...: the
 *         trace is incomplete).
 */
int hwbpi_ctf_close(struct hwbpi_ctf *c, const uint64_t *lost_per_cpu, uint64_t *written);

#endif /* HWBP_TRACER_CTF_H */
