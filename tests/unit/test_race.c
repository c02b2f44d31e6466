/* SPDX-License-Identifier: MIT */
/*
 * The race detector's pure parts (tracer/race/race.h): which objects are
 * sampled (--only, --exclude, the executable by default), the candidate
 * instructions of their functions and the count of what was left out by
 * reason, the lookup of a trapped address, races deduplicated by their
 * pair of instructions, the seeded generator, the budget of traps and the
 * random pick.  The code walked is x86-64 this test wrote (the bytes GNU as
 * made of it, beside its text), placed in a symbol table built here, so
 * that every count is known; SKIP (77) without Capstone.
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

#include "race/race.h"

/* ---- objects -------------------------------------------------------- */

static void test_chosen(void **state)
{
	struct hwbpi_race_sel s = { .exe = "prog" };

	(void)state;
	assert_true(hwbpi_race_chosen(&s, "/tmp/x/prog"));
	assert_false(hwbpi_race_chosen(&s, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_false(hwbpi_race_chosen(&s, NULL));
	s.only[s.nonly++] = "libc.so.6";
	assert_true(hwbpi_race_chosen(&s, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_false(hwbpi_race_chosen(&s, "/tmp/x/prog"));   /* --only replaces the default */
	s.only[s.nonly++] = "/tmp/x/prog";                     /* a path given: its name counts */
	assert_true(hwbpi_race_chosen(&s, "/elsewhere/prog"));
	s.exclude[s.nexclude++] = "libc.so.6";                 /* --exclude wins */
	assert_false(hwbpi_race_chosen(&s, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_false(hwbpi_race_chosen(NULL, "prog"));
}

/* --only OBJ:GLOB and --exclude OBJ:GLOB: functions of an object. */
static void test_func_chosen(void **state)
{
	const char *only[] = { "prog:worker_*", "libq.so.1" };
	const char *excl[] = { "libq.so.1:q_debug*", "prog:worker_init" };
	struct hwbpi_race_sel s = { .exe = "/tmp/x/prog" };

	(void)state;
	/* no --only: the executable, every function */
	assert_true(hwbpi_race_func_chosen(&s, "/tmp/x/prog", "main"));
	s.only[0] = only[0];
	s.nonly = 1;
	assert_true(hwbpi_race_chosen(&s, "/tmp/x/prog"));
	assert_true(hwbpi_race_func_chosen(&s, "/tmp/x/prog", "worker_run"));
	assert_false(hwbpi_race_func_chosen(&s, "/tmp/x/prog", "main"));
	assert_false(hwbpi_race_chosen(&s, "/lib/libq.so.1"));
	s.only[1] = only[1];
	s.nonly = 2;
	assert_true(hwbpi_race_func_chosen(&s, "/lib/libq.so.1", "q_push"));
	/* an excluded pattern leaves its object chosen, its functions out */
	s.exclude[0] = excl[0];
	s.exclude[1] = excl[1];
	s.nexclude = 2;
	assert_true(hwbpi_race_chosen(&s, "/lib/libq.so.1"));
	assert_false(hwbpi_race_func_chosen(&s, "/lib/libq.so.1", "q_debug_dump"));
	assert_true(hwbpi_race_func_chosen(&s, "/lib/libq.so.1", "q_pop"));
	assert_false(hwbpi_race_func_chosen(&s, "/tmp/x/prog", "worker_init"));
	assert_true(hwbpi_race_func_chosen(&s, "/tmp/x/prog", "worker_loop"));
	/* a C++ function by its demangled name */
	s.only[0] = "prog:Queue::push*";
	assert_true(hwbpi_race_func_chosen(&s, "/tmp/x/prog", "_ZN5Queue4pushEi") ==
		    hwbpi_demangle_available());
	assert_false(hwbpi_race_func_chosen(&s, "/tmp/x/prog", "_ZN5Queue3popEv"));
}

/* ---- candidates ------------------------------------------------------- */

#define PROG 0x555500001000u
#define LIB 0x7f0000001000u

/* f1, with a frame: one instruction of each class (tests/unit/test_insn_scan.c). */
static const uint8_t f1[] = {
	0x55,                                           /* push rbp: stack */
	0x48, 0x89, 0xe5,                               /* mov rbp, rsp */
	0x89, 0x7d, 0xfc,                               /* mov dword ptr [rbp-4], edi: stack */
	0x8b, 0x05, 0x00, 0x01, 0x00, 0x00,             /* mov eax, [rip+0x100]: PLAIN +7 */
	0x83, 0x40, 0x08, 0x01,                         /* add dword ptr [rax+8], 1: PLAIN +13 */
	0xf0, 0x83, 0x05, 0x10, 0x00, 0x00, 0x00, 0x01, /* lock add [rip+0x10], 1: locked */
	0x87, 0x07,                                     /* xchg [rdi], eax: atomic */
	0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00, /* mov rax, fs:[0x28]: TLS */
	0xf3, 0x48, 0xab,                               /* rep stosq: string */
	0xff, 0x15, 0x20, 0x00, 0x00, 0x00,             /* call [rip+0x20]: branch */
	0xc5, 0xfe, 0x7f, 0x07,                         /* vmovdqu [rdi], ymm0: unwatchable */
	0x5d,                                           /* pop rbp: stack */
	0xc3,                                           /* ret: stack */
};
/* f2, no frame, then bytes that are no instruction (the walk is cut). */
static const uint8_t f2[] = {
	0x8b, 0x45, 0x08,       /* mov eax, [rbp+8]: PLAIN (RBP is general here) +0 */
	0x89, 0x44, 0x24, 0x04, /* mov [rsp+4], eax: stack */
	0xc3,                   /* ret */
	0xff, 0xff,             /* no instruction */
	0x8b, 0x06,             /* mov eax, [rsi]: never reached */
};
/* lib: one PLAIN access. */
static const uint8_t lf[] = { 0x8b, 0x06, 0xc3 };   /* mov eax, [rsi]; ret */

static int reader(void *arg, uint64_t addr, void *buf, size_t len)
{
	static const struct { uint64_t at; const uint8_t *b; size_t n; } code[] = {
		{ PROG, f1, sizeof(f1) }, { PROG + 0x100, f2, sizeof(f2) }, { LIB, lf, sizeof(lf) },
	};

	(void)arg;
	for (size_t i = 0; i < sizeof(code) / sizeof(code[0]); i++)
		if (addr >= code[i].at && addr + len <= code[i].at + code[i].n) {
			memcpy(buf, code[i].b + (addr - code[i].at), len);
			return 0;
		}
	return -EFAULT;
}

static struct hwbp_symtab *table(void)
{
	int err = 0;
	struct hwbp_symtab *t = hwbp_symtab_new(&err);

	assert_non_null(t);
	assert_int_equal(hwbpi_symtab_add_region(t, PROG - 0x1000, PROG + 0x1000, PROG - 0x1000,
						 "/tmp/x/prog"), 0);
	assert_int_equal(hwbpi_symtab_region_file(t, PROG - 0x1000, "/tmp/x/prog"), 0);
	assert_int_equal(hwbpi_symtab_add_region(t, LIB - 0x1000, LIB + 0x1000, LIB - 0x1000,
						 "/usr/lib/libfoo.so.1"), 0);
	assert_int_equal(hwbpi_symtab_region_file(t, LIB - 0x1000, "/usr/lib/libfoo.so.1"), 0);
	assert_int_equal(hwbp_symtab_add(t, "f1", PROG, sizeof(f1), 'T'), 0);
	assert_int_equal(hwbp_symtab_add(t, "f1_alias", PROG, sizeof(f1), 'T'), 0);   /* walked once */
	assert_int_equal(hwbp_symtab_add(t, "f2", PROG + 0x100, sizeof(f2), 't'), 0);
	assert_int_equal(hwbp_symtab_add(t, "asm_stub", PROG + 0x200, 0, 't'), 0);    /* no size */
	assert_int_equal(hwbp_symtab_add(t, "counter", PROG + 0x800, 4, 'B'), 0);
	assert_int_equal(hwbp_symtab_add(t, "lib_get", LIB, sizeof(lf), 'T'), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	return t;
}

static void walk(const struct hwbpi_race_sel *sel, struct hwbpi_race_cands *c)
{
	const struct hwbpi_insn_arch *a = hwbpi_insn_arch(HWBP_ARCH_X86);
	struct hwbp_symtab *t = table();
	struct hwbpi_insn_dec *d = NULL;

	assert_non_null(a);
	assert_int_equal(a->open(&d), 0);
	assert_int_equal(hwbpi_race_candidates(t, sel, a, d, reader, NULL, c), 0);
	a->close(d);
	hwbp_symtab_free(t);
}

static void test_candidates_exe(void **state)
{
	struct hwbpi_race_sel sel = { .exe = "prog" };
	struct hwbpi_race_cands c;

	(void)state;
	walk(&sel, &c);
	assert_int_equal(c.objects, 1);
	assert_string_equal(c.first_obj, "prog");
	assert_int_equal(c.functions, 2);
	assert_int_equal(c.unsized, 1);     /* asm_stub */
	assert_int_equal(c.cut, 1);         /* f2 stops at FF FF */
	assert_int_equal(c.n, 3);
	assert_true(c.ip[0] == PROG + 7 && c.ip[1] == PROG + 13 && c.ip[2] == PROG + 0x100);
	assert_int_equal(c.skipped[HWBPI_INSN_STACK], 6);   /* push, [rbp-4], pop, ret; f2: [rsp+4], ret */
	assert_int_equal(c.skipped[HWBPI_INSN_LOCKED], 1);
	assert_int_equal(c.skipped[HWBPI_INSN_ATOMIC], 1);
	assert_int_equal(c.skipped[HWBPI_INSN_TLS], 1);
	assert_int_equal(c.skipped[HWBPI_INSN_STRING], 1);
	assert_int_equal(c.skipped[HWBPI_INSN_BRANCH], 1);
	assert_int_equal(c.skipped[HWBPI_INSN_UNWATCHABLE], 1);
	assert_int_equal(c.skipped[HWBPI_INSN_NOMEM], 0);   /* not a reason */
	assert_non_null(c.state);
	assert_int_equal(hwbpi_race_cand_find(&c, PROG + 13), 1);
	assert_int_equal(hwbpi_race_cand_find(&c, PROG + 14), -1);
	assert_int_equal(hwbpi_race_cand_find(&c, 0), -1);
	hwbpi_race_cands_free(&c);
	hwbpi_race_cands_free(&c);   /* twice: nothing */
}

static void test_candidates_only_exclude(void **state)
{
	struct hwbpi_race_sel sel = { .exe = "prog", .only = { "libfoo.so.1" }, .nonly = 1 };
	struct hwbpi_race_cands c;

	(void)state;
	walk(&sel, &c);
	assert_int_equal(c.objects, 1);
	assert_string_equal(c.first_obj, "libfoo.so.1");
	assert_int_equal(c.n, 1);
	assert_true(c.ip[0] == LIB);
	hwbpi_race_cands_free(&c);
	sel.nonly = 0;
	sel.exclude[sel.nexclude++] = "prog";
	walk(&sel, &c);
	assert_int_equal(c.objects, 0);
	assert_int_equal(c.n, 0);
	hwbpi_race_cands_free(&c);
}

/* ---- pairs ------------------------------------------------------------ */

static struct hwbpi_race_pair obs(uint64_t a, uint64_t b, bool unseen)
{
	struct hwbpi_race_pair p;

	memset(&p, 0, sizeof(p));
	p.a.ip = a;
	p.b.ip = b;
	p.unseen = unseen;
	return p;
}

/* The linear forms a kernel module is given (hwbpi_race_linear()). */
static void test_linear(void **state)
{
	/* mov eax, [rbx + rcx*4 + 0x10]; add qword ptr [rip + 0x100], 1;
	 * mov [rdi], dl; mov rax, [rsi + rsi*2]; push rbx (no explicit access) */
	static const uint8_t l1[] = { 0x8b, 0x44, 0x8b, 0x10 };
	static const uint8_t l2[] = { 0x48, 0x83, 0x05, 0x00, 0x01, 0x00, 0x00, 0x01 };
	static const uint8_t l3[] = { 0x88, 0x17 };
	static const uint8_t l4[] = { 0x48, 0x8b, 0x04, 0x76 };
	static const uint8_t l5[] = { 0x53 };
	const struct hwbpi_insn_arch *a = hwbpi_insn_arch(HWBP_ARCH_X86);
	struct hwbpi_insn_dec *d = NULL;
	struct hwbpi_race_linear l;

	(void)state;
	assert_non_null(a);
	assert_int_equal(a->open(&d), 0);
	assert_int_equal(hwbpi_race_linear(a, d, l1, sizeof(l1), PROG, &l), 0);
	assert_true(l.disp == 0x10 && l.size == 4 && l.kind == HWBP_R);
	assert_true(l.reg[0] == 2 && l.coef[0] == 4 && l.reg[1] == 3 && l.coef[1] == 1);  /* RCX*4, RBX */
	assert_int_equal(hwbpi_race_linear(a, d, l2, sizeof(l2), PROG, &l), 0);
	assert_true(l.disp == PROG + sizeof(l2) + 0x100 && l.size == 8 && l.kind == (HWBP_R | HWBP_W));
	assert_true(l.reg[0] == -1 && l.reg[1] == -1);
	assert_int_equal(hwbpi_race_linear(a, d, l3, sizeof(l3), PROG, &l), 0);
	assert_true(l.disp == 0 && l.size == 1 && l.kind == HWBP_W && l.reg[0] == 5 && l.coef[0] == 1);
	assert_int_equal(hwbpi_race_linear(a, d, l4, sizeof(l4), PROG, &l), 0);
	assert_true(l.reg[0] == 4 && l.coef[0] == 3 && l.reg[1] == -1);   /* RSI + RSI*2 */
	assert_int_equal(hwbpi_race_linear(a, d, l5, sizeof(l5), PROG, &l), -ENOENT);
	assert_int_equal(hwbpi_race_linear(NULL, d, l1, sizeof(l1), PROG, &l), -EINVAL);
	a->close(d);
}

static void test_pairs(void **state)
{
	struct hwbpi_race_pairs t = { 0 };
	struct hwbpi_race_pair p;

	(void)state;
	p = obs(0x10, 0x20, false);
	assert_int_equal(hwbpi_race_pairs_add(&t, &p), 0);
	p = obs(0x20, 0x10, false);                    /* the other way round: the same race */
	assert_int_equal(hwbpi_race_pairs_add(&t, &p), 0);
	p = obs(0x10, 0x10, false);                    /* one instruction in two threads */
	assert_int_equal(hwbpi_race_pairs_add(&t, &p), 1);
	p = obs(0x10, 0, true);                        /* an unseen writer: apart */
	assert_int_equal(hwbpi_race_pairs_add(&t, &p), 2);
	p = obs(0x10, 0, true);
	assert_int_equal(hwbpi_race_pairs_add(&t, &p), 2);
	p = obs(0x30, 0x20, false);
	assert_int_equal(hwbpi_race_pairs_add(&t, &p), 3);
	assert_int_equal(t.n, 4);
	assert_int_equal(t.p[0].count, 2);
	assert_true(t.p[0].a.ip == 0x10 && t.p[0].b.ip == 0x20);   /* the first one's order */
	assert_int_equal(t.p[1].count, 1);
	assert_int_equal(t.p[2].count, 2);
	assert_int_equal(t.p[3].count, 1);
	for (int i = 0; i < 100; i++) {                /* growth keeps them */
		p = obs(0x1000 + (uint64_t)i, 0x2000, false);
		assert_int_equal(hwbpi_race_pairs_add(&t, &p), 4 + i);
	}
	assert_int_equal(t.p[0].count, 2);
	assert_int_equal(hwbpi_race_pairs_add(NULL, &p), -EINVAL);
	hwbpi_race_pairs_free(&t);
	assert_int_equal(t.n, 0);
}

/* ---- sampling ---------------------------------------------------------- */

static void test_rng(void **state)
{
	struct hwbpi_race_rng a, b;
	unsigned seen[7] = { 0 };

	(void)state;
	hwbpi_race_rng_seed(&a, 42);
	hwbpi_race_rng_seed(&b, 42);
	for (int i = 0; i < 1000; i++)
		assert_true(hwbpi_race_rand(&a) == hwbpi_race_rand(&b));   /* a seed repeats */
	for (int i = 0; i < 7000; i++) {
		uint64_t v = hwbpi_race_rand_below(&a, 7);

		assert_true(v < 7);
		seen[v]++;
	}
	for (int i = 0; i < 7; i++)
		assert_true(seen[i] > 800 && seen[i] < 1200);   /* about 1000 each */
	assert_true(hwbpi_race_rand_below(&a, 0) == 0);
	assert_true(hwbpi_race_rand_below(&a, 1) == 0);
}

#define SEC UINT64_C(1000000000)

static void test_budget(void **state)
{
	struct hwbpi_race_budget b;

	(void)state;
	hwbpi_race_budget_init(&b, 20000, 100 * SEC);   /* 20 a second */
	assert_int_equal(hwbpi_race_budget_wait(&b, 100 * SEC), 0);
	assert_int_equal(hwbpi_race_budget_take(&b, 100 * SEC, 5), 5);    /* at most @max */
	assert_int_equal(hwbpi_race_budget_take(&b, 100 * SEC, 100), 15);  /* the rest stayed */
	assert_int_equal(hwbpi_race_budget_take(&b, 100 * SEC, 100), 0);
	assert_true(hwbpi_race_budget_wait(&b, 100 * SEC) == SEC / 20);    /* 50 ms for the next */
	assert_int_equal(hwbpi_race_budget_take(&b, 100 * SEC + SEC / 20, 100), 1);
	assert_int_equal(hwbpi_race_budget_take(&b, 100 * SEC + SEC / 2, 100), 9);
	/* a long pause fills one second's worth, no more */
	assert_int_equal(hwbpi_race_budget_take(&b, 200 * SEC, 1000), 20);

	/* A rate under one a second (--rate 0.25): one trap at the start,
	 * the next 4 s later; the fills in between (a poll every 200 ms)
	 * lose no thousandth to rounding. */
	hwbpi_race_budget_init(&b, 250, 10 * SEC);
	assert_int_equal(hwbpi_race_budget_take(&b, 10 * SEC, 100), 1);
	assert_true(hwbpi_race_budget_wait(&b, 10 * SEC) == 4 * SEC);
	for (uint64_t t = 10 * SEC; t < 14 * SEC; t += SEC / 5 + 3)
		assert_int_equal(hwbpi_race_budget_take(&b, t, 100), 0);
	assert_true(hwbpi_race_budget_wait(&b, 14 * SEC - 1) == 1);
	assert_int_equal(hwbpi_race_budget_take(&b, 14 * SEC, 100), 1);
	/* the slowest, --rate 0.001: one trap each 1000 s */
	hwbpi_race_budget_init(&b, 1, 0);
	assert_int_equal(hwbpi_race_budget_take(&b, 0, 100), 1);
	for (uint64_t t = 0; t < 1000 * SEC; t += SEC / 5)
		assert_int_equal(hwbpi_race_budget_take(&b, t, 100), 0);
	assert_int_equal(hwbpi_race_budget_take(&b, 1000 * SEC, 100), 1);
}

static void test_pick(void **state)
{
	uint64_t ip[5] = { 1, 2, 3, 4, 5 };
	uint8_t st[5] = { 0 };
	struct hwbpi_race_cands c = { .ip = ip, .state = st, .n = 5 };
	struct hwbpi_race_rng r;
	unsigned hits[5] = { 0 };

	(void)state;
	hwbpi_race_rng_seed(&r, 7);
	for (int i = 0; i < 5000; i++) {
		long k = hwbpi_race_pick(&c, &r);

		assert_true(k >= 0 && k < 5);
		hits[k]++;
	}
	for (int i = 0; i < 5; i++)
		assert_true(hits[i] > 800);   /* every one, about equally */
	for (int i = 0; i < 5; i++)
		st[i] = HWBPI_RACE_TRAP_ON;
	assert_int_equal(hwbpi_race_pick(&c, &r), -1);
	st[3] = HWBPI_RACE_TRAP_EVER;   /* taken out since: free again */
	for (int i = 0; i < 20; i++)
		assert_int_equal(hwbpi_race_pick(&c, &r), 3);
	c.n = 0;
	assert_int_equal(hwbpi_race_pick(&c, &r), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chosen),
		cmocka_unit_test(test_func_chosen),
		cmocka_unit_test(test_candidates_exe),
		cmocka_unit_test(test_candidates_only_exclude),
		cmocka_unit_test(test_linear),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_pick),
	};

	if (!hwbpi_insn_available()) {
		printf("SKIP: built without Capstone: no decoder to walk the code\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
