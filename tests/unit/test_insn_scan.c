/* SPDX-License-Identifier: MIT */
/*
 * The decoders' side for the race detector (tracer/insn/insn.h: scan,
 * at_pc and the atomic flag; arch/x86/insn.c): each x86-64 function below
 * is assembly this test wrote (its text beside its bytes, as GNU as made
 * them), and the class of each instruction is what the C11 memory model
 * and the SDM say of it, worked out here: a stack slot of its own frame,
 * a lock prefix, XCHG (always locked, SDM Vol. 2B), a thread-local
 * segment... not asked of the decoder.  On every host; SKIP (77) in a
 * build without Capstone.
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

enum { RAX = 0, RDX, RCX, RBX, RSI, RDI, RBP, RSP, RFLAGS = 49, FSBASE = 58 };

/* A function that keeps its frame in RBP, one instruction of each class. */
static const uint8_t with_frame[] = {
	0xf3, 0x0f, 0x1e, 0xfa,                         /* endbr64 */
	0x55,                                           /* push rbp */
	0x48, 0x89, 0xe5,                               /* mov rbp, rsp */
	0x89, 0x7d, 0xfc,                               /* mov dword ptr [rbp-4], edi */
	0x8b, 0x05, 0x00, 0x01, 0x00, 0x00,             /* mov eax, dword ptr [rip+0x100] */
	0x83, 0x40, 0x08, 0x01,                         /* add dword ptr [rax+8], 1 */
	0xf0, 0x83, 0x05, 0x10, 0x00, 0x00, 0x00, 0x01, /* lock add dword ptr [rip+0x10], 1 */
	0x87, 0x07,                                     /* xchg dword ptr [rdi], eax */
	0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00, /* mov rax, qword ptr fs:[0x28] */
	0xf3, 0x48, 0xab,                               /* rep stosq */
	0xff, 0x15, 0x20, 0x00, 0x00, 0x00,             /* call qword ptr [rip+0x20] */
	0xc5, 0xfe, 0x7f, 0x07,                         /* vmovdqu ymmword ptr [rdi], ymm0 */
	0x48, 0x8d, 0x05, 0x40, 0x00, 0x00, 0x00,       /* lea rax, [rip+0x40] */
	0x48, 0x89, 0x44, 0x24, 0x08,                   /* mov qword ptr [rsp+8], rax */
	0x0f, 0x18, 0x0f,                               /* prefetcht0 byte ptr [rdi] */
	0x5d,                                           /* pop rbp */
	0xc3,                                           /* ret */
};
static const struct { unsigned off, len, cls; } with_frame_want[] = {
	{ 0, 4, HWBPI_INSN_NOMEM }, { 4, 1, HWBPI_INSN_STACK }, { 5, 3, HWBPI_INSN_NOMEM },
	{ 8, 3, HWBPI_INSN_STACK }, { 11, 6, HWBPI_INSN_PLAIN }, { 17, 4, HWBPI_INSN_PLAIN },
	{ 21, 8, HWBPI_INSN_LOCKED }, { 29, 2, HWBPI_INSN_ATOMIC }, { 31, 9, HWBPI_INSN_TLS },
	{ 40, 3, HWBPI_INSN_STRING }, { 43, 6, HWBPI_INSN_BRANCH }, { 49, 4, HWBPI_INSN_UNWATCHABLE },
	{ 53, 7, HWBPI_INSN_NOMEM }, { 60, 5, HWBPI_INSN_STACK }, { 65, 3, HWBPI_INSN_NOMEM },
	{ 68, 1, HWBPI_INSN_STACK }, { 69, 1, HWBPI_INSN_STACK },
};

/* One without a frame (GCC's -O2): RBP is a general register there, so
 * [rbp+8] may be any object; then bytes that are no instruction
 * (FF FF: FF /7 is undefined), after which nothing may be given. */
static const uint8_t without_frame[] = {
	0x53,                   /* push rbx */
	0x8b, 0x45, 0x08,       /* mov eax, dword ptr [rbp+8] */
	0x89, 0x44, 0x24, 0x04, /* mov dword ptr [rsp+4], eax */
	0x5b,                   /* pop rbx */
	0xc3,                   /* ret */
	0xff, 0xff,             /* no instruction */
	0x8b, 0x06,             /* mov eax, dword ptr [rsi]: past the gap, never given */
};
static const struct { unsigned off, len, cls; } without_frame_want[] = {
	{ 0, 1, HWBPI_INSN_STACK }, { 1, 3, HWBPI_INSN_PLAIN }, { 4, 4, HWBPI_INSN_STACK },
	{ 8, 1, HWBPI_INSN_STACK }, { 9, 1, HWBPI_INSN_STACK },
};

struct seen {
	uint64_t ip[32];
	unsigned len[32], cls[32], n;
	unsigned stop_after;     /* 0: never stop */
};

static int each(void *arg, uint64_t ip, unsigned len, unsigned cls)
{
	struct seen *s = arg;

	if (s->n < 32) {
		s->ip[s->n] = ip;
		s->len[s->n] = len;
		s->cls[s->n] = cls;
	}
	s->n++;
	return s->stop_after && s->n == s->stop_after ? 42 : 0;
}

static const struct hwbpi_insn_arch *x86(struct hwbpi_insn_dec **d)
{
	const struct hwbpi_insn_arch *a = hwbpi_insn_arch(HWBP_ARCH_X86);

	assert_non_null(a);
	assert_non_null(a->scan);
	assert_non_null(a->at_pc);
	assert_int_equal(a->open(d), 0);
	return a;
}

static void test_scan_with_frame(void **state)
{
	struct hwbpi_insn_dec *d = NULL;
	const struct hwbpi_insn_arch *a = x86(&d);
	struct seen s = { .n = 0 };
	size_t nw = sizeof(with_frame_want) / sizeof(with_frame_want[0]);

	(void)state;
	assert_int_equal(a->scan(d, with_frame, sizeof(with_frame), START, each, &s), 0);
	assert_int_equal(s.n, nw);
	for (size_t i = 0; i < nw; i++)
		if (s.ip[i] != START + with_frame_want[i].off || s.len[i] != with_frame_want[i].len ||
		    s.cls[i] != with_frame_want[i].cls)
			fail_msg("instruction %zu: +%llu/%u class %u; want +%u/%u class %u", i,
				 (unsigned long long)(s.ip[i] - START), s.len[i], s.cls[i],
				 with_frame_want[i].off, with_frame_want[i].len, with_frame_want[i].cls);
	a->close(d);
}

static void test_scan_without_frame(void **state)
{
	struct hwbpi_insn_dec *d = NULL;
	const struct hwbpi_insn_arch *a = x86(&d);
	struct seen s = { .n = 0 };
	size_t nw = sizeof(without_frame_want) / sizeof(without_frame_want[0]);

	(void)state;
	assert_int_equal(a->scan(d, without_frame, sizeof(without_frame), START, each, &s), 0);
	assert_int_equal(s.n, nw);
	for (size_t i = 0; i < nw; i++)
		if (s.ip[i] != START + without_frame_want[i].off || s.cls[i] != without_frame_want[i].cls)
			fail_msg("instruction %zu: +%llu class %u; want +%u class %u", i,
				 (unsigned long long)(s.ip[i] - START), s.cls[i],
				 without_frame_want[i].off, without_frame_want[i].cls);
	a->close(d);
}

/* The callback's nonzero return stops the walk and is the result. */
static void test_scan_stops(void **state)
{
	struct hwbpi_insn_dec *d = NULL;
	const struct hwbpi_insn_arch *a = x86(&d);
	struct seen s = { .n = 0, .stop_after = 3 };

	(void)state;
	assert_int_equal(a->scan(d, with_frame, sizeof(with_frame), START, each, &s), 42);
	assert_int_equal(s.n, 3);
	assert_int_equal(a->scan(d, with_frame, sizeof(with_frame), START, NULL, &s), -EINVAL);
	a->close(d);
}

struct pc_case {
	const char *text;
	uint8_t bytes[8];
	unsigned len, n;
	uint64_t addr[2], size[2];
	unsigned kind[2];
	bool atomic;
};

/* The registers before: RAX 0x5000, RCX 2, RSI 0x2000, RDI 0x1000. */
static const struct pc_case pc_cases[] = {
	{ "mov dword ptr [rdi+rcx*4+8], eax", { 0x89, 0x44, 0x8f, 0x08 }, 4, 1,
	  { 0x1000 + 2 * 4 + 8 }, { 4 }, { HWBP_W }, false },
	/* before it runs, its base still holds the address (after: lost) */
	{ "mov rax, qword ptr [rax]", { 0x48, 0x8b, 0x00 }, 3, 1, { 0x5000 }, { 8 }, { HWBP_R }, false },
	{ "add dword ptr [rip+0x100], 1", { 0x83, 0x05, 0x00, 0x01, 0x00, 0x00, 0x01 }, 7, 1,
	  { START + 7 + 0x100 }, { 4 }, { RW }, false },
	{ "lock xadd dword ptr [rsi], eax", { 0xf0, 0x0f, 0xc1, 0x06 }, 4, 1, { 0x2000 }, { 4 }, { RW },
	  true },
	{ "xchg qword ptr [rdi], rax", { 0x48, 0x87, 0x07 }, 3, 1, { 0x1000 }, { 8 }, { RW }, true },
	{ "mov eax, dword ptr [rsi]", { 0x8b, 0x06 }, 2, 1, { 0x2000 }, { 4 }, { HWBP_R }, false },
	/* no lock prefix: not atomic, though always written back */
	{ "cmpxchg dword ptr [rsi], ecx", { 0x0f, 0xb1, 0x0e }, 3, 1, { 0x2000 }, { 4 }, { RW }, false },
	/* the string registers not yet moved */
	{ "movsq", { 0x48, 0xa5 }, 2, 2, { 0x1000, 0x2000 }, { 8, 8 }, { HWBP_W, HWBP_R }, false },
	/* its stack slot is not given */
	{ "push qword ptr [rdi]", { 0xff, 0x37 }, 2, 1, { 0x1000 }, { 8 }, { HWBP_R }, false },
};

static void test_at_pc(void **state)
{
	struct hwbpi_insn_dec *d = NULL;
	const struct hwbpi_insn_arch *a = x86(&d);
	struct hwbpi_insn_regs r;
	struct hwbpi_insn in;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.v[RAX] = 0x5000;
	r.v[RCX] = 2;
	r.v[RSI] = 0x2000;
	r.v[RDI] = 0x1000;
	r.v[RSP] = 0x7000;
	r.v[RFLAGS] = 0x202;
	r.known = 1u << RAX | 1u << RCX | 1u << RSI | 1u << RDI | 1u << RSP | UINT64_C(1) << RFLAGS;
	for (size_t i = 0; i < sizeof(pc_cases) / sizeof(pc_cases[0]); i++) {
		const struct pc_case *c = &pc_cases[i];
		uint8_t code[24];

		memset(code, 0x90, sizeof(code));
		memcpy(code, c->bytes, c->len);
		if (a->at_pc(d, code, sizeof(code), START, &r, &in))
			fail_msg("%s: not decoded", c->text);
		if (in.ip != START || in.len != c->len || in.n != c->n || in.atomic != c->atomic)
			fail_msg("%s: '%s' %u bytes, %u accesses, atomic %d; want %u, %u, %d", c->text,
				 in.text, in.len, in.n, in.atomic, c->len, c->n, c->atomic);
		for (unsigned k = 0; k < c->n; k++)
			if (!in.acc[k].addr_known || in.acc[k].addr != c->addr[k] ||
			    in.acc[k].size != c->size[k] || in.acc[k].kind != c->kind[k])
				fail_msg("%s: access %u 0x%llx/%llu kind %u; want 0x%llx/%llu kind %u",
					 c->text, k, (unsigned long long)in.acc[k].addr,
					 (unsigned long long)in.acc[k].size, in.acc[k].kind,
					 (unsigned long long)c->addr[k], (unsigned long long)c->size[k],
					 c->kind[k]);
	}
	{
		static const uint8_t bad[] = { 0xff, 0xff, 0x90, 0x90 };

		assert_int_equal(a->at_pc(d, bad, sizeof(bad), START, &r, &in), -ENOENT);
	}
	a->close(d);
}

/* at_trap marks an atomic trapping instruction too: the race detector
 * asks it of the other thread's access. */
static void test_at_trap_atomic(void **state)
{
	struct hwbpi_insn_dec *d = NULL;
	const struct hwbpi_insn_arch *a = x86(&d);
	/* mov eax, [rsi]; lock xadd [rsi], eax; nop... */
	static const uint8_t code[] = { 0x8b, 0x06, 0xf0, 0x0f, 0xc1, 0x06, 0x90, 0x90 };
	struct hwbpi_insn_regs r;
	struct hwbpi_insn out[2];
	unsigned n = 0;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.v[RSI] = 0x2000;
	r.known = 1u << RSI;
	assert_int_equal(a->at_trap(d, code, sizeof(code), START, START + 2, &r, out, &n), 0);
	assert_int_equal(n, 1);
	assert_false(out[0].atomic);
	assert_int_equal(a->at_trap(d, code, sizeof(code), START, START + 6, &r, out, &n), 0);
	assert_int_equal(n, 1);
	assert_true(out[0].atomic);
	a->close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_with_frame),
		cmocka_unit_test(test_scan_without_frame),
		cmocka_unit_test(test_scan_stops),
		cmocka_unit_test(test_at_pc),
		cmocka_unit_test(test_at_trap_atomic),
	};

	if (!hwbpi_insn_available()) {
		printf("SKIP: built without Capstone: no decoder\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
