/* SPDX-License-Identifier: MIT */
/*
 * The perf backend's private parts (tracer/perf*.c): a trace's session
 * (planned pieces, their events, one mmap ring per CPU) and what opening
 * events (perf_events.c) gives the tracing loop (perf.c).  Linux only.
 */
#ifndef HWBP_TRACER_PERF_INT_H
#define HWBP_TRACER_PERF_INT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backends/perf/bpf_abi.h"
#include "backends/perf/bpf.h"
#include "backends/perf/perf.h"
#include "backends/linux/linux.h"

#define DEFAULT_WAKEUP 64u

/* The session of one trace. */
struct piece {
	unsigned watch;
	uint64_t watches;       /* a debug register shared by several watches
				   (HWBP_REQ_SHARE): bit i for watch i, each
				   sample given to those its decoded access
				   touched; 0: @watch's alone */
	uint64_t addr, len;
	unsigned type;          /* hardware type (after widening) */
	unsigned tag;           /* the kind its hits are (HWBP_R, HWBP_W, HWBP_X: a piece of
				   one kind), 0: RW, not known */
	bool split;             /* a kind event of --kinds (its kind is the hardware's
				   answer), not a watch's own single-kind piece */
	int twin;               /* twin split: the W-only piece of this RW one (and
				   back), else -1 */
};

struct event {
	int fd;
	unsigned piece;
	uint64_t id;            /* PERF_EVENT_IOC_ID */
};

/* A sample's fields: the record's, in PERF_RECORD_SAMPLE order for our
 * sample_type, then those a values program's record gave it (V_VFLAGS 0:
 * none; tracer/backends/perf/bpf_abi.h). */
enum { V_ID, V_IP, V_TID, V_TIME, V_ADDR, V_CPU, V_NREC, V_VALUE = V_NREC, V_OLD, V_VFLAGS,
       V_VWATCH, V_SIG, V_DKIND, V_DADDR, V_DSIZE, V_N };
/* (V_SIG: a hash of the sample's trap-frame registers, s->iregs; 0: none.
 * V_DKIND, V_DADDR, V_DSIZE: the access decoded from them (s->dec), its
 * kind 0 when not decoded) */

struct ring {
	int fd;                 /* the event that owns the buffer, or -1 */
	void *base;
	size_t map_len;
	uint64_t off, size;     /* data area in the mapping */
	/* values (s->vbpf): this CPU's output event, and its last record,
	 * waiting for the hit's sample that comes next */
	int vfd;
	uint64_t vid;
	bool vrec_ok;
	struct hwbpi_bpf_rec vrec;
	/* twin split: a sample of an RW piece or its twin waiting for the
	 * other of the same access (the next sample of this CPU's ring) */
	bool pending;
	uint64_t pend[V_N];
	unsigned pend_n;        /* its callers (--stack) */
	uint64_t pend_callers[HWBPI_STACK_MAX];
	/* the previous sample of this ring, when it was a hit of a piece of
	 * a watch with several (s->iregs): a sample of another piece of the
	 * same watch right after it, from the same trap frame, is the same
	 * access (perf_sample.c, same_access()) */
	bool prev_ok;
	unsigned prev_piece;
	uint64_t prev_tid, prev_sig;
};

struct sess {
	struct hwbpi_tracer *t;
	struct hwbpi_perf_result *res;
	struct piece *pc;
	unsigned npc;
	struct event *ev;
	unsigned nev, cap;
	struct ring *ring;
	unsigned ncpus;
	size_t page;
	unsigned last;          /* the event of the previous sample (a cache) */
	void (*drain)(void *arg);   /* the tracer rings' consumer (opts.drain) */
	void *drain_arg;
	unsigned drain_every;   /* samples between two calls: half a tracer ring, <= 64 */
	bool kernel;            /* kernel scope: pid -1, per CPU, exclude_user */
	const bool *cpus;       /* kernel scope: CPUs to watch (NULL: online ones) */
	struct hwbpi_bpf *bpf;  /* count in BPF maps: no rings */
	struct hwbpi_bpf *vbpf; /* values (trace mode, kernel scope): a program in
				 * values mode on every event, the rings as usual */
	/* --stack (t->stack_depth > 0 while sampling): how the samples carry
	 * the callers, and the unwinder of dwarf mode */
	enum hwbpi_callgraph cg;   /* 0: no stacks */
	unsigned max_stack;        /* sample_max_stack asked (callchains) */
	struct hwbpi_dwunw *dw;    /* dwarf: the process's modules (NULL until known) */
	pid_t dw_pid;              /* dwarf: the process to report them from, once */
	bool dw_failed;            /* dwarf: that report failed (said once) */
	uint8_t *rec;              /* a whole sample, copied out of the ring */
	/* a watch has several pieces: every sample ends with its trap frame's
	 * registers (PERF_SAMPLE_REGS_INTR, hwbpi_linux_perf_iregs), this many */
	unsigned iregs;
	uint64_t ring_bytes;       /* each CPU ring's data area */
	unsigned wakeup;           /* samples per wakeup of the reader */
	/* o->decode: the hits' decoder (NULL: none), and the functions its
	 * code is read by */
	struct hwbpi_hit_dec *dec;
	const struct hwbp_symtab *syms;
	/* the sample being read: its trap frame's values (s->iregs of them,
	 * in the mask's order), when iv_ok */
	uint64_t iv[64];
	bool iv_ok;
};

/* ---- tracer/backends/perf/perf_events.c ---- */

/* One line in @err for a failed open of @what (paranoid level, EACCES,
 * ENOSPC with @held slots in use ...); returns the errno to report. */
int hwbpi_perf_say_open(int ret, const char *what, pid_t pid, unsigned held, char *err, size_t n);
/* The same for a kernel-scope open on @cpu. */
int hwbpi_perf_say_kernel(int ret, const char *what, unsigned cpu, unsigned held, char *err, size_t n);

/* Close every event and ring of @s and free its tables. */
void hwbpi_perf_sess_close(struct sess *s);
/* ---- tracer/backends/perf/perf_share.c ---- */

/* More watches than registers, each hit decoded (s->dec): every watch a
 * request that may share a slot (HWBP_REQ_SHARE), one piece per armed
 * slot (its watches in piece.watches).  Returns 0 with s->pc, -ENOSPC
 * (even sharing does not fit, or a watch that cannot share: bound to a
 * CPU, execute; a piece Linux cannot program), -ENOMEM. */
int hwbpi_perf_plan_shared(struct sess *s, const struct hwbp_cpu *cpu, enum hwbp_scope scope);
/* Whether every watch of @t fits one thread's slots when they share. */
bool hwbpi_perf_share_fits(const struct hwbpi_tracer *t, const struct hwbp_cpu *cpu,
			   enum hwbp_scope scope);

/* Plan every watch of s->t for @cpu into pieces the kernel can take.
 * Errors (@err: one line naming the watch): the planner's, -EOPNOTSUPP
 * (a piece Linux refuses: hwbpi_linux_piece_ok), -ENOMEM. */
int hwbpi_perf_plan_all(struct sess *s, const struct hwbp_cpu *cpu, const struct hwbpi_perf_opts *o,
		      char *err, size_t n);
/* --stack: s->cg and what the samples need (the kernel's frame limit,
 * the record buffer, the DWARF modules of @pid unless @lazy: a held child
 * reports them at its first sample, and if that fails its samples have
 * no stacks, res->stack_why says why).
 * Errors (@err): -ENOMEM, those of hwbpi_callgraph_parse() and
 * hwbpi_dwunw_new(). */
int hwbpi_perf_stacks_setup(struct sess *s, pid_t pid, bool lazy, const struct hwbpi_perf_opts *o,
			  char *err, size_t n);
/* Open an event per piece for @pid (every thread of it with
 * @all_threads), per CPU when sampling with the CPU's ring attached.
 * Errors (@err: one line): those of perf_event_open and mmap, -ESRCH,
 * -ENOMEM. */
int hwbpi_perf_open_all(struct sess *s, pid_t pid, bool all_threads, bool enable_on_exec,
		      const struct hwbpi_perf_opts *o, char *err, size_t n);

/* ---- tracer/backends/perf/perf_sample.c ---- */

/* Split the RW pieces of s->pc into kind events where the arch can
 * (hwbpi_linux_kind_split) and @caps leaves slots, as @o->kinds says;
 * res->split/unsplit/kinds_* say what happened.
 * Errors (@err): -ENOSPC (kinds exact and a watch cannot be split),
 * -ENOMEM. */
int hwbpi_perf_split_kinds(struct sess *s, const struct hwbp_caps *caps,
			 const struct hwbpi_perf_opts *o, char *err, size_t n);
/* A sample of piece @p (record @v[V_N]: identifier, ip, pid/tid, time,
 * addr, cpu, then its values; @n @callers with --stack) from ring @r: the twin pairing, then
 * hwbpi_tracer_hit() (hwbpi_tracer_hit_frames() with --stack). */
void hwbpi_perf_kind_sample(struct sess *s, struct ring *r, const uint64_t *v,
			  const uint64_t *callers, unsigned n);
/* --stack: the callers of the sample @body (@len bytes after its header;
 * the fields of fill_attr()'s sample_type), at most t->stack_depth into
 * @callers; returns how many (0: none found). */
unsigned hwbpi_perf_sample_callers(struct sess *s, const uint8_t *body, size_t len,
				 uint64_t *callers);
/* The end of a ring's samples: a sample still waiting is fed alone. */
void hwbpi_perf_kind_flush(struct sess *s, struct ring *r);

/* ---- tracer/backends/linux/child.c ---- */

/* ---- backend.c, counted.c ---- */

/* perf's kernel ring per CPU for --buffer-kb @bytes: data pages, a power
 * of two, the most that fit (0: the default). */
unsigned hwbpi_perf_ring_pages(size_t bytes);

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
int hwbpi_perf_counted(struct hwbpi_view *s, bool kernel, void *state, pid_t pid,
			bool started, bool want_bpf, struct hwbpi_perf_result *res);

#endif /* HWBP_TRACER_PERF_INT_H */
