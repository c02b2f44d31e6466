/* SPDX-License-Identifier: MIT */
/*
 * powerpc arch module: caps, check, split, encode, decode, registers.
 *
 * Expected register values are written as literals from the manuals, not
 * from the implementation's constants:
 *   DAWRX (Power ISA v3.1 Book III §9.4; Linux reg.h DAWRX_*):
 *     PRO 0x1, PNH 0x2, HYP 0x4, WTI 0x8, WT 0x10, DR 0x20, DW 0x40,
 *     MRD (doublewords - 1) << 10.
 *   DABR/DABRX (ISA v2.06 Book III-S; Linux reg.h DABRX_*, process.c
 *     set_dabr()): DABR = addr | BT 4 | DW 2 | DR 1; DABRX USER 1,
 *     KERNEL 2, HYP 4, BTI 8.
 *   CIABR (ISA v3.1 Book III §9.3; Linux reg.h CIABR_PRIV_*): addr | PRIV,
 *     01 problem, 10 privileged non-hypervisor, 11 hypervisor.
 *   DSISR: 0x00400000 DABR match (bit 41), 0x02000000 store (bit 38).
 * hwbp's choices (see encode.c): USER -> PRO, KERNEL -> PNH|HYP, WT|WTI set
 * (0x18), DABR BT + DABRX BTI; CIABR KERNEL -> 11 (bare-metal, MSR[HV]=1).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "powerpc/powerpc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* 512-aligned bases like the selftests' __attribute__((aligned(512))). */
#define A 0x10020000ull      /* ptrace-hwbreak.c gstruct / big_var */
#define C 0x10030000ull      /* perf-hwbreak.c c[512 + 8] */
#define KADDR 0xc000000001234000ull

static struct hwbp_cpu cpu_of(const char *name)
{
	struct hwbp_cpu cpu;

	assert_int_equal(hwbp_cpu_preset(name, &cpu), 0);
	return cpu;
}

static struct hwbp_regs regs_of(const struct hwbp_cpu *cpu)
{
	struct hwbp_regs r;

	assert_int_equal(hwbp_regs_reset(cpu, &r), 0);
	return r;
}

/* ------------------------------------------------------------------ */
/* caps                                                                */
/* ------------------------------------------------------------------ */
struct caps_row {
	const char *cpu;
	unsigned data, inst, types;
	uint64_t max_piece, boundary;
	const char *why;
};

static const struct caps_row caps_rows[] = {
	{ "power7", 1, 0, 0xe, 8, 0,
	  "ISA 2.06: DABR only, one doubleword, no CIABR" },
	{ "power8", 1, 1, 0x1e, 512, 512,
	  "ISA 2.07: DAWR0 (MRD 6 bits = 64 DW) + CIABR; 512-byte boundary" },
	{ "power9", 1, 1, 0x1e, 512, 512,
	  "ISA 3.0: same units as POWER8" },
	{ "power10", 2, 1, 0x1e, 512, 0,
	  "ISA 3.1 change log: second DAWR, 512B boundary removed" },
};

static void test_caps(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(caps_rows); i++) {
		const struct caps_row *r = &caps_rows[i];
		struct hwbp_cpu cpu = cpu_of(r->cpu);
		struct hwbp_caps c;

		print_message("caps %s: %s\n", r->cpu, r->why);
		assert_int_equal(hwbp_caps_get(&cpu, &c), 0);
		assert_int_equal(c.arch, HWBP_ARCH_POWERPC);
		assert_int_equal(c.data_slots, r->data);
		assert_int_equal(c.inst_slots, r->inst);
		assert_false(c.shared);
		assert_int_equal(c.types, r->types);
		assert_int_equal(c.align, HWBP_ALIGN_DWORD);
		assert_int_equal(c.min_piece, 8);
		assert_int_equal(c.max_piece, r->max_piece);
		assert_int_equal(c.granule, 8);
		assert_int_equal(c.boundary, r->boundary);
		assert_int_equal(c.inst_len, 4);
		assert_int_equal(c.inst_align, 4);
		/* DSI before the access; CIABR traps after completion (xmon commit). */
		assert_int_equal(c.data_timing, HWBP_TIMING_BEFORE);
		assert_int_equal(c.inst_timing, HWBP_TIMING_AFTER);
		assert_int_equal(c.precision, HWBP_ADDR_EXACT);
		assert_true(c.kind_known);
		assert_true(c.priv_filter);
		assert_true(c.user_max == 0x000fffffffffffffull);
		assert_true(c.kernel_min == 0xc000000000000000ull);
		assert_true(c.addr_max == UINT64_MAX);
		assert_true(hwbp_type_supported(&cpu, HWBP_RW));
		assert_int_equal(hwbp_type_supported(&cpu, HWBP_X), r->inst != 0);
	}
}

/* ------------------------------------------------------------------ */
/* check                                                               */
/* ------------------------------------------------------------------ */
struct check_row {
	unsigned type;
	enum hwbp_scope scope;
	int ret;
	const char *why;
};

static const struct check_row check_rows[] = {
	{ HWBP_X, HWBP_SCOPE_BOTH, -EOPNOTSUPP, "CIABR[PRIV] names one state (§9.3)" },
	{ HWBP_X, HWBP_SCOPE_USER, 0, "CIABR PRIV 01" },
	{ HWBP_X, HWBP_SCOPE_KERNEL, 0, "CIABR PRIV 11 (bare metal)" },
	{ HWBP_RW, HWBP_SCOPE_BOTH, 0, "DAWRX PRO|PNH|HYP" },
	{ HWBP_R, HWBP_SCOPE_USER, 0, "DAWRX PRO" },
	{ HWBP_W, HWBP_SCOPE_KERNEL, 0, "DAWRX PNH|HYP" },
};

static void test_check(void **state)
{
	struct hwbp_cpu cpu = cpu_of("power9");

	(void)state;
	for (size_t i = 0; i < N(check_rows); i++) {
		const struct check_row *r = &check_rows[i];
		struct hwbp_request req = {
			.addr = 0x10000000, .len = 4, .type = r->type, .scope = r->scope,
		};

		print_message("check: %s\n", r->why);
		assert_int_equal(hwbpi_powerpc_ops.check(&cpu, &req, r->type), r->ret);
	}
}

/* ------------------------------------------------------------------ */
/* split                                                               */
/* ------------------------------------------------------------------ */
struct split_row {
	const char *cpu;
	bool inst;
	uint64_t addr, len;
	unsigned n;
	struct { uint64_t addr, len; } p[4];
	const char *why;
};

static const struct split_row split_rows[] = {
	{ "power9", false, A, 6, 1, { { A, 8 } },
	  "ptrace-hwbreak.c MODE_RANGE DW ALIGNED: gstruct.a, 6 bytes" },
	{ "power9", false, A + 6, 6, 1, { { A, 16 } },
	  "ptrace-hwbreak.c DW UNALIGNED: gstruct.b spans two doublewords" },
	{ "power9", false, A, 512, 1, { { A, 512 } },
	  "ptrace-hwbreak.c DAWR_MAX_LEN: big_var[512] aligned(512)" },
	{ "power10", false, A + 6, 6, 1, { { A, 16 } },
	  "ptrace-hwbreak.c DW UNALIGNED on ISA 3.1" },
	{ "power9", false, A + 508, 8, 2, { { A + 504, 8 }, { A + 512, 8 } },
	  "hw_breakpoint.c validate_len: pre-3.1 range may not cross 512" },
	{ "power10", false, A + 508, 8, 1, { { A + 504, 16 } },
	  "ISA 3.1: 512B boundary removed (Linux 'Remove 512 byte boundary')" },
	{ "power10", false, C + 8, 512, 1, { { C + 8, 512 } },
	  "perf-hwbreak.c runtest_unaligned_512bytes: &c + 8, 512 bytes, P10" },
	{ "power9", false, C + 8, 512, 2, { { C + 8, 504 }, { C + 512, 8 } },
	  "same request before ISA 3.1: split at the 512 boundary" },
	{ "power10", false, A + 4, 512, 2, { { A, 512 }, { A + 512, 8 } },
	  "65 doublewords: more than MRD's 64" },
	{ "power10", false, A + 256, 1024, 2, { { A + 256, 512 }, { A + 768, 512 } },
	  "1024 bytes on ISA 3.1: two full DAWRs (perf-hwbreak multi-DAWR)" },
	{ "power9", false, A + 256, 1024, 3,
	  { { A + 256, 256 }, { A + 512, 512 }, { A + 1024, 256 } },
	  "1024 bytes before ISA 3.1: three 512-byte blocks" },
	{ "power7", false, A, 6, 1, { { A, 8 } },
	  "DABR: one doubleword" },
	{ "power7", false, A + 6, 6, 2, { { A, 8 }, { A + 8, 8 } },
	  "DABR: 12 bytes over two doublewords need two pieces" },
	{ "power7", false, A + 4, 8, 2, { { A, 8 }, { A + 8, 8 } },
	  "DABR: unaligned 8 bytes" },
	{ "power9", false, 0xfffffffffffffffcull, 4, 1,
	  { { 0xfffffffffffffff8ull, 8 } },
	  "top of the address space: no wrap" },
	{ "power9", true, 0x10000100, 12, 3,
	  { { 0x10000100, 4 }, { 0x10000104, 4 }, { 0x10000108, 4 } },
	  "CIABR: one 4-byte instruction per piece" },
	{ "power10", true, KADDR, 4, 1, { { KADDR, 4 } },
	  "CIABR: single instruction" },
};

static void test_split_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(split_rows); i++) {
		const struct split_row *r = &split_rows[i];
		struct hwbp_cpu cpu = cpu_of(r->cpu);
		struct hwbp_piece out[8];
		unsigned n;

		print_message("split %s: %s\n", r->cpu, r->why);
		memset(out, 0, sizeof(out));
		n = hwbpi_powerpc_ops.split(&cpu, r->inst, r->addr, r->len, out, 8);
		assert_int_equal(n, r->n);
		for (unsigned k = 0; k < n; k++) {
			assert_true(out[k].addr == r->p[k].addr);
			assert_true(out[k].len == r->p[k].len);
		}
	}
}

/* The count is returned even when it exceeds @max; only @max are written. */
static void test_split_count_beyond_max(void **state)
{
	struct hwbp_cpu p7 = cpu_of("power7"), p9 = cpu_of("power9");
	struct hwbp_piece out[3];

	(void)state;
	memset(out, 0xa5, sizeof(out));
	/* big_var[512] on DABR: 64 doublewords. */
	assert_int_equal(hwbpi_powerpc_ops.split(&p7, false, A, 512, out, 2), 64);
	assert_true(out[0].addr == A && out[1].addr == A + 8);
	assert_true(out[2].addr == 0xa5a5a5a5a5a5a5a5ull);  /* untouched */
	/* Whole address space on POWER9: 2^55 blocks, saturated. */
	assert_int_equal(hwbpi_powerpc_ops.split(&p9, false, 0, UINT64_MAX, out, 1),
			 UINT32_MAX);
	assert_true(out[0].addr == 0 && out[0].len == 512);
}

/*
 * Minimality and exact tiling over every request in a window (the lead
 * brute-forces the same): lower bounds are independent of the splitter.
 *   DABR: one piece per doubleword (each DABR watches exactly one).
 *   DAWR pre-3.1: a piece cannot cross 512, so >= blocks touched.
 *   DAWR 3.1: a piece holds <= 64 DW, so >= ceil(DW / 64).
 * Each piece must also be accepted by encode() (what the hardware holds).
 */
static void check_split_minimal(const char *name, uint64_t base)
{
	struct hwbp_cpu cpu = cpu_of(name);
	struct hwbp_caps caps;
	struct hwbp_piece out[256];

	assert_int_equal(hwbp_caps_get(&cpu, &caps), 0);
	for (uint64_t addr = base; addr < base + 64; addr++) {
		for (uint64_t len = 1; len <= 1100; len += (len < 80 ? 1 : 37)) {
			uint64_t lo = addr & ~7ull, hi = (addr + len + 7) & ~7ull;
			uint64_t dws = (hi - lo) / 8, bound;
			unsigned n;

			if (caps.max_piece == 8)
				bound = dws;
			else if (caps.boundary)
				bound = (hi - 1) / 512 - lo / 512 + 1;
			else
				bound = (dws + 63) / 64;
			n = hwbpi_powerpc_ops.split(&cpu, false, addr, len, out, N(out));
			assert_true(n == bound);
			assert_true(n <= N(out));
			uint64_t at = lo;
			for (unsigned k = 0; k < n; k++) {
				struct hwbp_regs regs = regs_of(&cpu);

				assert_true(out[k].addr == at);
				at += out[k].len;
				out[k].type = HWBP_RW;
				assert_int_equal(hwbp_encode_piece(&cpu, &regs, 0, false, &out[k],
								   HWBP_SCOPE_USER, false), 0);
			}
			assert_true(at == hi);
		}
	}
}

static void test_split_minimal(void **state)
{
	(void)state;
	check_split_minimal("power7", A);
	check_split_minimal("power9", A + 448);   /* window around a 512 line */
	check_split_minimal("power10", A + 448);
}

/* ------------------------------------------------------------------ */
/* encode / decode_slot                                                */
/* ------------------------------------------------------------------ */
struct enc_row {
	const char *cpu;
	unsigned slot;
	bool inst;
	uint64_t addr, len;
	unsigned type;
	enum hwbp_scope scope;
	const char *reg, *xreg;     /* names for regs_list (xreg NULL: none) */
	uint64_t val, xval;
	const char *why;
};

static const struct enc_row enc_rows[] = {
	/* DAWRX: R/W/RW x user/kernel/both, 1 doubleword (MRD 0). */
	{ "power9", 0, false, A, 8, HWBP_R, HWBP_SCOPE_USER, "dawr0", "dawrx0", A, 0x39,
	  "DR|WT|WTI|PRO" },
	{ "power9", 0, false, A, 8, HWBP_W, HWBP_SCOPE_USER, "dawr0", "dawrx0", A, 0x59,
	  "DW|WT|WTI|PRO" },
	{ "power9", 0, false, A, 8, HWBP_RW, HWBP_SCOPE_USER, "dawr0", "dawrx0", A, 0x79,
	  "DR|DW|WT|WTI|PRO" },
	{ "power9", 0, false, KADDR, 8, HWBP_R, HWBP_SCOPE_KERNEL, "dawr0", "dawrx0", KADDR,
	  0x3e, "DR|WT|WTI|PNH|HYP" },
	{ "power9", 0, false, KADDR, 8, HWBP_W, HWBP_SCOPE_KERNEL, "dawr0", "dawrx0", KADDR,
	  0x5e, "DW|WT|WTI|PNH|HYP" },
	{ "power9", 0, false, KADDR, 8, HWBP_RW, HWBP_SCOPE_KERNEL, "dawr0", "dawrx0", KADDR,
	  0x7e, "DR|DW|WT|WTI|PNH|HYP" },
	{ "power9", 0, false, A, 8, HWBP_R, HWBP_SCOPE_BOTH, "dawr0", "dawrx0", A, 0x3f,
	  "DR|WT|WTI|PRO|PNH|HYP" },
	{ "power9", 0, false, A, 8, HWBP_W, HWBP_SCOPE_BOTH, "dawr0", "dawrx0", A, 0x5f,
	  "DW|WT|WTI|PRO|PNH|HYP" },
	{ "power9", 0, false, A, 8, HWBP_RW, HWBP_SCOPE_BOTH, "dawr0", "dawrx0", A, 0x7f,
	  "DR|DW|WT|WTI|PRO|PNH|HYP" },
	/* MRD = doublewords - 1 in bits 10-15 (dawr.c set_dawr()). */
	{ "power9", 0, false, A, 16, HWBP_RW, HWBP_SCOPE_USER, "dawr0", "dawrx0", A, 0x479,
	  "ptrace-hwbreak.c gstruct.b: 16 bytes, MRD 1" },
	{ "power9", 0, false, A, 512, HWBP_RW, HWBP_SCOPE_BOTH, "dawr0", "dawrx0", A, 0xfc7f,
	  "big_var[512]: MRD 63; Linux set_dawr() would give 0xfc77, + WTI 0x8" },
	{ "power8", 0, false, A + 256, 256, HWBP_W, HWBP_SCOPE_USER, "dawr0", "dawrx0",
	  A + 256, 0x7c59, "POWER8 DAWR0: 32 DW up to the 512 line" },
	{ "power10", 1, false, A + 8, 8, HWBP_R, HWBP_SCOPE_USER, "dawr1", "dawrx1", A + 8,
	  0x39, "perf-hwbreak.c multi-DAWR: second event in DAWR1" },
	{ "power10", 0, false, A + 504, 16, HWBP_RW, HWBP_SCOPE_USER, "dawr0", "dawrx0",
	  A + 504, 0x479, "ISA 3.1: crossing 512 is allowed" },
	/* DABR (POWER7): selftest PTRACE_SET_DEBUGREG uses addr|W 2|T 4 etc. */
	{ "power7", 0, false, A, 8, HWBP_W, HWBP_SCOPE_USER, "dabr", "dabrx", A | 6, 0x9,
	  "ptrace-hwbreak.c test_set_debugreg WO: addr|DW|BT; DABRX USER|BTI" },
	{ "power7", 0, false, A, 8, HWBP_R, HWBP_SCOPE_KERNEL, "dabr", "dabrx", A | 5, 0xe,
	  "RO: addr|DR|BT; DABRX KERNEL|HYP|BTI" },
	{ "power7", 0, false, A, 8, HWBP_RW, HWBP_SCOPE_BOTH, "dabr", "dabrx", A | 7, 0xf,
	  "RW: addr|DR|DW|BT; DABRX USER|KERNEL|HYP|BTI" },
	/* CIABR: address | PRIV. */
	{ "power9", 0, true, 0x10000100, 4, HWBP_X, HWBP_SCOPE_USER, "ciabr", NULL,
	  0x10000101, 0, "CIABR PRIV 01 problem state" },
	{ "power10", 0, true, KADDR, 4, HWBP_X, HWBP_SCOPE_KERNEL, "ciabr", NULL,
	  KADDR | 3, 0, "CIABR PRIV 11 hypervisor: bare-metal kernel (xmon set_ciabr HV)" },
};

static uint64_t reg_value(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			  const char *name)
{
	struct hwbp_reg_nv nv[8];
	int n = hwbp_regs_list(cpu, regs, nv, 8);

	for (int i = 0; i < n; i++)
		if (strcmp(nv[i].name, name) == 0)
			return nv[i].value;
	fail_msg("register %s not listed", name);
	return 0;
}

static void test_encode_values_and_roundtrip(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(enc_rows); i++) {
		const struct enc_row *r = &enc_rows[i];
		struct hwbp_cpu cpu = cpu_of(r->cpu);
		struct hwbp_regs regs = regs_of(&cpu), before;
		struct hwbp_piece p = { .addr = r->addr, .len = r->len, .type = r->type };
		struct hwbp_piece back;
		enum hwbp_scope sc;

		print_message("encode %s: %s\n", r->cpu, r->why);
		assert_int_equal(hwbp_encode_piece(&cpu, &regs, r->slot, r->inst, &p,
						   r->scope, false), 0);
		assert_true(reg_value(&cpu, &regs, r->reg) == r->val);
		if (r->xreg)
			assert_true(reg_value(&cpu, &regs, r->xreg) == r->xval);

		/* Round trip. */
		assert_int_equal(hwbp_decode_slot(&cpu, &regs, r->slot, r->inst, &back, &sc), 1);
		assert_true(back.addr == r->addr);
		assert_true(back.len == r->len);
		assert_int_equal(back.type, r->type);
		assert_int_equal(sc, r->scope);

		/* Other slots untouched: encoding the same piece again is a no-op. */
		before = regs;
		assert_int_equal(hwbp_encode_piece(&cpu, &regs, r->slot, r->inst, &p,
						   r->scope, true), 0);
		assert_memory_equal(&before, &regs, sizeof(regs));
	}
}

/* Two DAWRs on POWER10 are independent (perf-hwbreak.c multi_dawr). */
static void test_encode_two_dawrs(void **state)
{
	struct hwbp_cpu cpu = cpu_of("power10");
	struct hwbp_regs regs = regs_of(&cpu);
	struct hwbp_piece a = { .addr = A, .len = 8, .type = HWBP_W };
	struct hwbp_piece b = { .addr = A + 64, .len = 8, .type = HWBP_R };
	struct hwbp_piece back;
	enum hwbp_scope sc;

	(void)state;
	assert_int_equal(hwbp_encode_piece(&cpu, &regs, 0, false, &a, HWBP_SCOPE_USER, false), 0);
	assert_int_equal(hwbp_encode_piece(&cpu, &regs, 1, false, &b, HWBP_SCOPE_USER, false), 0);
	assert_true(regs.u.ppc.dawr[0] == A && regs.u.ppc.dawrx[0] == 0x59);
	assert_true(regs.u.ppc.dawr[1] == A + 64 && regs.u.ppc.dawrx[1] == 0x39);
	assert_int_equal(hwbp_decode_slot(&cpu, &regs, 0, false, &back, &sc), 1);
	assert_true(back.addr == A && back.type == HWBP_W);
	assert_int_equal(hwbp_decode_slot(&cpu, &regs, 1, false, &back, &sc), 1);
	assert_true(back.addr == A + 64 && back.type == HWBP_R);
}

struct bad_row {
	const char *cpu;
	unsigned slot;
	bool inst;
	uint64_t addr, len;
	unsigned type;
	int scope;
	const char *why;
};

static const struct bad_row bad_rows[] = {
	{ "power9", 1, false, A, 8, HWBP_RW, HWBP_SCOPE_USER, "power9 has no DAWR1" },
	{ "power10", 2, false, A, 8, HWBP_RW, HWBP_SCOPE_USER, "only two DAWRs" },
	{ "power9", 0, false, A + 4, 8, HWBP_RW, HWBP_SCOPE_USER, "DAWR address not DW aligned" },
	{ "power9", 0, false, A, 12, HWBP_RW, HWBP_SCOPE_USER, "length not a multiple of 8" },
	{ "power9", 0, false, A, 0, HWBP_RW, HWBP_SCOPE_USER, "length 0" },
	{ "power10", 0, false, A, 520, HWBP_RW, HWBP_SCOPE_USER, "more than 64 DW (MRD)" },
	{ "power9", 0, false, A + 504, 16, HWBP_RW, HWBP_SCOPE_USER,
	  "crosses 512 before ISA 3.1 (hw_breakpoint_validate_len)" },
	{ "power8", 0, false, A + 256, 512, HWBP_RW, HWBP_SCOPE_USER, "crosses 512 on POWER8" },
	{ "power10", 0, false, 0xfffffffffffffff8ull, 16, HWBP_RW, HWBP_SCOPE_USER,
	  "range wraps the address space" },
	{ "power9", 0, false, A, 8, HWBP_X, HWBP_SCOPE_USER, "execute type in a DAWR" },
	{ "power9", 0, false, A, 8, 0, HWBP_SCOPE_USER, "type 0" },
	{ "power9", 0, false, A, 8, HWBP_R | HWBP_X, HWBP_SCOPE_USER, "type R|X" },
	{ "power9", 0, false, A, 8, HWBP_RW, 7, "scope not an enum value" },
	{ "power7", 1, false, A, 8, HWBP_RW, HWBP_SCOPE_USER, "DABR has one slot" },
	{ "power7", 0, false, A, 16, HWBP_RW, HWBP_SCOPE_USER, "DABR watches one DW" },
	{ "power7", 0, false, A + 2, 8, HWBP_RW, HWBP_SCOPE_USER, "DABR address not aligned" },
	{ "power7", 0, true, A, 4, HWBP_X, HWBP_SCOPE_USER, "POWER7 has no CIABR" },
	{ "power9", 1, true, A, 4, HWBP_X, HWBP_SCOPE_USER, "one CIABR" },
	{ "power9", 0, true, A + 2, 4, HWBP_X, HWBP_SCOPE_USER, "instruction not word aligned" },
	{ "power9", 0, true, A, 8, HWBP_X, HWBP_SCOPE_USER, "CIABR covers 4 bytes" },
	{ "power9", 0, true, A, 4, HWBP_R, HWBP_SCOPE_USER, "data type in CIABR" },
	{ "power9", 0, true, A, 4, HWBP_X, HWBP_SCOPE_BOTH, "CIABR PRIV is one state" },
};

static void test_encode_errors_leave_regs(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(bad_rows); i++) {
		const struct bad_row *r = &bad_rows[i];
		struct hwbp_cpu cpu = cpu_of(r->cpu);
		struct hwbp_regs regs = regs_of(&cpu), before;
		struct hwbp_piece p = { .addr = r->addr, .len = r->len, .type = r->type };

		print_message("encode error %s: %s\n", r->cpu, r->why);
		/* Non-zero starting state, so a partial write would show. */
		memset(&regs.u.ppc, 0x5a, sizeof(regs.u.ppc));
		before = regs;
		assert_int_equal(hwbp_encode_piece(&cpu, &regs, r->slot, r->inst, &p,
						   (enum hwbp_scope)r->scope, false), -EINVAL);
		assert_memory_equal(&before, &regs, sizeof(regs));
	}
}

struct dslot_row {
	const char *cpu;
	const char *reg[2];
	uint64_t val[2];
	unsigned slot;
	bool inst;
	int ret;
	uint64_t addr, len;
	unsigned type;
	enum hwbp_scope scope;
	const char *why;
};

static const struct dslot_row dslot_rows[] = {
	{ "power9", { "dawr0", "dawrx0" }, { A, 0 }, 0, false, 0, 0, 0, 0, 0,
	  "DR=DW=0: disabled" },
	{ "power9", { "dawr0", "dawrx0" }, { A, 0x60 }, 0, false, 0, 0, 0, 0, 0,
	  "no PRO/PNH/HYP bit: matches in no state, disabled" },
	{ "power9", { "dawr0", "dawrx0" }, { A, 0x22 }, 0, false, 1, A, 8, HWBP_R,
	  HWBP_SCOPE_KERNEL, "PNH only (Linux pseries value): kernel" },
	{ "power9", { "dawr0", "dawrx0" }, { A, 0x65 }, 0, false, 1, A, 8, HWBP_RW,
	  HWBP_SCOPE_BOTH, "PRO|HYP: both" },
	{ "power9", { "dawr0", "dawrx0" }, { A + 5, 0x41 }, 0, false, 1, A, 8, HWBP_W,
	  HWBP_SCOPE_USER, "DAWR low 3 bits ignored (address is bits 0:60)" },
	{ "power9", { "dawr0", "dawrx0" }, { A + 504, 0x461 }, 0, false, -EINVAL, 0, 0, 0, 0,
	  "crossing 512 before ISA 3.1 is not a valid DAWR setting" },
	{ "power10", { "dawr1", "dawrx1" }, { A + 504, 0x461 }, 1, false, 1, A + 504, 16,
	  HWBP_RW, HWBP_SCOPE_USER, "ISA 3.1 allows it" },
	{ "power10", { "dawr0", "dawrx0" }, { 0xfffffffffffffff8ull, 0x461 }, 0, false,
	  -EINVAL, 0, 0, 0, 0, "range wraps" },
	{ "power9", { "dawr0", "dawrx0" }, { A, 0x61 }, 1, false, -EINVAL, 0, 0, 0, 0,
	  "no DAWR1 on power9" },
	{ "power7", { "dabr", "dabrx" }, { A | 3, 0 }, 0, false, 0, 0, 0, 0, 0,
	  "DABRX privilege 0: disabled" },
	{ "power7", { "dabr", "dabrx" }, { A | 2, 2 }, 0, false, 1, A, 8, HWBP_W,
	  HWBP_SCOPE_KERNEL, "Linux-style DABR without BT/BTI" },
	{ "power7", { "dabr", "dabrx" }, { A | 3, 7 }, 1, false, -EINVAL, 0, 0, 0, 0,
	  "DABR slot 1" },
	{ "power9", { "ciabr", NULL }, { 0x10000100, 0 }, 0, true, 0, 0, 0, 0, 0,
	  "CIABR PRIV 00: disabled" },
	{ "power9", { "ciabr", NULL }, { 0x10000102, 0 }, 0, true, 1, 0x10000100, 4, HWBP_X,
	  HWBP_SCOPE_KERNEL, "CIABR PRIV 10: guest kernel (xmon set_ciabr non-HV)" },
	{ "power9", { "ciabr", NULL }, { 0x10000101, 0 }, 1, true, -EINVAL, 0, 0, 0, 0,
	  "CIABR slot 1" },
	{ "power7", { "dabr", NULL }, { 0, 0 }, 0, true, -EINVAL, 0, 0, 0, 0,
	  "no CIABR on POWER7" },
};

static void test_decode_slot(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(dslot_rows); i++) {
		const struct dslot_row *r = &dslot_rows[i];
		struct hwbp_cpu cpu = cpu_of(r->cpu);
		struct hwbp_regs regs = regs_of(&cpu);
		struct hwbp_piece p;
		enum hwbp_scope sc;

		print_message("decode_slot %s: %s\n", r->cpu, r->why);
		for (int k = 0; k < 2; k++)
			if (r->reg[k])
				assert_int_equal(hwbp_regs_set(&cpu, &regs, r->reg[k], r->val[k]), 0);
		assert_int_equal(hwbp_decode_slot(&cpu, &regs, r->slot, r->inst, &p, &sc), r->ret);
		if (r->ret == 1) {
			assert_true(p.addr == r->addr);
			assert_true(p.len == r->len);
			assert_int_equal(p.type, r->type);
			assert_int_equal(sc, r->scope);
		}
	}
}

static void test_reset(void **state)
{
	static const char *const cpus[] = { "power7", "power8", "power9", "power10" };

	(void)state;
	for (size_t i = 0; i < N(cpus); i++) {
		struct hwbp_cpu cpu = cpu_of(cpus[i]);
		struct hwbp_regs regs, zero;
		struct hwbp_caps caps;
		struct hwbp_piece p;
		enum hwbp_scope sc;

		memset(&regs, 0xff, sizeof(regs));
		assert_int_equal(hwbp_regs_reset(&cpu, &regs), 0);
		memset(&zero, 0, sizeof(zero));
		assert_memory_equal(&regs.u.ppc, &zero.u.ppc, sizeof(zero.u.ppc));
		assert_int_equal(hwbp_caps_get(&cpu, &caps), 0);
		for (unsigned s = 0; s < caps.data_slots; s++)
			assert_int_equal(hwbp_decode_slot(&cpu, &regs, s, false, &p, &sc), 0);
		for (unsigned s = 0; s < caps.inst_slots; s++)
			assert_int_equal(hwbp_decode_slot(&cpu, &regs, s, true, &p, &sc), 0);
	}
}

/* ------------------------------------------------------------------ */
/* decode_status                                                       */
/* ------------------------------------------------------------------ */
struct arm {
	unsigned slot;
	bool inst;
	uint64_t addr, len;
	unsigned type;
	enum hwbp_scope scope;
};

struct status_row {
	const char *cpu;
	struct arm arm[2];
	unsigned narm;
	uint64_t vector, dsisr, dar, ip;
	int ret;
	uint32_t data_slots, inst_slots;
	unsigned kind;
	uint64_t addr;
	const char *why;
};

#define DSI 0x300
#define TRACE 0xd00
#define MATCH 0x00400000ull
#define STORE 0x02000000ull
#define IP 0x10000400ull
#define T 0x10040000ull   /* perf-hwbreak.c runtest_dar_outside: malloc(8) */

static const struct status_row status_rows[] = {
	/* ptrace-hwbreak.c DAR OUTSIDE: watch gstruct.b (A+6, 6) -> [A, A+16);
	 * a 4-byte store to gstruct.a + 4 hits with DAR = A + 4. */
	{ "power9", { { 0, false, A, 16, HWBP_W, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH | STORE, A + 4, IP, 0, 1, 0, HWBP_W, A + 4,
	  "ptrace-hwbreak.c DW UNALIGNED, DAR OUTSIDE (store)" },
	{ "power9", { { 0, false, A, 16, HWBP_RW, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH, A + 4, IP, 0, 1, 0, HWBP_R, A + 4,
	  "same, load: DSISR store bit clear -> R" },
	/* perf-hwbreak.c runtest_dar_outside: watch target+2 len 4 -> [T, T+8). */
	{ "power9", { { 0, false, T, 8, HWBP_RW, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH, T + 1, IP, 0, 1, 0, HWBP_R, T + 1,
	  "perf-hwbreak.c dar_outside: partial overlap at target+1" },
	{ "power9", { { 0, false, T, 8, HWBP_RW, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH | STORE, T + 6, IP, 0, 1, 0, HWBP_W, T + 6,
	  "dar_outside: target+6 hits the DW (software filters it)" },
	{ "power10", { { 0, false, T, 8, HWBP_RW, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH | STORE, T + 5, IP, 0, 1, 0, HWBP_W, T + 5,
	  "dar_outside on ISA 3.1: DAR = first byte of overlap" },
	/* DAR before the range: an unaligned 8-byte store at range - 4. */
	{ "power9", { { 0, false, A + 16, 8, HWBP_W, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH | STORE, A + 12, IP, 0, 1, 0, HWBP_W, A + 12,
	  "pre-3.1 DAR = first byte of an access starting before the range" },
	{ "power9", { { 0, false, A + 128, 8, HWBP_W, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH | STORE, A + 1, IP, 0, 1, 0, HWBP_W, A + 1,
	  "128-byte window: stmw of 32 words / dcbz block from A" },
	{ "power9", { { 0, false, A + 136, 8, HWBP_W, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH | STORE, A + 1, IP, -ENOENT, 0, 0, 0, 0,
	  "range starts beyond the largest access: no slot" },
	{ "power9", { { 0, false, A + 64, 8, HWBP_W, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH | STORE, A + 100, IP, 0, 1, 0, HWBP_W, A + 100,
	  "dcbz with DAR inside its 128-byte block, after the range" },
	{ "power10", { { 0, false, A + 16, 8, HWBP_W, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH | STORE, A + 12, IP, -ENOENT, 0, 0, 0, 0,
	  "ISA 3.1: DAR is inside the range, so no before-range fallback" },
	{ "power7", { { 0, false, A, 8, HWBP_RW, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH | STORE, A + 3, IP, 0, 1, 0, HWBP_W, A + 3,
	  "DABR: ptrace-hwbreak.c PTRACE_SET_DEBUGREG, 1-byte store" },
	{ "power7", { { 0, false, A + 8, 8, HWBP_RW, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH, A + 4, IP, 0, 1, 0, HWBP_R, A + 4,
	  "DABR: unaligned 8-byte load starting in the previous DW" },
	/* perf-hwbreak.c multi-DAWR tests on POWER10. */
	{ "power10", { { 0, false, A, 8, HWBP_RW, HWBP_SCOPE_USER },
		       { 1, false, A + 64, 8, HWBP_RW, HWBP_SCOPE_USER } }, 2,
	  DSI, MATCH | STORE, A + 64, IP, 0, 2, 0, HWBP_W, A + 64,
	  "multi_diff_addr: store to b hits DAWR1 only" },
	{ "power10", { { 0, false, A, 8, HWBP_RW, HWBP_SCOPE_USER },
		       { 1, false, A, 8, HWBP_RW, HWBP_SCOPE_USER } }, 2,
	  DSI, MATCH, A, IP, 0, 3, 0, HWBP_R, A,
	  "multi_same_addr: both DAWRs" },
	{ "power10", { { 0, false, A, 8, HWBP_R, HWBP_SCOPE_USER },
		       { 1, false, A, 8, HWBP_W, HWBP_SCOPE_USER } }, 2,
	  DSI, MATCH | STORE, A, IP, 0, 2, 0, HWBP_W, A,
	  "multi_same_addr_ro_wo: a store fired only the WO DAWR" },
	{ "power10", { { 0, false, A, 8, HWBP_R, HWBP_SCOPE_USER },
		       { 1, false, A, 8, HWBP_W, HWBP_SCOPE_USER } }, 2,
	  DSI, MATCH, A, IP, 0, 3, 0, HWBP_R, A,
	  "multi_same_addr_ro_wo: store bit clear names both DAWRs (QEMU never sets it)" },
	{ "power9", { { 0, false, A, 8, HWBP_W, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH, A, IP, 0, 1, 0, HWBP_R, A,
	  "QEMU TCG sets DSISR[41] only: keep the address match" },
	/* Not debug events / no slot. */
	{ "power9", { { 0, false, A, 8, HWBP_RW, HWBP_SCOPE_USER } }, 1,
	  DSI, STORE | 0x40000000ull, A, IP, -EINVAL, 0, 0, 0, 0,
	  "DSI without the DABR-match bit is a page fault" },
	{ "power9", { { 0, false, A, 8, HWBP_RW, HWBP_SCOPE_USER } }, 1,
	  0x400, MATCH, A, IP, -EINVAL, 0, 0, 0, 0, "ISI vector" },
	{ "power9", { { 0, false, A, 8, HWBP_RW, HWBP_SCOPE_USER } }, 1,
	  0x700, 0, 0, IP, -EINVAL, 0, 0, 0, 0, "program interrupt" },
	{ "power9", { { 0, false, A, 8, HWBP_RW, HWBP_SCOPE_USER } }, 1,
	  DSI, MATCH, A + 0x1000, IP, -ENOENT, 0, 0, 0, 0, "DAR far from the DAWR" },
	{ "power9", { { 0 } }, 0,
	  DSI, MATCH, A, IP, -ENOENT, 0, 0, 0, 0, "nothing armed" },
	/* CIABR: Trace interrupt; ip = the completed instruction (SIAR). */
	{ "power9", { { 0, true, IP, 4, HWBP_X, HWBP_SCOPE_USER } }, 1,
	  TRACE, 0, 0, IP, 0, 0, 1, HWBP_X, IP, "CIABR hit" },
	{ "power10", { { 0, true, KADDR, 4, HWBP_X, HWBP_SCOPE_KERNEL },
		       { 0, false, KADDR, 8, HWBP_RW, HWBP_SCOPE_KERNEL } }, 2,
	  TRACE, 0, 0, KADDR, 0, 0, 1, HWBP_X, KADDR, "CIABR hit, kernel" },
	{ "power9", { { 0, true, IP, 4, HWBP_X, HWBP_SCOPE_USER } }, 1,
	  TRACE, 0, 0, IP + 4, -ENOENT, 0, 0, 0, 0,
	  "trace at another instruction: single step, no slot" },
	{ "power9", { { 0 } }, 0,
	  TRACE, 0, 0, IP, -ENOENT, 0, 0, 0, 0, "CIABR disabled" },
	{ "power7", { { 0 } }, 0,
	  TRACE, 0, 0, IP, -ENOENT, 0, 0, 0, 0, "no CIABR on POWER7" },
};

static void test_decode_status(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(status_rows); i++) {
		const struct status_row *r = &status_rows[i];
		struct hwbp_cpu cpu = cpu_of(r->cpu);
		struct hwbp_regs regs = regs_of(&cpu);
		struct hwbp_status st;
		struct hwbp_hit hit, sentinel;

		print_message("decode_status %s: %s\n", r->cpu, r->why);
		for (unsigned k = 0; k < r->narm; k++) {
			const struct arm *a = &r->arm[k];
			struct hwbp_piece p = { .addr = a->addr, .len = a->len, .type = a->type };

			assert_int_equal(hwbp_encode_piece(&cpu, &regs, a->slot, a->inst, &p,
							   a->scope, false), 0);
		}
		memset(&st, 0, sizeof(st));
		st.ip = r->ip;
		st.u.ppc.vector = r->vector;
		st.u.ppc.dsisr = r->dsisr;
		st.u.ppc.dar = r->dar;
		memset(&hit, 0x77, sizeof(hit));
		sentinel = hit;
		assert_int_equal(hwbp_decode_status(&cpu, &regs, &st, &hit), r->ret);
		if (r->ret) {
			assert_memory_equal(&hit, &sentinel, sizeof(hit));
			continue;
		}
		assert_int_equal(hit.data_slots, r->data_slots);
		assert_int_equal(hit.inst_slots, r->inst_slots);
		assert_int_equal(hit.kind, r->kind);
		assert_true(hit.addr == r->addr);
		assert_true(hit.addr_known);
		assert_true(hit.ip == r->ip);
		assert_true(hit.requests == 0);
		assert_false(hit.filtered);
	}
}

/* ------------------------------------------------------------------ */
/* regs_list / regs_set                                                */
/* ------------------------------------------------------------------ */
struct list_row {
	const char *cpu;
	int n;
	const char *names[5];
	const char *absent[4];
	const char *why;
};

static const struct list_row list_rows[] = {
	{ "power7", 2, { "dabr", "dabrx" }, { "dawr0", "dawrx0", "dawr1", "ciabr" },
	  "DABR/DABRX only" },
	{ "power8", 3, { "dawr0", "dawrx0", "ciabr" }, { "dabr", "dabrx", "dawr1", "dawrx1" },
	  "ISA 2.07 drops DABR" },
	{ "power9", 3, { "dawr0", "dawrx0", "ciabr" }, { "dabr", "dawr1", "dawrx1", "bogus" },
	  "no DAWR1 before ISA 3.1" },
	{ "power10", 5, { "dawr0", "dawrx0", "dawr1", "dawrx1", "ciabr" },
	  { "dabr", "dabrx", "dr7", "dawr2" }, "two DAWRs" },
};

static void test_regs_list_set(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(list_rows); i++) {
		const struct list_row *r = &list_rows[i];
		struct hwbp_cpu cpu = cpu_of(r->cpu);
		struct hwbp_regs regs = regs_of(&cpu), before;
		struct hwbp_reg_nv nv[8];

		print_message("regs %s: %s\n", r->cpu, r->why);
		for (int k = 0; k < r->n; k++)
			assert_int_equal(hwbp_regs_set(&cpu, &regs, r->names[k], 0x1000 + k), 0);
		assert_int_equal(hwbp_regs_list(&cpu, &regs, nv, 8), r->n);
		for (int k = 0; k < r->n; k++) {
			assert_string_equal(nv[k].name, r->names[k]);
			assert_true(nv[k].value == (uint64_t)(0x1000 + k));
		}
		/* Truncation: at most max entries. */
		assert_int_equal(hwbp_regs_list(&cpu, &regs, nv, 1), 1);
		assert_string_equal(nv[0].name, r->names[0]);
		assert_int_equal(hwbp_regs_list(&cpu, &regs, nv, 0), 0);
		/* Registers the CPU lacks: -ENOENT, nothing written. */
		before = regs;
		for (int k = 0; k < 4; k++)
			assert_int_equal(hwbp_regs_set(&cpu, &regs, r->absent[k], 1), -ENOENT);
		assert_memory_equal(&before, &regs, sizeof(regs));
	}
}

static void test_null_args(void **state)
{
	struct hwbp_cpu cpu = cpu_of("power9");
	struct hwbp_regs regs = regs_of(&cpu);
	struct hwbp_reg_nv nv[2];

	(void)state;
	assert_int_equal(hwbp_regs_set(&cpu, &regs, NULL, 0), -EINVAL);
	assert_int_equal(hwbp_regs_list(&cpu, &regs, nv, -1), -EINVAL);
	assert_int_equal(hwbp_decode_status(&cpu, &regs, NULL, NULL), -EINVAL);
}

/* SRR1[43] (0x00100000) marks a CIABR match; SRR1[33] (0x40000000) alone
 * is an ordinary single-step trace (Linux reg.h; QEMU sets both for CIABR). */
static void test_decode_srr1(void **state)
{
	static const struct { uint64_t srr1; int err; const char *why; } rows[] = {
		{ 0, 0, "SRR1 not read: address match decides" },
		{ 0x40000000ull | 0x00100000ull, 0, "QEMU: SRR1[33] and SRR1[43]" },
		{ 0x00100000ull, 0, "SRR1[43] only" },
		{ 0x40000000ull, -EINVAL, "single step of the CIABR instruction" },
	};
	struct hwbp_cpu cpu = cpu_of("power9");

	(void)state;
	for (size_t i = 0; i < N(rows); i++) {
		struct hwbp_regs regs = regs_of(&cpu);
		struct hwbp_piece p = { .addr = IP, .len = 4, .type = HWBP_X };
		struct hwbp_status st = { .ip = IP };
		struct hwbp_hit hit;

		assert_int_equal(hwbp_encode_piece(&cpu, &regs, 0, true, &p, HWBP_SCOPE_USER, false), 0);
		st.u.ppc.vector = TRACE;
		st.u.ppc.srr1 = rows[i].srr1;
		if (hwbp_decode_status(&cpu, &regs, &st, &hit) != rows[i].err)
			fail_msg("row %zu: %s", i, rows[i].why);
		if (!rows[i].err)
			assert_int_equal(hit.inst_slots, 1);
	}
}

/* ---- the glue's write (hwbp_regs_apply); names and status fields are
 * tests/unit/test_arch.c's ---- */

static void test_regs_apply(void **state)
{
	struct hwbp_cpu cpu, x86;
	struct hwbp_regs live, written;
	struct hwbp_caps caps;

	(void)state;
	assert_int_equal(hwbp_cpu_preset("power10", &cpu), 0);
	assert_int_equal(hwbp_regs_reset(&cpu, &live), 0);
	live.u.ppc.dawr[1] = 0x3000;
	assert_int_equal(hwbp_regs_reset(&cpu, &written), 0);
	written.u.ppc.dawr[0] = 0x1000;
	written.u.ppc.dawrx[0] = 0x41;
	written.u.ppc.ciabr = 0x400001;
	/* Every powerpc debug register is address or control: all copied. */
	assert_int_equal(hwbp_regs_apply(&cpu, &live, &written), 0);
	assert_memory_equal(&live, &written, sizeof(live));
	assert_int_equal(hwbp_cpu_preset("x86_64", &x86), 0);
	assert_int_equal(hwbp_regs_reset(&x86, &written), 0);
	assert_int_equal(hwbp_regs_apply(&cpu, &live, &written), -EINVAL);
	/* dcbz's 128-byte block; no port I/O. */
	assert_int_equal(hwbp_caps_get(&cpu, &caps), 0);
	assert_false(caps.io_ports);
	assert_true(caps.zero_block == 128);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_split_table),
		cmocka_unit_test(test_split_count_beyond_max),
		cmocka_unit_test(test_split_minimal),
		cmocka_unit_test(test_encode_values_and_roundtrip),
		cmocka_unit_test(test_encode_two_dawrs),
		cmocka_unit_test(test_encode_errors_leave_regs),
		cmocka_unit_test(test_decode_slot),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_decode_status),
		cmocka_unit_test(test_decode_srr1),
		cmocka_unit_test(test_regs_list_set),
		cmocka_unit_test(test_null_args),
		cmocka_unit_test(test_regs_apply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
