/* SPDX-License-Identifier: MIT */
/*
 * CTF 1.8 writer for the tracer's trace mode (see ctf.h).
 *
 * Layout.  One stream class, one event class ("hwbp_hit"), one stream file
 * per CPU: that is how CTF models per-CPU buffers (LTTng does the same),
 * and the reader merges the streams by timestamp, so the writer never has
 * to sort across CPUs.  Every field is byte-aligned (align = 8 bits) and in
 * host byte order, declared so in the metadata: the writer just copies
 * native integers, with no padding to compute and no byte swapping.
 *
 * Packets.  Each CPU buffers one packet of at most PACKET_MAX bytes; a
 * packet ends when the next event does not fit, or when hwbpi_ctf_lost()
 * says the CPU's ring lost events.  A packet's timestamp_end is not known
 * when it ends: it is the first timestamp of the CPU's next packet (or the
 * trace's last timestamp at close), so the packets of a stream tile time
 * without gaps, and events lost after a packet's last event (a ring in
 * discard-new mode drops the newest ones) still fall inside that packet's
 * time range.  Hence a packet is written only when its successor starts or
 * at close ("sealed" in between).
 *
 * Lost events.  events_discarded in the packet context is a snapshot: the
 * CPU's cumulative count of lost events at the end of the packet.  Readers
 * report the difference between consecutive packets (and a first packet's
 * non-zero count) as "discarded events" between the two packets' ends.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/ctf.h"

#define PACKET_MAX 65536u
#define NAME_MAX_BYTES 4095u   /* longest string field, without its NUL */
/* A caller's name, at most: 64 of them still fit a packet with room to
 * spare (64 * (8 + 256) bytes beside the 8 KiB of the other strings). */
#define CALLER_NAME_MAX 255u
#define MAX_WATCH 255u
#define CTF_MAGIC UINT32_C(0xC1FC1FC1)

/* Packet header + context, as the metadata declares them. */
enum {
	OFF_MAGIC = 0,                 /* uint32 */
	OFF_TS_BEGIN = 4,              /* uint64, clock */
	OFF_TS_END = 12,               /* uint64, clock */
	OFF_CONTENT_SIZE = 20,         /* uint64, bits */
	OFF_PACKET_SIZE = 28,          /* uint64, bits */
	OFF_DISCARDED = 36,            /* uint64 */
	OFF_CPU_ID = 44,               /* uint32 */
	PACKET_HDR = 48,
};

struct ctf_stream {
	FILE *f;
	bool made;                     /* this writer created the file */
	unsigned char *buf;
	size_t len;                    /* bytes of the packet so far (header included) */
	unsigned nev;                  /* events in it */
	bool sealed;                   /* ended; written when the next one starts */
	uint64_t begin;                /* its timestamp_begin */
	uint64_t discarded;            /* its events_discarded snapshot */
	uint64_t last_ts;              /* last event's timestamp (valid when any_ev) */
	bool any_ev;
	bool written;                  /* a packet is in the file */
	off_t bytes;                   /* the file's whole packets */
	uint64_t written_discarded, written_end;
};

struct hwbpi_ctf {
	unsigned ncpus, nwatch;
	bool stacks;                   /* HWBPI_CTF_STACKS */
	int dfd;                       /* the directory, while opening */
	bool made_meta;
	bool srcline;                  /* HWBPI_CTF_SRCLINE: events end with a src field */
	char **names;
	uint64_t min_ts, max_ts;       /* over all CPUs (valid when any_ev) */
	bool any_ev;
	uint64_t written;              /* events in packets the files took */
	struct ctf_stream s[];
};

static void put16(unsigned char *p, uint16_t v) { memcpy(p, &v, sizeof(v)); }
static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, sizeof(v)); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, sizeof(v)); }

static size_t name_len(const char *s)
{
	size_t n = strlen(s);

	return n > NAME_MAX_BYTES ? NAME_MAX_BYTES : n;
}

/* A string field: the bytes and a NUL (cut at NAME_MAX_BYTES). */
static unsigned char *put_str(unsigned char *p, const char *s)
{
	size_t n = name_len(s);

	memcpy(p, s, n);
	p[n] = '\0';
	return p + n + 1;
}

static bool host_is_le(void)
{
	const uint16_t one = 1;
	unsigned char b;

	memcpy(&b, &one, 1);
	return b == 1;
}

/* A TSDL string literal: quotes and backslashes escaped, controls dropped
 * (watch names come from user input such as "buf+8"). */
static void put_tsdl_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The errno of a failed write or close (-ENOSPC on a full disk), -EIO
 * when the C library did not say. */
static int io_err(void)
{
	return errno ? -errno : -EIO;
}

static int write_metadata(FILE *f, const struct hwbpi_ctf *c)
{
	fprintf(f,
		"/* CTF 1.8 */\n"
		"\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; base = 16; } := uint64_hex_t;\n"
		"\n"
		"trace {\n"
		"\tmajor = 1;\n"
		"\tminor = 8;\n"
		"\tbyte_order = %s;\n"
		"\tpacket.header := struct {\n"
		"\t\tuint32_t magic;\n"
		"\t};\n"
		"};\n"
		"\n"
		"env {\n"
		"\tdomain = \"hwbp\";\n"
		"\ttracer_name = \"hwbp\";\n"
		"\tncpus = %u;\n"
		"\tnwatch = %u;\n",
		host_is_le() ? "le" : "be", c->ncpus, c->nwatch);
	for (unsigned i = 0; i < c->nwatch; i++) {
		fprintf(f, "\twatch_%u = ", i);
		put_tsdl_string(f, c->names[i]);
		fputs(";\n", f);
	}
	fputs("};\n"
	      "\n"
	      /* The simulator's clock counts accesses, the hardware one
	       * nanoseconds: either way a 1 GHz clock starting at 0. */
	      "clock {\n"
	      "\tname = \"hwbp\";\n"
	      "\tdescription = \"hwbp event timestamp (ns; the simulator's access count for --backend sim)\";\n"
	      "\tfreq = 1000000000;\n"
	      "\toffset = 0;\n"
	      "};\n"
	      "\n"
	      "typealias integer { size = 64; align = 8; signed = false; map = clock.hwbp.value; } := uint64_clock_t;\n"
	      "\n"
	      "stream {\n"
	      "\tpacket.context := struct {\n"
	      "\t\tuint64_clock_t timestamp_begin;\n"
	      "\t\tuint64_clock_t timestamp_end;\n"
	      "\t\tuint64_t content_size;\n"
	      "\t\tuint64_t packet_size;\n"
	      "\t\tuint64_t events_discarded;\n"
	      "\t\tuint32_t cpu_id;\n"
	      "\t};\n"
	      "\tevent.header := struct {\n"
	      "\t\tuint64_clock_t timestamp;\n"
	      "\t};\n"
	      "};\n"
	      "\n"
	      "event {\n"
	      "\tname = \"hwbp_hit\";\n"
	      "\tid = 0;\n"
	      "\tfields := struct {\n"
	      "\t\tuint16_t cpu;\n"
	      "\t\tuint16_t bp;\n"
	      "\t\tstring watch;\n"
	      "\t\tuint64_hex_t addr;\n"
	      "\t\tuint64_hex_t ip;\n"
	      "\t\tenum : uint8_t { \"?\" = 0, \"R\" = 1, \"W\" = 2, \"X\" = 4 } kind;\n"
	      /* where the kind came from (HWBP_KIND_*): a kind is never a
	       * guess presented as fact */
	      "\t\tenum : uint8_t { unknown = 0, hw = 1, sim = 2, value = 3, type = 4, insn = 5 } kind_how;\n"
	      "\t\tstring func;\n"
	      "\t\tuint16_t size;\n"
	      /* the thread (0: not known); the watched bytes after the
	       * access (vflags 1) and before it (vflags 2), vsize of them as
	       * a little-endian integer */
	      "\t\tuint32_t tid;\n"
	      "\t\tuint8_t vflags;\n"
	      "\t\tuint8_t vsize;\n"
	      "\t\tuint64_hex_t value;\n"
	      "\t\tuint64_hex_t old;\n", f);
	/* --stack: the hit's call stack, the callers innermost first (the
	 * hit's own function is func): their return addresses, and their
	 * functions as "work+0x12" */
	if (c->stacks)
		fputs("\t\tuint32_t stack;\n"
		      "\t\tuint8_t ncallers;\n"
		      "\t\tuint64_hex_t callers[ncallers];\n"
		      "\t\tstring caller_names[ncallers];\n", f);
	/* The source line of the access ("file.c:LINE", "?"): only when
	 * asked for, so that a trace without it keeps its layout. */
	if (c->srcline)
		fputs("\t\tstring src;\n", f);
	fputs("\t};\n"
	      "};\n", f);
	errno = 0;
	return fflush(f) != 0 || ferror(f) ? io_err() : 0;
}

static void put_header(unsigned char *buf, size_t len, unsigned cpu, uint64_t begin, uint64_t end,
		       uint64_t discarded)
{
	uint64_t bits = (uint64_t)len * 8;

	put32(buf + OFF_MAGIC, CTF_MAGIC);
	put64(buf + OFF_TS_BEGIN, begin);
	put64(buf + OFF_TS_END, end);
	put64(buf + OFF_CONTENT_SIZE, bits);
	put64(buf + OFF_PACKET_SIZE, bits);
	put64(buf + OFF_DISCARDED, discarded);
	put32(buf + OFF_CPU_ID, cpu);
}

/* A packet's write failed (a full disk takes part of it): the file cut
 * back to its whole packets, which readers still read.  Returns the
 * write's errno. */
static int cut_back(struct ctf_stream *s)
{
	int ret = io_err();

	if (ftruncate(fileno(s->f), s->bytes) == 0)
		lseek(fileno(s->f), s->bytes, SEEK_SET);
	return ret;
}

/* Write the current packet of @s ending at @end and start an empty one. */
static int flush_packet(struct hwbpi_ctf *c, unsigned cpu, uint64_t end)
{
	struct ctf_stream *s = &c->s[cpu];

	/*
	 * A reader cannot tell how many events a stream's first packet lost
	 * (the count may not have started at 0), and says only "may have
	 * discarded".  An empty packet with count 0 at the stream's start
	 * makes the first loss an exact difference too.
	 */
	if (!s->written && s->discarded) {
		unsigned char hdr[PACKET_HDR];

		put_header(hdr, sizeof(hdr), cpu, s->begin, s->begin, 0);
		errno = 0;
		if (fwrite(hdr, 1, sizeof(hdr), s->f) != sizeof(hdr))
			return cut_back(s);
		s->bytes += (off_t)sizeof(hdr);
		s->written = true;
		s->written_discarded = 0;
		s->written_end = s->begin;
	}
	put_header(s->buf, s->len, cpu, s->begin, end, s->discarded);
	errno = 0;
	if (fwrite(s->buf, 1, s->len, s->f) != s->len)
		return cut_back(s);
	s->bytes += (off_t)s->len;
	c->written += s->nev;
	s->written = true;
	s->written_discarded = s->discarded;
	s->written_end = end;
	s->len = PACKET_HDR;
	s->nev = 0;
	s->sealed = false;
	s->begin = end;
	return 0;
}

static void free_ctf(struct hwbpi_ctf *c)
{
	for (unsigned i = 0; i < c->ncpus; i++) {
		if (c->s[i].f)
			fclose(c->s[i].f);
		free(c->s[i].buf);
	}
	for (unsigned i = 0; i < c->nwatch; i++)
		free(c->names[i]);
	if (c->dfd >= 0)
		close(c->dfd);
	free(c->names);
	free(c);
}

/* NAME or NAME<n> into @buf. */
static const char *file_name(char *buf, size_t n, const char *name, unsigned cpu, bool numbered)
{
	if (numbered)
		snprintf(buf, n, "%s%u", name, cpu);
	else
		snprintf(buf, n, "%s", name);
	return buf;
}

/* Create DIR/NAME[N], which must not exist (O_EXCL: never a file of the
 * user's, O_NOFOLLOW: never through a symlink planted there); on
 * failure *err is set. */
static FILE *open_file(int dfd, const char *name, unsigned n, bool numbered, int *err)
{
	char b[32];
	int fd = openat(dfd, file_name(b, sizeof(b), name, n, numbered),
			O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE *f;

	if (fd < 0) {
		*err = -errno;
		return NULL;
	}
	f = fdopen(fd, "wb");
	if (!f) {
		*err = errno ? -errno : -ENOMEM;
		close(fd);
		unlinkat(dfd, b, 0);
	}
	return f;
}

/* Undo a failed open: only the files it created, the directory if it
 * made it. */
static void remove_made(struct hwbpi_ctf *c, const char *dir, bool made_dir)
{
	char b[32];

	if (c->made_meta)
		unlinkat(c->dfd, "metadata", 0);
	for (unsigned i = 0; i < c->ncpus; i++)
		if (c->s[i].made)
			unlinkat(c->dfd, file_name(b, sizeof(b), "stream_", i, true), 0);
	if (made_dir)
		rmdir(dir);
}

static bool open_args_ok(const char *dir, unsigned ncpus, const char *const *watch_names,
			 unsigned nwatch)
{
	if (!dir || !*dir || ncpus == 0 || ncpus > HWBPI_CTF_MAX_CPUS || nwatch > MAX_WATCH ||
	    (nwatch && !watch_names))
		return false;
	for (unsigned i = 0; i < nwatch; i++)
		if (!watch_names[i])
			return false;
	return true;
}

/* The writer, in memory: the names copied, a packet buffer per CPU.
 * NULL: -ENOMEM. */
static struct hwbpi_ctf *new_ctf(unsigned ncpus, const char *const *watch_names, unsigned nwatch)
{
	struct hwbpi_ctf *c = calloc(1, sizeof(*c) + ncpus * sizeof(c->s[0]));

	if (!c)
		return NULL;
	c->ncpus = ncpus;
	c->dfd = -1;
	c->names = calloc(nwatch ? nwatch : 1, sizeof(*c->names));
	if (!c->names) {
		free(c);
		return NULL;
	}
	/* Copy the names now: the caller's table may not outlive the trace. */
	for (; c->nwatch < nwatch; c->nwatch++) {
		c->names[c->nwatch] = malloc(name_len(watch_names[c->nwatch]) + 1);
		if (!c->names[c->nwatch]) {
			free_ctf(c);
			return NULL;
		}
		put_str((unsigned char *)c->names[c->nwatch], watch_names[c->nwatch]);
	}
	for (unsigned i = 0; i < ncpus; i++) {
		c->s[i].buf = malloc(PACKET_MAX);
		if (!c->s[i].buf) {
			free_ctf(c);
			return NULL;
		}
		c->s[i].len = PACKET_HDR;
	}
	return c;
}

/* Whether @name is one this writer makes: "metadata", or "stream_N" with
 * N below HWBPI_CTF_MAX_CPUS written as it writes it (no leading 0). */
static bool own_name(const char *name)
{
	const char *p = name + 7;
	unsigned n = 0;

	if (strcmp(name, "metadata") == 0)
		return true;
	if (strncmp(name, "stream_", 7) != 0 || !*p || (p[0] == '0' && p[1]))
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || (n = n * 10 + (unsigned)(*p - '0')) >= HWBPI_CTF_MAX_CPUS)
			return false;
	}
	return true;
}

/* Whether DIR/metadata is a regular file (not a symlink) that this writer
 * wrote: it starts as write_metadata() starts and names hwbp as its
 * tracer. */
static bool own_metadata(int dfd)
{
	static const char head[] = "/* CTF 1.8 */\n";
	char buf[1024];
	struct stat st;
	ssize_t n;
	int fd = openat(dfd, "metadata", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return false;
	n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof(buf) - 1) : -1;
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strncmp(buf, head, sizeof(head) - 1) == 0 &&
	       strstr(buf, "\tdomain = \"hwbp\";\n\ttracer_name = \"hwbp\";\n") != NULL;
}

/*
 * An existing directory: taken when empty; with @force, when it holds only
 * an earlier trace of this writer (its metadata, regular stream_N files),
 * which is then removed.  Errors: -EEXIST (not empty, no @force),
 * -ENOTEMPTY (a file that is not hwbp's: nothing removed), -errno of
 * opendir/unlinkat.
 */
static int take_dir(int dfd, bool force)
{
	int fd = dup(dfd), ret = 0;
	bool any = false, meta = false;
	struct dirent *d;
	DIR *dp;

	if (fd < 0 || !(dp = fdopendir(fd))) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	while (ret == 0 && (d = readdir(dp))) {
		struct stat st;

		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		any = true;
		meta |= strcmp(d->d_name, "metadata") == 0;
		if (!force)
			ret = -EEXIST;
		else if (!own_name(d->d_name) ||
			 fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			ret = -ENOTEMPTY;
	}
	if (ret == 0 && any && (!meta || !own_metadata(dfd)))
		ret = -ENOTEMPTY;
	/* Only now, every name checked: remove the earlier trace. */
	if (ret == 0 && any) {
		rewinddir(dp);
		while (ret == 0 && (d = readdir(dp)))
			if (own_name(d->d_name) && unlinkat(dfd, d->d_name, 0) != 0)
				ret = -errno;
	}
	closedir(dp);
	return ret;
}

/* Directory @dir made (*made_dir) or an existing one taken (take_dir), its
 * descriptor in *@dfd.  Errors: -errno of mkdir()/open() (-ENOTDIR: a file
 * in the way), those of take_dir(). */
static int use_dir(const char *dir, bool force, bool *made_dir, int *dfd)
{
	int ret;

	if (mkdir(dir, 0777) == 0)
		*made_dir = true;
	else if (errno != EEXIST)
		return -errno;
	*dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dfd < 0) {
		ret = -errno;
		if (*made_dir)
			rmdir(dir);
		*made_dir = false;
		return ret;
	}
	return *made_dir ? 0 : take_dir(*dfd, force);
}

/* The metadata written, the stream files opened.  Errors: those of
 * open_file(), write_metadata(), io_err(). */
static int make_files(struct hwbpi_ctf *c)
{
	FILE *meta;
	int ret = 0;

	/* The metadata first: a trace cut short by a crash stays readable up
	 * to its last whole packet. */
	meta = open_file(c->dfd, "metadata", 0, false, &ret);
	if (!meta)
		return ret;
	c->made_meta = true;
	ret = write_metadata(meta, c);
	errno = 0;
	if (fclose(meta) != 0 && ret == 0)
		ret = io_err();
	if (ret)
		return ret;
	for (unsigned i = 0; i < c->ncpus; i++) {
		c->s[i].f = open_file(c->dfd, "stream_", i, true, &ret);
		if (!c->s[i].f)
			return ret;
		/* Unbuffered: packets are buffered here already, and a
		 * packet's fwrite failing then means it is not in the file,
		 * so the count of written events is exact. */
		setvbuf(c->s[i].f, NULL, _IONBF, 0);
		c->s[i].made = true;
	}
	return 0;
}

struct hwbpi_ctf *hwbpi_ctf_open(const char *dir, unsigned ncpus, const char *const *watch_names,
				 unsigned nwatch, unsigned flags, int *err)
{
	struct hwbpi_ctf *c;
	bool made_dir = false;
	int ret;

	if (!open_args_ok(dir, ncpus, watch_names, nwatch) || (flags & ~(HWBPI_CTF_FORCE | HWBPI_CTF_SRCLINE | HWBPI_CTF_STACKS))) {
		ret = -EINVAL;
		goto fail;
	}
	c = new_ctf(ncpus, watch_names, nwatch);
	if (!c) {
		ret = -ENOMEM;
		goto fail;
	}
	c->stacks = flags & HWBPI_CTF_STACKS;
	c->srcline = flags & HWBPI_CTF_SRCLINE;
	ret = use_dir(dir, flags & HWBPI_CTF_FORCE, &made_dir, &c->dfd);
	if (ret == 0)
		ret = make_files(c);
	if (ret) {
		remove_made(c, dir, made_dir);
		goto fail_free;
	}
	close(c->dfd);
	c->dfd = -1;
	return c;

fail_free:
	free_ctf(c);
fail:
	if (err)
		*err = ret;
	return NULL;
}

int hwbpi_ctf_write(struct hwbpi_ctf *c, const struct hwbp_trace_event *ev, const char *func_name)
{
	return hwbpi_ctf_write_full(c, ev, func_name, NULL, 0, NULL, NULL);
}

static size_t caller_len(const char *s)
{
	size_t n = strlen(s);

	return n > CALLER_NAME_MAX ? CALLER_NAME_MAX : n;
}

/* The bytes of the stack fields, and writing them (names cut as
 * caller_len says). */
static size_t stack_bytes(unsigned n, const char *names)
{
	size_t need = 4 + 1 + 8 * (size_t)n;

	for (unsigned i = 0; i < n; i++, names = names ? names + strlen(names) + 1 : NULL)
		need += (names ? caller_len(names) : 1) + 1;
	return need;
}

static unsigned char *put_stack(unsigned char *p, uint32_t id, const uint64_t *callers,
				unsigned n, const char *names)
{
	put32(p, id);
	p += 4;
	*p++ = (unsigned char)n;
	for (unsigned i = 0; i < n; i++, p += 8)
		put64(p, callers[i]);
	for (unsigned i = 0; i < n; i++) {
		const char *s = names ? names : "?";
		size_t l = caller_len(s);

		memcpy(p, s, l);
		p[l] = '\0';
		p += l + 1;
		if (names)
			names += strlen(names) + 1;
	}
	return p;
}

int hwbpi_ctf_write_src(struct hwbpi_ctf *c, const struct hwbp_trace_event *ev,
			const char *func_name, const char *src)
{
	return hwbpi_ctf_write_full(c, ev, func_name, NULL, 0, NULL, src);
}

int hwbpi_ctf_write_stack(struct hwbpi_ctf *c, const struct hwbp_trace_event *ev,
			  const char *func_name, const uint64_t *callers, unsigned n,
			  const char *names)
{
	return hwbpi_ctf_write_full(c, ev, func_name, callers, n, names, NULL);
}

int hwbpi_ctf_write_full(struct hwbpi_ctf *c, const struct hwbp_trace_event *ev,
			 const char *func_name, const uint64_t *callers, unsigned n,
			 const char *names, const char *src)
{
	struct ctf_stream *s;
	const char *watch;
	unsigned char *p;
	size_t need;
	int ret;

	if (!c || !ev || ev->cpu >= c->ncpus || ev->bp >= c->nwatch ||
	    n > HWBPI_CTF_MAX_CALLERS || (n && !callers))
		return -EINVAL;
	s = &c->s[ev->cpu];
	/* Readers reject a stream whose time goes backwards. */
	if (s->any_ev && ev->ts < s->last_ts)
		return -ERANGE;
	if (!func_name)
		func_name = "?";
	watch = c->names[ev->bp];
	if (!src)
		src = "?";
	need = 8 + 2 + 2 + name_len(watch) + 1 + 8 + 8 + 1 + 1 + name_len(func_name) + 1 + 2 +
	       4 + 1 + 1 + 8 + 8 + (c->stacks ? stack_bytes(n, names) : 0) +
	       (c->srcline ? name_len(src) + 1 : 0);
	if (s->sealed || (s->nev && s->len + need > PACKET_MAX)) {
		ret = flush_packet(c, ev->cpu, ev->ts);
		if (ret)
			return ret;
	}
	if (s->nev == 0 && !s->written)
		s->begin = ev->ts;
	p = s->buf + s->len;
	put64(p, ev->ts);
	p += 8;
	put16(p, ev->cpu);
	p += 2;
	put16(p, ev->bp);
	p += 2;
	p = put_str(p, watch);
	put64(p, ev->addr);
	p += 8;
	put64(p, ev->ip);
	p += 8;
	*p++ = ev->kind;
	*p++ = ev->kind_how;
	p = put_str(p, func_name);
	put16(p, ev->size);
	p += 2;
	put32(p, ev->tid);
	p += 4;
	*p++ = ev->vflags;
	*p++ = ev->vsize;
	put64(p, ev->value);
	p += 8;
	put64(p, ev->old);
	p += 8;
	if (c->stacks)
		p = put_stack(p, ev->stack, callers, n, names);
	if (c->srcline)
		p = put_str(p, src);
	s->len = (size_t)(p - s->buf);
	s->nev++;
	s->last_ts = ev->ts;
	s->any_ev = true;
	if (!c->any_ev || ev->ts < c->min_ts)
		c->min_ts = ev->ts;
	if (!c->any_ev || ev->ts > c->max_ts)
		c->max_ts = ev->ts;
	c->any_ev = true;
	return 0;
}

int hwbpi_ctf_lost(struct hwbpi_ctf *c, unsigned cpu, uint64_t lost_total)
{
	struct ctf_stream *s;

	if (!c || cpu >= c->ncpus || lost_total < c->s[cpu].discarded)
		return -EINVAL;
	s = &c->s[cpu];
	if (lost_total == s->discarded)
		return 0;
	/* A sealed packet not yet written takes the new count too: its end
	 * will be the next event's time, so these losses fall inside it.  An
	 * empty packet just carries the count to its first event. */
	s->discarded = lost_total;
	if (s->nev)
		s->sealed = true;
	return 0;
}

int hwbpi_ctf_close(struct hwbpi_ctf *c, const uint64_t *lost_per_cpu, uint64_t *written)
{
	int ret = 0;

	if (written)
		*written = 0;
	if (!c)
		return 0;
	for (unsigned i = 0; i < c->ncpus; i++) {
		struct ctf_stream *s = &c->s[i];
		uint64_t end = c->any_ev ? c->max_ts : 0;

		if (lost_per_cpu && lost_per_cpu[i] > s->discarded)
			s->discarded = lost_per_cpu[i];
		if (!s->written && s->nev == 0)
			s->begin = c->any_ev ? c->min_ts : 0;   /* an empty stream spans the trace */
		/* The last packet, unless it is empty and says nothing new. */
		if (s->nev || !s->written || s->discarded != s->written_discarded) {
			if (s->begin > end)
				end = s->begin;
			int r = flush_packet(c, i, end);

			if (r && ret == 0)
				ret = r;
		}
		errno = 0;
		if (fclose(s->f) != 0 && ret == 0)
			ret = io_err();
		s->f = NULL;
	}
	if (written)
		*written = c->written;
	free_ctf(c);
	return ret;
}
