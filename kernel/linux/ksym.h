/* SPDX-License-Identifier: MIT */
/*
 * hwbp_ksym.ko's parts (kernel/linux/): the filter (ksym_filter.c: the
 * watches, planned by hwbp and registered with Linux's breakpoint API),
 * the histograms (ksym_hist.c: hwbp's own hit path, tracer/events/hist_add.c,
 * one histogram per watch and CPU), the function table (ksym_funcs.c),
 * what differs per arch (ksym_model.c), and the race detector
 * (ksym_race.c, ksym_race_files.c; ksym_race.h).
 *
 * Locking: ksym_mutex serialises every change and every read of the
 * watches, the function table and hist_entries; the hit path takes no
 * lock: the table it reads changes only while no watch is registered.
 */
#ifndef HWBP_KSYM_H
#define HWBP_KSYM_H

#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/debugfs.h>
#include <linux/perf_event.h>
#include <linux/seq_file.h>
#include <linux/types.h>

#include <hwbp/hist.h>
#include <hwbp/hwbp.h>

/* At most this many watches (the most data slots of any preset). */
#define KSYM_MAX_WATCH 16

/* hist_entries: the default (hwbp trace's) and the most. */
#define KSYM_HIST_ENTRIES 16u
#define KSYM_HIST_ENTRIES_MAX 1024u

struct kwatch {
	unsigned id;                     /* its index in the filter */
	uint64_t addr, len;
	unsigned type;                   /* HWBP_R/W/RW/X as asked */
	unsigned kind;                   /* its hits' kind: W, X, or 0 (not known) */
	struct hwbp_plan plan;
	struct perf_event *__percpu *bp[HWBP_MAX_PIECES];
	struct hwbp_hist __percpu *hist; /* one breakpoint, n entries per CPU */
	unsigned n;                      /* hist_entries when it was added */
};

extern struct mutex ksym_mutex;

/* ------------------------------------------------ ksym_model.c (per arch) */

/*
 * The running kernel's debug-register model for hwbp's planner: x86_64's
 * preset, arm64's from ID_AA64DFR0_EL1 (the slots this CPU has).
 * Errors: -EOPNOTSUPP (an arch the module has no model for).
 * Context: process.
 */
int ksym_model(struct hwbp_cpu *cpu);

/* Whether a perf overflow handler of ours may run on a hit: true where
 * data breakpoints trap after the access (x86); false where Linux steps
 * over the access only for perf's default handler (arm64). */
bool ksym_arch_handler_ok(void);

/* What to take from a data hit's IP to land in the accessing function
 * (1 where the IP is the next instruction's). */
uint64_t ksym_arch_ip_adjust(void);

/*
 * Whether this is the first of our handler's calls in the current debug
 * exception (x86 reports every matching slot in one exception, so an
 * access that matches two pieces of one watch calls it twice): 1 the
 * first, 0 a later one, -EOPNOTSUPP when this kernel gives no way to tell.
 * Context: our overflow handler only (the debug exception, IRQs off).
 */
int ksym_arch_exception_first(void);

/* ------------------------------------------------------- ksym_filter.c */

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
 * Context: process; the caller holds no lock (ksym_mutex is taken).
 */
int ksym_filter_write(const char *line, size_t len);

/* The current watches, one line each, as ksym_filter_write() takes them. */
void ksym_filter_show(struct seq_file *m);

/* The histogram (ksym_hist_show) of every watch.  Takes ksym_mutex. */
int ksym_filter_hist(struct seq_file *m, bool raw);

/* Whether a watch is registered.  Caller holds ksym_mutex. */
bool ksym_filter_busy(void);

/* Unregister and free every watch (module exit). */
void ksym_filter_clear(void);

/* The CPU model the filter plans with, set once at load. */
int ksym_filter_init(void);

/* hist_entries: the entries a watch added now gets. */
extern unsigned ksym_hist_entries;

/* ------------------------------------------------------- ksym_hist.c */

/* A watch's per-CPU histograms of @w->n entries.  Errors: -ENOMEM.
 * Context: process. */
int ksym_hist_alloc(struct kwatch *w);
void ksym_hist_free(struct kwatch *w);

/* perf's overflow handler of every piece (where ksym_arch_handler_ok()):
 * one hit into this CPU's histogram of the watch.  No allocation, no
 * lock, no string: the function is found by a binary search of the
 * table. */
void ksym_hist_hit(struct perf_event *bp, struct perf_sample_data *data, struct pt_regs *regs);

/*
 * The watches' histogram (@w[0..@nw), NULL skipped), merged over CPUs,
 * in hwbp trace's layout (Access_Type, Symbol, Function, Counter, then
 * "SYMBOL: N functions, overrun M" per watch); @raw (for programs):
 * "by-function 1" (0 where hits carry no function), then per watch one
 * line per entry, "ID 0xFUNC KIND COUNT", and "ID overrun M events E".
 * @events(w): the events' own count of watch w (every piece, every CPU),
 * read after w's per-CPU histograms are merged: while hits still come,
 * a watch's counts + overrun <= its events; once they stop, equal.
 * Errors: -ENOMEM.  Context: process, ksym_mutex held; may allocate.
 */
int ksym_hist_show(struct seq_file *m, struct kwatch *const *w, unsigned nw,
		   s64 (*events)(const struct kwatch *w), bool raw);

/* ------------------------------------------------------- ksym_funcs.c */

/* A write(2) to ksym_trace_functions: lines of one hex function start
 * each (0x optional), ascending; a line cut between two writes is joined
 * (@frag, per open file).  Errors: -EBUSY (a watch is registered),
 * -EINVAL (not hex, or below the last start; nothing of this write is
 * kept), -E2BIG (more than KSYM_FUNCS_MAX), -ENOMEM.  Takes ksym_mutex. */
#define KSYM_FUNCS_MAX (1u << 22)
struct ksym_frag {
	char s[24];
	unsigned n;
};
int ksym_funcs_write(struct ksym_frag *frag, const char *buf, size_t n);

/* An open with O_TRUNC: the table emptied.  Errors: -EBUSY.  Takes
 * ksym_mutex. */
int ksym_funcs_reset(void);

/* How many starts; the lookup of the hit path: the last start at or below
 * @ip (true), or false (none: before the first start, or no table). */
size_t ksym_funcs_count(void);
bool ksym_funcs_lookup(uint64_t ip, uint64_t *start);
/* Whether @addr is one of the starts (the histogram names those). */
bool ksym_funcs_has(uint64_t addr);
void ksym_funcs_free(void);

/* ------------------------------------------ ksym_model.c: the race detector */

/* A register of @regs by its DWARF number (x86-64: 0..15, the general
 * ones).  Errors: -EINVAL (another), -EOPNOTSUPP (not this arch: only
 * x86_64's race detector is written).  Any context. */
int ksym_arch_race_reg(const struct pt_regs *regs, unsigned dwarf, unsigned long *v);

/* The debug slot this CPU's registered breakpoint at @placeholder sits
 * in, and its DR7 type and length bits in *@saved.  Errors: -ENOENT,
 * -EOPNOTSUPP.  Context: on that CPU, IRQs off. */
int ksym_arch_race_slot(unsigned long placeholder, unsigned long *saved);

/* Point @slot at @len (1, 2, 4, 8; @addr aligned to it) bytes at @addr,
 * writes only or (@rw) reads and writes; and back to the placeholder.
 * Context: on the slot's CPU, IRQs off. */
void ksym_arch_race_arm(int slot, unsigned long addr, unsigned len, bool rw);
void ksym_arch_race_disarm(int slot, unsigned long placeholder, unsigned long saved);

/* ------------------------------------------------------- ksym_race.c */

/* The race detector's debugfs files, created in @dir: race_ctl (lines of
 * ksym_race.c's commands; reads the state) and race_reports.  Errors:
 * debugfs'. */
int ksym_race_init(struct dentry *dir);
/* Stop a run and free it (module exit): every kprobe and breakpoint
 * unregistered. */
void ksym_race_exit(void);

#endif /* HWBP_KSYM_H */
