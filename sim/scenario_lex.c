/* SPDX-License-Identifier: MIT */
/*
 * The scenario language's lexer: the lines of a text or a stream, the words
 * of one line, numbers, addresses (NUMBER, B+OFF, C+OFF) and the one error
 * format, "FILE:LINE:COL: ...", whose column points at the offending
 * character.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

/* ------------------------------------------------------------ lines */

/* Room for the longest line, its newline, and as much again of what
 * follows, so that a refill reads at least a longest line's worth. */
#define SRC_BUF (2 * ((size_t)HWBP_SCENARIO_LINE_MAX + 1))

void hwbpi_scn_src_text(struct hwbpi_scn_src *s, const char *text, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->data = text;
	s->end = len;
	s->eof = true;
}

void hwbpi_scn_src_stream(struct hwbpi_scn_src *s, FILE *in)
{
	memset(s, 0, sizeof(*s));
	s->in = in;
}

void hwbpi_scn_src_free(struct hwbpi_scn_src *s)
{
	if (s->spool)
		fclose(s->spool);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

/* A stream's first read: its buffer, its offset now (the second pass
 * starts there: the caller may have read a header before), or a spool
 * when it cannot seek (ftello fails with ESPIPE). */
static int src_start(struct hwbpi_scn_src *s)
{
	s->buf = malloc(SRC_BUF);
	if (!s->buf)
		return -ENOMEM;
	s->data = s->buf;
	s->started = true;
	s->origin = s->base = ftello(s->in);
	if (s->base >= 0)
		return 0;
	s->origin = s->base = 0;
	errno = 0;
	s->spool = tmpfile();
	return s->spool ? 0 : (errno ? -errno : -EIO);
}

/* More of the stream after what is not yet taken, which moves to the
 * front of the buffer. */
static int src_refill(struct hwbpi_scn_src *s)
{
	size_t have = s->end - s->start, want, got;

	memmove(s->buf, s->buf + s->start, have);
	s->base += (off_t)s->start;
	s->start = 0;
	s->end = have;
	want = SRC_BUF - have;
	errno = 0;
	got = fread(s->buf + have, 1, want, s->in);
	s->end += got;
	if (got < want && ferror(s->in))
		return errno ? -errno : -EIO;
	s->eof = got < want;
	return 0;
}

/* The first pass over a stream that cannot seek keeps its lines. */
static int src_keep(struct hwbpi_scn_src *s, const char *line, size_t len)
{
	errno = 0;
	if (fwrite(line, 1, len, s->spool) != len || putc('\n', s->spool) == EOF)
		return errno ? -errno : -EIO;
	return 0;
}

/* Take the line of @n bytes at data[start], and its newline (@nl: 1, or 0
 * for a last line without one). */
static int src_take(struct hwbpi_scn_src *s, const char **line, size_t *len, size_t n, size_t nl)
{
	*line = s->data + s->start;
	*len = n;
	s->start += n + nl;
	if (s->spool && s->in != s->spool) {
		int ret = src_keep(s, *line, n);

		if (ret)
			return ret;
	}
	return 1;
}

int hwbpi_scn_src_line(struct hwbpi_scn_src *s, const char **line, size_t *len)
{
	int ret;

	if (s->in && !s->started && (ret = src_start(s)))
		return ret;
	for (;;) {
		size_t have = s->end - s->start;
		size_t look = have < HWBP_SCENARIO_LINE_MAX + 1 ? have : HWBP_SCENARIO_LINE_MAX + 1;
		const char *nl = memchr(s->data + s->start, '\n', look);

		if (nl)
			ret = src_take(s, line, len, (size_t)(nl - (s->data + s->start)), 1);
		else if (look == HWBP_SCENARIO_LINE_MAX + 1) {
			/* Too long: never cut (the rest would read as a line of
			 * its own); the caller reports it and stops. */
			*line = s->data + s->start;
			*len = look;
			return 1;
		} else if (s->eof)
			ret = have ? src_take(s, line, len, have, 0) : 0;
		else if ((ret = src_refill(s)) == 0)
			continue;
		return ret;
	}
}

off_t hwbpi_scn_src_tell(const struct hwbpi_scn_src *s)
{
	return s->base + (off_t)s->start;
}

int hwbpi_scn_src_seek(struct hwbpi_scn_src *s, off_t pos)
{
	/* Still in the buffer (a lookahead of a few lines): no system call. */
	if (pos >= s->base && pos <= s->base + (off_t)s->end) {
		s->start = (size_t)(pos - s->base);
		return 0;
	}
	if (!s->in)
		return -EINVAL;
	if (fseeko(s->in, pos, SEEK_SET))
		return errno ? -errno : -EIO;
	s->base = pos;
	s->start = s->end = 0;
	s->eof = false;
	return 0;
}

int hwbpi_scn_src_rewind(struct hwbpi_scn_src *s)
{
	if (s->spool && s->in != s->spool) {
		/* The second pass reads the copy, from its start. */
		if (fflush(s->spool) || fseeko(s->spool, 0, SEEK_SET))
			return errno ? -errno : -EIO;
		s->in = s->spool;
		s->origin = s->base = 0;
		s->start = s->end = 0;
		s->eof = false;
		return 0;
	}
	/* A file that fits in the buffer is read from the system once. */
	return hwbpi_scn_src_seek(s, s->origin);
}

/* ------------------------------------------------------------ words */

int hwbpi_scn_error(struct hwbpi_scn_lexer *lx, const char *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(lx->errbuf, lx->errlen, "%s:%u:%u: ", lx->file, lx->line,
		     (unsigned)(at - lx->start) + 1);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < lx->errlen)
		vsnprintf(lx->errbuf + n, lx->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* Printable ASCII only: a stray byte is an error at its column, not a
 * word that later fails to match. */
static bool is_bad(char ch)
{
	return (unsigned char)ch < 0x20 || (unsigned char)ch >= 0x7f;
}

int hwbpi_scn_tokenize(struct hwbpi_scn_lexer *lx, const char *s, size_t len,
		       struct hwbpi_scn_tokens *t)
{
	size_t i = 0;

	t->n = 0;
	while (i < len) {
		if (s[i] == '#')
			break;
		if (is_blank(s[i])) {
			i++;
			continue;
		}
		if (is_bad(s[i]))
			return hwbpi_scn_error(lx, s + i, "unexpected character 0x%02x", (unsigned char)s[i]);
		if (t->n == HWBPI_SCN_MAX_TOK)
			return hwbpi_scn_error(lx, s + i, "too many words on one line (at most %d)",
					       HWBPI_SCN_MAX_TOK);
		t->p[t->n] = s + i;
		while (i < len && !is_blank(s[i]) && s[i] != '#') {
			if (is_bad(s[i]))
				return hwbpi_scn_error(lx, s + i, "unexpected character 0x%02x",
						       (unsigned char)s[i]);
			i++;
		}
		t->len[t->n] = (unsigned)(s + i - t->p[t->n]);
		t->n++;
	}
	return 0;
}

bool hwbpi_scn_tok_is(const struct hwbpi_scn_tokens *t, unsigned i, const char *w)
{
	return i < t->n && strlen(w) == t->len[i] && memcmp(t->p[i], w, t->len[i]) == 0;
}

int hwbpi_scn_tok_copy(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t, unsigned i,
		       char *out, size_t n)
{
	if (t->len[i] >= n)
		return hwbpi_scn_error(lx, t->p[i], "word too long (at most %zu characters)", n - 1);
	memcpy(out, t->p[i], t->len[i]);
	out[t->len[i]] = '\0';
	return 0;
}

/* B+OFF or C+OFF (or bare B / C): an address inside an arena. */
static int arena_addr(struct hwbpi_scn_lexer *lx, const char *s, unsigned len, uint64_t *out,
		      const char *what)
{
	uint64_t base = s[0] == 'B' ? HWBPI_SCN_ARENA_B : HWBPI_SCN_ARENA_C, off = 0;

	lx->base = s[0];
	if (len == 1) {
		*out = base;
		return 0;
	}
	if (hwbp_parse_u64n(s + 2, len - 2, &off))
		return hwbpi_scn_error(lx, s + 2, "bad offset in %s: expected a number after '%c+'",
				       what, s[0]);
	if (off >= HWBPI_SCN_ARENA_SIZE)
		return hwbpi_scn_error(lx, s + 2, "offset 0x%" PRIx64 " is outside the 64 KiB arena", off);
	*out = base + off;
	return 0;
}

int hwbpi_scn_addr(struct hwbpi_scn_lexer *lx, const char *s, unsigned len, uint64_t *out,
		   const char *what)
{
	int ret;

	lx->base = 0;
	if (len >= 1 && (s[0] == 'B' || s[0] == 'C') && (len == 1 || s[1] == '+'))
		return arena_addr(lx, s, len, out, what);
	ret = hwbp_parse_u64n(s, len, out);
	if (ret == -ERANGE)
		return hwbpi_scn_error(lx, s, "%s does not fit in 64 bits", what);
	if (ret)
		return hwbpi_scn_error(lx, s, "bad %s '%.*s': expected a number, B+OFF or C+OFF",
				       what, (int)len, s);
	return 0;
}

/*
 * The language reserves every slot name of every CPU,
 * whatever the file's CPU: `expect hit` tells slots from requests by the
 * name alone, and a file reads the same on every CPU.
 */
bool hwbpi_scn_is_slot_name(const char *s)
{
	/* Any slot name of any preset's arch (hwbp_slot_name()): the arches
	 * name their slots, the language lists none. */
	for (unsigned i = 0; hwbp_cpu_preset_name(i); i++) {
		struct hwbp_cpu cpu;
		char nm[HWBPI_SCN_NAME_LEN];

		if (hwbp_cpu_preset(hwbp_cpu_preset_name(i), &cpu))
			continue;
		for (unsigned inst = 0; inst < 2; inst++)
			for (unsigned k = 0; k < HWBP_MAX_SLOTS; k++)
				if (hwbp_slot_name(&cpu, inst, k, nm, sizeof(nm)) == 0 &&
				    strcmp(nm, s) == 0)
					return true;
	}
	return false;
}
