/* SPDX-License-Identifier: MIT */
/*
 * Counting breakpoint hits in the kernel: a BPF_PROG_TYPE_PERF_EVENT
 * program attached (BPF_LINK_CREATE, BPF_PERF_EVENT) to each breakpoint
 * event of a trace, one loaded copy per cookie (watch and access kind),
 * all sharing the maps.  Each hit maps its IP to a function (a bounded
 * binary search over hwbp_funcs) and adds one to the (cookie, function)
 * entry of hwbp_counts; the loader (tracer/backends/perf/bpf.c) reads the maps at the end, so no
 * hit costs a ring record or a wakeup.  The layout is tracer/backends/perf/bpf_abi.h.
 *
 * Compiled by clang for the bpf target with -D__TARGET_ARCH_<hwbp's arch
 * name>, which selects what PT_REGS_IP() reads in libbpf's bpf_tracing.h;
 * no CO-RE relocation, so the kernel's BTF is not needed.
 *
 * Context: the perf overflow path of the breakpoint
 * (kernel/events/core.c bpf_overflow_handler()), which on x86 runs in the
 * #DB exception, an NMI-like context: no sleeping, no lock but the hash
 * map's per-bucket one (which says EBUSY rather than wait when this CPU
 * holds it already: kernel/bpf/hashtab.c htab_lock_bucket()).
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/errno.h>
#include <linux/types.h>

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf_abi.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/*
 * Set by the loader before the load (libbpf's .data map).  Not .rodata:
 * libbpf freezes that map, and the verifier then knows its values
 * (kernel/bpf/verifier.c bpf_map_direct_read()); with the number of
 * starts known, every bound of the binary search is a known constant on
 * each path, the paths never merge and 200,000 starts exceed the
 * verifier's million instructions.  Unknown, the bounds of every path
 * look alike and the search verifies once per step.
 */
volatile struct hwbpi_bpf_cfg hwbp_cfg SEC(".data") = { 0 };

/* Every max_entries is set by the loader before the load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hwbp_funcs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct hwbpi_bpf_key);
	__type(value, __u64);
} hwbp_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hwbpi_bpf_watch);
} hwbp_watches SEC(".maps");

/* [0] the hits no map took (lost()), [1] the hits merged into the
 * access another piece of their watch counted (same_access()). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} hwbp_lost SEC(".maps");

/* This CPU's last hit of this copy (one cookie): the cookie, the
 * breakpoint's address (the piece: ctx->addr is attr.bp_addr,
 * perf_bp_event()) and a hash of its trap frame. */
struct hwbp_last {
	__u64 cookie, addr, sig;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hwbp_last);
} hwbp_last SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hwbpi_bpf_val);
} hwbp_vals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} hwbp_out SEC(".maps");

/* The index of the last start at or below @ip - ip_adjust, or
 * HWBPI_BPF_NO_FUNC.  32 halvings cover any u32 count of starts: the
 * constant bound is what lets the verifier accept the loop. */
static __always_inline __u32 func_of(__u64 ip)
{
	__u32 lo = 0, hi = hwbp_cfg.nfunc, mid = 0;
	__u64 *start;

	if (ip < hwbp_cfg.ip_adjust || hi == 0)
		return HWBPI_BPF_NO_FUNC;
	ip -= hwbp_cfg.ip_adjust;
	start = bpf_map_lookup_elem(&hwbp_funcs, &mid);
	if (!start || ip < *start)
		return HWBPI_BPF_NO_FUNC;
	/* Invariant: start[lo] <= ip, and ip < start[hi] if hi < nfunc. */
	for (int step = 0; step < 32 && hi - lo > 1; step++) {
		mid = lo + (hi - lo) / 2;
		start = bpf_map_lookup_elem(&hwbp_funcs, &mid);
		if (!start)
			return HWBPI_BPF_NO_FUNC;
		if (*start <= ip)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static __always_inline void lost(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&hwbp_lost, &zero);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/*
 * Is this hit the access that this CPU's last hit counted already?  One
 * debug exception can raise the events of two pieces of one watch, one
 * after the other with the same registers (arch/x86/kernel/
 * hw_breakpoint.c hw_breakpoint_handler(): a perf_bp_event() per DR6
 * bit): an access across the pieces on any CPU, or, under QEMU's TCG, a
 * piece an earlier access matched whose DR6 bit QEMU sets again
 * (tracer/backends/perf/perf_events.c multi_piece()).  The same cookie (watch and
 * kind), another piece, the same trap frame: every register equal, which
 * two accesses of a loop never have.  Records this hit as the last.
 */
static __always_inline int same_access(struct bpf_perf_event_data *ctx)
{
	const __u64 *r = (const __u64 *)&ctx->regs;
	__u64 sig = 0xcbf29ce484222325ULL, addr = ctx->addr;
	__u32 zero = 0, one = 1;
	struct hwbp_last *l = bpf_map_lookup_elem(&hwbp_last, &zero);
	__u64 *n;
	int same;

	if (!l)
		return 0;
#pragma unroll
	for (unsigned i = 0; i < sizeof(ctx->regs) / 8; i++) {
		sig ^= r[i];
		sig *= 0x100000001b3ULL;
	}
	same = l->cookie == hwbp_cfg.cookie && l->addr != addr && l->sig == sig;
	l->cookie = hwbp_cfg.cookie;
	l->addr = addr;
	l->sig = sig;
	if (same && (n = bpf_map_lookup_elem(&hwbp_lost, &one)))
		__sync_fetch_and_add(n, 1);
	return same;
}

/* One more hit of @k: into its entry, or a new entry reserved from its
 * watch's share (used), or the watch's overrun once the share is gone. */
static __always_inline void count(const struct hwbpi_bpf_key *k)
{
	__u32 w = k->cookie >> HWBPI_BPF_TAG_BITS;
	struct hwbpi_bpf_watch *ws;
	__u64 one = 1, *n;
	long ret;

	n = bpf_map_lookup_elem(&hwbp_counts, k);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return;
	}
	ws = bpf_map_lookup_elem(&hwbp_watches, &w);
	if (!ws) {
		lost();
		return;
	}
	if (__sync_fetch_and_add(&ws->used, 1) >= hwbp_cfg.entries) {
		/* Full: give the reservation back (used stays the entries held
		 * plus those being inserted).  Another CPU may have inserted this
		 * very key meanwhile: then the hit is its. */
		__sync_fetch_and_add(&ws->used, -1);
		n = bpf_map_lookup_elem(&hwbp_counts, k);
		if (n)
			__sync_fetch_and_add(n, 1);
		else
			__sync_fetch_and_add(&ws->overrun, 1);
		return;
	}
	/* (int): kernels before 6.4 call the map's update directly
	 * (kernel/bpf/verifier.c do_misc_fixups()), an int function whose
	 * upper 32 bits of R0 are not a sign extension: -EEXIST came back
	 * as 0xffffffef and a key another CPU had just inserted was
	 * counted as lost (1 hit in 40,000 under 8 threads on 2 CPUs,
	 * Linux 6.1; 6.4 made the map operations return long). */
	ret = (int)bpf_map_update_elem(&hwbp_counts, k, &one, BPF_NOEXIST);
	if (ret == 0)
		return;
	__sync_fetch_and_add(&ws->used, -1);
	if (ret == -EEXIST) {
		/* Another CPU inserted it first: add to its entry. */
		n = bpf_map_lookup_elem(&hwbp_counts, k);
		if (n) {
			__sync_fetch_and_add(n, 1);
			return;
		}
	}
	lost();
}

/*
 * Values mode: the watch's bytes now, the shadow's exchanged for them.
 * Only where the trap comes after the access (x86: a data breakpoint is
 * a trap, Intel SDM Vol. 3B 17.3.1.2), so the bytes now are those after
 * it; the loader refuses the other arches.  Reading them here does not
 * hit the watch again: the #DB handler runs with DR7 cleared
 * (arch/x86/kernel/traps.c exc_debug_kernel(), local_db_save()).  The
 * exchange makes the shadows of hits on several CPUs one chain: each hit
 * gets as old the bytes the one before it left.  The record goes to this
 * CPU's output event, which writes into the same ring as the breakpoint
 * events of this CPU: perf writes the hit's own sample right after this
 * program returns 1 (bpf_overflow_handler()), so the record is the one
 * just before its sample.
 */
static __always_inline int values(struct bpf_perf_event_data *ctx, __u64 ip)
{
	__u32 w = hwbp_cfg.cookie >> HWBPI_BPF_TAG_BITS;
	struct hwbpi_bpf_val *v = bpf_map_lookup_elem(&hwbp_vals, &w);
	struct hwbpi_bpf_rec r = { 0 };
	__u64 bytes = 0;
	__u32 len;

	r.ip = ip;
	r.watch = w;
	if (v) {
		len = v->len;
		if (len > 8)
			len = 8;
		if (len > 0 && bpf_probe_read_kernel(&bytes, len, (const void *)v->addr) == 0) {
			r.value = bytes;
			r.flags = HWBPI_BPF_REC_VALUE;
			r.old = __sync_lock_test_and_set(&v->shadow, bytes);
			if (__sync_lock_test_and_set(&v->seen, 1))
				r.flags |= HWBPI_BPF_REC_OLD;
		}
	}
	bpf_perf_event_output(ctx, &hwbp_out, BPF_F_CURRENT_CPU, &r, sizeof(r));
	/* 1: perf writes the sample too (bpf_overflow_handler()). */
	return 1;
}

SEC("perf_event")
int hwbp_hist(struct bpf_perf_event_data *ctx)
{
	struct hwbpi_bpf_key k;
	__u64 ip = PT_REGS_IP(&ctx->regs);

	if (hwbp_cfg.values)
		return values(ctx, ip);

	/* The loader's copy of the program for this cookie, not
	 * bpf_get_attach_cookie(): an inherited event has its parent's
	 * program but not its link's cookie (tracer/backends/perf/bpf.c, struct inst). */
	if (same_access(ctx))
		return 0;
	k.cookie = hwbp_cfg.cookie;
	k.func = func_of(ip);
	k.ip = 0;
	if (k.func == HWBPI_BPF_NO_FUNC)
		k.ip = ip >= hwbp_cfg.ip_adjust ? ip - hwbp_cfg.ip_adjust : ip;
	count(&k);
	/* 0: no perf sample is written (bpf_overflow_handler()). */
	return 0;
}
