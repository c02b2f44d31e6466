/* SPDX-License-Identifier: MIT */
/*
 * The layout shared by the BPF program that counts breakpoint hits in the
 * kernel (tracer/backends/perf/bpf/hist.bpf.c, compiled for the bpf target) and its
 * loader (tracer/backends/perf/bpf.c): the names of the program and its maps, the keys
 * and values of the maps, and the read-only configuration set before the
 * load.  Kernel types only (<linux/types.h>): the bpf target has no libc.
 *
 * Maps:
 *   hwbp_funcs    array, nfunc (at least 1) __u64: the function start
 *                 addresses, ascending; an IP belongs to the last start at
 *                 or below it
 *   hwbp_counts   hash, preallocated, nwatch * entries elements:
 *                 struct hwbpi_bpf_key -> __u64 hits
 *   hwbp_watches  array, nwatch struct hwbpi_bpf_watch
 *   hwbp_lost     array, 2 __u64: [0] hits no map took (an update refused
 *                 for another reason than a full watch: the bucket lock
 *                 taken on this CPU already, EBUSY), [1] hits merged into
 *                 the access another piece of their watch counted (the
 *                 same debug exception)
 *   hwbp_vals     array, nwatch struct hwbpi_bpf_val (values mode)
 *   hwbp_out      perf event array, one PERF_COUNT_SW_BPF_OUTPUT event per
 *                 CPU (values mode): where each hit's struct hwbpi_bpf_rec
 *                 goes
 */
#ifndef HWBP_TRACER_BPF_ABI_H
#define HWBP_TRACER_BPF_ABI_H

#include <linux/types.h>

/* The program's name, as BPF_OBJ_GET_INFO_BY_FD reports it (at most 15
 * characters: BPF_OBJ_NAME_LEN). */
#define HWBPI_BPF_PROG_NAME "hwbp_hist"

/* The function index of an IP below the first start. */
#define HWBPI_BPF_NO_FUNC 0xffffffffu

/* The cookie: the watch index above the access kind tag. */
#define HWBPI_BPF_TAG_BITS 8
#define HWBPI_BPF_TAG_MASK 0xffu

struct hwbpi_bpf_key {
	__u32 cookie;  /* watch << HWBPI_BPF_TAG_BITS | tag */
	__u32 func;    /* index into hwbp_funcs, or HWBPI_BPF_NO_FUNC */
	__u64 ip;      /* HWBPI_BPF_NO_FUNC: the IP (less ip_adjust, if above
			* it), so that a hit in no known function is still
			* told by where it is; else 0 */
};

struct hwbpi_bpf_watch {
	__u64 used;     /* hwbp_counts entries this watch holds (or reserved) */
	__u64 overrun;  /* hits of a new function once the watch had none left */
};

/* Values mode: a watch's bytes and the copy of them its last hit left. */
struct hwbpi_bpf_val {
	__u64 addr;       /* the watch's first byte (a kernel address) */
	__u32 len;        /* bytes read there: 1..8 */
	__u32 seen;       /* 0 until the first hit: shadow holds nothing yet */
	__u64 shadow;     /* the bytes after the last hit of any CPU */
};

/* Values mode: what a hit's program run writes to hwbp_out, just before
 * perf writes the hit's own sample into the same CPU ring. */
struct hwbpi_bpf_rec {
	__u64 ip;         /* the trap's IP, as in the sample */
	__u64 value;      /* the watch's bytes at the trap (little-endian) */
	__u64 old;        /* HWBPI_BPF_REC_OLD: the shadow, those before */
	__u32 watch;
	__u32 flags;      /* HWBPI_BPF_REC_* */
};
#define HWBPI_BPF_REC_VALUE 1u  /* value read (bpf_probe_read_kernel() succeeded) */
#define HWBPI_BPF_REC_OLD 2u    /* old known: an earlier hit left the shadow */

/* The program's .data: its only global (see hist.bpf.c for why not
 * .rodata). */
struct hwbpi_bpf_cfg {
	__u64 ip_adjust;  /* subtracted from the IP first */
	__u32 nfunc;      /* starts in hwbp_funcs (0: every IP is unknown) */
	__u32 entries;    /* hwbp_counts entries per watch */
	__u32 cookie;     /* this copy's hits count under it */
	__u32 values;     /* 1: values mode (trace mode, hwbpi_bpf_open_values()):
			   * no counting; each hit's bytes to hwbp_out, and the
			   * perf sample written as without a program */
};

#endif /* HWBP_TRACER_BPF_ABI_H */
