/* SPDX-License-Identifier: MIT */
/*
 * Instructions, the interface of insn/ (internal): the access behind a
 * data hit, found by decoding the instruction that trapped, for the
 * arches whose debug exception does not report it (x86: DR6 names the
 * slot, RIP is past the instruction; arm64 and powerpc report the address
 * in FAR and DAR).  Each arch's decoder is a const struct of operations
 * in arch/<a>/insn.c (built on every host, so that its tests run
 * anywhere), over Capstone (Debian's libcapstone-dev), which gives each
 * operand's read/write access; arch/insn.c holds the one table of them.
 * Without Capstone (-Ddecode=disabled) every arch's decoder says so.
 *
 * The race detector (tracer/race/) asks the same decoders which
 * instructions of a function may race (scan) and what a sampled one is
 * about to access (at_pc).
 *
 * Depends on nothing of the tracer; used by the backends that see real
 * hits.  A decoder is one thread's at a time.
 */
#ifndef HWBP_TRACER_INSN_H
#define HWBP_TRACER_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwbp/hwbp.h>
#include <hwbp/trace.h>

/* The registers after the access, by the arch's DWARF register number
 * (x86-64 psABI 3.6.2: 0 RAX, 1 RDX, 2 RCX, 3 RBX, 4 RSI, 5 RDI, 6 RBP,
 * 7 RSP, 8-15 R8-R15, 16 RIP, 49 RFLAGS, 58 FS.base, 59 GS.base); bit n
 * of @known: v[n] holds a value. */
#define HWBPI_INSN_REGS 64
struct hwbpi_insn_regs {
	uint64_t v[HWBPI_INSN_REGS];
	uint64_t known;
};

/* One memory access of an instruction. */
struct hwbpi_insn_access {
	uint64_t addr;               /* where (valid with addr_known) */
	uint64_t size;               /* bytes */
	unsigned kind;               /* HWBP_R, HWBP_W, or both: read-modify-write */
	bool addr_known;             /* false: the registers after the access no
				      * longer say (a load into its own base) */
};

/* An instruction that may have trapped, and its memory accesses (a MOVS
 * reads one place and writes another; a PUSH of memory too). */
#define HWBPI_INSN_ACCESSES 4
struct hwbpi_insn {
	uint64_t ip;                 /* its address */
	unsigned len;
	bool rep;                    /* a REP string instruction */
	bool atomic;                 /* its memory access is atomic by itself: a locked
				      * instruction, or one the CPU always locks (x86
				      * LOCK prefix, XCHG with memory) */
	char text[64];               /* "mov qword ptr [rip + 0x10], rax" */
	unsigned n;
	struct hwbpi_insn_access acc[HWBPI_INSN_ACCESSES];
};

struct hwbpi_insn_dec;

/*
 * What an instruction's data accesses can be to a race detector
 * (tracer/race/): only PLAIN ones may race with another thread's as the
 * C11 memory model defines a data race (two accesses, one a write, not
 * both atomic, neither ordered before the other); the others cannot by
 * definition, or cannot be watched, and each says why.
 */
enum hwbpi_insn_class {
	HWBPI_INSN_NOMEM = 0,        /* no data access (also an address computed, a
				      * prefetch, a hint) */
	HWBPI_INSN_PLAIN,            /* a plain load, store or read-modify-write */
	HWBPI_INSN_STACK,            /* its own thread's stack only: the stack pointer's,
				      * or the frame pointer's in a function that keeps
				      * one, and pushes, pops, calls and returns */
	HWBPI_INSN_LOCKED,           /* atomic: a lock prefix */
	HWBPI_INSN_ATOMIC,           /* atomic without one (x86 XCHG with memory) */
	HWBPI_INSN_TLS,              /* thread-local: through the thread pointer's segment */
	HWBPI_INSN_STRING,           /* a string instruction: its range is a count in a
				      * register */
	HWBPI_INSN_BRANCH,           /* reads a code pointer to jump or call through */
	HWBPI_INSN_UNWATCHABLE,      /* wider than 16 bytes, an index that is no general
				      * register (a gather), or an access of unknown kind */
	HWBPI_INSN_NCLASS
};

/* An arch's decoder (arch/<a>/insn.c). */
struct hwbpi_insn_arch {
	const char *name;
	/*
	 * The instructions that may have trapped with the PC at @ip after a
	 * data breakpoint's trap: the one that ends at @ip, found by decoding
	 * forward from @start, a known instruction boundary at or before it
	 * (a function's start), through @code (@n bytes at @start); and a
	 * REP string instruction that starts at @ip (the PC stays on one
	 * until its count runs out: each iteration's hit traps there).  At
	 * most 2, in *@nout; each one's accesses from @regs (the registers
	 * after the access).  NULL where the hardware reports the access.
	 * Errors: -ENOENT (no instruction ends at @ip: @start is not a
	 * boundary before it, or the trapping instruction branched), -EINVAL
	 * (@ip outside @code), -ENOMEM.
	 * Context: no allocation once opened; the decoder is the caller's.
	 */
	int (*at_trap)(struct hwbpi_insn_dec *d, const uint8_t *code, size_t n, uint64_t start,
		       uint64_t ip, const struct hwbpi_insn_regs *regs, struct hwbpi_insn out[2],
		       unsigned *nout);
	/*
	 * Each instruction of a function, from its first byte @start (@code:
	 * its @n bytes), in order: @each(@arg, address, length, class: enum
	 * hwbpi_insn_class); a nonzero return stops the walk and is
	 * returned.  The function's own frame is told from its prologue
	 * (x86: PUSH RBP; MOV RBP, RSP), so that a frame-pointer access is
	 * STACK there and PLAIN where that register is a general one.  The
	 * walk stops at the first bytes that are no instruction (data in
	 * the code): nothing past them is given, since a trap planted off an
	 * instruction's first byte would corrupt the program.
	 * NULL where the arch has no decoder.  Errors: @each's, -EINVAL.
	 * Context: no allocation; the decoder is the caller's.
	 */
	int (*scan)(struct hwbpi_insn_dec *d, const uint8_t *code, size_t n, uint64_t start,
		    int (*each)(void *arg, uint64_t ip, unsigned len, unsigned cls), void *arg);
	/*
	 * The instruction that starts at @ip (@code: @n bytes from @ip, at
	 * least its length) and its explicit memory accesses, from @regs as
	 * they are before it runs (a thread stopped on a trap planted there);
	 * the implicit stack accesses (PUSH, CALL...) are not given.
	 * Errors: -ENOENT (no instruction there), -EINVAL.
	 */
	int (*at_pc)(struct hwbpi_insn_dec *d, const uint8_t *code, size_t n, uint64_t ip,
		     const struct hwbpi_insn_regs *regs, struct hwbpi_insn *out);
	/* Open and close a decoder.  Errors: -EOPNOTSUPP (built without
	 * Capstone, or none here), -ENOMEM. */
	int (*open)(struct hwbpi_insn_dec **out);
	void (*close)(struct hwbpi_insn_dec *d);
	/* A function of this arch's code whose answers are known, for
	 * self-checks and benchmarks (hwbp_decoder_sample()); NULL: none. */
	const struct hwbp_decoder_sample *sample;
};

/*
 * hwbpi_insn_access - of the instructions @a's at_trap() finds (its
 * arguments as there), the access that touches one of the @nr ranges
 * [@lo[i], @lo[i] + @len[i]), or, when none does, the only one whose
 * address is known (it touched bytes the hardware watches beyond the
 * ranges: hwbp_decode() filters it), into *@acc's address, size and kind
 * (priv is the caller's).  Errors: at_trap()'s, -ENOENT (no access to
 * give: an address lost, or two candidates), -EOPNOTSUPP (@a NULL).
 */
int hwbpi_insn_access(const struct hwbpi_insn_arch *a, struct hwbpi_insn_dec *d,
		      const uint8_t *code, size_t n, uint64_t start, uint64_t ip,
		      const struct hwbpi_insn_regs *regs, const uint64_t *lo, const uint64_t *len,
		      unsigned nr, struct hwbp_access *acc);

/* hwbp_decoder_access() with the registers as insn/ keeps them and any
 * number of ranges (the backends' decoders: backends/linux/access.c). */
int hwbpi_decoder_access(struct hwbp_decoder *d, const uint8_t *code, size_t n, uint64_t start,
			 uint64_t ip, const struct hwbpi_insn_regs *regs, const uint64_t *lo,
			 const uint64_t *len, unsigned nr, struct hwbp_access *acc);

/* The decoder of @arch, or NULL where it has none (the hardware reports
 * the access).  Any context. */
const struct hwbpi_insn_arch *hwbpi_insn_arch(enum hwbp_arch arch);

/* The decoder of @arch for the race detector (its scan and at_pc; at_trap
 * may be NULL where the hardware reports a hit's access: arm64), or NULL
 * where it has none.  Any context. */
const struct hwbpi_insn_arch *hwbpi_insn_race_arch(enum hwbp_arch arch);

/* Whether this build decodes instructions (Capstone). */
bool hwbpi_insn_available(void);

#endif /* HWBP_TRACER_INSN_H */
