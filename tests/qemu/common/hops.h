/* SPDX-License-Identifier: MIT */
/*
 * Harness operations: a scenario file compiled to a table by
 * `hwbp sim --compile FILE...` (sim/scenario.c) for the bare-metal
 * harnesses in tests/qemu/<arch>/, which execute it on real (emulated)
 * debug registers and print the same canonical lines as `hwbp sim --emit`.
 * Freestanding: no libc types beyond <stdint.h>.
 */
#ifndef HWBP_HOPS_H
#define HWBP_HOPS_H

#include <stdint.h>

enum hop_kind {
	HOP_END = 0,     /* end of the table */
	HOP_FILE,        /* a new file: name = path, name2 = cpu preset; reset everything */
	HOP_SET,         /* set register name = a (+ base) */
	HOP_WATCH,       /* watch name: a (+ base) len b, type, scope, flags */
	HOP_UNWATCH,     /* unwatch name */
	HOP_MODE,        /* mode name=a (one pair per hop; "cpu" included) */
	HOP_READ,        /* read a (+ base), size b */
	HOP_WRITE,       /* write a (+ base), size b */
	HOP_EXEC,        /* exec a (+ base) */
	HOP_IO,          /* io port a, size b (x86) */
	HOP_ZERO,        /* zero a (+ base) */
	HOP_RESUME,      /* resume */
	HOP_INSN,        /* an instruction: type = enum hwbp_sim_op (int3/brk/trap,
	                    icebp, movss, sti), a (+ base) its address (movss), b its
	                    size (movss) or immediate (brk) */
	HOP_GET,         /* get register name (MOV from DRn, MRS, mfspr) */
};

enum hop_base {
	HB_ABS = 0,      /* a is an absolute number */
	HB_B = 1,        /* a is an offset into the data arena B */
	HB_C = 2,        /* a is an offset into the code arena C */
};

struct hop {
	uint8_t kind;    /* enum hop_kind */
	uint8_t base;    /* enum hop_base, for a */
	uint8_t type;    /* watch: HWBP_R/W/RW/X; insn: enum hwbp_sim_op */
	uint8_t scope;   /* watch: enum hwbp_scope */
	uint8_t flags;   /* watch: 1 widen, 2 share (HWBP_REQ_WIDEN, _SHARE) */
	uint8_t pad[3];
	uint32_t line;   /* line in the file (the canonical lines' LINE) */
	uint64_t a;
	uint64_t b;
	const char *name;
	const char *name2;
};

/* Generated: the whole run, all files in order, ended by HOP_END. */
extern const struct hop hwbp_hops[];

#endif /* HWBP_HOPS_H */
