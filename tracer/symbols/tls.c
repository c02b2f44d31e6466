/* SPDX-License-Identifier: MIT */
/*
 * Thread-local variables (tracer/symbols/tls.h): an STT_TLS symbol of the files a
 * symbol table was loaded from, and the executable's PT_TLS segment,
 * read through libelf when a watch names a symbol the table lacks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "symbols/demangle.h"
#include "symbols/symbols_int.h"
#include "symbols/tls.h"
#include "util/util.h"

#ifdef HWBP_HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>

#ifndef DF_1_PIE
#define DF_1_PIE 0x08000000   /* include/uapi/linux/elf.h; older <elf.h> lack it */
#endif

/* Whether mangled symbol name @n demangles to @name: a C++ or Rust
 * thread_local named as the user writes it ("app::tl_hits" for
 * _ZN3app7tl_hitsE).  Only STT_TLS symbols come here: a few. */
static bool demangles_to(const char *n, const char *name)
{
	char buf[1024];

	if (n[0] != '_' || (n[1] != 'Z' && n[1] != 'R'))
		return false;
	return hwbpi_demangle(n, buf, sizeof(buf)) == 0 && strcmp(buf, name) == 0;
}

/* The defined STT_TLS symbol @name (as in the file, or demangled) of
 * section @scn (a symbol table). */
static bool tls_sym_in(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, const char *name, GElf_Sym *out)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t ent = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);

	for (size_t i = 1; d && ent && i < d->d_size / ent; i++) {
		GElf_Sym s;
		const char *n;

		if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_TLS ||
		    s.st_shndx == SHN_UNDEF)
			continue;
		n = elf_strptr(e, sh->sh_link, s.st_name);
		if (n && (strcmp(n, name) == 0 || demangles_to(n, name))) {
			*out = s;
			return true;
		}
	}
	return false;
}

/* @name in the file's .symtab, else its .dynsym (as the loader reads them). */
static bool tls_sym(Elf *e, const char *name, GElf_Sym *out)
{
	unsigned want[2] = { SHT_SYMTAB, SHT_DYNSYM };

	for (unsigned k = 0; k < 2; k++) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		while ((scn = elf_nextscn(e, scn)) != NULL)
			if (gelf_getshdr(scn, &sh) && sh.sh_type == want[k])
				return tls_sym_in(e, scn, &sh, name, out);
	}
	return false;
}

/* The program header of type @type, if any. */
static bool phdr_of(Elf *e, unsigned type, GElf_Phdr *out)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, out) && out->p_type == type)
			return true;
	return false;
}

/* An executable rather than a shared library: ET_EXEC, a PIE (it names
 * its interpreter), or a static PIE (DT_FLAGS_1 says so). */
static bool is_executable(Elf *e)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t ent = gelf_fsize(e, ELF_T_DYN, 1, EV_CURRENT);
	Elf_Scn *scn = NULL;

	if (!gelf_getehdr(e, &eh))
		return false;
	if (eh.e_type == ET_EXEC || phdr_of(e, PT_INTERP, &ph))
		return true;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; ent && i < d->d_size / ent; i++) {
			GElf_Dyn dyn;

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
				return true;
		}
	}
	return false;
}

/*
 * The executable's variable: its offset and size, and the block's size
 * and alignment.  The linker places PT_TLS at a multiple of p_align (GNU
 * ld and lld do); one that is not would move the block's start by glibc's
 * "firstbyte" rule, which the formulas of hwbpi_linux_tls_block() leave
 * out: refused rather than watched at a wrong address.
 */
static int exe_var(Elf *e, const GElf_Sym *s, const char *name, struct hwbpi_tls_var *v,
		   char *err, size_t errlen)
{
	GElf_Phdr tls;

	if (!phdr_of(e, PT_TLS, &tls)) {
		hwbpi_say(err, errlen, "thread-local variable '%s': the executable has no PT_TLS "
			  "segment (EOPNOTSUPP)", name);
		return -EOPNOTSUPP;
	}
	if (tls.p_align > 1 && (tls.p_vaddr & (tls.p_align - 1))) {
		hwbpi_say(err, errlen, "thread-local variable '%s': the executable's PT_TLS is not "
			  "aligned to its p_align (EOPNOTSUPP)", name);
		return -EOPNOTSUPP;
	}
	v->off = s->st_value;
	v->size = s->st_size;
	v->memsz = tls.p_memsz;
	v->align = tls.p_align ? tls.p_align : 1;
	return 0;
}

/* Look for @name in the file at @path: 1 found (*@v filled when @first
 * is the executable), 0 not there, or a negative errno. */
static int find_in(const char *path, bool first, const char *name, struct hwbpi_tls_var *v,
		   char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	GElf_Sym s;
	Elf *e;

	if (fd < 0)
		return 0;   /* gone since it was loaded: nothing to find there */
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && tls_sym(e, name, &s)) {
		if (first && is_executable(e)) {
			ret = exe_var(e, &s, name, v, err, errlen);
			ret = ret ? ret : 1;
		} else {
			hwbpi_say(err, errlen, "thread-local variable '%s' of a shared library (%s): "
				  "not supported (EOPNOTSUPP)", name, path);
			ret = -EOPNOTSUPP;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}
#endif

#ifdef HWBP_HAVE_LIBELF
/* Whether @name is a plain or a qualified ("app::tl_hits") name: no
 * "LIB:" (a single ':'), no "@VERSION". */
static bool plain_name(const char *name)
{
	if (strchr(name, '@'))
		return false;
	for (const char *c = strchr(name, ':'); c; c = strchr(c + 2, ':'))
		if (c[1] != ':')
			return false;
	return true;
}
#endif

int hwbpi_tls_find(const struct hwbp_symtab *t, const char *name, struct hwbpi_tls_var *v,
		   char *err, size_t errlen)
{
#ifdef HWBP_HAVE_LIBELF
	if (!t || !name || !v || !*name || !plain_name(name))
		return -ENOENT;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOENT;
	for (size_t i = 0; i < t->nobj; i++) {
		int ret = find_in(t->pool + t->obj[i].path, i == 0, name, v, err, errlen);

		if (ret)
			return ret < 0 ? ret : 0;
	}
	return -ENOENT;
#else
	(void)t;
	(void)name;
	(void)v;
	(void)err;
	(void)errlen;
	return -ENOENT;
#endif
}
