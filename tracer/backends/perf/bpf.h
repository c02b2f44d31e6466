/* SPDX-License-Identifier: MIT */
/*
 * Counting breakpoint hits in the kernel (internal to libhwbp-trace;
 * tracer/backends/perf/bpf.c, the program tracer/backends/perf/bpf/hist.bpf.c): one BPF program,
 * attached to every perf breakpoint event of a trace, maps each hit's IP
 * to a function and counts it in a preallocated hash map keyed by (watch,
 * access kind tag, function); user space reads the maps once, at the end.
 * No record per hit: a high hit rate loses nothing.
 *
 * The caller opens the events (PERF_TYPE_BREAKPOINT, sample_period = 1:
 * the kernel runs a program only on a sampling event, kernel/events/core.c
 * __perf_event_overflow()), attaches each one, lets the trace run, stops
 * the events (disable or close them), reads, closes.  read(fd) of an event
 * counts every hit whether or not the program ran (perf_swevent_event()
 * counts first), so the sum of the counts against the events' own counts
 * says exactly what the program did not see (another BPF program running
 * on that CPU: bpf_overflow_handler() skips it).
 *
 * One copy of the program is loaded per (watch, tag) attached, all
 * sharing the maps: an event inherited by a thread or child created later
 * (attr.inherit) runs its parent's program but does not get the cookie of
 * its parent's link (kernel/events/core.c perf_event_alloc()), so the
 * (watch, tag) is each copy's own constant, and inherited events count
 * under the right watch.
 *
 * Per watch, at most @entries functions (with tag) are counted; a hit of a
 * further one adds to the watch's overrun.  A function index is the
 * position in the caller's sorted start table; an IP (minus the adjust)
 * below the first start is HWBPI_BPF_UNKNOWN.
 *
 * Privileges: loading needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN;
 * kernel/bpf/syscall.c bpf_prog_load()); listing programs
 * (hwbpi_bpf_loaded_count) CAP_SYS_ADMIN.
 *
 * Where hwbp was built without BPF (no clang with the bpf target or no
 * libbpf >= 1.0, -Dbpf=disabled, not Linux) every function fails with
 * -EOPNOTSUPP and says so in one line.  One struct hwbpi_bpf per trace,
 * used by one thread at a time; different ones are independent.
 */
#ifndef HWBP_TRACER_BPF_H
#define HWBP_TRACER_BPF_H

#include <stddef.h>
#include <stdint.h>

/* The function index of an IP below every start. */
#define HWBPI_BPF_UNKNOWN UINT32_MAX

/* Watches and tags the cookie holds: watch << 8 | tag. */
#define HWBPI_BPF_MAX_WATCH ((1u << 24) - 1)
#define HWBPI_BPF_MAX_TAG 0xffu

struct hwbpi_bpf;

/*
 * Load the program and its maps into the kernel: room for @entries
 * functions in each of @nwatch watches (nwatch * entries preallocated
 * hash entries), the function table @starts[@nfunc] (ascending, equal
 * neighbours allowed; @nfunc 0: every hit counts as HWBPI_BPF_UNKNOWN),
 * and @ip_adjust, subtracted from each hit's IP before the search (an IP
 * below it is unknown; hwbpi_linux_trap_ip_adjust for this arch's data
 * breakpoints).  The first copy of the program is loaded here (so the
 * verifier's answer comes before any event is opened); nothing is
 * attached yet.
 * Errors (one line in @err): -EOPNOTSUPP (built without BPF),
 *         -EINVAL (@out NULL, @nwatch 0 or above HWBPI_BPF_MAX_WATCH + 1,
 *         @entries 0, @nwatch * @entries above UINT32_MAX, @starts NULL
 *         with @nfunc, @nfunc above UINT32_MAX, @starts not ascending),
 *         -EPERM (no CAP_BPF / CAP_PERFMON), a map the kernel refused
 *         (libbpf's line: -E2BIG, more hash buckets than it allows;
 *         -ENOMEM), the verifier's refusal (its last log line: -EINVAL,
 *         -EACCES, -E2BIG ...), -ENOMEM (ours).  On an error *@out is NULL
 *         and nothing is left loaded.
 */
int hwbpi_bpf_open(struct hwbpi_bpf **out, unsigned nwatch, unsigned entries,
		   const uint64_t *starts, size_t nfunc, uint64_t ip_adjust, char *err,
		   size_t errlen);

/*
 * Load the program in values mode, for trace mode in the kernel scope on
 * an arch whose data breakpoints trap after the access (x86; the caller's
 * duty: on the others the bytes at the trap are those before it): each
 * hit of watch w reads the @len[w] (1..8; more is read as 8) bytes at
 * @addr[w] (kernel addresses) with bpf_probe_read_kernel() and writes a
 * struct hwbpi_bpf_rec (tracer/backends/perf/bpf_abi.h: the bytes, and those the watch's
 * previous hit left, from any CPU) to the output event of its CPU
 * (hwbpi_bpf_set_output(), @ncpus of them); the program then lets perf
 * write the hit's sample as usual (it returns 1), so the caller opens the
 * events as for plain sampling, directs each CPU's output event into that
 * CPU's ring (PERF_EVENT_IOC_SET_OUTPUT) and finds each hit's record just
 * before its sample.  The first hit of a watch has no "before" unless
 * hwbpi_bpf_seed() gave one; without it, two first hits on two CPUs at
 * the same time may give the second a wrong one (the shadow and its
 * "seen" flag are exchanged one after the other: a BPF program of this
 * type cannot take a lock).
 * Attach with hwbpi_bpf_attach(); hwbpi_bpf_read() reads nothing here.
 * Errors (one line in @err): -EOPNOTSUPP (built without BPF), -EINVAL
 *         (@out, @addr or @len NULL, @nwatch 0 or too many, @ncpus 0), the
 *         load's errors as hwbpi_bpf_open().  On an error *@out is NULL.
 */
int hwbpi_bpf_open_values(struct hwbpi_bpf **out, unsigned nwatch, const uint64_t *addr,
			  const unsigned *len, unsigned ncpus, char *err, size_t errlen);

/*
 * Values mode: @bytes (little-endian, the low len bytes) as what watch
 * @watch held before its first hit, which then has a "before" too: the
 * caller read them before the events were armed (a write in between is
 * not seen: the first hit's "before" is then the bytes read).  Call it
 * before attaching.
 * Errors: -EINVAL (@b NULL or not in values mode, @watch >= nwatch), the
 *         map update's -errno.
 */
int hwbpi_bpf_seed(struct hwbpi_bpf *b, unsigned watch, uint64_t bytes, char *err,
		   size_t errlen);

/*
 * Values mode: the output event of CPU @cpu, @perf_fd (a
 * PERF_TYPE_SOFTWARE / PERF_COUNT_SW_BPF_OUTPUT event opened on that CPU,
 * sample_type PERF_SAMPLE_RAW at least, enabled: a record for a disabled
 * or absent one is dropped by the kernel).
 * Errors: -EINVAL (@b NULL or not in values mode, @cpu >= ncpus, or the
 *         kernel's: not such an event), -EBADF, -E2BIG.
 */
int hwbpi_bpf_set_output(struct hwbpi_bpf *b, unsigned cpu, int perf_fd, char *err,
			 size_t errlen);

/*
 * Attach the program to the perf event @perf_fd (a PERF_TYPE_BREAKPOINT
 * event with sample_period 1, enabled or not: its state is not changed)
 * for (@watch, @tag): its hits count under @watch and @tag (an access
 * kind: HWBP_R, HWBP_W, HWBP_X, or 0 for an event of both reads and
 * writes), and so do those of the events it is inherited by.  The first
 * (@watch, @tag) uses the copy hwbpi_bpf_open() loaded, each further one
 * loads another (the verifier runs again).  One program per event; the
 * attachment lasts until
 * hwbpi_bpf_close() (it holds a reference to the event: closing @perf_fd
 * first does not end it).  The kernel also accepts a counting event
 * (sample_period 0), on which the program never runs
 * (__perf_event_overflow() is for sampling events): the caller's duty.
 * Errors: -EINVAL (@b NULL, @watch >= nwatch, @tag above
 *         HWBPI_BPF_MAX_TAG, or the kernel's: an event BPF does not attach
 *         to, a kernel before 5.15 without perf links), -EBADF (@perf_fd is
 *         not a perf event), -EEXIST (the event has a program already),
 *         -ENOMEM, the errors of hwbpi_bpf_open()'s load for a new copy.
 */
int hwbpi_bpf_attach(struct hwbpi_bpf *b, int perf_fd, unsigned watch, unsigned tag, char *err,
		     size_t errlen);

/*
 * Read the counts: @fn(@arg, watch, tag, func, ip, count) once per entry
 * (func: an index into the start table, or HWBPI_BPF_NO_FUNC with the
 * hit's IP, less the trap-IP adjustment, in ip; ip 0 otherwise), in the hash
 * map's order; @overrun[nwatch] (may be NULL) gets each watch's overrun
 * and *@lost (may be NULL) the hits no map took (EBUSY: see
 * tracer/backends/perf/bpf_abi.h).  Read after the events stopped: entries that appear
 * while the map is walked may be missed.
 * Errors: -EINVAL (@b or @fn NULL), -errno of bpf(BPF_MAP_*) (none
 *         expected).
 */
int hwbpi_bpf_read(struct hwbpi_bpf *b,
		   void (*fn)(void *arg, unsigned watch, unsigned tag, uint32_t func, uint64_t ip,
			      uint64_t count),
		   void *arg, uint64_t *overrun, uint64_t *lost);

/*
 * The hits that the program counted once with another piece's hit of the
 * same access (one debug exception, the same registers), into *@n.
 * Errors: -EINVAL (@b or @n NULL), -EOPNOTSUPP (built without BPF),
 *         -errno of bpf(BPF_MAP_LOOKUP_ELEM).
 */
int hwbpi_bpf_merged(struct hwbpi_bpf *b, uint64_t *n);

/* Detach from every event and unload the program and its maps: nothing of
 * @b stays in the kernel.  NULL is allowed. */
void hwbpi_bpf_close(struct hwbpi_bpf *b);

/*
 * How many BPF programs named HWBPI_BPF_PROG_NAME the kernel holds, this
 * process's or any other's (BPF_PROG_GET_NEXT_ID, BPF_PROG_GET_FD_BY_ID,
 * BPF_OBJ_GET_INFO_BY_FD): for checking that a refusal or an end of trace
 * leaves none.  A program freed meanwhile is not counted.
 * Errors: -EOPNOTSUPP (built without BPF), -EPERM (listing needs
 *         CAP_SYS_ADMIN), other -errno of bpf().
 */
int hwbpi_bpf_loaded_count(void);

/*
 * The last non-empty line of a verifier log @log (NUL-terminated, lines
 * ended by '\n'), without its newline, into @out[@outlen] (truncated to
 * fit, always terminated if @outlen > 0); "" if it has none.  Pure: what
 * hwbpi_bpf_open() puts in its message for a refusal.
 */
void hwbpi_bpf_log_tail(const char *log, char *out, size_t outlen);

#endif /* HWBP_TRACER_BPF_H */
