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

/* --- MSR[SE]/MSR[BE], trap and mfspr (sim/powerpc_trace.c) --- */

#define SRR1_TRACE 0x40000000ull   /* 33 */
#define SRR1_LOAD 0x10000000ull    /* 35 */
#define SRR1_STORE 0x08000000ull   /* 36 */
#define SRR1_PRIV 0x00040000ull    /* 45 */
#define SRR1_TRAP 0x00020000ull    /* 46 */
#define TR HWBP_SIM_TRACE
#define PG HWBP_SIM_PROGRAM
#define NO HWBP_SIM_NONE
#define SW HWBP_SIM_SWBP

struct step_row {
	const char *what;
	const char *cpu;
	int profile;
	int se, be, pr, hv;
	unsigned op;
	uint64_t addr;
	uint32_t size;
	enum hwbp_sim_class cls;
	uint64_t srr1;
};

static const struct step_row step_rows[] = {
	/* Trace interrupt: bit 33; 35 a load, 36 a store (dcbz too) */
	{ "SE load", "power9", SDM, 1, 0, 0, 1, RD, B + 0x100, 8, TR, SRR1_TRACE | SRR1_LOAD },
	{ "SE store", "power9", SDM, 1, 0, 0, 1, WR, B + 0x100, 2, TR, SRR1_TRACE | SRR1_STORE },
	{ "SE dcbz", "power9", SDM, 1, 0, 0, 1, ZE, B + 0x100, 0, TR, SRR1_TRACE | SRR1_STORE },
	{ "SE lxvp", "power10", SDM, 1, 0, 0, 1, RD, B + 0x120, 32, TR, SRR1_TRACE | SRR1_LOAD },
	{ "SE blr", "power9", ANY, 1, 0, 0, 1, EX, C + 0x10, 0, TR, SRR1_TRACE },
	/* QEMU helper_book3s_trace(): bit 33 only (quirk TRACE_LDST) */
	{ "SE load (qemu)", "power9", QEMU, 1, 0, 0, 1, RD, B + 0x100, 8, TR, SRR1_TRACE },
	{ "SE store (qemu)", "power10", QEMU, 1, 0, 0, 1, WR, B + 0x100, 4, TR, SRR1_TRACE },
	{ "SE dcbz (qemu)", "power8", QEMU, 1, 0, 0, 1, ZE, B + 0x100, 0, TR, SRR1_TRACE },
	/* every state traces */
	{ "SE user load", "power10", SDM, 1, 0, 1, 1, RD, B, 1, TR, SRR1_TRACE | SRR1_LOAD },
	{ "SE guest store", "power10", SDM, 1, 0, 0, 0, WR, B, 1, TR, SRR1_TRACE | SRR1_STORE },
	/* MSR[BE]: branches only; the arena's blr is one */
	{ "BE load", "power9", ANY, 0, 1, 0, 1, RD, B + 0x100, 8, NO, 0 },
	{ "BE store", "power9", ANY, 0, 1, 0, 1, WR, B + 0x100, 8, NO, 0 },
	{ "BE dcbz", "power9", ANY, 0, 1, 0, 1, ZE, B + 0x100, 0, NO, 0 },
	{ "BE blr", "power9", ANY, 0, 1, 1, 0, EX, C + 0x20, 0, TR, SRR1_TRACE },
	{ "SE and BE: one trace", "power10", ANY, 1, 1, 0, 1, EX, C + 0x20, 0, TR, SRR1_TRACE },
	{ "neither", "power10", ANY, 0, 0, 0, 1, EX, C + 0x20, 0, NO, 0 },
	/* trap: Program interrupt, bit 46, in every state, never traced */
	{ "trap", "power9", ANY, 0, 0, 0, 1, SW, 0, 0, PG, SRR1_TRAP },
	{ "trap, stepped", "power9", ANY, 1, 1, 0, 1, SW, 0, 0, PG, SRR1_TRAP },
	{ "trap, user", "power10", ANY, 0, 0, 1, 1, SW, 0, 0, PG, SRR1_TRAP },
	{ "trap, guest", "power8", ANY, 0, 0, 0, 0, SW, 0, 0, PG, SRR1_TRAP },
};

static struct hwbp_sim *new_sim(const char *name, int profile, struct hwbp_cpu *cpu)
{
	struct hwbp_sim *sim;

	assert_int_equal(hwbp_cpu_preset(name, cpu), 0);
	sim = hwbp_sim_new(cpu, profile, 2, NULL);
	assert_non_null(sim);
	return sim;
}

static void set_ok(struct hwbp_sim *sim, const char *name, uint64_t v)
{
	struct hwbp_sim_result res;

	assert_int_equal(hwbp_sim_set_reg(sim, 0, name, v, &res), 0);
	assert_int_equal(res.cls, HWBP_SIM_NONE);
}

static void run_step_row(const struct step_row *r, int profile)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim = new_sim(r->cpu, profile, &cpu);
	struct hwbp_sim_access a = { r->addr, r->size ? r->size : 4, r->op };
	struct hwbp_sim_result res;
	uint64_t v;

	set_ok(sim, "msr_se", (uint64_t)r->se);
	set_ok(sim, "msr_be", (uint64_t)r->be);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "step", &v), 0);
	assert_int_equal(v, (uint64_t)r->se);
	assert_int_equal(hwbp_sim_mode(sim, 0, "pr", (uint64_t)r->pr), 0);
	assert_int_equal(hwbp_sim_mode(sim, 0, "hv", (uint64_t)r->hv), 0);
	assert_int_equal(hwbp_sim_access(sim, 0, &a, &res), 0);
	if (res.cls != r->cls)
		fail_msg("%s [%s %s]: class %d, want %d", r->what, r->cpu, pname(profile),
			 (int)res.cls, (int)r->cls);
	if (r->cls == HWBP_SIM_NONE) {
		assert_int_equal(res.nstatus, 0);
		hwbp_sim_free(sim);
		return;
	}
	/* a trace comes after its instruction (SRR0 = the next one), a
	 * Program interrupt before it (SRR0 = the trap) */
	assert_int_equal(res.timing, r->cls == TR ? AFT : BEF);
	assert_int_equal(res.data_slots, 0);
	assert_int_equal(res.inst_slots, 0);
	assert_false(res.addr_known);
	assert_int_equal(res.nstatus, 1);
	assert_string_equal(res.status[0].name, "srr1");
	if (res.status[0].value != r->srr1)
		fail_msg("%s [%s %s]: srr1 %llx, want %llx", r->what, r->cpu, pname(profile),
			 (unsigned long long)res.status[0].value, (unsigned long long)r->srr1);
	assert_int_equal(res.st.u.ppc.vector, r->cls == TR ? 0xd00 : 0x700);
	assert_int_equal(res.st.u.ppc.srr1, r->srr1);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "srr1", &v), 0);
	assert_int_equal(v, r->srr1);
	if (r->op == EX) {
		/* SIAR names the traced instruction */
		assert_int_equal(hwbp_sim_get_reg(sim, 0, "siar", &v), 0);
		assert_int_equal(v, r->addr);
		assert_int_equal(res.st.ip, r->addr);
	}
	/* the decoder sees no slot in it: a step is not a CIABR match */
	{
		struct hwbp_hit hit;
		struct hwbp_regs regs;

		hwbp_regs_reset(&cpu, &regs);
		memset(&hit, 0, sizeof(hit));
		assert_true(hwbp_decode_status(&cpu, &regs, &res.st, &hit) < 0);
	}
	/* the instruction completed (trace) or was skipped (trap): nothing */
	assert_int_equal(hwbp_sim_resume(sim, 0, &res), 0);
	assert_int_equal(res.cls, HWBP_SIM_NONE);
	hwbp_sim_free(sim);
}

static void test_step_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(step_rows) / sizeof(step_rows[0]); i++) {
		const struct step_row *r = &step_rows[i];

		if (r->profile == ANY || r->profile == SDM)
			run_step_row(r, SDM);
		if (r->profile == ANY || r->profile == QEMU)
			run_step_row(r, QEMU);
	}
}

/* An instruction that takes a DSI does not complete: no trace, and
 * resume, which completes it, owes the trace (with MSR[SE] as it is
 * then); a second resume nothing. */
static void test_step_resume(void **state)
{
	(void)state;
	for (int profile = 0; profile < 2; profile++) {
		struct hwbp_cpu cpu;
		struct hwbp_sim *sim = new_sim("power9", profile, &cpu);
		struct hwbp_sim_access rd = { B + 0x10, 8, RD }, wr = { B + 0x14, 2, WR };
		struct hwbp_sim_result res;
		uint64_t ld = profile == SDM ? SRR1_LOAD : 0, st = profile == SDM ? SRR1_STORE : 0;

		set_ok(sim, "dawr0", B + 0x10);
		set_ok(sim, "dawrx0", DX(ALLP, R | W, 0));
		set_ok(sim, "step", 1);
		assert_int_equal(hwbp_sim_access(sim, 0, &rd, &res), 0);
		assert_int_equal(res.cls, HWBP_SIM_DSI);
		assert_int_equal(res.timing, BEF);
		assert_int_equal(hwbp_sim_resume(sim, 0, &res), 0);
		assert_int_equal(res.cls, HWBP_SIM_TRACE);
		assert_int_equal(res.timing, AFT);
		assert_int_equal(res.status[0].value, SRR1_TRACE | ld);
		assert_int_equal(hwbp_sim_resume(sim, 0, &res), 0);
		assert_int_equal(res.cls, HWBP_SIM_NONE);
		assert_int_equal(hwbp_sim_access(sim, 0, &wr, &res), 0);
		assert_int_equal(res.cls, HWBP_SIM_DSI);
		assert_int_equal(hwbp_sim_resume(sim, 0, &res), 0);
		assert_int_equal(res.status[0].value, SRR1_TRACE | st);
		/* SE cleared before resume: no trace */
		assert_int_equal(hwbp_sim_access(sim, 0, &wr, &res), 0);
		set_ok(sim, "step", 0);
		assert_int_equal(hwbp_sim_resume(sim, 0, &res), 0);
		assert_int_equal(res.cls, HWBP_SIM_NONE);
		/* BE only: a store is no branch */
		set_ok(sim, "msr_be", 1);
		assert_int_equal(hwbp_sim_access(sim, 0, &wr, &res), 0);
		assert_int_equal(res.cls, HWBP_SIM_DSI);
		assert_int_equal(hwbp_sim_resume(sim, 0, &res), 0);
		assert_int_equal(res.cls, HWBP_SIM_NONE);
		hwbp_sim_free(sim);
	}
}

/* CIABR with MSR[SE]: one trace after the blr (sdm, bits 33|43), or QEMU's
 * before it and the step trace at resume. */
static void test_step_ciabr(void **state)
{
	(void)state;
	for (int profile = 0; profile < 2; profile++) {
		struct hwbp_cpu cpu;
		struct hwbp_sim *sim = new_sim("power9", profile, &cpu);
		struct hwbp_sim_access ex = { C + 0x40, 4, EX };
		struct hwbp_sim_result res;
		uint64_t v;

		set_ok(sim, "ciabr", C + 0x43);
		set_ok(sim, "msr_se", 1);
		assert_int_equal(hwbp_sim_access(sim, 0, &ex, &res), 0);
		assert_int_equal(res.cls, HWBP_SIM_TRACE);
		assert_int_equal(res.inst_slots, 1);
		assert_int_equal(res.status[0].value, TRACE_SRR1);
		assert_int_equal(res.timing, profile == SDM ? AFT : BEF);
		assert_int_equal(hwbp_sim_get_reg(sim, 0, "srr0", &v), 0);
		assert_int_equal(v, profile == SDM ? C + 0x44 : C + 0x40);
		assert_int_equal(hwbp_sim_resume(sim, 0, &res), 0);
		if (profile == SDM) {
			assert_int_equal(res.cls, HWBP_SIM_NONE);
		} else {
			assert_int_equal(res.cls, HWBP_SIM_TRACE);
			assert_int_equal(res.timing, AFT);
			assert_int_equal(res.inst_slots, 0);
			assert_int_equal(res.status[0].value, SRR1_TRACE);
		}
		hwbp_sim_free(sim);
	}
}

/* get: mfspr of a debug SPR.  Hypervisor state: the value (or, stepped,
 * the trace and no value); problem state and a guest kernel: a
 * privileged-instruction Program interrupt; only the CPU's debug SPRs. */
static void test_get_insn(void **state)
{
	static const struct {
		const char *cpu, *reg;
		int profile, pr, hv, se;
		enum hwbp_sim_class cls;
		uint64_t srr1;
	} t[] = {
		{ "power9", "dawr0", ANY, 0, 1, 0, NO, 0 },
		{ "power9", "dawrx0", ANY, 0, 1, 0, NO, 0 },
		{ "power9", "ciabr", ANY, 0, 1, 0, NO, 0 },
		{ "power10", "dawr1", ANY, 0, 1, 0, NO, 0 },
		{ "power10", "dawrx1", ANY, 0, 1, 1, TR, SRR1_TRACE },
		{ "power9", "dawr0", ANY, 1, 1, 0, PG, SRR1_PRIV },
		{ "power9", "dawr0", ANY, 1, 1, 1, PG, SRR1_PRIV },
		{ "power10", "ciabr", ANY, 0, 0, 0, PG, SRR1_PRIV },
		{ "power8", "dawrx0", ANY, 1, 0, 0, PG, SRR1_PRIV },
		{ "power7", "dabr", ANY, 0, 1, 0, NO, 0 },
		{ "power7", "dabrx", ANY, 1, 1, 0, PG, SRR1_PRIV },
		/* quirk DABR_SUPER_READ: QEMU lets a guest kernel read DABR */
		{ "power7", "dabr", SDM, 0, 0, 0, PG, SRR1_PRIV },
		{ "power7", "dabr", QEMU, 0, 0, 0, NO, 0 },
		{ "power7", "dabrx", QEMU, 0, 0, 1, TR, SRR1_TRACE },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		for (int profile = 0; profile < 2; profile++) {
			struct hwbp_cpu cpu;
			struct hwbp_sim *sim;
			struct hwbp_sim_result res;

			if (t[i].profile != ANY && t[i].profile != profile)
				continue;
			sim = new_sim(t[i].cpu, profile, &cpu);
			set_ok(sim, t[i].reg, 0x2000 + i);
			set_ok(sim, "step", (uint64_t)t[i].se);
			assert_int_equal(hwbp_sim_mode(sim, 0, "pr", (uint64_t)t[i].pr), 0);
			assert_int_equal(hwbp_sim_mode(sim, 0, "hv", (uint64_t)t[i].hv), 0);
			assert_int_equal(hwbp_sim_get_insn(sim, 0, t[i].reg, &res), 0);
			if (res.cls != t[i].cls)
				fail_msg("get %s on %s %s pr=%d hv=%d: class %d", t[i].reg, t[i].cpu,
					 pname(profile), t[i].pr, t[i].hv, (int)res.cls);
			/* A traced mfspr completed: its value follows srr1. */
			assert_int_equal(res.nstatus, t[i].cls == TR ? 2 : 1);
			if (t[i].cls == TR) {
				assert_string_equal(res.status[1].name, t[i].reg);
				assert_int_equal(res.status[1].value, 0x2000 + i);
			}
			if (t[i].cls == NO) {
				assert_string_equal(res.status[0].name, t[i].reg);
				assert_int_equal(res.status[0].value, 0x2000 + i);
			} else {
				assert_string_equal(res.status[0].name, "srr1");
				assert_int_equal(res.status[0].value, t[i].srr1);
				assert_int_equal(res.timing, t[i].cls == TR ? AFT : BEF);
			}
			hwbp_sim_free(sim);
		}
	}
	/* names no mfspr of this CPU reads */
	{
		static const char *const bad[][2] = {
			{ "power9", "dawr1" }, { "power9", "dabr" }, { "power7", "dawr0" },
			{ "power9", "dsisr" }, { "power9", "msr_se" }, { "power9", "dr7" },
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			struct hwbp_cpu cpu;
			struct hwbp_sim *sim = new_sim(bad[i][0], SDM, &cpu);
			struct hwbp_sim_result res;

			if (hwbp_sim_get_insn(sim, 0, bad[i][1], &res) != -ENOENT)
				fail_msg("get %s on %s", bad[i][1], bad[i][0]);
			hwbp_sim_free(sim);
		}
	}
}

/*
 * The filter with MSR[SE]: a narrow DAWR would let far accesses skip the
 * model, but each one is traced: all must reach it, through
 * hwbp_sim_access() and the hot path hwbp_sim_run() alike, per CPU, and
 * the filter narrows again when SE goes.
 */
static void test_step_filter(void **state)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8, 16, 32, 64 };
	struct hwbp_sim_access run[256];

	(void)state;
	for (int profile = 0; profile < 2; profile++) {
		struct hwbp_cpu cpu;
		struct hwbp_sim *sim = new_sim("power10", profile, &cpu);
		struct hwbp_sim_result res;
		unsigned n = 0;

		set_ok(sim, "dawr0", B + 0x1000);
		set_ok(sim, "dawrx0", DX(ALLP, W, 0));
		set_ok(sim, "step", 1);
		for (uint64_t addr = 0; addr < 0x40000000ull; addr += 0x100003ull) {
			for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
				struct hwbp_sim_access a = { addr, sizes[si], RD };

				assert_int_equal(hwbp_sim_access(sim, 0, &a, &res), 0);
				if (res.cls != HWBP_SIM_TRACE)
					fail_msg("%s: read %llx size %u not traced", pname(profile),
						 (unsigned long long)addr, sizes[si]);
				if (n < 256)
					run[n++] = a;
			}
		}
		/* each access of the stream raises a trace */
		assert_int_equal(hwbp_sim_run(sim, 0, run, n), n);
		/* CPU 1 is not stepping */
		assert_int_equal(hwbp_sim_run(sim, 1, run, n), 0);
		set_ok(sim, "step", 0);
		assert_int_equal(hwbp_sim_run(sim, 0, run, n), 0);
		/* BE alone traces no data access */
		set_ok(sim, "msr_be", 1);
		assert_int_equal(hwbp_sim_run(sim, 0, run, n), 0);
		hwbp_sim_free(sim);
	}
}

/* Each quirk row of quirks_powerpc.def is complete. */
static void test_quirk_table(void **state)
{
	static const char *ids[] = {
		"HWBPI_Q_PPC_DAWRX_PRIV", "HWBPI_Q_PPC_DSISR_STORE", "HWBPI_Q_PPC_CIABR_BEFORE",
		"HWBPI_Q_PPC_DABR_INERT", "HWBPI_Q_PPC_DAWR_512", "HWBPI_Q_PPC_QUADWORD",
		"HWBPI_Q_PPC_FIRST_DAWR", "HWBPI_Q_PPC_VSX_SPLIT", "HWBPI_Q_PPC_PAIRED_SPLIT",
		"HWBPI_Q_PPC_TRACE_LDST", "HWBPI_Q_PPC_DABR_SUPER_READ",
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
		cmocka_unit_test(test_step_rows),
		cmocka_unit_test(test_step_resume),
		cmocka_unit_test(test_step_ciabr),
		cmocka_unit_test(test_get_insn),
		cmocka_unit_test(test_step_filter),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
