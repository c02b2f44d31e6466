/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the x86 arch module (arch/x86): caps, split, encode,
 * decode_slot, decode_status, registers by name.  Every table row names
 * its source: Intel SDM Vol. 3 §17.2 (Debug Registers), the Linux selftest
 * tools/testing/selftests/breakpoints/breakpoint_test.c, Linux
 * arch/x86/kernel/hw_breakpoint.c (AMD address mask), or the interface
 * conventions of generic/internal.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "x86/x86.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct hwbpi_arch_ops *ops = &hwbpi_x86_ops;

/* Presets from generic/cpu.c, plus an i386 with the AMD extension. */
static struct hwbp_cpu cpu_named(const char *name)
{
	struct hwbp_cpu cpu;

	if (strcmp(name, "i386-amd") == 0) {
		assert_int_equal(hwbp_cpu_preset("i386", &cpu), 0);
		cpu.u.x86.amd_addr_mask = true;
		return cpu;
	}
	assert_int_equal(hwbp_cpu_preset(name, &cpu), 0);
	return cpu;
}

static struct hwbp_regs regs_reset(const struct hwbp_cpu *cpu)
{
	struct hwbp_regs r;

	assert_int_equal(hwbp_regs_reset(cpu, &r), 0);
	return r;
}

static struct hwbp_piece mkpiece(uint64_t addr, uint64_t len, unsigned type)
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

/* Decode @slot and check it gives @want back, scope BOTH. */
static void assert_roundtrip(const struct hwbp_cpu *cpu, const struct hwbp_regs *r,
			     unsigned slot, const struct hwbp_piece *want)
{
	struct hwbp_piece got;
	enum hwbp_scope scope = HWBP_SCOPE_USER;

	assert_int_equal(hwbp_decode_slot(cpu, r, slot, want->type == HWBP_X, &got, &scope), 1);
	assert_int_equal(got.addr, want->addr);
	assert_int_equal(got.len, want->len);
	assert_int_equal(got.type, want->type);
	assert_int_equal(scope, HWBP_SCOPE_BOTH);
}

/* ------------------------------------------------------------------ */
/* caps                                                               */
/* ------------------------------------------------------------------ */

static const struct caps_row {
	const char *cpu;
	uint64_t max_piece, user_max, kernel_min, addr_max;
	const char *src;
} caps_rows[] = {
	{ "x86_64", 8, 0x00007fffffffffffull, 0xffff800000000000ull, UINT64_MAX,
	  "SDM §17.2.4: LEN=10 is 8 bytes in 64-bit mode; 48-bit canonical split" },
	{ "i386", 4, 0xbfffffffull, 0xc0000000ull, 0xffffffffull,
	  "SDM §17.2.4: LEN=10 undefined outside 64-bit mode; 3G/1G split" },
	{ "x86_64-amd", 4096, 0x00007fffffffffffull, 0xffff800000000000ull, UINT64_MAX,
	  "AMD DataBkptExt: DRn_ADDR_MASK bits 11:0 -> 4 KiB blocks" },
	{ "i386-amd", 4096, 0xbfffffffull, 0xc0000000ull, 0xffffffffull,
	  "AMD DataBkptExt on a 32-bit kernel: the mask does not need LEN=10" },
};

static void test_caps(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(caps_rows); i++) {
		const struct caps_row *row = &caps_rows[i];
		struct hwbp_cpu cpu = cpu_named(row->cpu);
		struct hwbp_caps c;

		assert_int_equal(hwbp_caps_get(&cpu, &c), 0);
		assert_int_equal(c.arch, HWBP_ARCH_X86);
		/* SDM §17.2.1: four address registers shared by both kinds. */
		assert_int_equal(c.data_slots, 4);
		assert_int_equal(c.inst_slots, 4);
		assert_true(c.shared);
		/* SDM §17.2.4: R/W 00 X, 01 W, 11 RW; 10 is I/O; no R. */
		assert_int_equal(c.types, (1u << HWBP_W) | (1u << HWBP_RW) | (1u << HWBP_X));
		assert_false(hwbp_type_supported(&cpu, HWBP_R));
		assert_true(hwbp_type_supported(&cpu, HWBP_W));
		assert_int_equal(c.align, HWBP_ALIGN_NATURAL);
		assert_int_equal(c.min_piece, 1);
		assert_int_equal(c.max_piece, row->max_piece);
		assert_int_equal(c.granule, 1);
		assert_int_equal(c.boundary, 0);
		assert_int_equal(c.inst_len, 1);
		assert_int_equal(c.inst_align, 1);
		/* SDM §17.3.1.1 fault / §17.3.1.2 trap. */
		assert_int_equal(c.data_timing, HWBP_TIMING_AFTER);
		assert_int_equal(c.inst_timing, HWBP_TIMING_BEFORE);
		assert_int_equal(c.precision, HWBP_ADDR_NONE);
		assert_false(c.kind_known);
		assert_false(c.priv_filter);
		assert_int_equal(c.user_max, row->user_max);
		assert_int_equal(c.kernel_min, row->kernel_min);
		assert_int_equal(c.addr_max, row->addr_max);
	}
	/* 5-level paging: canonical when bits 63:57 copy bit 56 (SDM Vol. 3A
	 * §4.5); Linux's per-CPU areas then sit at 0xff1...: kernel half. */
	{
		struct hwbp_cpu cpu = cpu_named("x86_64");
		struct hwbp_caps c;
		struct hwbp_request r = { .addr = 0xff11000000001000ull, .len = 8,
					  .type = HWBP_W, .scope = HWBP_SCOPE_KERNEL };
		struct hwbp_plan p;

		assert_int_not_equal(hwbp_plan(&cpu, &r, 1, &p), 0);
		cpu.u.x86.la57 = true;
		assert_int_equal(hwbp_caps_get(&cpu, &c), 0);
		assert_int_equal(c.user_max, 0x00ffffffffffffffull);
		assert_int_equal(c.kernel_min, 0xff00000000000000ull);
		assert_int_equal(hwbp_plan(&cpu, &r, 1, &p), 0);
		r.addr = 0x00fffffffffff000ull;
		r.scope = HWBP_SCOPE_USER;
		assert_int_equal(hwbp_plan(&cpu, &r, 1, &p), 0);
	}
	/* No arch-specific request rule beyond the generic checks. */
	assert_null(ops->check);
}

/* ------------------------------------------------------------------ */
/* reset                                                              */
/* ------------------------------------------------------------------ */

static void test_reset(void **state)
{
	static const char *const cpus[] = { "x86_64", "i386", "x86_64-amd" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cpus); i++) {
		struct hwbp_cpu cpu = cpu_named(cpus[i]);
		struct hwbp_regs r;

		memset(&r, 0x5a, sizeof(r));
		assert_int_equal(hwbp_regs_reset(&cpu, &r), 0);
		assert_int_equal(r.arch, HWBP_ARCH_X86);
		for (unsigned s = 0; s < 4; s++) {
			assert_int_equal(r.u.x86.dr[s], 0);
			assert_int_equal(r.u.x86.addr_mask[s], 0);
		}
		/* SDM §17.2.3 / §17.2.4: DR6 reads FFFF0FF0, DR7 bit 10 is 1. */
		assert_int_equal(r.u.x86.dr6, 0xffff0ff0ull);
		assert_int_equal(r.u.x86.dr7, 0x400ull);
		/* Nothing armed. */
		for (unsigned s = 0; s < 4; s++) {
			struct hwbp_piece p;
			enum hwbp_scope sc;

			assert_int_equal(hwbp_decode_slot(&cpu, &r, s, false, &p, &sc), 0);
		}
	}
}

/* ------------------------------------------------------------------ */
/* encode: the Linux breakpoint selftest                              */
/* ------------------------------------------------------------------ */

/*
 * Linux tools/testing/selftests/breakpoints/breakpoint_test.c,
 * toggle_breakpoint(): for slot n, DR7 gets ((xlen | xtype) << 16) << 4n
 * with xtype 0 (X), 1 (W), 3 (RW) and xlen 0 (1), 4 (2), 0xc (4), 8 (8),
 * plus 1 << 2n for local or 2 << 2n for global; DRn = &dummy_var[n]
 * (unsigned long long[4], so 8 bytes apart) or dummy_funcs[n].  The test
 * also sets LE/GE (bits 8/9), which P6 and later ignore (SDM §17.2.4);
 * hwbp leaves them clear, so the rows below omit them and add bit 10.
 * Execute rows are always LEN 00 (Linux X86_BREAKPOINT_LEN_X).
 */
static const struct selftest_row {
	unsigned slot;
	bool local;
	unsigned type;
	uint64_t addr, len, dr7;
} selftest_rows[] = {
	{ 0, true, HWBP_W, 0x404040, 1, 0x00010401 }, /* write len 1 local */
	{ 1, true, HWBP_W, 0x404048, 1, 0x00100404 }, /* write len 1 local */
	{ 2, true, HWBP_W, 0x404050, 1, 0x01000410 }, /* write len 1 local */
	{ 3, true, HWBP_W, 0x404058, 1, 0x10000440 }, /* write len 1 local */
	{ 0, false, HWBP_W, 0x404040, 1, 0x00010402 }, /* write len 1 global */
	{ 1, false, HWBP_W, 0x404048, 1, 0x00100408 }, /* write len 1 global */
	{ 2, false, HWBP_W, 0x404050, 1, 0x01000420 }, /* write len 1 global */
	{ 3, false, HWBP_W, 0x404058, 1, 0x10000480 }, /* write len 1 global */
	{ 0, true, HWBP_W, 0x404040, 2, 0x00050401 }, /* write len 2 local */
	{ 1, true, HWBP_W, 0x404048, 2, 0x00500404 }, /* write len 2 local */
	{ 2, true, HWBP_W, 0x404050, 2, 0x05000410 }, /* write len 2 local */
	{ 3, true, HWBP_W, 0x404058, 2, 0x50000440 }, /* write len 2 local */
	{ 0, false, HWBP_W, 0x404040, 2, 0x00050402 }, /* write len 2 global */
	{ 1, false, HWBP_W, 0x404048, 2, 0x00500408 }, /* write len 2 global */
	{ 2, false, HWBP_W, 0x404050, 2, 0x05000420 }, /* write len 2 global */
	{ 3, false, HWBP_W, 0x404058, 2, 0x50000480 }, /* write len 2 global */
	{ 0, true, HWBP_W, 0x404040, 4, 0x000d0401 }, /* write len 4 local */
	{ 1, true, HWBP_W, 0x404048, 4, 0x00d00404 }, /* write len 4 local */
	{ 2, true, HWBP_W, 0x404050, 4, 0x0d000410 }, /* write len 4 local */
	{ 3, true, HWBP_W, 0x404058, 4, 0xd0000440 }, /* write len 4 local */
	{ 0, false, HWBP_W, 0x404040, 4, 0x000d0402 }, /* write len 4 global */
	{ 1, false, HWBP_W, 0x404048, 4, 0x00d00408 }, /* write len 4 global */
	{ 2, false, HWBP_W, 0x404050, 4, 0x0d000420 }, /* write len 4 global */
	{ 3, false, HWBP_W, 0x404058, 4, 0xd0000480 }, /* write len 4 global */
	{ 0, true, HWBP_W, 0x404040, 8, 0x00090401 }, /* write len 8 local */
	{ 1, true, HWBP_W, 0x404048, 8, 0x00900404 }, /* write len 8 local */
	{ 2, true, HWBP_W, 0x404050, 8, 0x09000410 }, /* write len 8 local */
	{ 3, true, HWBP_W, 0x404058, 8, 0x90000440 }, /* write len 8 local */
	{ 0, false, HWBP_W, 0x404040, 8, 0x00090402 }, /* write len 8 global */
	{ 1, false, HWBP_W, 0x404048, 8, 0x00900408 }, /* write len 8 global */
	{ 2, false, HWBP_W, 0x404050, 8, 0x09000420 }, /* write len 8 global */
	{ 3, false, HWBP_W, 0x404058, 8, 0x90000480 }, /* write len 8 global */
	{ 0, true, HWBP_RW, 0x404040, 1, 0x00030401 }, /* read len 1 local */
	{ 1, true, HWBP_RW, 0x404048, 1, 0x00300404 }, /* read len 1 local */
	{ 2, true, HWBP_RW, 0x404050, 1, 0x03000410 }, /* read len 1 local */
	{ 3, true, HWBP_RW, 0x404058, 1, 0x30000440 }, /* read len 1 local */
	{ 0, false, HWBP_RW, 0x404040, 1, 0x00030402 }, /* read len 1 global */
	{ 1, false, HWBP_RW, 0x404048, 1, 0x00300408 }, /* read len 1 global */
	{ 2, false, HWBP_RW, 0x404050, 1, 0x03000420 }, /* read len 1 global */
	{ 3, false, HWBP_RW, 0x404058, 1, 0x30000480 }, /* read len 1 global */
	{ 0, true, HWBP_RW, 0x404040, 2, 0x00070401 }, /* read len 2 local */
	{ 1, true, HWBP_RW, 0x404048, 2, 0x00700404 }, /* read len 2 local */
	{ 2, true, HWBP_RW, 0x404050, 2, 0x07000410 }, /* read len 2 local */
	{ 3, true, HWBP_RW, 0x404058, 2, 0x70000440 }, /* read len 2 local */
	{ 0, false, HWBP_RW, 0x404040, 2, 0x00070402 }, /* read len 2 global */
	{ 1, false, HWBP_RW, 0x404048, 2, 0x00700408 }, /* read len 2 global */
	{ 2, false, HWBP_RW, 0x404050, 2, 0x07000420 }, /* read len 2 global */
	{ 3, false, HWBP_RW, 0x404058, 2, 0x70000480 }, /* read len 2 global */
	{ 0, true, HWBP_RW, 0x404040, 4, 0x000f0401 }, /* read len 4 local */
	{ 1, true, HWBP_RW, 0x404048, 4, 0x00f00404 }, /* read len 4 local */
	{ 2, true, HWBP_RW, 0x404050, 4, 0x0f000410 }, /* read len 4 local */
	{ 3, true, HWBP_RW, 0x404058, 4, 0xf0000440 }, /* read len 4 local */
	{ 0, false, HWBP_RW, 0x404040, 4, 0x000f0402 }, /* read len 4 global */
	{ 1, false, HWBP_RW, 0x404048, 4, 0x00f00408 }, /* read len 4 global */
	{ 2, false, HWBP_RW, 0x404050, 4, 0x0f000420 }, /* read len 4 global */
	{ 3, false, HWBP_RW, 0x404058, 4, 0xf0000480 }, /* read len 4 global */
	{ 0, true, HWBP_RW, 0x404040, 8, 0x000b0401 }, /* read len 8 local */
	{ 1, true, HWBP_RW, 0x404048, 8, 0x00b00404 }, /* read len 8 local */
	{ 2, true, HWBP_RW, 0x404050, 8, 0x0b000410 }, /* read len 8 local */
	{ 3, true, HWBP_RW, 0x404058, 8, 0xb0000440 }, /* read len 8 local */
	{ 0, false, HWBP_RW, 0x404040, 8, 0x000b0402 }, /* read len 8 global */
	{ 1, false, HWBP_RW, 0x404048, 8, 0x00b00408 }, /* read len 8 global */
	{ 2, false, HWBP_RW, 0x404050, 8, 0x0b000420 }, /* read len 8 global */
	{ 3, false, HWBP_RW, 0x404058, 8, 0xb0000480 }, /* read len 8 global */
	{ 0, true, HWBP_X, 0x401136, 1, 0x00000401 }, /* execute local */
	{ 1, true, HWBP_X, 0x401141, 1, 0x00000404 }, /* execute local */
	{ 2, true, HWBP_X, 0x40114c, 1, 0x00000410 }, /* execute local */
	{ 3, true, HWBP_X, 0x401157, 1, 0x00000440 }, /* execute local */
	{ 0, false, HWBP_X, 0x401136, 1, 0x00000402 }, /* execute global */
	{ 1, false, HWBP_X, 0x401141, 1, 0x00000408 }, /* execute global */
	{ 2, false, HWBP_X, 0x40114c, 1, 0x00000420 }, /* execute global */
	{ 3, false, HWBP_X, 0x401157, 1, 0x00000480 }, /* execute global */
};

static void test_encode_linux_selftest(void **state)
{
	struct hwbp_cpu cpu = cpu_named("x86_64");

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(selftest_rows); i++) {
		const struct selftest_row *row = &selftest_rows[i];
		struct hwbp_regs r = regs_reset(&cpu);
		struct hwbp_piece p = mkpiece(row->addr, row->len, row->type);

		assert_int_equal(hwbp_encode_piece(&cpu, &r, row->slot, row->type == HWBP_X,
						   &p, HWBP_SCOPE_BOTH, row->local), 0);
		assert_int_equal(r.u.x86.dr[row->slot], row->addr);
		assert_int_equal(r.u.x86.dr7, row->dr7);
		assert_int_equal(r.u.x86.dr6, 0xffff0ff0ull);
		for (unsigned s = 0; s < 4; s++) {
			if (s != row->slot)
				assert_int_equal(r.u.x86.dr[s], 0);
			assert_int_equal(r.u.x86.addr_mask[s], 0);
		}
		assert_roundtrip(&cpu, &r, row->slot, &p);

		/*
		 * The selftest's "local: 1 global: 1" case: both enables set
		 * still arm the slot once, with the same watch.
		 */
		r.u.x86.dr7 |= 3ull << (2 * row->slot);
		assert_roundtrip(&cpu, &r, row->slot, &p);

		/*
		 * toggle_breakpoint(..., set = 0) clears the slot's bits:
		 * the slot reads back disabled.
		 */
		r.u.x86.dr7 &= ~(3ull << (2 * row->slot));
		{
			struct hwbp_piece q;
			enum hwbp_scope sc;

			assert_int_equal(hwbp_decode_slot(&cpu, &r, row->slot, false, &q, &sc), 0);
		}
	}
}

/*
 * The same selftest on i386 only loops len up to sizeof(long) = 4: LEN=10
 * is not an 8-byte length outside 64-bit mode (SDM §17.2.4), so an 8-byte
 * piece is refused there, in every slot, and nothing changes.
 */
static void test_encode_i386_len8(void **state)
{
	struct hwbp_cpu cpu = cpu_named("i386");

	(void)state;
	for (unsigned s = 0; s < 4; s++) {
		for (unsigned t = HWBP_W; t <= HWBP_RW; t++) {
			struct hwbp_regs r = regs_reset(&cpu), before;
			struct hwbp_piece p = mkpiece(0x404040 + 8 * s, 8, t);

			before = r;
			assert_int_equal(hwbp_encode_piece(&cpu, &r, s, false, &p,
							   HWBP_SCOPE_BOTH, false), -EINVAL);
			assert_memory_equal(&r, &before, sizeof(r));
			/* ... while 4 bytes work (selftest len 4 on i386). */
			p.len = 4;
			assert_int_equal(hwbp_encode_piece(&cpu, &r, s, false, &p,
							   HWBP_SCOPE_BOTH, false), 0);
			assert_roundtrip(&cpu, &r, s, &p);
		}
	}
}

/* ------------------------------------------------------------------ */
/* encode: the SDM breakpoint example                                 */
/* ------------------------------------------------------------------ */

/*
 * SDM Vol. 3 §17.2.5 "Breakpoint Field Recognition", Table 17-1
 * (Breakpoint Examples), debug register setup:
 *   DR0 = A0001H  R/W0 = 11 (read/write)  LEN0 = 00 (1 byte)
 *   DR1 = A0002H  R/W1 = 01 (write)       LEN1 = 00 (1 byte)
 *   DR2 = B0002H  R/W2 = 11 (read/write)  LEN2 = 01 (2 bytes)
 *   DR3 = C0000H  R/W3 = 01 (write)       LEN3 = 11 (4 bytes)
 */
static const struct sdm_slot_row {
	uint64_t addr, len;
	unsigned type;
} sdm_setup[4] = {
	{ 0xa0001, 1, HWBP_RW },
	{ 0xa0002, 1, HWBP_W },
	{ 0xb0002, 2, HWBP_RW },
	{ 0xc0000, 4, HWBP_W },
};

/* Table 17-1, accesses that trap and that do not. */
static const struct sdm_access_row {
	uint64_t addr, size;
	bool rd, wr;   /* access kinds the row lists */
	bool traps;
} sdm_accesses[] = {
	{ 0xa0001, 1, true, true, true },    /* read or write A0001H 1 */
	{ 0xa0001, 2, true, true, true },    /* read or write A0001H 2 */
	{ 0xa0002, 1, false, true, true },   /* write A0002H 1 */
	{ 0xa0002, 2, false, true, true },   /* write A0002H 2 */
	{ 0xb0001, 4, true, true, true },    /* read or write B0001H 4 */
	{ 0xb0002, 1, true, true, true },    /* read or write B0002H 1 */
	{ 0xb0002, 2, true, true, true },    /* read or write B0002H 2 */
	{ 0xc0000, 4, false, true, true },   /* write C0000H 4 */
	{ 0xc0001, 2, false, true, true },   /* write C0001H 2 */
	{ 0xc0003, 1, false, true, true },   /* write C0003H 1 */
	{ 0xa0000, 1, true, true, false },   /* read or write A0000H 1: no trap */
	{ 0xa0002, 1, true, false, false },  /* read A0002H 1: no trap */
	{ 0xa0003, 4, true, true, false },   /* read or write A0003H 4: no trap */
	{ 0xb0000, 2, true, true, false },   /* read or write B0000H 2: no trap */
	{ 0xc0000, 2, true, false, false },  /* read C0000H 2: no trap */
	{ 0xc0004, 4, true, true, false },   /* read or write C0004H 4: no trap */
};

static bool watched_by(const struct hwbp_piece *p, uint64_t addr, uint64_t size, bool write)
{
	bool overlap = addr < p->addr + p->len && p->addr < addr + size;

	if (!overlap)
		return false;
	return p->type == HWBP_RW || (p->type == HWBP_W && write);
}

static void test_encode_sdm_example(void **state)
{
	struct hwbp_cpu cpu = cpu_named("x86_64");
	struct hwbp_regs r = regs_reset(&cpu);
	struct hwbp_piece decoded[4];

	(void)state;
	for (unsigned s = 0; s < 4; s++) {
		struct hwbp_piece p = mkpiece(sdm_setup[s].addr, sdm_setup[s].len, sdm_setup[s].type);

		assert_int_equal(hwbp_encode_piece(&cpu, &r, s, false, &p, HWBP_SCOPE_BOTH, false), 0);
	}
	/*
	 * G0-G3 (0xaa), bit 10, and R/W,LEN nibbles 3|0<<2, 1|0<<2, 3|1<<2,
	 * 1|3<<2 at bits 16, 20, 24, 28.
	 */
	assert_int_equal(r.u.x86.dr7, 0xd71304aaull);
	assert_int_equal(r.u.x86.dr[0], 0xa0001);
	assert_int_equal(r.u.x86.dr[1], 0xa0002);
	assert_int_equal(r.u.x86.dr[2], 0xb0002);
	assert_int_equal(r.u.x86.dr[3], 0xc0000);
	for (unsigned s = 0; s < 4; s++) {
		struct hwbp_piece want = mkpiece(sdm_setup[s].addr, sdm_setup[s].len, sdm_setup[s].type);
		enum hwbp_scope sc;

		assert_roundtrip(&cpu, &r, s, &want);
		assert_int_equal(hwbp_decode_slot(&cpu, &r, s, false, &decoded[s], &sc), 1);
	}
	/* The decoded watches reproduce the table's trap / no-trap rows. */
	for (size_t i = 0; i < ARRAY_SIZE(sdm_accesses); i++) {
		const struct sdm_access_row *a = &sdm_accesses[i];

		for (int k = 0; k < 2; k++) {
			bool write = k == 1, hit = false;

			if ((write && !a->wr) || (!write && !a->rd))
				continue;
			for (unsigned s = 0; s < 4; s++)
				hit |= watched_by(&decoded[s], a->addr, a->size, write);
			assert_int_equal(hit, a->traps);
		}
	}
	/* Same example on i386 (32-bit addresses, no 8-byte length used). */
	cpu = cpu_named("i386");
	r = regs_reset(&cpu);
	for (unsigned s = 0; s < 4; s++) {
		struct hwbp_piece p = mkpiece(sdm_setup[s].addr, sdm_setup[s].len, sdm_setup[s].type);

		assert_int_equal(hwbp_encode_piece(&cpu, &r, s, false, &p, HWBP_SCOPE_BOTH, false), 0);
	}
	assert_int_equal(r.u.x86.dr7, 0xd71304aaull);
}

/*
 * Encoding one slot leaves the others alone and rewrites the slot's own
 * fields completely (interface: "program exactly one slot").
 */
static void test_encode_one_slot(void **state)
{
	struct hwbp_cpu cpu = cpu_named("x86_64");
	struct hwbp_regs r = regs_reset(&cpu);
	struct hwbp_piece p8 = mkpiece(0x1000, 8, HWBP_RW);
	struct hwbp_piece p1 = mkpiece(0x2003, 1, HWBP_W);
	struct hwbp_piece x = mkpiece(0x3001, 1, HWBP_X);

	(void)state;
	/* GD (bit 13) and LE/GE (bits 8, 9) are not the encoder's. */
	r.u.x86.dr7 |= (1ull << 13) | (3ull << 8);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, false, &p8, HWBP_SCOPE_BOTH, true), 0);
	/* L1, RW1 = 11, LEN1 = 10. */
	assert_int_equal(r.u.x86.dr7, 0x2704ull | (0xbull << 20) | (1ull << 2) | 0x400);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 2, true, &x, HWBP_SCOPE_USER, false), 0);
	/* G2, RW2 = 00, LEN2 = 00. */
	assert_int_equal(r.u.x86.dr7, 0x2724ull | (0xbull << 20));
	/* Slot 1 again, now global and 1-byte write: L1 cleared, fields replaced. */
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, false, &p1, HWBP_SCOPE_KERNEL, false), 0);
	assert_int_equal(r.u.x86.dr7, 0x2728ull | (0x1ull << 20));
	assert_int_equal(r.u.x86.dr[1], 0x2003);
	assert_int_equal(r.u.x86.dr[2], 0x3001);
	assert_roundtrip(&cpu, &r, 1, &p1);
	assert_roundtrip(&cpu, &r, 2, &x);
}

/* ------------------------------------------------------------------ */
/* encode: errors leave the registers untouched                       */
/* ------------------------------------------------------------------ */

static const struct encode_err_row {
	const char *cpu;
	unsigned slot;
	bool inst;
	uint64_t addr, len;
	unsigned type;
	int scope;
	const char *why;
} encode_err_rows[] = {
	{ "x86_64", 4, false, 0x1000, 1, HWBP_W, HWBP_SCOPE_BOTH, "slot 4: only DR0-DR3 (SDM §17.2.1)" },
	{ "x86_64", 99, true, 0x1000, 1, HWBP_X, HWBP_SCOPE_BOTH, "slot far out of range" },
	{ "x86_64", 0, false, 0x1000, 1, HWBP_R, HWBP_SCOPE_BOTH, "R: R/W=10 is I/O, no read-only (SDM §17.2.4)" },
	{ "x86_64", 0, false, 0x1000, 1, 0, HWBP_SCOPE_BOTH, "type 0" },
	{ "x86_64", 0, false, 0x1000, 1, 7, HWBP_SCOPE_BOTH, "type RWX is not one type" },
	{ "x86_64", 0, false, 0x1000, 1, HWBP_X, HWBP_SCOPE_BOTH, "X piece with inst = false" },
	{ "x86_64", 0, true, 0x1000, 1, HWBP_W, HWBP_SCOPE_BOTH, "W piece with inst = true" },
	{ "x86_64", 0, true, 0x1000, 2, HWBP_X, HWBP_SCOPE_BOTH, "X with LEN != 00 undefined (SDM §17.2.4)" },
	{ "x86_64", 0, true, 0x1000, 8, HWBP_X, HWBP_SCOPE_BOTH, "X 8 bytes" },
	{ "x86_64", 0, false, 0x1000, 0, HWBP_W, HWBP_SCOPE_BOTH, "len 0" },
	{ "x86_64", 0, false, 0x1000, 3, HWBP_W, HWBP_SCOPE_BOTH, "len 3: no LEN encoding" },
	{ "x86_64", 0, false, 0x1001, 2, HWBP_W, HWBP_SCOPE_BOTH, "misaligned 2 (SDM §17.2.5)" },
	{ "x86_64", 0, false, 0x1002, 4, HWBP_RW, HWBP_SCOPE_BOTH, "misaligned 4" },
	{ "x86_64", 0, false, 0x1004, 8, HWBP_RW, HWBP_SCOPE_BOTH, "misaligned 8" },
	{ "x86_64", 0, false, 0x1000, 16, HWBP_W, HWBP_SCOPE_BOTH, "16 bytes without AMD mask" },
	{ "x86_64", 0, false, 0x1000, 1, HWBP_W, 3, "scope outside the enum" },
	{ "x86_64", 0, false, 0x1000, 1, HWBP_W, -1, "negative scope" },
	{ "i386", 0, false, 0x1000, 8, HWBP_W, HWBP_SCOPE_BOTH, "i386: LEN=10 is not 8 bytes" },
	{ "i386", 0, false, 0x100000000ull, 1, HWBP_W, HWBP_SCOPE_BOTH, "i386: DRn is 32 bits (SDM §17.2.6)" },
	{ "i386", 0, true, 0xfffffffffffffff0ull, 1, HWBP_X, HWBP_SCOPE_BOTH, "i386: 64-bit address" },
	{ "x86_64-amd", 0, false, 0x1008, 16, HWBP_W, HWBP_SCOPE_BOTH, "AMD mask: block not aligned (Linux hw_breakpoint_arch_parse)" },
	{ "x86_64-amd", 0, false, 0x1000, 24, HWBP_W, HWBP_SCOPE_BOTH, "AMD mask: 24 not a power of two" },
	{ "x86_64-amd", 0, false, 0x0, 8192, HWBP_W, HWBP_SCOPE_BOTH, "AMD mask: beyond bits 11:0" },
	{ "x86_64-amd", 0, true, 0x1000, 16, HWBP_X, HWBP_SCOPE_BOTH, "AMD mask: not for execute (LEN_X only)" },
	{ "i386-amd", 0, false, 0xfffff000ull + 0x1000, 16, HWBP_W, HWBP_SCOPE_BOTH, "i386: 2^32 is past DRn" },
};

static void test_encode_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(encode_err_rows); i++) {
		const struct encode_err_row *row = &encode_err_rows[i];
		struct hwbp_cpu cpu = cpu_named(row->cpu);
		struct hwbp_regs r = regs_reset(&cpu), before;
		struct hwbp_piece p = mkpiece(row->addr, row->len, row->type);
		struct hwbp_piece armed = mkpiece(0x2000, 4, HWBP_RW);

		/* Non-trivial state to compare against. */
		assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, false, &armed, HWBP_SCOPE_BOTH, true), 0);
		assert_int_equal(hwbp_encode_piece(&cpu, &r, 3, false, &armed, HWBP_SCOPE_BOTH, false), 0);
		r.u.x86.dr6 = 0xffff4ff1ull;
		before = r;
		print_message("encode error row %zu: %s\n", i, row->why);
		assert_int_equal(hwbp_encode_piece(&cpu, &r, row->slot, row->inst, &p,
						   (enum hwbp_scope)row->scope, false), -EINVAL);
		assert_memory_equal(&r, &before, sizeof(r));
		/* Also straight through the ops table. */
		assert_int_equal(ops->encode(&cpu, &r, row->slot, row->inst, &p,
					     (enum hwbp_scope)row->scope, true), -EINVAL);
		assert_memory_equal(&r, &before, sizeof(r));
	}
}

/* ------------------------------------------------------------------ */
/* AMD address mask                                                   */
/* ------------------------------------------------------------------ */

/*
 * Linux arch/x86/kernel/hw_breakpoint.c arch_build_bp_info(): a bp_len
 * that is a power of two above 8 and aligned becomes LEN_1 (LEN=00) with
 * hw->mask = bp_len - 1, written to DRn_ADDR_MASK by
 * amd_set_dr_addr_mask().  Lengths 1/2/4/8 keep their native LEN.
 */
static const struct amd_row {
	const char *cpu;
	unsigned slot;
	uint64_t addr, len;
	unsigned type;
	uint64_t lenrw;   /* the slot's R/W,LEN nibble */
	uint64_t mask;
} amd_rows[] = {
	{ "x86_64-amd", 0, 0x1000, 16, HWBP_W, 0x1, 0xf },       /* 16: LEN 00 + mask */
	{ "x86_64-amd", 1, 0x10000, 4096, HWBP_RW, 0x3, 0xfff }, /* the 12-bit ceiling */
	{ "x86_64-amd", 2, 0x7f00, 256, HWBP_W, 0x1, 0xff },
	{ "x86_64-amd", 3, 0x7f08, 8, HWBP_RW, 0xb, 0 },         /* native LEN=10 */
	{ "x86_64-amd", 0, 0x7f04, 4, HWBP_W, 0xd, 0 },          /* native LEN=11 */
	{ "i386-amd", 0, 0x7f08, 8, HWBP_W, 0x1, 0x7 },          /* no LEN=10: mask 7 */
	{ "i386-amd", 3, 0xfffff000ull, 4096, HWBP_RW, 0x3, 0xfff }, /* top of 4 GiB */
};

static void test_amd_mask(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(amd_rows); i++) {
		const struct amd_row *row = &amd_rows[i];
		struct hwbp_cpu cpu = cpu_named(row->cpu);
		struct hwbp_regs r = regs_reset(&cpu);
		struct hwbp_piece p = mkpiece(row->addr, row->len, row->type);
		uint64_t want7 = 0x400 | (2ull << (2 * row->slot)) | (row->lenrw << (16 + 4 * row->slot));

		/* A stale mask from an earlier piece must be replaced. */
		r.u.x86.addr_mask[row->slot] = 0x3;
		assert_int_equal(hwbp_encode_piece(&cpu, &r, row->slot, false, &p, HWBP_SCOPE_BOTH, false), 0);
		assert_int_equal(r.u.x86.dr[row->slot], row->addr);
		assert_int_equal(r.u.x86.dr7, want7);
		assert_int_equal(r.u.x86.addr_mask[row->slot], row->mask);
		assert_roundtrip(&cpu, &r, row->slot, &p);
	}
}

/* decode_slot of mask register values: only Linux's shape has a meaning. */
static const struct amd_dec_row {
	const char *cpu;
	uint64_t dr0, dr7, mask0;
	int ret;
	uint64_t addr, len;
	const char *why;
} amd_dec_rows[] = {
	{ "x86_64-amd", 0x1234, 0x10402, 0xff, 1, 0x1200, 0x100, "mask drops bits 7:0 of DR0" },
	{ "x86_64-amd", 0x1000, 0x10402, 0x5, -EINVAL, 0, 0, "mask with a hole" },
	{ "x86_64-amd", 0x0, 0x10402, 0x1fff, -EINVAL, 0, 0, "mask beyond DataBkptExt bits 11:0" },
	{ "x86_64-amd", 0x1000, 0x50402, 0xf, -EINVAL, 0, 0, "mask with LEN=01" },
	{ "x86_64-amd", 0x1000, 0x00402, 0xf, -EINVAL, 0, 0, "mask on an execute slot" },
	{ "x86_64-amd", 0x1000, 0x00400, 0xf, 0, 0, 0, "mask on a disabled slot" },
	{ "x86_64", 0x1234, 0x10402, 0xff, 1, 0x1234, 1, "no extension: the MSR does not exist" },
};

static void test_amd_decode(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(amd_dec_rows); i++) {
		const struct amd_dec_row *row = &amd_dec_rows[i];
		struct hwbp_cpu cpu = cpu_named(row->cpu);
		struct hwbp_regs r = regs_reset(&cpu);
		struct hwbp_piece p;
		enum hwbp_scope sc;

		print_message("amd decode row %zu: %s\n", i, row->why);
		r.u.x86.dr[0] = row->dr0;
		r.u.x86.dr7 = row->dr7;
		r.u.x86.addr_mask[0] = row->mask0;
		assert_int_equal(hwbp_decode_slot(&cpu, &r, 0, false, &p, &sc), row->ret);
		if (row->ret == 1) {
			assert_int_equal(p.addr, row->addr);
			assert_int_equal(p.len, row->len);
			assert_int_equal(sc, HWBP_SCOPE_BOTH);
		}
	}
}

/* ------------------------------------------------------------------ */
/* decode_slot                                                        */
/* ------------------------------------------------------------------ */

static const struct dec_row {
	const char *cpu;
	unsigned slot;
	uint64_t dr, dr7;
	int ret;
	uint64_t addr, len;
	unsigned type;
	const char *why;
} dec_rows[] = {
	{ "x86_64", 0, 0xa0001, 0x30401, 1, 0xa0001, 1, HWBP_RW, "L0 RW 1 byte" },
	{ "x86_64", 1, 0xa0001, 0x500408, 1, 0xa0000, 2, HWBP_W,
	  "misaligned DR1 with LEN=01: bit 0 ignored (SDM §17.2.5)" },
	{ "x86_64", 2, 0xb0007, 0xf000420, 1, 0xb0004, 4, HWBP_RW, "LEN=11: bits 1:0 ignored" },
	{ "x86_64", 3, 0xc000f, 0xb0000480, 1, 0xc0008, 8, HWBP_RW, "LEN=10: bits 2:0 ignored" },
	{ "x86_64", 3, 0x401157, 0x4c0, 1, 0x401157, 1, HWBP_X, "L3 and G3 both set, execute" },
	{ "x86_64", 0, 0x1000, 0x10400, 0, 0, 0, 0, "fields set, L0 and G0 clear: disabled" },
	{ "x86_64", 0, 0x1000, 0x20403, -EINVAL, 0, 0, 0, "R/W=10: I/O breakpoint" },
	{ "x86_64", 1, 0x1000, 0x400408, -EINVAL, 0, 0, 0, "execute with LEN=01: undefined (SDM §17.2.4)" },
	{ "x86_64", 1, 0x1000, 0xc00408, -EINVAL, 0, 0, 0, "execute with LEN=11" },
	{ "x86_64", 4, 0x1000, 0x403, -EINVAL, 0, 0, 0, "slot 4" },
	{ "i386", 0, 0x1000, 0x90402, -EINVAL, 0, 0, 0, "i386: LEN=10 undefined" },
	{ "i386", 0, 0x100000000ull, 0x10402, -EINVAL, 0, 0, 0, "i386: DR0 wider than 32 bits" },
	{ "i386", 0, 0xfffffffeull, 0x50402, 1, 0xfffffffeull, 2, HWBP_W, "i386: top of 4 GiB" },
	{ "x86_64", 0, 0xffffffffffffffffull, 0xb0402, 1, 0xfffffffffffffff8ull, 8, HWBP_RW,
	  "64-bit: all 64 bits of DR0 writable (SDM §17.2.6)" },
};

static void test_decode_slot(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(dec_rows); i++) {
		const struct dec_row *row = &dec_rows[i];
		struct hwbp_cpu cpu = cpu_named(row->cpu);
		struct hwbp_regs r = regs_reset(&cpu);
		struct hwbp_piece p;
		enum hwbp_scope sc = HWBP_SCOPE_USER;

		print_message("decode row %zu: %s\n", i, row->why);
		if (row->slot < 4)
			r.u.x86.dr[row->slot] = row->dr;
		r.u.x86.dr7 = row->dr7;
		/* @inst does not matter for the shared pool. */
		for (int inst = 0; inst < 2; inst++) {
			assert_int_equal(hwbp_decode_slot(&cpu, &r, row->slot, inst, &p, &sc), row->ret);
			if (row->ret == 1) {
				assert_int_equal(p.addr, row->addr);
				assert_int_equal(p.len, row->len);
				assert_int_equal(p.type, row->type);
				assert_int_equal(sc, HWBP_SCOPE_BOTH);
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* split                                                              */
/* ------------------------------------------------------------------ */

static const struct split_row {
	const char *cpu;
	bool inst;
	uint64_t addr, len;
	unsigned n;
	struct { uint64_t addr, len; } p[6];
	const char *why;
} split_rows[] = {
	{ "x86_64", false, 0x1000, 8, 1, { { 0x1000, 8 } }, "aligned 8: one LEN=10 piece" },
	{ "i386", false, 0x1000, 8, 2, { { 0x1000, 4 }, { 0x1004, 4 } }, "i386: two LEN=11 pieces" },
	{ "x86_64", false, 0x1001, 7, 3, { { 0x1001, 1 }, { 0x1002, 2 }, { 0x1004, 4 } }, "1+2+4" },
	{ "x86_64", false, 0x1003, 6, 3, { { 0x1003, 1 }, { 0x1004, 4 }, { 0x1008, 1 } }, "1+4+1" },
	{ "x86_64", false, 0x1001, 14, 6,
	  { { 0x1001, 1 }, { 0x1002, 2 }, { 0x1004, 4 }, { 0x1008, 4 }, { 0x100c, 2 }, { 0x100e, 1 } },
	  "more pieces than slots: count still returned" },
	{ "x86_64", false, 0x1000, 24, 3, { { 0x1000, 8 }, { 0x1008, 8 }, { 0x1010, 8 } }, "3 x 8" },
	{ "x86_64-amd", false, 0x1000, 24, 2, { { 0x1000, 16 }, { 0x1010, 8 } }, "AMD: 16 + 8" },
	{ "x86_64-amd", false, 0x1ff8, 0x1010, 3, { { 0x1ff8, 8 }, { 0x2000, 0x1000 }, { 0x3000, 8 } },
	  "AMD: 8 + 4096 + 8" },
	{ "x86_64-amd", false, 0x0, 0x2000, 2, { { 0x0, 0x1000 }, { 0x1000, 0x1000 } }, "AMD: 4 KiB ceiling" },
	{ "x86_64", false, 0xfffffffffffffffcull, 4, 1, { { 0xfffffffffffffffcull, 4 } }, "last bytes of the space" },
	{ "x86_64", false, 0, 1, 1, { { 0, 1 } }, "address 0" },
	{ "x86_64", true, 0x401136, 3, 3, { { 0x401136, 1 }, { 0x401137, 1 }, { 0x401138, 1 } },
	  "execute: one LEN 00 piece per byte" },
	{ "x86_64-amd", true, 0x1000, 2, 2, { { 0x1000, 1 }, { 0x1001, 1 } }, "execute: no mask" },
};

static void test_split_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(split_rows); i++) {
		const struct split_row *row = &split_rows[i];
		struct hwbp_cpu cpu = cpu_named(row->cpu);
		struct hwbp_piece out[8];
		unsigned n;

		print_message("split row %zu: %s\n", i, row->why);
		memset(out, 0xee, sizeof(out));
		n = ops->split(&cpu, row->inst, row->addr, row->len, out, 4);
		assert_int_equal(n, row->n);
		for (unsigned k = 0; k < n && k < 4; k++) {
			assert_int_equal(out[k].addr, row->p[k].addr);
			assert_int_equal(out[k].len, row->p[k].len);
		}
		/* Only the first @max pieces are written. */
		for (unsigned k = 4; k < 8; k++)
			assert_int_equal(out[k].addr, 0xeeeeeeeeeeeeeeeeull);
	}
}

/* Fewest aligned power-of-two blocks <= maxp tiling [a, a + len). */
static unsigned min_tiling(uint64_t a, uint64_t len, uint64_t maxp)
{
	unsigned best[129];

	assert_true(len <= 128);
	best[len] = 0;
	for (int off = (int)len - 1; off >= 0; off--) {
		uint64_t x = a + (uint64_t)off;

		best[off] = UINT_MAX;
		for (uint64_t s = 1; s <= maxp && off + s <= len; s <<= 1) {
			if (x % s == 0 && best[off + s] != UINT_MAX && best[off + s] + 1 < best[off])
				best[off] = best[off + s] + 1;
		}
	}
	return best[0];
}

/*
 * Brute force (as the lead does): every request inside a 64-byte window,
 * the split is an exact tiling by pieces the encoder accepts, and no
 * tiling uses fewer pieces.
 */
static void test_split_minimal(void **state)
{
	static const char *const cpus[] = { "x86_64", "i386", "x86_64-amd" };

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cpus); c++) {
		struct hwbp_cpu cpu = cpu_named(cpus[c]);
		/* Independent of caps: LEN 1/2/4(/8), or the 12-bit AMD mask. */
		uint64_t maxp = cpu.u.x86.amd_addr_mask ? 4096 : cpu.u.x86.mode64 ? 8 : 4;

		for (uint64_t a = 0x1000; a < 0x1040; a++) {
			for (uint64_t len = 1; a + len <= 0x1040; len++) {
				struct hwbp_piece out[64];
				unsigned n = ops->split(&cpu, false, a, len, out, 64);
				uint64_t at = a;

				assert_int_equal(n, min_tiling(a, len, maxp));
				for (unsigned k = 0; k < n; k++) {
					struct hwbp_regs r = regs_reset(&cpu);

					assert_int_equal(out[k].addr, at);
					assert_true(hwbpi_is_pow2(out[k].len));
					assert_int_equal(out[k].addr % out[k].len, 0);
					at += out[k].len;
					out[k].type = HWBP_RW;
					assert_int_equal(hwbp_encode_piece(&cpu, &r, k % 4, false, &out[k],
									   HWBP_SCOPE_BOTH, false), 0);
					assert_roundtrip(&cpu, &r, k % 4, &out[k]);
				}
				assert_int_equal(at, a + len);
				/* Execute: exactly len one-byte pieces. */
				assert_int_equal(ops->split(&cpu, true, a, len, out, 64), len);
			}
		}
	}
}

/* Huge requests: the count saturates and only @max pieces are written. */
static void test_split_huge(void **state)
{
	struct hwbp_cpu cpu = cpu_named("x86_64");
	struct hwbp_piece out[2];

	(void)state;
	/* 2^63 bytes from 0 = 2^60 pieces of 8. */
	assert_int_equal(ops->split(&cpu, false, 0, 1ull << 63, out, 2), UINT_MAX);
	assert_int_equal(out[1].addr, 8);
	assert_int_equal(out[1].len, 8);
	/* Up to the very last byte (addr + len == 2^64). */
	assert_int_equal(ops->split(&cpu, false, 0xfffffffffffffff0ull, 16, out, 2), 2);
	assert_int_equal(out[1].addr, 0xfffffffffffffff8ull);
	assert_int_equal(ops->split(&cpu, true, 0x1000, 1ull << 40, out, 2), UINT_MAX);
	assert_int_equal(out[1].addr, 0x1001);
	/* max 0 writes nothing. */
	assert_int_equal(ops->split(&cpu, false, 0x1001, 3, NULL, 0), 2);
}

/* ------------------------------------------------------------------ */
/* decode_status                                                      */
/* ------------------------------------------------------------------ */

/*
 * DR6 (SDM §17.2.3): B0-B3 in bits 0-3, BD 13, BS 14, BT 15; reads
 * FFFF0FF0 when clear.  B bits may be set for slots that matched but are
 * not enabled; only enabled slots are reported.
 */
static const struct status_row {
	uint64_t dr7, dr6;
	int ret;
	uint32_t slots;
	unsigned kind;
	bool addr_known;
	uint64_t addr;
	const char *why;
} status_rows[] = {
	/* DR0 = 0x1000, DR1 = 0x2000, DR2 = 0x3000, DR3 = 0x4000 below. */
	{ 0x10402, 0xffff0ff1, 0, 0x1, HWBP_W, false, 0, "single W slot 0: kind W" },
	{ 0x3000420, 0xffff0ff4, 0, 0x4, 0, false, 0, "single RW slot 2: kind unknown" },
	{ 0x408, 0xffff0ff2, 0, 0x2, HWBP_X, true, 0x2000, "execute slot 1: address = DR1" },
	{ 0x10010482, 0xffff0ff9, 0, 0x9, HWBP_W, false, 0, "W slots 0 and 3" },
	{ 0x30010482, 0xffff0ff9, 0, 0x9, 0, false, 0, "W slot 0 + RW slot 3" },
	{ 0x1040a, 0xffff0ff3, 0, 0x3, 0, false, 0, "X slot 1 + W slot 0" },
	{ 0x4a0, 0xffff0ffc, 0, 0xc, HWBP_X, true, 0x3000, "X slots 2 and 3: lowest slot's DRn" },
	{ 0x10402, 0xffff0ff3, 0, 0x1, HWBP_W, false, 0, "B1 for disabled slot 1 dropped" },
	{ 0x10402, 0xffff4ff1, 0, 0x1, HWBP_W, false, 0, "BS together with B0" },
	{ 0x10402, 0xffff0ffe, -ENOENT, 0, 0, false, 0, "B bits only on disabled slots" },
	{ 0x400, 0xffff0fff, -ENOENT, 0, 0, false, 0, "nothing enabled, all B bits" },
	{ 0x10402, 0xffff4ff0, -EINVAL, 0, 0, false, 0, "BS only: single step" },
	{ 0x10402, 0xffff2ff0, -EINVAL, 0, 0, false, 0, "BD only: debug register access" },
	{ 0x10402, 0xffff8ff0, -EINVAL, 0, 0, false, 0, "BT only: task switch" },
	{ 0x10402, 0xffff0ff0, -EINVAL, 0, 0, false, 0, "reset value: nothing recorded" },
	{ 0x10402, 0x0, -EINVAL, 0, 0, false, 0, "zero" },
};

static void test_decode_status(void **state)
{
	struct hwbp_cpu cpu = cpu_named("x86_64");

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(status_rows); i++) {
		const struct status_row *row = &status_rows[i];
		struct hwbp_regs r = regs_reset(&cpu);
		struct hwbp_status st;
		struct hwbp_hit hit, before;

		print_message("status row %zu: %s\n", i, row->why);
		for (unsigned s = 0; s < 4; s++)
			r.u.x86.dr[s] = 0x1000 * (s + 1);
		r.u.x86.dr7 = row->dr7;
		memset(&st, 0, sizeof(st));
		st.ip = 0x401234;
		st.u.x86.dr6 = row->dr6;
		memset(&hit, 0x77, sizeof(hit));
		before = hit;
		assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &hit), row->ret);
		if (row->ret) {
			/* The public API leaves @hit alone on error. */
			assert_memory_equal(&hit, &before, sizeof(hit));
			continue;
		}
		assert_int_equal(hit.data_slots, row->slots);
		assert_int_equal(hit.inst_slots, 0);
		assert_int_equal(hit.kind, row->kind);
		assert_int_equal(hit.addr_known, row->addr_known);
		if (row->addr_known)
			assert_int_equal(hit.addr, row->addr);
		assert_int_equal(hit.ip, 0x401234);
		assert_int_equal(hit.requests, 0);
		assert_false(hit.filtered);
	}
}

/* Encode + a matching DR6 = the slot comes back (the Linux selftest flow). */
static void test_status_after_encode(void **state)
{
	struct hwbp_cpu cpu = cpu_named("i386");

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(selftest_rows); i++) {
		const struct selftest_row *row = &selftest_rows[i];
		struct hwbp_regs r = regs_reset(&cpu);
		struct hwbp_piece p = mkpiece(row->addr, row->len, row->type);
		struct hwbp_status st = { .ip = 0x8048000 };
		struct hwbp_hit hit;

		if (row->len == 8)
			continue;  /* i386: sizeof(long) == 4 */
		assert_int_equal(hwbp_encode_piece(&cpu, &r, row->slot, row->type == HWBP_X, &p,
						   HWBP_SCOPE_BOTH, row->local), 0);
		st.u.x86.dr6 = 0xffff0ff0ull | (1ull << row->slot);
		assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &hit), 0);
		assert_int_equal(hit.data_slots, 1u << row->slot);
		assert_int_equal(hit.kind, row->type == HWBP_RW ? 0 : row->type);
		assert_int_equal(hit.addr_known, row->type == HWBP_X);
		if (row->type == HWBP_X)
			assert_int_equal(hit.addr, row->addr);
		assert_int_equal(hit.ip, 0x8048000);
	}
}

/* ------------------------------------------------------------------ */
/* registers by name                                                  */
/* ------------------------------------------------------------------ */

static void test_regs_list(void **state)
{
	static const char *const base[] = { "dr0", "dr1", "dr2", "dr3", "dr6", "dr7" };
	static const char *const masks[] = { "dr0_mask", "dr1_mask", "dr2_mask", "dr3_mask" };
	struct hwbp_reg_nv nv[16];

	(void)state;
	for (int amd = 0; amd < 2; amd++) {
		struct hwbp_cpu cpu = cpu_named(amd ? "x86_64-amd" : "x86_64");
		struct hwbp_regs r = regs_reset(&cpu);
		int want = amd ? 10 : 6;

		for (unsigned s = 0; s < 4; s++) {
			r.u.x86.dr[s] = 0x100 + s;
			r.u.x86.addr_mask[s] = 0xf0 + s;
		}
		assert_int_equal(hwbp_regs_list(&cpu, &r, nv, 16), want);
		for (int k = 0; k < 6; k++)
			assert_string_equal(nv[k].name, base[k]);
		for (unsigned s = 0; s < 4; s++)
			assert_int_equal(nv[s].value, 0x100 + s);
		assert_int_equal(nv[4].value, 0xffff0ff0ull);
		assert_int_equal(nv[5].value, 0x400);
		for (int k = 6; k < want; k++) {
			assert_string_equal(nv[k].name, masks[k - 6]);
			assert_int_equal(nv[k].value, 0xf0 + (k - 6));
		}
		/* At most @max written. */
		memset(nv, 0, sizeof(nv));
		assert_int_equal(hwbp_regs_list(&cpu, &r, nv, 3), 3);
		assert_string_equal(nv[2].name, "dr2");
		assert_string_equal(nv[3].name, "");
		assert_int_equal(hwbp_regs_list(&cpu, &r, nv, 0), 0);
		assert_int_equal(hwbp_regs_list(&cpu, &r, nv, -1), -EINVAL);
	}
}

static const struct set_row {
	const char *cpu, *name;
	int ret;
	const char *why;
} set_rows[] = {
	{ "x86_64", "dr0", 0, "docs/scenarios.md x86 names" },
	{ "x86_64", "dr1", 0, "" },
	{ "x86_64", "dr2", 0, "" },
	{ "x86_64", "dr3", 0, "" },
	{ "x86_64", "dr6", 0, "" },
	{ "x86_64", "dr7", 0, "" },
	{ "i386", "dr7", 0, "" },
	{ "x86_64", "dr4", -ENOENT, "DR4 aliases DR6 only with CR4.DE = 0 (SDM §17.2.2): simulator's job" },
	{ "x86_64", "dr5", -ENOENT, "DR5 likewise" },
	{ "x86_64", "dr8", -ENOENT, "no such register" },
	{ "x86_64", "DR7", -ENOENT, "names are lower case" },
	{ "x86_64", "", -ENOENT, "empty name" },
	{ "x86_64", "dawr0", -ENOENT, "another arch's register" },
	{ "x86_64", "dr0_mask", -ENOENT, "mask MSRs exist only with the AMD extension" },
	{ "x86_64-amd", "dr0_mask", 0, "AMD DR0_ADDR_MASK (MSR C001_1027)" },
	{ "x86_64-amd", "dr1_mask", 0, "AMD DR1_ADDR_MASK (MSR C001_1019)" },
	{ "x86_64-amd", "dr2_mask", 0, "AMD DR2_ADDR_MASK (MSR C001_101A)" },
	{ "x86_64-amd", "dr3_mask", 0, "AMD DR3_ADDR_MASK (MSR C001_101B)" },
	{ "x86_64-amd", "dr4_mask", -ENOENT, "only four masks" },
};

static void test_regs_set(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(set_rows); i++) {
		const struct set_row *row = &set_rows[i];
		struct hwbp_cpu cpu = cpu_named(row->cpu);
		struct hwbp_regs r = regs_reset(&cpu), before = r;
		struct hwbp_reg_nv nv[16];
		int n, found = 0;

		print_message("regs_set row %zu: %s %s\n", i, row->name, row->why);
		assert_int_equal(hwbp_regs_set(&cpu, &r, row->name, 0x12345678abcdull), row->ret);
		if (row->ret) {
			assert_memory_equal(&r, &before, sizeof(r));
			continue;
		}
		/* The value reads back under the same name, raw. */
		n = hwbp_regs_list(&cpu, &r, nv, 16);
		for (int k = 0; k < n; k++) {
			if (strcmp(nv[k].name, row->name) == 0) {
				assert_int_equal(nv[k].value, 0x12345678abcdull);
				found++;
			}
		}
		assert_int_equal(found, 1);
	}
	{
		struct hwbp_cpu cpu = cpu_named("x86_64");
		struct hwbp_regs r = regs_reset(&cpu);

		assert_int_equal(hwbp_regs_set(&cpu, &r, NULL, 1), -EINVAL);
		assert_int_equal(hwbp_regs_set(&cpu, NULL, "dr7", 1), -EINVAL);
	}
}

/* regs_set then decode: a raw register write is read back like hardware. */
static void test_regs_set_decode(void **state)
{
	struct hwbp_cpu cpu = cpu_named("x86_64");
	struct hwbp_regs r = regs_reset(&cpu);
	struct hwbp_piece want = mkpiece(0xb0002, 2, HWBP_RW);

	(void)state;
	/* SDM Table 17-1 DR2 via raw writes: G2, R/W2 = 11, LEN2 = 01. */
	assert_int_equal(hwbp_regs_set(&cpu, &r, "dr2", 0xb0002), 0);
	assert_int_equal(hwbp_regs_set(&cpu, &r, "dr7", 0x7000420), 0);
	assert_roundtrip(&cpu, &r, 2, &want);
}

/* ---- the glue's write (hwbp_regs_apply); names and status fields are
 * tests/unit/test_arch.c's ---- */

static void test_regs_apply(void **state)
{
	struct hwbp_cpu cpu, arm;
	struct hwbp_regs live, written, want;
	struct hwbp_caps caps;

	(void)state;
	assert_int_equal(hwbp_cpu_preset("x86_64-amd", &cpu), 0);
	assert_int_equal(hwbp_regs_reset(&cpu, &live), 0);
	live.u.x86.dr6 = 0xffff4ff1;           /* B0 and BS set by the CPU */
	live.u.x86.dr[1] = 0x1234;
	assert_int_equal(hwbp_regs_reset(&cpu, &written), 0);
	written.u.x86.dr[0] = 0x1000;
	written.u.x86.dr7 = 0x70401;
	written.u.x86.addr_mask[0] = 0xff;
	written.u.x86.dr6 = 0;                  /* never written by the glue */
	want = live;
	want.u.x86.dr[0] = 0x1000;
	want.u.x86.dr[1] = 0;
	want.u.x86.dr7 = 0x70401;
	want.u.x86.addr_mask[0] = 0xff;
	assert_int_equal(hwbp_regs_apply(&cpu, &live, &written), 0);
	assert_memory_equal(&live, &want, sizeof(live));
	/* Errors: NULL and another arch's registers. */
	assert_int_equal(hwbp_regs_apply(&cpu, NULL, &written), -EINVAL);
	assert_int_equal(hwbp_regs_apply(&cpu, &live, NULL), -EINVAL);
	assert_int_equal(hwbp_regs_apply(NULL, &live, &written), -EINVAL);
	assert_int_equal(hwbp_cpu_preset("cortex-a57", &arm), 0);
	assert_int_equal(hwbp_regs_reset(&arm, &written), 0);
	assert_int_equal(hwbp_regs_apply(&cpu, &live, &written), -EINVAL);
	assert_memory_equal(&live, &want, sizeof(live));
	/* The caps that go with it: port I/O, no zeroing instruction. */
	assert_int_equal(hwbp_caps_get(&cpu, &caps), 0);
	assert_true(caps.io_ports);
	assert_true(caps.zero_block == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_encode_linux_selftest),
		cmocka_unit_test(test_encode_i386_len8),
		cmocka_unit_test(test_encode_sdm_example),
		cmocka_unit_test(test_encode_one_slot),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_amd_mask),
		cmocka_unit_test(test_amd_decode),
		cmocka_unit_test(test_decode_slot),
		cmocka_unit_test(test_split_table),
		cmocka_unit_test(test_split_minimal),
		cmocka_unit_test(test_split_huge),
		cmocka_unit_test(test_decode_status),
		cmocka_unit_test(test_status_after_encode),
		cmocka_unit_test(test_regs_list),
		cmocka_unit_test(test_regs_set),
		cmocka_unit_test(test_regs_set_decode),
		cmocka_unit_test(test_regs_apply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
