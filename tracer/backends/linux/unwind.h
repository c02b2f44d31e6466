/* SPDX-License-Identifier: MIT */
/*
 * Call stacks of a real process's hits (--stack; internal, Linux only):
 * the return addresses of the callers of the accessing function,
 * innermost first, as hwbpi_tracer_hit_frames() takes them.  Two ways to
 * find them (--call-graph, as `perf record`'s):
 *
 *   fp     frame pointers: each frame's record holds the caller's frame
 *          pointer and the return address (hwbpi_linux_fp_chain).  perf:
 *          the kernel walks them (PERF_SAMPLE_CALLCHAIN, parsed by
 *          hwbpi_unwind_chain()); ptrace: hwbpi_unwind_fp() on the stopped
 *          thread.  Code built without frame pointers (-fomit-frame-pointer,
 *          the default of gcc -O1 and above on x86_64, and of most
 *          distributions' libraries) gives short or wrong stacks: the
 *          register is then an ordinary one.
 *   dwarf  the call frame information of each module (.eh_frame,
 *          .debug_frame), read with libdw, applied to a copy of the
 *          thread's stack: perf's PERF_SAMPLE_STACK_USER dump with
 *          PERF_SAMPLE_REGS_USER, or for ptrace the stopped thread's stack
 *          read at once with process_vm_readv().  Right with or without
 *          frame pointers; frames beyond the copy are cut (perf: the
 *          stack above HWBPI_UNWIND_PERF_DUMP bytes from SP).  Needs libdw
 *          (-Ddwarf); the default where it is built in.
 *
 * The unwinding runs in the consumer (perf: the loop that reads the
 * rings; ptrace: the event loop, the thread stopped), never in the
 * kernel's hit path, and a DWARF unwind runs once per distinct start:
 * the registers of struct hwbpi_uregs and the stack words it read
 * (tracer/backends/linux/unwind_dwarf.c).
 */
#ifndef HWBP_TRACER_UNWIND_H
#define HWBP_TRACER_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backends/linux/glue.h"

/* Bytes of user stack per perf sample (PERF_SAMPLE_STACK_USER): perf
 * record's default; a multiple of 8 and, with the rest of the sample,
 * under the 64 KiB of a record. */
#define HWBPI_UNWIND_PERF_DUMP 8192u
/* Bytes of stack the ptrace unwinder copies at once from SP (deeper
 * words are read one by one). */
#define HWBPI_UNWIND_PTRACE_DUMP 32768u

enum hwbpi_callgraph { HWBPI_CG_DEFAULT = 0, HWBPI_CG_FP, HWBPI_CG_DWARF };

/*
 * --call-graph MODE: "fp" or "dwarf"; NULL: the default, dwarf where
 * libdw is built in, else fp.  Errors (@err: one line): -EINVAL (another
 * word), -EOPNOTSUPP (dwarf in a build without libdw).  No system call.
 */
int hwbpi_callgraph_parse(const char *v, enum hwbpi_callgraph *out, char *err, size_t n);

/* Whether this build unwinds with DWARF (libdw). */
bool hwbpi_unwind_have_dwarf(void);

/*
 * The callers in a PERF_SAMPLE_CALLCHAIN of @nr entries: the entries of
 * the user context (@kernel false) or the kernel context (@kernel true)
 * only, without the context markers (PERF_CONTEXT_USER, ...) and without
 * the sample's own IP @ip, which the kernel stores first in each
 * context (perf_callchain_user(), perf_callchain_kernel()).  At most
 * @max into @callers; returns how many.  Pure.
 */
unsigned hwbpi_unwind_chain(const uint64_t *ips, uint64_t nr, uint64_t ip, bool kernel,
			    uint64_t *callers, unsigned max);

/* Read the 8-byte word at @addr; false if it cannot be read. */
typedef bool (*hwbpi_unwind_read_fn)(void *arg, uint64_t addr, uint64_t *val);

/*
 * Walk the frame-pointer chain from @u (its fp, the chain of
 * hwbpi_linux_fp_chain): at most @max return addresses into @callers;
 * returns how many.  Stops at a record that is not above the previous
 * one (the stack grows down: a chain that does not climb is not one),
 * misaligned, unreadable, or a return address of 0.  No allocation.
 */
unsigned hwbpi_unwind_fp(hwbpi_unwind_read_fn rd, void *arg, const struct hwbpi_uregs *u,
			 uint64_t *callers, unsigned max);

/* A copy of a thread's stack: @len bytes from address @sp upward. */
struct hwbpi_stack_dump {
	uint64_t sp;
	const uint8_t *data;
	size_t len;
};

/* The word at @addr if the dump holds all 8 bytes of it. */
bool hwbpi_unwind_dump_word(const struct hwbpi_stack_dump *d, uint64_t addr, uint64_t *val);

/* ---- DWARF (tracer/backends/linux/unwind_dwarf.c) ---- */

struct hwbpi_dwunw;

/*
 * The modules of process @pid (its /proc/PID/maps now, each ELF opened
 * at once so that a process that ends later still unwinds), for
 * hwbpi_dwunw_unwind().  Errors (@err: one line): -EOPNOTSUPP (no
 * libdw in this build), -ESRCH, -ENOMEM, -EIO (libdw refused the maps).
 */
int hwbpi_dwunw_new(struct hwbpi_dwunw **out, pid_t pid, char *err, size_t n);
void hwbpi_dwunw_free(struct hwbpi_dwunw *d);

/*
 * The callers of a thread whose registers are @u and whose stack @dump
 * holds; words outside the dump through @rd (NULL: a read-only part of a
 * module's file, for a sample of a process that has moved on).  At most
 * @max into @callers; returns how many (0 when the PC is in no module).
 * Cached per (@u, the words read): a start seen before costs the reads
 * that check it.  Allocates only when libdw does (not a hit path).
 */
unsigned hwbpi_dwunw_unwind(struct hwbpi_dwunw *d, const struct hwbpi_uregs *u,
			    const struct hwbpi_stack_dump *dump, hwbpi_unwind_read_fn rd, void *arg,
			    uint64_t *callers, unsigned max);

/* What the unwinds cost: unwinds asked, those answered from the cache,
 * and the nanoseconds of each kind. */
struct hwbpi_dwunw_stats {
	uint64_t unwinds, cached, ns_unwound, ns_cached;
};
void hwbpi_dwunw_stats(const struct hwbpi_dwunw *d, struct hwbpi_dwunw_stats *st);

/* ---- a stopped thread (the ptrace backend; tracer/backends/linux/unwind.c) ---- */

struct hwbpi_unwinder {
	enum hwbpi_callgraph mode;
	struct hwbpi_dwunw *dw;     /* dwarf mode */
	uint8_t *buf;               /* the stack copy, HWBPI_UNWIND_PTRACE_DUMP bytes */
	pid_t tid;                  /* the thread being unwound */
};

/*
 * Ready to unwind threads of process @pid (stopped, being traced) with
 * @mode (HWBPI_CG_DEFAULT: hwbpi_callgraph_parse()'s default).
 * Errors (@err: one line): those of hwbpi_dwunw_new(), -ENOMEM.
 */
int hwbpi_unwinder_init(struct hwbpi_unwinder *u, enum hwbpi_callgraph mode, pid_t pid,
			char *err, size_t n);
void hwbpi_unwinder_fini(struct hwbpi_unwinder *u);

/*
 * The callers of stopped tracee @tid, at most @max into @callers (0 if
 * its registers cannot be read).  Its stack is copied once
 * (process_vm_readv(), HWBPI_UNWIND_PTRACE_DUMP bytes at most), deeper
 * words read one at a time.  Context: the tracer's thread.
 */
unsigned hwbpi_unwind_thread(struct hwbpi_unwinder *u, pid_t tid, uint64_t *callers,
			     unsigned max);

#endif /* HWBP_TRACER_UNWIND_H */
