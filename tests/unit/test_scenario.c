/* SPDX-License-Identifier: MIT */
/*
 * The scenario language: every parse error names FILE:LINE:COL and runs
 * nothing; the runner counts expectations, honours profiles, resolves
 * B+/C+, and prints canonical lines.  The stream entry points give what
 * the text ones give, from a file, a pipe (spooled) or memory.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

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
	{ "cpu x86_64\ndecoder maybe\n", "t.hws:2:1:", "'decoder' takes on or off" },
	{ "cpu x86_64\ndecoder\n", "t.hws:2:1:", "'decoder' takes on or off" },
	{ "cpu x86_64\nwatch a B+0 1 w shared\n", "t.hws:2:17:", "widen, share" },
	{ "cpu x86_64\nstep maybe\n", "t.hws:2:1:", "'step' takes on or off" },
	{ "cpu x86_64\nstep\n", "t.hws:2:1:", "'step' takes on or off" },
	{ "cpu x86_64\nbrk\n", "t.hws:2:1:", "its breakpoint instruction is int3" },
	{ "cpu x86_64\ntrap\n", "t.hws:2:1:", "not an instruction of x86" },
	{ "cpu x86_64\nint3 now\n", "t.hws:2:6:", "'int3' takes nothing" },
	{ "cpu x86_64\nmovss B+0 2\n", "t.hws:2:7:", "nothing or ADDR" },
	{ "cpu x86_64\nmovss Q+0\n", "t.hws:2:7:", "expected a number, B+OFF or C+OFF" },
	{ "cpu x86_64\nget\n", "t.hws:2:1:", "'get' takes REG" },
	{ "cpu x86_64\nget cr4\n", "t.hws:2:5:", "no instruction reads 'cr4'" },
	{ "cpu cortex-a57\nicebp\n", "t.hws:2:1:", "not an instruction of arm64" },
	{ "cpu power9\nmovss\n", "t.hws:2:1:", "not an instruction of powerpc" },
	{ "cpu x86_64\nint3\nexpect ip there\n", "t.hws:3:11:", "at or next" },
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

/* ------------------------------------------------------------ streams */

/* How a test hands a text to the stream entry points. */
enum how { MEMORY, TMPFILE, PIPE, NHOW };
static const char *const how_name[NHOW] = { "memory", "tmpfile", "pipe" };

struct input {
	FILE *f;
	pid_t writer;                   /* PIPE: the child writing the text */
};

/* A child writes @text into a pipe and exits: the reader cannot seek. */
static FILE *pipe_of(const char *text, size_t len, pid_t *writer)
{
	int fd[2];

	assert_int_equal(pipe(fd), 0);
	*writer = fork();
	assert_true(*writer >= 0);
	if (*writer == 0) {
		close(fd[0]);
		for (size_t off = 0; off < len;) {
			ssize_t n = write(fd[1], text + off, len - off);

			if (n <= 0)
				_exit(1);
			off += (size_t)n;
		}
		_exit(0);
	}
	close(fd[1]);
	return fdopen(fd[0], "r");
}

static struct input open_input(enum how how, const char *text, size_t len)
{
	struct input in = { NULL, 0 };

	if (how == MEMORY) {
		/* fmemopen of 0 bytes is EINVAL before glibc 2.22: one byte
		 * more, read back as nothing. */
		in.f = fmemopen((void *)(len ? text : " "), len ? len : 1, "r");
		if (in.f && !len)
			fgetc(in.f);
	} else if (how == TMPFILE) {
		in.f = tmpfile();
		assert_non_null(in.f);
		assert_int_equal(fwrite(text, 1, len, in.f), len);
		rewind(in.f);
	} else {
		in.f = pipe_of(text, len, &in.writer);
	}
	assert_non_null(in.f);
	return in;
}

static void close_input(struct input *in)
{
	int status;

	fclose(in->f);
	if (in->writer > 0) {
		/* The reader may stop early (an error): the writer then dies of
		 * SIGPIPE, which is fine; it must not hang. */
		assert_int_equal(waitpid(in->writer, &status, 0), in->writer);
	}
}

/* What one run gave: its return, message, output and counts. */
struct outcome {
	int ret;
	char err[256];
	char *out;
	size_t outlen;
	struct hwbp_scenario_stats st;
};

enum mode { CHECK, EMIT, COMPILE };

/* @text through the text entry point (@how < 0) or a stream. */
static void outcome_of(int how, const char *text, size_t len, enum hwbp_sim_profile profile,
		       enum mode mode, struct outcome *oc)
{
	struct hwbp_scenario_opts o = { profile, mode == EMIT, NULL };
	struct input in = { NULL, 0 };
	FILE *out;

	memset(oc, 0, sizeof(*oc));
	out = open_memstream(&oc->out, &oc->outlen);
	assert_non_null(out);
	o.out = out;
	if (how >= 0)
		in = open_input((enum how)how, text, len);
	if (mode == COMPILE)
		oc->ret = how < 0 ? hwbp_scenario_compile("t.hws", text, len, out, oc->err, sizeof(oc->err))
				  : hwbp_scenario_compile_file("t.hws", in.f, out, oc->err, sizeof(oc->err));
	else
		oc->ret = how < 0 ? hwbp_scenario_run("t.hws", text, len, &o, &oc->st, oc->err, sizeof(oc->err))
				  : hwbp_scenario_run_file("t.hws", in.f, &o, &oc->st, oc->err, sizeof(oc->err));
	if (how >= 0)
		close_input(&in);
	fclose(out);
}

/* Every way of reading @text gives exactly what the text entry point
 * gives, in every mode and profile. */
static void same_everywhere(const char *what, const char *text, size_t len)
{
	for (int mode = CHECK; mode <= COMPILE; mode++)
		for (int profile = HWBP_SIM_SDM; profile <= HWBP_SIM_QEMU; profile++) {
			struct outcome want, got;

			outcome_of(-1, text, len, (enum hwbp_sim_profile)profile, (enum mode)mode, &want);
			for (int how = MEMORY; how < NHOW; how++) {
				outcome_of(how, text, len, (enum hwbp_sim_profile)profile, (enum mode)mode, &got);
				if (got.ret != want.ret || strcmp(got.err, want.err) ||
				    got.outlen != want.outlen || memcmp(got.out, want.out, got.outlen) ||
				    memcmp(&got.st, &want.st, sizeof(got.st)))
					fail_msg("%s, %s, mode %d, profile %d: ret %d/%d '%s'/'%s' passed %u/%u\n%s---\n%s",
						 what, how_name[how], mode, profile, got.ret, want.ret, got.err,
						 want.err, got.st.passed, want.st.passed, got.out, want.out);
				free(got.out);
			}
			free(want.out);
		}
}

/* A whole file, read with stdio. */
static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0;
	FILE *m = open_memstream(&buf, &cap);
	int ch;

	assert_non_null(f);
	assert_non_null(m);
	while ((ch = getc(f)) != EOF)
		putc(ch, m);
	fclose(f);
	fclose(m);
	*len = cap;
	return buf;
}

/* tests/scenarios, found from this file's path as the compiler saw it
 * (relative to the build directory, where meson runs the tests). */
static void scenario_dir(const char *arch, char *dir, size_t n)
{
	const char *slash = strrchr(__FILE__, '/');
	int l = slash ? (int)(slash - __FILE__) : 0;

	snprintf(dir, n, "%.*s%s../scenarios/%s", l, __FILE__, slash ? "/" : "", arch);
}

/* Every file of tests/scenarios through every entry point. */
static void test_stream_scenarios(void **state)
{
	static const char *const arches[] = { "x86", "arm64", "powerpc" };
	unsigned files = 0;

	(void)state;
	for (unsigned a = 0; a < 3; a++) {
		char dir[4096], path[4352];
		DIR *d;
		struct dirent *de;

		scenario_dir(arches[a], dir, sizeof(dir));
		d = opendir(dir);
		if (!d)
			fail_msg("cannot open %s: %s", dir, strerror(errno));
		while ((de = readdir(d))) {
			size_t l = strlen(de->d_name), len;
			char *text;

			if (l < 5 || strcmp(de->d_name + l - 4, ".hws"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			text = read_all(path, &len);
			same_everywhere(path, text, len);
			free(text);
			files++;
		}
		closedir(d);
	}
	/* Every arch folder holds files; a lost folder must not pass. */
	assert_true(files >= 30);
}

#define T(s) s, sizeof(s) - 1

/* Texts that stop before anything runs, whichever way they are read; each
 * is HEAD, PAD bytes of 'a', TAIL. */
static const struct {
	const char *head;
	size_t hlen, pad;
	const char *tail;
	size_t tlen;
	int ret;
	const char *where, *what;
} stream_errors[] = {
	/* the last line does not parse: nothing of the lines above ran */
	{ T("cpu x86_64\nwatch v B+0x40 8 w\nwrite B+0x44 2\nexpect hit v\nexpect class nmi"), 0,
	  T(""), -EINVAL, "t.hws:5:14:", "unknown class 'nmi'" },
	{ T("cpu x86_64\nread B+0 4\nexpect none\nread B+0 4\n\n# end\nfrob\n"), 0, T(""),
	  -EINVAL, "t.hws:7:1:", "unknown command 'frob'" },
	/* one byte over the limit, at its column */
	{ T("cpu x86_64\nread B+0 4\nexpect none\n#"), 65536, T("\nread B+0 4\n"), -EOVERFLOW,
	  "t.hws:4:65537:", "line longer than 65536 bytes" },
	{ T("cpu x86_64\nread B+0 4\nexpect none\n"), 200000, T(""), -EOVERFLOW,
	  "t.hws:4:65537:", "line longer than 65536 bytes" },
	/* a NUL byte, before or after the limit */
	{ T("cpu x86_64\nread B+0\0 4\nexpect none\n"), 0, T(""), -EINVAL, "t.hws:2:9:", "NUL byte" },
	{ T("cpu x86_64\nread B+0 4\n#\0"), 70000, T("\n"), -EINVAL, "t.hws:3:2:", "NUL byte" },
	{ T("cpu x86_64\nread B+0 4\n#"), 70000, T("\0\n"), -EOVERFLOW, "t.hws:3:65537:", "longer" },
	{ T(""), 0, T(""), -EINVAL, "t.hws:1:1:", "empty scenario" },
};

static char *build(const char *head, size_t hlen, size_t pad, const char *tail, size_t tlen,
		   size_t *len)
{
	char *t = malloc(hlen + pad + tlen + 1);

	assert_non_null(t);
	memcpy(t, head, hlen);
	memset(t + hlen, 'a', pad);
	memcpy(t + hlen + pad, tail, tlen);
	*len = hlen + pad + tlen;
	t[*len] = '\0';
	return t;
}

static void test_stream_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(stream_errors) / sizeof(stream_errors[0]); i++) {
		size_t len;
		char *text = build(stream_errors[i].head, stream_errors[i].hlen, stream_errors[i].pad,
				   stream_errors[i].tail, stream_errors[i].tlen, &len);

		for (int how = -1; how < NHOW; how++)
			for (int mode = CHECK; mode <= COMPILE; mode++) {
				struct outcome oc;

				outcome_of(how, text, len, HWBP_SIM_SDM, (enum mode)mode, &oc);
				if (oc.ret != stream_errors[i].ret ||
				    strncmp(oc.err, stream_errors[i].where, strlen(stream_errors[i].where)) ||
				    !strstr(oc.err, stream_errors[i].what) || oc.outlen ||
				    oc.st.passed + oc.st.failed + oc.st.accesses)
					fail_msg("row %zu, %s, mode %d: ret %d '%s', %zu bytes out, %u accesses",
						 i, how < 0 ? "text" : how_name[how], mode, oc.ret, oc.err,
						 oc.outlen, oc.st.accesses);
				free(oc.out);
			}
		free(text);
	}
}

/* A line of exactly the limit is a line. */
static void test_stream_limit(void **state)
{
	size_t len;
	char *text = build(T("cpu x86_64\n#"), HWBP_SCENARIO_LINE_MAX - 1, T("\nread B+0 4\nexpect none\n"), &len);

	(void)state;
	same_everywhere("a longest line", text, len);
	for (int how = MEMORY; how < NHOW; how++) {
		struct outcome oc;

		outcome_of(how, text, len, HWBP_SIM_SDM, CHECK, &oc);
		assert_int_equal(oc.ret, 0);
		assert_int_equal(oc.st.passed, 1);
		free(oc.out);
	}
	free(text);
}

/*
 * `expect error` may come many lines after the watch that failed: the
 * runner reads ahead and back, across the buffer's refills (and, from a
 * pipe, in the spool).  N expect lines (about 1.4 MiB), then the error.
 */
static char *failing_watch(unsigned n, bool with_error, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	assert_non_null(m);
	fputs("cpu x86_64\n", m);
	for (unsigned i = 0; i < 4; i++)
		fprintf(m, "watch w%u B+0x%x 8 w\n", i, 0x1000 * (i + 1));
	fputs("watch full B+0x8000 8 w\n", m);
	for (unsigned i = 0; i < n; i++)
		fputs(i % 2 ? "expect dr7=0x400\n" : "# a comment between\nexpect[qemu] ok\n", m);
	if (with_error)
		fputs("expect error ENOSPC\n", m);
	fputs("unwatch w0\nexpect ok\n", m);
	fclose(m);
	return buf;
}

static void test_stream_lookahead(void **state)
{
	(void)state;
	for (int with_error = 0; with_error <= 1; with_error++) {
		size_t len;
		char *text = failing_watch(40000, with_error, &len);

		assert_true(len > 2 * (HWBP_SCENARIO_LINE_MAX + 1));
		same_everywhere(with_error ? "error after 40000 lines" : "no error", text, len);
		for (int how = -1; how < NHOW; how++) {
			struct outcome oc;

			outcome_of(how, text, len, HWBP_SIM_SDM, CHECK, &oc);
			assert_int_equal(oc.ret, 0);
			/* dr7: the 4 slots armed, so 20000 expect dr7=0x400 fail;
			 * the watch fails too without its expect error. */
			assert_int_equal(oc.st.failed, 20000 + !with_error);
			assert_int_equal(oc.st.passed, 1 + (unsigned)with_error);
			assert_int_equal(strstr(oc.out, "watch full failed with ENOSPC") != NULL, !with_error);
			free(oc.out);
		}
		free(text);
	}
}

/* The second pass starts where the stream was, not at its byte 0. */
static void test_stream_offset(void **state)
{
	static const char text[] = "not a scenario\ncpu x86_64\nread B+0 4\nexpect none\n";
	struct hwbp_scenario_opts o = { HWBP_SIM_SDM, false, NULL };
	struct hwbp_scenario_stats st = { 0, 0, 0 };
	char err[128], line[64];

	(void)state;
	for (int how = MEMORY; how < NHOW; how++) {
		struct input in = open_input((enum how)how, text, sizeof(text) - 1);

		assert_non_null(fgets(line, sizeof(line), in.f));
		memset(&st, 0, sizeof(st));
		assert_int_equal(hwbp_scenario_run_file("t.hws", in.f, &o, &st, err, sizeof(err)), 0);
		assert_int_equal(st.passed, 1);
		assert_int_equal(st.accesses, 1);
		close_input(&in);
	}
}

/* Arguments, and a stream that cannot be read. */
static void test_stream_args(void **state)
{
	struct hwbp_scenario_opts o = { HWBP_SIM_SDM, false, NULL };
	struct hwbp_scenario_stats st = { 0, 0, 0 };
	char err[128] = "x";
	FILE *dir = fopen("/", "r");

	(void)state;
	assert_int_equal(hwbp_scenario_run_file("t", NULL, &o, &st, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbp_scenario_run_file("t", stdin, NULL, &st, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbp_scenario_run_file("t", stdin, &o, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbp_scenario_run_file(NULL, stdin, &o, &st, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbp_scenario_compile_file("t", NULL, stdout, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbp_scenario_compile_file("t", stdin, NULL, err, sizeof(err)), -EINVAL);
	/* A directory opens, and its read fails. */
	assert_non_null(dir);
	assert_int_equal(hwbp_scenario_run_file("/", dir, &o, &st, err, sizeof(err)), -EISDIR);
	assert_string_equal(err, "");
	assert_int_equal(st.passed + st.failed + st.accesses, 0);
	fclose(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_runner),
		cmocka_unit_test(test_stream_scenarios),
		cmocka_unit_test(test_stream_errors),
		cmocka_unit_test(test_stream_limit),
		cmocka_unit_test(test_stream_lookahead),
		cmocka_unit_test(test_stream_offset),
		cmocka_unit_test(test_stream_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
