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

#include "backends/sim/sim_int.h"

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

/*
 * What the bias guess needs of an ELF file's headers, read by hand (the
 * replay runs on every system, libelf or not): ET_DYN (a PIE or a shared
 * object: anything else has no bias), e_entry, and the executable PT_LOAD
 * segments (p_flags PF_X), 32 or 64 bits, either byte order.
 */
#define ELF_MAX_XSEG 8

struct elf_hdr {
	bool dyn;
	uint64_t entry;
	unsigned nx;
	uint64_t xlo[ELF_MAX_XSEG], xhi[ELF_MAX_XSEG];  /* [lo, hi) */
};

static uint64_t get_n(const unsigned char *p, unsigned n, bool msb)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? n - 1 - i : i] << (8 * i);
	return v;
}

static bool read_elf_hdr(const char *path, struct elf_hdr *h)
{
	unsigned char eh[64], ph[56];
	FILE *f = fopen(path, "rb");
	bool ok = false, is64, msb;
	uint64_t phoff;
	unsigned phentsize, phnum;
	size_t got;

	memset(h, 0, sizeof(*h));
	if (!f)
		return false;
	got = fread(eh, 1, sizeof(eh), f);
	if (got < 52 || memcmp(eh, "\177ELF", 4) != 0 || (eh[4] != 1 && eh[4] != 2))
		goto out;
	is64 = eh[4] == 2;
	if (is64 && got < 64)
		goto out;
	msb = eh[5] == 2;
	h->dyn = get_n(eh + 16, 2, msb) == 3;
	h->entry = get_n(eh + 24, is64 ? 8 : 4, msb);
	phoff = get_n(eh + (is64 ? 32 : 28), is64 ? 8 : 4, msb);
	phentsize = (unsigned)get_n(eh + (is64 ? 54 : 42), 2, msb);
	phnum = (unsigned)get_n(eh + (is64 ? 56 : 44), 2, msb);
	ok = true;
	if (phentsize < (is64 ? 56u : 32u))
		goto out;
	for (unsigned i = 0; i < phnum && h->nx < ELF_MAX_XSEG; i++) {
		uint64_t vaddr, memsz, flags;

		if (fseek(f, (long)(phoff + (uint64_t)i * phentsize), SEEK_SET) ||
		    fread(ph, 1, is64 ? 56 : 32, f) != (is64 ? 56u : 32u))
			break;
		if (get_n(ph, 4, msb) != 1)   /* PT_LOAD */
			continue;
		vaddr = get_n(ph + (is64 ? 16 : 8), is64 ? 8 : 4, msb);
		memsz = get_n(ph + (is64 ? 40 : 20), is64 ? 8 : 4, msb);
		flags = get_n(ph + (is64 ? 4 : 24), 4, msb);
		if ((flags & 1) && memsz) {   /* PF_X */
			h->xlo[h->nx] = vaddr;
			h->xhi[h->nx++] = vaddr + memsz;
		}
	}
out:
	fclose(f);
	return ok;
}

/* Is @a (unbiased) in one of the executable segments? */
static bool in_xseg(const struct elf_hdr *h, uint64_t a)
{
	for (unsigned i = 0; i < h->nx; i++)
		if (a >= h->xlo[i] && a < h->xhi[i])
			return true;
	return false;
}

#define BIAS_SAMPLE 8192
#define BIAS_CANDIDATES 512

/*
 * The trace, sampled: the loader and libc run first, the program later,
 * so a prefix would miss it.  A reservoir sample of instruction addresses
 * (deterministic), the distinct pages executed (candidates), in order of
 * first execution, and the executed addresses in the entry point's page
 * offset (a page-aligned bias keeps it), for the guess without symbols.
 */
struct bias_scan {
	uint64_t ip[BIAS_SAMPLE], page[BIAS_CANDIDATES], at_entry[BIAS_CANDIDATES];
	size_t nip, npage, nentry;
};

static void scan_trace(FILE *f, uint64_t entry, struct bias_scan *b)
{
	uint64_t seen = 0, rng = 0x9e3779b97f4a7c15ull, nread;
	char line[LINE_MAX_LEN + 1];

	while (read_line(f, line, &nread) >= 0) {
		uint64_t a, pg;

		if (!parse_instr(line, &a))
			continue;
		seen++;
		if (b->nip < BIAS_SAMPLE) {
			b->ip[b->nip++] = a;
		} else {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			if (rng % seen < BIAS_SAMPLE)
				b->ip[rng % BIAS_SAMPLE] = a;
		}
		pg = a & ~UINT64_C(0xfff);
		if (b->npage < BIAS_CANDIDATES && (b->npage == 0 || b->page[b->npage - 1] != pg)) {
			size_t k = 0;

			while (k < b->npage && b->page[k] != pg)
				k++;
			if (k == b->npage)
				b->page[b->npage++] = pg;
		}
		if ((a & 0xfff) == (entry & 0xfff) && a >= entry && b->nentry < BIAS_CANDIDATES) {
			size_t k = 0;

			while (k < b->nentry && b->at_entry[k] != a)
				k++;
			if (k == b->nentry)
				b->at_entry[b->nentry++] = a;
		}
	}
}

/*
 * The loader maps the whole executable with one page-aligned bias, so a
 * candidate is "this executed page holds the reference function's page";
 * the right one puts the most executed instructions inside the
 * executable's functions (the loader's and libraries' do not count).
 */
static uint64_t best_by_symbols(const struct bias_scan *b, const struct hwbp_symtab *syms,
				uint64_t refpage)
{
	uint64_t best = 0;
	size_t best_score = 0;

	for (size_t c = 0; c < b->npage; c++) {
		uint64_t bias = b->page[c] - refpage;
		size_t score = 0;

		for (size_t k = 0; k < b->nip; k++)
			score += hwbp_symtab_func(syms, b->ip[k] - bias) != NULL;
		if (score > best_score) {
			best_score = score;
			best = bias;
		}
	}
	return best;
}

/*
 * Without main or _start (a stripped PIE: only .dynsym, which names
 * neither): the kernel starts the program at e_entry + bias
 * (fs/binfmt_elf.c: e_entry + load_bias after the interpreter), so the
 * candidates are the executed addresses with e_entry's page offset, and
 * the right one puts the most executed instructions inside the
 * executable's PF_X segments.
 */
static uint64_t best_by_entry(const struct bias_scan *b, const struct elf_hdr *h)
{
	uint64_t best = 0;
	size_t best_score = 0;

	for (size_t c = 0; c < b->nentry; c++) {
		uint64_t bias = b->at_entry[c] - h->entry;
		size_t score = 0;

		if (bias & 0xfff)
			continue;
		for (size_t k = 0; k < b->nip; k++)
			score += in_xseg(h, b->ip[k] - bias);
		if (score > best_score) {
			best_score = score;
			best = bias;
		}
	}
	return best;
}

bool hwbpi_lackey_movable(const char *elf_path)
{
	struct elf_hdr h;

	return !read_elf_hdr(elf_path, &h) || h.dyn;
}

uint64_t hwbpi_lackey_guess_bias(const char *lackey_path, const char *elf_path)
{
	struct hwbp_symtab *syms = NULL;
	const struct hwbp_sym *ref = NULL;
	struct bias_scan *b = NULL;
	struct elf_hdr h;
	uint64_t best = 0;
	FILE *f = NULL;
	int err;

	if (!read_elf_hdr(elf_path, &h) || !h.dyn)
		return 0;     /* a fixed-address executable: no bias */
	syms = hwbp_symtab_new(&err);
	if (syms && hwbp_symtab_load_elf(syms, elf_path, 0) >= 0 && !hwbp_symtab_finish(syms)) {
		/* A reference function every C program has. */
		ref = hwbp_symtab_find(syms, "main");
		if (!ref)
			ref = hwbp_symtab_find(syms, "_start");
	}
	if (!ref && !h.nx)
		goto out;
	f = fopen(lackey_path, "r");
	b = calloc(1, sizeof(*b));
	if (!f || !b)
		goto out;
	scan_trace(f, h.entry, b);
	best = ref ? best_by_symbols(b, syms, ref->addr & ~UINT64_C(0xfff)) : best_by_entry(b, &h);
out:
	if (f)
		fclose(f);
	free(b);
	hwbp_symtab_free(syms);
	return best;
}
