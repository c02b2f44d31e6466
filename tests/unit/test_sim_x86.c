/* SPDX-License-Identifier: MIT */
/*
 * The x86 debug-unit model (sim/x86.c, sim/x86_regs.c) through the public
 * simulator API: a table of single accesses against raw register states,
 * under both profiles (every quirks_x86.def row has rows that differ), then
 * the sequences a table cannot hold: reset, general detect, DR4/DR5, RF
 * and resume, mode, register write faults, and the filter property.
 *
 * Sources: Intel SDM Vol. 3 §17.2-§17.3; AMD APM Vol. 2 §13.1; QEMU
 * target/i386/tcg/system/bpt_helper.c; kvm-unit-tests x86/debug.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"

/* DR7 field for slot n: enable (1 local, 2 global), R/W, LEN (SDM §17.2.4). */
#define DR7(n, en, rw, len) \
	(((uint64_t)(en) << (2 * (n))) | ((uint64_t)(rw) << (16 + 4 * (n))) | \
	 ((uint64_t)(len) << (18 + 4 * (n))))
#define RW_X 0
#define RW_W 1
#define RW_IO 2
#define RW_RW 3
#define L1 0
#define L2 1
#define L8 2
#define L4 3
#define G 2
#define L 1
#define OFF 0

#define DR6_0 0xffff0ff0ull
#define GD (1ull << 13)

/* The profiles a row holds for (BOTH: sdm and qemu; linux rows say so). */
enum { SDM = 1, QEMU = 2, BOTH = 3, LINUX = 4 };

struct regw {
	const char *name;
	uint64_t v;
};

struct row {
	const char *what;
	const char *preset;
	int profiles;
	struct regw set[6];
	uint32_t op;
	uint64_t addr;
	uint32_t size;
	enum hwbp_sim_class cls;
	enum hwbp_timing timing;
	uint32_t slots;
	uint64_t dr6;           /* checked when cls == DB */
};

#define R HWBP_SIM_READ
#define W HWBP_SIM_WRITE
#define X HWBP_SIM_EXEC
#define IO HWBP_SIM_IO
#define DB HWBP_SIM_DB
#define NONE HWBP_SIM_NONE
#define AFTER HWBP_TIMING_AFTER
#define BEFORE HWBP_TIMING_BEFORE

static const struct row rows[] = {
	/* --- data breakpoints: R/W and overlap (SDM §17.2.4, §17.2.5) --- */
	{ "W4 write", "x86_64", BOTH, { { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_W, L4) } },
	  W, 0x1000, 4, DB, AFTER, 1, DR6_0 | 1 },
	{ "W4 read ignored", "x86_64", BOTH, { { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_W, L4) } },
	  R, 0x1000, 4, NONE, 0, 0, 0 },
	{ "RW4 read last byte", "x86_64", BOTH, { { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_RW, L4) } },
	  R, 0x1003, 1, DB, AFTER, 1, DR6_0 | 1 },
	{ "RW4 read past", "x86_64", BOTH, { { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_RW, L4) } },
	  R, 0x1004, 1, NONE, 0, 0, 0 },
	{ "RW4 read before", "x86_64", BOTH, { { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_RW, L4) } },
	  R, 0xfff, 1, NONE, 0, 0, 0 },
	{ "RW4 straddling read", "x86_64", BOTH, { { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_RW, L4) } },
	  R, 0xfff, 2, DB, AFTER, 1, DR6_0 | 1 },
	{ "RW4 covering 64-byte store", "x86_64", BOTH, { { "dr2", 0x1020 }, { "dr7", DR7(2, G, RW_RW, L4) } },
	  W, 0x1000, 64, DB, AFTER, 4, DR6_0 | 4 },
	{ "L0 local enable", "x86_64", BOTH, { { "dr0", 0x1000 }, { "dr7", DR7(0, L, RW_W, L1) } },
	  W, 0x1000, 1, DB, AFTER, 1, DR6_0 | 1 },
	{ "disabled slot", "x86_64", BOTH, { { "dr0", 0x1000 }, { "dr7", DR7(0, OFF, RW_RW, L4) } },
	  W, 0x1000, 4, NONE, 0, 0, 0 },
	{ "LEN8 last byte", "x86_64", BOTH, { { "dr3", 0x1000 }, { "dr7", DR7(3, G, RW_RW, L8) } },
	  R, 0x1007, 1, DB, AFTER, 8, DR6_0 | 8 },
	{ "LEN8 past", "x86_64", BOTH, { { "dr3", 0x1000 }, { "dr7", DR7(3, G, RW_RW, L8) } },
	  R, 0x1008, 1, NONE, 0, 0, 0 },
	{ "fetch never matches a data slot", "x86_64", BOTH,
	  { { "dr0", 0x2000 }, { "dr7", DR7(0, G, RW_RW, L1) } }, X, 0x2000, 1, NONE, 0, 0, 0 },
	{ "top of address space", "x86_64", BOTH,
	  { { "dr0", 0xfffffffffffffffcull }, { "dr7", DR7(0, G, RW_W, L4) } },
	  W, 0xfffffffffffffffdull, 2, DB, AFTER, 1, DR6_0 | 1 },

	/* --- HWBPI_Q_X86_NO_ALIGN_MASK: misaligned DRn (SDM §17.2.5) --- */
	{ "LEN2 DR0=0x1001 low byte", "x86_64", SDM, { { "dr0", 0x1001 }, { "dr7", DR7(0, G, RW_W, L2) } },
	  W, 0x1000, 1, DB, AFTER, 1, DR6_0 | 1 },
	{ "LEN2 DR0=0x1001 low byte", "x86_64", QEMU, { { "dr0", 0x1001 }, { "dr7", DR7(0, G, RW_W, L2) } },
	  W, 0x1000, 1, NONE, 0, 0, 0 },
	{ "LEN2 DR0=0x1001 next byte", "x86_64", SDM, { { "dr0", 0x1001 }, { "dr7", DR7(0, G, RW_W, L2) } },
	  W, 0x1002, 1, NONE, 0, 0, 0 },
	{ "LEN2 DR0=0x1001 next byte", "x86_64", QEMU, { { "dr0", 0x1001 }, { "dr7", DR7(0, G, RW_W, L2) } },
	  W, 0x1002, 1, DB, AFTER, 1, DR6_0 | 1 },
	{ "LEN4 DR1=0x1002", "x86_64", SDM, { { "dr1", 0x1002 }, { "dr7", DR7(1, G, RW_RW, L4) } },
	  R, 0x1004, 2, NONE, 0, 0, 0 },
	{ "LEN4 DR1=0x1002", "x86_64", QEMU, { { "dr1", 0x1002 }, { "dr7", DR7(1, G, RW_RW, L4) } },
	  R, 0x1004, 2, DB, AFTER, 2, DR6_0 | 2 },
	{ "LEN4 at the top, misaligned", "x86_64", SDM,
	  { { "dr0", 0xfffffffffffffffeull }, { "dr7", DR7(0, G, RW_W, L4) } },
	  W, 0xfffffffffffffffcull, 1, DB, AFTER, 1, DR6_0 | 1 },
	{ "LEN4 at the top, misaligned (wraps: refused)", "x86_64", QEMU,
	  { { "dr0", 0xfffffffffffffffeull }, { "dr7", DR7(0, G, RW_W, L4) } },
	  W, 0xfffffffffffffffeull, 1, NONE, 0, 0, 0 },

	/* --- HWBPI_Q_X86_DATA_FIRST_SLOT: all matching slots (§17.2.3) --- */
	{ "two slots one access", "x86_64", SDM,
	  { { "dr0", 0x1000 }, { "dr1", 0x1000 }, { "dr7", DR7(0, G, RW_RW, L4) | DR7(1, G, RW_W, L1) } },
	  W, 0x1000, 1, DB, AFTER, 3, DR6_0 | 3 },
	{ "two slots one access", "x86_64", QEMU,
	  { { "dr0", 0x1000 }, { "dr1", 0x1000 }, { "dr7", DR7(0, G, RW_RW, L4) | DR7(1, G, RW_W, L1) } },
	  W, 0x1000, 1, DB, AFTER, 1, DR6_0 | 1 },
	{ "two slots, store spans both", "x86_64", SDM,
	  { { "dr2", 0x1000 }, { "dr3", 0x1008 }, { "dr7", DR7(2, G, RW_W, L8) | DR7(3, G, RW_W, L8) } },
	  W, 0x1004, 8, DB, AFTER, 0xc, DR6_0 | 0xc },
	{ "two slots, store spans both", "x86_64", QEMU,
	  { { "dr2", 0x1000 }, { "dr3", 0x1008 }, { "dr7", DR7(2, G, RW_W, L8) | DR7(3, G, RW_W, L8) } },
	  W, 0x1004, 8, DB, AFTER, 4, DR6_0 | 4 },
	{ "two slots, read matches only the RW one", "x86_64", BOTH,
	  { { "dr0", 0x1000 }, { "dr1", 0x1000 }, { "dr7", DR7(0, G, RW_W, L4) | DR7(1, G, RW_RW, L1) } },
	  R, 0x1000, 1, DB, AFTER, 2, DR6_0 | 2 },

	/* --- HWBPI_Q_X86_DISABLED_B_BITS (§17.2.3 "may or may not") --- */
	{ "disabled matching data slot", "x86_64", SDM,
	  { { "dr0", 0x1000 }, { "dr1", 0x1000 }, { "dr7", DR7(0, OFF, RW_RW, L4) | DR7(1, G, RW_W, L1) } },
	  W, 0x1000, 1, DB, AFTER, 2, DR6_0 | 3 },
	{ "disabled matching data slot", "x86_64", QEMU,
	  { { "dr0", 0x1000 }, { "dr1", 0x1000 }, { "dr7", DR7(0, OFF, RW_RW, L4) | DR7(1, G, RW_W, L1) } },
	  W, 0x1000, 1, DB, AFTER, 2, DR6_0 | 2 },
	/* HWBPI_Q_X86_LINUX_VIRTUAL_DR6: a tracer's DR6 has the fired
	 * (enabled) slots only, data and execute alike. */
	{ "disabled matching data slot", "x86_64", LINUX,
	  { { "dr0", 0x1000 }, { "dr1", 0x1000 }, { "dr7", DR7(0, OFF, RW_RW, L4) | DR7(1, G, RW_W, L1) } },
	  W, 0x1000, 1, DB, AFTER, 2, DR6_0 | 2 },
	{ "disabled matching exec slot", "x86_64", SDM | QEMU,
	  { { "dr0", 0x2000 }, { "dr2", 0x2000 }, { "dr7", DR7(0, G, RW_X, L1) | DR7(2, OFF, RW_X, L1) } },
	  X, 0x2000, 1, DB, BEFORE, 1, DR6_0 | 5 },
	{ "disabled matching exec slot", "x86_64", LINUX,
	  { { "dr0", 0x2000 }, { "dr2", 0x2000 }, { "dr7", DR7(0, G, RW_X, L1) | DR7(2, OFF, RW_X, L1) } },
	  X, 0x2000, 1, DB, BEFORE, 1, DR6_0 | 1 },
	/* (QEMU reports the first only: HWBPI_Q_X86_DATA_FIRST_SLOT) */
	{ "two enabled slots, one access", "x86_64", SDM | LINUX,
	  { { "dr0", 0x1000 }, { "dr1", 0x1000 }, { "dr7", DR7(0, G, RW_RW, L8) | DR7(1, L, RW_W, L2) } },
	  W, 0x1000, 2, DB, AFTER, 3, DR6_0 | 3 },
	{ "disabled write slot, read access", "x86_64", BOTH,
	  { { "dr0", 0x1000 }, { "dr1", 0x1000 }, { "dr7", DR7(0, OFF, RW_W, L4) | DR7(1, G, RW_RW, L1) } },
	  R, 0x1000, 1, DB, AFTER, 2, DR6_0 | 2 },

	/* --- DR6 other bits (SDM §17.2.3; kvm-unit-tests x86/debug.c) --- */
	{ "BS survives a data #DB", "x86_64", BOTH,
	  { { "dr6", 0x4000 }, { "dr1", 0x1000 }, { "dr7", DR7(1, G, RW_W, L4) } },
	  W, 0x1000, 4, DB, AFTER, 2, DR6_0 | 0x4000 | 2 },
	{ "old B bits replaced", "x86_64", BOTH,
	  { { "dr6", 0x6 }, { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_W, L4) } },
	  W, 0x1000, 4, DB, AFTER, 1, DR6_0 | 1 },
	/* HWBPI_Q_X86_DR6_BIT12 */
	{ "DR6 bit 12 written", "x86_64", SDM,
	  { { "dr6", 0x1000 }, { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_W, L4) } },
	  W, 0x1000, 4, DB, AFTER, 1, DR6_0 | 1 },
	{ "DR6 bit 12 written", "x86_64", QEMU,
	  { { "dr6", 0x1000 }, { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_W, L4) } },
	  W, 0x1000, 4, DB, AFTER, 1, DR6_0 | 0x1000 | 1 },

	/* --- HWBPI_Q_X86_LEN8_LEGACY: LEN=10 outside IA-32e (§17.2.4) --- */
	{ "i386 LEN=10", "i386", SDM, { { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_RW, L8) } },
	  R, 0x1004, 4, NONE, 0, 0, 0 },
	{ "i386 LEN=10", "i386", QEMU, { { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_RW, L8) } },
	  R, 0x1004, 4, DB, AFTER, 1, DR6_0 | 1 },
	{ "i386 LEN4", "i386", BOTH, { { "dr0", 0xbffffffc }, { "dr7", DR7(0, G, RW_W, L4) } },
	  W, 0xbffffffe, 2, DB, AFTER, 1, DR6_0 | 1 },
	{ "i386 DRn is 32 bits", "i386", BOTH,
	  { { "dr0", 0x100001000ull }, { "dr7", DR7(0, G, RW_W, L4) } },
	  W, 0x1000, 4, DB, AFTER, 1, DR6_0 | 1 },

	/* --- HWBPI_Q_X86_NO_ADDR_MASK: AMD DataBkptExt (APM §13.1.1) --- */
	{ "AMD mask 0xff", "x86_64-amd", SDM,
	  { { "dr0", 0x1000 }, { "dr0_mask", 0xff }, { "dr7", DR7(0, G, RW_RW, L1) } },
	  R, 0x10ff, 1, DB, AFTER, 1, DR6_0 | 1 },
	{ "AMD mask 0xff", "x86_64-amd", QEMU,
	  { { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_RW, L1) } },
	  R, 0x10ff, 1, NONE, 0, 0, 0 },
	{ "AMD mask 0xff, next block", "x86_64-amd", SDM,
	  { { "dr0", 0x1000 }, { "dr0_mask", 0xff }, { "dr7", DR7(0, G, RW_RW, L1) } },
	  R, 0x1100, 1, NONE, 0, 0, 0 },
	{ "AMD mask with a hole, second copy", "x86_64-amd", SDM,
	  { { "dr1", 0x1000 }, { "dr1_mask", 0x100 }, { "dr7", DR7(1, G, RW_W, L1) } },
	  W, 0x10fe, 4, DB, AFTER, 2, DR6_0 | 2 },
	{ "AMD mask with a hole, gap", "x86_64-amd", SDM,
	  { { "dr1", 0x1000 }, { "dr1_mask", 0x100 }, { "dr7", DR7(1, G, RW_W, L1) } },
	  W, 0x1080, 8, NONE, 0, 0, 0 },
	{ "AMD mask above bit 11 ignored", "x86_64-amd", SDM,
	  { { "dr0", 0x1000 }, { "dr0_mask", 0x1000 }, { "dr7", DR7(0, G, RW_RW, L1) } },
	  R, 0x0, 1, NONE, 0, 0, 0 },
	{ "AMD mask with LEN4", "x86_64-amd", SDM,
	  { { "dr2", 0x1000 }, { "dr2_mask", 0x10 }, { "dr7", DR7(2, G, RW_RW, L4) } },
	  R, 0x1013, 1, DB, AFTER, 4, DR6_0 | 4 },

	/* --- execute breakpoints (SDM §17.3.1.1) --- */
	{ "exec hit", "x86_64", BOTH, { { "dr0", 0x2000 }, { "dr7", DR7(0, G, RW_X, L1) } },
	  X, 0x2000, 1, DB, BEFORE, 1, DR6_0 | 1 },
	{ "exec next byte", "x86_64", BOTH, { { "dr0", 0x2000 }, { "dr7", DR7(0, G, RW_X, L1) } },
	  X, 0x2001, 1, NONE, 0, 0, 0 },
	{ "exec, data access at DRn", "x86_64", BOTH, { { "dr0", 0x2000 }, { "dr7", DR7(0, G, RW_X, L1) } },
	  R, 0x2000, 4, NONE, 0, 0, 0 },
	{ "exec with a disabled twin", "x86_64", BOTH,
	  { { "dr0", 0x2000 }, { "dr3", 0x2000 }, { "dr7", DR7(0, G, RW_X, L1) } },
	  X, 0x2000, 1, DB, BEFORE, 1, DR6_0 | 9 },
	{ "exec two enabled", "x86_64", BOTH,
	  { { "dr1", 0x2000 }, { "dr2", 0x2000 }, { "dr7", DR7(1, G, RW_X, L1) | DR7(2, L, RW_X, L1) } },
	  X, 0x2000, 1, DB, BEFORE, 6, DR6_0 | 6 },
	{ "exec LEN!=00 compares DRn exactly", "x86_64", BOTH,
	  { { "dr0", 0x2001 }, { "dr7", DR7(0, G, RW_X, L4) } },
	  X, 0x2001, 1, DB, BEFORE, 1, DR6_0 | 1 },
	{ "exec LEN!=00 not masked", "x86_64", BOTH,
	  { { "dr0", 0x2001 }, { "dr7", DR7(0, G, RW_X, L4) } },
	  X, 0x2000, 1, NONE, 0, 0, 0 },
	{ "exec suppressed by RF", "x86_64", BOTH,
	  { { "dr0", 0x2000 }, { "dr7", DR7(0, G, RW_X, L1) }, { "rf", 1 } },
	  X, 0x2000, 1, NONE, 0, 0, 0 },
	{ "RF does not suppress data", "x86_64", BOTH,
	  { { "dr0", 0x1000 }, { "dr7", DR7(0, G, RW_W, L1) }, { "rf", 1 } },
	  W, 0x1000, 1, DB, AFTER, 1, DR6_0 | 1 },
	{ "exec keeps BD", "x86_64", BOTH,
	  { { "dr6", 0x2001 }, { "dr0", 0x2000 }, { "dr7", DR7(0, G, RW_X, L1) } },
	  X, 0x2000, 1, DB, BEFORE, 1, DR6_0 | 0x2000 | 1 },

	/* --- I/O breakpoints (SDM §17.2.4, §17.2.5, §17.3.1.2) --- */
	{ "io hit", "x86_64", BOTH,
	  { { "cr4", 8 }, { "dr0", 0x3f8 }, { "dr7", DR7(0, G, RW_IO, L1) } },
	  IO, 0x3f8, 1, DB, AFTER, 1, DR6_0 | 1 },
	{ "io other port", "x86_64", BOTH,
	  { { "cr4", 8 }, { "dr0", 0x3f8 }, { "dr7", DR7(0, G, RW_IO, L1) } },
	  IO, 0x3f9, 1, NONE, 0, 0, 0 },
	{ "io word over the port", "x86_64", BOTH,
	  { { "cr4", 8 }, { "dr0", 0x3f9 }, { "dr7", DR7(0, G, RW_IO, L1) } },
	  IO, 0x3f8, 2, DB, AFTER, 1, DR6_0 | 1 },
	{ "io, memory at the same number", "x86_64", BOTH,
	  { { "cr4", 8 }, { "dr0", 0x3f8 }, { "dr7", DR7(0, G, RW_IO, L1) } },
	  W, 0x3f8, 1, NONE, 0, 0, 0 },
	{ "memory slot, io at the same number", "x86_64", BOTH,
	  { { "cr4", 8 }, { "dr0", 0x3f8 }, { "dr7", DR7(0, G, RW_RW, L1) } },
	  IO, 0x3f8, 1, NONE, 0, 0, 0 },
	{ "io two enabled", "x86_64", BOTH,
	  { { "cr4", 8 }, { "dr0", 0x60 }, { "dr2", 0x60 }, { "dr7", DR7(0, G, RW_IO, L1) | DR7(2, G, RW_IO, L2) } },
	  IO, 0x60, 1, DB, AFTER, 5, DR6_0 | 5 },
	/* HWBPI_Q_X86_IO_WITHOUT_DE */
	{ "io without CR4.DE", "x86_64", SDM, { { "dr0", 0x3f8 }, { "dr7", DR7(0, G, RW_IO, L1) } },
	  IO, 0x3f8, 1, NONE, 0, 0, 0 },
	{ "io without CR4.DE", "x86_64", QEMU, { { "dr0", 0x3f8 }, { "dr7", DR7(0, G, RW_IO, L1) } },
	  IO, 0x3f8, 1, DB, AFTER, 1, DR6_0 | 1 },
	/* HWBPI_Q_X86_NO_ALIGN_MASK on ports */
	{ "io misaligned LEN2", "x86_64", SDM,
	  { { "cr4", 8 }, { "dr1", 0x3f9 }, { "dr7", DR7(1, G, RW_IO, L2) } },
	  IO, 0x3f8, 1, DB, AFTER, 2, DR6_0 | 2 },
	{ "io misaligned LEN2", "x86_64", QEMU,
	  { { "cr4", 8 }, { "dr1", 0x3f9 }, { "dr7", DR7(1, G, RW_IO, L2) } },
	  IO, 0x3f8, 1, NONE, 0, 0, 0 },
	/* HWBPI_Q_X86_DISABLED_B_BITS on ports */
	{ "io disabled twin", "x86_64", SDM,
	  { { "cr4", 8 }, { "dr0", 0x60 }, { "dr1", 0x60 }, { "dr7", DR7(0, G, RW_IO, L1) | DR7(1, OFF, RW_IO, L1) } },
	  IO, 0x60, 1, DB, AFTER, 1, DR6_0 | 3 },
	{ "io disabled twin", "x86_64", QEMU,
	  { { "cr4", 8 }, { "dr0", 0x60 }, { "dr1", 0x60 }, { "dr7", DR7(0, G, RW_IO, L1) | DR7(1, OFF, RW_IO, L1) } },
	  IO, 0x60, 1, DB, AFTER, 1, DR6_0 | 1 },
};

static struct hwbp_sim *mk(const char *preset, enum hwbp_sim_profile p)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim;
	int err = 0;

	assert_int_equal(hwbp_cpu_preset(preset, &cpu), 0);
	sim = hwbp_sim_new(&cpu, p, 1, &err);
	assert_non_null(sim);
	return sim;
}

static void set_ok(struct hwbp_sim *sim, const char *name, uint64_t v)
{
	struct hwbp_sim_result r;

	assert_int_equal(hwbp_sim_set_reg(sim, 0, name, v, &r), 0);
	assert_int_equal(r.cls, HWBP_SIM_NONE);
}

static uint64_t get(struct hwbp_sim *sim, const char *name)
{
	uint64_t v = 0;

	assert_int_equal(hwbp_sim_get_reg(sim, 0, name, &v), 0);
	return v;
}

static void access1(struct hwbp_sim *sim, uint32_t op, uint64_t addr, uint32_t size,
		    struct hwbp_sim_result *r)
{
	struct hwbp_sim_access a = { addr, size, op };

	assert_int_equal(hwbp_sim_access(sim, 0, &a, r), 0);
}

static void run_row(const struct row *t, enum hwbp_sim_profile p)
{
	struct hwbp_sim *sim = mk(t->preset, p);
	struct hwbp_sim_result r;
	struct hwbp_cpu cpu;

	uint64_t dr6_before;

	for (unsigned i = 0; i < 6 && t->set[i].name; i++)
		set_ok(sim, t->set[i].name, t->set[i].v);
	dr6_before = get(sim, "dr6");
	access1(sim, t->op, t->addr, t->size, &r);
	if (r.cls != t->cls)
		fail_msg("%s (%s): class %d, want %d", t->what, p ? "qemu" : "sdm", r.cls, t->cls);
	if (t->cls == HWBP_SIM_DB) {
		struct hwbp_regs regs;
		struct hwbp_hit hit;

		if (r.timing != t->timing || r.data_slots != t->slots || r.inst_slots != 0 ||
		    r.st.u.x86.dr6 != t->dr6)
			fail_msg("%s (%s): timing %d slots %x dr6 %llx, want %d %x %llx", t->what,
				 p ? "qemu" : "sdm", r.timing, r.data_slots,
				 (unsigned long long)r.st.u.x86.dr6, t->timing, t->slots,
				 (unsigned long long)t->dr6);
		/* The linux profile adds the tracer's si_code. */
		assert_int_equal(r.nstatus, p == HWBP_SIM_LINUX ? 2 : 1);
		assert_string_equal(r.status[0].name, "dr6");
		assert_int_equal(r.status[0].value, t->dr6);
		assert_false(r.addr_known);
		assert_int_equal(get(sim, "dr6"), t->dr6);
		/* The decoder names the same slots from the same DR6. */
		assert_int_equal(hwbp_cpu_preset(t->preset, &cpu), 0);
		memset(&regs, 0, sizeof(regs));
		regs.arch = HWBP_ARCH_X86;
		for (unsigned i = 0; i < 4; i++) {
			char n[4] = { 'd', 'r', (char)('0' + i), 0 };

			regs.u.x86.dr[i] = get(sim, n);
		}
		regs.u.x86.dr7 = get(sim, "dr7");
		memset(&hit, 0, sizeof(hit));
		assert_int_equal(hwbp_decode_status(&cpu, &regs, &r.st, &hit), 0);
		assert_int_equal(hit.data_slots, t->slots);
	} else {
		/* No exception: DR6 untouched. */
		assert_int_equal(r.nstatus, 0);
		assert_int_equal(get(sim, "dr6"), dr6_before);
	}
	hwbp_sim_free(sim);
}

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (rows[i].profiles & SDM)
			run_row(&rows[i], HWBP_SIM_SDM);
		if (rows[i].profiles & QEMU)
			run_row(&rows[i], HWBP_SIM_QEMU);
		if (rows[i].profiles & LINUX)
			run_row(&rows[i], HWBP_SIM_LINUX);
	}
}

/* HWBPI_Q_X86_GD_ONLY_MOV: entry to any #DB handler clears GD (SDM
 * §17.2.4); QEMU clears it only in the general-detect fault. */
static void test_gd_on_db_entry(void **state)
{
	(void)state;
	for (int p = 0; p < 2; p++) {
		struct hwbp_sim *sim = hwbp_sim_new(&(struct hwbp_cpu){ .arch = HWBP_ARCH_X86,
					.u.x86 = { true, false } }, (enum hwbp_sim_profile)p, 1, NULL);
		struct hwbp_sim_access w = { 0x1000, 4, HWBP_SIM_WRITE };
		struct hwbp_sim_result r;
		uint64_t dr7;

		assert_non_null(sim);
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr0", 0x1000, &r), 0);
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr7", DR7(0, G, RW_W, L4) | GD, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_NONE);
		assert_int_equal(hwbp_sim_access(sim, 0, &w, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_DB);
		assert_int_equal(hwbp_sim_get_reg(sim, 0, "dr7", &dr7), 0);
		/* sdm: the handler may now write DR0; qemu: the MOV faults */
		assert_int_equal((dr7 & GD) != 0, p == HWBP_SIM_QEMU);
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr0", 0x2000, &r), 0);
		assert_int_equal(r.cls, p == HWBP_SIM_QEMU ? HWBP_SIM_DB : HWBP_SIM_NONE);
		hwbp_sim_free(sim);
	}
}

/* Every x86 quirk row has rows that differ between the profiles. */
static void test_quirk_rows(void **state)
{
	static const char *const ids[] = {
		"HWBPI_Q_X86_NO_ALIGN_MASK", "HWBPI_Q_X86_DATA_FIRST_SLOT",
		"HWBPI_Q_X86_DISABLED_B_BITS", "HWBPI_Q_X86_IO_WITHOUT_DE",
		"HWBPI_Q_X86_GD_KEEPS_B", "HWBPI_Q_X86_LEN8_LEGACY",
		"HWBPI_Q_X86_NO_ADDR_MASK", "HWBPI_Q_X86_DR6_BIT12",
		"HWBPI_Q_X86_GD_ONLY_MOV", "HWBPI_Q_X86_MOVSS_DB_AT_ONCE",
		"HWBPI_Q_X86_STEP_DR6_RECHECK", "HWBPI_Q_X86_LINUX_SIGINFO",
	};
	unsigned found = 0;

	(void)state;
	for (unsigned i = 0; hwbp_sim_quirk(i); i++) {
		const struct hwbp_sim_quirk *q = hwbp_sim_quirk(i);

		if (strcmp(q->arch, "x86") != 0)
			continue;
		assert_true(strlen(q->sdm) > 20 && strlen(q->qemu) > 20);
		/* A row's evidence names the platform whose departure it is. */
		assert_non_null(strstr(q->evidence, strcmp(q->profile, "qemu") == 0 ? "QEMU" : "Linux"));
		assert_non_null(strstr(q->evidence, "§"));
		for (unsigned k = 0; k < sizeof(ids) / sizeof(ids[0]); k++)
			if (strcmp(q->id, ids[k]) == 0)
				found |= 1u << k;
	}
	assert_int_equal(found, (1u << (sizeof(ids) / sizeof(ids[0]))) - 1);
	/* Row i is enum value i (one X-macro list): each x86 row is a
	 * departure its own profile takes, and neither sdm nor the other. */
	for (unsigned q = 0; q < HWBPI_Q_COUNT; q++) {
		bool linux_row;

		if (strcmp(hwbp_sim_quirk(q)->arch, "x86") != 0)
			continue;
		linux_row = strcmp(hwbp_sim_quirk(q)->profile, "linux") == 0;
		assert_false(hwbpi_quirk_on(HWBP_SIM_SDM, (enum hwbpi_quirk)q));
		assert_int_equal(hwbpi_quirk_on(HWBP_SIM_QEMU, (enum hwbpi_quirk)q), !linux_row);
		assert_int_equal(hwbpi_quirk_on(HWBP_SIM_LINUX, (enum hwbpi_quirk)q), linux_row);
	}
	assert_string_equal(hwbp_sim_quirk(HWBPI_Q_X86_LINUX_VIRTUAL_DR6)->profile, "linux");
}

static void test_reset(void **state)
{
	static const char *const presets[] = { "x86_64", "i386", "x86_64-amd" };

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		for (int p = 0; p < 2; p++) {
			struct hwbp_sim *sim = mk(presets[i], (enum hwbp_sim_profile)p);
			uint64_t v;

			assert_int_equal(get(sim, "dr0"), 0);
			assert_int_equal(get(sim, "dr3"), 0);
			assert_int_equal(get(sim, "dr6"), 0xffff0ff0);
			assert_int_equal(get(sim, "dr7"), 0x400);
			/* DR4/DR5 alias DR6/DR7 while CR4.DE = 0 (SDM §17.2.2). */
			assert_int_equal(get(sim, "dr4"), 0xffff0ff0);
			assert_int_equal(get(sim, "dr5"), 0x400);
			assert_int_equal(get(sim, "cr4"), 0);
			assert_int_equal(get(sim, "rf"), 0);
			assert_int_equal(hwbp_sim_priv(sim, 0), 0);
			assert_int_equal(hwbp_sim_get_reg(sim, 0, "dr8", &v), -ENOENT);
			assert_int_equal(hwbp_sim_get_reg(sim, 0, "dbgwcr0", &v), -ENOENT);
			assert_int_equal(hwbp_sim_get_reg(sim, 0, "dr0_mask", &v),
					 i == 2 ? 0 : -ENOENT);
			hwbp_sim_free(sim);
		}
	}
}

static void test_mode(void **state)
{
	struct hwbp_sim *sim = mk("x86_64", HWBP_SIM_SDM);

	(void)state;
	assert_int_equal(hwbp_sim_mode(sim, 0, "cpl", 3), 0);
	assert_int_equal(hwbp_sim_priv(sim, 0), 1);
	assert_int_equal(hwbp_sim_mode(sim, 0, "cpl", 2), -EINVAL);
	assert_int_equal(hwbp_sim_priv(sim, 0), 1);
	assert_int_equal(hwbp_sim_mode(sim, 0, "cpl", 0), 0);
	assert_int_equal(hwbp_sim_priv(sim, 0), 0);
	assert_int_equal(hwbp_sim_mode(sim, 0, "el", 0), -ENOENT);
	/* DR7 has no privilege field: a data slot fires at CPL 3 too. */
	set_ok(sim, "dr0", 0x1000);
	set_ok(sim, "dr7", DR7(0, G, RW_W, L1));
	assert_int_equal(hwbp_sim_mode(sim, 0, "cpl", 3), 0);
	{
		struct hwbp_sim_result r;

		access1(sim, W, 0x1000, 1, &r);
		assert_int_equal(r.cls, HWBP_SIM_DB);
	}
	hwbp_sim_free(sim);
}

/* General detect (SDM §17.2.4, §17.3.1.3), with HWBPI_Q_X86_GD_KEEPS_B. */
static void test_general_detect(void **state)
{
	(void)state;
	for (int p = 0; p < 2; p++) {
		struct hwbp_sim *sim = mk("x86_64", (enum hwbp_sim_profile)p);
		struct hwbp_sim_result r;

		/* A data #DB leaves B1 set in DR6. */
		set_ok(sim, "dr1", 0x1000);
		set_ok(sim, "dr7", DR7(1, G, RW_W, L4));
		access1(sim, W, 0x1000, 4, &r);
		assert_int_equal(get(sim, "dr6"), DR6_0 | 2);

		set_ok(sim, "dr7", DR7(1, G, RW_W, L4) | GD);
		/* Any MOV to DRn now faults and writes nothing. */
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr0", 0x5000, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_DB);
		assert_int_equal(r.timing, HWBP_TIMING_BEFORE);
		assert_int_equal(r.data_slots, 0);
		assert_int_equal(r.nstatus, 1);
		assert_int_equal(r.st.u.x86.dr6, p ? DR6_0 | GD | 2 : DR6_0 | GD);
		assert_int_equal(get(sim, "dr6"), r.st.u.x86.dr6);
		assert_int_equal(get(sim, "dr0"), 0);
		/* GD is cleared so the handler can use the registers. */
		assert_int_equal(get(sim, "dr7"), 0x400 | DR7(1, G, RW_W, L4));
		set_ok(sim, "dr0", 0x5000);
		assert_int_equal(get(sim, "dr0"), 0x5000);
		/* Nothing to resume after a GD fault. */
		assert_int_equal(hwbp_sim_resume(sim, 0, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_NONE);

		/* BD is never cleared by the processor: the next data #DB keeps it. */
		access1(sim, W, 0x1002, 1, &r);
		assert_int_equal(r.cls, HWBP_SIM_DB);
		assert_int_equal(r.st.u.x86.dr6, DR6_0 | GD | 2);

		/* GD applies to DR6, DR7 and the DR4/DR5 aliases, not to CR4/RF. */
		set_ok(sim, "dr7", 0x400 | GD);
		set_ok(sim, "cr4", 0);
		set_ok(sim, "rf", 0);
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr5", 0x400, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_DB);
		assert_int_equal(get(sim, "dr7"), 0x400);
		set_ok(sim, "dr7", 0x400 | GD);
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr6", 0, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_DB);
		assert_int_equal(get(sim, "dr6"), DR6_0 | GD | (p ? 2 : 0));
		set_ok(sim, "dr7", 0x400 | GD);
		/* #UD for DR4 with CR4.DE = 1 comes before GD. */
		set_ok(sim, "cr4", 8);
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr4", 0, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_UD);
		assert_int_equal(get(sim, "dr7"), 0x400 | GD);
		hwbp_sim_free(sim);
	}
}

/* DR4/DR5 (SDM §17.2.2; kvm-unit-tests x86/debug.c "DR4==DR6 with CR4.DE == 0"). */
static void test_dr4_dr5(void **state)
{
	(void)state;
	for (int p = 0; p < 2; p++) {
		struct hwbp_sim *sim = mk("x86_64", (enum hwbp_sim_profile)p);
		struct hwbp_sim_result r;
		uint64_t v;

		set_ok(sim, "dr4", 0);
		set_ok(sim, "dr6", 0x4002);
		assert_int_equal(get(sim, "dr4"), DR6_0 | 0x4002);
		set_ok(sim, "dr5", DR7(2, G, RW_RW, L2));
		assert_int_equal(get(sim, "dr7"), 0x400 | DR7(2, G, RW_RW, L2));
		set_ok(sim, "cr4", 0xffffffff);
		assert_int_equal(get(sim, "cr4"), 8);
		assert_int_equal(hwbp_sim_get_reg(sim, 0, "dr4", &v), -ENOENT);
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr4", 0, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_UD);
		assert_int_equal(r.timing, HWBP_TIMING_BEFORE);
		assert_int_equal(get(sim, "dr6"), DR6_0 | 0x4002);
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr5", 0, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_UD);
		assert_int_equal(get(sim, "dr7"), 0x400 | DR7(2, G, RW_RW, L2));
		set_ok(sim, "cr4", 0);
		assert_int_equal(get(sim, "dr5"), 0x400 | DR7(2, G, RW_RW, L2));
		hwbp_sim_free(sim);
	}
}

/* MOV to DR6/DR7 with bits 63:32 set: #GP in 64-bit mode (SDM §17.2.6). */
static void test_reserved_bits(void **state)
{
	(void)state;
	for (int p = 0; p < 2; p++) {
		struct hwbp_sim *sim = mk("x86_64", (enum hwbp_sim_profile)p);
		struct hwbp_sim_result r;

		assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr7", 0x100000401ull, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_GP);
		assert_int_equal(get(sim, "dr7"), 0x400);
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr6", 1ull << 40, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_GP);
		/* DR0-DR3 hold 64-bit addresses. */
		set_ok(sim, "dr2", 0xffff800000001000ull);
		assert_int_equal(get(sim, "dr2"), 0xffff800000001000ull);
		/* Bit 10 of DR7 reads as 1. */
		set_ok(sim, "dr7", 0);
		assert_int_equal(get(sim, "dr7"), 0x400);
		/* Reserved DR6 bits read as 1 whatever is written. */
		set_ok(sim, "dr6", 0);
		assert_int_equal(get(sim, "dr6"), DR6_0);
		set_ok(sim, "dr6", 0xffffffff);
		assert_int_equal(get(sim, "dr6"), p ? 0xffffffff : 0xffffefff);
		hwbp_sim_free(sim);

		/* i386: 32-bit registers, the upper half is lost. */
		sim = mk("i386", (enum hwbp_sim_profile)p);
		set_ok(sim, "dr7", 0x100000401ull);
		assert_int_equal(get(sim, "dr7"), 0x401);
		set_ok(sim, "dr1", 0x123456789ull);
		assert_int_equal(get(sim, "dr1"), 0x23456789);
		hwbp_sim_free(sim);
	}
}

/* HWBPI_Q_X86_NO_ADDR_MASK: the mask MSRs. */
static void test_addr_mask_msr(void **state)
{
	struct hwbp_sim *sim;
	struct hwbp_sim_result r;

	(void)state;
	sim = mk("x86_64", HWBP_SIM_SDM);
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr0_mask", 0xff, &r), -ENOENT);
	hwbp_sim_free(sim);

	sim = mk("x86_64-amd", HWBP_SIM_SDM);
	set_ok(sim, "dr3_mask", 0x3f);
	assert_int_equal(get(sim, "dr3_mask"), 0x3f);
	/* Only mask bits 11:0 exist. */
	set_ok(sim, "dr2_mask", 0xffffffffull);
	assert_int_equal(get(sim, "dr2_mask"), 0xfff);
	/* WRMSR is not a MOV DR: no general detect. */
	set_ok(sim, "dr7", 0x400 | GD);
	set_ok(sim, "dr3_mask", 0x7f);
	assert_int_equal(get(sim, "dr3_mask"), 0x7f);
	hwbp_sim_free(sim);

	/* QEMU has no such MSR and TCG ignores the WRMSR: no #GP, nothing
	 * written (helper_wrmsr, confirmed on the bare-metal harness). */
	sim = mk("x86_64-amd", HWBP_SIM_QEMU);
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr3_mask", 0x3f, &r), 0);
	assert_int_equal(r.cls, HWBP_SIM_NONE);
	assert_int_equal(get(sim, "dr3_mask"), 0);
	hwbp_sim_free(sim);
}

/* RF and resume (SDM §17.3.1.1; kvm-unit-tests x86/debug.c handle_db sets RF). */
static void test_rf_resume(void **state)
{
	(void)state;
	for (int p = 0; p < 2; p++) {
		struct hwbp_sim *sim = mk("x86_64", (enum hwbp_sim_profile)p);
		struct hwbp_sim_result r;

		set_ok(sim, "dr2", 0x2000);
		set_ok(sim, "dr7", DR7(2, G, RW_X, L1));
		access1(sim, X, 0x2000, 1, &r);
		assert_int_equal(r.cls, HWBP_SIM_DB);
		assert_int_equal(r.timing, HWBP_TIMING_BEFORE);
		assert_int_equal(r.st.ip, 0x2000);
		assert_int_equal(r.st.u.x86.dr6, DR6_0 | 4);
		assert_int_equal(get(sim, "rf"), 0);
		/* The kernel returns with RF set: the instruction runs, RF clears. */
		assert_int_equal(hwbp_sim_resume(sim, 0, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_NONE);
		assert_int_equal(get(sim, "rf"), 0);
		/* Nothing pending any more. */
		assert_int_equal(hwbp_sim_resume(sim, 0, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_NONE);
		/* Executed again (a loop): faults again. */
		access1(sim, X, 0x2000, 1, &r);
		assert_int_equal(r.cls, HWBP_SIM_DB);

		/* RF set by hand: one instruction is spared, then RF is clear. */
		set_ok(sim, "rf", 1);
		access1(sim, X, 0x2000, 1, &r);
		assert_int_equal(r.cls, HWBP_SIM_NONE);
		assert_int_equal(get(sim, "rf"), 0);

		/* Any completed instruction clears RF, even a data access far
		 * from every slot (the filter must not skip it while RF = 1). */
		set_ok(sim, "rf", 1);
		access1(sim, R, 0x7000000, 8, &r);
		assert_int_equal(r.cls, HWBP_SIM_NONE);
		assert_int_equal(get(sim, "rf"), 0);
		access1(sim, X, 0x2000, 1, &r);
		assert_int_equal(r.cls, HWBP_SIM_DB);

		/* RF on another instruction: that one completes and clears it. */
		set_ok(sim, "rf", 1);
		access1(sim, X, 0x2004, 1, &r);
		assert_int_equal(get(sim, "rf"), 0);
		access1(sim, X, 0x2000, 1, &r);
		assert_int_equal(r.cls, HWBP_SIM_DB);

		/* A data trap: resume does nothing more. */
		set_ok(sim, "dr0", 0x1000);
		set_ok(sim, "dr7", DR7(0, G, RW_W, L2) | DR7(2, G, RW_X, L1));
		access1(sim, W, 0x1000, 2, &r);
		assert_int_equal(r.cls, HWBP_SIM_DB);
		assert_int_equal(r.timing, HWBP_TIMING_AFTER);
		assert_int_equal(r.st.ip, 0);
		assert_int_equal(hwbp_sim_resume(sim, 0, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_NONE);
		assert_int_equal(get(sim, "rf"), 0);

		/* hwbp_sim_run resumes after each exception. */
		{
			const struct hwbp_sim_access acc[] = {
				{ 0x2000, 1, X }, { 0x1000, 1, W }, { 0x1000, 1, R },
				{ 0x2000, 1, X }, { 0x3000, 4, W }, { 0x1001, 1, W },
			};

			assert_int_equal(hwbp_sim_run(sim, 0, acc, 6), 4);
		}
		hwbp_sim_free(sim);
	}
}

/* Execute breakpoints on i386 compare 32-bit addresses. */
static void test_i386_exec(void **state)
{
	struct hwbp_sim *sim = mk("i386", HWBP_SIM_SDM);
	struct hwbp_sim_result r;

	(void)state;
	set_ok(sim, "dr0", 0xc0001000);
	set_ok(sim, "dr7", DR7(0, G, RW_X, L1));
	access1(sim, X, 0xc0001000, 1, &r);
	assert_int_equal(r.cls, HWBP_SIM_DB);
	assert_int_equal(r.st.u.x86.dr6, DR6_0 | 1);
	hwbp_sim_free(sim);
}

static uint64_t seed = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/*
 * The filter never changes a result: two simulators in the same state,
 * one through hwbp_sim_access (filter) and one through the model always,
 * agree on every result and every register, for random raw DR7/DRn/mask
 * states (including RF, misaligned DRn and AMD masks with holes).
 */
static void test_filter_property(void **state)
{
	static const char *const presets[] = { "x86_64", "i386", "x86_64-amd" };
	static const char *const regs[] = { "dr0", "dr1", "dr2", "dr3", "dr6", "dr7", "rf", "cr4" };

	(void)state;
	for (unsigned pi = 0; pi < 3; pi++) {
		for (int p = 0; p < 2; p++) {
			struct hwbp_sim *a = mk(presets[pi], (enum hwbp_sim_profile)p);
			struct hwbp_sim *b = mk(presets[pi], (enum hwbp_sim_profile)p);

			for (unsigned round = 0; round < 300; round++) {
				struct hwbp_sim_result ra, rb;
				uint64_t dr7 = 0x400;

				for (unsigned i = 0; i < 4; i++) {
					char n[4] = { 'd', 'r', (char)('0' + i), 0 };
					uint64_t v = 0x10000 + (rnd() % 0x80);

					set_ok(a, n, v);
					set_ok(b, n, v);
					dr7 |= DR7(i, rnd() % 4, rnd() % 4, rnd() % 4);
					if (pi == 2 && p == 0) {
						char m[24];
						uint64_t mv = rnd() % 3 == 0 ? rnd() % 0x100 : 0;

						snprintf(m, sizeof(m), "dr%u_mask", i);
						set_ok(a, m, mv);
						set_ok(b, m, mv);
					}
				}
				set_ok(a, "dr7", dr7);
				set_ok(b, "dr7", dr7);
				if (rnd() % 8 == 0) {
					set_ok(a, "rf", 1);
					set_ok(b, "rf", 1);
				}
				for (unsigned k = 0; k < 20; k++) {
					struct hwbp_sim_access acc = {
						0x10000 - 0x40 + rnd() % 0x180,
						(uint32_t)(1 + rnd() % (rnd() % 4 ? 8 : 64)),
						(uint32_t)(1 + rnd() % 2),
					};

					assert_int_equal(hwbp_sim_access(a, 0, &acc, &ra), 0);
					assert_int_equal(hwbpi_sim_access_unfiltered(b, 0, &acc, &rb), 0);
					assert_int_equal(ra.cls, rb.cls);
					assert_int_equal(ra.data_slots, rb.data_slots);
					assert_int_equal(ra.st.u.x86.dr6, rb.st.u.x86.dr6);
					for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
						assert_int_equal(get(a, regs[i]), get(b, regs[i]));
				}
			}
			hwbp_sim_free(a);
			hwbp_sim_free(b);
		}
	}
}

/*
 * An access ending exactly at the top of the address space: the model
 * matches it (the engine's filter compares addr + size, which wraps there,
 * so this goes to the model directly).
 */
static void test_top_of_space(void **state)
{
	(void)state;
	for (int p = 0; p < 2; p++) {
		struct hwbp_sim *sim = mk("x86_64", (enum hwbp_sim_profile)p);
		struct hwbp_sim_access a = { 0xfffffffffffffffcull, 4, W };
		struct hwbp_sim_result r;

		set_ok(sim, "dr3", 0xfffffffffffffff8ull);
		set_ok(sim, "dr7", DR7(3, G, RW_W, L8));
		assert_int_equal(hwbpi_sim_access_unfiltered(sim, 0, &a, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_DB);
		assert_int_equal(r.st.u.x86.dr6, DR6_0 | 8);
		a.addr = 0xfffffffffffffff0ull;
		a.size = 8;
		assert_int_equal(hwbpi_sim_access_unfiltered(sim, 0, &a, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_NONE);
		hwbp_sim_free(sim);
	}
}

/*
 * The glue (what `watch` uses) writes DR0-DR3/DR7/masks but never DR6,
 * and the model fires on what hwbp_install() encoded.
 */
static void test_glue(void **state)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim;
	struct hwbp_regs regs;
	struct hwbp_sim_result r;
	const struct hwbp_glue *g;

	(void)state;
	hwbp_cpu_preset("x86_64", &cpu);
	sim = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 1, NULL);
	assert_non_null(sim);
	set_ok(sim, "dr6", 0x4000);
	g = hwbp_sim_glue(sim);
	hwbp_regs_reset(&cpu, &regs);
	regs.u.x86.dr[1] = 0x1008;
	regs.u.x86.dr6 = 0;
	regs.u.x86.dr7 = 0x400 | DR7(1, G, RW_W, L8);
	assert_int_equal(g->write_regs(g->arg, 0, &regs), 0);
	assert_int_equal(get(sim, "dr6"), DR6_0 | 0x4000);
	access1(sim, W, 0x100f, 1, &r);
	assert_int_equal(r.cls, HWBP_SIM_DB);
	assert_int_equal(r.st.u.x86.dr6, DR6_0 | 0x4000 | 2);
	access1(sim, W, 0x1010, 1, &r);
	assert_int_equal(r.cls, HWBP_SIM_NONE);
	hwbp_sim_free(sim);
}

/*
 * The instructions beyond accesses, through the public API: MOV from DRn
 * (hwbp_sim_get_insn), single step with the filter on (an access far from
 * every slot still reaches the model while TF is set, and hwbp_sim_run()
 * counts each trap), the MOV SS shadow, and the errors.
 */
static void test_step_api(void **state)
{
	struct hwbp_sim *sim = mk("x86_64", HWBP_SIM_SDM);
	struct hwbp_sim_access far[8];
	struct hwbp_sim_access ss = { 0, 0, HWBP_SIM_MOVSS };
	struct hwbp_sim_result r;

	(void)state;
	assert_int_equal(hwbp_sim_get_insn(NULL, 0, "dr7", &r), -EINVAL);
	assert_int_equal(hwbp_sim_get_insn(sim, 1, "dr7", &r), -EINVAL);
	assert_int_equal(hwbp_sim_get_insn(sim, 0, NULL, &r), -EINVAL);
	assert_int_equal(hwbp_sim_get_insn(sim, 0, "cr4", &r), -ENOENT);
	assert_int_equal(hwbp_sim_get_insn(sim, 0, "dr7", &r), 0);
	assert_int_equal(r.cls, HWBP_SIM_NONE);
	assert_int_equal(r.nstatus, 1);
	assert_string_equal(r.status[0].name, "dr7");
	assert_int_equal(r.status[0].value, 0x400);
	for (unsigned i = 0; i < 8; i++)
		far[i] = (struct hwbp_sim_access){ 0x70000000ull + 64 * i, 4, HWBP_SIM_READ };
	/* No slot: nothing, filtered or not. */
	assert_int_equal(hwbp_sim_run(sim, 0, far, 8), 0);
	set_ok(sim, "tf", 1);
	access1(sim, HWBP_SIM_READ, far[0].addr, 4, &r);
	assert_int_equal(r.cls, HWBP_SIM_DB);
	assert_int_equal(r.timing, HWBP_TIMING_AFTER);
	assert_int_equal(r.st.u.x86.dr6, 0xffff4ff0);
	assert_int_equal(hwbp_sim_run(sim, 0, far, 8), 8);
	/* Stepped MOV from DRn: the trap's DR6, then the value read. */
	assert_int_equal(hwbp_sim_get_insn(sim, 0, "dr7", &r), 0);
	assert_int_equal(r.cls, HWBP_SIM_DB);
	assert_int_equal(r.nstatus, 2);
	assert_string_equal(r.status[1].name, "dr7");
	/* MOV SS: no trap after it; the next instruction's is the one. */
	assert_int_equal(hwbp_sim_access(sim, 0, &ss, &r), 0);
	assert_int_equal(r.cls, HWBP_SIM_NONE);
	access1(sim, HWBP_SIM_READ, far[1].addr, 4, &r);
	assert_int_equal(r.cls, HWBP_SIM_DB);
	set_ok(sim, "step", 0);
	assert_int_equal(hwbp_sim_run(sim, 0, far, 8), 0);
	/* A MOV SS shadow alone (TF clear) keeps the filter open for one
	 * instruction: nothing to report, nothing skipped wrongly. */
	assert_int_equal(hwbp_sim_access(sim, 0, &ss, &r), 0);
	access1(sim, HWBP_SIM_READ, far[2].addr, 4, &r);
	assert_int_equal(r.cls, HWBP_SIM_NONE);
	hwbp_sim_free(sim);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_quirk_rows),
		cmocka_unit_test(test_gd_on_db_entry),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_general_detect),
		cmocka_unit_test(test_dr4_dr5),
		cmocka_unit_test(test_reserved_bits),
		cmocka_unit_test(test_addr_mask_msr),
		cmocka_unit_test(test_rf_resume),
		cmocka_unit_test(test_i386_exec),
		cmocka_unit_test(test_filter_property),
		cmocka_unit_test(test_top_of_space),
		cmocka_unit_test(test_glue),
		cmocka_unit_test(test_step_api),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
