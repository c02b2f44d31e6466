/* SPDX-License-Identifier: MIT */
/*
 * The arm64 debug-unit model (sim/arm64.c, sim/arm64_regs.c) through the
 * public simulator API.  Every table row cites what it encodes: Arm ARM D2
 * "AArch64 Self-hosted Debug" (enabling, breakpoint and watchpoint
 * exceptions, the FAR window), the D19 / System register descriptions
 * (DBGWCR, DBGBCR, MDSCR_EL1, OSLAR/OSLSR, ESR_EL1), and for the qemu
 * profile the QEMU 10.0 functions (target/arm/debug_helper.c,
 * accel/tcg/watchpoint.c, target/arm/tcg/helper-a64.c).  The qemu rows were
 * also checked on qemu-system-aarch64 10.0.2 (-M virt -cpu cortex-a57, a
 * bare-metal EL1 program): OS lock ignored, FAR of two matching
 * watchpoints, DC ZVA FAR, non-contiguous BAS, breakpoint ESR 0xc6000022
 * with FAR 0.
 */
#include "sim_arm64_util.h"

#include <errno.h>
#include <string.h>

struct row {
	const char *why;
	int prof;          /* BOTH, SDM or QEMU */
	int quirk;         /* quirk exercised, or -1 */
	const char *preset;
	struct kv regs[8];
	int el;
	uint32_t op;
	uint64_t addr;
	uint32_t size;
	int cls;
	uint32_t slots;    /* data_slots (WP) or inst_slots (BP) */
	uint64_t esr, far;
	bool dec;          /* hwbp_decode_status() must name exactly these slots */
};

static const struct row rows[] = {
	/* ---- enabling: D2 "Enabling debug exceptions", AArch64.GenerateDebugExceptionsFrom ---- */
	{ "reset: OS lock set suppresses the watchpoint (D2 The OS Lock)", SDM, QOS, "cortex-a57",
	  { { "daif_d", 0 }, { "mdscr", MDE | KDE }, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  1, W, A, 8, NO, 0, 0, 0, false },
	{ "reset: QEMU tests OSLSR bit 0, not OSLK: fires", QEMU, QOS, "cortex-a57",
	  { { "daif_d", 0 }, { "mdscr", MDE | KDE }, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  1, W, A, 8, WP, 1, ESR_WP_EL1_W, A, true },
	{ "OS lock cleared by OSLAR_EL1 = 0: fires", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  1, W, A, 8, WP, 1, ESR_WP_EL1_W, A, true },
	{ "OS lock set again by OSLAR_EL1 = 1", SDM, QOS, "cortex-a57",
	  { EN, { "oslar", 1 }, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  1, R, A, 1, NO, 0, 0, 0, false },
	{ "OS lock set again: QEMU still fires", QEMU, QOS, "cortex-a57",
	  { EN, { "oslar", 1 }, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  1, R, A, 1, WP, 1, ESR_WP_EL1_R, A, true },
	{ "OS lock set, from EL0", SDM, QOS, "cortex-a57",
	  { { "mdscr", MDE }, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  0, R, A, 1, NO, 0, 0, 0, false },
	{ "OS lock set, from EL0: QEMU fires", QEMU, QOS, "cortex-a57",
	  { { "mdscr", MDE }, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  0, R, A, 1, WP, 1, ESR_WP_EL0_R, A, true },
	{ "MDSCR_EL1.MDE = 0: no breakpoint/watchpoint exceptions at all", BOTH, NQ, "cortex-a57",
	  { EN, { "mdscr", KDE }, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  0, R, A, 8, NO, 0, 0, 0, false },
	{ "KDE = 0: no same-EL (EL1) debug exceptions", BOTH, NQ, "cortex-a57",
	  { EN, { "mdscr", MDE }, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  1, R, A, 8, NO, 0, 0, 0, false },
	{ "KDE = 0 does not matter from EL0 (target EL1 is higher)", BOTH, NQ, "cortex-a57",
	  { EN, { "mdscr", MDE }, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  0, R, A, 8, WP, 1, ESR_WP_EL0_R, A, true },
	{ "PSTATE.D = 1 masks same-EL debug exceptions (reset value)", BOTH, NQ, "cortex-a57",
	  { EN, { "daif_d", 1 }, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  1, W, A, 8, NO, 0, 0, 0, false },
	{ "PSTATE.D = 1 does not mask EL0 -> EL1", BOTH, NQ, "cortex-a57",
	  { EN, { "daif_d", 1 }, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  0, W, A, 8, WP, 1, ESR_WP_EL0_W, A, true },

	/* ---- PAC / SSC: DBGWCR.PAC with HMC = 0, SSC = 0b00 ---- */
	{ "PAC 0b01 (EL1 only) ignores EL0 accesses", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 1, 0) } }, 0, W, A, 8, NO, 0, 0, 0, false },
	{ "PAC 0b01 (EL1 only) at EL1", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 1, 0) } }, 1, W, A, 8, WP, 1, ESR_WP_EL1_W, A, true },
	{ "PAC 0b10 (EL0 only) ignores EL1 accesses", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 2, 0) } }, 1, R, A, 8, NO, 0, 0, 0, false },
	{ "PAC 0b10 (EL0 only) at EL0", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 2, 0) } }, 0, R, A, 8, WP, 1, ESR_WP_EL0_R, A, true },
	{ "PAC 0b00 reserved: choice, matches no EL (as QEMU)", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 0, 0) } }, 1, R, A, 8, NO, 0, 0, 0, false },
	{ "SSC 0b10 (Secure only) never matches in Non-secure state", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) | 2ull << 14 } }, 1, R, A, 8, NO, 0, 0, 0, false },
	{ "WT = 1 (linked to a context breakpoint): not modelled, no match", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) | 1ull << 20 } }, 1, R, A, 8, NO, 0, 0, 0, false },

	/* ---- LSC: 01 load, 10 store, 11 both; DC ZVA is a store ---- */
	{ "LSC load: a load hits, WnR = 0", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 1, 3, 0) } }, 1, R, A + 2, 2, WP, 1, ESR_WP_EL1_R, A + 2, true },
	{ "LSC load: a store does not", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 1, 3, 0) } }, 1, W, A, 8, NO, 0, 0, 0, false },
	{ "LSC load: DC ZVA (a store) does not", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 1, 3, 0) } }, 1, Z, A, 64, NO, 0, 0, 0, false },
	{ "LSC store: a store hits, WnR = 1", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 2, 3, 0) } }, 1, W, A + 7, 1, WP, 1, ESR_WP_EL1_W, A + 7, true },
	{ "LSC store: a load does not", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 2, 3, 0) } }, 1, R, A, 8, NO, 0, 0, 0, false },
	{ "LSC 0b00 reserved: never matches", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 0, 3, 0) } }, 1, W, A, 8, NO, 0, 0, 0, false },

	/* ---- BAS: byte select in the doubleword at DBGWVR ---- */
	{ "BAS 0x0f: bytes 0..3; an access to bytes 4..7 misses", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0x0f, 3, 3, 0) } }, 1, R, A + 4, 4, NO, 0, 0, 0, false },
	{ "BAS 0x0f: a 4-byte access at byte 2 hits, FAR = byte 2", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0x0f, 3, 3, 0) } }, 1, R, A + 2, 4, WP, 1, ESR_WP_EL1_R, A + 2, true },
	{ "BAS 0x30: an 8-byte store at byte 0, FAR = lowest watched byte 4", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0x30, 3, 3, 0) } }, 1, W, A, 8, WP, 1, ESR_WP_EL1_W, A + 4, true },
	{ "BAS 0x80 (byte 7) and a 64-byte vector load: FAR = byte 63", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A + 56 }, { "dbgwcr0", WCR(0x80, 3, 3, 0) } }, 1, R, A, 64, WP, 1, ESR_WP_EL1_R, A + 63, true },
	{ "DBGWVR[1:0] are RES0: ignored", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A | 3 }, { "dbgwcr0", WCR(0x01, 3, 3, 0) } }, 1, R, A, 1, WP, 1, ESR_WP_EL1_R, A, false },
	{ "DBGWVR[2] = 1 (word): BAS[3:0] select bytes of the word at A+4", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A + 4 }, { "dbgwcr0", WCR(0x01, 3, 3, 0) } }, 1, R, A + 4, 1, WP, 1, ESR_WP_EL1_R, A + 4, true },
	{ "DBGWVR[2] = 1: the bytes below the word are not watched", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A + 4 }, { "dbgwcr0", WCR(0x01, 3, 3, 0) } }, 1, R, A, 4, NO, 0, 0, 0, false },
	{ "DBGWVR[2] = 1: BAS[7:4] are ignored", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A + 4 }, { "dbgwcr0", WCR(0xf0, 3, 3, 0) } }, 1, R, A, 8, NO, 0, 0, 0, false },
	{ "BAS 0: watches nothing", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0x00, 3, 3, 0) } }, 1, R, A, 8, NO, 0, 0, 0, false },
	{ "non-contiguous BAS 0x81: sdm choice, byte 7 is watched", SDM, QBAS, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0x81, 3, 3, 0) } }, 1, R, A + 7, 1, WP, 1, ESR_WP_EL1_R, A + 7, false },
	{ "non-contiguous BAS 0x81: QEMU keeps the first run only", QEMU, QBAS, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0x81, 3, 3, 0) } }, 1, R, A + 7, 1, NO, 0, 0, 0, false },
	{ "non-contiguous BAS 0x81: byte 0 matches either way", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0x81, 3, 3, 0) } }, 1, R, A, 1, WP, 1, ESR_WP_EL1_R, A, false },
	{ "non-contiguous BAS 0x81: the hole (bytes 1..6) misses", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0x81, 3, 3, 0) } }, 1, R, A + 2, 4, NO, 0, 0, 0, false },

	/* ---- MASK: 2^MASK bytes, MASK 3..31 ---- */
	{ "MASK 4: 16 bytes, last byte", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 4) } }, 1, R, A + 15, 1, WP, 1, ESR_WP_EL1_R, A + 15, true },
	{ "MASK 4: the byte after the block misses", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 4) } }, 1, R, A + 16, 8, NO, 0, 0, 0, false },
	{ "MASK 4: an access straddling the start, FAR = block start", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 4) } }, 1, W, A - 4, 8, WP, 1, ESR_WP_EL1_W, A, true },
	{ "MASK 31: 2 GiB at 0, last byte", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", 0 }, { "dbgwcr0", WCR(0xff, 3, 3, 31) } }, 1, R, 0x7fffffffull, 1, WP, 1, ESR_WP_EL1_R, 0x7fffffffull, true },
	{ "MASK 31: 2 GiB at 0, first byte past it", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", 0 }, { "dbgwcr0", WCR(0xff, 3, 3, 31) } }, 1, R, 0x80000000ull, 1, NO, 0, 0, 0, false },
	{ "MASK 12 with DBGWVR bits below the mask set: choice, ignored (as QEMU)", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A + 0x800 }, { "dbgwcr0", WCR(0xff, 3, 3, 12) } }, 1, R, A, 1, WP, 1, ESR_WP_EL1_R, A, false },
	{ "MASK 5 with BAS 0x01: choice, BAS ignored (as QEMU)", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0x01, 3, 3, 5) } }, 1, R, A + 31, 1, WP, 1, ESR_WP_EL1_R, A + 31, false },
	{ "MASK 1 reserved: choice, disabled (as QEMU)", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 1) } }, 1, R, A, 8, NO, 0, 0, 0, false },
	{ "MASK 2 reserved: choice, disabled (as QEMU)", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 2) } }, 1, R, A, 8, NO, 0, 0, 0, false },

	/* ---- several watchpoints: every match is reported; FAR choice ---- */
	{ "wp0 bytes 4..7, wp1 bytes 0..3, 8-byte load: sdm FAR = lowest watched byte", SDM, QFAR, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xf0, 3, 3, 0) }, { "dbgwvr1", A }, { "dbgwcr1", WCR(0x0f, 3, 3, 0) } },
	  1, R, A, 8, WP, 3, ESR_WP_EL1_R, A, false },
	{ "same: QEMU reports the first watchpoint of its list (wp0)", QEMU, QFAR, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xf0, 3, 3, 0) }, { "dbgwvr1", A }, { "dbgwcr1", WCR(0x0f, 3, 3, 0) } },
	  1, R, A, 8, WP, 3, ESR_WP_EL1_R, A + 4, false },
	{ "wp0 at A+8, wp1 at A, 16-byte store pair: sdm FAR = A", SDM, QFAR, "cortex-a57",
	  { EN, { "dbgwvr0", A + 8 }, { "dbgwcr0", WCR(0xff, 3, 3, 0) }, { "dbgwvr1", A }, { "dbgwcr1", WCR(0xff, 3, 3, 0) } },
	  1, W, A, 16, WP, 3, ESR_WP_EL1_W, A, false },
	{ "same: QEMU FAR = MAX(A, wp0 start) = A+8", QEMU, QFAR, "cortex-a57",
	  { EN, { "dbgwvr0", A + 8 }, { "dbgwcr0", WCR(0xff, 3, 3, 0) }, { "dbgwvr1", A }, { "dbgwcr1", WCR(0xff, 3, 3, 0) } },
	  1, W, A, 16, WP, 3, ESR_WP_EL1_W, A + 8, false },
	{ "wp1 written before wp0, 16-byte store at A: QEMU's list starts with wp1, FAR = A",
	  QEMU, QFAR, "cortex-a57",
	  { EN, { "dbgwvr1", A }, { "dbgwcr1", WCR(0xff, 3, 3, 0) }, { "dbgwvr0", A + 8 }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
	  1, W, A, 16, WP, 3, ESR_WP_EL1_W, A, false },
	/* LD1/ST1 of 32 bytes: one access in the manual, 8-byte pieces in QEMU. */
	{ "ST1 32 bytes over wp1 (A+8) and wp0 (A+0x18): one access, both match", SDM, QVEC, "cortex-a57",
	  { EN, { "dbgwvr0", A + 0x18 }, { "dbgwcr0", WCR(0xff, 3, 3, 0) }, { "dbgwvr1", A + 8 }, { "dbgwcr1", WCR(0xff, 3, 3, 0) } },
	  1, W, A, 32, WP, 3, ESR_WP_EL1_W, A + 8, false },
	{ "same in QEMU: the piece at A+8 fires first, wp1 alone", QEMU, QVEC, "cortex-a57",
	  { EN, { "dbgwvr0", A + 0x18 }, { "dbgwcr0", WCR(0xff, 3, 3, 0) }, { "dbgwvr1", A + 8 }, { "dbgwcr1", WCR(0xff, 3, 3, 0) } },
	  1, W, A, 32, WP, 2, ESR_WP_EL1_W, A + 8, true },
	{ "wp0 lower than wp1: both profiles FAR = A", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) }, { "dbgwvr1", A + 8 }, { "dbgwcr1", WCR(0xff, 3, 3, 0) } },
	  1, R, A + 4, 8, WP, 3, ESR_WP_EL1_R, A + 4, false },
	{ "a disabled (E = 0) slot is never reported", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) & ~1ull }, { "dbgwvr1", A }, { "dbgwcr1", WCR(0xff, 3, 3, 0) } },
	  1, R, A, 8, WP, 2, ESR_WP_EL1_R, A, true },
	{ "arm64-max16: the 16th watchpoint works", BOTH, NQ, "arm64-max16",
	  { EN, { "dbgwvr15", A + 0x100 }, { "dbgwcr15", WCR(0x0c, 2, 3, 0) } }, 0, W, A + 0x100, 8, WP, 1u << 15, ESR_WP_EL0_W, A + 0x102, true },

	/* ---- DC ZVA: a store of the whole 64-byte block ---- */
	{ "DC ZVA of the block: sdm FAR = lowest watched byte of the block", SDM, QZVA, "cortex-a57",
	  { EN, { "dbgwvr0", A + 0x20 }, { "dbgwcr0", WCR(0xff, 2, 3, 0) } }, 1, Z, A + 0x24, 64, WP, 1, ESR_WP_EL1_W, A + 0x20, true },
	{ "DC ZVA, operand byte watched: QEMU FAR = the operand", QEMU, QZVA, "cortex-a57",
	  { EN, { "dbgwvr0", A + 0x20 }, { "dbgwcr0", WCR(0xff, 2, 3, 0) } }, 1, Z, A + 0x24, 64, WP, 1, ESR_WP_EL1_W, A + 0x24, true },
	{ "DC ZVA, operand not watched: FAR = watchpoint start either way", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A + 0x20 }, { "dbgwcr0", WCR(0xff, 2, 3, 0) } }, 1, Z, A + 0x08, 64, WP, 1, ESR_WP_EL1_W, A + 0x20, true },
	{ "DC ZVA of the next block misses", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A + 0x20 }, { "dbgwcr0", WCR(0xff, 2, 3, 0) } }, 1, Z, A + 0x40, 64, NO, 0, 0, 0, false },
	{ "DC ZVA inside a 128-byte MASK block: sdm FAR = block start", SDM, QZVA, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 7) } }, 1, Z, A + 0x50, 64, WP, 1, ESR_WP_EL1_W, A + 0x40, true },
	{ "same: QEMU FAR = the operand", QEMU, QZVA, "cortex-a57",
	  { EN, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 7) } }, 1, Z, A + 0x50, 64, WP, 1, ESR_WP_EL1_W, A + 0x50, true },
	{ "DC ZVA from EL0: EC 0x34, WnR", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", A + 0x38 }, { "dbgwcr0", WCR(0x01, 3, 2, 0) } }, 0, Z, A + 0x38, 64, WP, 1, ESR_WP_EL0_W, A + 0x38, true },

	/* ---- breakpoints: D2 "Breakpoint exceptions", BT = 0b0000 ---- */
	{ "breakpoint at EL1: EC 0x31, ELR = address, FAR 0", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgbvr0", C }, { "dbgbcr0", BCR(0xf, 3, 0) } }, 1, X, C, 4, BP, 1, ESR_BP_EL1, 0, true },
	{ "breakpoint: the next instruction does not match", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgbvr0", C }, { "dbgbcr0", BCR(0xf, 3, 0) } }, 1, X, C + 4, 4, NO, 0, 0, 0, false },
	{ "breakpoint at EL0: EC 0x30", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgbvr5", C + 8 }, { "dbgbcr5", BCR(0xf, 2, 0) } }, 0, X, C + 8, 4, BP, 1u << 5, ESR_BP_EL0, 0, true },
	{ "breakpoint PMC EL1-only at EL0: no match", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgbvr0", C }, { "dbgbcr0", BCR(0xf, 1, 0) } }, 0, X, C, 4, NO, 0, 0, 0, false },
	{ "breakpoint, OS lock set: sdm none", SDM, QOS, "cortex-a57",
	  { { "daif_d", 0 }, { "mdscr", MDE | KDE }, { "dbgbvr0", C }, { "dbgbcr0", BCR(0xf, 3, 0) } }, 1, X, C, 4, NO, 0, 0, 0, false },
	{ "breakpoint, OS lock set: QEMU fires", QEMU, QOS, "cortex-a57",
	  { { "daif_d", 0 }, { "mdscr", MDE | KDE }, { "dbgbvr0", C }, { "dbgbcr0", BCR(0xf, 3, 0) } }, 1, X, C, 4, BP, 1, ESR_BP_EL1, 0, true },
	{ "breakpoint, MDE = 0: none", BOTH, NQ, "cortex-a57",
	  { EN, { "mdscr", KDE }, { "dbgbvr0", C }, { "dbgbcr0", BCR(0xf, 3, 0) } }, 0, X, C, 4, NO, 0, 0, 0, false },
	{ "breakpoint, PSTATE.D = 1 at EL1: none", BOTH, NQ, "cortex-a57",
	  { EN, { "daif_d", 1 }, { "dbgbvr0", C }, { "dbgbcr0", BCR(0xf, 3, 0) } }, 1, X, C, 4, NO, 0, 0, 0, false },
	{ "breakpoint BAS 0b0011: BAS[0] set, matches the A64 instruction", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgbvr0", C }, { "dbgbcr0", BCR(0x3, 3, 0) } }, 1, X, C, 4, BP, 1, ESR_BP_EL1, 0, false },
	{ "breakpoint BAS 0b1100: the halfword at +2, never an A64 instruction", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgbvr0", C }, { "dbgbcr0", BCR(0xc, 3, 0) } }, 1, X, C, 4, NO, 0, 0, 0, false },
	{ "breakpoint BT 0b0001 (linked): not modelled, no match", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgbvr0", C }, { "dbgbcr0", BCR(0xf, 3, 1) } }, 1, X, C, 4, NO, 0, 0, 0, false },
	{ "breakpoint BT 0b0010 (context ID): no address match", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgbvr0", C }, { "dbgbcr0", BCR(0xf, 3, 2) } }, 1, X, C, 4, NO, 0, 0, 0, false },
	{ "DBGBVR[1:0] are RES0", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgbvr0", C | 3 }, { "dbgbcr0", BCR(0xf, 3, 0) } }, 1, X, C, 4, BP, 1, ESR_BP_EL1, 0, false },
	{ "misaligned PC: PC alignment fault first, no breakpoint", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgbvr0", C }, { "dbgbcr0", BCR(0xf, 3, 0) } }, 1, X, C + 2, 4, NO, 0, 0, 0, false },
	{ "two breakpoints on one instruction: both reported", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgbvr0", C }, { "dbgbcr0", BCR(0xf, 3, 0) }, { "dbgbvr3", C }, { "dbgbcr3", BCR(0xf, 1, 0) } },
	  1, X, C, 4, BP, 9, ESR_BP_EL1, 0, true },
	{ "a watchpoint never fires on execution, a breakpoint never on data", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", C }, { "dbgwcr0", WCR(0xff, 3, 3, 0) }, { "dbgbvr0", A }, { "dbgbcr0", BCR(0xf, 3, 0) } },
	  1, X, C, 4, NO, 0, 0, 0, false },
	{ "... and data at a breakpoint address", BOTH, NQ, "cortex-a57",
	  { EN, { "dbgwvr0", C }, { "dbgwcr0", WCR(0xff, 3, 3, 0) }, { "dbgbvr0", A }, { "dbgbcr0", BCR(0xf, 3, 0) } },
	  1, R, A, 8, NO, 0, 0, 0, false },
};

static void run_row(const struct row *w, int profile)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim = make(w->preset, profile, &cpu);
	struct hwbp_sim_access a = { w->addr, w->size, w->op };
	struct hwbp_sim_result r, u;
	struct hwbp_regs regs;
	uint64_t v;

	hwbp_regs_reset(&cpu, &regs);
	for (unsigned k = 0; k < N(w->regs) && w->regs[k].n; k++) {
		assert_int_equal(hwbp_sim_set_reg(sim, 0, w->regs[k].n, w->regs[k].v, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_NONE);
		(void)hwbp_regs_set(&cpu, &regs, w->regs[k].n, w->regs[k].v);
	}
	assert_int_equal(hwbp_sim_mode(sim, 0, "el", (uint64_t)w->el), 0);
	assert_int_equal(hwbp_sim_priv(sim, 0), w->el == 0 ? 1 : 0);

	assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), 0);
	/* The filter may only skip what the model would report as none. */
	assert_int_equal(hwbpi_sim_access_unfiltered(sim, 0, &a, &u), 0);
	assert_memory_equal(&r, &u, sizeof(r));

	if ((int)r.cls != w->cls)
		fail_msg("%s [%s]: class %d, want %d", w->why, profile ? "qemu" : "sdm", r.cls, w->cls);
	if (w->cls == NO) {
		assert_int_equal(r.data_slots | r.inst_slots, 0);
		assert_int_equal(r.nstatus, 0);
		hwbp_sim_free(sim);
		return;
	}
	assert_int_equal(r.timing, HWBP_TIMING_BEFORE);
	assert_int_equal(w->cls == WP ? r.data_slots : r.inst_slots, w->slots);
	assert_int_equal(w->cls == WP ? r.inst_slots : r.data_slots, 0);
	assert_int_equal(r.nstatus, 2);
	assert_string_equal(r.status[0].name, "esr");
	assert_string_equal(r.status[1].name, "far");
	if (r.status[0].value != w->esr || r.status[1].value != w->far)
		fail_msg("%s [%s]: esr 0x%llx far 0x%llx, want 0x%llx 0x%llx", w->why,
			 profile ? "qemu" : "sdm", (unsigned long long)r.status[0].value,
			 (unsigned long long)r.status[1].value, (unsigned long long)w->esr,
			 (unsigned long long)w->far);
	assert_int_equal(r.st.u.arm64.esr, w->esr);
	assert_int_equal(r.st.u.arm64.far, w->far);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "esr", &v), 0);
	assert_int_equal(v, w->esr);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "far", &v), 0);
	assert_int_equal(v, w->far);
	if (w->cls == WP) {
		assert_true(r.addr_known);
		assert_int_equal(r.addr, w->far);
		assert_int_equal(r.st.ip, 0);
	} else {
		assert_false(r.addr_known);
		assert_int_equal(r.st.ip, w->addr);
		assert_int_equal(hwbp_sim_get_reg(sim, 0, "elr", &v), 0);
		assert_int_equal(v, w->addr);
	}
	if (w->dec) {
		/* A kernel decoding ESR/FAR/ELR names the same slots. */
		struct hwbp_hit hit;

		memset(&hit, 0, sizeof(hit));
		assert_int_equal(hwbp_decode_status(&cpu, &regs, &r.st, &hit), 0);
		assert_int_equal(hit.data_slots, r.data_slots);
		assert_int_equal(hit.inst_slots, r.inst_slots);
	}
	/* Resume: the step completes with no exception. */
	assert_int_equal(hwbp_sim_resume(sim, 0, &u), 0);
	assert_int_equal(u.cls, HWBP_SIM_NONE);
	hwbp_sim_free(sim);
}

static void test_rows(void **state)
{
	(void)state;
	RUN_ROWS(rows, run_row);
}

/*
 * Every arm64 quirk row has a table row under each profile, and they
 * differ: here in rows, or in test_sim_arm64_step.c's tables for those
 * that are its own (step_quirk()).
 */
static void test_quirks_covered(void **state)
{
	unsigned narm = 0;

	(void)state;
	for (unsigned q = 0; q < HWBPI_Q_COUNT; q++) {
		const struct hwbp_sim_quirk *t = hwbp_sim_quirk(q);
		bool sdm = false, qemu = false;

		assert_non_null(t);
		if (strcmp(t->arch, "arm64") != 0)
			continue;
		narm++;
		assert_true(strncmp(t->id, "HWBPI_Q_ARM64_", 14) == 0);
		assert_true(strlen(t->sdm) > 20 && strlen(t->qemu) > 20 && strlen(t->evidence) > 20);
		for (unsigned i = 0; i < N(rows); i++)
			quirk_row(rows[i].quirk, rows[i].prof, q, &sdm, &qemu);
		if (!step_quirk(q) && (!sdm || !qemu))
			fail_msg("quirk %s lacks an sdm or a qemu row", t->id);
		assert_true(hwbpi_quirk_on(HWBP_SIM_QEMU, (enum hwbpi_quirk)q));
		assert_false(hwbpi_quirk_on(HWBP_SIM_SDM, (enum hwbpi_quirk)q));
	}
	assert_int_equal(narm, 6);
	assert_null(hwbp_sim_quirk(HWBPI_Q_COUNT));
}

/* Reset state (D2 OS lock; MDSCR 0; PSTATE.D = 1; EL1) and register names. */
static void test_reset_and_names(void **state)
{
	static const struct {
		const char *preset;
		const char *name;
		int ret;
		uint64_t val;
		const char *why;
	} names[] = {
		{ "cortex-a57", "oslar", 0, 1, "OS lock set at reset" },
		{ "cortex-a57", "oslsr", 0, 0xa, "OSLSR_EL1: OSLM 0b10, OSLK 1 (QEMU reads 0xa too)" },
		{ "cortex-a57", "daif_d", 0, 1, "PSTATE.D = 1 at reset (AArch64.TakeReset)" },
		{ "cortex-a57", "el", 0, 1, "scenario contract: starts at EL1" },
		{ "cortex-a57", "mdscr", 0, 0, "MDSCR_EL1 MDE = KDE = 0" },
		{ "cortex-a57", "esr", 0, 0, "no exception yet" },
		{ "cortex-a57", "far", 0, 0, "no exception yet" },
		{ "cortex-a57", "dbgwcr0", 0, 0, "control registers 0" },
		{ "cortex-a57", "dbgwcr3", 0, 0, "WRPs = 4" },
		{ "cortex-a57", "dbgwcr4", -ENOENT, 0, "no 5th watchpoint on Cortex-A57" },
		{ "cortex-a57", "dbgbcr5", 0, 0, "BRPs = 6" },
		{ "cortex-a57", "dbgbvr6", -ENOENT, 0, "no 7th breakpoint" },
		{ "cortex-a53", "dbgbcr5", 0, 0, "Cortex-A53: same ID_AA64DFR0_EL1" },
		{ "arm64-max16", "dbgwvr15", 0, 0, "16 watchpoints" },
		{ "arm64-max16", "dbgbcr15", 0, 0, "16 breakpoints" },
		{ "arm64-max16", "dbgbcr16", -ENOENT, 0, "no 17th" },
		{ "cortex-a57", "dr7", -ENOENT, 0, "an x86 name" },
	};

	(void)state;
	for (int p = 0; p < 2; p++) {
		for (unsigned i = 0; i < N(names); i++) {
			struct hwbp_cpu cpu;
			struct hwbp_sim *sim = make(names[i].preset, p, &cpu);
			uint64_t v = 0x5a5a;

			assert_int_equal(hwbp_sim_get_reg(sim, 0, names[i].name, &v), names[i].ret);
			if (names[i].ret == 0)
				assert_int_equal(v, names[i].val);
			hwbp_sim_free(sim);
		}
	}
}

static void test_set_reg(void **state)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim = make("cortex-a57", HWBP_SIM_SDM, &cpu);
	struct hwbp_sim_result r;
	uint64_t v;

	(void)state;
	/* OSLAR_EL1 bit 0 is OSLK; other bits are ignored. */
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "oslar", 2, &r), 0);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "oslar", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "oslsr", &v), 0);
	assert_int_equal(v, 0x8);
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "oslar", 1, &r), 0);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "oslar", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "daif_d", 0, &r), 0);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "daif_d", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "dbgwvr2", 0x1234, &r), 0);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "dbgwvr2", &v), 0);
	assert_int_equal(v, 0x1234);
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "mdscr", MDE, &r), 0);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "mdscr", &v), 0);
	assert_int_equal(v, MDE);
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "dbgwcr4", 1, &r), -ENOENT);
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "esr", 1, &r), -ENOENT);
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "nosuch", 1, &r), -ENOENT);
	/* mode: only el, only 0 or 1. */
	assert_int_equal(hwbp_sim_mode(sim, 0, "el", 2), -EINVAL);
	assert_int_equal(hwbp_sim_mode(sim, 0, "cpl", 0), -ENOENT);
	assert_int_equal(hwbp_sim_mode(sim, 0, "el", 0), 0);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "el", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(hwbp_sim_priv(sim, 0), 1);
	/* Changing EL leaves PSTATE.D alone. */
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "daif_d", &v), 0);
	assert_int_equal(v, 0);
	hwbp_sim_free(sim);
}

/* Resume re-enables: the same access faults again afterwards (Linux steps
 * with the slot disabled, then restores it). hwbp_sim_run counts hits. */
static void test_resume_and_run(void **state)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim = make("cortex-a57", HWBP_SIM_SDM, &cpu);
	struct hwbp_sim_result r;
	struct hwbp_sim_access a = { A + 3, 2, HWBP_SIM_WRITE };
	const struct hwbp_sim_access run[] = {
		{ A + 3, 2, HWBP_SIM_WRITE }, { A + 0x100, 8, HWBP_SIM_WRITE },
		{ A, 8, HWBP_SIM_READ }, { C, 4, HWBP_SIM_EXEC }, { A + 0x20, 64, HWBP_SIM_ZERO },
		{ A - 8, 8, HWBP_SIM_WRITE }, { A + 7, 1, HWBP_SIM_WRITE },
	};

	(void)state;
	hwbp_sim_set_reg(sim, 0, "oslar", 0, &r);
	hwbp_sim_set_reg(sim, 0, "daif_d", 0, &r);
	hwbp_sim_set_reg(sim, 0, "mdscr", MDE | KDE, &r);
	hwbp_sim_set_reg(sim, 0, "dbgwvr0", A, &r);
	hwbp_sim_set_reg(sim, 0, "dbgwcr0", WCR(0xff, 2, 3, 0), &r);
	hwbp_sim_set_reg(sim, 0, "dbgbvr0", C, &r);
	hwbp_sim_set_reg(sim, 0, "dbgbcr0", BCR(0xf, 3, 0), &r);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_WATCHPOINT);
		assert_int_equal(r.addr, A + 3);
		assert_int_equal(hwbp_sim_resume(sim, 0, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_NONE);
	}
	/* Resume without a pending exception is harmless. */
	assert_int_equal(hwbp_sim_resume(sim, 0, &r), 0);
	assert_int_equal(r.cls, HWBP_SIM_NONE);
	/* store hit, far, load (LSC store: no), breakpoint, DC ZVA, below, byte 7. */
	assert_int_equal(hwbp_sim_run(sim, 0, run, N(run)), 4);
	hwbp_sim_free(sim);
}

/*
 * The precomputed filter never changes a result: sweep accesses of every
 * size class around a mix of BAS, word-aligned, MASK and non-contiguous
 * watchpoints, under both profiles and both ELs, and with debug disabled.
 */
static void test_filter_sweep(void **state)
{
	static const uint32_t sizes[] = { 1, 2, 3, 4, 8, 16, 32, 64 };
	static const struct kv cfg[][8] = {
		{ EN, { "dbgwvr0", A + 8 }, { "dbgwcr0", WCR(0x3c, 3, 3, 0) },
		  { "dbgwvr1", A + 0x104 }, { "dbgwcr1", WCR(0x06, 1, 2, 0) } },
		{ EN, { "dbgwvr0", A + 0x200 }, { "dbgwcr0", WCR(0xff, 2, 1, 6) },
		  { "dbgwvr3", A + 0x40 }, { "dbgwcr3", WCR(0x81, 3, 3, 0) } },
		{ { "mdscr", MDE | KDE }, { "dbgwvr0", A }, { "dbgwcr0", WCR(0xff, 3, 3, 0) } },
		{ EN, { "dbgwvr2", A + 0x80 }, { "dbgwcr2", WCR(0x01, 3, 3, 2) },
		  { "dbgwvr1", A + 0x180 }, { "dbgwcr1", WCR(0x10, 3, 3, 0) } },
	};

	(void)state;
	for (int p = 0; p < 2; p++) {
		for (unsigned k = 0; k < N(cfg); k++) {
			for (int el = 0; el < 2; el++) {
				struct hwbp_cpu cpu;
				struct hwbp_sim *sim = make("cortex-a57", p, &cpu);
				struct hwbp_sim_result r, u;

				for (unsigned j = 0; j < 8 && cfg[k][j].n; j++)
					hwbp_sim_set_reg(sim, 0, cfg[k][j].n, cfg[k][j].v, &r);
				hwbp_sim_mode(sim, 0, "el", (uint64_t)el);
				for (uint64_t off = 0; off < 0x300; off++) {
					for (unsigned s = 0; s < N(sizes); s++) {
						for (uint32_t op = HWBP_SIM_READ; op <= HWBP_SIM_WRITE; op++) {
							struct hwbp_sim_access a = { A - 0x40 + off, sizes[s], op };

							hwbp_sim_access(sim, 0, &a, &r);
							hwbpi_sim_access_unfiltered(sim, 0, &a, &u);
							assert_memory_equal(&r, &u, sizeof(r));
						}
					}
				}
				hwbp_sim_free(sim);
			}
		}
	}
}

/*
 * The Linux selftest breakpoint_test_arm64.c: for every watch size 1, 2,
 * 4, 8 at every offset where it fits in the doubleword, and every access
 * size 1, 2, 4, 8 at every offset of the 8-byte-aligned buffer, the
 * watchpoint fires exactly when the access overlaps the watched bytes,
 * with FAR = the lowest overlapped watched byte (both profiles: one slot).
 * Encoded here through the generic encoder (hwbp_encode_piece), as
 * PTRACE_SETHBPREGS would program it from EL0.
 */
static void test_selftest_matrix(void **state)
{
	static const unsigned wsz[] = { 1, 2, 4, 8 }, asz[] = { 1, 2, 4, 8 };

	(void)state;
	for (int p = 0; p < 2; p++) {
		for (unsigned wi = 0; wi < N(wsz); wi++) {
			for (unsigned wo = 0; wo + wsz[wi] <= 8; wo++) {
				struct hwbp_cpu cpu;
				struct hwbp_sim *sim = make("cortex-a57", p, &cpu);
				struct hwbp_piece pc;
				struct hwbp_regs regs;
				struct hwbp_sim_result r;
				uint64_t v;

				memset(&pc, 0, sizeof(pc));
				pc.addr = A + 8 + wo;
				pc.len = wsz[wi];
				pc.type = HWBP_W;
				hwbp_regs_reset(&cpu, &regs);
				assert_int_equal(hwbp_encode_piece(&cpu, &regs, 0, false, &pc, HWBP_SCOPE_USER, false), 0);
				hwbp_sim_set_reg(sim, 0, "oslar", 0, &r);
				hwbp_sim_set_reg(sim, 0, "mdscr", regs.u.arm64.mdscr, &r);
				hwbp_sim_set_reg(sim, 0, "dbgwvr0", regs.u.arm64.wvr[0], &r);
				hwbp_sim_set_reg(sim, 0, "dbgwcr0", regs.u.arm64.wcr[0], &r);
				hwbp_sim_mode(sim, 0, "el", 0);
				for (unsigned ai = 0; ai < N(asz); ai++) {
					for (unsigned ao = 0; ao < 24; ao++) {
						struct hwbp_sim_access a = { A + ao, asz[ai], HWBP_SIM_WRITE };
						uint64_t lo = A + ao, hi = lo + asz[ai] - 1;
						uint64_t wlo = pc.addr, whi = pc.addr + pc.len - 1;
						bool hit = lo <= whi && hi >= wlo;

						hwbp_sim_access(sim, 0, &a, &r);
						assert_int_equal(r.cls, hit ? HWBP_SIM_WATCHPOINT : HWBP_SIM_NONE);
						if (hit) {
							assert_int_equal(r.addr, lo > wlo ? lo : wlo);
							assert_int_equal(r.st.u.arm64.esr, ESR_WP_EL0_W);
							hwbp_sim_resume(sim, 0, &r);
						}
						/* A read never matches a write watchpoint. */
						a.op = HWBP_SIM_READ;
						hwbp_sim_access(sim, 0, &a, &r);
						assert_int_equal(r.cls, HWBP_SIM_NONE);
					}
				}
				assert_int_equal(hwbp_sim_get_reg(sim, 0, "mdscr", &v), 0);
				assert_int_equal(v, MDE);
				hwbp_sim_free(sim);
			}
		}
	}
}

/*
 * The glue (what `watch` uses): hwbp_install() writes the slots and ORs
 * MDE/KDE into MDSCR, but never touches the OS lock or PSTATE.D, so an
 * EL1 watch only fires after `oslar 0` and `daif_d 0` (sdm).
 */
static void test_glue(void **state)
{
	for (int p = 0; p < 2; p++) {
		struct hwbp_cpu cpu;
		struct hwbp_sim *sim = make("cortex-a57", p, &cpu);
		struct hwbp_slots percpu[1];
		static struct hwbp_ctx ctx;
		struct hwbp_request q = { A + 4, 4, HWBP_RW, HWBP_SCOPE_BOTH, 0 };
		struct hwbp_sim_access a = { A + 6, 1, HWBP_SIM_READ };
		struct hwbp_sim_result r;
		uint64_t v;
		int id;

		(void)state;
		assert_int_equal(hwbp_ctx_init(&ctx, &cpu, 1, percpu, hwbp_sim_glue(sim)), 0);
		assert_int_equal(hwbp_install(&ctx, &q, HWBP_CPU_ALL, NULL, &id), 0);
		assert_int_equal(hwbp_sim_get_reg(sim, 0, "mdscr", &v), 0);
		assert_int_equal(v, MDE | KDE);
		assert_int_equal(hwbp_sim_get_reg(sim, 0, "oslar", &v), 0);
		assert_int_equal(v, 1);
		hwbp_sim_access(sim, 0, &a, &r);
		assert_int_equal(r.cls, HWBP_SIM_NONE); /* PSTATE.D = 1 at EL1 */
		hwbp_sim_set_reg(sim, 0, "daif_d", 0, &r);
		hwbp_sim_access(sim, 0, &a, &r);
		assert_int_equal(r.cls, p == HWBP_SIM_QEMU ? HWBP_SIM_WATCHPOINT : HWBP_SIM_NONE);
		hwbp_sim_set_reg(sim, 0, "oslar", 0, &r);
		hwbp_sim_access(sim, 0, &a, &r);
		assert_int_equal(r.cls, HWBP_SIM_WATCHPOINT);
		assert_int_equal(r.addr, A + 6);
		assert_int_equal(hwbp_remove(&ctx, id), 0);
		hwbp_sim_access(sim, 0, &a, &r);
		assert_int_equal(r.cls, HWBP_SIM_NONE);
		hwbp_sim_free(sim);
	}
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_quirks_covered),
		cmocka_unit_test(test_reset_and_names),
		cmocka_unit_test(test_set_reg),
		cmocka_unit_test(test_resume_and_run),
		cmocka_unit_test(test_filter_sweep),
		cmocka_unit_test(test_selftest_matrix),
		cmocka_unit_test(test_glue),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
