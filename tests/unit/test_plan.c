/* SPDX-License-Identifier: MIT */
/*
 * Request checks and the planner: one table of bad requests (each errno has
 * its own rows), and brute-force proofs that exact splitting is minimal and
 * enlargement is the smallest that fits, for every request inside a 64-byte
 * window, on every arch.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

#include <hwbp/riscv.h>

static struct hwbp_cpu cpu_of(const char *name)
{
	struct hwbp_cpu c;

	assert_int_equal(hwbp_cpu_preset(name, &c), 0);
	return c;
}

/* ----------------------------------------------------------- checks */

struct check_row {
	const char *cpu;
	uint64_t addr, len;
	unsigned type;
	enum hwbp_scope scope;
	unsigned flags;
	int err;
	const char *why;
};

#define KADDR 0xffffffff81000000ull
static const struct check_row check_rows[] = {
	{ "x86_64", 0x1000, 0, HWBP_W, 0, 0, -EINVAL, "len 0" },
	{ "x86_64", 0x1000, 4, 0, 0, 0, -EINVAL, "no type bit" },
	{ "x86_64", 0x1000, 4, 0x8, 0, 0, -EINVAL, "unknown type bit" },
	{ "cortex-a57", 0x1000, 4, HWBP_R | HWBP_X, 0, 0, -EINVAL, "R|X is not a generic type" },
	{ "x86_64", 0x1000, 4, HWBP_W, 0, 0x100, -EINVAL, "unknown flag bit" },
	{ "x86_64", 0x1000, 4, HWBP_W, (enum hwbp_scope)7, 0, -EINVAL, "unknown scope" },
	{ "x86_64", UINT64_MAX - 1, 4, HWBP_W, HWBP_SCOPE_BOTH, 0, -ERANGE, "addr + len wraps" },
	{ "cortex-a57", UINT64_MAX, 2, HWBP_W, HWBP_SCOPE_BOTH, 0, -ERANGE, "addr + len wraps (arm64)" },
	{ "i386", 0xfffffffe, 4, HWBP_W, HWBP_SCOPE_BOTH, 0, -ERANGE, "past 4 GiB on i386" },
	{ "i386", 0x100000000ull, 1, HWBP_W, HWBP_SCOPE_BOTH, 0, -ERANGE, "above 4 GiB on i386" },
	{ "x86_64", 0x1000, 1ull << 40, HWBP_W, 0, 0, -ERANGE, "1 TiB: more than 4 x 8 bytes" },
	{ "x86_64", KADDR, 8, HWBP_W, HWBP_SCOPE_USER, 0, -EFAULT, "user request on a kernel address" },
	{ "x86_64", 0x1000, 8, HWBP_W, HWBP_SCOPE_KERNEL, 0, -EFAULT, "kernel request on a user address" },
	{ "x86_64", 0x0000800000000000ull, 8, HWBP_W, HWBP_SCOPE_BOTH, 0, -EFAULT, "non-canonical (SDM Vol.1 §3.3.7.1)" },
	{ "x86_64", 0x00007ffffffffffcull, 8, HWBP_W, HWBP_SCOPE_BOTH, 0, -EFAULT, "runs into the non-canonical hole" },
	{ "cortex-a57", 0x0001000000000000ull, 8, HWBP_W, HWBP_SCOPE_BOTH, 0, -EFAULT, "arm64: between TTBR0 and TTBR1 ranges" },
	{ "power9", 0x8000000000000000ull, 8, HWBP_W, HWBP_SCOPE_BOTH, 0, -EFAULT, "ppc64: neither user nor kernel" },
	{ "i386", 0xc0000000, 4, HWBP_W, HWBP_SCOPE_USER, 0, -EFAULT, "i386 user request above 3 GiB" },
	{ "x86_64", 0x1000, 4, HWBP_R, 0, 0, -EOPNOTSUPP, "x86 has no read-only (SDM Vol.3 §17.2.4)" },
	{ "power7", 0x1000, 4, HWBP_X, 0, 0, -EOPNOTSUPP, "power7 has no CIABR" },
	{ "cortex-a57", 0x1002, 4, HWBP_X, 0, 0, -EINVAL, "arm64 execute off the 4-byte grid" },
	{ "cortex-a57", 0x1000, 6, HWBP_X, 0, 0, -EINVAL, "arm64 execute len not a multiple of 4" },
	{ "power9", 0x1001, 4, HWBP_X, HWBP_SCOPE_USER, 0, -EINVAL, "ppc execute off the 4-byte grid" },
	/* Accepted ones, so the table shows the boundary from both sides. */
	{ "x86_64", 0x1000, 4, HWBP_R, 0, HWBP_REQ_WIDEN, 0, "x86 R widened to RW" },
	{ "x86_64", 0x00007ffffffffff8ull, 8, HWBP_W, HWBP_SCOPE_USER, 0, 0, "last user doubleword" },
	{ "x86_64", KADDR, 8, HWBP_RW, HWBP_SCOPE_KERNEL, 0, 0, "kernel" },
	{ "x86_64", 0x1003, 3, HWBP_X, 0, 0, 0, "x86 execute at any byte" },
	{ "i386", 0xfffffffc, 4, HWBP_W, HWBP_SCOPE_BOTH, 0, 0, "top of 4 GiB" },
	{ "cortex-a57", 0x1000, 8, HWBP_R, HWBP_SCOPE_USER, 0, 0, "arm64 read-only" },
	{ "power10", 0x1000, 4, HWBP_X, HWBP_SCOPE_USER, 0, 0, "ppc CIABR user" },
};

static void test_check_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(check_rows) / sizeof(check_rows[0]); i++) {
		const struct check_row *r = &check_rows[i];
		struct hwbp_cpu cpu = cpu_of(r->cpu);
		struct hwbp_request req = { r->addr, r->len, r->type, r->scope, r->flags };
		struct hwbp_plan plan, before;
		int got;

		got = hwbp_request_check(&cpu, &req);
		if (got != r->err)
			fail_msg("row %zu (%s): check %s, expected %s", i, r->why,
				 hwbp_errno_name(got), hwbp_errno_name(r->err));
		/* The planner reports the same error and leaves *out alone. */
		memset(&plan, 0xa5, sizeof(plan));
		before = plan;
		got = hwbp_plan(&cpu, &req, 0, &plan);
		if (got != r->err)
			fail_msg("row %zu (%s): plan %s, expected %s", i, r->why,
				 hwbp_errno_name(got), hwbp_errno_name(r->err));
		if (got)
			assert_memory_equal(&plan, &before, sizeof(plan));
	}
}

static void test_null_args(void **state)
{
	struct hwbp_cpu cpu = cpu_of("x86_64");
	struct hwbp_request req = { 0x1000, 4, HWBP_W, 0, 0 };
	struct hwbp_plan plan;

	(void)state;
	assert_int_equal(hwbp_request_check(NULL, &req), -EINVAL);
	assert_int_equal(hwbp_request_check(&cpu, NULL), -EINVAL);
	assert_int_equal(hwbp_plan(&cpu, &req, 0, NULL), -EINVAL);
	assert_int_equal(hwbp_plan(NULL, &req, 0, &plan), -EINVAL);
}

static void test_widen(void **state)
{
	struct hwbp_cpu cpu = cpu_of("x86_64");
	struct hwbp_request req = { 0x1000, 4, HWBP_R, 0, HWBP_REQ_WIDEN };
	struct hwbp_plan p;

	(void)state;
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), 0);
	assert_true(p.widened);
	assert_int_equal(p.type, HWBP_RW);
	assert_int_equal(p.req.type, HWBP_R);
	assert_int_equal(p.piece[0].type, HWBP_RW);
	/* arm64 has read-only: nothing to widen. */
	cpu = cpu_of("cortex-a57");
	assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), 0);
	assert_false(p.widened);
	assert_int_equal(p.type, HWBP_R);
}

/* Execute requests: one breakpoint per instruction, never enlarged. */
static void test_execute(void **state)
{
	static const struct {
		const char *cpu;
		uint64_t addr, len;
		int err;
		unsigned n;
	} rows[] = {
		{ "x86_64", 0x1001, 1, 0, 1 },      /* LEN=00 (SDM §17.2.5) */
		{ "x86_64", 0x1001, 4, 0, 4 },      /* 4 slots, one per byte */
		{ "x86_64", 0x1001, 5, -ERANGE, 0 },/* more than the pool */
		{ "cortex-a57", 0x1000, 24, 0, 6 }, /* 6 breakpoints */
		{ "cortex-a57", 0x1000, 28, -ERANGE, 0 },
		{ "power9", 0x1000, 4, 0, 1 },      /* one CIABR */
		{ "power9", 0x1000, 8, -ERANGE, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct hwbp_cpu cpu = cpu_of(rows[i].cpu);
		struct hwbp_request req = { rows[i].addr, rows[i].len, HWBP_X, HWBP_SCOPE_USER, 0 };
		struct hwbp_plan p;
		int got = hwbp_plan(&cpu, &req, 0, &p);

		if (got != rows[i].err)
			fail_msg("row %zu: %s", i, hwbp_errno_name(got));
		if (got)
			continue;
		assert_true(p.inst);
		assert_true(p.exact);
		assert_int_equal(p.n, rows[i].n);
	}
	/* Fewer free breakpoints than instructions: -ENOSPC, not enlarged. */
	{
		struct hwbp_cpu cpu = cpu_of("x86_64");
		struct hwbp_request req = { 0x1001, 3, HWBP_X, HWBP_SCOPE_USER, 0 };
		struct hwbp_plan p;

		assert_int_equal(hwbp_plan(&cpu, &req, 2, &p), -ENOSPC);
	}
}

/* ------------------------------------------------------ brute force */

/* Independent model of which single pieces each arch can hold (docs/design.md),
 * written from the manuals, not from arch/. */
static bool valid_piece(const struct hwbp_cpu *cpu, uint64_t s, uint64_t l)
{
	switch (cpu->arch) {
	case HWBP_ARCH_X86:
		/* AMD APM Vol.2 §13.1.1.5: DRn_ADDR_MASK ignores low address
		 * bits, giving aligned power-of-two blocks up to the mask. */
		if (cpu->u.x86.amd_addr_mask && l > 8) {
			struct hwbp_caps c;

			hwbp_caps_get(cpu, &c);
			return hwbpi_is_pow2(l) && l <= c.max_piece && s % l == 0;
		}
		/* SDM Vol.3 §17.2.5: LEN 1, 2, 4 (8 in 64-bit mode), aligned. */
		if (l == 8 && !cpu->u.x86.mode64)
			return false;
		return (l == 1 || l == 2 || l == 4 || l == 8) && s % l == 0;
	case HWBP_ARCH_ARM64:
		/* Arm ARM D2.10: BAS bytes inside one doubleword, or MASK:
		 * an aligned power-of-two block of 8 bytes or more. */
		if (l <= 8 && s / 8 == (s + l - 1) / 8)
			return true;
		return hwbpi_is_pow2(l) && l >= 8 && s % l == 0;
	case HWBP_ARCH_POWERPC:
		if (s % 8 || l % 8 || l == 0)
			return false;
		if (cpu->u.ppc.units & HWBP_PPC_DABR)
			return l == 8;
		/* DAWRX.MRD: up to 64 doublewords; before ISA 3.1 not across
		 * a 512-byte boundary. */
		if (l > 512)
			return false;
		return cpu->u.ppc.isa >= 310 || s / 512 == (s + l - 1) / 512;
	case HWBP_ARCH_RISCV: {
		/* RISC-V Debug spec 1.0 §5.5.11: one trigger with match 0 is
		 * the byte at tdata2; match 1 (NAPOT) a naturally aligned
		 * 2^k block, k >= 1 (mcontrol: up to 2^maskmax).  QEMU 10.0
		 * reads size as a byte count (1, 2; size 0: 8 bytes,
		 * type6_breakpoint_insert()).  A range of two chained
		 * triggers (match 2 then 3) is two slots: test_riscv_pairs. */
		uint32_t f = cpu->u.riscv.features;
		unsigned k = (f >> 24) & 0x3f;

		if ((f & HWBP_RISCV_F_SIZE_AS_LEN) && (l == 1 || l == 2 || l == 8) && s % l == 0)
			return true;
		if (l == 1)
			return true;
		if (!(f & HWBP_RISCV_F_NAPOT))
			return false;
		return hwbpi_is_pow2(l) && l <= (UINT64_C(1) << (k ? k : 63)) && s % l == 0;
	}
	}
	return false;
}

/* All pieces the hardware can hold inside a window [wlo, whi). */
struct piece_list {
	unsigned n;
	uint64_t s[8192], e[8192];
};

static struct piece_list PL;

static void list_pieces(const struct hwbp_cpu *cpu, uint64_t wlo, uint64_t whi)
{
	PL.n = 0;
	for (uint64_t s = wlo; s < whi; s++)
		for (uint64_t e = s + 1; e <= whi; e++)
			if (valid_piece(cpu, s, e - s)) {
				assert_true(PL.n < 8192);
				PL.s[PL.n] = s;
				PL.e[PL.n++] = e;
			}
}

/*
 * best[e - lo] = fewest listed pieces inside [lo, e) whose union is exactly
 * [lo, e), for every e in (lo, lo + span]; 0xff when impossible.  Pieces
 * may overlap: the DP extends a covered prefix [lo, lo + x) by any piece
 * [s, e) with lo <= s <= lo + x < e.
 */
static void brute_counts(uint64_t lo, unsigned span, uint8_t *best)
{
	memset(best, 0xff, span + 1);
	best[0] = 0;
	for (unsigned x = 0; x < span; x++) {
		if (best[x] == 0xff)
			continue;
		for (unsigned i = 0; i < PL.n; i++) {
			uint64_t s = PL.s[i], e = PL.e[i];

			if (s >= lo && s <= lo + x && e > lo + x && e <= lo + span &&
			    best[x] + 1 < best[e - lo])
				best[e - lo] = (uint8_t)(best[x] + 1);
		}
	}
}

static void check_pieces_valid(const struct hwbp_cpu *cpu, const struct hwbp_plan *p)
{
	for (unsigned i = 0; i < p->n; i++) {
		struct hwbp_regs regs;
		const struct hwbp_piece *pc = &p->piece[i];

		if (!valid_piece(cpu, pc->addr, pc->len))
			fail_msg("%s: piece 0x%llx/%llu is not something the hardware holds",
				 cpu->name, (unsigned long long)pc->addr, (unsigned long long)pc->len);
		if (i)
			assert_true(p->piece[i - 1].addr + p->piece[i - 1].len <= pc->addr);
		hwbp_regs_reset(cpu, &regs);
		assert_int_equal(hwbp_encode_piece(cpu, &regs, 0, p->inst, pc, HWBP_SCOPE_USER, false), 0);
	}
}

static const char *const all_presets[] = {
	"x86_64", "i386", "x86_64-amd", "cortex-a57", "arm64-max16",
	"power7", "power8", "power9", "power10", "rv64-qemu",
};

/*
 * Exact splitting is minimal: for every request inside a 64-byte window
 * (two windows: one 64-aligned, one straddling a 512-byte boundary), the
 * arch's tiling uses exactly the brute-force minimum of pieces.
 */
static void test_split_minimal(void **state)
{
	static const uint64_t bases[] = { 0x10000, 0x10200 - 32 };

	(void)state;
	for (size_t ci = 0; ci < sizeof(all_presets) / sizeof(all_presets[0]); ci++) {
		struct hwbp_cpu cpu = cpu_of(all_presets[ci]);
		const struct hwbpi_arch_ops *ops = hwbpi_arch_ops(cpu.arch);
		unsigned checked = 0;

		for (size_t bi = 0; bi < 2; bi++) {
			list_pieces(&cpu, bases[bi] - 8, bases[bi] + 64 + 8);
			for (unsigned off = 0; off < 64; off++) {
				uint64_t a = bases[bi] + off;
				/* ppc watches whole doublewords: the minimum is taken
				 * over the doubleword-rounded range. */
				uint64_t lo = cpu.arch == HWBP_ARCH_POWERPC ? a & ~7ull : a;
				uint8_t best[200];

				brute_counts(lo, (unsigned)(bases[bi] + 64 + 8 - lo), best);
				for (uint64_t len = 1; off + len <= 64; len++) {
					uint64_t hi = a + len;
					struct hwbp_piece pcs[HWBP_MAX_PIECES];
					unsigned n, want;

					if (cpu.arch == HWBP_ARCH_POWERPC)
						hi = (hi + 7) & ~7ull;
					want = best[hi - lo];
					n = ops->split(&cpu, false, a, len, pcs, HWBP_MAX_PIECES);
					if (n != want)
						fail_msg("%s 0x%llx len %llu: %u pieces, brute force %u",
							 cpu.name, (unsigned long long)a,
							 (unsigned long long)len, n, want);
					/* The pieces tile [lo, hi) exactly. */
					if (n <= HWBP_MAX_PIECES) {
						uint64_t at = lo;

						for (unsigned i = 0; i < n; i++) {
							assert_true(pcs[i].addr == at);
							assert_true(valid_piece(&cpu, pcs[i].addr, pcs[i].len));
							at += pcs[i].len;
						}
						assert_true(at == hi);
					}
					checked++;
				}
			}
		}
		assert_int_equal(checked, 2 * 64 * 65 / 2);
	}
}

/*
 * Enlargement is the smallest that fits: for every request inside a 32-byte
 * window and every number of free slots below the exact count, the plan's
 * watched bytes equal the brute-force minimum over all intervals [lo', hi')
 * around the request that tile into that many pieces.
 */
static void test_enlarge_minimal(void **state)
{
	static const char *const cpus[] = { "x86_64", "i386", "cortex-a57", "power9", "power10",
					     "rv64-qemu" };
	unsigned enlarged = 0;

	(void)state;
	for (size_t ci = 0; ci < sizeof(cpus) / sizeof(cpus[0]); ci++) {
		struct hwbp_cpu cpu = cpu_of(cpus[ci]);
		const uint64_t base = 0x20000;
		const unsigned margin = 64;
		static uint8_t counts[32 + 64 + 1][32 + 2 * 64 + 2];

		/* counts[lo - (base - margin)][hi - lo]: computed once per lo. */
		list_pieces(&cpu, base - margin, base + 32 + margin);
		for (uint64_t lo = base - margin; lo < base + 32; lo++)
			brute_counts(lo, (unsigned)(base + 32 + margin - lo), counts[lo - (base - margin)]);

		for (unsigned off = 0; off < 32; off++) {
			for (uint64_t len = 1; off + len <= 32; len++) {
				uint64_t a = base + off, e = a + len;
				struct hwbp_request req = { a, len, HWBP_W, HWBP_SCOPE_USER, 0 };
				struct hwbp_plan exact, p;

				/* i386 holds at most 4 x 4 bytes: longer ones are
				 * -ERANGE, checked by test_plan_rows. */
				if (hwbp_plan(&cpu, &req, 0, &exact) == -ERANGE)
					continue;
				for (unsigned k = 1; k < exact.n; k++) {
					uint64_t bestw = UINT64_MAX;
					int got = hwbp_plan(&cpu, &req, k, &p);

					for (uint64_t lo = a - margin; lo <= a; lo++) {
						const uint8_t *best = counts[lo - (base - margin)];

						if (lo < base - margin)
							continue;
						for (uint64_t hi = e; hi <= base + 32 + margin; hi++)
							if (best[hi - lo] <= k && hi - lo < bestw)
								bestw = hi - lo;
					}
					if (bestw == UINT64_MAX) {
						if (got != -ENOSPC)
							fail_msg("%s 0x%llx/%llu k=%u: %s, brute force finds none",
								 cpu.name, (unsigned long long)a,
								 (unsigned long long)len, k, hwbp_errno_name(got));
						continue;
					}
					if (got)
						fail_msg("%s 0x%llx/%llu k=%u: %s, brute force %llu bytes",
							 cpu.name, (unsigned long long)a, (unsigned long long)len,
							 k, hwbp_errno_name(got), (unsigned long long)bestw);
					assert_true(p.enlarged);
					assert_true(p.n <= k);
					check_pieces_valid(&cpu, &p);
					assert_true(p.piece[0].addr <= a);
					assert_true(p.piece[p.n - 1].addr + p.piece[p.n - 1].len >= e);
					if (p.extra_bytes + len != bestw)
						fail_msg("%s 0x%llx/%llu k=%u: watches %llu bytes, brute force %llu",
							 cpu.name, (unsigned long long)a, (unsigned long long)len, k,
							 (unsigned long long)(p.extra_bytes + len),
							 (unsigned long long)bestw);
					enlarged++;
				}
			}
		}
	}
	assert_true(enlarged > 1000);
}

/* Fixed rows that a reader can check by hand. */
static void test_plan_rows(void **state)
{
	static const struct {
		const char *cpu;
		uint64_t addr, len;
		unsigned free;
		int err;
		unsigned n;
		uint64_t first_addr, first_len, extra;
		bool exact;
		const char *why;
	} rows[] = {
		{ "x86_64", 0x1001, 13, 0, 0, 3, 0x1000, 8, 1, false, "13 B unaligned: exact is 1+2+4+4+2 > 4 DRs, so 8+4+2 from 0x1000" },
		{ "x86_64", 0x1001, 13, 2, 0, 2, 0x1000, 8, 3, false, "2 slots: two 8-byte blocks" },
		{ "x86_64", 0x1001, 13, 1, -ENOSPC, 0, 0, 0, 0, false, "16 bytes > one 8-byte DR" },
		{ "i386", 0x1001, 13, 0, 0, 4, 0x1000, 4, 1, false, "i386: 4+4+4+2 from 0x1000" },
		{ "x86_64-amd", 0x1000, 4096, 1, 0, 1, 0x1000, 4096, 0, true, "AMD address mask: one slot" },
		{ "cortex-a57", 0x1001, 13, 0, 0, 2, 0x1001, 7, 0, true, "BAS 7 + BAS 6" },
		{ "cortex-a57", 0x80000000, 1ull << 31, 1, 0, 1, 0x80000000, 1ull << 31, 0, true, "2 GiB MASK=31" },
		{ "cortex-a57", 0x1003, 0x10000, 1, 0, 1, 0x0, 0x20000, 0x20000 - 0x10000, false, "one MASK block" },
		{ "power9", 0x1006, 6, 0, 0, 2 - 1, 0x1000, 16, 10, false, "6 B straddling doublewords: DAWR 16 B" },
		{ "power9", 0x1000, 512, 0, 0, 1, 0x1000, 512, 0, true, "512 B: MRD 63" },
		{ "power9", 0x11f8, 16, 0, -ERANGE, 0, 0, 0, 0, false, "crosses 512 B: two DAWRs needed, power9 has one" },
		{ "power10", 0x11f8, 16, 0, 0, 1, 0x11f8, 16, 0, true, "ISA 3.1 lifts the 512 B rule" },
		{ "power10", 0x1000, 1024, 0, 0, 2, 0x1000, 512, 0, true, "two DAWRs" },
		{ "power7", 0x1004, 2, 0, 0, 1, 0x1000, 8, 6, false, "DABR doubleword" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct hwbp_cpu cpu = cpu_of(rows[i].cpu);
		struct hwbp_request req = { rows[i].addr, rows[i].len, HWBP_W, HWBP_SCOPE_USER, 0 };
		struct hwbp_plan p;
		int got;

		got = hwbp_plan(&cpu, &req, rows[i].free, &p);
		if (got != rows[i].err)
			fail_msg("row %zu (%s): %s", i, rows[i].why, hwbp_errno_name(got));
		if (got)
			continue;
		if (p.n != rows[i].n || p.piece[0].addr != rows[i].first_addr ||
		    p.piece[0].len != rows[i].first_len || p.extra_bytes != rows[i].extra ||
		    p.exact != rows[i].exact)
			fail_msg("row %zu (%s): n=%u first=0x%llx/%llu extra=%llu exact=%d", i,
				 rows[i].why, p.n, (unsigned long long)p.piece[0].addr,
				 (unsigned long long)p.piece[0].len, (unsigned long long)p.extra_bytes,
				 p.exact);
		check_pieces_valid(&cpu, &p);
	}
}

/* arm64 MASK ranges from 8 bytes to 2 GiB are one piece each. */
static void test_arm64_mask_ranges(void **state)
{
	struct hwbp_cpu cpu = cpu_of("cortex-a57");

	(void)state;
	for (unsigned k = 3; k <= 31; k++) {
		uint64_t len = 1ull << k;
		struct hwbp_request req = { len * 4, len, HWBP_RW, HWBP_SCOPE_USER, 0 };
		struct hwbp_plan p;

		assert_int_equal(hwbp_plan(&cpu, &req, 1, &p), 0);
		assert_int_equal(p.n, 1);
		assert_true(p.exact);
		assert_true(p.piece[0].len == len);
	}
	/* 4 GiB is two 2 GiB blocks; 16 GiB needs more than the 4 watchpoints. */
	{
		struct hwbp_request req = { 1ull << 32, 1ull << 32, HWBP_RW, HWBP_SCOPE_USER, 0 };
		struct hwbp_plan p;

		assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), 0);
		assert_int_equal(p.n, 2);
		req.len = 1ull << 34;
		assert_int_equal(hwbp_plan(&cpu, &req, 0, &p), -ERANGE);
	}
}

/*
 * RISC-V with chained pairs: a tiling takes the fewest slots, counting a
 * pair (any range, Debug spec §5.5 chain with match 2 then 3) as two:
 * min(brute-force single pieces, 2), ties to the single pieces.
 */
static void test_riscv_pairs(void **state)
{
	static const char *const cpus[] = { "rv64-sdtrig", "sifive-u74" };
	const uint64_t base = 0x10000;

	(void)state;
	for (size_t ci = 0; ci < sizeof(cpus) / sizeof(cpus[0]); ci++) {
		struct hwbp_cpu cpu = cpu_of(cpus[ci]);
		const struct hwbpi_arch_ops *ops = hwbpi_arch_ops(cpu.arch);

		list_pieces(&cpu, base - 8, base + 64 + 8);
		for (unsigned off = 0; off < 64; off++) {
			uint8_t best[200];

			brute_counts(base + off, (unsigned)(64 + 8 - off), best);
			for (uint64_t len = 1; off + len <= 64; len++) {
				struct hwbp_piece pcs[HWBP_MAX_PIECES];
				unsigned want = best[len] < 2 ? best[len] : 2;
				unsigned slots = ops->split_slots(&cpu, false, base + off, len);
				unsigned n = ops->split(&cpu, false, base + off, len, pcs, HWBP_MAX_PIECES);

				if (slots != want)
					fail_msg("%s 0x%llx/%llu: %u slots, want %u", cpu.name,
						 (unsigned long long)(base + off), (unsigned long long)len,
						 slots, want);
				/* A pair is one piece of the whole range; else single pieces. */
				if (best[len] > 2)
					assert_true(n == 1 && pcs[0].addr == base + off && pcs[0].len == len);
				else
					assert_int_equal(n, best[len]);
			}
		}
	}
}

/* Coverage bookkeeping: the pieces' cover ranges add up to the request. */
static void test_cover(void **state)
{
	(void)state;
	for (size_t ci = 0; ci < sizeof(all_presets) / sizeof(all_presets[0]); ci++) {
		struct hwbp_cpu cpu = cpu_of(all_presets[ci]);

		for (uint64_t len = 1; len <= 40; len++) {
			struct hwbp_request req = { 0x3003, len, HWBP_W, HWBP_SCOPE_USER, 0 };
			struct hwbp_plan p;
			uint64_t sum = 0, watched = 0;

			if (hwbp_plan(&cpu, &req, 0, &p))
				continue;
			for (unsigned i = 0; i < p.n; i++) {
				sum += p.piece[i].cover_len;
				watched += p.piece[i].len;
			}
			assert_true(sum == len);
			assert_true(watched == len + p.extra_bytes);
			assert_int_equal(p.exact, p.extra_bytes == 0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_table),
		cmocka_unit_test(test_null_args),
		cmocka_unit_test(test_widen),
		cmocka_unit_test(test_execute),
		cmocka_unit_test(test_plan_rows),
		cmocka_unit_test(test_arm64_mask_ranges),
		cmocka_unit_test(test_cover),
		cmocka_unit_test(test_split_minimal),
		cmocka_unit_test(test_enlarge_minimal),
		cmocka_unit_test(test_riscv_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
