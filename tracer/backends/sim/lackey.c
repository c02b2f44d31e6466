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
 * object: anything else has no bias), e_entry, and the PT_LOAD segments as
 * ranges of 4 KiB pages (the smallest page a loader maps with, so a bias
 * is a multiple of it), executable (p_flags PF_X) or not; 32 or 64 bits,
 * either byte order.
 */
#define PAGE_SHIFT 12
#define PAGE_MASK ((UINT64_C(1) << PAGE_SHIFT) - 1)
#define ELF_MAX_SEG 16

struct elf_seg {
	uint64_t first, last;  /* pages, inclusive */
	bool x;                /* PF_X */
};

struct elf_hdr {
	bool dyn;
	uint64_t entry;
	unsigned nseg;
	struct elf_seg seg[ELF_MAX_SEG];
};

static uint64_t get_n(const unsigned char *p, unsigned n, bool msb)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? n - 1 - i : i] << (8 * i);
	return v;
}

static void add_seg(struct elf_hdr *h, uint64_t vaddr, uint64_t memsz, bool x)
{
	struct elf_seg s = { vaddr >> PAGE_SHIFT, (vaddr + memsz - 1) >> PAGE_SHIFT, x };
	struct elf_seg *last;

	if (!memsz || vaddr + memsz - 1 < vaddr)
		return;   /* empty, or wrapping around (a damaged header) */
	if (h->nseg < ELF_MAX_SEG) {
		h->seg[h->nseg++] = s;
		return;
	}
	/* More segments than the table holds: the last entry grows over the
	 * extra one, executable if either is.  A superset never makes a page
	 * the program executes look foreign (which would reject its bias). */
	last = &h->seg[ELF_MAX_SEG - 1];
	last->first = s.first < last->first ? s.first : last->first;
	last->last = s.last > last->last ? s.last : last->last;
	last->x = last->x || x;
}

static void read_segs(FILE *f, struct elf_hdr *h, uint64_t phoff, unsigned phentsize,
		      unsigned phnum, bool is64, bool msb)
{
	unsigned char ph[56];

	for (unsigned i = 0; i < phnum; i++) {
		if (fseek(f, (long)(phoff + (uint64_t)i * phentsize), SEEK_SET) ||
		    fread(ph, 1, is64 ? 56 : 32, f) != (is64 ? 56u : 32u))
			break;
		if (get_n(ph, 4, msb) != 1)   /* PT_LOAD */
			continue;
		add_seg(h, get_n(ph + (is64 ? 16 : 8), is64 ? 8 : 4, msb),
			get_n(ph + (is64 ? 40 : 20), is64 ? 8 : 4, msb),
			get_n(ph + (is64 ? 4 : 24), 4, msb) & 1);   /* PF_X */
	}
}

static bool read_elf_hdr(const char *path, struct elf_hdr *h)
{
	unsigned char eh[64];
	FILE *f = fopen(path, "rb");
	bool is64, msb;
	unsigned phentsize;
	size_t got;

	memset(h, 0, sizeof(*h));
	if (!f)
		return false;
	got = fread(eh, 1, sizeof(eh), f);
	if (got < 52 || memcmp(eh, "\177ELF", 4) != 0 || (eh[4] != 1 && eh[4] != 2) ||
	    (eh[4] == 2 && got < 64)) {
		fclose(f);
		return false;
	}
	is64 = eh[4] == 2;
	msb = eh[5] == 2;
	h->dyn = get_n(eh + 16, 2, msb) == 3;
	h->entry = get_n(eh + 24, is64 ? 8 : 4, msb);
	phentsize = (unsigned)get_n(eh + (is64 ? 54 : 42), 2, msb);
	if (phentsize >= (is64 ? 56u : 32u))
		read_segs(f, h, get_n(eh + (is64 ? 32 : 28), is64 ? 8 : 4, msb), phentsize,
			  (unsigned)get_n(eh + (is64 ? 56 : 44), 2, msb), is64, msb);
	fclose(f);
	return true;
}

enum { OUTSIDE, DATA, CODE };  /* where a page lies in the program's image */

/* Where the executed page @pg lies in the image loaded with @bias. */
static int page_kind(const struct elf_hdr *h, uint64_t pg, uint64_t bias)
{
	int kind = OUTSIDE;

	if (pg < bias >> PAGE_SHIFT)
		return OUTSIDE;
	pg -= bias >> PAGE_SHIFT;
	for (unsigned i = 0; i < h->nseg; i++)
		if (pg >= h->seg[i].first && pg <= h->seg[i].last)
			kind = h->seg[i].x ? CODE : kind == CODE ? CODE : DATA;
	return kind;
}

/*
 * The executed pages of the trace, counted: a hash table (open addressing,
 * at most half full) of page + 1 (0: an empty slot), the instructions
 * executed in each, and whether the address at e_entry's page offset in
 * it has been (a page holds one such address: the first time it runs is
 * when its slot says not yet).
 */
struct page_slot {
	uint64_t key, n;
	bool entry_seen;
};

struct page_tab {
	struct page_slot *slot;
	size_t cap, used;
};

static struct page_slot *tab_slot(struct page_slot *slot, size_t cap, uint64_t key)
{
	size_t i = (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (cap - 1);

	while (slot[i].key && slot[i].key != key)
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

static int tab_grow(struct page_tab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	struct page_slot *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i].key)
			*tab_slot(slot, cap, t->slot[i].key) = t->slot[i];
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

static int tab_get(struct page_tab *t, uint64_t page, struct page_slot **out)
{
	struct page_slot *s;
	int ret;

	if (2 * (t->used + 1) > t->cap && (ret = tab_grow(t)))
		return ret;
	s = tab_slot(t->slot, t->cap, page + 1);
	if (!s->key) {
		s->key = page + 1;
		t->used++;
	}
	*out = s;
	return 0;
}

#define BIAS_CANDIDATES 512

/*
 * The candidates: the kernel starts the program at e_entry + bias
 * (fs/binfmt_elf.c: e_entry + load_bias, after the interpreter), so each
 * executed address at e_entry's page offset proposes a bias, kept if the
 * first time it ran control came from outside the image it proposes: the
 * loader's jump to the entry point comes from the loader (or nothing, the
 * trace's first instruction: a static PIE).  An address in the middle of
 * the loader's own code, which the small program's window would otherwise
 * lay over, is reached from its neighbours.  At most one per page, in
 * order of first execution: the entry runs before all but the loader's
 * and the libraries' constructors' pages, far fewer than the bound.
 */
struct bias_scan {
	struct page_tab pages;
	uint64_t cand[BIAS_CANDIDATES];
	size_t ncand;
};

static void note_entry(struct bias_scan *b, const struct elf_hdr *h, uint64_t a,
		       const uint64_t *prev)
{
	uint64_t bias = a - h->entry;

	if (a < h->entry || b->ncand == BIAS_CANDIDATES)
		return;
	if (prev && page_kind(h, *prev >> PAGE_SHIFT, bias) != OUTSIDE)
		return;
	b->cand[b->ncand++] = bias;
}

static int scan_trace(FILE *f, const struct elf_hdr *h, struct bias_scan *b)
{
	char line[LINE_MAX_LEN + 1];
	uint64_t a, prev = 0, nread;
	bool have_prev = false;
	int ret;

	while (read_line(f, line, &nread) >= 0) {
		struct page_slot *s;

		if (!parse_instr(line, &a))
			continue;
		if ((ret = tab_get(&b->pages, a >> PAGE_SHIFT, &s)))
			return ret;
		s->n++;
		if ((a & PAGE_MASK) == (h->entry & PAGE_MASK) && !s->entry_seen) {
			s->entry_seen = true;
			note_entry(b, h, a, have_prev ? &prev : NULL);
		}
		prev = a;
		have_prev = true;
	}
	return ferror(f) ? -EIO : 0;
}

/*
 * A candidate's score: the instructions it puts in the program's PF_X
 * segments, or 0 if it puts any in its other segments, which are mapped
 * without execute permission: under the true bias nothing runs there,
 * under the loader's or a library's the window over their code does.
 */
static uint64_t bias_score(const struct bias_scan *b, const struct elf_hdr *h, uint64_t bias)
{
	uint64_t in = 0;

	for (size_t i = 0; i < b->pages.cap; i++) {
		const struct page_slot *s = &b->pages.slot[i];
		int kind = s->key ? page_kind(h, s->key - 1, bias) : OUTSIDE;

		if (kind == DATA)
			return 0;
		if (kind == CODE)
			in += s->n;
	}
	return in;
}

static int best_bias(const struct bias_scan *b, const struct elf_hdr *h, uint64_t *bias)
{
	uint64_t best = 0;

	for (size_t c = 0; c < b->ncand; c++) {
		uint64_t score = bias_score(b, h, b->cand[c]);

		if (score > best) {
			best = score;
			*bias = b->cand[c];
		}
	}
	return best ? 0 : -ENOENT;
}

bool hwbpi_lackey_movable(const char *elf_path)
{
	struct elf_hdr h;

	return !read_elf_hdr(elf_path, &h) || h.dyn;
}

int hwbpi_lackey_bias(const char *lackey_path, const char *elf_path, uint64_t *bias)
{
	struct bias_scan *b;
	struct elf_hdr h;
	FILE *f;
	int ret;

	*bias = 0;
	/* A fixed-address executable has no bias; a file that is not ELF
	 * neither, and reading its symbols says what it is. */
	if (!read_elf_hdr(elf_path, &h) || !h.dyn)
		return 0;
	/* No entry point in its code (a shared library's e_entry is 0):
	 * nothing the trace could show running first. */
	if (page_kind(&h, h.entry >> PAGE_SHIFT, 0) != CODE)
		return -ENOENT;
	f = fopen(lackey_path, "r");
	if (!f)
		return -errno;
	b = calloc(1, sizeof(*b));
	ret = b ? scan_trace(f, &h, b) : -ENOMEM;
	if (!ret)
		ret = best_bias(b, &h, bias);
	fclose(f);
	if (b)
		free(b->pages.slot);
	free(b);
	return ret;
}

uint64_t hwbpi_lackey_guess_bias(const char *lackey_path, const char *elf_path)
{
	uint64_t bias;

	return hwbpi_lackey_bias(lackey_path, elf_path, &bias) ? 0 : bias;
}
