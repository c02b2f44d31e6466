/* SPDX-License-Identifier: MIT */
/*
 * The scenario language: every parse error names FILE:LINE:COL and runs
 * nothing; the runner counts expectations, honours profiles, resolves
 * B+/C+, and prints canonical lines.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hwbp/sim.h>

static int run(const char *text, enum hwbp_sim_profile profile, bool emit,
	       struct hwbp_scenario_stats *st, char *err, size_t errlen, char *outbuf, size_t outlen)
{
	struct hwbp_scenario_opts o = { profile, emit, NULL };
	FILE *f = NULL;
	int ret;

	memset(st, 0, sizeof(*st));
	if (outbuf) {
		f = fmemopen(outbuf, outlen, "w");
		assert_non_null(f);
		o.out = f;
	}
	ret = hwbp_scenario_run("t.hws", text, strlen(text), &o, st, err, errlen);
	if (f)
		fclose(f);
	return ret;
}

static const struct {
	const char *text;
	const char *where;   /* "t.hws:LINE:COL:" */
	const char *what;    /* substring of the message */
} parse_errors[] = {
	{ "", "t.hws:1:1:", "empty scenario" },
	{ "# only a comment\n\n", "t.hws:2:1:", "empty scenario" },
	{ "read B+0 4\n", "t.hws:1:1:", "first line must be 'cpu PRESET'" },
	{ "cpu z80\n", "t.hws:1:5:", "unknown cpu 'z80'" },
	{ "cpu x86_64 extra\n", "t.hws:1:1:", "one preset name" },
	{ "cpu x86_64\ncpu i386\n", "t.hws:2:1:", "only once" },
	{ "cpu x86_64\nfrobnicate 1\n", "t.hws:2:1:", "unknown command 'frobnicate'" },
	{ "cpu x86_64\nread B+0\n", "t.hws:2:1:", "takes ADDR SIZE" },
	{ "cpu x86_64\nread B+0 0\n", "t.hws:2:10:", "expected 1..64" },
	{ "cpu x86_64\nread B+0 65\n", "t.hws:2:10:", "expected 1..64" },
	{ "cpu x86_64\nread Q+0 4\n", "t.hws:2:6:", "expected a number, B+OFF or C+OFF" },
	{ "cpu x86_64\nread B+zz 4\n", "t.hws:2:8:", "bad offset" },
	{ "cpu x86_64\nread B+0x10000 4\n", "t.hws:2:8:", "outside the 64 KiB arena" },
	{ "cpu x86_64\nread 0x1ffffffffffffffff 4\n", "t.hws:2:6:", "does not fit in 64 bits" },
	{ "cpu x86_64\n  write   B+0x8   4x\n", "t.hws:2:19:", "bad size" },
	{ "cpu x86_64\nexpect none\n", "t.hws:2:1:", "command above it" },
	{ "cpu x86_64\nread B+0 4\nexpect\n", "t.hws:3:7:", "needs a check" },
	{ "cpu x86_64\nread B+0 4\nexpect maybe\n", "t.hws:3:8:", "unknown check 'maybe'" },
	{ "cpu x86_64\nread B+0 4\nexpect[bochs] none\n", "t.hws:3:1:", "unknown profile" },
	{ "cpu x86_64\nread B+0 4\nexpect class nmi\n", "t.hws:3:14:", "unknown class 'nmi'" },
	{ "cpu x86_64\nread B+0 4\nexpect timing soon\n", "t.hws:3:15:", "before or after" },
	{ "cpu x86_64\nread B+0 4\nexpect addr B+8..B+4\n", "t.hws:3:13:", "empty window" },
	{ "cpu x86_64\nread B+0 4\nexpect addr B+8.B+9\n", "t.hws:3:16:", "expected LO..HI" },
	{ "cpu x86_64\nread B+0 4\nexpect error EINVAL\n", "t.hws:3:8:", "follows watch" },
	{ "cpu x86_64\nwatch a B+0 4 w\nexpect error EPERM\n", "t.hws:3:14:", "unknown errno 'EPERM'" },
	{ "cpu x86_64\nread B+0 4\nexpect hit dr0 counter\n", "t.hws:3:12:", "not both" },
	{ "cpu x86_64\nread B+0 4\nexpect none now\n", "t.hws:3:13:", "takes nothing more" },
	{ "cpu x86_64\nwatch a B+0 4\n", "t.hws:2:1:", "takes NAME ADDR LEN TYPE" },
	{ "cpu x86_64\nwatch a B+0 4 rwx\n", "t.hws:2:15:", "bad type 'rwx'" },
	{ "cpu x86_64\nwatch a B+0 4 RW\n", "t.hws:2:15:", "bad type 'RW'" },
	{ "cpu x86_64\nwatch a B+0 four w\n", "t.hws:2:13:", "bad length" },
	{ "cpu x86_64\nwatch a B+0 4 w scope=root\n", "t.hws:2:17:", "unknown watch option" },
	{ "cpu x86_64\nwatch dr0 B+0 4 w\n", "t.hws:2:7:", "is a slot name" },
	{ "cpu x86_64\nunwatch\n", "t.hws:2:1:", "takes NAME" },
	{ "cpu x86_64\nmode\n", "t.hws:2:1:", "KEY=VALUE pairs" },
	{ "cpu x86_64\nmode cpu=9\n", "t.hws:2:10:", "at most 8 CPUs" },
	{ "cpu x86_64\nmode cpu\n", "t.hws:2:6:", "expected KEY=VALUE" },
	{ "cpu x86_64\nmode cpu=x\n", "t.hws:2:10:", "bad mode value" },
	{ "cpu x86_64\nmode warp=1\n", "t.hws:2:6:", "unknown mode key" },
	{ "cpu x86_64\nset dbgwcr0 1\n", "t.hws:2:5:", "no register 'dbgwcr0'" },
	{ "cpu x86_64\nset dr7\n", "t.hws:2:1:", "takes REG VALUE" },
	{ "cpu x86_64\nzero B+0\n", "t.hws:2:1:", "x86 has none" },
	{ "cpu cortex-a57\nio 0x80 1\n", "t.hws:2:1:", "port I/O" },
	{ "cpu x86_64\nio 0x10000 1\n", "t.hws:2:4:", "port 0..0xffff" },
	{ "cpu x86_64\nexec\n", "t.hws:2:1:", "takes ADDR" },
	{ "cpu x86_64\nresume now\n", "t.hws:2:8:", "takes nothing" },
	{ "cpu x86_64\nread B+0 4\x01\n", "t.hws:2:11:", "unexpected character 0x01" },
	{ "cpu x86_64\nread B+0 4\nexpect dr6=zz\n", "t.hws:3:12:", "bad value" },
};

static void test_parse_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(parse_errors) / sizeof(parse_errors[0]); i++) {
		struct hwbp_scenario_stats st;
		char err[256], outb[256] = "";
		int ret = run(parse_errors[i].text, HWBP_SIM_SDM, false, &st, err, sizeof(err),
			      outb, sizeof(outb));

		if (ret != -EINVAL || strncmp(err, parse_errors[i].where, strlen(parse_errors[i].where)) ||
		    !strstr(err, parse_errors[i].what))
			fail_msg("row %zu: ret %d, message '%s' (want %s ... %s)", i, ret, err,
				 parse_errors[i].where, parse_errors[i].what);
		/* Nothing ran. */
		assert_int_equal(st.passed + st.failed + st.accesses, 0);
		assert_string_equal(outb, "");
	}
}

/* A NUL byte is refused, at its column. */
static void test_nul(void **state)
{
	static const char text[] = "cpu x86_64\nread B+0\0 4\n";
	struct hwbp_scenario_opts o = { HWBP_SIM_SDM, false, NULL };
	struct hwbp_scenario_stats st = { 0, 0, 0 };
	char err[128];

	(void)state;
	assert_int_equal(hwbp_scenario_run("t.hws", text, sizeof(text) - 1, &o, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.hws:2:9: NUL byte"));
	assert_int_equal(hwbp_scenario_run(NULL, text, 1, &o, &st, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbp_scenario_run("t", text, 1, NULL, &st, err, sizeof(err)), -EINVAL);
}

/* Counting, profiles, arenas and canonical lines (x86). */
static void test_runner(void **state)
{
	static const char *text =
		"# comment line\n"
		"cpu x86_64\n"
		"read B+0 4      # nothing armed\n"
		"expect none\n"
		"expect[sdm] none\n"
		"expect[qemu] none\n"
		"expect class db\n"               /* fails: there is no exception */
		"watch v B+0x40 8 w\n"
		"expect ok\n"
		"write B+0x44 2\n"
		"expect hit v\n"
		"expect hit dr0\n"
		"expect class db\n"
		"expect timing after\n"
		"expect dr6=0xffff0ff1\n"
		"expect dr0=B+0x40\n"
		"read B+0x44 2\n"
		"expect none\n"
		"watch v B+0x80 8 w\n"
		"expect error EBUSY\n"
		"watch r B+0x80 4 r\n"
		"expect error EOPNOTSUPP\n"
		"unwatch v\n"
		"expect ok\n"
		"write B+0x44 2\n"
		"expect none\n";
	struct hwbp_scenario_stats st;
	char err[256], outb[4096];

	(void)state;
	assert_int_equal(run(text, HWBP_SIM_SDM, false, &st, err, sizeof(err), outb, sizeof(outb)), 0);
	/* 15 expectations count under sdm (line 6 is qemu's); all but
	 * "expect class db" (line 7) hold. */
	if (st.passed != 14 || st.failed != 1)
		fail_msg("passed %u failed %u:\n%s", st.passed, st.failed, outb);
	assert_non_null(strstr(outb, "t.hws:7: expected class db got none"));
	assert_int_equal(st.accesses, 4);

	assert_int_equal(run(text, HWBP_SIM_QEMU, true, &st, err, sizeof(err), outb, sizeof(outb)), 0);
	assert_string_equal(outb,
			    "== t.hws\n"
			    "3: none\n"
			    "10: class=db timing=after slots=dr0 dr6=0xffff0ff1 addr=-\n"
			    "17: none\n"
			    "25: none\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_runner),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
