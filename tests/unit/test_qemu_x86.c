/* SPDX-License-Identifier: MIT */
/*
 * The qemu-x86 backend's host side: the demo kernel's lines (hits with each
 * kind's provenance, refused watches, kernel failures, noise), whole runs
 * against a fake QEMU started as the backend starts QEMU (a shell script
 * standing in for qemu-system-x86_64: what it prints, how it exits, the
 * command line it was given), so that every error path is exercised
 * without booting anything.  The real boot is tests/trace/demo_sim_vs_qemu.sh.
 */
#define _XOPEN_SOURCE 700   /* nftw */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/qemu/qemu_x86.h"

static struct hwbpi_tracer t;

/* Two watches, trace mode (one ring): the events come back as fed. */
static void setup(unsigned type_b)
{
	memset(&t, 0, sizeof(t));
	snprintf(t.w[0].name, sizeof(t.w[0].name), "a");
	t.w[0].addr = 0x1000;
	t.w[0].len = 8;
	t.w[0].type = HWBP_RW;
	snprintf(t.w[1].name, sizeof(t.w[1].name), "b");
	t.w[1].addr = 0x2000;
	t.w[1].len = 4;
	t.w[1].type = type_b;
	t.nw = 2;
	assert_int_equal(hwbpi_tracer_start(&t, 1, true, 1 << 16, false), 0);
}

static void test_lines(void **state)
{
	static const struct {
		const char *line;
		bool event;
		uint16_t bp;
		uint64_t ip;
		uint8_t kind, how;
	} cases[] = {
		{ "H 0 101d70 2 I\n", true, 0, 0x101d70, HWBP_W, HWBP_KIND_INSN },
		{ "H 0 101d80 1 I\n", true, 0, 0x101d80, HWBP_R, HWBP_KIND_INSN },
		{ "H 1 10 2 V\n", true, 1, 0x10, HWBP_W, HWBP_KIND_VALUE },
		{ "H 1 ffffffff81000020 2 T\n", true, 1, 0xffffffff81000020, HWBP_W, HWBP_KIND_TYPE },
		{ "H 0 10 0 ?\n", true, 0, 0x10, 0, HWBP_KIND_UNKNOWN },
		/* an unknown provenance letter: the kind is not taken */
		{ "H 0 10 2 Z\n", true, 0, 0x10, 0, HWBP_KIND_UNKNOWN },
		/* a kind without provenance is no kind */
		{ "H 0 10 0 I\n", true, 0, 0x10, 0, HWBP_KIND_UNKNOWN },
		{ "H 2 10 2 I\n", false, 0, 0, 0, 0 },      /* no such watch */
		{ "H 0 10 9 I\n", false, 0, 0, 0, 0 },      /* no such kind */
		{ "H 0 zz 2 I\n", false, 0, 0, 0, 0 },
		{ "H\n", false, 0, 0, 0, 0 },
		{ "", false, 0, 0, 0, 0 },
		{ "SeaBIOS noise\n", false, 0, 0, 0, 0 },
		{ "W 0 1000 8 3 0\n", false, 0, 0, 0, 0 },  /* installed */
		{ "W 7 1000 8 3 1c\n", false, 0, 0, 0, 0 }, /* no such watch: ignored */
	};
	struct hwbpi_qemu_x86_run r;
	uint64_t ts = 0;

	(void)state;
	setup(HWBP_W);
	memset(&r, 0, sizeof(r));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hwbp_trace_event ev[2];
		char err[128] = "";

		assert_int_equal(hwbpi_qemu_x86_line(&t, &r, cases[i].line, err, sizeof(err)), 0);
		assert_string_equal(err, "");
		if (!cases[i].event) {
			assert_int_equal(hwbp_ring_pop(t.ring[0], ev, 2), 0);
			continue;
		}
		assert_int_equal(hwbp_ring_pop(t.ring[0], ev, 2), 1);
		assert_int_equal(ev[0].bp, cases[i].bp);
		assert_int_equal(ev[0].ip, cases[i].ip);
		assert_int_equal(ev[0].addr, t.w[cases[i].bp].addr);
		assert_int_equal(ev[0].cpu, 0);
		assert_int_equal(ev[0].kind, cases[i].kind);
		assert_int_equal(ev[0].kind_how, cases[i].how);
		/* timestamps: the hits so far */
		assert_int_equal(ev[0].ts, ++ts);
	}
	assert_false(r.ended);
	assert_int_equal(hwbpi_qemu_x86_line(&t, &r, "E 7 7 0\n", NULL, 0), 0);
	assert_true(r.ended);
	assert_int_equal(r.disagree, 0);
	assert_int_equal(hwbpi_qemu_x86_line(&t, &r, "E 7 7 3\n", NULL, 0), 0);
	assert_int_equal(r.disagree, 3);
	assert_int_equal(hwbpi_tracer_hits(&t), ts);
	hwbpi_tracer_fini(&t);
}

static void test_line_errors(void **state)
{
	static const struct {
		const char *line;
		int ret;
		const char *err;
	} cases[] = {
		{ "W 1 2000 4 2 1c\n", -ENOSPC, "b: ENOSPC (not enough debug registers left)" },
		{ "W 0 1000 8 3 22\n", -ERANGE, "a: ERANGE (larger than this CPU can watch)" },
		{ "W 0 1000 8 3 5f\n", -EOPNOTSUPP, "a: EOPNOTSUPP (a type this CPU lacks)" },
		{ "W 0 1000 8 3 16\n", -EINVAL, "a: EINVAL (refused by the planner)" },
		{ "X exception 6 0 101d70\n", -EIO, "the demo kernel failed: X exception 6 0 101d70" },
		{ "X cmdline\n", -EIO, "the demo kernel failed: X cmdline" },
	};
	struct hwbpi_qemu_x86_run r;
	struct hwbp_trace_event ev;

	(void)state;
	setup(HWBP_W);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[128] = "";

		memset(&r, 0, sizeof(r));
		assert_int_equal(hwbpi_qemu_x86_line(&t, &r, cases[i].line, err, sizeof(err)),
				 cases[i].ret);
		assert_string_equal(err, cases[i].err);
		/* The first error sticks: later hits and errors change nothing. */
		assert_int_equal(hwbpi_qemu_x86_line(&t, &r, "H 0 10 2 I\n", err, sizeof(err)),
				 cases[i].ret);
		assert_int_equal(hwbpi_qemu_x86_line(&t, &r, "X other\n", err, sizeof(err)),
				 cases[i].ret);
		assert_string_equal(err, cases[i].err);
		assert_int_equal(hwbp_ring_pop(t.ring[0], &ev, 1), 0);
	}
	assert_int_equal(hwbpi_qemu_x86_line(NULL, &r, "E\n", NULL, 0), -EINVAL);
	assert_int_equal(hwbpi_qemu_x86_line(&t, NULL, "E\n", NULL, 0), -EINVAL);
	assert_int_equal(hwbpi_qemu_x86_line(&t, &r, NULL, NULL, 0), -EINVAL);
	hwbpi_tracer_fini(&t);
}

/* ---------------------------------------------------- runs, fake QEMU */

static char dir[64], kernel[128], fake[128], args[128];

static void write_fake(const char *body)
{
	FILE *f = fopen(fake, "w");

	assert_non_null(f);
	/* Records its command line, then does what the case says. */
	fprintf(f, "#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s'\n%s\n", args, body);
	fclose(f);
	assert_int_equal(chmod(fake, 0755), 0);
}

static int run_setup(void **state)
{
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hwbp-test-qemu-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(kernel, sizeof(kernel), "%s/kernel.elf", dir);
	snprintf(fake, sizeof(fake), "%s/fake-qemu", dir);
	snprintf(args, sizeof(args), "%s/args", dir);
	f = fopen(kernel, "w");     /* the backend wants the image to exist */
	if (!f)
		return -1;
	fclose(f);
	return setenv("QEMU", fake, 1);
}

/* Remove a test directory and everything in it (no shell). */
static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int rm_tree(const char *path)
{
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int run_teardown(void **state)
{
	(void)state;
	unsetenv("QEMU");
	unsetenv("HARNESS_TIMEOUT");
	return rm_tree(dir) == 0 ? 0 : -1;
}

/* isa-debug-exit: QEMU's status is ((code + 32) << 1) | 1 (run.sh). */
static void test_runs(void **state)
{
	static const struct {
		const char *body;
		int ret;
		uint64_t hits;
		const char *err;    /* a prefix of the message */
	} cases[] = {
		{ "echo 'W 0 1000 8 3 0'; echo 'W 1 2000 4 2 0'; echo 'H 0 10 1 I'; echo 'H 1 20 2 T';"
		  " echo 'E 2 2 0'; exit 65", 0, 2, "" },
		/* noise before and between the kernel's lines */
		{ "echo 'booting'; echo 'H 0 10 1 I'; echo; echo 'E 1 1 0'; exit 65", 0, 1, "" },
		{ "echo 'W 0 1000 8 3 0'; echo 'W 1 2000 4 2 1c'; exit 67", -ENOSPC, 0,
		  "b: ENOSPC" },
		{ "echo 'X exception d 0 1234'; exit 71", -EIO, 0,
		  "the demo kernel failed: X exception" },
		/* the kernel's exit without its E line */
		{ "echo 'H 0 10 1 I'; exit 65", -EIO, 1, "the demo kernel did not finish" },
		/* QEMU's own failure (bad image, triple fault) */
		{ "echo 'qemu: could not load kernel' >&2; exit 1", -EIO, 0,
		  "the demo kernel did not finish: " },
		/* a hang: the backend's timeout */
		{ "exec sleep 30", -EIO, 0, "the demo kernel did not finish: " },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[256] = "", line[128];
		FILE *f;
		bool seen = false;

		write_fake(cases[i].body);
		setenv("HARNESS_TIMEOUT", "1", 1);
		setup(HWBP_W);
		assert_int_equal(hwbpi_trace_qemu_x86(&t, kernel, NULL, NULL, err, sizeof(err)), cases[i].ret);
		assert_int_equal(strncmp(err, cases[i].err, strlen(cases[i].err)), 0);
		assert_int_equal(hwbpi_tracer_hits(&t), cases[i].hits);
		/* The watches went on the kernel's command line, in order. */
		f = fopen(args, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f))
			seen |= strcmp(line, "hwbp.watch=1000,8,3;2000,4,2\n") == 0;
		fclose(f);
		assert_true(seen);
		hwbpi_tracer_fini(&t);
	}
	unsetenv("HARNESS_TIMEOUT");
}

static void test_run_errors(void **state)
{
	char err[256] = "";

	(void)state;
	setup(HWBP_W);
	/* no QEMU: the exec fails */
	setenv("QEMU", "/nonexistent/qemu-system-x86_64", 1);
	assert_int_equal(hwbpi_trace_qemu_x86(&t, kernel, NULL, NULL, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "qemu-system-x86_64 not found");
	setenv("QEMU", fake, 1);
	assert_int_equal(hwbpi_trace_qemu_x86(NULL, kernel, NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbpi_trace_qemu_x86(&t, NULL, NULL, NULL, err, sizeof(err)), -EINVAL);
	/* no shell: a quote in a path is only a character; a missing image is
	 * refused before QEMU starts */
	assert_int_equal(hwbpi_trace_qemu_x86(&t, "/tmp/it's", NULL, NULL, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "no kernel image /tmp/it's");
	/* execution watches: the demo kernel watches data */
	t.w[1].type = HWBP_X;
	err[0] = '\0';
	assert_int_equal(hwbpi_trace_qemu_x86(&t, kernel, NULL, NULL, err, sizeof(err)), -EOPNOTSUPP);
	assert_string_equal(err, "b: the qemu-x86 demo kernel watches data only");
	t.nw = 0;
	assert_int_equal(hwbpi_trace_qemu_x86(&t, kernel, NULL, NULL, err, sizeof(err)), -EINVAL);
	t.nw = 2;
	hwbpi_tracer_fini(&t);
}

/* The installed demo kernel: found in $HWBP_DATADIR/qemu-x86, else one
 * line saying it is not available. */
static void test_datadir(void **state)
{
	char k[4096], y[4096], err[512] = "", sub[600];
	FILE *f;

	(void)state;
	setenv("HWBP_DATADIR", dir, 1);
	assert_string_equal(hwbpi_datadir(), dir);
#ifdef HWBP_HAVE_QEMU_X86_DEMO
	assert_int_equal(hwbpi_qemu_x86_files(k, y, sizeof(k), err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "not available: no demo kernel in "));
	snprintf(sub, sizeof(sub), "%s/qemu-x86", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	for (unsigned i = 0; i < 2; i++) {
		snprintf(sub, sizeof(sub), "%s/qemu-x86/%s", dir, i ? "kernel64.elf" : "kernel.elf");
		f = fopen(sub, "w");
		assert_non_null(f);
		fclose(f);
	}
	assert_int_equal(hwbpi_qemu_x86_files(k, y, sizeof(k), err, sizeof(err)), 0);
	snprintf(sub, sizeof(sub), "%s/qemu-x86/kernel.elf", dir);
	assert_string_equal(k, sub);
	snprintf(sub, sizeof(sub), "%s/qemu-x86/kernel64.elf", dir);
	assert_string_equal(y, sub);
#else
	assert_int_equal(hwbpi_qemu_x86_files(k, y, sizeof(k), err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "not available"));
	(void)sub;
	(void)f;
#endif
	assert_int_equal(hwbpi_qemu_x86_files(NULL, y, sizeof(k), err, sizeof(err)), -EINVAL);
	/* unset: the installed directory, an absolute path */
	unsetenv("HWBP_DATADIR");
	assert_int_equal(hwbpi_datadir()[0], '/');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_line_errors),
		cmocka_unit_test_setup_teardown(test_runs, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(test_run_errors, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(test_datadir, run_setup, run_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
