/* SPDX-License-Identifier: MIT */
/*
 * Thread-local variables (tracer/symbols/tls.c, hwbpi_linux_tls_block, the ptrace
 * backend's per-thread copies), on this binary's own __thread variables:
 * hwbpi_tls_find() against the symbols of this very process, and the
 * address a stopped child's thread pointer gives, which must be the one
 * the variable has here (fork copies the calling thread, its thread
 * pointer included).  Then a traced child whose threads write their own
 * copies a known number of times.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/linux/glue.h"
#include "symbols/proc_maps.h"
#include "backends/ptrace/ptrace.h"
#include "symbols/tls.h"

/* Initialised (.tdata) and zero (.tbss) copies, of several sizes. */
__thread uint64_t tls_u64 = 5;
__thread uint32_t tls_u32;
__thread char tls_buf[24] __attribute__((aligned(16)));
__thread uint16_t tls_u16 = 7;

static struct hwbp_symtab *self_syms(void)
{
	int err = 0;
	struct hwbp_symtab *t = hwbp_symtab_new(&err);

	assert_non_null(t);
	assert_true(hwbpi_proc_load_symbols(t, getpid(), NULL) > 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	return t;
}

static int stop_here(void *arg)
{
	(void)arg;
	return 0;
}

/* Each variable found, at the address it has in this thread. */
static void test_find_and_place(void **state)
{
	/* Not static: a thread-local variable's address is the thread's. */
	const struct {
		const char *name;
		const void *addr;
		uint64_t size;
	} vars[] = {
		{ "tls_u64", &tls_u64, sizeof(tls_u64) },
		{ "tls_u32", &tls_u32, sizeof(tls_u32) },
		{ "tls_buf", tls_buf, sizeof(tls_buf) },
		{ "tls_u16", &tls_u16, sizeof(tls_u16) },
	};
	struct hwbp_symtab *t = self_syms();
	struct hwbpi_ptrace *s;
	char err[256];

	(void)state;
	assert_int_equal(hwbpi_ptrace_start_fn(&s, stop_here, NULL, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		struct hwbpi_tls_var v;
		uint64_t block = 0;

		err[0] = '\0';
		assert_int_equal(hwbpi_tls_find(t, vars[i].name, &v, err, sizeof(err)), 0);
		assert_int_equal(v.size, vars[i].size);
		assert_true(v.align >= 16 && (v.align & (v.align - 1)) == 0);   /* tls_buf's */
		assert_true(v.off + v.size <= v.memsz);
		assert_int_equal(hwbpi_linux_tls_block(hwbpi_ptrace_pid(s), v.memsz, v.align, &block), 0);
		assert_int_equal(block + v.off, (uint64_t)(uintptr_t)vars[i].addr);
	}
	hwbpi_ptrace_free(s);
	hwbp_symtab_free(t);
}

/* Not found, or refused with one line. */
static void test_refused(void **state)
{
	static const struct {
		const char *name;
		int ret;
		const char *msg;   /* the start of @err, or NULL */
	} cases[] = {
		{ "no_such_tls_var", -ENOENT, NULL },
		{ "tls_u64@GLIBC_2.2.5", -ENOENT, NULL },   /* qualified: not looked up */
		{ "test_tls:tls_u64", -ENOENT, NULL },
		{ "", -ENOENT, NULL },
		/* libc's errno is thread-local, in a shared library */
		{ "errno", -EOPNOTSUPP, "thread-local variable 'errno' of a shared library (" },
	};
	struct hwbp_symtab *t = self_syms();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hwbpi_tls_var v;
		char err[256] = "";

		assert_int_equal(hwbpi_tls_find(t, cases[i].name, &v, err, sizeof(err)), cases[i].ret);
		if (cases[i].msg) {
			assert_memory_equal(err, cases[i].msg, strlen(cases[i].msg));
			assert_non_null(strstr(err, "): not supported (EOPNOTSUPP)"));
		} else {
			assert_string_equal(err, "");
		}
	}
	assert_int_equal(hwbpi_tls_find(NULL, "tls_u64", NULL, NULL, 0), -ENOENT);
	hwbp_symtab_free(t);
}

/* A filter entry on a thread-local variable: the watch's offset (+OFF),
 * length and the block's PT_TLS; a plain variable stays as it was. */
static void test_apply(void **state)
{
	struct hwbpi_tracer *tr = calloc(1, sizeof(*tr));
	struct hwbp_symtab *t = self_syms();
	struct hwbpi_tls_var v;
	struct hwbp_trace_entry e;
	unsigned col;
	const char *msg;
	char err[256];

	(void)state;
	assert_non_null(tr);
	tr->syms = t;
	assert_int_equal(hwbpi_tls_find(t, "tls_buf", &v, err, sizeof(err)), 0);
	assert_int_equal(hwbp_trace_filter_parse("tls_buf+8:-w-", &e, &col, &msg), 0);
	assert_int_equal(hwbpi_tracer_apply(tr, &e, err, sizeof(err)), 0);
	assert_int_equal(tr->nw, 1);
	assert_true(tr->w[0].tls);
	assert_string_equal(tr->w[0].name, "tls_buf+8");
	assert_int_equal(tr->w[0].addr, v.off + 8);
	assert_int_equal(tr->w[0].len, sizeof(tls_buf) - 8);
	assert_int_equal(tr->w[0].tls_memsz, v.memsz);
	assert_int_equal(tr->w[0].tls_align, v.align);
	assert_null(tr->w[0].sym);
	assert_int_equal(hwbp_trace_filter_parse("errno:rw-", &e, &col, &msg), 0);
	assert_int_equal(hwbpi_tracer_apply(tr, &e, err, sizeof(err)), -EOPNOTSUPP);
	assert_int_equal(tr->nw, 1);
	assert_int_equal(hwbp_trace_filter_parse("no_such_tls_var:rw-", &e, &col, &msg), 0);
	assert_int_equal(hwbpi_tracer_apply(tr, &e, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "no symbol 'no_such_tls_var' in the symbol table");
	hwbp_symtab_free(t);
	free(tr);
}

/* The traced child: main and 2 threads write their own tls_u64 100, 200
 * and 300 times (one store each: the asm's memory clobber), 600 in all. */
static void bump(uint64_t n)
{
	for (uint64_t k = 0; k < n; k++) {
		tls_u64 = tls_u64 + 1;
		__asm__ volatile("" ::: "memory");
	}
}

static void *bump_thread(void *arg)
{
	bump((uint64_t)(uintptr_t)arg);
	return NULL;
}

static int prog_threads(void *arg)
{
	pthread_t th[2];

	(void)arg;
	for (uintptr_t i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, bump_thread, (void *)((i + 2) * 100)))
			return 1;
	bump(100);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	return tls_u64 == 5 + 100 ? 0 : 2;
}

static void test_trace_threads(void **state)
{
	struct hwbpi_tracer *tr = calloc(1, sizeof(*tr));
	struct hwbp_symtab *t = self_syms();
	struct hwbp_trace_entry e;
	struct hwbpi_ptrace *s;
	unsigned col;
	const char *msg;
	char err[256] = "";
	int st = -1;

	(void)state;
	assert_non_null(tr);
	tr->syms = t;
	assert_int_equal(hwbp_trace_filter_parse("tls_u64:-w-", &e, &col, &msg), 0);
	assert_int_equal(hwbpi_tracer_apply(tr, &e, err, sizeof(err)), 0);
	assert_int_equal(hwbpi_tracer_start(tr, 1, false, 0, false), 0);
	assert_int_equal(hwbpi_ptrace_start_fn(&s, prog_threads, NULL, err, sizeof(err)), 0);
	assert_int_equal(hwbpi_ptrace_trace(s, tr, NULL, &st, err, sizeof(err)), 0);
	hwbpi_ptrace_free(s);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(hwbpi_tracer_hits(tr), 600);
	hwbpi_tracer_fini(tr);
	hwbp_symtab_free(t);
	free(tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_and_place),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_trace_threads),
	};
	char err[256] = "";

	/* Hardware breakpoints must work here (the ptrace self-test). */
	if (hwbpi_ptrace_selftest(err, sizeof(err))) {
		fprintf(stderr, "test_tls: %s\n", err);
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
