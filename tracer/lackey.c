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

/* "ADDR,SIZE" in hex, then end of line. */
static bool parse_pair(const char *p, uint64_t *addr, uint32_t *size)
{
	char *end;
	unsigned long long a, n;

	a = strtoull(p, &end, 16);
	if (end == p || *end != ',')
		return false;
	p = end + 1;
	n = strtoull(p, &end, 10);
	if (end == p || (*end && *end != '\n' && *end != '\r') || n == 0 || n > 64)
		return false;
	*addr = a;
	*size = (uint32_t)n;
	return true;
}

bool hwbpi_lackey_next(void *state, struct hwbpi_work_access *a)
{
	struct hwbpi_lackey *s = state;
	char line[256];

	while (fgets(line, sizeof(line), s->in)) {
		uint64_t addr;
		uint32_t size;

		s->lines++;
		s->bytes += strlen(line);
		if (line[0] == 'I' && line[1] == ' ') {
			if (parse_pair(line + 2 + strspn(line + 2, " "), &addr, &size))
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
	char line[256];
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
	while (fgets(line, sizeof(line), f)) {
		uint64_t a, pg;
		uint32_t n;

		if (line[0] != 'I' || !parse_pair(line + 2 + strspn(line + 2, " "), &a, &n))
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
