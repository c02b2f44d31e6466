/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the powerpc debug-unit model (sim/powerpc.c) through the
 * public simulator API.  Table-driven: each row programs raw registers,
 * sets the privilege state, performs one access and checks the exception,
 * its timing, slots and status registers.  Rows with profile ANY must hold
 * under both profiles; every quirk row of quirks_powerpc.def has rows under
 * both.  Sources per row group: Power ISA v3.1 Book III ch. 9, Linux
 * selftests ptrace-hwbreak.c / perf-hwbreak.c, QEMU 10.0 target/ppc.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>

#define ANY (-1)
#define SDM HWBP_SIM_SDM
#define QEMU HWBP_SIM_QEMU

#define B 0x10000000ull
#define C 0x10010000ull

/* DAWRX: privilege bits | WTI | WT | access bits | MRD (doublewords - 1). */
#define PRO 0x1ull
#define PNH 0x2ull
#define HYP 0x4ull
#define ALLP (PRO | PNH | HYP)
#define WTI 0x8ull
#define WT 0x10ull
#define R 0x20ull
#define W 0x40ull
#define DX(priv, rw, mrd) ((priv) | WTI | WT | (rw) | ((uint64_t)(mrd) << 10))

/* DABR low bits and DABRX. */
#define DABR_DR 0x1ull
#define DABR_DW 0x2ull
#define DABR_BT 0x4ull
#define BTI 0x8ull

#define MATCH 0x00400000ull
#define STORE 0x02000000ull
#define TRACE_SRR1 0x40100000ull

#define RD HWBP_SIM_READ
#define WR HWBP_SIM_WRITE
#define EX HWBP_SIM_EXEC
#define ZE HWBP_SIM_ZERO

#define BEF HWBP_TIMING_BEFORE
#define AFT HWBP_TIMING_AFTER

struct regw {
	const char *name;
	uint64_t value;
};

struct row {
	const char *what;
	const char *cpu;
	int profile;            /* ANY, SDM or QEMU */
	struct regw set[4];
	int pr, hv;
	unsigned op;
	uint64_t addr;
	uint32_t size;
	enum hwbp_sim_class cls;
	enum hwbp_timing timing;
	uint32_t dslots, islots;
	uint64_t st1;           /* DSI: DSISR; trace: SRR1 */
	uint64_t dar;           /* DSI only */
	bool dec;               /* hwbp_decode_status() must name the same slots */
};

#define NONE_ HWBP_SIM_NONE, BEF, 0, 0, 0, 0, false
#define DSI(slots, dsisr, dar, dec) HWBP_SIM_DSI, BEF, slots, 0, dsisr, dar, dec
#define TRC(t) HWBP_SIM_TRACE, t, 0, 1, TRACE_SRR1, 0, true

static const struct row rows[] = {
	/* --- DAWR0 basics (Book III ch. 9; ptrace-hwbreak.c MODE_EXACT) --- */
	{ "dw load hits", "power9", ANY, { { "dawr0", B + 8 }, { "dawrx0", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 8, 8, DSI(1, MATCH, B + 8, true) },
	{ "byte store, sdm store bit", "power9", SDM, { { "dawr0", B + 8 }, { "dawrx0", DX(ALLP, R | W, 0) } },
	  0, 1, WR, B + 12, 1, DSI(1, MATCH | STORE, B + 12, true) },
	{ "byte store, qemu no store bit", "power9", QEMU, { { "dawr0", B + 8 }, { "dawrx0", DX(ALLP, R | W, 0) } },
	  0, 1, WR, B + 12, 1, DSI(1, MATCH, B + 12, true) },
	{ "next doubleword misses", "power9", ANY, { { "dawr0", B + 8 }, { "dawrx0", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 16, 8, NONE_ },
	{ "previous byte misses", "power9", ANY, { { "dawr0", B + 8 }, { "dawrx0", DX(ALLP, R | W, 0) } },
	  0, 1, WR, B + 7, 1, NONE_ },
	{ "DAR = first byte of overlap (DAR OUTSIDE)", "power9", ANY,
	  { { "dawr0", B + 8 }, { "dawrx0", DX(ALLP, R | W, 0) } }, 0, 1, RD, B + 4, 8, DSI(1, MATCH, B + 8, true) },
	{ "low DAWR bits ignored", "power9", ANY, { { "dawr0", B + 13 }, { "dawrx0", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 8, 1, DSI(1, MATCH, B + 8, true) },
	{ "RO ignores stores", "power9", ANY, { { "dawr0", B }, { "dawrx0", DX(ALLP, R, 0) } },
	  0, 1, WR, B, 8, NONE_ },
	{ "RO sees loads", "power9", ANY, { { "dawr0", B }, { "dawrx0", DX(ALLP, R, 0) } },
	  0, 1, RD, B + 3, 2, DSI(1, MATCH, B + 3, true) },
	{ "WO ignores loads", "power9", ANY, { { "dawr0", B }, { "dawrx0", DX(ALLP, W, 0) } },
	  0, 1, RD, B, 8, NONE_ },
	{ "DR=DW=0 disabled", "power9", ANY, { { "dawr0", B }, { "dawrx0", DX(ALLP, 0, 0) } },
	  0, 1, WR, B, 8, NONE_ },
	{ "MRD 63: last doubleword", "power9", SDM, { { "dawr0", B + 0x200 }, { "dawrx0", DX(ALLP, R | W, 63) } },
	  0, 1, RD, B + 0x3f8, 8, DSI(1, MATCH, B + 0x3f8, true) },
	/* --- QEMU reads MRD from DAWRX bits 15..20: quirk MRD_BITS --- */
	{ "MRD 63 in QEMU: 16 bytes, the last doubleword is not watched", "power9", QEMU,
	  { { "dawr0", B + 0x200 }, { "dawrx0", DX(ALLP, R | W, 63) } },
	  0, 1, RD, B + 0x3f8, 8, NONE_ },
	{ "MRD 63 in QEMU: the second doubleword is", "power9", QEMU,
	  { { "dawr0", B + 0x200 }, { "dawrx0", DX(ALLP, R | W, 63) } },
	  0, 1, RD, B + 0x208, 8, DSI(1, MATCH, B + 0x208, true) },
	{ "MRD 1: two doublewords by the manual", "power9", SDM,
	  { { "dawr0", B + 0x200 }, { "dawrx0", DX(ALLP, R | W, 1) } },
	  0, 1, RD, B + 0x208, 8, DSI(1, MATCH, B + 0x208, true) },
	{ "MRD 1 in QEMU: one doubleword", "power9", QEMU,
	  { { "dawr0", B + 0x200 }, { "dawrx0", DX(ALLP, R | W, 1) } },
	  0, 1, RD, B + 0x208, 8, NONE_ },
	{ "MRD 63: one past", "power9", ANY, { { "dawr0", B + 0x200 }, { "dawrx0", DX(ALLP, R | W, 63) } },
	  0, 1, RD, B + 0x400, 8, NONE_ },
	{ "64-byte store over the start", "power9", SDM, { { "dawr0", B + 0x240 }, { "dawrx0", DX(ALLP, W, 1) } },
	  0, 1, WR, B + 0x220, 64, DSI(1, MATCH | STORE, B + 0x240, true) },
	{ "power8 DAWR0 too", "power8", ANY, { { "dawr0", B + 8 }, { "dawrx0", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 9, 1, DSI(1, MATCH, B + 9, true) },

	/* --- privilege (DAWRX PRO/PNH/HYP): quirk DAWRX_PRIV --- */
	{ "PRO, problem state", "power9", SDM, { { "dawr0", B }, { "dawrx0", DX(PRO, R | W, 0) } },
	  1, 1, RD, B, 8, DSI(1, MATCH, B, true) },
	{ "PRO, problem state: qemu never", "power9", QEMU, { { "dawr0", B }, { "dawrx0", DX(PRO, R | W, 0) } },
	  1, 1, RD, B, 8, NONE_ },
	{ "PRO, problem state hv=0: qemu never", "power9", QEMU, { { "dawr0", B }, { "dawrx0", DX(PRO, R | W, 0) } },
	  1, 0, RD, B, 8, NONE_ },
	{ "PRO, hypervisor state", "power9", ANY, { { "dawr0", B }, { "dawrx0", DX(PRO, R | W, 0) } },
	  0, 1, RD, B, 8, NONE_ },
	{ "PNH|HYP, problem state: sdm none", "power9", SDM, { { "dawr0", B }, { "dawrx0", DX(PNH | HYP, R | W, 0) } },
	  1, 1, RD, B, 8, NONE_ },
	{ "PNH|HYP, problem state: qemu fires", "power9", QEMU, { { "dawr0", B }, { "dawrx0", DX(PNH | HYP, R | W, 0) } },
	  1, 1, RD, B, 8, DSI(1, MATCH, B, true) },
	{ "PNH|HYP, hypervisor", "power9", ANY, { { "dawr0", B }, { "dawrx0", DX(PNH | HYP, R | W, 0) } },
	  0, 1, RD, B, 8, DSI(1, MATCH, B, true) },
	{ "PNH|HYP, guest kernel", "power9", ANY, { { "dawr0", B }, { "dawrx0", DX(PNH | HYP, R | W, 0) } },
	  0, 0, RD, B, 8, DSI(1, MATCH, B, true) },
	{ "PNH, guest kernel", "power9", ANY, { { "dawr0", B }, { "dawrx0", DX(PNH, R | W, 0) } },
	  0, 0, RD, B, 8, DSI(1, MATCH, B, true) },
	{ "PNH, hypervisor", "power9", ANY, { { "dawr0", B }, { "dawrx0", DX(PNH, R | W, 0) } },
	  0, 1, RD, B, 8, NONE_ },
	{ "PNH, guest user: sdm none", "power9", SDM, { { "dawr0", B }, { "dawrx0", DX(PNH, R | W, 0) } },
	  1, 0, RD, B, 8, NONE_ },
	{ "PNH, guest user: qemu fires", "power9", QEMU, { { "dawr0", B }, { "dawrx0", DX(PNH, R | W, 0) } },
	  1, 0, RD, B, 8, DSI(1, MATCH, B, true) },
	{ "HYP, hypervisor: sdm fires", "power9", SDM, { { "dawr0", B }, { "dawrx0", DX(HYP, R | W, 0) } },
	  0, 1, RD, B, 8, DSI(1, MATCH, B, true) },
	{ "HYP, hypervisor: qemu needs PNH", "power9", QEMU, { { "dawr0", B }, { "dawrx0", DX(HYP, R | W, 0) } },
	  0, 1, RD, B, 8, NONE_ },
	{ "HYP, guest kernel", "power9", ANY, { { "dawr0", B }, { "dawrx0", DX(HYP, R | W, 0) } },
	  0, 0, RD, B, 8, NONE_ },
	{ "no privilege bit", "power9", ANY, { { "dawr0", B }, { "dawrx0", DX(0, R | W, 0) } },
	  0, 1, RD, B, 8, NONE_ },

	/* --- translation: the sim runs with MSR[DR] = 1 --- */
	{ "WT=WTI=0 never (MSR[DR]=1)", "power9", ANY, { { "dawr0", B }, { "dawrx0", ALLP | R | W } },
	  0, 1, RD, B, 8, NONE_ },
	{ "WT=1 matches relocated", "power9", ANY, { { "dawr0", B }, { "dawrx0", ALLP | WT | R | W } },
	  0, 1, RD, B, 8, DSI(1, MATCH, B, true) },
	{ "WTI=1 ignores translation", "power9", ANY, { { "dawr0", B }, { "dawrx0", ALLP | WTI | R | W } },
	  0, 1, RD, B, 8, DSI(1, MATCH, B, true) },

	/* --- 512-byte block before v3.1: quirk DAWR_512 --- */
	/* MRD 32 at 0x1f8: QEMU watches 16 bytes there (quirk MRD_BITS), so
	 * its range crosses 0x200 too */
	{ "p9 range across 512: tail cut (sdm)", "power9", SDM,
	  { { "dawr0", B + 0x1f8 }, { "dawrx0", DX(ALLP, R | W, 32) } }, 0, 1, RD, B + 0x200, 8, NONE_ },
	{ "p9 range across 512: qemu watches tail", "power9", QEMU,
	  { { "dawr0", B + 0x1f8 }, { "dawrx0", DX(ALLP, R | W, 32) } }, 0, 1, RD, B + 0x200, 8,
	  DSI(1, MATCH, B + 0x200, false) },
	{ "p9 range across 512: head", "power9", ANY,
	  { { "dawr0", B + 0x1f0 }, { "dawrx0", DX(ALLP, R | W, 3) } }, 0, 1, RD, B + 0x1f0, 8,
	  DSI(1, MATCH, B + 0x1f0, false) },
	{ "p10 crosses 512", "power10", ANY,
	  { { "dawr0", B + 0x1f8 }, { "dawrx0", DX(ALLP, R | W, 32) } }, 0, 1, RD, B + 0x200, 8,
	  DSI(1, MATCH, B + 0x200, true) },
	{ "p10 512 bytes unaligned (perf-hwbreak)", "power10", SDM,
	  { { "dawr0", B + 0x208 }, { "dawrx0", DX(ALLP, R | W, 63) } }, 0, 1, RD, B + 0x401, 1,
	  DSI(1, MATCH, B + 0x401, false) },
	{ "same in QEMU: 16 bytes only (quirk MRD_BITS)", "power10", QEMU,
	  { { "dawr0", B + 0x208 }, { "dawrx0", DX(ALLP, R | W, 63) } }, 0, 1, RD, B + 0x401, 1, NONE_ },

	/* --- quadword accesses before v3.1: quirk QUADWORD --- */
	{ "p9 lq second half: sdm quadword match", "power9", SDM,
	  { { "dawr0", B + 0x100 }, { "dawrx0", DX(ALLP, R | W, 0) } }, 0, 1, RD, B + 0x108, 16,
	  DSI(1, MATCH, B + 0x108, false) },
	{ "p9 lq second half: qemu exact", "power9", QEMU,
	  { { "dawr0", B + 0x100 }, { "dawrx0", DX(ALLP, R | W, 0) } }, 0, 1, RD, B + 0x108, 16, NONE_ },
	{ "p9 lq overlapping: DAR = EA (sdm)", "power9", SDM,
	  { { "dawr0", B + 0x100 }, { "dawrx0", DX(ALLP, R | W, 0) } }, 0, 1, RD, B + 0xf8, 16,
	  DSI(1, MATCH, B + 0xf8, true) },
	{ "p9 lq overlapping: DAR = overlap (qemu)", "power9", QEMU,
	  { { "dawr0", B + 0x100 }, { "dawrx0", DX(ALLP, R | W, 0) } }, 0, 1, RD, B + 0xf8, 16,
	  DSI(1, MATCH, B + 0x100, true) },
	{ "p10 quadword: DAR = overlap", "power10", ANY,
	  { { "dawr0", B + 0x100 }, { "dawrx0", DX(ALLP, R | W, 0) } }, 0, 1, RD, B + 0xf8, 16,
	  DSI(1, MATCH, B + 0x100, true) },
	{ "p10 quadword second half: none", "power10", ANY,
	  { { "dawr0", B + 0x100 }, { "dawrx0", DX(ALLP, R | W, 0) } }, 0, 1, RD, B + 0x108, 16, NONE_ },
	{ "p8 stq second half: sdm", "power8", SDM,
	  { { "dawr0", B + 0x100 }, { "dawrx0", DX(ALLP, W, 0) } }, 0, 1, WR, B + 0x108, 16,
	  DSI(1, MATCH | STORE, B + 0x108, false) },
	{ "p8 stq second half: qemu", "power8", QEMU,
	  { { "dawr0", B + 0x100 }, { "dawrx0", DX(ALLP, W, 0) } }, 0, 1, WR, B + 0x108, 16, NONE_ },

	/* --- dcbz: a 128-byte store of the block --- */
	{ "dcbz hits WO", "power9", SDM, { { "dawr0", B + 0x148 }, { "dawrx0", DX(ALLP, W, 0) } },
	  0, 1, ZE, B + 0x170, 0, DSI(1, MATCH | STORE, B + 0x148, true) },
	{ "dcbz hits WO (qemu no store bit)", "power9", QEMU, { { "dawr0", B + 0x148 }, { "dawrx0", DX(ALLP, W, 0) } },
	  0, 1, ZE, B + 0x170, 0, DSI(1, MATCH, B + 0x148, true) },
	{ "dcbz ignores RO", "power9", ANY, { { "dawr0", B + 0x148 }, { "dawrx0", DX(ALLP, R, 0) } },
	  0, 1, ZE, B + 0x170, 0, NONE_ },
	{ "dcbz other block", "power9", ANY, { { "dawr0", B + 0x148 }, { "dawrx0", DX(ALLP, W, 0) } },
	  0, 1, ZE, B + 0x180, 0, NONE_ },
	{ "dcbz p10", "power10", SDM, { { "dawr1", B + 0x1f8 }, { "dawrx1", DX(ALLP, W, 0) } },
	  0, 1, ZE, B + 0x180, 0, DSI(2, MATCH | STORE, B + 0x1f8, true) },

	/* --- two DAWRs (power10; perf-hwbreak.c multi-DAWR): quirk FIRST_DAWR --- */
	{ "same addr RW/RW: both (sdm)", "power10", SDM,
	  { { "dawr0", B + 0x10 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x10 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, WR, B + 0x10, 4, DSI(3, MATCH | STORE, B + 0x10, true) },
	{ "same addr RW/RW: first only (qemu)", "power10", QEMU,
	  { { "dawr0", B + 0x10 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x10 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, WR, B + 0x10, 4, DSI(1, MATCH, B + 0x10, false) },
	{ "same addr RO/WO, store", "power10", SDM,
	  { { "dawr0", B + 0x10 }, { "dawrx0", DX(ALLP, R, 0) }, { "dawr1", B + 0x10 }, { "dawrx1", DX(ALLP, W, 0) } },
	  0, 1, WR, B + 0x10, 4, DSI(2, MATCH | STORE, B + 0x10, true) },
	{ "same addr RO/WO, store (qemu)", "power10", QEMU,
	  { { "dawr0", B + 0x10 }, { "dawrx0", DX(ALLP, R, 0) }, { "dawr1", B + 0x10 }, { "dawrx1", DX(ALLP, W, 0) } },
	  0, 1, WR, B + 0x10, 4, DSI(2, MATCH, B + 0x10, false) },
	/* dec false: with the store bit clear the decoder names both DAWRs,
	 * because QEMU never sets that bit (arch/powerpc/decode.c). */
	{ "same addr RO/WO, load", "power10", ANY,
	  { { "dawr0", B + 0x10 }, { "dawrx0", DX(ALLP, R, 0) }, { "dawr1", B + 0x10 }, { "dawrx1", DX(ALLP, W, 0) } },
	  0, 1, RD, B + 0x10, 4, DSI(1, MATCH, B + 0x10, false) },
	{ "diff addr, DAWR1 only", "power10", ANY,
	  { { "dawr0", B + 0x10 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x20 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x24, 4, DSI(2, MATCH, B + 0x24, true) },
	{ "access over both: DAR lowest (sdm)", "power10", SDM,
	  { { "dawr0", B + 0x18 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x10 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x10, 16, DSI(3, MATCH, B + 0x10, false) },
	{ "access over both: DAWR0's DAR (qemu)", "power10", QEMU,
	  { { "dawr0", B + 0x18 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x10 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x10, 16, DSI(1, MATCH, B + 0x18, true) },
	{ "DAWR0 wrong privilege, DAWR1 wins", "power10", ANY,
	  { { "dawr0", B + 0x10 }, { "dawrx0", DX(PNH, R | W, 0) }, { "dawr1", B + 0x10 }, { "dawrx1", DX(PNH | HYP, R | W, 0) } },
	  0, 1, RD, B + 0x10, 8, DSI(2, MATCH, B + 0x10, false) },

	/* --- unaligned 16 bytes (lxvd2x/stxvd2x): quirk VSX_SPLIT --- */
	/* The harness's reproducer: DAWR0 0x150, DAWR1 0x148, 16 bytes at
	 * 0x144.  One access: both match, DAR = 0x148 (sdm); QEMU's two
	 * halves: 0x144..0x14b meets DAWR1 only (qemu). */
	{ "unaligned 16 over both: one access (sdm)", "power10", SDM,
	  { { "dawr0", B + 0x150 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x148 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x144, 16, DSI(3, MATCH, B + 0x148, false) },
	{ "unaligned 16 over both: first half, DAWR1 (qemu)", "power10", QEMU,
	  { { "dawr0", B + 0x150 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x148 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x144, 16, DSI(2, MATCH, B + 0x148, true) },
	{ "unaligned 16-byte store over both (sdm)", "power10", SDM,
	  { { "dawr0", B + 0x150 }, { "dawrx0", DX(ALLP, W, 0) }, { "dawr1", B + 0x148 }, { "dawrx1", DX(ALLP, W, 0) } },
	  0, 1, WR, B + 0x144, 16, DSI(3, MATCH | STORE, B + 0x148, false) },
	{ "unaligned 16-byte store over both: first half (qemu)", "power10", QEMU,
	  { { "dawr0", B + 0x150 }, { "dawrx0", DX(ALLP, W, 0) }, { "dawr1", B + 0x148 }, { "dawrx1", DX(ALLP, W, 0) } },
	  0, 1, WR, B + 0x144, 16, DSI(2, MATCH, B + 0x148, false) },
	/* only the second half watched: the same DSI either way */
	{ "unaligned 16, second half only", "power10", ANY,
	  { { "dawr0", B + 0x150 }, { "dawrx0", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x14c, 16, DSI(1, MATCH, B + 0x150, true) },
	/* quadword aligned (lq/stq): one 16-byte access in QEMU too, so the
	 * first DAWR of the list wins over the whole quadword */
	{ "aligned 16 over both: unchanged (sdm)", "power10", SDM,
	  { { "dawr0", B + 0x148 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x140 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x140, 16, DSI(3, MATCH, B + 0x140, false) },
	{ "aligned 16 over both: unchanged, DAWR0 (qemu)", "power10", QEMU,
	  { { "dawr0", B + 0x148 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x140 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x140, 16, DSI(1, MATCH, B + 0x148, true) },
	/* power9: the first half alone (sdm widens the quadword, quirk QUADWORD) */
	{ "p9 unaligned 16, first half: sdm quadword, DAR = EA", "power9", SDM,
	  { { "dawr0", B + 0x148 }, { "dawrx0", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x144, 16, DSI(1, MATCH, B + 0x144, true) },
	{ "p9 unaligned 16, first half (qemu)", "power9", QEMU,
	  { { "dawr0", B + 0x148 }, { "dawrx0", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x144, 16, DSI(1, MATCH, B + 0x148, true) },

	/* --- 32 bytes (lxvp/stxvp): quirk PAIRED_SPLIT --- */
	/* DAWR0 0x118, DAWR1 0x110, 32 bytes at 0x108: QEMU's first 16-byte
	 * half, 0x108..0x117, meets DAWR1 alone (harness) */
	{ "lxvp over both: one access (sdm)", "power10", SDM,
	  { { "dawr0", B + 0x118 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x110 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x108, 32, DSI(3, MATCH, B + 0x110, false) },
	{ "lxvp over both: first 16-byte half, DAWR1 (qemu)", "power10", QEMU,
	  { { "dawr0", B + 0x118 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x110 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x108, 32, DSI(2, MATCH, B + 0x110, true) },
	{ "stxvp over both: first 16-byte half (qemu)", "power10", QEMU,
	  { { "dawr0", B + 0x118 }, { "dawrx0", DX(ALLP, W, 0) }, { "dawr1", B + 0x110 }, { "dawrx1", DX(ALLP, W, 0) } },
	  0, 1, WR, B + 0x108, 32, DSI(2, MATCH, B + 0x110, false) },
	/* both DAWRs in the first half: one 16-byte piece, not 8-byte ones,
	 * so DAWR0 (first in QEMU's list) wins as for one access (harness) */
	{ "lxvp, both in the first half (sdm)", "power10", SDM,
	  { { "dawr0", B + 0x108 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x100 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x100, 32, DSI(3, MATCH, B + 0x100, false) },
	{ "lxvp, both in the first half: DAWR0 (qemu)", "power10", QEMU,
	  { { "dawr0", B + 0x108 }, { "dawrx0", DX(ALLP, R | W, 0) }, { "dawr1", B + 0x100 }, { "dawrx1", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x100, 32, DSI(1, MATCH, B + 0x108, true) },
	{ "lxvp, second half only", "power10", ANY,
	  { { "dawr0", B + 0x118 }, { "dawrx0", DX(ALLP, R | W, 0) } },
	  0, 1, RD, B + 0x100, 32, DSI(1, MATCH, B + 0x118, true) },

	/* --- DABR (power7, ISA 2.06): quirk DABR_INERT --- */
	{ "DABR load", "power7", SDM, { { "dabr", (B + 0x20) | DABR_BT | DABR_DW | DABR_DR }, { "dabrx", ALLP } },
	  0, 1, RD, B + 0x24, 1, DSI(1, MATCH, B + 0x24, true) },
	{ "DABR load: qemu inert", "power7", QEMU, { { "dabr", (B + 0x20) | DABR_BT | DABR_DW | DABR_DR }, { "dabrx", ALLP } },
	  0, 1, RD, B + 0x24, 1, NONE_ },
	{ "DABR store: qemu inert", "power7", QEMU, { { "dabr", (B + 0x20) | DABR_BT | DABR_DW }, { "dabrx", ALLP | BTI } },
	  0, 1, WR, B + 0x20, 8, NONE_ },
	{ "DABR store", "power7", SDM, { { "dabr", (B + 0x20) | DABR_BT | DABR_DW }, { "dabrx", ALLP } },
	  0, 1, WR, B + 0x1c, 8, DSI(1, MATCH | STORE, B + 0x20, true) },
	{ "DABR DR ignores stores", "power7", ANY, { { "dabr", (B + 0x20) | DABR_BT | DABR_DR }, { "dabrx", ALLP } },
	  0, 1, WR, B + 0x20, 8, NONE_ },
	{ "DABR one doubleword", "power7", ANY, { { "dabr", (B + 0x20) | DABR_BT | DABR_DR }, { "dabrx", ALLP } },
	  0, 1, RD, B + 0x28, 8, NONE_ },
	{ "DABRX USER, kernel", "power7", ANY, { { "dabr", (B + 0x20) | DABR_BT | DABR_DR }, { "dabrx", PRO } },
	  0, 1, RD, B + 0x20, 8, NONE_ },
	{ "DABRX USER, user", "power7", SDM, { { "dabr", (B + 0x20) | DABR_BT | DABR_DR }, { "dabrx", PRO } },
	  1, 1, RD, B + 0x20, 8, DSI(1, MATCH, B + 0x20, true) },
	{ "DABRX KERNEL, guest kernel", "power7", SDM, { { "dabr", (B + 0x20) | DABR_BT | DABR_DR }, { "dabrx", PNH } },
	  0, 0, RD, B + 0x20, 8, DSI(1, MATCH, B + 0x20, true) },
	{ "DABR BT=0 BTI=0 never", "power7", ANY, { { "dabr", (B + 0x20) | DABR_DR }, { "dabrx", ALLP } },
	  0, 1, RD, B + 0x20, 8, NONE_ },
	{ "DABR BTI", "power7", SDM, { { "dabr", (B + 0x20) | DABR_DR }, { "dabrx", ALLP | BTI } },
	  0, 1, RD, B + 0x20, 8, DSI(1, MATCH, B + 0x20, true) },
	{ "DABR quadword (p7 pre-3.1, sdm)", "power7", SDM, { { "dabr", (B + 0x20) | DABR_BT | DABR_DR }, { "dabrx", ALLP } },
	  0, 1, RD, B + 0x28, 16, DSI(1, MATCH, B + 0x28, false) },

	/* --- CIABR (Book III §9.3): quirk CIABR_BEFORE --- */
	{ "CIABR hyp: after (sdm)", "power9", SDM, { { "ciabr", C + 0x10 + 3 } },
	  0, 1, EX, C + 0x10, 0, TRC(AFT) },
	{ "CIABR hyp: before (qemu)", "power9", QEMU, { { "ciabr", C + 0x10 + 3 } },
	  0, 1, EX, C + 0x10, 0, TRC(BEF) },
	{ "CIABR next instruction", "power9", ANY, { { "ciabr", C + 0x10 + 3 } },
	  0, 1, EX, C + 0x14, 0, NONE_ },
	{ "CIABR hyp, guest kernel", "power9", ANY, { { "ciabr", C + 0x10 + 3 } },
	  0, 0, EX, C + 0x10, 0, NONE_ },
	{ "CIABR hyp, user", "power9", ANY, { { "ciabr", C + 0x10 + 3 } },
	  1, 1, EX, C + 0x10, 0, NONE_ },
	{ "CIABR problem, user", "power10", SDM, { { "ciabr", C + 0x40 + 1 } },
	  1, 1, EX, C + 0x40, 0, TRC(AFT) },
	{ "CIABR problem, guest user", "power10", QEMU, { { "ciabr", C + 0x40 + 1 } },
	  1, 0, EX, C + 0x40, 0, TRC(BEF) },
	{ "CIABR problem, kernel", "power10", ANY, { { "ciabr", C + 0x40 + 1 } },
	  0, 1, EX, C + 0x40, 0, NONE_ },
	{ "CIABR super, guest kernel", "power8", SDM, { { "ciabr", C + 0x80 + 2 } },
	  0, 0, EX, C + 0x80, 0, TRC(AFT) },
	{ "CIABR super, hypervisor", "power8", ANY, { { "ciabr", C + 0x80 + 2 } },
	  0, 1, EX, C + 0x80, 0, NONE_ },
	{ "CIABR PRIV 00 off", "power9", ANY, { { "ciabr", C + 0x10 } },
	  0, 1, EX, C + 0x10, 0, NONE_ },
	{ "CIABR ignores data", "power9", ANY, { { "ciabr", C + 0x10 + 3 } },
	  0, 1, RD, C + 0x10, 4, NONE_ },
	{ "DAWR ignores exec", "power9", ANY, { { "dawr0", C + 0x10 }, { "dawrx0", DX(ALLP, R | W, 0) } },
	  0, 1, EX, C + 0x10, 0, NONE_ },
};

static const char *pname(int p)
{
	return p == QEMU ? "qemu" : "sdm";
}

static void run_row(const struct row *r, int profile)
{
	struct hwbp_cpu cpu;
	struct hwbp_regs regs;
	struct hwbp_sim_result res;
	struct hwbp_sim_access a = { r->addr, r->size ? r->size : 4, r->op };
	struct hwbp_sim *sim;
	int err = 0;

	assert_int_equal(hwbp_cpu_preset(r->cpu, &cpu), 0);
	sim = hwbp_sim_new(&cpu, profile, 1, &err);
	assert_non_null(sim);
	hwbp_regs_reset(&cpu, &regs);
	for (unsigned i = 0; i < 4 && r->set[i].name; i++) {
		assert_int_equal(hwbp_sim_set_reg(sim, 0, r->set[i].name, r->set[i].value, &res), 0);
		assert_int_equal(res.cls, HWBP_SIM_NONE);
		assert_int_equal(hwbp_regs_set(&cpu, &regs, r->set[i].name, r->set[i].value), 0);
	}
	assert_int_equal(hwbp_sim_mode(sim, 0, "pr", (uint64_t)r->pr), 0);
	assert_int_equal(hwbp_sim_mode(sim, 0, "hv", (uint64_t)r->hv), 0);
	assert_int_equal(hwbp_sim_priv(sim, 0), r->pr);
	assert_int_equal(hwbp_sim_access(sim, 0, &a, &res), 0);

	if (res.cls != r->cls)
		fail_msg("%s [%s %s]: class %d, want %d", r->what, r->cpu, pname(profile),
			 (int)res.cls, (int)r->cls);
	if (r->cls == HWBP_SIM_NONE) {
		assert_int_equal(res.nstatus, 0);
		hwbp_sim_free(sim);
		return;
	}
	if (res.timing != r->timing || res.data_slots != r->dslots || res.inst_slots != r->islots)
		fail_msg("%s [%s %s]: timing %d slots %x/%x, want %d %x/%x", r->what, r->cpu,
			 pname(profile), (int)res.timing, res.data_slots, res.inst_slots,
			 (int)r->timing, r->dslots, r->islots);
	if (r->cls == HWBP_SIM_DSI) {
		assert_int_equal(res.nstatus, 2);
		assert_string_equal(res.status[0].name, "dsisr");
		assert_string_equal(res.status[1].name, "dar");
		if (res.status[0].value != r->st1 || res.status[1].value != r->dar)
			fail_msg("%s [%s %s]: dsisr %llx dar %llx, want %llx %llx", r->what, r->cpu,
				 pname(profile), (unsigned long long)res.status[0].value,
				 (unsigned long long)res.status[1].value,
				 (unsigned long long)r->st1, (unsigned long long)r->dar);
		assert_true(res.addr_known);
		assert_int_equal(res.addr, r->dar);
		assert_int_equal(res.st.u.ppc.vector, 0x300);
		assert_int_equal(res.st.u.ppc.dsisr, r->st1);
		assert_int_equal(res.st.u.ppc.dar, r->dar);
	} else {
		uint64_t srr0, siar = 0;

		assert_int_equal(res.nstatus, 1);
		assert_string_equal(res.status[0].name, "srr1");
		assert_int_equal(res.status[0].value, r->st1);
		assert_int_equal(res.st.u.ppc.vector, 0xd00);
		assert_int_equal(res.st.u.ppc.srr1, r->st1);
		assert_int_equal(res.st.ip, r->addr & ~3ull);
		/* SRR0: the next instruction after completion, or the matched
		 * one when QEMU traps before; SIAR names the matched one. */
		assert_int_equal(hwbp_sim_get_reg(sim, 0, "srr0", &srr0), 0);
		assert_int_equal(hwbp_sim_get_reg(sim, 0, "siar", &siar), 0);
		if (r->timing == HWBP_TIMING_AFTER) {
			assert_int_equal(srr0, r->addr + 4);
			assert_int_equal(siar, r->addr);
		} else {
			assert_int_equal(srr0, r->addr);
			assert_int_equal(siar, 0);
		}
	}
	if (r->dec) {
		struct hwbp_hit hit;

		memset(&hit, 0, sizeof(hit));
		if (hwbp_decode_status(&cpu, &regs, &res.st, &hit) != 0 ||
		    hit.data_slots != res.data_slots || hit.inst_slots != res.inst_slots)
			fail_msg("%s [%s %s]: decoder names %x/%x, model %x/%x", r->what, r->cpu,
				 pname(profile), hit.data_slots, hit.inst_slots, res.data_slots,
				 res.inst_slots);
	}
	/* Linux steps over the access with the unit disabled: nothing more. */
	assert_int_equal(hwbp_sim_resume(sim, 0, &res), 0);
	assert_int_equal(res.cls, HWBP_SIM_NONE);
	hwbp_sim_free(sim);
}

static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];

		if (r->profile == ANY || r->profile == SDM)
			run_row(r, SDM);
		if (r->profile == ANY || r->profile == QEMU)
			run_row(r, QEMU);
	}
}

/* Only the units the CPU has (-ENOENT otherwise); reset state. */
static void test_registers(void **state)
{
	static const struct {
		const char *cpu, *reg;
		int want;
	} t[] = {
		{ "power7", "dabr", 0 }, { "power7", "dabrx", 0 }, { "power7", "dawr0", -ENOENT },
		{ "power7", "ciabr", -ENOENT }, { "power8", "dawr0", 0 }, { "power8", "dawrx0", 0 },
		{ "power8", "ciabr", 0 }, { "power8", "dabr", -ENOENT }, { "power9", "dawr1", -ENOENT },
		{ "power9", "dawrx1", -ENOENT }, { "power10", "dawr1", 0 }, { "power10", "dawrx1", 0 },
		{ "power10", "dabrx", -ENOENT }, { "power10", "dsisr", -ENOENT }, { "power9", "dr7", -ENOENT },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct hwbp_cpu cpu;
		struct hwbp_sim_result res;
		struct hwbp_sim *sim;
		uint64_t v = 1;

		assert_int_equal(hwbp_cpu_preset(t[i].cpu, &cpu), 0);
		sim = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 2, NULL);
		assert_non_null(sim);
		if (hwbp_sim_set_reg(sim, 1, t[i].reg, 0x1234, &res) != t[i].want)
			fail_msg("set %s on %s", t[i].reg, t[i].cpu);
		if (t[i].want == 0) {
			assert_int_equal(hwbp_sim_get_reg(sim, 1, t[i].reg, &v), 0);
			assert_int_equal(v, 0x1234);
			/* registers are per CPU; CPU 0 is still at reset */
			assert_int_equal(hwbp_sim_get_reg(sim, 0, t[i].reg, &v), 0);
			assert_int_equal(v, 0);
		}
		hwbp_sim_free(sim);
	}
}

/* pr/hv keys, values 0/1; reset is a bare-metal kernel (pr=0 hv=1). */
static void test_mode(void **state)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim;
	struct hwbp_sim_result res;
	struct hwbp_sim_access a = { B, 8, HWBP_SIM_READ };

	(void)state;
	assert_int_equal(hwbp_cpu_preset("power9", &cpu), 0);
	sim = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 1, NULL);
	assert_non_null(sim);
	assert_int_equal(hwbp_sim_priv(sim, 0), 0);
	assert_int_equal(hwbp_sim_mode(sim, 0, "pr", 2), -EINVAL);
	assert_int_equal(hwbp_sim_mode(sim, 0, "hv", 7), -EINVAL);
	assert_int_equal(hwbp_sim_mode(sim, 0, "el", 0), -ENOENT);
	assert_int_equal(hwbp_sim_mode(sim, 0, "cpl", 3), -ENOENT);
	/* HYP-only DAWR: fires at reset (hypervisor state) */
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "dawr0", B, &res), 0);
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "dawrx0", DX(HYP, R, 0), &res), 0);
	assert_int_equal(hwbp_sim_access(sim, 0, &a, &res), 0);
	assert_int_equal(res.cls, HWBP_SIM_DSI);
	/* the filter follows mode changes */
	assert_int_equal(hwbp_sim_mode(sim, 0, "hv", 0), 0);
	assert_int_equal(hwbp_sim_access(sim, 0, &a, &res), 0);
	assert_int_equal(res.cls, HWBP_SIM_NONE);
	assert_int_equal(hwbp_sim_mode(sim, 0, "hv", 1), 0);
	assert_int_equal(hwbp_sim_mode(sim, 0, "pr", 1), 0);
	assert_int_equal(hwbp_sim_priv(sim, 0), 1);
	assert_int_equal(hwbp_sim_access(sim, 0, &a, &res), 0);
	assert_int_equal(res.cls, HWBP_SIM_NONE);
	hwbp_sim_free(sim);
}

/*
 * The filter must be conservative: sweep accesses of every size class over
 * a window around a watched range and compare with the rule computed here.
 */
static void test_sweep(void **state)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8, 16, 32, 64 };
	static const char *cpus[] = { "power8", "power9", "power10" };

	(void)state;
	for (size_t ci = 0; ci < 3; ci++) {
		for (int profile = 0; profile < 2; profile++) {
			struct hwbp_cpu cpu;
			struct hwbp_sim *sim;
			struct hwbp_sim_result res;
			uint64_t lo = B + 0x1c8, last = B + 0x1c8 + 10 * 8 - 1;  /* crosses 0x200 */
			bool pre31;

			assert_int_equal(hwbp_cpu_preset(cpus[ci], &cpu), 0);
			pre31 = cpu.u.ppc.isa < 310;
			if (pre31 && profile == SDM)
				last = B + 0x1ff;  /* cut at the 512-byte block */
			if (profile == QEMU)
				last = lo + 7;     /* MRD 9 read from bits 15..20: 0 (quirk MRD_BITS) */
			sim = hwbp_sim_new(&cpu, profile, 1, NULL);
			assert_non_null(sim);
			assert_int_equal(hwbp_sim_set_reg(sim, 0, "dawr0", B + 0x1c8, &res), 0);
			assert_int_equal(hwbp_sim_set_reg(sim, 0, "dawrx0", DX(PNH | HYP, R | W, 9), &res), 0);
			for (uint64_t addr = B + 0x100; addr < B + 0x300; addr++) {
				for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
					struct hwbp_sim_access a = { addr, sizes[si], HWBP_SIM_WRITE };
					uint64_t l = lo, h = last, alast = addr + sizes[si] - 1;
					bool want;

					if (pre31 && profile == SDM && sizes[si] == 16) {
						l &= ~15ull;
						h |= 15;
					}
					want = addr <= h && l <= alast;
					assert_int_equal(hwbp_sim_access(sim, 0, &a, &res), 0);
					if ((res.cls == HWBP_SIM_DSI) != want)
						fail_msg("%s %s: write %llx size %u: %d", cpus[ci], pname(profile),
							 (unsigned long long)addr, sizes[si], (int)res.cls);
				}
			}
			hwbp_sim_free(sim);
		}
	}
}

/* Each quirk row of quirks_powerpc.def is complete. */
static void test_quirk_table(void **state)
{
	static const char *ids[] = {
		"HWBPI_Q_PPC_DAWRX_PRIV", "HWBPI_Q_PPC_DSISR_STORE", "HWBPI_Q_PPC_CIABR_BEFORE",
		"HWBPI_Q_PPC_DABR_INERT", "HWBPI_Q_PPC_DAWR_512", "HWBPI_Q_PPC_QUADWORD",
		"HWBPI_Q_PPC_FIRST_DAWR", "HWBPI_Q_PPC_VSX_SPLIT", "HWBPI_Q_PPC_PAIRED_SPLIT",
	};
	unsigned found = 0;
	const struct hwbp_sim_quirk *q;

	(void)state;
	for (unsigned i = 0; (q = hwbp_sim_quirk(i)) != NULL; i++) {
		if (strcmp(q->arch, "powerpc") != 0)
			continue;
		assert_true(strlen(q->sdm) > 20 && strlen(q->qemu) > 20 && strlen(q->evidence) > 20);
		for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++)
			if (strcmp(q->id, ids[k]) == 0)
				found |= 1u << k;
	}
	assert_int_equal(found, (1u << (sizeof(ids) / sizeof(ids[0]))) - 1);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_quirk_table),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
