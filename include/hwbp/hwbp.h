/* SPDX-License-Identifier: MIT */
/*
 * hwbp — portable hardware breakpoints and watchpoints.
 *
 * The core API: CPU models and their capabilities, requests with numeric
 * lengths and generic types, a planner that splits any region into what the
 * hardware supports, slot accounting per CPU and per task, encoders to raw
 * debug registers and decoders from the status the CPU reports.
 *
 * Every function returns 0 (or a non-negative count) on success and a
 * negative errno on failure.  A failed call changes no state.  The errno
 * values are the C library's (Linux numbers in a freestanding or kernel
 * build); design.md explains what each means, ERANGE (never fits
 * this CPU) against ENOSPC (does not fit what is free now) above all.
 *
 * Context and locking.  The core allocates nothing, takes no lock, makes
 * no system call and uses no floating point, so every function may run in
 * any context a caller's own code may run in (kernel code included:
 * design.md, "The freestanding core").  What the caller must provide:
 *
 *  - Pure functions (CPU models, capabilities, hwbp_request_check,
 *    hwbp_plan, hwbp_regs_*, hwbp_encode_piece, hwbp_decode_slot,
 *    hwbp_decode_status, names, hwbp_slot_name, hwbp_status_*): they
 *    touch only their arguments; any number may run at once, in any
 *    context, exception handlers included.
 *
 *  - Calls that change a context (hwbp_ctx_init, hwbp_task_init,
 *    hwbp_task_fini, hwbp_install, hwbp_modify, hwbp_remove): one at a
 *    time per context, under the caller's lock.  They also use scratch
 *    space inside struct hwbp_ctx (so that no slot set or plan is copied
 *    onto the stack), which is one more reason two of them must never
 *    run at once on one context.  They call the glue (on_cpu, write_regs)
 *    and may therefore sleep if the glue does; they never run from an
 *    exception handler.
 *
 *  - Read-only queries (hwbp_plan_of, hwbp_free_slots, hwbp_task_regs):
 *    they read the slot sets and request records a change rewrites, so
 *    the same rule as for hwbp_decode below applies (hwbp_task_regs runs
 *    at context switch, like decode outside the caller's lock).
 *
 *  - hwbp_decode: may run in an exception handler (no allocation, no
 *    lock, bounded time); at most one call per CPU number at a time (with
 *    a task it builds that CPU's registers in percpu[cpu].live), any
 *    number for different CPUs at once.  It writes nothing else.
 *
 *    Against a change of the same context, what the library does is: first
 *    compute each affected CPU's new registers in the ctx's scratch and
 *    write them through glue.on_cpu (nothing decode reads is written in
 *    this phase), then, once every write succeeded, commit: rewrite those
 *    CPUs' slot sets (or the task's) and the request record in place,
 *    with plain stores and no ordering.  Hence:
 *      . decode overlapping the commit may read a half-written slot set
 *        or record: not safe, the caller must exclude it;
 *      . a hit raised by the new registers before the commit is decoded
 *        against the old accounting: -ENOENT, or the old request ids.
 *    A kernel must not exclude them with a lock the exception path spins
 *    on (on_cpu waits for the CPU that spins: deadlock).  What works: a
 *    sequence count the changing side makes odd before the call and even
 *    after it; the handler reads it, decodes, reads it again and, if it
 *    was odd or moved, treats the hit as unattributed (it retries nothing
 *    in the handler).  Changes on one context never overlap each other
 *    (rule above), and decodes never change the accounting.
 *
 *  Memory: struct hwbp_ctx and struct hwbp_slots are complete types, so
 *  a caller can place them statically or allocate them (HWBP_CTX_SIZE is
 *  sizeof(struct hwbp_ctx): about 48 KiB on LP64, most of it the
 *  HWBP_MAX_REQUESTS request records; a slot set is about 3 KiB per CPU).
 *  Too big for a kernel stack: allocate them, once, at setup.
 *  hwbp_ctx_size(ncpus) is the size of one allocation holding a context
 *  and its per-CPU array (hwbp_ctx_percpu() finds the array).
 *
 * (design.md and scenarios.md are installed with hwbp in share/doc/hwbp/.)
 */
#ifndef HWBP_HWBP_H
#define HWBP_HWBP_H

#ifdef __KERNEL__
#include <linux/limits.h>  /* a Linux module: U64_MAX... */
#include <linux/types.h>   /* bool, size_t, uint64_t... */
/* The <stdint.h> macros hwbp's headers and core use, from the kernel's. */
#ifndef UINT32_MAX
#define UINT32_MAX U32_MAX
#endif
#ifndef UINT64_MAX
#define UINT64_MAX U64_MAX
#endif
#ifndef UINT64_C
#define UINT64_C(c) c##ULL
#endif
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#define HWBP_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define HWBP_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* ------------------------------------------------------------------ */
/* Version.                                                            */
/* ------------------------------------------------------------------ */
/* The version of these headers; hwbp_version() is the library's. */
#define HWBP_VERSION_MAJOR 0
#define HWBP_VERSION_MINOR 2
#define HWBP_VERSION_PATCH 0
#define HWBP_VERSION_STRING "0.2.0"
/* One number that grows with every release: 0x000200 for 0.2.0. */
#define HWBP_VERSION ((HWBP_VERSION_MAJOR << 16) | (HWBP_VERSION_MINOR << 8) | HWBP_VERSION_PATCH)

/*
 * hwbp_version - the version of the library actually linked ("0.2.0"),
 * which may differ from HWBP_VERSION_STRING of the headers a program was
 * built with.  No errors.  Context: any.
 */
const char *hwbp_version(void);

/* ------------------------------------------------------------------ */
/* Generic access types (flags).                                       */
/* ------------------------------------------------------------------ */
#define HWBP_R 0x1u   /* data read */
#define HWBP_W 0x2u   /* data write */
#define HWBP_RW 0x3u  /* data read or write */
#define HWBP_X 0x4u   /* instruction execution */
#define HWBP_TYPE_MASK 0x7u

/* Request flags. */
#define HWBP_REQ_WIDEN 0x1u  /* allow widening a type the CPU lacks (x86 R -> RW) */
#define HWBP_REQ_LOCAL 0x2u  /* x86: use the local (Ln) enable bit instead of Gn */
#define HWBP_REQ_EXACT 0x4u  /* never enlarge: fail with -ENOSPC instead */
/*
 * HWBP_REQ_SHARE: the request may share one hardware piece with other
 * SHARE requests of the same scope (and x86 enable bit) whose bytes the
 * same slot can watch: x86 one aligned 8-byte region, arm64 one
 * doubleword's BAS bytes or one MASK range, powerpc one DAWR range (a
 * shared piece is at most a doubleword, or twice the bytes of the pieces
 * it holds).  The slot's piece is the smallest one covering them, its type
 * the union of theirs; it shrinks back when one is removed.  A request
 * that does not fit the free slots fits when its pieces can join shared
 * ones (the planner prefers sharing over -ENOSPC).
 * The price: a hit on a shared slot is attributed by the access's
 * address, so the caller passes it to hwbp_decode() (struct hwbp_access,
 * addr and size: from the instruction that trapped on x86, where DR6 only
 * names the slot) or the CPU reports it (arm64 FAR, powerpc DAR: a request
 * holding the reported byte is the one hit).  Without it, a hit goes to
 * every request of the slot whose type matches.  Data requests only
 * (an execute request with the flag shares identical pieces, as any).
 */
#define HWBP_REQ_SHARE 0x8u
#define HWBP_REQ_FLAGS_MASK 0xfu

/* Limits of the fixed-size (allocation-free) structures. */
#define HWBP_MAX_SLOTS 16     /* per pool (arm64 has up to 16 of each) */
#define HWBP_MAX_PIECES 16    /* pieces in one plan */
#define HWBP_MAX_REQUESTS 64  /* live requests in one context */

/* The bit masks these limits index (struct hwbp_hit, struct hwbp_slot). */
HWBP_STATIC_ASSERT(HWBP_MAX_SLOTS <= 32, "hwbp_hit.data_slots/inst_slots are uint32_t masks");
HWBP_STATIC_ASSERT(HWBP_MAX_REQUESTS <= 64,
		   "hwbp_hit.requests and hwbp_slot.requests are uint64_t masks of request ids");
HWBP_STATIC_ASSERT(HWBP_MAX_PIECES <= HWBP_MAX_SLOTS, "every piece of a plan takes at least one slot");
HWBP_STATIC_ASSERT(HWBP_MAX_SLOTS >= 16, "arm64 has up to 16 breakpoints and watchpoints");
HWBP_STATIC_ASSERT(HWBP_TYPE_MASK < 32, "hwbp_caps.types has bit (1 << type) per type");

enum hwbp_arch {
	HWBP_ARCH_X86 = 0,
	HWBP_ARCH_ARM64 = 1,
	HWBP_ARCH_POWERPC = 2,
	HWBP_ARCH_RISCV = 3,
};

enum hwbp_scope {
	HWBP_SCOPE_BOTH = 0,
	HWBP_SCOPE_USER = 1,
	HWBP_SCOPE_KERNEL = 2,
};

/* powerpc debug units present (struct hwbp_cpu.u.ppc.units). */
#define HWBP_PPC_DABR 0x1u
#define HWBP_PPC_DAWR0 0x2u
#define HWBP_PPC_DAWR1 0x4u
#define HWBP_PPC_CIABR 0x8u

/* ------------------------------------------------------------------ */
/* CPU models.                                                         */
/* ------------------------------------------------------------------ */
/*
 * A CPU model: the architecture plus the facts that change behaviour.
 * Build one with hwbp_cpu_preset(), hwbp_cpu_arm64_from_dfr0() or
 * hwbp_cpu_riscv_from_tinfo().
 */
struct hwbp_cpu {
	enum hwbp_arch arch;
	char name[32];
	union {
		struct {
			bool mode64;         /* long mode: LEN=10 (8 bytes) valid */
			bool amd_addr_mask;  /* AMD breakpoint address-mask extension */
			bool la57;           /* 5-level paging (CR4.LA57): 57-bit
					      * canonical addresses, the kernel's
					      * half from 0xff00000000000000 */
		} x86;
		struct {
			uint64_t dfr0;       /* ID_AA64DFR0_EL1 */
		} arm64;
		struct {
			unsigned isa;        /* 206, 207, 300, 310 (ISA 2.06 ... 3.1) */
			unsigned units;      /* HWBP_PPC_* */
		} ppc;
		struct {
			uint8_t ntrig;       /* triggers (tselect values that exist) */
			uint8_t spec;        /* Debug spec: 13 (0.13), 10 (1.0, Sdtrig) */
			uint16_t tinfo;      /* trigger types every trigger supports,
					      * as tinfo.info reports them (bit t:
					      * type t; 2 mcontrol, 6 mcontrol6) */
			uint32_t features;   /* HWBP_RISCV_F_* (<hwbp/riscv.h>) */
		} riscv;
	} u;
};

/*
 * hwbp_cpu_preset - fill @out with the named CPU model.
 * Errors: -EINVAL (@name or @out NULL), -ENOENT (no such preset).
 * Context: any (pure, as every function up to "Slot accounting").
 */
int hwbp_cpu_preset(const char *name, struct hwbp_cpu *out);

/* hwbp_cpu_preset_name - the i-th preset name, or NULL past the last.
 * No errors.  Context: any. */
const char *hwbp_cpu_preset_name(unsigned i);

/*
 * hwbp_cpu_arm64_from_dfr0 - an arm64 CPU from a raw ID_AA64DFR0_EL1.
 * Errors: -EINVAL (@out NULL, or DebugVer field below Armv8 debug (6)),
 *         -EOPNOTSUPP (more than HWBP_MAX_SLOTS watchpoints/breakpoints,
 *         which the 4-bit fields cannot encode anyway).
 * Context: any.
 */
int hwbp_cpu_arm64_from_dfr0(uint64_t dfr0, struct hwbp_cpu *out);

/*
 * hwbp_cpu_riscv_from_tinfo - a RISC-V (RV64, Sdtrig) CPU from what an
 * M-mode kernel probes: @ntrig triggers (tselect values that read back),
 * @tinfo of trigger 0 (all triggers are assumed alike), and two tdata1
 * values read back after writing one of the type chosen (6 if tinfo lists
 * it, else 2) with load, store, execute, m, s, u, chain, select and the
 * largest size set: @probe_napot with match = 1 (NAPOT), @probe_ge with
 * match = 2 (>=).  WARL fields keep what the trigger implements: the
 * features are what stuck (<hwbp/riscv.h>, HWBP_RISCV_F_*; GE/LT needs
 * match 2 to stick and chain; mcontrol's maskmax bounds NAPOT); hit bits
 * cannot be probed (not set), mtval is assumed to carry the address
 * (0 read as unknown).
 * Errors: -EINVAL (@out NULL, @ntrig 0, tinfo 1 (no trigger) or without
 *         type 2 or 6, a probe of another type), -EOPNOTSUPP (@ntrig over
 *         HWBP_MAX_SLOTS, or no m bit: triggers not usable from M-mode).
 * Context: any.
 */
int hwbp_cpu_riscv_from_tinfo(unsigned ntrig, uint64_t tinfo, uint64_t probe_napot,
			      uint64_t probe_ge, struct hwbp_cpu *out);

/* ------------------------------------------------------------------ */
/* Capabilities.                                                       */
/* ------------------------------------------------------------------ */
enum hwbp_timing {
	HWBP_TIMING_BEFORE = 0,  /* exception before the access (memory unchanged) */
	HWBP_TIMING_AFTER = 1,   /* trap after the access (memory written) */
};

enum hwbp_precision {
	HWBP_ADDR_NONE = 0,    /* status names the slot, not the address (x86 DR6) */
	HWBP_ADDR_WINDOW = 1,  /* an address within a window (arm64 FAR) */
	HWBP_ADDR_EXACT = 2,   /* the access's effective address (ppc DAR) */
};

enum hwbp_align {
	HWBP_ALIGN_NATURAL = 0,    /* piece lengths 1,2,4(,8), address aligned to length */
	HWBP_ALIGN_BAS = 1,        /* any contiguous bytes inside a doubleword, or
				      a naturally aligned 2^n block (MASK) */
	HWBP_ALIGN_DWORD = 2,      /* doubleword-granular ranges */
};

struct hwbp_caps {
	enum hwbp_arch arch;
	unsigned data_slots;      /* watchpoints (x86: the shared pool) */
	unsigned inst_slots;      /* breakpoints (x86: the shared pool) */
	bool shared;              /* inst and data use one pool of data_slots */
	unsigned types;           /* bit (1 << t) set when type t is native */
	enum hwbp_align align;
	uint64_t min_piece;       /* smallest data piece in bytes */
	uint64_t max_piece;       /* largest single data piece in bytes */
	uint64_t granule;         /* matching granule (ppc: 8 bytes) */
	uint64_t boundary;        /* a piece may not cross this (0: none) */
	uint64_t inst_len;        /* bytes one instruction breakpoint covers */
	uint64_t inst_align;      /* required instruction address alignment */
	enum hwbp_timing data_timing;
	enum hwbp_timing inst_timing;
	enum hwbp_precision precision;
	bool kind_known;          /* status tells read from write */
	bool priv_filter;         /* hardware filters by privilege */
	uint64_t user_max;        /* highest user address */
	uint64_t kernel_min;      /* lowest kernel address */
	uint64_t addr_max;        /* highest address of the address space */
	bool io_ports;            /* port I/O can be watched (x86 DR7 R/W=10, CR4.DE) */
	uint64_t zero_block;      /* bytes one cache-block zeroing instruction writes
				     (arm64 DC ZVA, powerpc dcbz) as modelled; 0: none */
};

/*
 * hwbp_caps_get - the capability table of @cpu.
 * Errors: -EINVAL (NULL argument or unknown arch).  Context: any.
 */
int hwbp_caps_get(const struct hwbp_cpu *cpu, struct hwbp_caps *out);

/* hwbp_type_supported - true when @type is native on @cpu (false for a
 * NULL or unknown CPU and an invalid type).  No errors.  Context: any. */
bool hwbp_type_supported(const struct hwbp_cpu *cpu, unsigned type);

/* ------------------------------------------------------------------ */
/* Requests and plans.                                                 */
/* ------------------------------------------------------------------ */
struct hwbp_request {
	uint64_t addr;
	uint64_t len;             /* bytes, >= 1 */
	unsigned type;            /* HWBP_R, HWBP_W, HWBP_RW or HWBP_X */
	enum hwbp_scope scope;
	unsigned flags;           /* HWBP_REQ_* */
};

/* One hardware piece: what one slot watches. */
struct hwbp_piece {
	uint64_t addr;            /* first byte the hardware watches */
	uint64_t len;             /* bytes the hardware watches */
	uint64_t cover_lo;        /* first request byte this piece covers */
	uint64_t cover_len;       /* request bytes this piece covers */
	unsigned type;            /* hardware type (after widening) */
};

struct hwbp_plan {
	struct hwbp_request req;  /* the request as validated */
	unsigned type;            /* hardware type of every piece */
	bool widened;             /* type widened (x86 R -> RW) */
	bool inst;                /* pieces use instruction slots */
	bool exact;               /* pieces watch exactly the request */
	bool enlarged;            /* enlarged to fit the free slots */
	uint64_t extra_bytes;     /* bytes watched beyond the request */
	unsigned n;
	struct hwbp_piece piece[HWBP_MAX_PIECES];
};

/*
 * hwbp_request_check - validate @req for @cpu without planning.
 * Errors: -EINVAL (len 0, unknown type or flag bits, bad scope, execute
 *         request that breaks the arch's rule), -ERANGE (addr + len
 *         overflows the address space), -EFAULT (range outside the scope's
 *         address space, or non-canonical), -EOPNOTSUPP (type the CPU lacks
 *         and widening not allowed).  Context: any.
 */
int hwbp_request_check(const struct hwbp_cpu *cpu, const struct hwbp_request *req);

/*
 * hwbp_plan - split @req into hardware pieces using at most @free_slots
 * slots of the pool it needs (0 means the CPU's whole pool).  Exact pieces
 * when they fit; otherwise the smallest power-of-two enlargement that fits
 * (unless HWBP_REQ_EXACT).
 * Errors: those of hwbp_request_check(), -ENOSPC (no plan fits
 *         @free_slots), -ERANGE (no plan fits even the whole pool).
 *         On error *out is unchanged.  Context: any; bounded time (at
 *         most 64 x 64 trial tilings), no allocation.
 */
int hwbp_plan(const struct hwbp_cpu *cpu, const struct hwbp_request *req,
	      unsigned free_slots, struct hwbp_plan *out);

/*
 * hwbp_plan_slots - the slots @plan takes on @cpu: one per piece, except
 * where one piece needs several triggers together (RISC-V: a range as a
 * chained pair of triggers, two consecutive slots).  Returns the number
 * of slots.
 * Errors: -EINVAL (NULL, unknown arch, plan->n over HWBP_MAX_PIECES).
 * Context: any.
 */
int hwbp_plan_slots(const struct hwbp_cpu *cpu, const struct hwbp_plan *plan);

/* ------------------------------------------------------------------ */
/* Registers, status, hits.                                            */
/* ------------------------------------------------------------------ */
struct hwbp_regs {
	enum hwbp_arch arch;
	union {
		struct {
			uint64_t dr[4];
			uint64_t dr6;
			uint64_t dr7;
			uint64_t addr_mask[4]; /* AMD DRn_ADDR_MASK MSRs (0: unused) */
		} x86;
		struct {
			uint64_t bvr[HWBP_MAX_SLOTS];
			uint64_t bcr[HWBP_MAX_SLOTS];
			uint64_t wvr[HWBP_MAX_SLOTS];
			uint64_t wcr[HWBP_MAX_SLOTS];
			uint64_t mdscr;
		} arm64;
		struct {
			uint64_t dabr, dabrx;
			uint64_t dawr[2], dawrx[2];
			uint64_t ciabr;
		} ppc;
		struct {
			/* trigger n's tdata1-3, as `tselect = n` shows them */
			uint64_t tdata1[HWBP_MAX_SLOTS];
			uint64_t tdata2[HWBP_MAX_SLOTS];
			uint64_t tdata3[HWBP_MAX_SLOTS];
		} riscv;
	} u;
};

/* What the exception handler read. */
struct hwbp_status {
	uint64_t ip;              /* faulting/trapping instruction (0: unknown) */
	union {
		struct { uint64_t dr6; } x86;
		struct { uint64_t esr, far; } arm64;
		struct {
			uint64_t vector;  /* 0x300 DSI, 0xd00 trace (CIABR) */
			uint64_t dsisr, dar;
			uint64_t srr1;    /* trace: SRR1[43] (0x00100000) flags a
					     CIABR match; 0 when not read */
		} ppc;
		struct {
			uint64_t cause;   /* mcause/scause: 3 (breakpoint) */
			uint64_t tval;    /* mtval/stval: the address that matched
					     (0 when the core writes none) */
			uint64_t hits;    /* bit n: trigger n's tdata1 had its hit
					     bit(s) set (the handler reads and
					     clears them, as DR6 on x86); 0 when
					     the core has none or they were not
					     read */
		} riscv;
	} u;
};

/* What the caller knows of the access (optional; enables filtering). */
struct hwbp_access {
	uint64_t addr;
	uint64_t size;
	unsigned kind;            /* HWBP_R, HWBP_W, HWBP_X or 0 (unknown) */
	int priv;                 /* 0 kernel, 1 user, -1 unknown */
};

struct hwbp_hit {
	uint32_t data_slots;      /* bit i: data/shared slot i reported */
	uint32_t inst_slots;      /* bit i: instruction slot i reported */
	uint64_t requests;        /* bit id: request id hit (after filtering) */
	unsigned kind;            /* HWBP_R/W/X, or 0 when unknown */
	uint64_t addr;            /* reported address (see addr_known) */
	bool addr_known;
	uint64_t ip;
	bool filtered;            /* all reported slots matched only extra bytes */
};

/*
 * hwbp_regs_reset - registers as at reset / with nothing armed
 * (x86 DR6=0xFFFF0FF0, DR7=0x400; others 0).
 * Errors: -EINVAL (NULL, unknown arch).  Context: any.
 */
int hwbp_regs_reset(const struct hwbp_cpu *cpu, struct hwbp_regs *regs);

/*
 * hwbp_encode_piece - program @slot of the pool the plan needs with one piece.
 * @local selects x86's Ln bit (else Gn).  Other slots are untouched.
 * Errors: -EINVAL (NULL, @regs of another arch, bad slot, piece the
 *         hardware cannot hold, scope the arch cannot express).
 *         Context: any.
 */
int hwbp_encode_piece(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		      unsigned slot, bool inst, const struct hwbp_piece *piece,
		      enum hwbp_scope scope, bool local);

/*
 * hwbp_decode_slot - read back what @slot is programmed to watch.
 * Returns 1 when enabled (and fills @piece/@scope), 0 when disabled.
 * Errors: -EINVAL (NULL, @regs of another arch, bad slot, or a register
 *         value the hardware would treat as reserved/unpredictable).
 *         Context: any.
 */
int hwbp_decode_slot(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
		     unsigned slot, bool inst, struct hwbp_piece *piece,
		     enum hwbp_scope *scope);

/*
 * hwbp_decode_status - which slots @st reports (raw, without requests).
 * On arm64 and ppc the slot is found by matching the reported address
 * against the armed registers, as the architecture gives no slot number.
 * Errors: -EINVAL (NULL, or a status that is not a debug event: DR6 with no
 *         B bit, ESR class not a watchpoint/breakpoint, ppc vector not DSI
 *         with the DABR-match bit or trace), -ENOENT (a debug event that
 *         matches no armed slot).  Context: any, exception handlers
 *         included (reads only its arguments, allocates nothing).
 */
int hwbp_decode_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
		       const struct hwbp_status *st, struct hwbp_hit *hit);

/*
 * Names for printing (static strings):
 *
 * hwbp_type_name - "R", "W", "RW", "X", "none", ... ("invalid" past 7).
 *   No errors.  Context: any.
 *
 * hwbp_type_parse - "r"/"R", "w"/"W", "rw"/"RW", "x"/"X" into *type.
 *   Errors: -EINVAL (NULL, anything else).  Context: any.
 *
 * hwbp_errno_name - "EINVAL", "EACCES" ... (sign ignored, "OK" for 0):
 *   every errno of the platform's <errno.h> on Linux, hosted or in a
 *   kernel; in a freestanding build only those the core returns;
 *   "EUNKNOWN" for a value with no name.  No errors.  Context: any.
 *
 * hwbp_arch_name - "x86", "arm64", "powerpc", "riscv" ("unknown").
 *   No errors.  Context: any.
 */
const char *hwbp_type_name(unsigned type);
int hwbp_type_parse(const char *s, unsigned *type);

/*
 * hwbp_parse_u64 - the one number syntax of hwbp's inputs (command lines,
 *   filter entries, option values), into *@out: decimal digits, or 0x/0X
 *   and hex digits; the whole string, no sign, no blank, no octal (a
 *   leading 0 is still decimal).
 *   Errors: -EINVAL (NULL, empty, or not a number), -ERANGE (over
 *   2^64 - 1).  Context: any (pure).
 *
 * hwbp_parse_u64n - the same for the @len bytes at @s (a word inside a
 *   line; no NUL needed).  Errors: as hwbp_parse_u64().  Context: any
 *   (pure).
 */
int hwbp_parse_u64(const char *s, uint64_t *out);
int hwbp_parse_u64n(const char *s, size_t len, uint64_t *out);
const char *hwbp_errno_name(int err);
const char *hwbp_arch_name(enum hwbp_arch arch);

/*
 * hwbp_slot_name - the name of @slot of the pool @inst selects, for
 * printing: "dr0".."dr3" (x86: one pool, the same names for execute),
 * "wp0".. and "bp0".. (arm64), "dabr" / "dawr0", "dawr1" / "ciabr"
 * (powerpc).  Writes a NUL-terminated name into @buf.
 * Errors: -EINVAL (NULL, @n too small for the name, @slot >= the pool's
 *         count); @buf then holds "" (when @n >= 1).  Context: any.
 */
int hwbp_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf, size_t n);

/*
 * hwbp_regs_list - name/value pairs of the registers of @cpu's arch that
 * matter (for printing).  Returns the count written (at most @max).
 * Errors: -EINVAL (NULL, @max < 0, @regs of another arch).  Context: any.
 */
struct hwbp_reg_nv {
	char name[12];
	uint64_t value;
};
int hwbp_regs_list(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
		   struct hwbp_reg_nv *out, int max);

/*
 * hwbp_regs_set - write one register by name ("dr7", "dbgwcr0", "dawrx1").
 * Errors: -EINVAL (NULL, @regs of another arch), -ENOENT (no such
 *         register on this CPU).  Context: any.
 */
int hwbp_regs_set(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		  const char *name, uint64_t value);

/*
 * hwbp_regs_apply - what a kernel's glue writing @written does to @live,
 * the registers a CPU holds: address and control registers are copied,
 * status registers kept (x86 DR6), enable bits OR-ed in (arm64 MDSCR
 * MDE/KDE: the glue turns debug exceptions on, never off).  For
 * simulators, which model the glue's write.
 * Errors: -EINVAL (NULL, @live or @written of another arch than @cpu).
 * Context: any.
 */
int hwbp_regs_apply(const struct hwbp_cpu *cpu, struct hwbp_regs *live,
		    const struct hwbp_regs *written);

/*
 * hwbp_status_set - set the field @name of @st to @value: "ip" on every
 * arch; x86 "dr6"; arm64 "esr", "far"; powerpc "vector", "dsisr", "dar",
 * "srr1"; riscv "cause", "tval", "hits".  Returns 1 when the field
 * identifies the event (dr6, esr, vector, cause; on powerpc also dsisr and
 * dar, which set vector to 0x300 (DSI) while vector is 0), 0 for an
 * auxiliary field (ip, far, srr1, tval, hits).
 * Errors: -EINVAL (NULL), -ENOENT (no such field on this arch).
 * Context: any.
 */
int hwbp_status_set(const struct hwbp_cpu *cpu, struct hwbp_status *st, const char *name,
		    uint64_t value);

/* hwbp_status_field - the i-th status field name of @cpu's arch ("dr6";
 * "esr", "far"; ...), NULL past the last or for a NULL/unknown CPU ("ip",
 * common to all, is not listed).  No errors.  Context: any. */
const char *hwbp_status_field(const struct hwbp_cpu *cpu, unsigned i);

/* hwbp_status_hint - which field(s) a status needs, for messages: "dr6",
 * "esr (and far)", "dsisr and dar" ("" for a NULL/unknown CPU).
 * No errors.  Context: any. */
const char *hwbp_status_hint(const struct hwbp_cpu *cpu);

/* ------------------------------------------------------------------ */
/* Slot accounting, installation, hit dispatch.                        */
/* ------------------------------------------------------------------ */

/*
 * The services a host kernel gives hwbp (design.md, "The glue"):
 * on_cpu runs @fn(@fnarg) on @cpu and returns its result (an IPI, or a
 * direct call when already there); write_regs, called by @fn on that CPU,
 * writes this CPU's debug registers from @regs.  Both may fail with a
 * negative errno, which the changing call returns after restoring every
 * CPU's registers.  They run under the caller's lock of the context.
 */
struct hwbp_glue {
	int (*write_regs)(void *arg, unsigned cpu, const struct hwbp_regs *regs);
	int (*on_cpu)(void *arg, unsigned cpu, int (*fn)(void *), void *fnarg);
	void *arg;
};

/*
 * Everything below keeps state in a context: see "Context and locking"
 * at the top of this file for what may run concurrently.
 */

/* One slot of a pool. */
struct hwbp_slot {
	unsigned refs;            /* requests using this piece (0: free) */
	struct hwbp_piece piece;  /* the piece armed: one request's, or with
				     HWBP_REQ_SHARE the smallest covering
				     those of every request in @requests */
	enum hwbp_scope scope;
	bool local;
	uint64_t requests;        /* bit id: request ids using it */
};

/* A slot set: one CPU's or one task's slots. */
struct hwbp_slots {
	struct hwbp_slot data[HWBP_MAX_SLOTS];
	struct hwbp_slot inst[HWBP_MAX_SLOTS];
	struct hwbp_regs regs;    /* what the set encodes to */
	struct hwbp_regs live;    /* per-CPU scratch of hwbp_decode() with a task */
};

struct hwbp_ctx;

/* A task: slots that follow a thread from CPU to CPU. */
struct hwbp_task {
	struct hwbp_slots slots;
	struct hwbp_task *next;   /* ctx's list of tasks (internal) */
	struct hwbp_ctx *ctx;
};

/* CPU sentinels for hwbp_install() and hwbp_free_slots() (and hwbp_reqrec.cpu). */
#define HWBP_CPU_ALL (-1)         /* every CPU */
#define HWBP_CPU_TASK (-2)        /* in hwbp_reqrec.cpu: a task's request */

struct hwbp_reqrec {
	bool live;
	int cpu;                  /* a CPU, HWBP_CPU_ALL or HWBP_CPU_TASK */
	struct hwbp_task *task;
	struct hwbp_plan plan;
};

struct hwbp_ctx {
	struct hwbp_cpu cpu;
	struct hwbp_caps caps;
	unsigned ncpus;
	struct hwbp_slots *percpu;    /* caller's array of ncpus */
	const struct hwbp_glue *glue; /* may be NULL (pure accounting) */
	struct hwbp_task *tasks;
	struct hwbp_reqrec req[HWBP_MAX_REQUESTS];
	/* Scratch of hwbp_install/modify/remove, kept here so that no slot
	 * set or plan is copied onto the stack (see "Concurrency" below). */
	struct hwbp_slots scratch_set;
	struct hwbp_plan scratch_plan;
};

/* The bytes of a context: it is a complete type, so sizeof works too. */
#define HWBP_CTX_SIZE sizeof(struct hwbp_ctx)

/*
 * hwbp_ctx_size - the bytes of one allocation that holds a context and,
 * right after it, its per-CPU array of @ncpus slot sets
 * (hwbp_ctx_percpu() finds the array).  A kernel may as well place both
 * statically, or allocate the per-CPU array per CPU.
 * No errors.  Context: any (arithmetic on @ncpus alone).
 */
static inline size_t hwbp_ctx_size(unsigned ncpus)
{
	return sizeof(struct hwbp_ctx) + (size_t)ncpus * sizeof(struct hwbp_slots);
}

/* hwbp_ctx_percpu - the per-CPU array of an allocation of hwbp_ctx_size():
 * the address right after @ctx (nothing is read).  No errors.
 * Context: any. */
static inline struct hwbp_slots *hwbp_ctx_percpu(struct hwbp_ctx *ctx)
{
	return (struct hwbp_slots *)(void *)(ctx + 1);
}

/*
 * hwbp_ctx_init - set up a context over the caller's per-CPU array (no
 * allocation).  @glue may be NULL (pure accounting: nothing is written).
 * Errors: -EINVAL (NULL, ncpus 0, unknown arch, glue without both
 *         functions).  Context: the caller's lock of @ctx (nothing else
 *         may use @ctx or @percpu yet); does not call the glue.
 */
int hwbp_ctx_init(struct hwbp_ctx *ctx, const struct hwbp_cpu *cpu,
		  unsigned ncpus, struct hwbp_slots *percpu,
		  const struct hwbp_glue *glue);

/*
 * hwbp_task_init - register a task with the context.
 * Errors: -EINVAL (NULL), -EBUSY (already registered).
 * Context: the caller's lock of @ctx (a change of the context).
 */
int hwbp_task_init(struct hwbp_ctx *ctx, struct hwbp_task *task);

/*
 * hwbp_task_fini - unregister a task that holds no request.
 * Errors: -EINVAL (NULL or not registered), -EBUSY (requests still installed).
 * Context: the caller's lock of @ctx (a change of the context).
 */
int hwbp_task_fini(struct hwbp_ctx *ctx, struct hwbp_task *task);

/*
 * hwbp_install - plan @req and install it all-or-nothing: on CPU @cpu,
 * on every CPU (@cpu == HWBP_CPU_ALL), or in @task (non-NULL, @cpu ignored).
 * Identical pieces already installed in the same set are shared, and with
 * HWBP_REQ_SHARE, pieces one slot can hold together (see the flag).  A task's
 * slots count against every CPU (it may run anywhere), as in Linux.
 * On success stores the request id in @id.
 * Errors: those of hwbp_plan(), -EINVAL (bad cpu, NULL), -ENOSPC (not
 *         enough free slots, even sharing, or HWBP_MAX_REQUESTS live), any error of the
 *         glue (registers of every CPU are restored first).
 * Context: the caller's lock of @ctx; calls glue.on_cpu for each CPU
 *         concerned (none for a task: the host writes hwbp_task_regs()
 *         at switch-in).
 */
int hwbp_install(struct hwbp_ctx *ctx, const struct hwbp_request *req,
		 int cpu, struct hwbp_task *task, int *id);

/*
 * hwbp_remove - remove request @id, all-or-nothing.
 * Errors: -EINVAL (NULL, no such live request), any error of the glue.
 * Context: as hwbp_install().
 */
int hwbp_remove(struct hwbp_ctx *ctx, int id);

/*
 * hwbp_modify - replace live request @id's request by @req (region, type,
 * scope, flags), in the same place (its CPU, every CPU, or its task), keeping
 * the id; all-or-nothing (as Linux's modify_user_hw_breakpoint).  The new
 * plan is made as if @id's own slots were free, so a request that needs no
 * more slots than the old one held never fails for lack of room.
 * Errors: -EINVAL (NULL, or no such live request), those of hwbp_plan(),
 *         -ENOSPC (not enough free slots), -EOPNOTSUPP (the CPU has no slot
 *         of the pool the new type needs), any error of the glue.  On any
 *         error the request keeps its old plan and the slots and the
 *         registers of every CPU are as before (registers rewritten first).
 * Context: as hwbp_install().
 */
int hwbp_modify(struct hwbp_ctx *ctx, int id, const struct hwbp_request *req);

/* hwbp_plan_of - the plan of live request @id (NULL if none, or @ctx
 * NULL).  The pointer is valid until @id is modified or removed.
 * No errors.  Context: not concurrently with a change of @ctx. */
const struct hwbp_plan *hwbp_plan_of(const struct hwbp_ctx *ctx, int id);

/*
 * hwbp_free_slots - slots still free for a new request in the given place:
 * @task, else CPU @cpu or HWBP_CPU_ALL (the fewest free on any CPU).
 * Returns the number of free slots.
 * Errors: -EINVAL (NULL ctx, bad cpu, task not registered).
 * Context: not concurrently with a change of @ctx.
 */
int hwbp_free_slots(const struct hwbp_ctx *ctx, int cpu,
		    const struct hwbp_task *task, bool inst);

/*
 * hwbp_task_regs - the registers CPU @cpu must hold while @task runs: the
 * CPU's own pieces at their slots, the task's pieces in the remaining slots
 * in order.  The host writes them at switch-in (and the CPU's own registers
 * at switch-out).
 * Errors: -EINVAL (NULL, bad cpu, task not registered).
 * Context: any, the context switch included (read-only, no allocation),
 *         but not concurrently with a change of @ctx.
 */
int hwbp_task_regs(const struct hwbp_ctx *ctx, unsigned cpu,
		   const struct hwbp_task *task, struct hwbp_regs *regs);

/*
 * hwbp_decode - decode a debug exception on @cpu (while @task, may be NULL,
 * runs) into slots and request ids.  With @acc the hit is filtered: a
 * request is reported only if the access touched its bytes (not only extra
 * ones), its type matches the access kind when known (a widened x86 R
 * request drops writes only when the kind is known), and its scope matches
 * the privilege when known.  Never allocates.
 * Errors: -EINVAL (NULL, @cpu >= the context's CPUs, task not registered),
 *         those of hwbp_decode_status().
 * Context: exception handlers included; bounded time.  At most one call
 *         per @cpu at a time (with a task it builds the CPU's registers in
 *         percpu[@cpu].live); concurrent calls for different CPUs are
 *         fine; never concurrently with the commit of a change of @ctx
 *         (see "Context and locking").
 */
int hwbp_decode(const struct hwbp_ctx *ctx, unsigned cpu,
		const struct hwbp_task *task, const struct hwbp_status *st,
		const struct hwbp_access *acc, struct hwbp_hit *hit);

#ifdef __cplusplus
}
#endif

#endif /* HWBP_HWBP_H */
