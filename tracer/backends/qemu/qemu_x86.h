/* SPDX-License-Identifier: MIT */
/*
 * The qemu-x86 backend (internal; tracer/backends/qemu/qemu_x86.c): the demo as real
 * code in the x86_64 bare-metal kernel (tests/qemu/x86/trace_kernel.c), on
 * QEMU's emulated debug registers.  One CPU.  Kinds are known as
 * HWBP_KIND_INSN: the trapping instruction is one of the kernel's own
 * access sites, listed with their kinds (load, store, read-modify-write)
 * when it was built.
 *
 * The kernel is built with hwbp (tracer/backends/qemu/qemu-x86/meson.build) and
 * installed as DATADIR/qemu-x86/kernel.elf (to boot) and kernel64.elf
 * (its symbols), DATADIR being $HWBP_DATADIR when set (the build tree's
 * tests), else the installed get_option('datadir')/hwbp.
 */
#ifndef HWBP_TRACER_QEMU_X86_H
#define HWBP_TRACER_QEMU_X86_H

#include <signal.h>

#include "session/backend.h"

/* The data directory: $HWBP_DATADIR, else the installed one. */
const char *hwbpi_datadir(void);

/*
 * hwbpi_qemu_x86_files - the demo kernel's two files in the data
 * directory, checked readable.
 * Errors (@err: one line): -EOPNOTSUPP (this hwbp was built without the
 *         demo kernel: not an x86_64 Linux build, or its tools were
 *         missing), -ENOENT (a file is missing), -ENAMETOOLONG.
 */
int hwbpi_qemu_x86_files(char *kernel, char *symbols, size_t n, char *err, size_t errlen);

/* One run's state while the kernel's lines come in. */
struct hwbpi_qemu_x86_run {
	uint64_t clock;       /* hits so far: the events' timestamps */
	uint64_t disagree;    /* loads after which the watched bytes changed */
	bool ended;           /* the kernel's E line came */
	int ret;              /* the first error a line reported */
};

/*
 * One line of the demo kernel (protocol in tracer/backends/qemu/qemu_x86.c): a hit goes
 * to hwbpi_tracer_hit(); lines that are not the protocol's are ignored.
 * Returns @r->ret: 0, or the first error reported: the planner's errno of
 * a refused watch (W line, @err names it), -EIO (X line: the kernel
 * failed).  Errors: -EINVAL (NULL).
 */
int hwbpi_qemu_x86_line(struct hwbpi_tracer *t, struct hwbpi_qemu_x86_run *r, const char *line,
			char *err, size_t errlen);

/*
 * Boot @kernel under $QEMU (default qemu-system-x86_64, PATH searched)
 * with the tracer's watches (resolved against kernel64.elf's symbols),
 * feed every hit it reports, until the kernel ends, the timeout
 * ($HARNESS_TIMEOUT seconds, default 120) passes, or *@stop (may be NULL)
 * becomes nonzero (QEMU is then ended: not an error).  *@disagree (may be
 * NULL) gets the E line's count of loads that changed the watched bytes.
 * @err gets the planner's reason when the kernel cannot hold a watch.
 * Errors: -EINVAL, -EOPNOTSUPP (an execute watch), the planner's errors,
 *         -ENOENT (no QEMU, no kernel image), -EIO (the kernel failed or
 *         hung), -ENOMEM, fork/pipe errors.
 */
int hwbpi_trace_qemu_x86(struct hwbpi_tracer *t, const char *kernel,
			 volatile sig_atomic_t *stop, uint64_t *disagree, char *err, size_t errlen);

/* The backend, for the registry. */
extern const struct hwbp_trace_backend hwbpi_backend_qemu_x86;

#endif /* HWBP_TRACER_QEMU_X86_H */
