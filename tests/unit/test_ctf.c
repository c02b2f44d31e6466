/* SPDX-License-Identifier: MIT */
/*
 * The CTF writer (tracer/output/ctf.c): argument errors, the binary packets read
 * back field by field (header, context, events), packet splitting and
 * tiling, lost-event snapshots, directory reuse, the src field of
 * HWBPI_CTF_SRCLINE.  babeltrace2 reading the result is
 * tests/trace/ctf_test.sh (and srcline_test.sh for src).
 */
#define _XOPEN_SOURCE 700   /* nftw */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "output/ctf.h"

static const char *const names2[] = { "jiffies", "buf+8" };

/* A fresh directory path under the test's temporary one. */
static char base[256];
static unsigned seq;

static int setup_all(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(base, sizeof(base), "%s/test_ctf_XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(base) ? 0 : -1;
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

static int teardown_all(void **state)
{
	(void)state;
	return rm_tree(base) == 0 ? 0 : -1;
}

static void new_dir(char *out, size_t len)
{
	snprintf(out, len, "%s/t%u", base, seq++);
}

/* The whole of DIR/NAME, or NULL; *len its size. */
static unsigned char *slurp(const char *dir, const char *name, size_t *len)
{
	char p[400];
	FILE *f;
	unsigned char *buf;
	long n;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static uint16_t get16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* One packet as read back. */
struct pkt {
	uint64_t begin, end, content_bits, packet_bits, discarded;
	uint32_t cpu;
	unsigned nev;
	uint64_t first_ts, last_ts;
};

/* An event read back (strings point into the buffer). */
struct rev {
	uint64_t ts, addr, ip;
	uint16_t cpu, bp, size;
	uint8_t kind, how;
	const char *watch, *func;
	uint32_t tid;
	uint8_t vflags, vsize;
	uint64_t value, old;
};

static const unsigned char *read_event(const unsigned char *p, struct rev *e)
{
	e->ts = get64(p); p += 8;
	e->cpu = get16(p); p += 2;
	e->bp = get16(p); p += 2;
	e->watch = (const char *)p; p += strlen(e->watch) + 1;
	e->addr = get64(p); p += 8;
	e->ip = get64(p); p += 8;
	e->kind = *p++;
	e->how = *p++;
	e->func = (const char *)p; p += strlen(e->func) + 1;
	e->size = get16(p); p += 2;
	e->tid = get32(p); p += 4;
	e->vflags = *p++;
	e->vsize = *p++;
	e->value = get64(p); p += 8;
	e->old = get64(p); p += 8;
	return p;
}

/* Split a stream file into packets (checking magic and sizes); returns
 * the count, fills up to @max; the events go to @evs (up to @maxev). */
static unsigned read_stream(const char *dir, unsigned cpu, struct pkt *pk, unsigned max,
			    struct rev *evs, unsigned maxev, unsigned *nev, unsigned char **keep)
{
	char name[32];
	size_t len, off = 0;
	unsigned n = 0;
	unsigned char *b;

	snprintf(name, sizeof(name), "stream_%u", cpu);
	b = slurp(dir, name, &len);
	assert_non_null(b);
	*nev = 0;
	while (off < len) {
		const unsigned char *p = b + off, *end;
		struct pkt k;

		assert_true(len - off >= 48);
		assert_int_equal(get32(p), 0xC1FC1FC1u);
		k.begin = get64(p + 4);
		k.end = get64(p + 12);
		k.content_bits = get64(p + 20);
		k.packet_bits = get64(p + 28);
		k.discarded = get64(p + 36);
		k.cpu = get32(p + 44);
		assert_int_equal(k.content_bits, k.packet_bits);
		assert_int_equal(k.content_bits % 8, 0);
		assert_true(off + k.packet_bits / 8 <= len);
		assert_true(k.begin <= k.end);
		end = p + k.packet_bits / 8;
		p += 48;
		k.nev = 0;
		while (p < end) {
			struct rev e;

			p = read_event(p, &e);
			assert_true(p <= end);
			assert_true(e.ts >= k.begin && e.ts <= k.end);
			if (k.nev == 0)
				k.first_ts = e.ts;
			k.last_ts = e.ts;
			k.nev++;
			if (*nev < maxev)
				evs[*nev] = e;
			(*nev)++;
		}
		if (n < max)
			pk[n] = k;
		n++;
		off += k.packet_bits / 8;
	}
	*keep = b;
	return n;
}

static struct hwbp_trace_event ev(uint64_t ts, unsigned cpu, unsigned bp, unsigned kind)
{
	struct hwbp_trace_event e;

	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.cpu = (uint16_t)cpu;
	e.bp = (uint16_t)bp;
	e.kind = (uint8_t)kind;
	e.kind_how = HWBP_KIND_SIM;
	e.ip = 0xffffffff81000020ull + ts;
	e.addr = 0xffffffff82a00000ull + bp;
	e.size = 8;
	return e;
}

/* ---- argument errors ---------------------------------------------- */

static void test_open_errors(void **state)
{
	static const char *const with_null[] = { "a", NULL };
	char dir[300], file[300];
	const struct {
		const char *dir;
		unsigned ncpus;
		const char *const *names;
		unsigned nwatch;
		int err;
	} cases[] = {
		{ NULL, 1, names2, 2, -EINVAL },
		{ "", 1, names2, 2, -EINVAL },
		{ dir, 0, names2, 2, -EINVAL },
		{ dir, HWBPI_CTF_MAX_CPUS + 1, names2, 2, -EINVAL },
		{ dir, 1, NULL, 2, -EINVAL },
		{ dir, 1, with_null, 2, -EINVAL },
		{ dir, 1, names2, 256, -EINVAL },
		{ file, 1, names2, 2, -ENOTDIR },     /* a file in the way */
		{ "/proc/no/such/dir", 1, names2, 2, -ENOENT },
	};
	FILE *f;

	(void)state;
	new_dir(dir, sizeof(dir));
	snprintf(file, sizeof(file), "%s/afile", base);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = 0;
		struct stat st;

		assert_null(hwbpi_ctf_open(cases[i].dir, cases[i].ncpus, cases[i].names,
					   cases[i].nwatch, 0, &err));
		assert_int_equal(err, cases[i].err);
		/* a failed open leaves nothing behind */
		assert_int_not_equal(stat(dir, &st), 0);
	}
	assert_null(hwbpi_ctf_open(NULL, 1, names2, 2, 0, NULL));   /* err may be NULL */
}

static void test_write_errors(void **state)
{
	char dir[300];
	int err = 0;
	struct hwbpi_ctf *c;
	struct hwbp_trace_event e = ev(10, 0, 0, HWBP_W);
	const struct {
		struct hwbp_trace_event e;
		int ret;
	} cases[] = {
		{ ev(11, 2, 0, HWBP_R), -EINVAL },   /* cpu 2 of 2 */
		{ ev(11, 0, 2, HWBP_R), -EINVAL },   /* bp 2 of 2 */
		{ ev(9, 0, 0, HWBP_R), -ERANGE },    /* time goes back on cpu 0 */
		{ ev(10, 0, 1, HWBP_R), 0 },         /* equal time is fine */
		{ ev(5, 1, 1, HWBP_R), 0 },          /* another CPU has its own time */
	};
	struct pkt pk[4];
	struct rev evs[8];
	unsigned nev;
	unsigned char *b;

	(void)state;
	new_dir(dir, sizeof(dir));
	c = hwbpi_ctf_open(dir, 2, names2, 2, 0, &err);
	assert_non_null(c);
	assert_int_equal(hwbpi_ctf_write(NULL, &e, "f"), -EINVAL);
	assert_int_equal(hwbpi_ctf_write(c, NULL, "f"), -EINVAL);
	assert_int_equal(hwbpi_ctf_write(c, &e, "do_timer"), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(hwbpi_ctf_write(c, &cases[i].e, NULL), cases[i].ret);
	assert_int_equal(hwbpi_ctf_lost(NULL, 0, 1), -EINVAL);
	assert_int_equal(hwbpi_ctf_lost(c, 2, 1), -EINVAL);
	assert_int_equal(hwbpi_ctf_lost(c, 0, 3), 0);
	assert_int_equal(hwbpi_ctf_lost(c, 0, 2), -EINVAL);   /* counts only grow */
	assert_int_equal(hwbpi_ctf_lost(c, 0, 3), 0);
	{
		uint64_t written = 99;

		assert_int_equal(hwbpi_ctf_close(c, NULL, &written), 0);
		assert_int_equal(written, 3);   /* the events written above */
		assert_int_equal(hwbpi_ctf_close(NULL, NULL, &written), 0);
		assert_int_equal(written, 0);
	}
	assert_int_equal(hwbpi_ctf_close(NULL, NULL, NULL), 0);
	/* the failed writes left nothing: cpu 0 has its two good events */
	assert_int_equal(read_stream(dir, 0, pk, 4, evs, 8, &nev, &b), 2);   /* +1 empty start packet */
	assert_int_equal(nev, 2);
	assert_string_equal(evs[0].func, "do_timer");
	assert_string_equal(evs[1].func, "?");
	assert_string_equal(evs[1].watch, "buf+8");
	free(b);
}

/* ---- content ------------------------------------------------------ */

static void test_fields_and_metadata(void **state)
{
	char dir[300];
	int err = 0;
	struct hwbpi_ctf *c;
	struct hwbp_trace_event e = ev(7, 1, 1, HWBP_R);
	struct pkt pk[2];
	struct rev r[2];
	unsigned nev;
	unsigned char *b;
	size_t len;
	char *meta;

	(void)state;
	new_dir(dir, sizeof(dir));
	c = hwbpi_ctf_open(dir, 3, names2, 2, 0, &err);
	assert_non_null(c);
	e.size = 4;
	e.kind_how = HWBP_KIND_VALUE;
	e.tid = 4242;
	e.vflags = HWBP_EV_VALUE | HWBP_EV_OLD;
	e.vsize = 4;
	e.value = 0x11223344;
	e.old = 0x55667788;
	assert_int_equal(hwbpi_ctf_write(c, &e, "copy_process"), 0);
	assert_int_equal(hwbpi_ctf_close(c, NULL, NULL), 0);

	assert_int_equal(read_stream(dir, 1, pk, 2, r, 2, &nev, &b), 1);
	assert_int_equal(nev, 1);
	assert_int_equal(pk[0].cpu, 1);
	assert_int_equal(pk[0].begin, 7);
	assert_int_equal(pk[0].end, 7);
	assert_int_equal(pk[0].discarded, 0);
	assert_int_equal(r[0].ts, 7);
	assert_int_equal(r[0].cpu, 1);
	assert_int_equal(r[0].bp, 1);
	assert_string_equal(r[0].watch, "buf+8");
	assert_int_equal(r[0].addr, e.addr);
	assert_int_equal(r[0].ip, e.ip);
	assert_int_equal(r[0].kind, HWBP_R);
	assert_int_equal(r[0].how, HWBP_KIND_VALUE);
	assert_string_equal(r[0].func, "copy_process");
	assert_int_equal(r[0].size, 4);
	assert_int_equal(r[0].tid, 4242);
	assert_int_equal(r[0].vflags, HWBP_EV_VALUE | HWBP_EV_OLD);
	assert_int_equal(r[0].vsize, 4);
	assert_int_equal(r[0].value, 0x11223344);
	assert_int_equal(r[0].old, 0x55667788);
	free(b);
	/* CPUs without events: one empty packet spanning the trace */
	for (unsigned cpu = 0; cpu < 3; cpu += 2) {
		assert_int_equal(read_stream(dir, cpu, pk, 2, r, 2, &nev, &b), 1);
		assert_int_equal(nev, 0);
		assert_int_equal(pk[0].cpu, cpu);
		assert_int_equal(pk[0].begin, 7);
		assert_int_equal(pk[0].end, 7);
		free(b);
	}
	meta = (char *)slurp(dir, "metadata", &len);
	assert_non_null(meta);
	assert_memory_equal(meta, "/* CTF 1.8 */\n", 14);
	assert_non_null(strstr(meta, "name = \"hwbp_hit\";"));
	assert_non_null(strstr(meta, "watch_1 = \"buf+8\";"));
	assert_non_null(strstr(meta, "ncpus = 3;"));
	assert_non_null(strstr(meta, "uint64_t events_discarded;"));
	{
		const uint16_t one = 1;
		unsigned char lo;

		memcpy(&lo, &one, 1);
		assert_non_null(strstr(meta, lo == 1 ? "byte_order = le;" : "byte_order = be;"));
	}
	free(meta);
}

/* HWBPI_CTF_STACKS: after size, the stack id, ncallers, the callers'
 * return addresses and their names (cut at 255 bytes; "?" without
 * names), declared in the metadata; errors for a bad caller count. */
static void test_stack_fields(void **state)
{
	static const uint64_t callers[] = { 0x1140, 0x10f0 };
	static uint64_t many[HWBPI_CTF_MAX_CALLERS + 1];
	char dir[300], longname[300], *names, *meta;
	struct hwbp_trace_event e = ev(3, 0, 0, HWBP_W);
	const unsigned char *p, *end;
	unsigned char *b;
	struct hwbpi_ctf *c;
	struct rev r;
	size_t len, nl;
	int err = 0;

	(void)state;
	new_dir(dir, sizeof(dir));
	assert_null(hwbpi_ctf_open(dir, 1, names2, 2, 8, &err));   /* unknown flag */
	assert_int_equal(err, -EINVAL);
	c = hwbpi_ctf_open(dir, 1, names2, 2, HWBPI_CTF_STACKS, &err);
	assert_non_null(c);
	assert_int_equal(hwbpi_ctf_write_stack(c, &e, "f", NULL, 1, NULL), -EINVAL);
	assert_int_equal(hwbpi_ctf_write_stack(c, &e, "f", many, HWBPI_CTF_MAX_CALLERS + 1, NULL),
			 -EINVAL);
	/* 1: two callers, named; 2: none (hwbpi_ctf_write); 3: unnamed;
	 * 4: the most callers, the longest names */
	e.stack = 7;
	assert_int_equal(hwbpi_ctf_write_stack(c, &e, "bump", callers, 2, "work+0x40\0main+0xf0"), 0);
	e.ts = 4;
	e.stack = 0;
	assert_int_equal(hwbpi_ctf_write(c, &e, "bump"), 0);
	e.ts = 5;
	e.stack = 9;
	assert_int_equal(hwbpi_ctf_write_stack(c, &e, "bump", callers, 2, NULL), 0);
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	nl = sizeof(longname);
	names = malloc(HWBPI_CTF_MAX_CALLERS * nl);
	assert_non_null(names);
	for (unsigned i = 0; i < HWBPI_CTF_MAX_CALLERS; i++) {
		memcpy(names + i * nl, longname, nl);
		many[i] = 0x5000 + i;
	}
	e.ts = 6;
	e.stack = UINT32_MAX;
	assert_int_equal(hwbpi_ctf_write_stack(c, &e, "bump", many, HWBPI_CTF_MAX_CALLERS, names), 0);
	free(names);
	assert_int_equal(hwbpi_ctf_close(c, NULL, NULL), 0);

	b = slurp(dir, "stream_0", &len);
	assert_non_null(b);
	p = b + 48;
	end = b + len;
	for (unsigned k = 0; k < 4; k++) {
		static const uint32_t id[] = { 7, 0, 9, UINT32_MAX };
		static const unsigned n[] = { 2, 0, 2, HWBPI_CTF_MAX_CALLERS };

		p = read_event(p, &r);
		assert_int_equal(r.ts, 3 + k);
		assert_string_equal(r.func, "bump");
		assert_int_equal(get32(p), id[k]);
		assert_int_equal(p[4], n[k]);
		p += 5;
		for (unsigned i = 0; i < n[k]; i++, p += 8)
			assert_true(get64(p) == (k == 3 ? 0x5000 + i : callers[i]));
		for (unsigned i = 0; i < n[k]; i++) {
			const char *want = k == 0 ? (i ? "main+0xf0" : "work+0x40") : k == 2 ? "?" : NULL;

			if (want)
				assert_string_equal((const char *)p, want);
			else
				assert_memory_equal(p, longname, 255);
			assert_int_equal(strlen((const char *)p), want ? strlen(want) : 255);
			p += strlen((const char *)p) + 1;
		}
	}
	assert_ptr_equal(p, end);   /* one packet, nothing else */
	free(b);
	meta = (char *)slurp(dir, "metadata", &len);
	assert_non_null(strstr(meta, "\t\tuint64_hex_t old;\n\t\tuint32_t stack;\n\t\tuint8_t ncallers;\n"
				     "\t\tuint64_hex_t callers[ncallers];\n"
				     "\t\tstring caller_names[ncallers];\n\t};\n"));
	free(meta);
	/* without the flag: no stack fields declared */
	new_dir(dir, sizeof(dir));
	c = hwbpi_ctf_open(dir, 1, names2, 2, 0, &err);
	assert_non_null(c);
	assert_int_equal(hwbpi_ctf_close(c, NULL, NULL), 0);
	meta = (char *)slurp(dir, "metadata", &len);
	assert_null(strstr(meta, "ncallers"));
	assert_non_null(strstr(meta, "\t\tuint64_hex_t old;\n\t};\n"));
	free(meta);
}

/* HWBPI_CTF_SRCLINE: every event ends with its src string ("?" for
 * NULL), declared last in the metadata; without the flag neither. */
static void test_srcline_field(void **state)
{
	static const char *const src[] = { "prog.c:16", NULL, "" };
	char dir[300];
	struct hwbpi_ctf *c;
	unsigned char *b;
	size_t len;
	char *meta;
	int err = 0;

	(void)state;
	for (int flag = 0; flag < 2; flag++) {
		const unsigned char *p;

		new_dir(dir, sizeof(dir));
		c = hwbpi_ctf_open(dir, 1, names2, 2, flag ? HWBPI_CTF_SRCLINE : 0, &err);
		assert_non_null(c);
		for (unsigned i = 0; i < 3; i++) {
			struct hwbp_trace_event e = ev(10 + i, 0, i % 2, HWBP_W);

			assert_int_equal(hwbpi_ctf_write_src(c, &e, "work", src[i]), 0);
		}
		assert_int_equal(hwbpi_ctf_close(c, NULL, NULL), 0);
		b = slurp(dir, "stream_0", &len);
		assert_non_null(b);
		p = b + 48;
		for (unsigned i = 0; i < 3; i++) {
			struct rev r;

			p = read_event(p, &r);
			assert_int_equal(r.ts, 10 + i);
			assert_string_equal(r.func, "work");
			if (flag) {
				assert_string_equal((const char *)p, src[i] ? src[i] : "?");
				p += strlen((const char *)p) + 1;
			}
		}
		assert_int_equal((size_t)(p - b), len);   /* nothing else in the packet */
		free(b);
		meta = (char *)slurp(dir, "metadata", &len);
		assert_non_null(meta);
		if (flag)
			assert_non_null(strstr(meta, "\t\tuint64_hex_t old;\n\t\tstring src;\n\t};"));
		else
			assert_null(strstr(meta, "src"));
		free(meta);
	}
}

/* Many events: packets split at 64 KiB and tile time exactly. */
static void test_packets_tile(void **state)
{
	enum { N = 5000 };
	char dir[300];
	int err = 0;
	struct hwbpi_ctf *c;
	struct pkt pk[16];
	static struct rev r[N];
	unsigned nev, np;
	unsigned char *b;

	(void)state;
	new_dir(dir, sizeof(dir));
	c = hwbpi_ctf_open(dir, 1, names2, 2, 0, &err);
	assert_non_null(c);
	for (unsigned i = 0; i < N; i++) {
		struct hwbp_trace_event e = ev(100 + 2 * i, 0, i & 1, (i & 1) ? HWBP_R : HWBP_W);

		assert_int_equal(hwbpi_ctf_write(c, &e, "a_function_name"), 0);
	}
	assert_int_equal(hwbpi_ctf_close(c, NULL, NULL), 0);
	np = read_stream(dir, 0, pk, 16, r, N, &nev, &b);
	assert_true(np >= 2 && np <= 16);
	assert_int_equal(nev, N);
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(r[i].ts, 100 + 2 * i);
		assert_int_equal(r[i].bp, i & 1);
	}
	for (unsigned i = 0; i < np; i++) {
		assert_true(pk[i].packet_bits / 8 <= 65536);
		assert_true(pk[i].nev > 0);
		if (i > 0) {
			assert_int_equal(pk[i].begin, pk[i - 1].end);   /* no gap */
			assert_int_equal(pk[i].begin, pk[i].first_ts);
		}
	}
	assert_int_equal(pk[0].begin, 100);
	assert_int_equal(pk[np - 1].end, 100 + 2 * (N - 1));
	free(b);
}

/*
 * Lost events: a table of (events, lost_total) steps on one CPU; each
 * growth ends a packet whose snapshot is the new total, a first packet
 * with losses is preceded by an empty one with 0, and close's count
 * goes into the last packet.
 */
static void test_lost_snapshots(void **state)
{
	const struct {
		unsigned events;          /* written, then ... */
		uint64_t lost;            /* ... hwbpi_ctf_lost(c, 0, lost) */
	} steps[] = { { 3, 5 }, { 2, 5 }, { 4, 9 }, { 0, 12 }, { 1, 12 } };
	const uint64_t at_close = 20;
	/* expected packets: empty start (0), 3 events (5), 6 events (9, then
	 * 12: still unwritten, its end is the next event's time, so the
	 * later loss falls inside it), 1 event (12 -> 20 at close) */
	const struct {
		unsigned nev;
		uint64_t discarded;
	} want[] = { { 0, 0 }, { 3, 5 }, { 6, 12 }, { 1, 20 } };
	char dir[300];
	int err = 0;
	struct hwbpi_ctf *c;
	struct pkt pk[8];
	struct rev r[32];
	unsigned nev, np;
	unsigned char *b;
	uint64_t ts = 1, lost[2] = { at_close, 0 };

	(void)state;
	new_dir(dir, sizeof(dir));
	c = hwbpi_ctf_open(dir, 2, names2, 2, 0, &err);
	assert_non_null(c);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		for (unsigned k = 0; k < steps[i].events; k++) {
			struct hwbp_trace_event e = ev(ts++, 0, 0, HWBP_R);

			assert_int_equal(hwbpi_ctf_write(c, &e, "f"), 0);
		}
		assert_int_equal(hwbpi_ctf_lost(c, 0, steps[i].lost), 0);
	}
	assert_int_equal(hwbpi_ctf_close(c, lost, NULL), 0);
	np = read_stream(dir, 0, pk, 8, r, 32, &nev, &b);
	assert_int_equal(np, sizeof(want) / sizeof(want[0]));
	for (unsigned i = 0; i < np; i++) {
		assert_int_equal(pk[i].nev, want[i].nev);
		assert_int_equal(pk[i].discarded, want[i].discarded);
		if (i > 0)
			assert_int_equal(pk[i].begin, pk[i - 1].end);
	}
	free(b);
	/* CPU 1: no events, no loss: one empty packet with 0 */
	assert_int_equal(read_stream(dir, 1, pk, 8, r, 32, &nev, &b), 1);
	assert_int_equal(pk[0].discarded, 0);
	free(b);
}

/* @path holds exactly @text (a user's file left as it was). */
static void assert_file_is(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char p[400];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static bool exists(const char *dir, const char *name)
{
	char p[400];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return lstat(p, &st) == 0;
}

/* An existing directory: an empty one is taken; a non-empty one refused
 * (EEXIST) unless force, and with force only an earlier trace of this
 * writer is replaced (stale streams of a wider trace go too); a file that
 * is not its own, a foreign or symlinked metadata: ENOTEMPTY, nothing
 * touched. */
static void test_reuse_dir(void **state)
{
	char dir[300], p[400], q[400];
	int err = 0;
	struct hwbpi_ctf *c;
	struct hwbp_trace_event e = ev(1, 0, 0, HWBP_W);
	static char longname[6000];
	struct pkt pk[2];
	struct rev r[2];
	unsigned nev;
	unsigned char *b;

	(void)state;
	new_dir(dir, sizeof(dir));
	assert_int_equal(mkdir(dir, 0777), 0);   /* empty: taken */
	c = hwbpi_ctf_open(dir, 4, names2, 2, 0, &err);
	assert_non_null(c);
	assert_int_equal(hwbpi_ctf_close(c, NULL, NULL), 0);
	/* not empty, no force: refused, the trace left whole */
	err = 0;
	assert_null(hwbpi_ctf_open(dir, 2, names2, 2, 0, &err));
	assert_int_equal(err, -EEXIST);
	assert_true(exists(dir, "metadata") && exists(dir, "stream_3"));
	/* force: the earlier trace replaced, the stale stream_2/3 gone */
	c = hwbpi_ctf_open(dir, 2, names2, 2, HWBPI_CTF_FORCE, &err);
	assert_non_null(c);
	memset(longname, 'x', sizeof(longname) - 1);
	assert_int_equal(hwbpi_ctf_write(c, &e, longname), 0);
	assert_int_equal(hwbpi_ctf_close(c, NULL, NULL), 0);
	assert_false(exists(dir, "stream_2") || exists(dir, "stream_3"));
	assert_true(exists(dir, "stream_1"));
	assert_int_equal(read_stream(dir, 0, pk, 2, r, 2, &nev, &b), 1);
	assert_int_equal(nev, 1);
	assert_int_equal(strlen(r[0].func), 4095);   /* cut */
	free(b);
	/* force, and a file that is not hwbp's: nothing removed */
	put_file(dir, "README", "mine\n");
	assert_null(hwbpi_ctf_open(dir, 2, names2, 2, HWBPI_CTF_FORCE, &err));
	assert_int_equal(err, -ENOTEMPTY);
	assert_true(exists(dir, "metadata") && exists(dir, "stream_0") && exists(dir, "stream_1"));
	assert_file_is(strcat(strcpy(p, dir), "/README"), "mine\n");

	/* a user's own metadata, with and without force: never touched */
	new_dir(dir, sizeof(dir));
	assert_int_equal(mkdir(dir, 0777), 0);
	put_file(dir, "metadata", "my notes\n");
	snprintf(p, sizeof(p), "%s/metadata", dir);
	assert_null(hwbpi_ctf_open(dir, 1, names2, 2, 0, &err));
	assert_int_equal(err, -EEXIST);
	assert_file_is(p, "my notes\n");
	assert_null(hwbpi_ctf_open(dir, 1, names2, 2, HWBPI_CTF_FORCE, &err));
	assert_int_equal(err, -ENOTEMPTY);
	assert_file_is(p, "my notes\n");
	assert_false(exists(dir, "stream_0"));

	/* metadata a symlink to an hwbp metadata elsewhere: not followed,
	 * neither the link nor its target touched */
	new_dir(dir, sizeof(dir));
	c = hwbpi_ctf_open(dir, 1, names2, 2, 0, &err);
	assert_non_null(c);
	assert_int_equal(hwbpi_ctf_close(c, NULL, NULL), 0);
	snprintf(p, sizeof(p), "%s/metadata", dir);
	snprintf(q, sizeof(q), "%s.meta", dir);
	assert_int_equal(rename(p, q), 0);
	assert_int_equal(symlink(q, p), 0);
	assert_null(hwbpi_ctf_open(dir, 1, names2, 2, HWBPI_CTF_FORCE, &err));
	assert_int_equal(err, -ENOTEMPTY);
	{
		struct stat st;

		assert_int_equal(lstat(p, &st), 0);
		assert_true(S_ISLNK(st.st_mode));
		assert_int_equal(stat(q, &st), 0);
		assert_true(st.st_size > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_fields_and_metadata),
		cmocka_unit_test(test_stack_fields),
		cmocka_unit_test(test_srcline_field),
		cmocka_unit_test(test_packets_tile),
		cmocka_unit_test(test_lost_snapshots),
		cmocka_unit_test(test_reuse_dir),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
