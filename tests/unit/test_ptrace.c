/* SPDX-License-Identifier: MIT */
/*
 * The ptrace backend on this machine's real debug registers (Linux on
 * x86_64, or aarch64: in the guest of scripts/guest-tests): the traced
 * programs are functions of this binary run in forked children, with
 * exact access counts, the same on both.  Increments are one
 * read-modify-write instruction each, so one trap per increment: x86 ADD
 * to memory; arm64 LDADD (FEAT_LSE atomics, checked at start: with a
 * load/store pair an RW watch would see two accesses, and an LDXR/STXR
 * loop would never succeed under a watchpoint, the step's exception
 * clearing the exclusive monitor).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/linux/glue.h"
#include "backends/ptrace/ptrace.h"
#include "insn/insn.h"
#include "backends/perf/perf.h"

static volatile uint8_t v1 __attribute__((aligned(64)));
static volatile uint16_t v2 __attribute__((aligned(64)));
static volatile uint32_t v4 __attribute__((aligned(64)));
static volatile uint64_t v8 __attribute__((aligned(64)));
static volatile uint64_t sink;

#if defined(__x86_64__)
#define INC(var, sfx) __asm__ volatile("add" #sfx " $1, %0" : "+m"(var))
/* An execute watch covers one instruction byte on x86. */
#define XLEN 1
#elif defined(__aarch64__)
/* sfx as on x86: b, w (16), l (32), q (64) bits. */
#define A64_INSN_b "ldaddb %w2, %w0, %1"
#define A64_INSN_w "ldaddh %w2, %w0, %1"
#define A64_INSN_l "ldadd %w2, %w0, %1"
#define A64_INSN_q "ldadd %x2, %x0, %1"
#define INC(var, sfx)                                                              \
	do {                                                                       \
		uint64_t old_, one_ = 1;                                           \
		__asm__ volatile(".arch_extension lse\n\t" A64_INSN_##sfx           \
				 : "=&r"(old_), "+Q"(var) : "r"(one_) : "memory");  \
		(void)old_;                                                        \
	} while (0)
/* A breakpoint matches one 4-byte A64 instruction. */
#define XLEN 4
#else
#error "test_ptrace: x86_64 or aarch64"
#endif

/* 1000 increments (RMW: written, the value changes), 250 plain reads. */
static int prog_counter(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++)
		INC(v8, q);
	for (int i = 0; i < 250; i++)
		sink += v8;
	return 0;
}

/* Each length: 10, 20, 30, 40 increments of v1, v2, v4, v8. */
static int prog_lengths(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++)
		INC(v1, b);
	for (int i = 0; i < 20; i++)
		INC(v2, w);
	for (int i = 0; i < 30; i++)
		INC(v4, l);
	for (int i = 0; i < 40; i++)
		INC(v8, q);
	return 0;
}

static void *thread_body(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++)
		INC(v8, q);
	return NULL;
}

/* 3 threads, 100 writes each. */
static int prog_threads(void *arg)
{
	pthread_t th[3];

	(void)arg;
	for (int i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, thread_body, NULL))
			return 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/* 10 writes, a child that writes 100, then 10 more: 120 in all. */
static int prog_fork(void *arg)
{
	pid_t p;
	int st;

	(void)arg;
	for (int i = 0; i < 10; i++)
		INC(v8, q);
	p = fork();
	if (p == 0) {
		for (int i = 0; i < 100; i++)
			INC(v8, q);
		_exit(0);
	}
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
		return 1;
	for (int i = 0; i < 10; i++)
		INC(v8, q);
	return 0;
}

/* An execute watch: 50 calls. */
__attribute__((noinline)) static void callee(void)
{
	__asm__ volatile("" ::: "memory");
}

static int prog_calls(void *arg)
{
	void (*volatile f)(void) = callee;

	(void)arg;
	for (int i = 0; i < 50; i++)
		f();
	return 0;
}

/* Writes until killed, a little at a time. */
__attribute__((noreturn)) static void prog_forever(void)
{
	for (;;) {
		INC(v8, q);
		if (v8 % 64 == 0)
			usleep(100);
	}
}

static struct hwbpi_tracer *new_tracer(void)
{
	struct hwbpi_tracer *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	return t;
}

static void add_watch(struct hwbpi_tracer *t, const char *name, const volatile void *p,
		      uint64_t len, unsigned type)
{
	struct hwbpi_watch *w = &t->w[t->nw++];

	snprintf(w->name, sizeof(w->name), "%s", name);
	w->addr = (uint64_t)(uintptr_t)p;
	w->len = len;
	w->type = type;
	w->req = -1;
}

/* Hits of breakpoint @bp with @kind in the histogram. */
static uint64_t count(const struct hwbpi_tracer *t, unsigned bp, unsigned kind)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < t->hist.used[bp]; i++)
		if (t->hist.e[bp * t->hist.n + i].kind == kind)
			n += t->hist.e[bp * t->hist.n + i].count;
	return n;
}

/* Store-only twins for the next run_fn() (hwbpi_ptrace_set_kinds). */
static bool run_twins;
/* Decoded hits (hwbpi_ptrace_set_decode) for the next run_fn(). */
static bool run_decode;

/* Run @fn in a traced child; returns the trace's result. */
static int run_fn(struct hwbpi_tracer *t, int (*fn)(void *), char *err, size_t n)
{
	struct hwbpi_ptrace *s;
	int ret, st = -1;

	assert_int_equal(hwbpi_tracer_start(t, 1, false, 0, false), 0);
	ret = hwbpi_ptrace_start_fn(&s, fn, NULL, err, n);
	if (ret) {
		print_error("start: %s\n", err);
		return ret;
	}
	hwbpi_ptrace_set_kinds(s, run_twins, false);
	hwbpi_ptrace_set_decode(s, run_decode);
	ret = hwbpi_ptrace_trace(s, t, NULL, &st, err, n);
	hwbpi_ptrace_free(s);
	if (ret == 0) {
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	return ret;
}

static void test_selftest(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(hwbpi_ptrace_selftest(err, sizeof(err)), 0);
	/* Remembered. */
	assert_int_equal(hwbpi_ptrace_selftest(err, sizeof(err)), 0);
}

static void test_write_watch(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	char err[256] = "";

	(void)state;
	add_watch(t, "v8", &v8, 8, HWBP_W);
	assert_int_equal(run_fn(t, prog_counter, err, sizeof(err)), 0);
	assert_int_equal(t->hist.hits[0], 1000);
	assert_int_equal(count(t, 0, HWBP_W), 1000);
	hwbpi_tracer_fini(t);
	free(t);
}

static void test_rw_watch(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	char err[256] = "";

	(void)state;
	add_watch(t, "v8", &v8, 8, HWBP_RW);
	assert_int_equal(run_fn(t, prog_counter, err, sizeof(err)), 0);
	assert_int_equal(t->hist.hits[0], 1250);
	/* Writes change the value (W by value), reads leave it (unknown). */
	assert_int_equal(count(t, 0, HWBP_W), 1000);
	assert_int_equal(count(t, 0, 0), 250);
	hwbpi_tracer_fini(t);
	free(t);
}

/*
 * Kinds from a store-only twin's DR6 bit, where the CPU reports both
 * slots of a store (x86 on real CPUs; hwbpi_twins() says): the 1000
 * increments are W and the 250 loads R, both reported by the hardware.
 * Where it cannot (QEMU's TCG; arm64, which has no twin) the values
 * decide as in test_rw_watch.
 */
static void test_rw_twins(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	bool twins = hwbpi_twins(HWBPI_KINDS_AUTO);
	char err[256] = "";

	(void)state;
	add_watch(t, "v8", &v8, 8, HWBP_RW);
	run_twins = twins;
	assert_int_equal(run_fn(t, prog_counter, err, sizeof(err)), 0);
	run_twins = false;
	assert_int_equal(t->hist.hits[0], 1250);
	assert_int_equal(count(t, 0, HWBP_W), 1000);
	assert_int_equal(count(t, 0, twins ? HWBP_R : 0), 250);
	hwbpi_tracer_fini(t);
	free(t);
}

/*
 * A read watch.  x86 has no R: it is widened to RW, and the increments
 * (the value changed) are dropped as writes: 250 hits, 1000 filtered.
 * arm64 has R (LSC = load): an LDADD reads too, so it is a hit, like
 * the 250 loads: 1250 hits, every one R by type, none filtered.
 */
static void test_r_watch_filters_writes(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	struct hwbp_cpu cpu;
	char err[256] = "";
	bool native;

	(void)state;
	assert_int_equal(hwbpi_child_cpu(&cpu, err, sizeof(err)), 0);
	native = hwbp_type_supported(&cpu, HWBP_R);
	add_watch(t, "v8", &v8, 8, HWBP_R);
	assert_int_equal(run_fn(t, prog_counter, err, sizeof(err)), 0);
	if (native) {
		assert_int_equal(t->hist.hits[0], 1250);
		assert_int_equal(count(t, 0, HWBP_R), 1250);
		assert_int_equal(t->filtered, 0);
	} else {
		assert_int_equal(t->hist.hits[0], 250);
		assert_int_equal(count(t, 0, 0), 250);
		assert_int_equal(t->filtered, 1000);
	}
	hwbpi_tracer_fini(t);
	free(t);
}

/* Our own symbols (the forked child's are the same): the decoder finds
 * each hit's function there.  NULL without libelf. */
static struct hwbp_symtab *own_symbols(void)
{
	int ret;
	struct hwbp_symtab *syms = hwbp_symtab_new(&ret);

	assert_non_null(syms);
	if (hwbpi_proc_load_symbols(syms, getpid(), NULL) <= 0) {
		hwbp_symtab_free(syms);
		return NULL;
	}
	assert_int_equal(hwbp_symtab_finish(syms), 0);
	return syms;
}

/* Whether this build decodes this CPU's hits (x86 with Capstone). */
static bool decodes(void)
{
	struct hwbp_cpu cpu;
	char err[256];

	return hwbpi_child_cpu(&cpu, err, sizeof(err)) == 0 && hwbpi_insn_arch(cpu.arch) != NULL;
}

/*
 * Each hit's instruction decoded: the 1000 increments (ADD to memory, a
 * read-modify-write) are RW, the 250 loads R, with no twin: exact on any
 * x86 machine (QEMU's TCG too, where twins cannot pair).  Every hit
 * decoded.
 */
static void test_decoded_kinds(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	struct hwbp_symtab *syms = decodes() ? own_symbols() : NULL;
	char err[256] = "";

	(void)state;
	if (!(t->syms = syms)) {
		printf("SKIP: no decoder for this CPU's hits (arm64 reports them; a build without "
		       "Capstone or libelf)\n");
		free(t);
		skip();
	}
	add_watch(t, "v8", &v8, 8, HWBP_RW);
	run_decode = true;
	assert_int_equal(run_fn(t, prog_counter, err, sizeof(err)), 0);
	run_decode = false;
	assert_int_equal(t->hist.hits[0], 1250);
	assert_int_equal(count(t, 0, HWBP_R | HWBP_W), 1000);
	assert_int_equal(count(t, 0, HWBP_R), 250);
	t->syms = NULL;
	hwbp_symtab_free(syms);
	hwbpi_tracer_fini(t);
	free(t);
}

/*
 * Four read-only watches at once, decoded: each one's increments read
 * it too (ADD to memory: R|W & r-- = R), its plain reads are R, and a
 * plain write is dropped.  With twins only two could be exact (each
 * would need a second slot); here all four are, in four slots.
 */
static int prog_four_reads(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++) {
		v1 = (uint8_t)i;           /* a plain store: not a read */
		sink += v1;                /* a load */
	}
	for (int i = 0; i < 20; i++) {
		v2 = (uint16_t)i;
		sink += v2;
	}
	for (int i = 0; i < 30; i++) {
		v4 = (uint32_t)i;
		sink += v4;
	}
	for (int i = 0; i < 40; i++) {
		v8 = (uint64_t)i;
		sink += v8;
	}
	return 0;
}

static void test_decoded_four_reads(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	struct hwbp_symtab *syms = decodes() ? own_symbols() : NULL;
	char err[256] = "";

	(void)state;
	if (!(t->syms = syms)) {
		printf("SKIP: no decoder for this CPU's hits (arm64 reports them; a build without "
		       "Capstone or libelf)\n");
		free(t);
		skip();
	}
	add_watch(t, "v1", &v1, 1, HWBP_R);
	add_watch(t, "v2", &v2, 2, HWBP_R);
	add_watch(t, "v4", &v4, 4, HWBP_R);
	add_watch(t, "v8", &v8, 8, HWBP_R);
	run_decode = true;
	assert_int_equal(run_fn(t, prog_four_reads, err, sizeof(err)), 0);
	run_decode = false;
	for (unsigned w = 0; w < 4; w++) {
		assert_int_equal(t->hist.hits[w], 10 * (w + 1));
		assert_int_equal(count(t, w, HWBP_R), 10 * (w + 1));
	}
	/* the stores: filtered, not counted */
	assert_int_equal(t->filtered, 100);
	t->syms = NULL;
	hwbp_symtab_free(syms);
	hwbpi_tracer_fini(t);
	free(t);
}

/*
 * GDB's watchpoint-unaligned case: read watches on bytes 1 to 7 of one
 * doubleword, more than the four registers; they share one (x86: the
 * decoded access; arm64: FAR, as si_addr).  Byte i is read 2i times and
 * written once: each watch counts exactly its reads; the writes are not
 * reads (x86: trapped by the RW register, filtered; arm64: loads only are
 * watched), nor are the reads of byte 0, which nobody watches.
 */
static volatile uint8_t u8x[8] __attribute__((aligned(64)));

static int prog_seven_bytes(void *arg)
{
	(void)arg;
	for (int i = 1; i <= 7; i++) {
		for (int k = 0; k < 2 * i; k++)
			sink += u8x[i];
		u8x[i] = (uint8_t)i;
	}
	for (int k = 0; k < 5; k++)
		sink += u8x[0];
	return 0;
}

static void test_seven_bytes_shared(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	bool x86 = false;
	struct hwbp_symtab *syms = NULL;
	struct hwbp_cpu cpu;
	char err[256] = "", name[8];

	(void)state;
	if (hwbpi_child_cpu(&cpu, err, sizeof(err)) == 0)
		x86 = cpu.arch == HWBP_ARCH_X86;
	if (x86 && !(syms = decodes() ? own_symbols() : NULL)) {
		printf("SKIP: x86 shares registers only with decoded hits (a build without "
		       "Capstone or libelf)\n");
		free(t);
		skip();
	}
	t->syms = syms;
	for (int i = 1; i <= 7; i++) {
		snprintf(name, sizeof(name), "b%d", i);
		add_watch(t, name, &u8x[i], 1, HWBP_R);
	}
	run_decode = true;
	assert_int_equal(run_fn(t, prog_seven_bytes, err, sizeof(err)), 0);
	run_decode = false;
	for (unsigned w = 0; w < 7; w++) {
		if (t->hist.hits[w] != 2 * (w + 1) || count(t, w, HWBP_R) != 2 * (w + 1))
			fail_msg("b%u: %llu hits, %llu reads, %llu writes, %llu rw (want %u reads)",
				 w + 1, (unsigned long long)t->hist.hits[w],
				 (unsigned long long)count(t, w, HWBP_R),
				 (unsigned long long)count(t, w, HWBP_W),
				 (unsigned long long)count(t, w, HWBP_RW), 2 * (w + 1));
	}
	/* x86: the 7 stores and the 5 reads of byte 0 trapped, filtered. */
	assert_int_equal(t->filtered, x86 ? 12 : 0);
	printf("7 one-byte read watches, %s: every hit its own watch's\n",
	       x86 ? "one debug register, decoded" : "shared by FAR");
	t->syms = NULL;
	hwbp_symtab_free(syms);
	hwbpi_tracer_fini(t);
	free(t);
}

/* Lengths 1/2/4/8, all four debug registers at once. */
static void test_four_slots_lengths(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	char err[256] = "";

	(void)state;
	add_watch(t, "v1", &v1, 1, HWBP_W);
	add_watch(t, "v2", &v2, 2, HWBP_W);
	add_watch(t, "v4", &v4, 4, HWBP_RW);
	add_watch(t, "v8", &v8, 8, HWBP_W);
	assert_int_equal(run_fn(t, prog_lengths, err, sizeof(err)), 0);
	assert_int_equal(t->hist.hits[0], 10);
	assert_int_equal(t->hist.hits[1], 20);
	assert_int_equal(t->hist.hits[2], 30);
	assert_int_equal(count(t, 2, HWBP_W), 30);
	assert_int_equal(t->hist.hits[3], 40);
	hwbpi_tracer_fini(t);
	free(t);
}

static volatile uint64_t many[HWBP_MAX_SLOTS + 1] __attribute__((aligned(64)));

/* One watch more than the kernel's slots (x86: 4 shared; arm64: the
 * watchpoints Linux reports): -ENOSPC naming the last one. */
static void test_fifth_watch_enospc(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	struct hwbpi_ptrace *s;
	struct hwbp_cpu cpu;
	struct hwbp_caps caps;
	char err[256] = "", want[96];
	int st = -1;

	(void)state;
	assert_int_equal(hwbpi_ptrace_start_fn(&s, prog_lengths, NULL, err, sizeof(err)), 0);
	assert_int_equal(hwbpi_ptrace_cpu(s, &cpu), 0);
	assert_int_equal(hwbp_caps_get(&cpu, &caps), 0);
	assert_true(caps.data_slots >= 2 && caps.data_slots <= HWBP_MAX_SLOTS);
	for (unsigned i = 0; i <= caps.data_slots; i++) {
		char name[16];

		snprintf(name, sizeof(name), "many%u", i);
		add_watch(t, name, &many[i], 8, HWBP_W);
	}
	assert_int_equal(hwbpi_tracer_start(t, 1, false, 0, false), 0);
	assert_int_equal(hwbpi_ptrace_trace(s, t, NULL, &st, err, sizeof(err)), -ENOSPC);
	hwbpi_ptrace_free(s);
	snprintf(want, sizeof(want), "many%u: no free debug register: %u of %u in use",
		 caps.data_slots, caps.data_slots, caps.data_slots);
	assert_non_null(strstr(err, want));
	print_message("%s\n", err);
	hwbpi_tracer_fini(t);
	free(t);
}

/* 64 bytes: x86 would need 8 debug registers (-ERANGE); arm64 one MASK
 * block, which Linux cannot set for a task's breakpoint (-EOPNOTSUPP, not watched
 * wrongly). */
static void test_large_watch(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	struct hwbp_cpu cpu;
	char err[256] = "";
	bool arm64;

	(void)state;
	assert_int_equal(hwbpi_child_cpu(&cpu, err, sizeof(err)), 0);
	arm64 = cpu.arch == HWBP_ARCH_ARM64;
	add_watch(t, "many", &many[0], 64, HWBP_W);
	assert_int_equal(run_fn(t, prog_lengths, err, sizeof(err)), arm64 ? -EOPNOTSUPP : -ERANGE);
	assert_non_null(strstr(err, arm64 ? "many: a 64-byte block needs DBGWCR.MASK" :
			       "many: ERANGE (larger than this CPU can watch)"));
	hwbpi_tracer_fini(t);
	free(t);
}

/* The kernel's model, without and with a session: the same. */
static void test_native_cpu(void **state)
{
	struct hwbpi_ptrace *s;
	struct hwbp_cpu a, b;
	struct hwbp_caps ca, cb;
	char err[256] = "";

	(void)state;
	assert_int_equal(hwbpi_child_cpu(NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbpi_child_cpu(&a, err, sizeof(err)), 0);
	assert_int_equal(hwbpi_ptrace_start_fn(&s, prog_lengths, NULL, err, sizeof(err)), 0);
	assert_int_equal(hwbpi_ptrace_cpu(s, &b), 0);
	assert_int_equal(hwbpi_ptrace_cpu(NULL, &b), -EINVAL);
	hwbpi_ptrace_free(s);
	assert_int_equal(a.arch, b.arch);
	assert_string_equal(a.name, b.name);
	assert_int_equal(hwbp_caps_get(&a, &ca), 0);
	assert_int_equal(hwbp_caps_get(&b, &cb), 0);
	assert_int_equal(ca.data_slots, cb.data_slots);
	assert_int_equal(ca.inst_slots, cb.inst_slots);
	/* This machine's arch: x86_64 (4 shared), arm64 (at least 2 each). */
#if defined(__x86_64__)
	assert_int_equal(a.arch, HWBP_ARCH_X86);
	assert_int_equal(ca.data_slots, 4);
	assert_true(ca.shared);
#else
	assert_int_equal(a.arch, HWBP_ARCH_ARM64);
	assert_true(ca.data_slots >= 2 && ca.inst_slots >= 2);
	assert_false(ca.shared);
#endif
	print_message("%s: %u data, %u instruction slots\n", a.name, ca.data_slots, ca.inst_slots);
}

/* A model the kernel cannot program: refused with one line. */
static void test_foreign_cpu(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	struct hwbpi_ptrace *s;
	struct hwbp_cpu cpu, other;
	char err[256] = "";

	(void)state;
	add_watch(t, "v8", &v8, 8, HWBP_W);
	assert_int_equal(hwbpi_tracer_start(t, 1, false, 0, false), 0);
	assert_int_equal(hwbpi_ptrace_start_fn(&s, prog_lengths, NULL, err, sizeof(err)), 0);
	assert_int_equal(hwbpi_ptrace_cpu(s, &cpu), 0);
	assert_int_equal(hwbp_cpu_preset(cpu.arch == HWBP_ARCH_X86 ? "power9" : "x86_64", &other),
			 0);
	assert_int_equal(hwbpi_ptrace_trace(s, t, &other, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs a CPU model this kernel can program"));
	hwbpi_ptrace_free(s);
	hwbpi_tracer_fini(t);
	free(t);
}

static void test_threads(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	char err[256] = "";

	(void)state;
	add_watch(t, "v8", &v8, 8, HWBP_W);
	assert_int_equal(run_fn(t, prog_threads, err, sizeof(err)), 0);
	assert_int_equal(t->hist.hits[0], 300);
	assert_int_equal(count(t, 0, HWBP_W), 300);
	hwbpi_tracer_fini(t);
	free(t);
}

/* The watches follow into a forked child (armed by the tracer). */
static void test_fork(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	char err[256] = "";

	(void)state;
	add_watch(t, "v8", &v8, 8, HWBP_RW);
	assert_int_equal(run_fn(t, prog_fork, err, sizeof(err)), 0);
	assert_int_equal(t->hist.hits[0], 120);
	assert_int_equal(count(t, 0, HWBP_W), 120);
	hwbpi_tracer_fini(t);
	free(t);
}

/* A running process: it waits for a byte, then writes 500 times. */
static void test_attach(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	struct hwbpi_ptrace *s;
	char err[256] = "", c = 'x';
	int pfd[2], st = -1;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(2);
		for (int i = 0; i < 500; i++)
			INC(v8, q);
		_exit(0);
	}
	close(pfd[0]);
	add_watch(t, "v8", &v8, 8, HWBP_W);
	assert_int_equal(hwbpi_tracer_start(t, 1, false, 0, false), 0);
	assert_int_equal(hwbpi_ptrace_attach(&s, pid, err, sizeof(err)), 0);
	assert_int_equal(hwbpi_ptrace_pid(s), pid);
	assert_int_equal(write(pfd[1], &c, 1), 1);
	close(pfd[1]);
	assert_int_equal(hwbpi_ptrace_trace(s, t, NULL, &st, err, sizeof(err)), 0);
	hwbpi_ptrace_free(s);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(t->hist.hits[0], 500);
	hwbpi_tracer_fini(t);
	free(t);
}

static void test_attach_errors(void **state)
{
	struct hwbpi_ptrace *s = (void *)1;
	char err[256] = "";

	(void)state;
	/* A pid that cannot exist (above pid_max's hard limit 2^22). */
	assert_int_equal(hwbpi_ptrace_attach(&s, 1 << 23, err, sizeof(err)), -ESRCH);
	assert_null(s);
	assert_non_null(strstr(err, "no process"));
}

static uint64_t self_bias(void)
{
	uint64_t b = 0;

	assert_int_equal(hwbpi_proc_load_bias(getpid(), NULL, &b), 0);
	return b;
}

static bool maps_libc(void)
{
	char line[4300];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, "/libc.so") != NULL || strstr(line, "/libc-") != NULL;
	fclose(f);
	return found;
}

/* start(argv): a real program, stopped at its entry point with its
 * libraries mapped; its symbols with the PIE load bias. */
static void test_start_exec_symbols(void **state)
{
	char *const argv[] = { "/proc/self/exe", "--child-exit", NULL };
	char *const bad[] = { "/nonexistent/hwbp-no-such-program", NULL };
	struct hwbpi_ptrace *s;
	struct hwbp_symtab *syms;
	char err[256] = "";
	uint64_t bias = 1;
	int ret, st = -1;

	(void)state;
	assert_int_equal(hwbpi_ptrace_start(&s, bad, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot run /nonexistent/hwbp-no-such-program"));
	assert_int_equal(hwbpi_ptrace_start(&s, argv, err, sizeof(err)), 0);
	assert_int_equal(hwbpi_proc_load_bias(hwbpi_ptrace_pid(s), NULL, &bias), 0);
	syms = hwbp_symtab_new(&ret);
	assert_non_null(syms);
	ret = hwbpi_proc_load_symbols(syms, hwbpi_ptrace_pid(s), NULL);
	assert_true(ret > 0 || ret == -EOPNOTSUPP);
	if (ret > 0) {
		const struct hwbp_sym *m;

		assert_int_equal(hwbp_symtab_finish(syms), 0);
		m = hwbp_symtab_find(syms, "prog_counter");
		assert_non_null(m);
		assert_int_equal(m->addr - bias, (uint64_t)(uintptr_t)prog_counter - self_bias());
		/* A dynamic build: libc is mapped at the entry point
		 * (DT_NEEDED), its symbols loaded too. */
		if (maps_libc()) {
			m = hwbp_symtab_find(syms, "malloc");
			assert_non_null(m);
		}
	}
	hwbp_symtab_free(syms);
	/* Tracing it with a watch it never touches: 0 hits, exit 0. */
	{
		struct hwbpi_tracer *t = new_tracer();

		add_watch(t, "v8", &v8, 8, HWBP_W);
		assert_int_equal(hwbpi_tracer_start(t, 1, false, 0, false), 0);
		assert_int_equal(hwbpi_ptrace_trace(s, t, NULL, &st, err, sizeof(err)), 0);
		assert_true(WIFEXITED(st));
		assert_int_equal(t->hits, 0);
		hwbpi_tracer_fini(t);
		free(t);
	}
	hwbpi_ptrace_free(s);
}

/* This test binary's own bias: /proc/self/maps against its ELF. */
static void test_load_bias_self(void **state)
{
	uint64_t bias = 1;

	(void)state;
	assert_int_equal(hwbpi_proc_load_bias(getpid(), "/proc/self/exe", &bias), 0);
	/* &main - bias is the link-time address: inside the file's range. */
	assert_true(bias % 4096 == 0);
	assert_int_equal(hwbpi_proc_load_bias(getpid(), "/nonexistent", &bias), -ENOENT);
	assert_int_equal(hwbpi_proc_load_bias(getpid(), "/proc/self/maps", &bias), -EINVAL);
}

static void test_exec_watch(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	char err[256] = "";

	(void)state;
	add_watch(t, "callee", (const volatile void *)(uintptr_t)callee, XLEN, HWBP_X);
	assert_int_equal(run_fn(t, prog_calls, err, sizeof(err)), 0);
	assert_int_equal(t->hist.hits[0], 50);
	assert_int_equal(count(t, 0, HWBP_X), 50);
	hwbpi_tracer_fini(t);
	free(t);
}

/*
 * The whole -- CMD flow: this binary run again (argv[1] "--child-counter":
 * prog_counter), stopped at its entry point; v8 found in its symbols with
 * the PIE load bias; 1000 writes seen.
 */
static void test_exec_flow_symbols(void **state)
{
	char *const argv[] = { "/proc/self/exe", "--child-counter", NULL };
	struct hwbpi_tracer *t = new_tracer();
	struct hwbpi_ptrace *s;
	struct hwbp_symtab *syms;
	const struct hwbp_sym *v;
	char err[256] = "", self[4096];
	uint64_t bias = 0, mybias = 0;
	int ret, st = -1;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	assert_true(n > 0);
	self[n] = '\0';
	assert_int_equal(hwbpi_ptrace_start(&s, argv, err, sizeof(err)), 0);
	/* The child's bias of this file (ASLR: not ours). */
	assert_int_equal(hwbpi_proc_load_bias(hwbpi_ptrace_pid(s), self, &bias), 0);
	assert_int_equal(hwbpi_proc_load_bias(getpid(), self, &mybias), 0);
	syms = hwbp_symtab_new(&ret);
	assert_non_null(syms);
	ret = hwbpi_proc_load_symbols(syms, hwbpi_ptrace_pid(s), NULL);
	if (ret == -EOPNOTSUPP) {   /* built without libelf: by hand */
		hwbp_symtab_add(syms, "v8", (uint64_t)(uintptr_t)&v8 - mybias + bias, 8, 'b');
		ret = 1;
	}
	assert_true(ret > 0);
	assert_int_equal(hwbp_symtab_finish(syms), 0);
	v = hwbp_symtab_find(syms, "v8");
	assert_non_null(v);
	/* Same link-time address in both processes. */
	assert_int_equal(v->addr - bias, (uint64_t)(uintptr_t)&v8 - mybias);
	add_watch(t, "v8", (const volatile void *)(uintptr_t)v->addr, 8, HWBP_RW);
	t->syms = syms;
	assert_int_equal(hwbpi_tracer_start(t, 1, false, 0, false), 0);
	assert_int_equal(hwbpi_ptrace_trace(s, t, NULL, &st, err, sizeof(err)), 0);
	hwbpi_ptrace_free(s);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(t->hist.hits[0], 1250);
	assert_int_equal(count(t, 0, HWBP_W), 1000);
	/* By function: the hits' IPs are inside prog_counter. */
	{
		const struct hwbp_sym *f = hwbp_symtab_find(syms, "prog_counter");

		if (f) {
			assert_int_equal(t->hist.used[0], 2);
			for (unsigned i = 0; i < 2; i++)
				assert_int_equal(t->hist.e[i].func, f->addr);
		}
	}
	hwbpi_tracer_fini(t);
	hwbp_symtab_free(syms);
	free(t);
}

static int gate[2];

static void *gated_body(void *arg)
{
	char c;

	(void)arg;
	if (read(gate[0], &c, 1) != 1)
		return NULL;
	for (int i = 0; i < 100; i++)
		INC(v8, q);
	return NULL;
}

/* Attach to a running process of 4 threads (3 blocked in read until
 * attached): each thread is seized, 300 writes. */
static void test_attach_threads(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	struct hwbpi_ptrace *s;
	char err[256] = "", c[3] = "abc";
	int st = -1, ready[2];
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(gate), 0);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pthread_t th[3];

		for (int i = 0; i < 3; i++)
			if (pthread_create(&th[i], NULL, gated_body, NULL))
				_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		for (int i = 0; i < 3; i++)
			pthread_join(th[i], NULL);
		_exit(0);
	}
	close(gate[0]);
	assert_int_equal(read(ready[0], c, 1), 1);
	add_watch(t, "v8", &v8, 8, HWBP_W);
	assert_int_equal(hwbpi_tracer_start(t, 1, false, 0, false), 0);
	assert_int_equal(hwbpi_ptrace_attach(&s, pid, err, sizeof(err)), 0);
	assert_int_equal(write(gate[1], c, 3), 3);
	close(gate[1]);
	assert_int_equal(hwbpi_ptrace_trace(s, t, NULL, &st, err, sizeof(err)), 0);
	hwbpi_ptrace_free(s);
	close(ready[0]);
	close(ready[1]);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(t->hist.hits[0], 300);
	hwbpi_tracer_fini(t);
	free(t);
}

/* A process another tracer holds: -EPERM, one line saying who. */
static void test_attach_eperm(void **state)
{
	struct hwbpi_ptrace *s = NULL;
	char err[256] = "", want[96], c;
	int ready[2], st;
	pid_t target, holder;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	target = fork();
	assert_true(target >= 0);
	if (target == 0) {
		for (;;)
			pause();
	}
	holder = fork();
	assert_true(holder >= 0);
	if (holder == 0) {
		if (ptrace(PTRACE_SEIZE, target, NULL, NULL) || write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(hwbpi_ptrace_attach(&s, target, err, sizeof(err)), -EPERM);
	assert_null(s);
	snprintf(want, sizeof(want), "process %d is already traced by process %d", (int)target,
		 (int)holder);
	assert_non_null(strstr(err, want));
	assert_null(strchr(err, '\n'));
	kill(holder, SIGKILL);
	waitpid(holder, &st, 0);
	kill(target, SIGKILL);
	waitpid(target, &st, 0);
	close(ready[0]);
	close(ready[1]);
}

static void on_alarm(int sig)
{
	(void)sig;
	hwbpi_ptrace_request_stop(0);
}

/* A stop request while attached: detached, the process runs on. */
static void test_attach_stop(void **state)
{
	struct hwbpi_tracer *t = new_tracer();
	struct hwbpi_ptrace *s;
	struct sigaction sa, old;
	struct hwbp_cpu cpu;
	struct hwbp_regs regs;
	struct hwbp_piece pc = { 0 };
	char err[256] = "";
	int st = -1;
	pid_t pid;

	(void)state;
	pc.addr = pc.cover_lo = (uint64_t)(uintptr_t)&v8;
	pc.len = pc.cover_len = 8;
	pc.type = HWBP_W;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		prog_forever();
	add_watch(t, "v8", &v8, 8, HWBP_W);
	assert_int_equal(hwbpi_tracer_start(t, 1, false, 0, false), 0);
	assert_int_equal(hwbpi_ptrace_attach(&s, pid, err, sizeof(err)), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;   /* no SA_RESTART: waitpid returns EINTR */
	sigaction(SIGALRM, &sa, &old);
	alarm(1);
	assert_int_equal(hwbpi_ptrace_trace(s, t, NULL, &st, err, sizeof(err)), 0);
	assert_int_equal(hwbpi_ptrace_armed_left(s), 0);
	assert_int_equal(hwbpi_ptrace_cpu(s, &cpu), 0);
	hwbpi_ptrace_free(s);
	sigaction(SIGALRM, &old, NULL);
	assert_true(t->hist.hits[0] > 10);
	/* Still running, untraced: it can be killed and reaped normally. */
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
	/* Its debug registers as the kernel keeps them: none enabled (read
	 * by a tracer of our own; the read-back itself is checked on a
	 * slot written here). */
	assert_int_equal(ptrace(PTRACE_SEIZE, pid, NULL, NULL), 0);
	assert_int_equal(ptrace(PTRACE_INTERRUPT, pid, NULL, NULL), 0);
	assert_int_equal(waitpid(pid, &st, __WALL), pid);
	assert_true(WIFSTOPPED(st));
	assert_int_equal(hwbpi_linux_armed(pid, &cpu), 0);
	hwbp_regs_reset(&cpu, &regs);
	assert_int_equal(hwbp_encode_piece(&cpu, &regs, 0, false, &pc, HWBP_SCOPE_USER, true), 0);
	assert_int_equal(hwbpi_linux_write(pid, &cpu, &regs), 0);
	assert_int_equal(hwbpi_linux_armed(pid, &cpu), 1);
	hwbp_regs_reset(&cpu, &regs);
	assert_int_equal(hwbpi_linux_write(pid, &cpu, &regs), 0);
	assert_int_equal(hwbpi_linux_armed(pid, &cpu), 0);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	hwbpi_tracer_fini(t);
	free(t);
}

/*
 * After each test, whether it passed or not: every process it left behind
 * killed and reaped.  A failed assertion leaves its test at once, before
 * its own kill() and waitpid(): a child traced and stopped, or one that
 * loops for ever, would then outlive this program and hold meson's pipe
 * open until the suite's timeout (seen on a host whose debug registers do
 * not fire: every test failed in 2 s, and meson waited 300 s).  main()
 * makes this process a subreaper, so that grandchildren (a traced
 * program's own children) come back to it when their parent dies.
 */
static unsigned kill_children(void)
{
	char path[64], line[256];
	struct dirent *d;
	unsigned n = 0;
	DIR *dir = opendir("/proc");

	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		long pid = strtol(d->d_name, NULL, 10), ppid = 0;
		FILE *f;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/status", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "PPid: %ld", &ppid) == 1)
				break;
		fclose(f);
		if (ppid == getpid() && kill((pid_t)pid, SIGKILL) == 0)
			n++;
	}
	closedir(dir);
	return n;
}

static int reap_children(void **state)
{
	int st;

	(void)state;
	/* Until no child is left: those killed, and any that came back to
	 * this subreaper meanwhile (bounded: 2 s). */
	for (int i = 0; i < 2000; i++) {
		unsigned killed = kill_children();

		while (waitpid(-1, &st, __WALL | WNOHANG) > 0)
			;
		if (!killed && waitpid(-1, &st, __WALL | WNOHANG) < 0 && errno == ECHILD)
			break;
		usleep(1000);
	}
	return 0;
}

#define TEST(f) cmocka_unit_test_teardown(f, reap_children)

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--child-exit") == 0)
		_exit(0);
	if (argc > 1 && strcmp(argv[1], "--child-counter") == 0)
		_exit(prog_counter(NULL));   /* no atexit: LeakSanitizer cannot run traced */
#if defined(__aarch64__)
	/* HWCAP_ATOMICS (bit 8, arch/arm64/include/uapi/asm/hwcap.h): LDADD. */
	if (!(getauxval(AT_HWCAP) & (1ul << 8))) {
		fprintf(stderr, "test_ptrace: this CPU lacks FEAT_LSE (LDADD), which the exact "
			"counts need (QEMU: -cpu max)\n");
		return 1;
	}
#endif
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	{
	const struct CMUnitTest tests[] = {
		TEST(test_selftest),
		TEST(test_write_watch),
		TEST(test_rw_watch),
		TEST(test_rw_twins),
		TEST(test_r_watch_filters_writes),
		TEST(test_decoded_kinds),
		TEST(test_decoded_four_reads),
		TEST(test_seven_bytes_shared),
		TEST(test_four_slots_lengths),
		TEST(test_fifth_watch_enospc),
		TEST(test_foreign_cpu),
		TEST(test_native_cpu),
		TEST(test_large_watch),
		TEST(test_threads),
		TEST(test_fork),
		TEST(test_attach),
		TEST(test_attach_errors),
		TEST(test_start_exec_symbols),
		TEST(test_load_bias_self),
		TEST(test_exec_watch),
		TEST(test_exec_flow_symbols),
		TEST(test_attach_stop),
		TEST(test_attach_threads),
		TEST(test_attach_eperm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
	}
}
