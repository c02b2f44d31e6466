/* SPDX-License-Identifier: MIT */
/*
 * Replaying valgrind lackey memory traces (valgrind --tool=lackey
 * --trace-mem=yes): "I  04012a3,3" is an instruction, " L 1ffefffd48,8" a
 * load, " S ..." a store and " M ..." a modify (an x86 read-modify-write
 * instruction: one write access, one trap, as the debug unit sees it) by
 * the instruction before it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer.h"

/*
 * The format, as valgrind's lackey prints it ("I  %08lx,%lu",
 * " %c %08lx,%lu"): an address of 1-16 hex digits, a comma, a decimal size,
 * an optional "\r", the end of the line.  Parsed by hand rather than with
 * strtoull(), which would also take leading blanks, a sign ("-1" becomes
 * 0xffff...) and a "0x" prefix, none of which lackey prints: such a line is
 * damage, and damage is counted as a bad line, not replayed as an access.
 */
#define LACKEY_MAX_SIZE 64  /* largest access lackey reports (AVX-512) */

/* "ADDR,SIZE" then end of line (the line has no "\n"). */
static bool parse_pair(const char *p, uint64_t *addr, uint32_t *size)
{
	uint64_t a = 0, n = 0;
	unsigned digits = 0;

	for (; hwbpi_hexval(*p) >= 0; p++) {
		if (++digits > 16)
			return false;
		a = a << 4 | (uint64_t)hwbpi_hexval(*p);
	}
	if (digits == 0 || *p++ != ',')
		return false;
	digits = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		digits++;
		if (n <= LACKEY_MAX_SIZE) /* saturate: anything above is refused */
			n = n * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '\r')
		p++;
	if (digits == 0 || *p != '\0' || n == 0 || n > LACKEY_MAX_SIZE)
		return false;
	*addr = a;
	*size = (uint32_t)n;
	return true;
}

#define LINE_MAX_LEN 255  /* lackey's lines are under 40 bytes */

/*
 * One line of @in into @line (NUL-terminated, without its "\n"), *nread
 * set to the bytes consumed.  Returns 1 for a line, 0 for a line that
 * cannot be lackey's (longer than LINE_MAX_LEN or holding a NUL byte: it
 * is consumed whole, so that its tail is never read as a line of its own),
 * -1 at the end of the input.
 */
static int read_line(FILE *in, char line[LINE_MAX_LEN + 1], uint64_t *nread)
{
	size_t n = 0;
	bool ok = true;
	int c;

	*nread = 0;
	/* getc_unlocked: one reader owns the stream, and the locking getc()
	 * per byte cost half the replay's speed (hwbp bench trace). */
	while ((c = getc_unlocked(in)) != EOF) {
		(*nread)++;
		if (c == '\n')
			break;
		if (c == '\0' || n == LINE_MAX_LEN)
			ok = false;
		else
			line[n++] = (char)c;
	}
	line[n] = '\0';
	if (c == EOF && *nread == 0)
		return -1;
	return ok ? 1 : 0;
}

/* An instruction line "I" + blanks + pair: its address. */
static bool parse_instr(const char *line, uint64_t *addr)
{
	uint32_t size;

	if (line[0] != 'I' || line[1] != ' ')
		return false;
	return parse_pair(line + 1 + strspn(line + 1, " "), addr, &size);
}

bool hwbpi_lackey_next(void *state, struct hwbpi_work_access *a)
{
	struct hwbpi_lackey *s = state;
	char line[LINE_MAX_LEN + 1];
	uint64_t nread;
	int r;

	while ((r = read_line(s->in, line, &nread)) >= 0) {
		uint64_t addr;
		uint32_t size;

		s->lines++;
		s->bytes += nread;
		if (r == 0) {
			s->bad++;
			continue;
		}
		if (line[0] == 'I') {
			if (parse_instr(line, &addr))
				s->ip = addr;
			else
				s->bad++;
			continue;
		}
		if (line[0] == ' ' && (line[1] == 'L' || line[1] == 'S' || line[1] == 'M') &&
		    line[2] == ' ' && parse_pair(line + 3, &addr, &size)) {
			a->ip = s->ip;
			a->addr = addr;
			a->size = size;
			a->op = line[1] == 'L' ? HWBP_SIM_READ : HWBP_SIM_WRITE;
			a->cpu = 0;
			return true;
		}
		/* valgrind's own "==PID==" lines and anything else */
		s->bad++;
	}
	return false;
}

/* The same reader with the accesses only counted: what a replay costs
 * before the simulator sees an access. */
int hwbp_trace_lackey_scan(FILE *in, struct hwbp_trace_lackey_counts *c)
{
	struct hwbpi_lackey s = { 0 };
	struct hwbpi_work_access a;

	if (!in || !c)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	s.in = in;
	while (hwbpi_lackey_next(&s, &a))
		c->accesses++;
	c->lines = s.lines;
	c->bad = s.bad;
	c->bytes = s.bytes;
	return ferror(in) ? -EIO : 0;
}

/* ET_DYN from the ELF header itself (e_type at offset 16, in the file's
 * byte order): a position-independent executable or a shared object. */
static bool elf_is_dyn(const char *path)
{
	unsigned char h[18];
	FILE *f = fopen(path, "rb");
	bool dyn = false;

	if (!f)
		return false;
	if (fread(h, 1, sizeof(h), f) == sizeof(h) && memcmp(h, "\177ELF", 4) == 0)
		dyn = (h[5] == 1 ? h[16] | h[17] << 8 : h[17] | h[16] << 8) == 3;
	fclose(f);
	return dyn;
}

#define BIAS_SAMPLE 8192
#define BIAS_CANDIDATES 512

uint64_t hwbpi_lackey_guess_bias(const char *lackey_path, const char *elf_path)
{
	struct hwbp_symtab *syms = NULL;
	const struct hwbp_sym *ref;
	uint64_t *ip = NULL, *page = NULL, best = 0, refpage, seen = 0, rng = 0x9e3779b97f4a7c15ull;
	size_t nip = 0, npage = 0, best_score = 0;
	char line[LINE_MAX_LEN + 1];
	uint64_t nread;
	FILE *f = NULL;
	int err;

	if (!elf_is_dyn(elf_path))
		return 0;     /* a fixed-address executable: no bias */
	syms = hwbp_symtab_new(&err);
	if (!syms || hwbp_symtab_load_elf(syms, elf_path, 0) < 0 || hwbp_symtab_finish(syms))
		goto out;
	/* A reference function every C program has. */
	ref = hwbp_symtab_find(syms, "main");
	if (!ref)
		ref = hwbp_symtab_find(syms, "_start");
	if (!ref)
		goto out;
	refpage = ref->addr & ~UINT64_C(0xfff);
	f = fopen(lackey_path, "r");
	ip = malloc(BIAS_SAMPLE * sizeof(*ip));
	page = malloc(BIAS_CANDIDATES * sizeof(*page));
	if (!f || !ip || !page)
		goto out;
	/*
	 * The whole trace, sampled: the loader and libc run first, the
	 * program later, so a prefix would miss it.  A reservoir sample of
	 * instruction addresses (deterministic), and the distinct pages
	 * executed (the candidates), in order of first execution.
	 */
	while (read_line(f, line, &nread) >= 0) {
		uint64_t a, pg;

		if (!parse_instr(line, &a))
			continue;
		seen++;
		if (nip < BIAS_SAMPLE) {
			ip[nip++] = a;
		} else {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			if (rng % seen < BIAS_SAMPLE)
				ip[rng % BIAS_SAMPLE] = a;
		}
		pg = a & ~UINT64_C(0xfff);
		if (npage < BIAS_CANDIDATES && (npage == 0 || page[npage - 1] != pg)) {
			size_t k = 0;

			while (k < npage && page[k] != pg)
				k++;
			if (k == npage)
				page[npage++] = pg;
		}
	}
	/*
	 * The loader maps the whole executable with one page-aligned bias, so
	 * a candidate is "this executed page holds the reference function's
	 * page"; the right one puts the most executed instructions inside the
	 * executable's functions (the loader's and libraries' do not count).
	 */
	for (size_t c = 0; c < npage; c++) {
		uint64_t b = page[c] - refpage;
		size_t score = 0;

		for (size_t k = 0; k < nip; k++)
			score += hwbp_symtab_func(syms, ip[k] - b) != NULL;
		if (score > best_score) {
			best_score = score;
			best = b;
		}
	}
out:
	if (f)
		fclose(f);
	free(ip);
	free(page);
	hwbp_symtab_free(syms);
	return best;
}
