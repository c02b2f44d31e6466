/* SPDX-License-Identifier: MIT */
/*
 * The instruction decoders (tracer/insn/insn.h, arch/<a>/insn.c): each
 * x86-64 case is an instruction this test wrote in assembly (its text,
 * and the bytes GNU as made of it), the registers after it executed, and
 * the accesses the assembly makes, worked out here from its semantics
 * (Intel SDM Vol. 2), not asked of the decoder.  Each runs after a few
 * other instructions, so that the instruction is found by decoding
 * forward from the boundary, as a backend does from a function's start.
 * On every host (Capstone decodes x86 anywhere); SKIP (77) in a build
 * without Capstone.
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

#define START UINT64_C(0x401000)
#define RW (HWBP_R | HWBP_W)

/* x86-64 DWARF numbers (psABI 3.6.2) */
enum { RAX = 0, RDX, RCX, RBX, RSI, RDI, RBP, RSP, RFLAGS = 49, FSBASE = 58 };

/* Before each case's own changes: registers the accesses are worked out
 * from. */
static void base_regs(struct hwbpi_insn_regs *r)
{
	memset(r, 0, sizeof(*r));
	r->v[RAX] = 0x5000;
	r->v[RBX] = 0x3000;
	r->v[RCX] = 2;
	r->v[RDX] = 0x4000;
	r->v[RSI] = 0x2000;
	r->v[RDI] = 0x1000;
	r->v[RBP] = 0x8000;
	r->v[RSP] = 0x7000;
	r->v[RFLAGS] = 0x202;          /* IF, DF clear */
	r->v[FSBASE] = 0x9000;
	for (int d = RAX; d <= RSP; d++)
		r->known |= UINT64_C(1) << d;
	r->known |= UINT64_C(1) << RFLAGS | UINT64_C(1) << FSBASE;
}

struct want {
	uint64_t addr, size;
	unsigned kind;
	bool known;
};

struct tcase {
	const char *text;              /* what this test wrote */
	uint8_t bytes[16];
	unsigned len;
	/* the registers after it: these change from base_regs() */
	struct { int d; uint64_t v; } after[3];
	unsigned nafter;
	bool at_start;                 /* a REP iteration: the IP is the instruction's own */
	unsigned n;
	struct want acc[3];
};

/* The address of the case's instruction: START + the prefix below. */
#define AT (START + 4)

static const struct tcase cases[] = {
	{ "mov al, byte ptr [rdi]", { 0x8a, 0x07 }, 2, { { RAX, 0x50aa } }, 1, false, 1,
	  { { 0x1000, 1, HWBP_R, true } } },
	{ "mov word ptr [rdi+2], ax", { 0x66, 0x89, 0x47, 0x02 }, 4, { { 0 } }, 0, false, 1,
	  { { 0x1002, 2, HWBP_W, true } } },
	{ "mov eax, dword ptr [rdi+rcx*4+8]", { 0x8b, 0x44, 0x8f, 0x08 }, 4, { { RAX, 7 } }, 1, false, 1,
	  { { 0x1000 + 2 * 4 + 8, 4, HWBP_R, true } } },
	/* RIP-relative: from the next instruction, AT + 7 */
	{ "mov qword ptr [rip+0x100], rbx", { 0x48, 0x89, 0x1d, 0x00, 0x01, 0x00, 0x00 }, 7, { { 0 } }, 0,
	  false, 1, { { AT + 7 + 0x100, 8, HWBP_W, true } } },
	{ "mov rax, qword ptr [rdi-16]", { 0x48, 0x8b, 0x47, 0xf0 }, 4, { { RAX, 1 } }, 1, false, 1,
	  { { 0x1000 - 16, 8, HWBP_R, true } } },
	{ "add dword ptr [rsi], eax", { 0x01, 0x06 }, 2, { { 0 } }, 0, false, 1,
	  { { 0x2000, 4, RW, true } } },
	{ "inc qword ptr [rbx+rcx*8]", { 0x48, 0xff, 0x04, 0xcb }, 4, { { 0 } }, 0, false, 1,
	  { { 0x3000 + 2 * 8, 8, RW, true } } },
	{ "xchg qword ptr [rdi], rax", { 0x48, 0x87, 0x07 }, 3, { { RAX, 9 } }, 1, false, 1,
	  { { 0x1000, 8, RW, true } } },
	/* always written back (SDM Vol. 2A CMPXCHG) */
	{ "lock cmpxchg dword ptr [rsi+4], ecx", { 0xf0, 0x0f, 0xb1, 0x4e, 0x04 }, 5, { { 0 } }, 0, false,
	  1, { { 0x2004, 4, RW, true } } },
	{ "push rax", { 0x50 }, 1, { { RSP, 0x7000 - 8 } }, 1, false, 1,
	  { { 0x7000 - 8, 8, HWBP_W, true } } },
	{ "pop rbx", { 0x5b }, 1, { { RSP, 0x7000 + 8 }, { RBX, 3 } }, 2, false, 1,
	  { { 0x7000, 8, HWBP_R, true } } },
	{ "push qword ptr [rdi]", { 0xff, 0x37 }, 2, { { RSP, 0x7000 - 8 } }, 1, false, 2,
	  { { 0x1000, 8, HWBP_R, true }, { 0x7000 - 8, 8, HWBP_W, true } } },
	{ "movsq", { 0x48, 0xa5 }, 2, { { RDI, 0x1008 }, { RSI, 0x2008 } }, 2, false, 2,
	  { { 0x1000, 8, HWBP_W, true }, { 0x2000, 8, HWBP_R, true } } },
	/* one iteration of two: RIP still on it, RCX 1 left */
	{ "rep movsb", { 0xf3, 0xa4 }, 2, { { RDI, 0x1001 }, { RSI, 0x2001 }, { RCX, 1 } }, 3, true, 2,
	  { { 0x1000, 1, HWBP_W, true }, { 0x2000, 1, HWBP_R, true } } },
	{ "stosd", { 0xab }, 1, { { RDI, 0x1004 } }, 1, false, 1,
	  { { 0x1000, 4, HWBP_W, true } } },
	/* backwards (RFLAGS.DF): the last iteration, RIP past it */
	{ "rep stosq (DF set)", { 0xf3, 0x48, 0xab }, 3, { { RDI, 0x1000 - 8 }, { RFLAGS, 0x602 }, { RCX, 0 } },
	  3, false, 1, { { 0x1000, 8, HWBP_W, true } } },
	{ "movdqu xmm0, xmmword ptr [rsi]", { 0xf3, 0x0f, 0x6f, 0x06 }, 4, { { 0 } }, 0, false, 1,
	  { { 0x2000, 16, HWBP_R, true } } },
	{ "movaps xmmword ptr [rdi+16], xmm1", { 0x0f, 0x29, 0x4f, 0x10 }, 4, { { 0 } }, 0, false, 1,
	  { { 0x1010, 16, HWBP_W, true } } },
	{ "vmovdqu ymm2, ymmword ptr [rdi]", { 0xc5, 0xfe, 0x6f, 0x17 }, 4, { { 0 } }, 0, false, 1,
	  { { 0x1000, 32, HWBP_R, true } } },
	{ "vmovdqu ymmword ptr [rsi+32], ymm3", { 0xc5, 0xfe, 0x7f, 0x5e, 0x20 }, 5, { { 0 } }, 0, false, 1,
	  { { 0x2020, 32, HWBP_W, true } } },
	/* its base is what it loaded: the address is gone from the registers */
	{ "mov rax, qword ptr [rax]", { 0x48, 0x8b, 0x00 }, 3, { { RAX, 0x1234 } }, 1, false, 1,
	  { { 0, 8, HWBP_R, false } } },
	{ "mov eax, dword ptr fs:[0x28]", { 0x64, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00 }, 8,
	  { { RAX, 5 } }, 1, false, 1, { { 0x9000 + 0x28, 4, HWBP_R, true } } },
	/* an address computed, no memory touched */
	{ "lea rax, [rdi+8]", { 0x48, 0x8d, 0x47, 0x08 }, 4, { { RAX, 0x1008 } }, 1, false, 0, { { 0 } } },
};

/* Before each case: nop; xchg ax, ax (a 2-byte nop); nop -- 4 bytes. */
static const uint8_t prefix[4] = { 0x90, 0x66, 0x90, 0x90 };

static void run_case(const struct hwbpi_insn_arch *a, struct hwbpi_insn_dec *d, const struct tcase *c)
{
	uint8_t code[64];
	struct hwbpi_insn_regs r;
	struct hwbpi_insn out[2];
	const struct hwbpi_insn *got = NULL;
	unsigned nout = 0;
	uint64_t ip = c->at_start ? AT : AT + c->len;
	int ret;

	memset(code, 0x90, sizeof(code));
	memcpy(code, prefix, sizeof(prefix));
	memcpy(code + sizeof(prefix), c->bytes, c->len);
	base_regs(&r);
	for (unsigned k = 0; k < c->nafter; k++)
		r.v[c->after[k].d] = c->after[k].v;
	ret = a->at_trap(d, code, sizeof(prefix) + c->len + 4, START, ip, &r, out, &nout);
	if (ret)
		fail_msg("%s: at_trap %d", c->text, ret);
	for (unsigned k = 0; k < nout; k++)
		if (out[k].ip == AT)
			got = &out[k];
	if (!got)
		fail_msg("%s: the instruction at 0x%llx not among %u found", c->text,
			 (unsigned long long)AT, nout);
	bool rep = strncmp(c->text, "rep ", 4) == 0;

	if (got->len != c->len || got->n != c->n || got->rep != rep)
		fail_msg("%s: decoded '%s', %u bytes, %u accesses, rep %d; want %u, %u, %d", c->text,
			 got->text, got->len, got->n, got->rep, c->len, c->n, rep);
	for (unsigned k = 0; k < c->n; k++) {
		const struct hwbpi_insn_access *g = &got->acc[k];
		const struct want *w = &c->acc[k];

		if (g->addr_known != w->known || (w->known && g->addr != w->addr) || g->size != w->size ||
		    g->kind != w->kind)
			fail_msg("%s ('%s'): access %u is %s0x%llx/%llu kind %u; want %s0x%llx/%llu kind %u",
				 c->text, got->text, k, g->addr_known ? "" : "unknown ",
				 (unsigned long long)g->addr, (unsigned long long)g->size, g->kind,
				 w->known ? "" : "unknown ", (unsigned long long)w->addr,
				 (unsigned long long)w->size, w->kind);
	}
}

static void test_x86_cases(void **state)
{
	const struct hwbpi_insn_arch *a = hwbpi_insn_arch(HWBP_ARCH_X86);
	struct hwbpi_insn_dec *d = NULL;

	(void)state;
	assert_non_null(a);
	assert_int_equal(a->open(&d), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(a, d, &cases[i]);
	a->close(d);
}

/* A REP iteration and the instruction before it both end where the PC
 * is: both are offered (the caller keeps the one whose access matches). */
static void test_x86_rep_and_before(void **state)
{
	const struct hwbpi_insn_arch *a = hwbpi_insn_arch(HWBP_ARCH_X86);
	/* mov qword ptr [rdx], rax; rep stosb */
	static const uint8_t code[] = { 0x48, 0x89, 0x02, 0xf3, 0xaa, 0x90 };
	struct hwbpi_insn_dec *d = NULL;
	struct hwbpi_insn_regs r;
	struct hwbpi_insn out[2];
	unsigned n = 0;

	(void)state;
	assert_int_equal(a->open(&d), 0);
	base_regs(&r);
	r.v[RDI] = 0x1001;
	assert_int_equal(a->at_trap(d, code, sizeof(code), START, START + 3, &r, out, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].ip, START);
	assert_int_equal(out[0].acc[0].addr, 0x4000);
	assert_int_equal(out[0].acc[0].kind, HWBP_W);
	assert_int_equal(out[1].ip, START + 3);
	assert_true(out[1].rep);
	assert_int_equal(out[1].acc[0].addr, 0x1000);
	a->close(d);
}

/* No instruction ends at the PC (inside one, or the boundary is not one
 * before it): -ENOENT; a PC outside the code: -EINVAL. */
static void test_x86_not_found(void **state)
{
	const struct hwbpi_insn_arch *a = hwbpi_insn_arch(HWBP_ARCH_X86);
	/* mov qword ptr [rip+0x100], rbx (7 bytes) */
	static const uint8_t code[] = { 0x48, 0x89, 0x1d, 0x00, 0x01, 0x00, 0x00 };
	struct hwbpi_insn_dec *d = NULL;
	struct hwbpi_insn_regs r;
	struct hwbpi_insn out[2];
	unsigned n = 0;

	(void)state;
	assert_int_equal(a->open(&d), 0);
	base_regs(&r);
	assert_int_equal(a->at_trap(d, code, sizeof(code), START, START + 3, &r, out, &n), -ENOENT);
	assert_int_equal(a->at_trap(d, code, sizeof(code), START, START + 64, &r, out, &n), -EINVAL);
	assert_int_equal(a->at_trap(d, code, sizeof(code), START, START - 1, &r, out, &n), -EINVAL);
	a->close(d);
}

/* arm64 and powerpc report the access (FAR, DAR): no decoder. */
static void test_reporting_arches(void **state)
{
	(void)state;
	assert_null(hwbpi_insn_arch(HWBP_ARCH_ARM64));
	assert_null(hwbpi_insn_arch(HWBP_ARCH_POWERPC));
	assert_null(hwbpi_insn_arch((enum hwbp_arch)99));
}

/*
 * The public decoder (hwbp/trace.h): the same answers through
 * hwbp_decoder_access(): the access touching the watched range (the REP
 * iteration's, not the store before it), else the only one; the errors.
 */
static void test_public_decoder(void **state)
{
	/* mov qword ptr [rdx], rax; rep stosb */
	static const uint8_t code[] = { 0x48, 0x89, 0x02, 0xf3, 0xaa, 0x90 };
	struct hwbp_decoder *d = NULL;
	struct hwbpi_insn_regs r;
	struct hwbp_access acc = { 0, 0, 0, 1 };

	(void)state;
	assert_int_equal(hwbp_decoder_open(HWBP_ARCH_ARM64, &d), -EOPNOTSUPP);
	assert_null(d);
	assert_int_equal(hwbp_decoder_open(HWBP_ARCH_X86, NULL), -EINVAL);
	assert_int_equal(hwbp_decoder_open(HWBP_ARCH_X86, &d), 0);
	base_regs(&r);
	r.v[RDI] = 0x1001;
	/* Watched 0x1000: the stosb iteration's byte. */
	assert_int_equal(hwbp_decoder_access(d, code, sizeof(code), START, START + 3, r.v, 64, r.known,
					     0x1000, 1, &acc), 0);
	assert_int_equal(acc.addr, 0x1000);
	assert_int_equal(acc.size, 1);
	assert_int_equal(acc.kind, HWBP_W);
	assert_int_equal(acc.priv, 1);   /* left as it was */
	/* Watched 0x4000: the store before it. */
	assert_int_equal(hwbp_decoder_access(d, code, sizeof(code), START, START + 3, r.v, 64, r.known,
					     0x4000, 8, &acc), 0);
	assert_int_equal(acc.addr, 0x4000);
	assert_int_equal(acc.size, 8);
	/* Any range (len 0) with two candidates: which one is not known. */
	assert_int_equal(hwbp_decoder_access(d, code, sizeof(code), START, START + 3, r.v, 64, r.known,
					     0, 0, &acc), -ENOENT);
	/* The store alone, a range it misses: its only access, to filter. */
	assert_int_equal(hwbp_decoder_access(d, code, 3, START, START + 3, r.v, 64, r.known, 0x9000,
					     1, &acc), 0);
	assert_int_equal(acc.addr, 0x4000);
	/* RDX not known: its address cannot be worked out. */
	assert_int_equal(hwbp_decoder_access(d, code, 3, START, START + 3, r.v, 64,
					     r.known & ~(UINT64_C(1) << 1), 0x4000, 8, &acc), -ENOENT);
	assert_int_equal(hwbp_decoder_access(d, code, sizeof(code), START, START + 64, r.v, 64,
					     r.known, 0, 0, &acc), -EINVAL);
	assert_int_equal(hwbp_decoder_access(d, code, sizeof(code), START, START + 3, r.v, 65,
					     r.known, 0, 0, &acc), -EINVAL);
	assert_int_equal(hwbp_decoder_access(NULL, code, sizeof(code), START, START + 3, r.v, 64,
					     r.known, 0, 0, &acc), -EINVAL);
	hwbp_decoder_close(d);
	hwbp_decoder_close(NULL);
}

/* The sample function answers what it says, at every instruction. */
static void test_public_sample(void **state)
{
	const struct hwbp_decoder_sample *smp;
	struct hwbp_decoder *d;
	struct hwbp_access acc;

	(void)state;
	assert_int_equal(hwbp_decoder_sample(HWBP_ARCH_ARM64, &smp), -EOPNOTSUPP);
	assert_int_equal(hwbp_decoder_sample(HWBP_ARCH_X86, NULL), -EINVAL);
	assert_int_equal(hwbp_decoder_sample(HWBP_ARCH_X86, &smp), 0);
	assert_true(smp->len >= (size_t)smp->count * smp->insn_len);
	assert_int_equal(hwbp_decoder_open(HWBP_ARCH_X86, &d), 0);
	for (unsigned k = 1; k <= smp->count; k++) {
		assert_int_equal(hwbp_decoder_access(d, smp->code, smp->len, smp->start,
						     smp->start + (uint64_t)k * smp->insn_len, smp->regs,
						     64, smp->known, 0, 0, &acc), 0);
		assert_int_equal(acc.addr, smp->addr);
		assert_int_equal(acc.size, smp->size);
		assert_int_equal(acc.kind, smp->kind);
	}
	/* Inside an instruction: none ends there. */
	assert_int_equal(hwbp_decoder_access(d, smp->code, smp->len, smp->start, smp->start + 2,
					     smp->regs, 64, smp->known, 0, 0, &acc), -ENOENT);
	hwbp_decoder_close(d);
}

int main(void)
{
	if (!hwbpi_insn_available()) {
		printf("SKIP: built without Capstone (-Ddecode=disabled, or no libcapstone-dev for "
		       "this target): nothing decodes\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_cases),
		cmocka_unit_test(test_x86_rep_and_before),
		cmocka_unit_test(test_x86_not_found),
		cmocka_unit_test(test_reporting_arches),
		cmocka_unit_test(test_public_decoder),
		cmocka_unit_test(test_public_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
