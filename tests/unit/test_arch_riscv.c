/* SPDX-License-Identifier: MIT */
/*
 * RISC-V arch module: caps per preset, split (exact, NAPOT, chained
 * pair), encode (tdata1 bit by bit, RISC-V Debug Specification 1.0
 * §5.5.10 mcontrol, §5.5.11 mcontrol6), decode_slot round trips,
 * decode_status (hit bits, tval, neither), ERANGE/ENOSPC, the slot
 * allocator's runs of two triggers, and hwbp_cpu_riscv_from_tinfo().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "riscv/riscv.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* tdata1 fields, written out from the spec rather than from riscv.h. */
#define T6 (6ull << 60)     /* type 6, mcontrol6 */
#define T2 (2ull << 60)     /* type 2, mcontrol */
#define LOAD (1ull << 0)
#define STORE (1ull << 1)
#define EXEC (1ull << 2)
#define U (1ull << 3)
#define S (1ull << 4)
#define M (1ull << 6)
#define MATCH(m) ((uint64_t)(m) << 7)
#define CHAIN (1ull << 11)
#define HIT0 (1ull << 22)

static struct hwbp_cpu preset(const char *name)
{
	struct hwbp_cpu cpu;

	assert_int_equal(hwbp_cpu_preset(name, &cpu), 0);
	assert_int_equal(cpu.arch, HWBP_ARCH_RISCV);
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

static void test_caps_presets(void **state)
{
	static const struct {
		const char *name;
		unsigned slots;
		uint64_t max_piece;
		enum hwbp_precision prec;
	} rows[] = {
		{ "rv64-qemu", 2, 8, HWBP_ADDR_WINDOW },   /* RV_MAX_TRIGGERS; size-as-length 8 */
		{ "rv64-sdtrig", 4, UINT64_MAX, HWBP_ADDR_WINDOW }, /* chained pair: any range */
		{ "sifive-u74", 4, UINT64_MAX, HWBP_ADDR_WINDOW },  /* 4 registers, chain */
	};

	(void)state;
	for (size_t i = 0; i < N(rows); i++) {
		struct hwbp_cpu cpu = preset(rows[i].name);
		struct hwbp_caps c;

		assert_int_equal(hwbp_caps_get(&cpu, &c), 0);
		assert_int_equal(c.arch, HWBP_ARCH_RISCV);
		assert_true(c.shared);
		assert_int_equal(c.data_slots, rows[i].slots);
		assert_int_equal(c.inst_slots, rows[i].slots);
		assert_true(c.max_piece == rows[i].max_piece);
		assert_int_equal(c.precision, rows[i].prec);
		assert_int_equal(c.types, (1u << HWBP_R) | (1u << HWBP_W) | (1u << HWBP_RW) | (1u << HWBP_X));
		assert_false(c.kind_known);   /* mcause 3 for loads and stores alike */
		assert_true(c.priv_filter);
		assert_int_equal(c.data_timing, HWBP_TIMING_BEFORE);
		assert_int_equal(c.inst_len, 2);
		assert_true(c.user_max == 0x00007fffffffffffull);
		assert_true(c.kernel_min == 0xffff800000000000ull);
	}
	assert_string_equal(hwbp_arch_name(HWBP_ARCH_RISCV), "riscv");
}

struct split_row {
	const char *cpu;
	uint64_t addr, len;
	unsigned n, slots;
	uint64_t a[4], l[4];
};

static void test_split(void **state)
{
	static const struct split_row rows[] = {
		/* The chained pair: NAPOT pieces 1+4+8 take 3 triggers, the
		 * pair [0x1003, 0x1010) 2. */
		{ "rv64-sdtrig", 0x1003, 13, 1, 2, { 0x1003 }, { 13 } },
		/* NAPOT: one trigger, naturally aligned 2^k. */
		{ "rv64-sdtrig", 0x1000, 4096, 1, 1, { 0x1000 }, { 4096 } },
		{ "rv64-sdtrig", 0x1003, 1, 1, 1, { 0x1003 }, { 1 } },
		/* Two NAPOT pieces tie with a pair: the pieces (no run needed). */
		{ "rv64-sdtrig", 0x1000, 12, 2, 2, { 0x1000, 0x1008 }, { 8, 4 } },
		/* To the top of the space: one >= trigger alone. */
		{ "rv64-sdtrig", 0xfffffffffffffff3ull, 13, 1, 1, { 0xfffffffffffffff3ull }, { 13 } },
		/* QEMU: 1, 2 and 8 bytes (size 1, 2 and 0), aligned. */
		{ "rv64-qemu", 0x1003, 13, 4, 4, { 0x1003, 0x1004, 0x1006, 0x1008 }, { 1, 2, 2, 8 } },
		{ "rv64-qemu", 0x1004, 4, 2, 2, { 0x1004, 0x1006 }, { 2, 2 } },
		{ "rv64-qemu", 0x1000, 8, 1, 1, { 0x1000 }, { 8 } },
		/* SiFive: NAPOT up to 16 bytes (maskmax 4), then the pair. */
		{ "sifive-u74", 0x1000, 16, 1, 1, { 0x1000 }, { 16 } },
		{ "sifive-u74", 0x1000, 32, 2, 2, { 0x1000, 0x1010 }, { 16, 16 } },
		{ "sifive-u74", 0x1000, 64, 1, 2, { 0x1000 }, { 64 } },
	};

	(void)state;
	for (size_t i = 0; i < N(rows); i++) {
		struct hwbp_cpu cpu = preset(rows[i].cpu);
		const struct hwbpi_arch_ops *ops = hwbpi_arch_ops(HWBP_ARCH_RISCV);
		struct hwbp_piece p[HWBP_MAX_PIECES];
		unsigned n = ops->split(&cpu, false, rows[i].addr, rows[i].len, p, HWBP_MAX_PIECES);
		unsigned slots = 0;

		if (n != rows[i].n)
			fail_msg("row %zu (%s): %u pieces, expected %u", i, rows[i].cpu, n, rows[i].n);
		for (unsigned k = 0; k < n; k++) {
			assert_true(p[k].addr == rows[i].a[k]);
			assert_true(p[k].len == rows[i].l[k]);
			p[k].type = HWBP_RW;
			slots += ops->piece_slots(&cpu, false, &p[k]);
		}
		assert_int_equal(slots, rows[i].slots);
		assert_int_equal(ops->split_slots(&cpu, false, rows[i].addr, rows[i].len),
				 rows[i].slots);
	}
}

/* The planner: pair for sdtrig, enlargement for QEMU's 2 triggers. */
static void test_plan(void **state)
{
	struct hwbp_request req = { 0x1003, 13, HWBP_RW, HWBP_SCOPE_USER, 0 };
	struct hwbp_cpu cpu = preset("rv64-sdtrig");
	struct hwbp_plan p;

	(void)state;
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), 0);
	assert_int_equal(p.n, 1);
	assert_true(p.exact);
	assert_int_equal(hwbp_plan_slots(&cpu, &p), 2);
	/* One free trigger: no pair; the smallest NAPOT block around it. */
	assert_int_equal(hwbp_plan(&cpu, &req, 1, &p), 0);
	assert_int_equal(p.n, 1);
	assert_true(p.enlarged);
	assert_true(p.piece[0].addr == 0x1000 && p.piece[0].len == 16);
	assert_int_equal(hwbp_plan_slots(&cpu, &p), 1);
	req.flags = HWBP_REQ_EXACT;
	assert_int_equal(hwbp_plan(&cpu, &req, 1, &p), -ENOSPC);

	cpu = preset("rv64-qemu");
	req.flags = 0;
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), 0);
	assert_true(p.enlarged);
	assert_int_equal(p.n, 2);
	assert_true(p.piece[0].addr == 0x1000 && p.piece[0].len == 8);
	assert_true(p.piece[1].addr == 0x1008 && p.piece[1].len == 8);
	/* Exact: 4 pieces, more than the 2 triggers: never fits. */
	req.flags = HWBP_REQ_EXACT;
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), -ERANGE);
	assert_int_equal(hwbp_plan(&cpu, &req, 1, &p), -ERANGE);
	/* 3 instructions on 2 triggers: -ERANGE; 1 free of 2: -ENOSPC. */
	req = (struct hwbp_request){ 0x1000, 6, HWBP_X, HWBP_SCOPE_USER, 0 };
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), -ERANGE);
	req.len = 4;
	assert_int_equal(hwbp_plan(&cpu, &req, 1, &p), -ENOSPC);
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), 0);
}

/* tdata1/tdata2 bit by bit (§5.5.11 mcontrol6, §5.5.10 mcontrol). */
static void test_encode(void **state)
{
	struct hwbp_cpu cpu = preset("rv64-sdtrig");
	struct hwbp_regs r = fresh(&cpu);
	struct hwbp_piece p;

	(void)state;
	/* Reset: the type alone, nothing enabled. */
	for (unsigned n = 0; n < 4; n++)
		assert_true(r.u.riscv.tdata1[n] == T6 && r.u.riscv.tdata2[n] == 0);
	/* NAPOT 16 bytes at 0x2000: tdata2 = 0x2000 | 0b111. */
	p = pc(0x2000, 16, HWBP_W);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, false, &p, HWBP_SCOPE_USER, false), 0);
	assert_true(r.u.riscv.tdata1[1] == (T6 | STORE | U | MATCH(1)));
	assert_true(r.u.riscv.tdata2[1] == 0x2007);
	/* One byte: match 0, size 0 (any); kernel = S and M. */
	p = pc(0x3001, 1, HWBP_R);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, false, &p, HWBP_SCOPE_KERNEL, false), 0);
	assert_true(r.u.riscv.tdata1[0] == (T6 | LOAD | S | M));
	assert_true(r.u.riscv.tdata2[0] == 0x3001);
	/* Chained pair at triggers 2, 3: >= with chain, then <. */
	p = pc(0x1003, 13, HWBP_RW);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 2, false, &p, HWBP_SCOPE_BOTH, false), 0);
	assert_true(r.u.riscv.tdata1[2] == (T6 | LOAD | STORE | U | S | M | MATCH(2) | CHAIN));
	assert_true(r.u.riscv.tdata2[2] == 0x1003);
	assert_true(r.u.riscv.tdata1[3] == (T6 | LOAD | STORE | U | S | M | MATCH(3)));
	assert_true(r.u.riscv.tdata2[3] == 0x1010);
	/* A pair cannot start at the last trigger. */
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 3, false, &p, HWBP_SCOPE_BOTH, false), -EINVAL);
	/* Execute: match 0 on the instruction, 2-byte aligned. */
	p = pc(0x4002, 2, HWBP_X);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 3, true, &p, HWBP_SCOPE_USER, false), 0);
	assert_true(r.u.riscv.tdata1[3] == (T6 | EXEC | U));
	p = pc(0x4001, 2, HWBP_X);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 3, true, &p, HWBP_SCOPE_USER, false), -EINVAL);
	p = pc(0x1000, 8, HWBP_W);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 4, false, &p, HWBP_SCOPE_USER, false), -EINVAL);

	/* QEMU: size 1, 2 as lengths, 0 for 8 bytes (mcontrol6 bits 18:16). */
	cpu = preset("rv64-qemu");
	r = fresh(&cpu);
	p = pc(0x1006, 2, HWBP_W);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, false, &p, HWBP_SCOPE_USER, false), 0);
	assert_true(r.u.riscv.tdata1[0] == (T6 | STORE | U | (2ull << 16)));
	p = pc(0x1008, 8, HWBP_W);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, false, &p, HWBP_SCOPE_USER, false), 0);
	assert_true(r.u.riscv.tdata1[1] == (T6 | STORE | U));
	p = pc(0x1004, 4, HWBP_W);   /* size 3 would watch 3 bytes in QEMU */
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, false, &p, HWBP_SCOPE_USER, false), -EINVAL);

	/* SiFive: mcontrol (type 2). */
	cpu = preset("sifive-u74");
	r = fresh(&cpu);
	assert_true(r.u.riscv.tdata1[0] == T2);
	p = pc(0x1000, 16, HWBP_RW);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, false, &p, HWBP_SCOPE_USER, false), 0);
	assert_true(r.u.riscv.tdata1[0] == (T2 | LOAD | STORE | U | MATCH(1)));
	assert_true(r.u.riscv.tdata2[0] == 0x1007);
	p = pc(0x1000, 32, HWBP_RW);   /* above maskmax 4: a pair */
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, false, &p, HWBP_SCOPE_USER, false), 0);
	assert_true(r.u.riscv.tdata1[1] == (T2 | LOAD | STORE | U | MATCH(2) | CHAIN));
	assert_true(r.u.riscv.tdata2[2] == 0x1020);
}

/* Every piece split() makes decodes back to itself, at every slot. */
static void test_roundtrip(void **state)
{
	static const char *const cpus[] = { "rv64-qemu", "rv64-sdtrig", "sifive-u74" };
	static const enum hwbp_scope scopes[] = { HWBP_SCOPE_USER, HWBP_SCOPE_KERNEL,
						  HWBP_SCOPE_BOTH };

	(void)state;
	for (size_t c = 0; c < N(cpus); c++) {
		struct hwbp_cpu cpu = preset(cpus[c]);
		const struct hwbpi_arch_ops *ops = hwbpi_arch_ops(HWBP_ARCH_RISCV);

		for (uint64_t a = 0x1000; a < 0x1020; a++) {
			for (uint64_t len = 1; len <= 40; len++) {
				struct hwbp_piece p[HWBP_MAX_PIECES];
				unsigned n = ops->split(&cpu, false, a, len, p, HWBP_MAX_PIECES);

				for (unsigned k = 0; k < n && k < HWBP_MAX_PIECES; k++) {
					struct hwbp_regs r = fresh(&cpu);
					struct hwbp_piece got;
					enum hwbp_scope s;
					enum hwbp_scope want = scopes[(a + len + k) % 3];

					p[k].type = (unsigned)(1 + (a + k) % 3);
					p[k].cover_lo = p[k].addr;
					p[k].cover_len = p[k].len;
					assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, false, &p[k], want,
									   false), 0);
					assert_int_equal(hwbp_decode_slot(&cpu, &r, 0, false, &got, &s), 1);
					assert_memory_equal(&got, &p[k], sizeof(got));
					assert_int_equal(s, want);
					if (ops->piece_slots(&cpu, false, &p[k]) == 2)
						assert_int_equal(hwbp_decode_slot(&cpu, &r, 1, false, &got,
										  &s), 0);
				}
			}
		}
	}
}

/*
 * Execute ranges: the compare value of an execute trigger is the
 * instruction's address, so NAPOT blocks and chained pairs hold ranges of
 * instructions (parcels) as they hold data; rv64-qemu has one parcel per
 * trigger.
 */
static void test_exec_ranges(void **state)
{
	struct hwbp_cpu cpu = preset("rv64-sdtrig");
	struct hwbp_regs r = fresh(&cpu);
	struct hwbp_request req = { 0x1000, 64, HWBP_X, HWBP_SCOPE_USER, HWBP_REQ_EXACT };
	struct hwbp_plan p;
	struct hwbp_piece got;
	struct hwbp_status st;
	struct hwbp_hit h;
	enum hwbp_scope s;

	(void)state;
	/* 64 aligned bytes: one NAPOT trigger, tdata2 = 0x1000 | 0x1f. */
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), 0);
	assert_int_equal(p.n, 1);
	assert_true(p.piece[0].addr == 0x1000 && p.piece[0].len == 64);
	assert_int_equal(hwbp_plan_slots(&cpu, &p), 1);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, true, &p.piece[0], HWBP_SCOPE_USER, false), 0);
	assert_true(r.u.riscv.tdata1[0] == (T6 | EXEC | U | MATCH(1)));
	assert_true(r.u.riscv.tdata2[0] == 0x101f);
	assert_int_equal(hwbp_decode_slot(&cpu, &r, 0, true, &got, &s), 1);
	assert_true(got.addr == 0x1000 && got.len == 64 && got.type == HWBP_X);
	/* An instruction inside: tval is its address, the kind execute. */
	memset(&st, 0, sizeof(st));
	st.ip = 0x1022;
	st.u.riscv.cause = 3;
	st.u.riscv.tval = 0x1022;
	assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &h), 0);
	assert_true(h.data_slots == 1 && h.kind == HWBP_X);

	/* 10 bytes at 0x1002: 0x1002 (2) 0x1004 (4) 0x1008 (4) would be 3
	 * triggers: one chained pair instead, >= 0x1002, < 0x100c. */
	req.addr = 0x1002;
	req.len = 10;
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(hwbp_plan_slots(&cpu, &p), 2);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, true, &p.piece[0], HWBP_SCOPE_USER, false), 0);
	assert_true(r.u.riscv.tdata1[1] == (T6 | EXEC | U | MATCH(2) | CHAIN));
	assert_true(r.u.riscv.tdata2[1] == 0x1002 && r.u.riscv.tdata2[2] == 0x100c);
	assert_true(r.u.riscv.tdata1[2] == (T6 | EXEC | U | MATCH(3)));
	assert_int_equal(hwbp_decode_slot(&cpu, &r, 1, true, &got, &s), 1);
	assert_true(got.addr == 0x1002 && got.len == 10);
	/* A pair off the parcel grid is not an execute piece. */
	r.u.riscv.tdata2[2] = 0x100d;
	assert_int_equal(hwbp_decode_slot(&cpu, &r, 1, true, &got, &s), -EINVAL);
	got = pc(0x1001, 10, HWBP_X);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, true, &got, HWBP_SCOPE_USER, false), -EINVAL);
	/* Off the grid as a request: -EINVAL, as on every arch. */
	req.addr = 0x1001;
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), -EINVAL);

	/* SiFive: NAPOT up to 16 bytes, then pairs. */
	cpu = preset("sifive-u74");
	req = (struct hwbp_request){ 0x2000, 16, HWBP_X, HWBP_SCOPE_USER, HWBP_REQ_EXACT };
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), 0);
	assert_int_equal(hwbp_plan_slots(&cpu, &p), 1);
	req.len = 256;
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), 0);
	assert_int_equal(hwbp_plan_slots(&cpu, &p), 2);

	/* QEMU: one parcel per trigger, 2 triggers: 4 bytes fit, 6 never. */
	cpu = preset("rv64-qemu");
	req = (struct hwbp_request){ 0x1000, 4, HWBP_X, HWBP_SCOPE_USER, HWBP_REQ_EXACT };
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), 0);
	assert_int_equal(p.n, 2);
	assert_true(p.piece[0].len == 2 && p.piece[1].addr == 0x1002);
	req.len = 6;
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), -ERANGE);
}

static void test_decode_slot_errors(void **state)
{
	struct hwbp_cpu cpu = preset("rv64-sdtrig");
	struct hwbp_regs r = fresh(&cpu);
	struct hwbp_piece p;
	enum hwbp_scope s;

	(void)state;
	assert_int_equal(hwbp_decode_slot(&cpu, &r, 0, false, &p, &s), 0);
	assert_int_equal(hwbp_decode_slot(&cpu, &r, 4, false, &p, &s), -EINVAL);
	r.u.riscv.tdata1[0] = T6 | LOAD | U | (1ull << 12);   /* action 1: debug mode */
	assert_int_equal(hwbp_decode_slot(&cpu, &r, 0, false, &p, &s), -EINVAL);
	r.u.riscv.tdata1[0] = T6 | LOAD | U | (1ull << 21);   /* select: data match */
	assert_int_equal(hwbp_decode_slot(&cpu, &r, 0, false, &p, &s), -EINVAL);
	r.u.riscv.tdata1[0] = T6 | LOAD | U | MATCH(2) | CHAIN;   /* chain to nothing */
	assert_int_equal(hwbp_decode_slot(&cpu, &r, 0, false, &p, &s), -EINVAL);
	r.u.riscv.tdata1[0] = 3ull << 60;   /* icount */
	assert_int_equal(hwbp_decode_slot(&cpu, &r, 0, false, &p, &s), -EINVAL);
	r.u.riscv.tdata1[0] = 15ull << 60;  /* disabled */
	assert_int_equal(hwbp_decode_slot(&cpu, &r, 0, false, &p, &s), 0);
}

static struct hwbp_status st_of(uint64_t cause, uint64_t tval, uint64_t ip)
{
	struct hwbp_status st;

	memset(&st, 0, sizeof(st));
	st.ip = ip;
	st.u.riscv.cause = cause;
	st.u.riscv.tval = tval;
	return st;
}

static void test_decode_status(void **state)
{
	struct hwbp_cpu cpu = preset("rv64-sdtrig");
	struct hwbp_regs r = fresh(&cpu);
	struct hwbp_piece p;
	struct hwbp_status st;
	struct hwbp_hit h;

	(void)state;
	p = pc(0x1000, 8, HWBP_W);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, false, &p, HWBP_SCOPE_USER, false), 0);
	p = pc(0x2003, 13, HWBP_RW);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, false, &p, HWBP_SCOPE_USER, false), 0);
	p = pc(0x3000, 2, HWBP_X);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 3, true, &p, HWBP_SCOPE_USER, false), 0);

	/* Not a breakpoint exception. */
	st = st_of(13, 0x1000, 0x400);
	assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &h), -EINVAL);
	/* tval: the trigger whose piece holds it; kind unknown. */
	st = st_of(3, 0x2008, 0x400);
	assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &h), 0);
	assert_int_equal(h.data_slots, 1u << 1);
	assert_int_equal(h.kind, 0);
	assert_true(h.addr_known && h.addr == 0x2008);
	st = st_of(3, 0x3000, 0x3000);
	assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &h), 0);
	assert_int_equal(h.data_slots, 1u << 3);
	assert_int_equal(h.kind, HWBP_X);
	/* tval outside every trigger (EBREAK): -ENOENT. */
	st = st_of(3, 0x9000, 0x9000);
	assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &h), -ENOENT);
	/* Hit bits win over tval: trigger 2's (the pair's second) names the
	 * pair's first. */
	st = st_of(3, 0x1004, 0x400);
	st.u.riscv.hits = 1u << 2;
	assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &h), 0);
	assert_int_equal(h.data_slots, 1u << 1);
	/* Hit bits in the written registers are not the status: not read. */
	r.u.riscv.tdata1[2] |= HIT0;
	st = st_of(3, 0x1004, 0x400);
	assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &h), 0);
	assert_int_equal(h.data_slots, 1u << 0);
	r.u.riscv.tdata1[2] &= ~HIT0;

	/* Neither (tval 0): every armed data trigger, and the execute one at ip. */
	st = st_of(3, 0, 0x500);
	assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &h), 0);
	assert_int_equal(h.data_slots, (1u << 0) | (1u << 1));
	assert_false(h.addr_known);
	st = st_of(3, 0, 0x3000);
	assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &h), 0);
	assert_int_equal(h.data_slots, (1u << 0) | (1u << 1) | (1u << 3));

	/* Hits on the SiFive model, which has no hit bit: not read. */
	cpu = preset("sifive-u74");
	r = fresh(&cpu);
	p = pc(0x1000, 16, HWBP_W);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, false, &p, HWBP_SCOPE_USER, false), 0);
	p = pc(0x2000, 16, HWBP_W);
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, false, &p, HWBP_SCOPE_USER, false), 0);
	st = st_of(3, 0x1008, 0x400);
	st.u.riscv.hits = 1u << 1;
	assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &h), 0);
	assert_int_equal(h.data_slots, 1u << 0);
}

/* The allocator: a pair takes two consecutive slots; sets stay packed. */
static void test_slots_runs(void **state)
{
	static struct hwbp_ctx ctx;
	static struct hwbp_slots percpu[1];
	struct hwbp_cpu cpu = preset("rv64-sdtrig");
	struct hwbp_request one = { 0x1000, 8, HWBP_W, HWBP_SCOPE_USER, 0 };
	struct hwbp_request pair = { 0x2003, 13, HWBP_RW, HWBP_SCOPE_USER, 0 };
	struct hwbp_request two = { 0x3000, 4, HWBP_W, HWBP_SCOPE_USER, 0 };
	struct hwbp_piece p;
	enum hwbp_scope s;
	int a, b, c, d;

	(void)state;
	assert_int_equal(hwbp_ctx_init(&ctx, &cpu, 1, percpu, NULL), 0);
	assert_int_equal(hwbp_install(&ctx, &one, 0, NULL, &a), 0);
	assert_int_equal(hwbp_install(&ctx, &pair, 0, NULL, &b), 0);
	assert_int_equal(hwbp_free_slots(&ctx, 0, NULL, false), 1);
	/* Triggers 1 and 2 hold the pair. */
	assert_int_equal(hwbp_decode_slot(&cpu, &percpu[0].regs, 1, false, &p, &s), 1);
	assert_true(p.addr == 0x2003 && p.len == 13);
	assert_int_equal(hwbp_decode_slot(&cpu, &percpu[0].regs, 2, false, &p, &s), 0);
	/* A second pair needs 2: -ENOSPC (fits once slots free), never -ERANGE. */
	pair.addr = 0x5003;
	pair.flags = HWBP_REQ_EXACT;
	assert_int_equal(hwbp_install(&ctx, &pair, 0, NULL, &c), -ENOSPC);
	assert_int_equal(hwbp_install(&ctx, &two, 0, NULL, &c), 0);
	/* Remove the first: the set packs, the pair moves to triggers 0-1. */
	assert_int_equal(hwbp_remove(&ctx, a), 0);
	assert_int_equal(hwbp_decode_slot(&cpu, &percpu[0].regs, 0, false, &p, &s), 1);
	assert_true(p.addr == 0x2003 && p.len == 13);
	assert_int_equal(hwbp_decode_slot(&cpu, &percpu[0].regs, 2, false, &p, &s), 1);
	assert_true(p.addr == 0x3000 && p.len == 4);
	/* Now the second pair fits at triggers 3..: no, one free: -ENOSPC;
	 * remove the 4-byte watch, then it takes triggers 2-3. */
	assert_int_equal(hwbp_install(&ctx, &pair, 0, NULL, &d), -ENOSPC);
	assert_int_equal(hwbp_remove(&ctx, c), 0);
	assert_int_equal(hwbp_install(&ctx, &pair, 0, NULL, &d), 0);
	assert_int_equal(hwbp_decode_slot(&cpu, &percpu[0].regs, 2, false, &p, &s), 1);
	assert_true(p.addr == 0x5003 && p.len == 13);
	assert_int_equal(hwbp_free_slots(&ctx, 0, NULL, false), 0);
	/* A hit on trigger 3 (the second pair's <) goes to request d. */
	{
		struct hwbp_status st;
		struct hwbp_hit h;

		memset(&st, 0, sizeof(st));
		st.u.riscv.cause = 3;
		st.u.riscv.tval = 0x5008;
		assert_int_equal(hwbp_decode(&ctx, 0, NULL, &st, NULL, &h), 0);
		assert_true(h.requests == (UINT64_C(1) << d));
	}
	assert_int_equal(hwbp_remove(&ctx, b), 0);
	assert_int_equal(hwbp_remove(&ctx, d), 0);
	assert_int_equal(hwbp_free_slots(&ctx, 0, NULL, false), 4);
}

/* A task's pair lands on consecutive triggers after the CPU's pieces. */
static void test_task_runs(void **state)
{
	static struct hwbp_ctx ctx;
	static struct hwbp_slots percpu[1];
	static struct hwbp_task task;
	struct hwbp_cpu cpu = preset("rv64-sdtrig");
	struct hwbp_request one = { 0x1000, 8, HWBP_W, HWBP_SCOPE_USER, 0 };
	struct hwbp_request pair = { 0x2003, 13, HWBP_RW, HWBP_SCOPE_USER, 0 };
	struct hwbp_regs r;
	struct hwbp_piece p;
	enum hwbp_scope s;
	int a, b;

	(void)state;
	assert_int_equal(hwbp_ctx_init(&ctx, &cpu, 1, percpu, NULL), 0);
	assert_int_equal(hwbp_task_init(&ctx, &task), 0);
	assert_int_equal(hwbp_install(&ctx, &one, 0, NULL, &a), 0);
	assert_int_equal(hwbp_install(&ctx, &pair, 0, &task, &b), 0);
	assert_int_equal(hwbp_task_regs(&ctx, 0, &task, &r), 0);
	assert_int_equal(hwbp_decode_slot(&cpu, &r, 1, false, &p, &s), 1);
	assert_true(p.addr == 0x2003 && p.len == 13);
	assert_int_equal(hwbp_remove(&ctx, b), 0);
	assert_int_equal(hwbp_remove(&ctx, a), 0);
	assert_int_equal(hwbp_task_fini(&ctx, &task), 0);
}

static void test_regs_and_status(void **state)
{
	struct hwbp_cpu cpu = preset("rv64-qemu");
	struct hwbp_regs r = fresh(&cpu);
	struct hwbp_reg_nv nv[16];
	struct hwbp_status st;
	char name[8];

	(void)state;
	assert_int_equal(hwbp_regs_list(&cpu, &r, nv, 16), 6);
	assert_string_equal(nv[0].name, "tdata1_0");
	assert_string_equal(nv[5].name, "tdata3_1");
	assert_int_equal(hwbp_regs_set(&cpu, &r, "tdata2_1", 0x1234), 0);
	assert_true(r.u.riscv.tdata2[1] == 0x1234);
	assert_int_equal(hwbp_regs_set(&cpu, &r, "tdata2_2", 1), -ENOENT);
	assert_int_equal(hwbp_regs_set(&cpu, &r, "tselect", 1), -ENOENT);
	assert_int_equal(hwbp_slot_name(&cpu, false, 1, name, sizeof(name)), 0);
	assert_string_equal(name, "t1");
	assert_int_equal(hwbp_slot_name(&cpu, true, 2, name, sizeof(name)), -EINVAL);
	memset(&st, 0, sizeof(st));
	assert_int_equal(hwbp_status_set(&cpu, &st, "cause", 3), 1);
	assert_int_equal(hwbp_status_set(&cpu, &st, "tval", 0x10), 0);
	assert_int_equal(hwbp_status_set(&cpu, &st, "esr", 0), -ENOENT);
	assert_string_equal(hwbp_status_field(&cpu, 0), "cause");
	assert_int_equal(hwbp_status_set(&cpu, &st, "hits", 0x6), 0);
	assert_true(st.u.riscv.cause == 3 && st.u.riscv.tval == 0x10 && st.u.riscv.hits == 0x6);
	assert_string_equal(hwbp_status_field(&cpu, 1), "tval");
	assert_string_equal(hwbp_status_field(&cpu, 2), "hits");
	assert_null(hwbp_status_field(&cpu, 3));
}

static void test_from_tinfo(void **state)
{
	/* mcontrol6 readbacks: what sdtrig keeps of the probe. */
	uint64_t napot6 = T6 | LOAD | STORE | EXEC | U | S | M | CHAIN | MATCH(1) | (1ull << 21) |
			  (7ull << 16);
	uint64_t ge6 = T6 | LOAD | STORE | EXEC | U | S | M | CHAIN | MATCH(2);
	/* QEMU-like: match and chain read back 0, no S/U kept in M-only. */
	uint64_t plain6 = T6 | LOAD | STORE | EXEC | M;
	/* mcontrol with maskmax 4 (bits 58:53). */
	uint64_t napot2 = T2 | LOAD | STORE | EXEC | U | S | M | CHAIN | MATCH(1) | (4ull << 53);
	struct hwbp_cpu cpu;
	struct hwbp_caps c;

	(void)state;
	assert_int_equal(hwbp_cpu_riscv_from_tinfo(4, 1u << 6, napot6, ge6, &cpu), 0);
	assert_int_equal(cpu.arch, HWBP_ARCH_RISCV);
	assert_int_equal(cpu.u.riscv.ntrig, 4);
	assert_true(hwbpi_riscv_pairs(&cpu));
	assert_true(cpu.u.riscv.features & HWBP_RISCV_F_NAPOT);
	assert_true(cpu.u.riscv.features & HWBP_RISCV_F_SELECT);
	assert_false(cpu.u.riscv.features & HWBP_RISCV_F_HIT);
	assert_int_equal(hwbp_caps_get(&cpu, &c), 0);
	assert_true(c.max_piece == UINT64_MAX);

	assert_int_equal(hwbp_cpu_riscv_from_tinfo(2, (1u << 2) | (1u << 6), plain6, plain6, &cpu), 0);
	assert_false(hwbpi_riscv_pairs(&cpu));
	assert_false(cpu.u.riscv.features & (HWBP_RISCV_F_SMODE | HWBP_RISCV_F_UMODE));
	assert_int_equal(hwbp_caps_get(&cpu, &c), 0);
	assert_true(c.max_piece == 1);

	assert_int_equal(hwbp_cpu_riscv_from_tinfo(4, 1u << 2, napot2, napot2, &cpu), 0);
	assert_int_equal(hwbpi_riscv_maskmax(&cpu), 4);
	assert_false(cpu.u.riscv.features & HWBP_RISCV_F_GE_LT);

	assert_int_equal(hwbp_cpu_riscv_from_tinfo(4, 1u << 6, napot6, ge6, NULL), -EINVAL);
	assert_int_equal(hwbp_cpu_riscv_from_tinfo(0, 1u << 6, napot6, ge6, &cpu), -EINVAL);
	assert_int_equal(hwbp_cpu_riscv_from_tinfo(4, 1, napot6, ge6, &cpu), -EINVAL);
	assert_int_equal(hwbp_cpu_riscv_from_tinfo(4, 1u << 3, napot6, ge6, &cpu), -EINVAL);
	assert_int_equal(hwbp_cpu_riscv_from_tinfo(4, 1u << 6, napot2, ge6, &cpu), -EINVAL);
	assert_int_equal(hwbp_cpu_riscv_from_tinfo(17, 1u << 6, napot6, ge6, &cpu), -EOPNOTSUPP);
	assert_int_equal(hwbp_cpu_riscv_from_tinfo(4, 1u << 6, napot6 & ~M, ge6, &cpu),
			 -EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps_presets),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_exec_ranges),
		cmocka_unit_test(test_decode_slot_errors),
		cmocka_unit_test(test_decode_status),
		cmocka_unit_test(test_slots_runs),
		cmocka_unit_test(test_task_runs),
		cmocka_unit_test(test_regs_and_status),
		cmocka_unit_test(test_from_tinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
