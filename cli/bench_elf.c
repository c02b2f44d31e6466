/* SPDX-License-Identifier: MIT */
/*
 * The test data of hwbp bench trace: a synthetic symbol table, and the
 * same table as an ELF file, so that hwbp_symtab_load_elf and elfutils'
 * dwfl are timed on the very same symbols.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HWBP_HAVE_LIBELF
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#endif

#include "bench.h"

#define TEXT_BASE UINT64_C(0x400000)

int bench_text_new(struct bench_text *ft, size_t n)
{
	uint64_t a = TEXT_BASE;

	ft->addr = malloc(n * sizeof(*ft->addr));
	ft->size = malloc(n * sizeof(*ft->size));
	if (!ft->addr || !ft->size) {
		free(ft->addr);
		free(ft->size);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		ft->addr[i] = a;
		ft->size[i] = 16 * (1 + bench_next() % 32);
		a += ft->size[i];
	}
	ft->n = n;
	ft->lo = TEXT_BASE;
	ft->hi = a;
	return 0;
}

void bench_text_free(struct bench_text *ft)
{
	free(ft->addr);
	free(ft->size);
}

void bench_text_name(char *buf, size_t len, size_t i)
{
	snprintf(buf, len, "fn_%06zu", i);
}

#ifdef HWBP_HAVE_LIBELF
static Elf_Scn *new_section(Elf *e, const char *what, Elf64_Word name, Elf64_Word type,
			    Elf64_Xword flags, void *buf, size_t size, Elf_Type dtype, size_t align)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;
	Elf64_Shdr *sh = scn ? elf64_getshdr(scn) : NULL;

	if (!d || !sh) {
		fprintf(stderr, "hwbp: bench: libelf: %s: %s\n", what, elf_errmsg(-1));
		return NULL;
	}
	d->d_buf = buf;
	d->d_size = size;
	d->d_type = dtype;
	d->d_align = align;
	d->d_version = EV_CURRENT;
	sh->sh_name = name;
	sh->sh_type = type;
	sh->sh_flags = flags;
	sh->sh_addralign = align;
	return scn;
}

/*
 * The synthetic table as an ELF file, so that hwbp_symtab_load_elf and
 * dwfl read the very same symbols: an x86_64 ET_EXEC with one PT_LOAD over
 * .text (SHT_NOBITS: the bytes are not needed, and the file stays a few
 * MB), .symtab with one global STT_FUNC per function, .strtab, .shstrtab.
 */
int bench_write_elf(const char *path, const struct bench_text *ft)
{
	static char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	enum { N_TEXT = 1, N_SYMTAB = 7, N_STRTAB = 15, N_SHSTRTAB = 23 };
	Elf64_Sym *sym = calloc(ft->n + 1, sizeof(*sym));
	char *str = malloc(ft->n * 32 + 1), name[32];
	size_t strsz = 1;
	Elf *e = NULL;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	Elf_Scn *text, *symtab, *strtab, *shstrtab;
	int fd = -1, ret = -EIO;

	if (!sym || !str) {
		ret = -ENOMEM;
		goto out;
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		goto out;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	eh = e ? elf64_newehdr(e) : NULL;
	ph = eh ? elf64_newphdr(e, 1) : NULL;
	if (!ph) {
		fprintf(stderr, "hwbp: bench: libelf: headers: %s\n", elf_errmsg(-1));
		goto out;
	}
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = ft->lo;

	str[0] = '\0';
	for (size_t i = 0; i < ft->n; i++) {
		size_t len;

		bench_text_name(name, sizeof(name), i);
		len = strlen(name) + 1;
		memcpy(str + strsz, name, len);
		sym[i + 1].st_name = (Elf64_Word)strsz;
		sym[i + 1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		sym[i + 1].st_shndx = 1; /* .text, the first section created */
		sym[i + 1].st_value = ft->addr[i];
		sym[i + 1].st_size = ft->size[i];
		strsz += len;
	}
	text = new_section(e, ".text", N_TEXT, SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR, NULL,
			   ft->hi - ft->lo, ELF_T_BYTE, 16);
	symtab = text ? new_section(e, ".symtab", N_SYMTAB, SHT_SYMTAB, 0, sym,
				    (ft->n + 1) * sizeof(*sym), ELF_T_SYM, 8) : NULL;
	strtab = symtab ? new_section(e, ".strtab", N_STRTAB, SHT_STRTAB, 0, str, strsz,
				      ELF_T_BYTE, 1) : NULL;
	shstrtab = strtab ? new_section(e, ".shstrtab", N_SHSTRTAB, SHT_STRTAB, 0, shstr,
					sizeof(shstr), ELF_T_BYTE, 1) : NULL;
	if (!shstrtab)
		goto out;
	elf64_getshdr(text)->sh_addr = ft->lo;
	elf64_getshdr(symtab)->sh_link = (Elf64_Word)elf_ndxscn(strtab);
	elf64_getshdr(symtab)->sh_info = 1;  /* the first global: all but the null symbol */
	elf64_getshdr(symtab)->sh_entsize = sizeof(Elf64_Sym);
	eh->e_shstrndx = (Elf64_Half)elf_ndxscn(shstrtab);
	/* Lay the file out first; the segment describes memory only (no file
	 * bytes: p_filesz 0), so offset 0 satisfies the alignment rule. */
	if (elf_update(e, ELF_C_NULL) < 0) {
		fprintf(stderr, "hwbp: bench: libelf: layout: %s\n", elf_errmsg(-1));
		goto out;
	}
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_offset = 0;
	ph->p_vaddr = ph->p_paddr = ft->lo;
	ph->p_filesz = 0;
	ph->p_memsz = ft->hi - ft->lo;
	ph->p_align = 0x1000;
	elf_flagphdr(e, ELF_C_SET, ELF_F_DIRTY);
	if (elf_update(e, ELF_C_WRITE) < 0) {
		fprintf(stderr, "hwbp: bench: libelf: write: %s\n", elf_errmsg(-1));
		goto out;
	}
	ret = 0;
out:
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	free(sym);
	free(str);
	return ret;
}
#else
int bench_write_elf(const char *path, const struct bench_text *ft)
{
	(void)path;
	(void)ft;
	return -EOPNOTSUPP;
}
#endif /* HWBP_HAVE_LIBELF */
