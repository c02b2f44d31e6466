/* SPDX-License-Identifier: MIT */
/*
 * arm64 arch module: caps, split, encode, decode_slot, decode_status,
 * regs_list/regs_set.  Every table row cites the source of its expected
 * value (Arm ARM register descriptions, Linux arch/arm64 hw_breakpoint,
 * Linux selftest breakpoint_test_arm64.c, QEMU target/arm).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arm64/arm64.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct hwbp_cpu preset(const char *name)
{
	struct hwbp_cpu cpu;

	assert_int_equal(hwbp_cpu_preset(name, &cpu), 0);
	assert_int_equal(cpu.arch, HWBP_ARCH_ARM64);
	return cpu;
}

static struct hwbp_regs fresh(const struct hwbp_cpu *cpu)
{
	struct hwbp_regs r;

	memset(&r, 0xa5, sizeof(r));
	assert_int_equal(hwbp_regs_reset(cpu, &r), 0);
	return r;
}

static struct hwbp_piece pc(uint64_t addr, uint64_t len, unsigned type)
{
	struct hwbp_piece p;

	memset(&p, 0, sizeof(p));
	p.addr = addr;
	p.len = len;
	p.cover_lo = addr;
	p.cover_len = len;
	p.type = type;
	return p;
}

/* Encode, then decode the slot back and compare (round trip). */
static void roundtrip(const struct hwbp_cpu *cpu, const struct hwbp_regs *r, unsigned slot,
		      bool inst, const struct hwbp_piece *p, enum hwbp_scope scope)
{
	struct hwbp_piece d;
	enum hwbp_scope s;

	assert_int_equal(hwbp_decode_slot(cpu, r, slot, inst, &d, &s), 1);
	assert_int_equal(d.addr, p->addr);
	assert_int_equal(d.len, p->len);
	assert_int_equal(d.type, p->type);
	assert_int_equal(s, scope);
}

/* ------------------------------------------------------------------ */
/* caps                                                                */
/* ------------------------------------------------------------------ */

static void test_caps_presets(void **state)
{
	static const struct {
		const char *name;
		unsigned bps, wps;
		const char *src;
	} rows[] = {
		{ "cortex-a57", 6, 4, "Cortex-A57 TRM: ID_AA64DFR0_EL1 0x10305106, BRPs 5 WRPs 3" },
		{ "cortex-a53", 6, 4, "Cortex-A53 TRM: same ID_AA64DFR0_EL1" },
		{ "arm64-max16", 16, 16, "BRPs = WRPs = 0xF: architectural maximum of 16" },
	};
	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_cpu cpu = preset(rows[i].name);
		struct hwbp_caps c;

		assert_int_equal(hwbp_caps_get(&cpu, &c), 0);
		assert_int_equal(c.inst_slots, rows[i].bps);
		assert_int_equal(c.data_slots, rows[i].wps);
		/* Every other field is the same for all arm64 CPUs. */
		assert_int_equal(c.arch, HWBP_ARCH_ARM64);
		assert_false(c.shared);
		assert_int_equal(c.types, (1u << HWBP_R) | (1u << HWBP_W) | (1u << HWBP_RW) | (1u << HWBP_X));
		assert_int_equal(c.align, HWBP_ALIGN_BAS);
		assert_int_equal(c.min_piece, 1);
		assert_int_equal(c.max_piece, 0x80000000ull); /* DBGWCR.MASK = 31 */
		assert_int_equal(c.granule, 1);
		assert_int_equal(c.boundary, 0);
		assert_int_equal(c.inst_len, 4);
		assert_int_equal(c.inst_align, 4);
		assert_int_equal(c.data_timing, HWBP_TIMING_BEFORE);
		assert_int_equal(c.inst_timing, HWBP_TIMING_BEFORE);
		assert_int_equal(c.precision, HWBP_ADDR_WINDOW);
		assert_true(c.kind_known);
		assert_true(c.priv_filter);
		assert_int_equal(c.user_max, 0x0000ffffffffffffull);
		assert_int_equal(c.kernel_min, 0xffff000000000000ull);
		assert_int_equal(c.addr_max, UINT64_MAX);
		assert_true(hwbp_type_supported(&cpu, HWBP_R));
		assert_true(hwbp_type_supported(&cpu, HWBP_X));
	}
}

static void test_caps_dfr0(void **state)
{
	/* ID_AA64DFR0_EL1: DebugVer [3:0], BRPs [15:12] + 1, WRPs [23:20] + 1. */
	static const struct {
		uint64_t dfr0;
		unsigned bps, wps;
		const char *src;
	} rows[] = {
		{ 0x10305106ull, 6, 4, "Cortex-A57/A53 TRM value" },
		{ 0x00101006ull, 2, 2, "BRPs 1, WRPs 1: the architectural minimum of 2 each" },
		{ 0x00f0f006ull, 16, 16, "BRPs 0xF, WRPs 0xF, Armv8.0 debug" },
		{ 0x00305009ull, 6, 4, "DebugVer 9 (Armv8.4 debug): same count fields" },
		{ 0x00703008ull, 4, 8, "more watchpoints than breakpoints" },
	};
	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_cpu cpu;
		struct hwbp_caps c;

		assert_int_equal(hwbp_cpu_arm64_from_dfr0(rows[i].dfr0, &cpu), 0);
		assert_int_equal(hwbp_caps_get(&cpu, &c), 0);
		assert_int_equal(c.inst_slots, rows[i].bps);
		assert_int_equal(c.data_slots, rows[i].wps);
	}
}

/* ------------------------------------------------------------------ */
/* encode: BAS (Linux selftest), MASK, breakpoints, scopes            */
/* ------------------------------------------------------------------ */

/*
 * tools/testing/selftests/breakpoints/breakpoint_test_arm64.c,
 * set_watchpoint(): addr = &var[32 + wp] (var is 32-aligned), offset =
 * addr % 8, byte_mask = ((1 << size) - 1) << offset, control = byte_mask
 * << 5 | type(2 = store) << 3 | enable; DBGWVR = addr - offset.  The
 * selftest's PAC is 0 and ptrace fills in EL0 (AARCH64_BREAKPOINT_EL0 = 2,
 * arch_build_bp_info()), so the expected DBGWCR adds 2 << 1 = 0x4.
 * wp_size = MIN(size, 8) and wp offsets step by size.
 */
static const struct {
	unsigned size, off;
	uint64_t wcr;
} selftest_rows[] = {
	{ 1, 0, 0x0035 }, { 1, 1, 0x0055 }, { 1, 2, 0x0095 }, { 1, 3, 0x0115 },
	{ 1, 4, 0x0215 }, { 1, 5, 0x0415 }, { 1, 6, 0x0815 }, { 1, 7, 0x1015 },
	{ 2, 0, 0x0075 }, { 2, 2, 0x0195 }, { 2, 4, 0x0615 }, { 2, 6, 0x1815 },
	{ 4, 0, 0x01f5 }, { 4, 4, 0x1e15 },
	{ 8, 0, 0x1ff5 },
};

static void test_encode_bas_selftest(void **state)
{
	struct hwbp_cpu cpu = preset("cortex-a57");
	const uint64_t var32 = 0x0000aaaad0412340ull; /* &var[32]: 32-aligned */

	(void)state;
	for (unsigned i = 0; i < N(selftest_rows); i++) {
		unsigned size = selftest_rows[i].size, off = selftest_rows[i].off;
		struct hwbp_regs r = fresh(&cpu);
		struct hwbp_piece p = pc(var32 + off, size, HWBP_W);
		uint64_t selftest_ctl = (uint64_t)(((1u << size) - 1) << off) << 5 | 2u << 3 | 1u;

		assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, false, &p, HWBP_SCOPE_USER, false), 0);
		assert_int_equal(r.u.arm64.wcr[0], selftest_rows[i].wcr);
		assert_int_equal(r.u.arm64.wcr[0], selftest_ctl | (2u << 1));
		assert_int_equal(r.u.arm64.wvr[0], var32); /* addr - offset */
		assert_int_equal(r.u.arm64.mdscr, 0x8000); /* MDE only: EL0 watch */
		roundtrip(&cpu, &r, 0, false, &p, HWBP_SCOPE_USER);
	}
}

/*
 * Every contiguous BAS run inside a doubleword (Arm ARM DBGWCR.BAS: one bit
 * per byte of the doubleword at DBGWVR, bits must be contiguous): len 1..8
 * at every offset with off + len <= 8.  RW, both ELs: LSC 0b11 (0x18),
 * PAC 0b11 (0x6), E.
 */
static void test_encode_bas_all(void **state)
{
	struct hwbp_cpu cpu = preset("arm64-max16");
	unsigned slot = 0;

	(void)state;
	for (unsigned len = 1; len <= 8; len++) {
		for (unsigned off = 0; off + len <= 8; off++) {
			struct hwbp_regs r = fresh(&cpu);
			struct hwbp_piece p = pc(0x7f0000100ull + off, len, HWBP_RW);
			uint64_t bas = ((1u << len) - 1) << off;

			slot = (slot + 1) % 16;
			assert_int_equal(hwbp_encode_piece(&cpu, &r, slot, false, &p, HWBP_SCOPE_BOTH, false), 0);
			assert_int_equal(r.u.arm64.wcr[slot], bas << 5 | 0x18 | 0x6 | 0x1);
			assert_int_equal(r.u.arm64.wvr[slot], 0x7f0000100ull);
			roundtrip(&cpu, &r, slot, false, &p, HWBP_SCOPE_BOTH);
		}
	}
}

static void test_encode_mask(void **state)
{
	/*
	 * DBGWCR.MASK [28:24]: 2^MASK bytes, BAS = 0xFF, DBGWVR aligned.
	 * 8 bytes is BAS 0xFF with MASK 0 (the Linux LEN_8 form).  RW, both:
	 * low bits 0x1fff = BAS 0xFF << 5 | LSC 0x18 | PAC 0x6 | E.
	 */
	static const struct {
		uint64_t addr, len, wcr;
		const char *src;
	} rows[] = {
		{ 0x10000, 8, 0x00001fff, "8 B: BAS 0xFF, MASK 0" },
		{ 0x10000, 16, 0x04001fff, "MASK 4" },
		{ 0x10020, 32, 0x05001fff, "MASK 5, 32-aligned" },
		{ 0x10040, 64, 0x06001fff, "MASK 6" },
		{ 0x1000, 4096, 0x0c001fff, "MASK 12: one page" },
		{ 0x40000000, 0x40000000, 0x1e001fff, "MASK 30: 1 GiB" },
		{ 0x80000000, 0x80000000, 0x1f001fff, "MASK 31: 2 GiB, the maximum" },
		{ 0xffff800000000000ull, 0x100000, 0x14001fff, "MASK 20 in the TTBR1 half" },
	};
	struct hwbp_cpu cpu = preset("cortex-a57");

	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_regs r = fresh(&cpu);
		struct hwbp_piece p = pc(rows[i].addr, rows[i].len, HWBP_RW);

		assert_int_equal(hwbp_encode_piece(&cpu, &r, 3, false, &p, HWBP_SCOPE_BOTH, false), 0);
		assert_int_equal(r.u.arm64.wcr[3], rows[i].wcr);
		assert_int_equal(r.u.arm64.wvr[3], rows[i].addr);
		assert_int_equal(r.u.arm64.mdscr, 0xa000); /* MDE | KDE */
		roundtrip(&cpu, &r, 3, false, &p, HWBP_SCOPE_BOTH);
	}
}

static void test_encode_breakpoints(void **state)
{
	/*
	 * DBGBCR: E 0, PMC 2:1, BAS 8:5 = 0b1111 (A64), BT 23:20 = 0.
	 * 0x1e0 | PMC << 1 | 1: EL0 0x1e5, EL1 0x1e3, both 0x1e7.  Same value
	 * Linux encode_ctrl_reg() writes for LEN_4 execute breakpoints.
	 */
	static const struct {
		unsigned slot;
		uint64_t addr;
		enum hwbp_scope scope;
		uint64_t bcr, mdscr;
		const char *src;
	} rows[] = {
		{ 0, 0x400000, HWBP_SCOPE_USER, 0x1e5, 0x8000, "EL0 bp: PMC 0b10, MDE" },
		{ 5, 0xffff800010001000ull, HWBP_SCOPE_KERNEL, 0x1e3, 0xa000, "EL1 bp, last of 6: PMC 0b01, MDE|KDE" },
		{ 3, 0x400ffc, HWBP_SCOPE_BOTH, 0x1e7, 0xa000, "both: PMC 0b11" },
	};
	struct hwbp_cpu cpu = preset("cortex-a57");

	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_regs r = fresh(&cpu);
		struct hwbp_piece p = pc(rows[i].addr, 4, HWBP_X);

		assert_int_equal(hwbp_encode_piece(&cpu, &r, rows[i].slot, true, &p, rows[i].scope, false), 0);
		assert_int_equal(r.u.arm64.bvr[rows[i].slot], rows[i].addr);
		assert_int_equal(r.u.arm64.bcr[rows[i].slot], rows[i].bcr);
		assert_int_equal(r.u.arm64.mdscr, rows[i].mdscr);
		/* No watchpoint register was touched. */
		for (unsigned w = 0; w < HWBP_MAX_SLOTS; w++)
			assert_int_equal(r.u.arm64.wcr[w], 0);
		roundtrip(&cpu, &r, rows[i].slot, true, &p, rows[i].scope);
	}
}

static void test_encode_scopes(void **state)
{
	/*
	 * PAC with HMC = 0, SSC = 0b00 (Arm ARM "Summary of breakpoint HMC,
	 * SSC, and PMC encodings"; Linux AARCH64_BREAKPOINT_EL1 = 1, _EL0 = 2;
	 * QEMU bp_wp_matches(): EL1 needs PAC[0], EL0 needs PAC[1]).
	 * LSC: 0b01 load (0x08), 0b10 store (0x10), 0b11 both (0x18).
	 * KDE (MDSCR bit 13) only when EL1 is watched (same-EL debug).
	 */
	static const struct {
		uint64_t addr;
		unsigned type;
		enum hwbp_scope scope;
		uint64_t wcr, mdscr;
		const char *src;
	} rows[] = {
		{ 0x2000, HWBP_R, HWBP_SCOPE_USER, 0x1ed, 0x8000, "R, EL0: BAS 0x0f, LSC 01, PAC 10" },
		{ 0x2000, HWBP_R, HWBP_SCOPE_KERNEL, 0x1eb, 0xa000, "R, EL1: PAC 01, KDE" },
		{ 0x2000, HWBP_R, HWBP_SCOPE_BOTH, 0x1ef, 0xa000, "R, EL0+EL1: PAC 11, KDE" },
		{ 0x2004, HWBP_W, HWBP_SCOPE_USER, 0x1e15, 0x8000, "W, EL0: BAS 0xf0, LSC 10" },
		{ 0x2004, HWBP_RW, HWBP_SCOPE_KERNEL, 0x1e1b, 0xa000, "RW, EL1: LSC 11" },
	};
	struct hwbp_cpu cpu = preset("cortex-a57");

	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_regs r = fresh(&cpu);
		struct hwbp_piece p = pc(rows[i].addr, 4, rows[i].type);

		assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, false, &p, rows[i].scope, false), 0);
		assert_int_equal(r.u.arm64.wcr[1], rows[i].wcr);
		assert_int_equal(r.u.arm64.wvr[1], 0x2000);
		assert_int_equal(r.u.arm64.mdscr, rows[i].mdscr);
		roundtrip(&cpu, &r, 1, false, &p, rows[i].scope);
	}
}

static void test_encode_mdscr_accumulates(void **state)
{
	/* MDSCR bits are only set; other MDSCR bits (here SS, bit 0) survive. */
	struct hwbp_cpu cpu = preset("cortex-a57");
	struct hwbp_regs r = fresh(&cpu);
	struct hwbp_piece w = pc(0x1000, 4, HWBP_W);
	struct hwbp_piece x = pc(0xffff800000001000ull, 4, HWBP_X);

	(void)state;
	assert_int_equal(hwbp_regs_set(&cpu, &r, "mdscr", 0x1), 0);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, false, &w, HWBP_SCOPE_USER, false), 0);
	assert_int_equal(r.u.arm64.mdscr, 0x8001);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, true, &x, HWBP_SCOPE_KERNEL, false), 0);
	assert_int_equal(r.u.arm64.mdscr, 0xa001);
	/* A later user-only slot does not drop KDE needed by the kernel one. */
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, false, &w, HWBP_SCOPE_USER, false), 0);
	assert_int_equal(r.u.arm64.mdscr, 0xa001);
	/* local (x86's Ln/Gn) is ignored on arm64. */
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 2, false, &w, HWBP_SCOPE_USER, true), 0);
	assert_int_equal(r.u.arm64.wcr[2], r.u.arm64.wcr[1]);
}

static void test_encode_errors(void **state)
{
	static const struct {
		unsigned slot;
		bool inst;
		uint64_t addr, len;
		unsigned type;
		int scope;
		const char *src;
	} rows[] = {
		{ 4, false, 0x1000, 4, HWBP_W, HWBP_SCOPE_USER, "Cortex-A57 has 4 watchpoints (WRPs 3)" },
		{ 16, false, 0x1000, 4, HWBP_W, HWBP_SCOPE_USER, "beyond any CPU" },
		{ 6, true, 0x400000, 4, HWBP_X, HWBP_SCOPE_USER, "Cortex-A57 has 6 breakpoints (BRPs 5)" },
		{ 0, false, 0x1006, 4, HWBP_W, HWBP_SCOPE_USER, "BAS piece crossing its doubleword" },
		{ 0, false, 0x1004, 8, HWBP_RW, HWBP_SCOPE_USER, "8 bytes not doubleword-aligned" },
		{ 0, false, 0x1008, 16, HWBP_RW, HWBP_SCOPE_USER, "MASK block not aligned to its size" },
		{ 0, false, 0x1000, 24, HWBP_RW, HWBP_SCOPE_USER, "MASK length not a power of two" },
		{ 0, false, 0x1000, 12, HWBP_RW, HWBP_SCOPE_USER, "9..15 bytes: neither BAS nor MASK" },
		{ 0, false, 0x0, 0x100000000ull, HWBP_RW, HWBP_SCOPE_USER, "4 GiB > MASK 31 (2 GiB)" },
		{ 0, false, 0x1000, 0, HWBP_RW, HWBP_SCOPE_USER, "empty piece" },
		{ 0, false, 0x1000, 4, HWBP_X, HWBP_SCOPE_USER, "execute piece in a watchpoint" },
		{ 0, false, 0x1000, 4, 0, HWBP_SCOPE_USER, "no type (LSC 0b00 is reserved)" },
		{ 0, true, 0x400000, 4, HWBP_W, HWBP_SCOPE_USER, "data piece in a breakpoint" },
		{ 0, true, 0x400002, 4, HWBP_X, HWBP_SCOPE_USER, "A64 instruction not 4-aligned" },
		{ 0, true, 0x400000, 8, HWBP_X, HWBP_SCOPE_USER, "breakpoint covers one 4-byte instruction" },
		{ 0, true, 0x400000, 2, HWBP_X, HWBP_SCOPE_USER, "T32 halfword form not used (A64 only)" },
		{ 0, false, 0x1000, 4, HWBP_W, 3, "scope outside the enum" },
		{ 0, true, 0x400000, 4, HWBP_X, -1, "scope outside the enum" },
	};
	struct hwbp_cpu cpu = preset("cortex-a57");
	struct hwbp_piece w0 = pc(0x8000, 8, HWBP_RW), b0 = pc(0x400100, 4, HWBP_X);

	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_regs r = fresh(&cpu), before;
		struct hwbp_piece p = pc(rows[i].addr, rows[i].len, rows[i].type);

		/* Non-trivial state to compare against. */
		assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, false, &w0, HWBP_SCOPE_USER, false), 0);
		assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, true, &b0, HWBP_SCOPE_USER, false), 0);
		before = r;
		assert_int_equal(hwbp_encode_piece(&cpu, &r, rows[i].slot, rows[i].inst, &p,
						   (enum hwbp_scope)rows[i].scope, false), -EINVAL);
		assert_memory_equal(&r, &before, sizeof(r));
	}
}

/* ------------------------------------------------------------------ */
/* split                                                               */
/* ------------------------------------------------------------------ */

static void test_split_table(void **state)
{
	static const struct {
		uint64_t addr, len;
		bool inst;
		unsigned n;
		struct { uint64_t addr, len; } p[6];
		const char *src;
	} rows[] = {
		{ 0x1000, 1, false, 1, { { 0x1000, 1 } }, "one byte: BAS 0x01" },
		{ 0x1003, 5, false, 1, { { 0x1003, 5 } }, "to the end of the doubleword: one BAS piece" },
		{ 0x1003, 6, false, 2, { { 0x1003, 5 }, { 0x1008, 1 } }, "crosses a doubleword: two BAS pieces" },
		{ 0x1000, 8, false, 1, { { 0x1000, 8 } }, "aligned doubleword: BAS 0xFF" },
		{ 0x1000, 16, false, 1, { { 0x1000, 16 } }, "aligned 16: MASK 4" },
		{ 0x1008, 16, false, 2, { { 0x1008, 8 }, { 0x1010, 8 } }, "16 bytes, only 8-aligned" },
		{ 0x1001, 30, false, 4, { { 0x1001, 7 }, { 0x1008, 8 }, { 0x1010, 8 }, { 0x1018, 7 } },
		  "head BAS, two doublewords, tail BAS" },
		{ 0x1008, 0x38, false, 3, { { 0x1008, 8 }, { 0x1010, 16 }, { 0x1020, 32 } },
		  "ramp up of aligned blocks" },
		{ 0x1000, 0x1000, false, 1, { { 0x1000, 0x1000 } }, "page: MASK 12" },
		{ 0x7ffffff8, 16, false, 2, { { 0x7ffffff8, 8 }, { 0x80000000, 8 } }, "across a 2 GiB boundary" },
		{ 0, 1ull << 32, false, 2, { { 0, 1ull << 31 }, { 1ull << 31, 1ull << 31 } },
		  "4 GiB: two MASK 31 blocks (2 GiB maximum)" },
		{ 0x400000, 12, true, 3, { { 0x400000, 4 }, { 0x400004, 4 }, { 0x400008, 4 } },
		  "execute: one breakpoint per A64 instruction" },
		{ 0x400000, 4, true, 1, { { 0x400000, 4 } }, "one instruction" },
	};
	struct hwbp_cpu cpu = preset("cortex-a57");

	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_piece out[HWBP_MAX_PIECES];
		unsigned n = hwbpi_arm64_ops.split(&cpu, rows[i].inst, rows[i].addr, rows[i].len,
						   out, HWBP_MAX_PIECES);

		assert_int_equal(n, rows[i].n);
		for (unsigned k = 0; k < n; k++) {
			assert_int_equal(out[k].addr, rows[i].p[k].addr);
			assert_int_equal(out[k].len, rows[i].p[k].len);
		}
	}
}

static void test_split_count_beyond_max(void **state)
{
	/* split() returns the full count and writes only the first max. */
	static const struct {
		uint64_t addr, len;
		bool inst;
		unsigned max, n;
		uint64_t piece_len;
		const char *src;
	} rows[] = {
		{ 0xffff000000000000ull, 1ull << 47, false, HWBP_MAX_PIECES, 65536, 1ull << 31,
		  "half the kernel VA: 2^47 / 2 GiB blocks" },
		{ 0, 1ull << 40, false, 3, 512, 1ull << 31, "1 TiB of user VA" },
		{ 0x400000, 400, true, 2, 100, 4, "100 instructions, 2 written" },
		{ 0x1001, 30, false, 1, 4, 7, "max 1 of the 4-piece row" },
	};
	struct hwbp_cpu cpu = preset("cortex-a57");

	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_piece out[HWBP_MAX_PIECES + 1];
		struct hwbp_piece guard;
		unsigned n;

		memset(out, 0x5a, sizeof(out));
		memcpy(&guard, &out[rows[i].max], sizeof(guard));
		n = hwbpi_arm64_ops.split(&cpu, rows[i].inst, rows[i].addr, rows[i].len, out, rows[i].max);
		assert_int_equal(n, rows[i].n);
		assert_int_equal(out[0].addr, rows[i].addr);
		for (unsigned k = 0; k < rows[i].max; k++) {
			assert_int_equal(out[k].len, rows[i].piece_len);
			if (k)
				assert_int_equal(out[k].addr, out[k - 1].addr + out[k - 1].len);
		}
		assert_memory_equal(&out[rows[i].max], &guard, sizeof(guard));
	}
}

/* Is [s, s+len) one piece the hardware can hold?  (Arm ARM DBGWCR.BAS/MASK) */
static bool hw_piece(uint64_t s, uint64_t len)
{
	if (len >= 1 && len <= 8 && (s & 7) + len <= 8)
		return true;
	return len >= 8 && len <= (1ull << 31) && (len & (len - 1)) == 0 && (s & (len - 1)) == 0;
}

/*
 * Minimality by brute force: every request inside a 64-byte window (and the
 * same window shifted to odd bases), against a DP over all hardware pieces.
 * Every piece must also encode and decode back unchanged.
 */
static void test_split_minimal(void **state)
{
	static const uint64_t bases[] = { 0x10000, 0x10040, 0x1fffc0, 0xffff800000000000ull };
	struct hwbp_cpu cpu = preset("arm64-max16");

	(void)state;
	for (unsigned b = 0; b < N(bases); b++) {
		for (uint64_t off = 0; off < 64; off++) {
			for (uint64_t len = 1; off + len <= 64; len++) {
				uint64_t a = bases[b] + off;
				unsigned dp[65];
				struct hwbp_piece out[HWBP_MAX_PIECES];
				unsigned n;
				uint64_t at = a;

				dp[0] = 0;
				for (uint64_t e = 1; e <= len; e++) {
					dp[e] = 1000;
					for (uint64_t s = 0; s < e; s++)
						if (dp[s] + 1 < dp[e] && hw_piece(a + s, e - s))
							dp[e] = dp[s] + 1;
				}
				n = hwbpi_arm64_ops.split(&cpu, false, a, len, out, HWBP_MAX_PIECES);
				assert_int_equal(n, dp[len]);
				assert_true(n <= HWBP_MAX_PIECES);
				for (unsigned k = 0; k < n; k++) {
					struct hwbp_regs r = fresh(&cpu);
					struct hwbp_piece p = pc(out[k].addr, out[k].len, HWBP_RW);

					assert_int_equal(out[k].addr, at);
					assert_true(hw_piece(out[k].addr, out[k].len));
					at += out[k].len;
					assert_int_equal(hwbp_encode_piece(&cpu, &r, k, false, &p, HWBP_SCOPE_BOTH, false), 0);
					roundtrip(&cpu, &r, k, false, &p, HWBP_SCOPE_BOTH);
				}
				assert_int_equal(at, a + len);
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* decode_slot                                                         */
/* ------------------------------------------------------------------ */

static void test_decode_slot_rows(void **state)
{
	static const struct {
		bool inst;
		uint64_t vr, cr;
		int ret;
		uint64_t addr, len;
		unsigned type;
		enum hwbp_scope scope;
		const char *src;
	} rows[] = {
		{ false, 0x1000, 0x01001ffful, -EINVAL, 0, 0, 0, 0, "DBGWCR.MASK 0b00001 is reserved" },
		{ false, 0x1000, 0x02001ffful, -EINVAL, 0, 0, 0, 0, "DBGWCR.MASK 0b00010 is reserved" },
		{ false, 0x1000, 0x040001fful, -EINVAL, 0, 0, 0, 0, "MASK with BAS != 0xFF: CONSTRAINED UNPREDICTABLE" },
		{ false, 0x1008, 0x04001ffful, -EINVAL, 0, 0, 0, 0, "MASK 4 with DBGWVR bit 3 set: unaligned" },
		{ false, 0x1000, 0x00b0 | 0x1f, -EINVAL, 0, 0, 0, 0, "BAS 0b0101: not contiguous" },
		{ false, 0x1000, 0x1020 | 0x1f, -EINVAL, 0, 0, 0, 0, "BAS 0b10000001: not contiguous" },
		{ false, 0x1000, 0x1fe7, -EINVAL, 0, 0, 0, 0, "LSC 0b00 is reserved" },
		{ false, 0x1000, 0x1ff9, -EINVAL, 0, 0, 0, 0, "PAC 0b00 with HMC 0, SSC 00 is reserved" },
		{ false, 0x1000, 0x101fff, -EINVAL, 0, 0, 0, 0, "WT 1: linked to a context breakpoint" },
		{ false, 0x1000, 0x1ffe, 0, 0, 0, 0, 0, "E 0: disabled" },
		{ false, 0x1000, 0x001f, 0, 0, 0, 0, 0, "BAS 0: no byte selected, never matches" },
		{ false, 0x1000, 0x03001fff, 1, 0x1000, 8, HWBP_RW, HWBP_SCOPE_BOTH, "MASK 3 = 8 bytes (valid)" },
		{ false, 0x1003, 0x0035, 1, 0x1000, 1, HWBP_W, HWBP_SCOPE_USER, "DBGWVR[1:0] are RES0" },
		{ false, 0x1004, 0x006f, 1, 0x1004, 2, HWBP_R, HWBP_SCOPE_BOTH,
		  "deprecated word-aligned DBGWVR: BAS[3:0] from the word" },
		{ false, 0x1004, 0x1e6f, 1, 0x1004, 2, HWBP_R, HWBP_SCOPE_BOTH,
		  "deprecated DBGWVR[2] = 1: BAS[7:4] ignored (QEMU hw_watchpoint_update)" },
		{ false, 0x1000, 0x2000 | 0x1eb, 1, 0x1000, 4, HWBP_R, HWBP_SCOPE_KERNEL,
		  "HMC 1, PAC 01 (Linux VHE kernel): EL2+EL1 folded into kernel" },
		{ true, 0x400000, 0x1e7 | (2u << 20), -EINVAL, 0, 0, 0, 0, "BT 0b0010: context ID match" },
		{ true, 0x400000, 0x1e7 | (1u << 20), -EINVAL, 0, 0, 0, 0, "BT 0b0001: linked address match" },
		{ true, 0x400000, 0x067, -EINVAL, 0, 0, 0, 0, "BAS 0b0011: T32 halfword form" },
		{ true, 0x400000, 0x007, -EINVAL, 0, 0, 0, 0, "BAS 0b0000: reserved" },
		{ true, 0x400000, 0x1e1, -EINVAL, 0, 0, 0, 0, "PMC 0b00 with HMC 0, SSC 00 is reserved" },
		{ true, 0x400000, 0x1e6, 0, 0, 0, 0, 0, "E 0: disabled" },
		{ true, 0x400003, 0x1e5, 1, 0x400000, 4, HWBP_X, HWBP_SCOPE_USER, "DBGBVR[1:0] are RES0" },
	};
	struct hwbp_cpu cpu = preset("cortex-a57");

	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_regs r = fresh(&cpu);
		struct hwbp_piece p;
		enum hwbp_scope s;

		memset(&p, 0, sizeof(p));
		s = HWBP_SCOPE_BOTH;
		if (rows[i].inst) {
			r.u.arm64.bvr[2] = rows[i].vr;
			r.u.arm64.bcr[2] = rows[i].cr;
		} else {
			r.u.arm64.wvr[2] = rows[i].vr;
			r.u.arm64.wcr[2] = rows[i].cr;
		}
		assert_int_equal(hwbp_decode_slot(&cpu, &r, 2, rows[i].inst, &p, &s), rows[i].ret);
		if (rows[i].ret == 1) {
			assert_int_equal(p.addr, rows[i].addr);
			assert_int_equal(p.len, rows[i].len);
			assert_int_equal(p.type, rows[i].type);
			assert_int_equal(s, rows[i].scope);
		}
	}
}

static void test_decode_slot_range(void **state)
{
	static const struct {
		const char *cpu;
		unsigned slot;
		bool inst;
		int ret;
		const char *src;
	} rows[] = {
		{ "cortex-a57", 3, false, 0, "last watchpoint of 4: disabled after reset" },
		{ "cortex-a57", 4, false, -EINVAL, "no 5th watchpoint" },
		{ "cortex-a57", 5, true, 0, "last breakpoint of 6" },
		{ "cortex-a57", 6, true, -EINVAL, "no 7th breakpoint" },
		{ "arm64-max16", 15, false, 0, "16 watchpoints" },
		{ "arm64-max16", 16, true, -EINVAL, "beyond 16" },
	};

	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_cpu cpu = preset(rows[i].cpu);
		struct hwbp_regs r = fresh(&cpu);
		struct hwbp_piece p;
		enum hwbp_scope s;

		assert_int_equal(hwbp_decode_slot(&cpu, &r, rows[i].slot, rows[i].inst, &p, &s), rows[i].ret);
	}
}

/* ------------------------------------------------------------------ */
/* decode_status                                                       */
/* ------------------------------------------------------------------ */

/*
 * ESR_ELx = EC << 26 | IL (1 << 25) | ISS.  Watchpoint ISS: DFSC [5:0] =
 * 0x22 (Debug exception), WnR bit 6, FnV bit 10, WPTV bit 17, WPT [23:18]
 * (field layout as in QEMU target/arm/syndrome.h syn_watchpoint()).
 */
#define ESR(ec, iss) (((uint64_t)(ec) << 26) | (1ull << 25) | (iss))
#define WP_SAME_W ESR(0x35, 0x62)  /* 0xD6000062: watchpoint, same EL, store */
#define WP_SAME_R ESR(0x35, 0x22)  /* 0xD6000022 */
#define WP_LOW_W ESR(0x34, 0x62)   /* 0xD2000062: from EL0 */
#define WP_LOW_R ESR(0x34, 0x22)   /* 0xD2000022 */
#define BP_LOW ESR(0x30, 0x22)     /* 0xC2000022: breakpoint from EL0 */
#define BP_SAME ESR(0x31, 0x22)    /* 0xC6000022 */

static void test_esr_constants(void **state)
{
	(void)state;
	/* The values as a handler would print them. */
	assert_int_equal(WP_SAME_W, 0xD6000062ull);
	assert_int_equal(WP_SAME_R, 0xD6000022ull);
	assert_int_equal(WP_LOW_W, 0xD2000062ull);
	assert_int_equal(WP_LOW_R, 0xD2000022ull);
	assert_int_equal(BP_LOW, 0xC2000022ull);
	assert_int_equal(BP_SAME, 0xC6000022ull);
}

struct fx_piece {
	bool inst;
	unsigned slot;
	uint64_t addr, len;
	unsigned type;
};

/* Fixture 0: wp0 [0x1000,+8) RW, wp1 [0x1010,+4) W, wp2 [0x2000,+16) R,
 * wp3 [0x3000,+8) RW then disabled (E cleared); bp0 0x400000, bp1 0x400010.
 * Fixture 1: overlaps and ties. */
static const struct fx_piece fx0[] = {
	{ false, 0, 0x1000, 8, HWBP_RW }, { false, 1, 0x1010, 4, HWBP_W },
	{ false, 2, 0x2000, 16, HWBP_R }, { false, 3, 0x3000, 8, HWBP_RW },
	{ true, 0, 0x400000, 4, HWBP_X }, { true, 1, 0x400010, 4, HWBP_X },
};
static const struct fx_piece fx1[] = {
	{ false, 0, 0x5000, 8, HWBP_RW }, { false, 1, 0x5004, 4, HWBP_W },
	{ false, 2, 0x6010, 8, HWBP_RW }, { false, 3, 0x6010, 16, HWBP_W },
};

static struct hwbp_regs fixture(const struct hwbp_cpu *cpu, int which)
{
	struct hwbp_regs r = fresh(cpu);
	const struct fx_piece *fx = which ? fx1 : fx0;
	unsigned n = which ? N(fx1) : N(fx0);

	for (unsigned i = 0; i < n; i++) {
		struct hwbp_piece p = pc(fx[i].addr, fx[i].len, fx[i].type);

		assert_int_equal(hwbp_encode_piece(cpu, &r, fx[i].slot, fx[i].inst, &p,
						   HWBP_SCOPE_BOTH, false), 0);
	}
	if (which == 0)
		assert_int_equal(hwbp_regs_set(cpu, &r, "dbgwcr3", r.u.arm64.wcr[3] & ~1ull), 0);
	return r;
}

static void test_decode_status(void **state)
{
	static const struct {
		int fx;
		uint64_t esr, far, ip;
		int ret;
		uint32_t data, inst;
		unsigned kind;
		bool addr_known;
		const char *src;
	} rows[] = {
		{ 0, WP_SAME_W, 0x1004, 0xffff800010000100ull, 0, 0x1, 0, HWBP_W, true, "FAR inside wp0, store" },
		{ 0, WP_LOW_R, 0x1000, 0x400100, 0, 0x1, 0, HWBP_R, true, "FAR = first byte, load from EL0" },
		{ 0, WP_SAME_W, 0x1012, 0x400100, 0, 0x2, 0, HWBP_W, true, "FAR inside wp1" },
		{ 0, WP_LOW_W, 0x100c, 0x400100, 0, 0x2, 0, HWBP_W, true,
		  "FAR 4 below wp1 (access started lower): nearest above, wp0 lies below FAR" },
		{ 0, WP_LOW_R, 0x100c, 0x400100, -ENOENT, 0, 0, 0, false,
		  "load: wp1 is store-only (LSC 10), wp0 below FAR" },
		{ 0, WP_SAME_R, 0x2008, 0x400100, 0, 0x4, 0, HWBP_R, true, "inside MASK block wp2" },
		{ 0, WP_SAME_R, 0x200f, 0x400100, 0, 0x4, 0, HWBP_R, true, "last byte of wp2" },
		{ 0, WP_SAME_W, 0x2008, 0x400100, -ENOENT, 0, 0, 0, false, "store vs load-only wp2 (WnR filter)" },
		{ 0, WP_SAME_R, 0x1ff8, 0x400100, -ENOENT, 0, 0, 0, false,
		  "wp2 starts in the next naturally aligned 2 KiB block" },
		{ 0, WP_SAME_R, 0x1800, 0x400100, -ENOENT, 0, 0, 0, false, "nothing at/above FAR in its 2 KiB block" },
		{ 0, WP_SAME_R, 0x0ff0, 0x400100, -ENOENT, 0, 0, 0, false, "wp0 is in the next 2 KiB block" },
		{ 0, WP_SAME_W, 0x3000, 0x400100, -ENOENT, 0, 0, 0, false, "wp3 disabled: not reported" },
		{ 0, WP_SAME_W, 0x900000, 0x400100, -ENOENT, 0, 0, 0, false, "FAR far from every watchpoint" },
		{ 0, ESR(0x35, 0x40), 0x1004, 0x400100, -EINVAL, 0, 0, 0, false, "watchpoint EC, DFSC != 0x22" },
		{ 0, ESR(0x35, 0x62 | (1u << 17) | (1u << 18)), 0x900000, 0x400100, 0, 0x2, 0, HWBP_W, true,
		  "WPTV = 1, WPT = 1 names wp1 (FEAT_Debugv8p9)" },
		{ 0, ESR(0x35, 0x62 | (1u << 10)), 0, 0x400100, 0, 0x3, 0, HWBP_W, false,
		  "FnV = 1: FAR unknown, every enabled store watchpoint" },
		{ 0, BP_SAME, 0, 0x400010, 0, 0, 0x2, HWBP_X, true, "breakpoint same EL, ELR = DBGBVR1" },
		{ 0, BP_LOW, 0, 0x400000, 0, 0, 0x1, HWBP_X, true, "breakpoint from EL0, ELR = DBGBVR0" },
		{ 0, BP_LOW, 0, 0x400004, -ENOENT, 0, 0, 0, false, "ELR matches no breakpoint" },
		{ 0, ESR(0x31, 0x00), 0, 0x400010, -EINVAL, 0, 0, 0, false, "breakpoint EC, IFSC != 0x22" },
		{ 0, ESR(0x25, 0x04), 0x1004, 0x400100, -EINVAL, 0, 0, 0, false, "EC 0x25: data abort, not debug" },
		{ 0, ESR(0x15, 0x0), 0, 0x400100, -EINVAL, 0, 0, 0, false, "EC 0x15: SVC" },
		{ 0, ESR(0x33, 0x22), 0, 0x400100, -EINVAL, 0, 0, 0, false, "EC 0x33: software step, not hwbp's" },
		{ 0, ESR(0x3c, 0x0), 0, 0x400100, -EINVAL, 0, 0, 0, false, "EC 0x3C: BRK instruction" },
		{ 0, 0, 0, 0, -EINVAL, 0, 0, 0, false, "EC 0: unknown reason" },
		{ 1, WP_SAME_W, 0x5005, 0x400100, 0, 0x3, 0, HWBP_W, true, "overlapping wp0 and wp1 both contain FAR" },
		{ 1, WP_SAME_R, 0x5005, 0x400100, 0, 0x1, 0, HWBP_R, true, "load: only RW wp0 (wp1 store-only)" },
		{ 1, WP_SAME_W, 0x5001, 0x400100, 0, 0x1, 0, HWBP_W, true, "only wp0 contains FAR" },
		{ 1, WP_SAME_W, 0x6008, 0x400100, 0, 0xc, 0, HWBP_W, true, "tie: wp2 and wp3 both 8 above FAR" },
		{ 1, WP_LOW_R, 0x6008, 0x400100, 0, 0x4, 0, HWBP_R, true, "load: wp3 store-only, wp2 nearest" },
	};
	struct hwbp_cpu cpu = preset("cortex-a57");

	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_regs r = fixture(&cpu, rows[i].fx);
		struct hwbp_status st;
		struct hwbp_hit h, untouched;

		memset(&st, 0, sizeof(st));
		st.ip = rows[i].ip;
		st.u.arm64.esr = rows[i].esr;
		st.u.arm64.far = rows[i].far;
		memset(&h, 0x77, sizeof(h));
		untouched = h;
		print_message("row %u: %s\n", i, rows[i].src);
		assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &h), rows[i].ret);
		if (rows[i].ret) {
			assert_memory_equal(&h, &untouched, sizeof(h));
			continue;
		}
		assert_int_equal(h.data_slots, rows[i].data);
		assert_int_equal(h.inst_slots, rows[i].inst);
		assert_int_equal(h.kind, rows[i].kind);
		assert_int_equal(h.addr_known, rows[i].addr_known);
		if (rows[i].addr_known)
			assert_int_equal(h.addr, rows[i].inst ? rows[i].ip : rows[i].far);
		assert_int_equal(h.ip, rows[i].ip);
		assert_int_equal(h.requests, 0);
		assert_false(h.filtered);
	}
}

/* ------------------------------------------------------------------ */
/* reset, regs_list, regs_set                                          */
/* ------------------------------------------------------------------ */

static void test_reset(void **state)
{
	static const char *const cpus[] = { "cortex-a57", "arm64-max16" };

	(void)state;
	for (unsigned i = 0; i < N(cpus); i++) {
		struct hwbp_cpu cpu = preset(cpus[i]);
		struct hwbp_regs r = fresh(&cpu);
		struct hwbp_reg_nv nv[80];
		int n = hwbp_regs_list(&cpu, &r, nv, 80);

		assert_int_equal(r.arch, HWBP_ARCH_ARM64);
		assert_true(n > 0);
		/* Every control, value and MDSCR is 0: nothing armed, MDE = 0. */
		for (int k = 0; k < n; k++)
			assert_int_equal(nv[k].value, 0);
		for (unsigned s = 0; s < HWBP_MAX_SLOTS; s++) {
			struct hwbp_piece p;
			enum hwbp_scope sc;

			if (s < 4)
				assert_int_equal(hwbp_decode_slot(&cpu, &r, s, false, &p, &sc), 0);
		}
	}
}

static void test_regs_list(void **state)
{
	static const struct {
		const char *cpu;
		int max, n;
		const char *first, *last;
		const char *src;
	} rows[] = {
		{ "cortex-a57", 80, 21, "dbgbvr0", "mdscr", "6 bp pairs + 4 wp pairs + mdscr" },
		{ "arm64-max16", 80, 65, "dbgbvr0", "mdscr", "16 + 16 pairs + mdscr" },
		{ "cortex-a57", 5, 5, "dbgbvr0", "dbgbvr2", "truncated at max" },
		{ "cortex-a57", 0, 0, NULL, NULL, "max 0" },
	};

	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_cpu cpu = preset(rows[i].cpu);
		struct hwbp_regs r = fresh(&cpu);
		struct hwbp_reg_nv nv[80];
		int n;

		n = hwbp_regs_list(&cpu, &r, nv, rows[i].max);
		assert_int_equal(n, rows[i].n);
		if (n) {
			assert_string_equal(nv[0].name, rows[i].first);
			assert_string_equal(nv[n - 1].name, rows[i].last);
		}
	}
}

static void test_regs_list_values(void **state)
{
	struct hwbp_cpu cpu = preset("cortex-a57");
	struct hwbp_regs r = fresh(&cpu);
	struct hwbp_piece w = pc(0x1018, 16, HWBP_W), x = pc(0x400000, 4, HWBP_X);
	struct hwbp_reg_nv nv[32];
	int n;

	(void)state;
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 3, false, &w, HWBP_SCOPE_USER, false), -EINVAL);
	w = pc(0x1000, 16, HWBP_W);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 3, false, &w, HWBP_SCOPE_USER, false), 0);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 5, true, &x, HWBP_SCOPE_USER, false), 0);
	n = hwbp_regs_list(&cpu, &r, nv, 32);
	assert_int_equal(n, 21);
	/* Order: dbgbvrN, dbgbcrN for N < 6, then dbgwvrN, dbgwcrN for N < 4, mdscr. */
	assert_string_equal(nv[10].name, "dbgbvr5");
	assert_int_equal(nv[10].value, 0x400000);
	assert_string_equal(nv[11].name, "dbgbcr5");
	assert_int_equal(nv[11].value, 0x1e5);
	assert_string_equal(nv[18].name, "dbgwvr3");
	assert_int_equal(nv[18].value, 0x1000);
	assert_string_equal(nv[19].name, "dbgwcr3");
	assert_int_equal(nv[19].value, 0x04001ff5); /* MASK 4, BAS 0xFF, LSC 10, PAC 10, E */
	assert_string_equal(nv[20].name, "mdscr");
	assert_int_equal(nv[20].value, 0x8000);
}

static void test_regs_set(void **state)
{
	static const struct {
		const char *cpu, *name;
		uint64_t value;
		int ret;
		const char *src;
	} rows[] = {
		{ "cortex-a57", "dbgbvr0", 0x400000, 0, "first breakpoint value" },
		{ "cortex-a57", "dbgbcr5", 0x1e5, 0, "last of 6 breakpoints" },
		{ "cortex-a57", "dbgbvr6", 0, -ENOENT, "no 7th breakpoint on Cortex-A57" },
		{ "cortex-a57", "dbgwvr3", 0x1000, 0, "last of 4 watchpoints" },
		{ "cortex-a57", "dbgwcr3", 0x1ff5, 0, "last of 4 watchpoints" },
		{ "cortex-a57", "dbgwcr4", 0x1ff5, -ENOENT, "no 5th watchpoint on Cortex-A57" },
		{ "cortex-a57", "mdscr", 0xa000, 0, "MDSCR_EL1" },
		{ "arm64-max16", "dbgwcr15", 0x1ff5, 0, "16 watchpoints" },
		{ "arm64-max16", "dbgbcr15", 0x1e5, 0, "16 breakpoints" },
		{ "arm64-max16", "dbgwcr16", 0, -ENOENT, "beyond 16" },
		{ "arm64-max16", "dbgwcr", 0, -ENOENT, "no index" },
		{ "arm64-max16", "dbgwcr01", 0, -ENOENT, "leading zero: not a canonical name" },
		{ "arm64-max16", "dbgwcr-1", 0, -ENOENT, "negative index" },
		{ "arm64-max16", "dbgwcr1x", 0, -ENOENT, "trailing junk" },
		{ "arm64-max16", "dbgwcr99999999999", 0, -ENOENT, "huge index" },
		{ "arm64-max16", "dr7", 0, -ENOENT, "x86 register" },
		{ "arm64-max16", "dawr0", 0, -ENOENT, "powerpc register" },
		{ "arm64-max16", "", 0, -ENOENT, "empty name" },
		{ "arm64-max16", "DBGWCR0", 0, -ENOENT, "names are lower-case" },
	};

	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		struct hwbp_cpu cpu = preset(rows[i].cpu);
		struct hwbp_regs r = fresh(&cpu), before = r;
		struct hwbp_reg_nv nv[80];
		int n, found = 0;

		assert_int_equal(hwbp_regs_set(&cpu, &r, rows[i].name, rows[i].value), rows[i].ret);
		if (rows[i].ret) {
			assert_memory_equal(&r, &before, sizeof(r));
			continue;
		}
		/* The value reads back under the same name. */
		n = hwbp_regs_list(&cpu, &r, nv, 80);
		for (int k = 0; k < n; k++) {
			if (strcmp(nv[k].name, rows[i].name) == 0) {
				assert_int_equal(nv[k].value, rows[i].value);
				found = 1;
			}
		}
		assert_true(found);
	}
}

static void test_regs_set_then_decode(void **state)
{
	/* A raw register write decodes like an encoded one (Linux selftest value). */
	struct hwbp_cpu cpu = preset("cortex-a57");
	struct hwbp_regs r = fresh(&cpu);
	struct hwbp_piece p;
	enum hwbp_scope s;

	(void)state;
	assert_int_equal(hwbp_regs_set(&cpu, &r, "dbgwvr1", 0x0000aaaad0412340ull), 0);
	assert_int_equal(hwbp_regs_set(&cpu, &r, "dbgwcr1", 0x0195), 0);
	assert_int_equal(hwbp_decode_slot(&cpu, &r, 1, false, &p, &s), 1);
	assert_int_equal(p.addr, 0x0000aaaad0412342ull);
	assert_int_equal(p.len, 2);
	assert_int_equal(p.type, HWBP_W);
	assert_int_equal(s, HWBP_SCOPE_USER);
}

/* ---- the glue's write (hwbp_regs_apply); names and status fields are
 * tests/unit/test_arch.c's ---- */

static void test_regs_apply(void **state)
{
	struct hwbp_cpu cpu, x86;
	struct hwbp_regs live, written, want;
	struct hwbp_caps caps;

	(void)state;
	assert_int_equal(hwbp_cpu_preset("cortex-a57", &cpu), 0);
	assert_int_equal(hwbp_regs_reset(&cpu, &live), 0);
	live.u.arm64.mdscr = (1ull << 13) | 1;   /* KDE and SS set before */
	live.u.arm64.wvr[2] = 0x2000;
	assert_int_equal(hwbp_regs_reset(&cpu, &written), 0);
	written.u.arm64.wvr[0] = 0x1000;
	written.u.arm64.wcr[0] = 0x1f5;
	written.u.arm64.bvr[1] = 0x400000;
	written.u.arm64.mdscr = (1ull << 15);
	want = written;
	/* Enables OR-ed: the glue turns MDE on and leaves KDE and SS. */
	want.u.arm64.mdscr = (1ull << 15) | (1ull << 13) | 1;
	assert_int_equal(hwbp_regs_apply(&cpu, &live, &written), 0);
	assert_memory_equal(&live, &want, sizeof(live));
	/* A write with no enables clears none. */
	written.u.arm64.mdscr = 0;
	assert_int_equal(hwbp_regs_apply(&cpu, &live, &written), 0);
	assert_true(live.u.arm64.mdscr == want.u.arm64.mdscr);
	assert_int_equal(hwbp_cpu_preset("x86_64", &x86), 0);
	assert_int_equal(hwbp_regs_reset(&x86, &written), 0);
	assert_int_equal(hwbp_regs_apply(&cpu, &live, &written), -EINVAL);
	assert_int_equal(hwbp_regs_apply(&cpu, &written, &live), -EINVAL);
	/* DC ZVA's 64-byte block; no port I/O. */
	assert_int_equal(hwbp_caps_get(&cpu, &caps), 0);
	assert_false(caps.io_ports);
	assert_true(caps.zero_block == 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps_presets),
		cmocka_unit_test(test_caps_dfr0),
		cmocka_unit_test(test_encode_bas_selftest),
		cmocka_unit_test(test_encode_bas_all),
		cmocka_unit_test(test_encode_mask),
		cmocka_unit_test(test_encode_breakpoints),
		cmocka_unit_test(test_encode_scopes),
		cmocka_unit_test(test_encode_mdscr_accumulates),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_split_table),
		cmocka_unit_test(test_split_count_beyond_max),
		cmocka_unit_test(test_split_minimal),
		cmocka_unit_test(test_decode_slot_rows),
		cmocka_unit_test(test_decode_slot_range),
		cmocka_unit_test(test_esr_constants),
		cmocka_unit_test(test_decode_status),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_regs_list),
		cmocka_unit_test(test_regs_list_values),
		cmocka_unit_test(test_regs_set),
		cmocka_unit_test(test_regs_set_then_decode),
		cmocka_unit_test(test_regs_apply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
