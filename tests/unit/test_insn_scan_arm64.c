/* SPDX-License-Identifier: MIT */
/*
 * The arm64 decoder's side for the race detector (tracer/insn/insn.h:
 * scan and at_pc; arch/arm64/insn.c).  The functions below are A64
 * assembly this test wrote, given as the words GNU as
 * (aarch64-linux-gnu-as -march=armv8.4-a) made of each line beside it;
 * the class of each is what the Arm ARM and the C11 mapping say of it,
 * worked out here: SP's and the frame record's slots are the thread's
 * stack, exclusives, acquire/release and the LSE atomics (which Capstone
 * 4 does not know) are atomic, an access through a register derived from
 * TPIDR_EL0 is thread-local, a 32-byte pair and a structure load are too
 * wide or not decoded.  On every host; SKIP (77) without Capstone.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <hwbp/hwbp.h>
#include <hwbp/trace.h>

#include "insn/insn.h"

#define START UINT64_C(0x400800)
#define RW (HWBP_R | HWBP_W)
enum { NOMEM = HWBPI_INSN_NOMEM, PLAIN = HWBPI_INSN_PLAIN, STACK = HWBPI_INSN_STACK,
       ATOMIC = HWBPI_INSN_ATOMIC, TLS = HWBPI_INSN_TLS, WIDE = HWBPI_INSN_UNWATCHABLE };

struct line {
	uint32_t w;
	unsigned cls;
	const char *text;
};

/* A function that keeps a frame record (x29 its frame pointer). */
static const struct line with_frame[] = {
	{ 0xa9bd7bfd, STACK, "stp x29, x30, [sp, #-48]!" },
	{ 0x910003fd, NOMEM, "mov x29, sp" },
	{ 0xb9001fa0, STACK, "str w0, [x29, #28]" },
	{ 0xf9400be1, STACK, "ldr x1, [sp, #16]" },
	{ 0x90000002, NOMEM, "adrp x2, 0" },
	{ 0xb9401043, PLAIN, "ldr w3, [x2, #16]" },
	{ 0xf8247843, PLAIN, "str x3, [x2, x4, lsl #3]" },
	{ 0x39400445, PLAIN, "ldrb w5, [x2, #1]" },
	{ 0xa9401c46, PLAIN, "ldp x6, x7, [x2]" },
	{ 0xad400440, WIDE, "ldp q0, q1, [x2]: 32 bytes" },
	{ 0x885f7c48, ATOMIC, "ldxr w8, [x2]" },
	{ 0x8809fc48, ATOMIC, "stlxr w9, w8, [x2]" },
	{ 0xc8dffc4a, ATOMIC, "ldar x10, [x2]" },
	{ 0x889ffc4a, ATOMIC, "stlr w10, [x2]" },
	{ 0xb8bfc04b, ATOMIC, "ldapr w11, [x2] (v8.3)" },
	{ 0xb8e00041, ATOMIC, "ldaddal w0, w1, [x2] (v8.1 LSE)" },
	{ 0xc8e0fc41, ATOMIC, "casal x0, x1, [x2]" },
	{ 0xb8208041, ATOMIC, "swp w0, w1, [x2]" },
	{ 0xd53bd04c, NOMEM, "mrs x12, tpidr_el0" },
	{ 0x9140018c, NOMEM, "add x12, x12, #0x0, lsl #12" },
	{ 0x9100418c, NOMEM, "add x12, x12, #0x10" },
	{ 0xb940018d, TLS, "ldr w13, [x12]" },
	{ 0x4c40a040, WIDE, "ld1 {v0.16b, v1.16b}, [x2]" },
	{ 0xf9800040, NOMEM, "prfm pldl1keep, [x2]" },
	{ 0xb940018c, TLS, "ldr w12, [x12]: x12 no longer the thread's after it" },
	{ 0xb900018e, PLAIN, "str w14, [x12]" },
	{ 0x5800000f, NOMEM, "ldr x15, =literal: the code's constant" },
	{ 0xa8c37bfd, STACK, "ldp x29, x30, [sp], #48" },
	{ 0xd65f03c0, NOMEM, "ret" },
};

/* No frame record: x29 is a general register, [x29, #4] any object; then
 * a word that is no instruction, skipped (A64 words stay aligned), and a
 * load after it, still given. */
static const struct line without_frame[] = {
	{ 0xb94007a0, PLAIN, "ldr w0, [x29, #4]" },
	{ 0xd65f03c0, NOMEM, "ret" },
	{ 0x00000000, NOMEM, "udf #0" },
	{ 0xf9400020, PLAIN, "ldr x0, [x1]" },
};

static size_t to_bytes(const struct line *l, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++)
		for (unsigned b = 0; b < 4; b++)
			out[4 * i + b] = (uint8_t)(l[i].w >> (8 * b));
	return 4 * n;
}

struct seen {
	uint64_t ip[64];
	unsigned len[64], cls[64], n;
};

static int each(void *arg, uint64_t ip, unsigned len, unsigned cls)
{
	struct seen *s = arg;

	if (s->n < 64) {
		s->ip[s->n] = ip;
		s->len[s->n] = len;
		s->cls[s->n] = cls;
	}
	s->n++;
	return 0;
}

static const struct hwbpi_insn_arch *arm64(struct hwbpi_insn_dec **d)
{
	const struct hwbpi_insn_arch *a = hwbpi_insn_race_arch(HWBP_ARCH_ARM64);

	assert_non_null(a);
	/* (the tracer's table still says the hardware reports a hit) */
	assert_null(hwbpi_insn_arch(HWBP_ARCH_ARM64));
	assert_int_equal(a->open(d), 0);
	return a;
}

static void check_scan(const struct line *l, size_t n)
{
	struct hwbpi_insn_dec *d = NULL;
	const struct hwbpi_insn_arch *a = arm64(&d);
	uint8_t code[256];
	struct seen s = { .n = 0 };
	size_t len = to_bytes(l, n, code);
	unsigned count[HWBPI_INSN_NCLASS] = { 0 }, want[HWBPI_INSN_NCLASS] = { 0 };

	assert_int_equal(a->scan(d, code, len, START, each, &s), 0);
	assert_int_equal(s.n, n);
	for (size_t i = 0; i < n; i++) {
		if (s.ip[i] != START + 4 * i || s.len[i] != 4 || s.cls[i] != l[i].cls)
			fail_msg("%s: +%llu/%u class %u; want +%zu/4 class %u", l[i].text,
				 (unsigned long long)(s.ip[i] - START), s.len[i], s.cls[i], 4 * i,
				 l[i].cls);
		count[s.cls[i]]++;
		want[l[i].cls]++;
	}
	assert_memory_equal(count, want, sizeof(count));
	a->close(d);
}

static void test_scan_with_frame(void **state)
{
	(void)state;
	check_scan(with_frame, sizeof(with_frame) / sizeof(with_frame[0]));
}

static void test_scan_without_frame(void **state)
{
	(void)state;
	check_scan(without_frame, sizeof(without_frame) / sizeof(without_frame[0]));
}

struct pc_case {
	uint32_t w;
	const char *text;
	uint64_t addr, size;
	unsigned kind;
	bool atomic;
};

/* The registers before: X1 0x1000, W2 -1 (X2 0xffffffff), X3 0x3000,
 * X4 3, X5 0x5000, SP 0x7000. */
static const struct pc_case pc_cases[] = {
	{ 0xb862d820, "ldr w0, [x1, w2, sxtw #2]", 0x1000 - 4, 4, HWBP_R, false },
	{ 0xf8247865, "str x5, [x3, x4, lsl #3]", 0x3000 + 24, 8, HWBP_W, false },
	{ 0xa9401c66, "ldp x6, x7, [x3]", 0x3000, 16, HWBP_R, false },
	/* pre-index: the access at the updated base; post-index at the base */
	{ 0xa9810460, "stp x0, x1, [x3, #16]!", 0x3010, 16, HWBP_W, false },
	{ 0xb8404420, "ldr w0, [x1], #4", 0x1000, 4, HWBP_R, false },
	{ 0x39000cbf, "strb wzr, [x5, #3]", 0x5003, 1, HWBP_W, false },
	{ 0x798004a0, "ldrsh x0, [x5, #2]", 0x5002, 2, HWBP_R, false },
	{ 0xf94007e0, "ldr x0, [sp, #8]", 0x7008, 8, HWBP_R, false },
	/* before it runs, its base still holds the address */
	{ 0xf9400021, "ldr x1, [x1]", 0x1000, 8, HWBP_R, false },
	{ 0x8809fca8, "stlxr w9, w8, [x5]", 0x5000, 4, HWBP_W, true },
	{ 0xc8dffcaa, "ldar x10, [x5]", 0x5000, 8, HWBP_R, true },
	/* unknown to Capstone 4: from the encoding */
	{ 0xb8e000a1, "ldaddal w0, w1, [x5]", 0x5000, 4, RW, true },
	{ 0xc8e0fca1, "casal x0, x1, [x5]", 0x5000, 8, RW, true },
	{ 0x995fc0a0, "ldapur w0, [x5, #-4]", 0x5000 - 4, 4, HWBP_R, true },
	{ 0xb8bfc0ab, "ldapr w11, [x5]", 0x5000, 4, HWBP_R, true },
};

static void test_at_pc(void **state)
{
	struct hwbpi_insn_dec *d = NULL;
	const struct hwbpi_insn_arch *a = arm64(&d);
	struct hwbpi_insn_regs r;
	struct hwbpi_insn in;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.v[1] = 0x1000;
	r.v[2] = 0xffffffff;
	r.v[3] = 0x3000;
	r.v[4] = 3;
	r.v[5] = 0x5000;
	r.v[31] = 0x7000;
	r.known = 1u << 1 | 1u << 2 | 1u << 3 | 1u << 4 | 1u << 5 | UINT64_C(1) << 31;
	for (size_t i = 0; i < sizeof(pc_cases) / sizeof(pc_cases[0]); i++) {
		const struct pc_case *c = &pc_cases[i];
		uint8_t code[8];
		const struct line l[2] = { { c->w, 0, NULL }, { 0xd503201f, 0, NULL } };   /* nop */

		to_bytes(l, 2, code);
		if (a->at_pc(d, code, sizeof(code), START, &r, &in))
			fail_msg("%s: not decoded", c->text);
		if (in.ip != START || in.len != 4 || in.n != 1 || in.atomic != c->atomic)
			fail_msg("%s: '%s' %u bytes, %u accesses, atomic %d; want 4, 1, %d", c->text,
				 in.text, in.len, in.n, in.atomic, c->atomic);
		if (!in.acc[0].addr_known || in.acc[0].addr != c->addr || in.acc[0].size != c->size ||
		    in.acc[0].kind != c->kind)
			fail_msg("%s: 0x%llx/%llu kind %u; want 0x%llx/%llu kind %u", c->text,
				 (unsigned long long)in.acc[0].addr, (unsigned long long)in.acc[0].size,
				 in.acc[0].kind, (unsigned long long)c->addr,
				 (unsigned long long)c->size, c->kind);
	}
	/* no access: a prefetch, an undefined word */
	{
		static const uint8_t prfm[] = { 0x40, 0x00, 0x80, 0xf9 }, udf[] = { 0, 0, 0, 0 };

		assert_int_equal(a->at_pc(d, prfm, sizeof(prfm), START, &r, &in), 0);
		assert_int_equal(in.n, 0);
		assert_int_equal(a->at_pc(d, udf, sizeof(udf), START, &r, &in), -ENOENT);
	}
	a->close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_with_frame),
		cmocka_unit_test(test_scan_without_frame),
		cmocka_unit_test(test_at_pc),
	};

	if (!hwbpi_insn_available()) {
		printf("SKIP: built without Capstone: no decoder\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
