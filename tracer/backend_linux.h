/* SPDX-License-Identifier: MIT */
/*
 * What the Linux backends (tracer/backend_linux.c: ptrace, perf, bpf)
 * share with the kernel scope and the in-kernel counting of perf and bpf
 * (tracer/backend_kernel.c).  Internal; every function reports its error
 * as the session's message (hwbpi_fail) and returns the negative errno.
 */
#ifndef HWBP_TRACER_BACKEND_LINUX_H
#define HWBP_TRACER_BACKEND_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "perf.h"
#include "session.h"

/* The running kernel's debug-register model into s->cpu (or a --cpu
 * given checked against it, @what naming the backend in the message).
 * Errors: those of hwbpi_ptrace_native_cpu(), -EINVAL (a --cpu that does
 * not fit). */
int hwbpi_linux_model(struct hwbp_trace_session *s, const char *what);

/* The tracer rings' consumer for the backends' loops (@arg: the session). */
void hwbpi_linux_drain(void *arg);

/* perf's kernel ring per CPU for --buffer-kb @bytes: data pages, a power
 * of two, the most that fit (0: the default). */
unsigned hwbpi_linux_ring_pages(size_t bytes);

/* --kinds MODE into *@out (default auto).  Errors: -EINVAL (input). */
int hwbpi_kernel_kinds(struct hwbp_trace_session *s, enum hwbpi_kinds *out);

/* --call-graph MODE into *@out (default: tracer/unwind.h's).
 * Errors: -EINVAL (input), -EOPNOTSUPP (dwarf without libdw). */
int hwbpi_linux_callgraph(struct hwbp_trace_session *s, enum hwbpi_callgraph *out);

/*
 * --kernel's open: --cpus, the CPU model, the kernel's symbols (with
 * --vmlinux or --symbols System.map) into s->syms; *@state (freed by
 * hwbpi_kernel_close) keeps what run needs.
 * Errors: -EINVAL (input: -p, --cpus, a file that is not this kernel's),
 * -EACCES (addresses hidden), those of hwbpi_ksyms_load(), -ENOMEM.
 */
int hwbpi_kernel_open(struct hwbp_trace_session *s, void **state);
void hwbpi_kernel_close(void *state);

/* For "no symbol X": why this kernel may not have it, or NULL. */
const char *hwbpi_kernel_missing_hint(const void *state);

/*
 * Run perf or bpf: kernel scope (@kernel, @state from hwbpi_kernel_open;
 * the session's -- CMD, if any, bounds it) or process @pid (@started: a
 * child of ours stopped at its entry).  With @want_bpf in histogram mode
 * the hits are counted in the kernel (falling back to samples, said, when
 * the program cannot be loaded); notes say how kinds and lengths were
 * found and what was lost.  res->wstatus: a started command's status.
 * Errors: those of hwbpi_perf_kernel() / hwbpi_perf_trace(), -EINVAL
 * (input: --kinds, a watch in .init, a per-CPU offset, a user address).
 */
int hwbpi_trace_counted(struct hwbp_trace_session *s, bool kernel, void *state, pid_t pid,
			bool started, bool want_bpf, struct hwbpi_perf_result *res);

#endif /* HWBP_TRACER_BACKEND_LINUX_H */
