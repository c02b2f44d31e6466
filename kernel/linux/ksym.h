/* SPDX-License-Identifier: MIT */
/*
 * hwbp_ksym.ko's parts (kernel/linux/): the filter (ksym_filter.c: the
 * watches, planned by hwbp and registered with Linux's breakpoint API)
 * and this kernel's CPU model (ksym_model.c).
 */
#ifndef HWBP_KSYM_H
#define HWBP_KSYM_H

#include <linux/seq_file.h>
#include <linux/types.h>

#include <hwbp/hwbp.h>

/* At most this many watches (the most data slots of any preset). */
#define KSYM_MAX_WATCH 16

/*
 * The running kernel's debug-register model for hwbp's planner: x86_64's
 * preset, arm64's from ID_AA64DFR0_EL1 (the slots this CPU has).
 * Errors: -EOPNOTSUPP (an arch the module has no model for).
 * Context: process.
 */
int ksym_model(struct hwbp_cpu *cpu);

/*
 * Apply one filter line (@len bytes, an optional trailing newline):
 *   0xADDR/LEN:TTT   watch LEN bytes at kernel address ADDR, TTT three
 *                    letters "r" or "-", "w" or "-", "x" or "-" (as
 *                    hwbp trace -e takes them); "---" removes the watch
 *   *:---            remove every watch
 * A name instead of 0xADDR is refused (-ENOENT): a module cannot look
 * kernel symbols up by name (kallsyms_lookup_name() is not exported).
 * Errors (the state stays exactly as it was): -EINVAL (a malformed line,
 * no /LEN, a type this CPU cannot watch, an address hwbp refuses, more
 * than one line), -ENOENT (a name; removing a watch that is not there),
 * -EEXIST (the same range watched already), -ENOSPC (no slots for its
 * pieces, ours or the kernel's other users'), -ENOMEM, and Linux's
 * register_wide_hw_breakpoint() errors.
 * Context: process; the caller holds no lock (the filter's mutex is taken).
 */
int ksym_filter_write(const char *line, size_t len);

/* The current watches, one line each, as ksym_filter_write() takes them. */
void ksym_filter_show(struct seq_file *m);

/* The hits: per watch its line, then "hits N" and its pieces. */
void ksym_hist_show(struct seq_file *m);

/* Unregister and free every watch (module exit). */
void ksym_filter_clear(void);

/* The CPU model the filter plans with, set once at load. */
int ksym_filter_init(void);

#endif /* HWBP_KSYM_H */
