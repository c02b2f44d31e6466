/* SPDX-License-Identifier: MIT */
/*
 * Loading symbol tables (include/hwbp/trace.h): System.map and
 * /proc/kallsyms text, parsed by hand ("ADDR TYPE NAME [module]"), and ELF
 * .symtab/.dynsym through libelf.  A failed load leaves the table as it
 * was (hwbpi_symtab_rollback).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/symtab.h"
#include "symbols/dwarf.h"
#include "symbols/symbols_int.h"
#include "util/util.h"

#ifdef HWBP_HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A type letter or module byte: anything visible (UTF-8 included),
 * never a blank, a control character or NUL. */
static bool is_visible(char c)
{
	unsigned char u = (unsigned char)c;

	return u > 0x20 && u != 0x7f;
}

/* A name byte: anything but a blank, CR or NUL (which would cut the copied
 * name).  Control characters are real: Debian's arm64 System.map holds 66
 * names such as "__kvm_nvhe_.L14472\0021" (the nVHE hypervisor objects'
 * local labels, renamed with their prefix by the kernel's build). */
static bool is_name_char(char c)
{
	return c != '\0' && c != '\r' && !is_blank(c);
}

/*
 * One line "ADDR TYPE NAME [module]" between p and e (no newline) into
 * @l.  Returns 1 for a symbol, 0 for a blank line, -EINVAL when malformed.
 * Leniency is limited to what real files contain: blanks and tabs as
 * separators (kallsyms puts a tab before the module), a trailing \r.
 */
static int parse_line(const char *p, const char *e, struct hwbpi_map_line *l)
{
	uint64_t a = 0;
	unsigned digits = 0;
	int v;

	if (e > p && e[-1] == '\r')
		e--;
	while (p < e && is_blank(*p))
		p++;
	if (p == e)
		return 0;
	while (p < e && (v = hwbpi_hexval(*p)) >= 0) {
		if (++digits > 16)
			return -EINVAL;
		a = a << 4 | (unsigned)v;
		p++;
	}
	if (!digits || p == e || !is_blank(*p))
		return -EINVAL;
	while (p < e && is_blank(*p))
		p++;
	if (p == e || !is_visible(*p) || (p + 1 < e && !is_blank(p[1])) || p + 1 == e)
		return -EINVAL;
	l->type = *p++;
	while (p < e && is_blank(*p))
		p++;
	l->name = p;
	while (p < e && is_name_char(*p))
		p++;
	l->nlen = (size_t)(p - l->name);
	if (!l->nlen || (p < e && !is_blank(*p)))
		return -EINVAL;
	while (p < e && is_blank(*p))
		p++;
	l->mod = NULL;
	l->mlen = 0;
	if (p < e) {
		/* The module: "[name]", kept out of the symbol's name so that
		 * hwbp_symtab_find("foo") finds a module's foo. */
		const char *m = p;

		if (*p != '[')
			return -EINVAL;
		while (p < e && is_visible(*p))
			p++;
		if (p - m < 3 || p[-1] != ']')
			return -EINVAL;
		l->mod = m + 1;
		l->mlen = (size_t)(p - m - 2);
		while (p < e && is_blank(*p))
			p++;
		if (p < e)
			return -EINVAL;
	}
	l->addr = a;
	return 1;
}

int hwbpi_map_next(const char **pos, const char *end, struct hwbpi_map_line *l, unsigned *line)
{
	while (*pos < end) {
		const char *p = *pos, *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		int r;

		++*line;
		r = parse_line(p, e, l);
		if (r < 0)
			return r;
		*pos = nl ? nl + 1 : end;
		if (r > 0)
			return 1;
	}
	return 0;
}

int hwbp_symtab_load_map_text(struct hwbp_symtab *t, const char *text, size_t len,
			      unsigned *line)
{
	struct hwbpi_map_line l;
	struct mark m;
	const char *p;
	unsigned ln = 0;
	int added = 0, r;

	if (line)
		*line = 0;
	if (!t || (!text && len))
		return -EINVAL;
	if (t->finished)
		return -EBUSY;
	if (!len)
		return 0;
	p = text;
	m = hwbpi_symtab_mark_of(t);
	while ((r = hwbpi_map_next(&p, text + len, &l, &ln)) > 0) {
		r = hwbpi_symtab_add_n(t, l.name, l.nlen, l.addr, 0, l.type, true);
		if (r < 0)
			break;
		added++;
	}
	if (r < 0) {
		hwbpi_symtab_rollback(t, m);
		if (line && r == -EINVAL)
			*line = ln;
		return r;
	}
	return added;
}

/* Open failures keep their errno: -ENOENT as documented, and e.g. -EACCES
 * for a root-only /boot/System.map, which the user must be told as such. */
static int open_ro(const char *path)
{
	int fd;

	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	return fd < 0 ? -errno : fd;
}

/* The whole file: /proc/kallsyms reports size 0, so read to EOF. */
static int slurp(int fd, char **buf, size_t *len)
{
	size_t cap = 0, n = 0;
	char *b = NULL;

	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap > SIZE_MAX / 2 - 65536) {
				free(b);
				return -ENOMEM;
			}
			cap = cap ? cap * 2 : 65536;
			nb = realloc(b, cap);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(b);
			return -EIO;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

int hwbpi_read_file(const char *path, char **buf, size_t *len)
{
	int fd = open_ro(path), r;

	if (fd < 0)
		return fd;
	r = slurp(fd, buf, len);
	close(fd);
	return r;
}

int hwbp_symtab_load_map(struct hwbp_symtab *t, const char *path, unsigned *line)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	if (line)
		*line = 0;
	if (!t || !path)
		return -EINVAL;
	if (t->finished)
		return -EBUSY;
	r = hwbpi_read_file(path, &buf, &len);
	if (r < 0)
		return r;
	r = hwbp_symtab_load_map_text(t, buf, len, line);
	free(buf);
	return r;
}

#ifdef HWBP_HAVE_LIBELF
/*
 * nm-style letter of an ELF symbol, or 0 to skip it.  Skipped: undefined,
 * absolute (not a place in the loaded image, so a bias would be wrong),
 * section/file/TLS symbols (TLS values are offsets in the TLS block),
 * symbols of non-allocated sections (debug info), ARM/AArch64 mapping
 * symbols ($x, $d) and nameless ones.
 */
static char elf_letter(Elf *e, const GElf_Sym *s, Elf32_Word shndx, const char *name)
{
	unsigned st = GELF_ST_TYPE(s->st_info);
	bool local = GELF_ST_BIND(s->st_info) == STB_LOCAL;
	GElf_Shdr sh;
	Elf_Scn *scn;
	char c;

	if (!name || !*name || name[0] == '$')
		return 0;
	if (st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_OBJECT && st != STT_NOTYPE &&
	    st != STT_COMMON)
		return 0;
	if (shndx == SHN_COMMON)
		return 'B';
	if (shndx == SHN_UNDEF || shndx == SHN_ABS)
		return 0;
	scn = elf_getscn(e, shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return 0;
	if (st == STT_GNU_IFUNC)
		return 'i'; /* nm's letter; hwbp_symtab_func treats it as code */
	if (st == STT_FUNC || (st == STT_NOTYPE && (sh.sh_flags & SHF_EXECINSTR)))
		c = 'T';
	else if (sh.sh_type == SHT_NOBITS)
		c = 'B';
	else if (!(sh.sh_flags & SHF_WRITE))
		c = 'R';
	else
		c = 'D';
	return local ? (char)(c - 'A' + 'a') : c;
}

/* The section of type @type linked to section @link (any link: SIZE_MAX). */
static Elf_Scn *find_scn(Elf *e, unsigned type, size_t link, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)) != NULL)
		if (gelf_getshdr(scn, sh) && sh->sh_type == type &&
		    (link == SIZE_MAX || sh->sh_link == link))
			return scn;
	return NULL;
}

#define VER_MAX 0x8000  /* versym indices are 15 bits; bit 15: hidden */

/*
 * The version names of a .dynsym by versym index: the file's own
 * (.gnu.version_d, Verdef) and those it needs (.gnu.version_r, Vernaux,
 * e.g. an executable's copy-relocated "optind" of GLIBC_2.2.5).  Indices
 * 0 (local) and 1 (global, unversioned) have no name.  NULL when the file
 * has no versions (or on -ENOMEM: the symbols then load unversioned).
 */
static const char **elf_version_names(Elf *e)
{
	const char **name = NULL;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;

	if ((scn = find_scn(e, SHT_GNU_verdef, SIZE_MAX, &sh)) && (d = elf_getdata(scn, NULL)) &&
	    (name = name ? name : calloc(VER_MAX, sizeof(*name)))) {
		size_t off = 0;

		for (size_t n = 0; n < sh.sh_info; n++) {
			GElf_Verdef vd;
			GElf_Verdaux va;

			if (!gelf_getverdef(d, (int)off, &vd))
				break;
			if ((vd.vd_ndx & 0x7fff) >= 2 && vd.vd_cnt &&
			    gelf_getverdaux(d, (int)(off + vd.vd_aux), &va))
				name[vd.vd_ndx & 0x7fff] = elf_strptr(e, sh.sh_link, va.vda_name);
			if (!vd.vd_next)
				break;
			off += vd.vd_next;
		}
	}
	if ((scn = find_scn(e, SHT_GNU_verneed, SIZE_MAX, &sh)) && (d = elf_getdata(scn, NULL)) &&
	    (name = name ? name : calloc(VER_MAX, sizeof(*name)))) {
		size_t off = 0;

		for (size_t n = 0; n < sh.sh_info; n++) {
			GElf_Verneed vn;
			size_t ao;

			if (!gelf_getverneed(d, (int)off, &vn))
				break;
			ao = off + vn.vn_aux;
			for (unsigned k = 0; k < vn.vn_cnt; k++) {
				GElf_Vernaux va;

				if (!gelf_getvernaux(d, (int)ao, &va))
					break;
				if ((va.vna_other & 0x7fff) >= 2)
					name[va.vna_other & 0x7fff] =
						elf_strptr(e, sh.sh_link, va.vna_name);
				if (!va.vna_next)
					break;
				ao += va.vna_next;
			}
			if (!vn.vn_next)
				break;
			off += vn.vn_next;
		}
	}
	return name;
}

/* DT_SONAME of the file, or NULL. */
static const char *elf_soname(Elf *e)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(e, SHT_DYNAMIC, SIZE_MAX, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t ent = gelf_fsize(e, ELF_T_DYN, 1, EV_CURRENT);

	for (size_t i = 0; d && ent && i < d->d_size / ent; i++) {
		GElf_Dyn dyn;

		if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag == DT_SONAME)
			return elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
	}
	return NULL;
}

/*
 * Add one ELF symbol under its plain name, its version kept beside it:
 * a .symtab spells a versioned symbol "optind@GLIBC_2.2.5" (or "@@" for
 * the default version), a .dynsym gives the version through @vname.
 */
static int add_elf_sym(struct hwbp_symtab *t, const char *name, const char *vname,
		       uint64_t addr, uint64_t size, char c)
{
	const char *at = strchr(name, '@');
	size_t len = at ? (size_t)(at - name) : strlen(name);

	if (at && len) {
		vname = at + (at[1] == '@' ? 2 : 1);
		if (!*vname)
			vname = NULL;
	} else if (at) {
		len = strlen(name);   /* "@x": no name before it, keep it whole */
	}
	return hwbpi_symtab_add_v(t, name, len, vname, vname ? strlen(vname) : 0, addr, size, c,
				  false);
}

/* The addresses the file's PT_LOAD segments span, [*lo, *hi) before the
 * bias: what it occupies once loaded.  0, or -EINVAL (none). */
static int elf_extent(Elf *e, uint64_t *lo, uint64_t *hi)
{
	size_t n;

	*lo = UINT64_MAX;
	*hi = 0;
	if (elf_getphdrnum(e, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_memsz ||
		    ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			continue;
		if (ph.p_vaddr < *lo)
			*lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > *hi)
			*hi = ph.p_vaddr + ph.p_memsz;
	}
	return *lo < *hi ? 0 : -EINVAL;
}

/*
 * The file's region (tracer/symbols/symtab.h), so that an IP in none of its
 * functions is still named by file and offset.  Best effort: a file
 * without PT_LOAD (a relocatable object), or one overlapping a file
 * loaded before (which keeps the range, as the first added wins), gets
 * none.  0, or -ENOMEM.
 */
static int add_elf_region(struct hwbp_symtab *t, Elf *e, const char *path, const char *name,
			  uint64_t bias)
{
	uint64_t lo, hi;
	int r;

	if (elf_extent(e, &lo, &hi))
		return 0;
	r = hwbpi_symtab_add_region(t, lo + bias, hi + bias, bias, name);
	if (r == 0)
		r = hwbpi_symtab_region_file(t, lo + bias, path);
	return r == -ENOMEM ? r : 0;
}

/*
 * The symbols of @e's .symtab, else its .dynsym, at @bias; @sec is the
 * file whose section headers give their letters and whose DT_SONAME is
 * the file's: @e itself, or for a separate debug file the stripped file
 * (the debug file keeps every section header, same indices, its contents
 * SHT_NOBITS: .data would read as .bss there).
 */
static int load_elf(struct hwbp_symtab *t, Elf *e, Elf *sec, uint64_t bias, const char **soname)
{
	Elf_Scn *scn = NULL, *symscn = NULL, *dynscn = NULL;
	Elf_Data *data, *xdata = NULL, *vdata = NULL;
	GElf_Shdr sh, symsh;
	size_t nsym, entsize, symndx;
	const char **vnames = NULL;
	int added = 0;

	if (elf_kind(e) != ELF_K_ELF || gelf_getclass(e) == ELFCLASSNONE)
		return -EINVAL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		if (sh.sh_type == SHT_SYMTAB && !symscn)
			symscn = scn;
		else if (sh.sh_type == SHT_DYNSYM && !dynscn)
			dynscn = scn;
	}
	if (!symscn)
		symscn = dynscn;
	if (!symscn || !gelf_getshdr(symscn, &symsh))
		return -EINVAL;
	symndx = elf_ndxscn(symscn);
	/* Section indices >= SHN_LORESERVE live in SHT_SYMTAB_SHNDX. */
	scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX && sh.sh_link == symndx)
			xdata = elf_getdata(scn, NULL);
	data = elf_getdata(symscn, NULL);
	entsize = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	if (!data || !entsize)
		return -EINVAL;
	/* A .dynsym's versions are in .gnu.version, one per symbol. */
	if (symsh.sh_type == SHT_DYNSYM && (scn = find_scn(e, SHT_GNU_versym, symndx, &sh)) &&
	    (vdata = elf_getdata(scn, NULL)))
		vnames = elf_version_names(e);
	*soname = elf_soname(sec);
	nsym = data->d_size / entsize;
	for (size_t i = 1; i < nsym; i++) {
		GElf_Sym s;
		GElf_Versym vs;
		Elf32_Word x = 0, shndx;
		const char *name, *vname = NULL;
		char c;
		int r;

		if (!gelf_getsymshndx(data, xdata, (int)i, &s, &x)) {
			free(vnames);
			return -EINVAL;
		}
		shndx = s.st_shndx == SHN_XINDEX ? x : s.st_shndx;
		name = elf_strptr(e, symsh.sh_link, s.st_name);
		c = elf_letter(sec, &s, shndx, name);
		if (!c)
			continue;
		if (vnames && gelf_getversym(vdata, (int)i, &vs))
			vname = vnames[vs & 0x7fff];
		r = add_elf_sym(t, name, vname, s.st_value + bias, s.st_size, c);
		if (r < 0) {
			free(vnames);
			return r;
		}
		added++;
	}
	free(vnames);
	return added;
}

static bool has_symtab(Elf *e)
{
	GElf_Shdr sh;

	return find_scn(e, SHT_SYMTAB, SIZE_MAX, &sh) != NULL;
}

/* The .symtab of debug file @dbg for the stripped file @e, at @e's bias
 * (the debug file has the link-time addresses of @e).  Its letters come
 * from @e's section headers when both have the same number of them. */
static int load_debug_file(struct hwbp_symtab *t, const char *dbg, Elf *e, uint64_t bias,
			   const char **soname)
{
	size_t n1 = 0, n2 = 1;
	int fd = open_ro(dbg), r;
	Elf *de;

	if (fd < 0)
		return fd;
	de = elf_begin(fd, ELF_C_READ, NULL);
	if (!de || !has_symtab(de)) {
		r = -EINVAL;
	} else {
		elf_getshdrnum(e, &n1);
		elf_getshdrnum(de, &n2);
		r = load_elf(t, de, n1 == n2 ? e : de, bias, soname);
		*soname = elf_soname(e);
	}
	elf_end(de);
	close(fd);
	return r;
}

/*
 * The symbols of @e (read from @path, named @name) at @bias: its .symtab;
 * without one (stripped), the .symtab of its separate debug file found
 * as GDB finds it (tracer/symbols/dwarf.c), else its .dynsym.  The file is
 * recorded in the table's debug information either way (source lines).
 */
static int load_elf_or_debug(struct hwbp_symtab *t, Elf *e, const char *path, const char *name,
			     uint64_t bias, const char **soname)
{
	char dbg[PATH_MAX];
	struct mark m = hwbpi_symtab_mark_of(t);
	bool own = has_symtab(e);
	int r;

	if (elf_kind(e) != ELF_K_ELF || gelf_getclass(e) == ELFCLASSNONE)
		return -EINVAL;   /* (load_elf's answer: nothing to search for) */
	r = hwbpi_dwarf_file(t->dwarf, name, path, bias, !own, dbg, sizeof(dbg));
	if (r == -ENOMEM)
		return r;
	if (!own && r == 0) {
		r = load_debug_file(t, dbg, e, bias, soname);
		if (r >= 0)
			return r;
		hwbpi_symtab_rollback(t, m);
	}
	return load_elf(t, e, e, bias, soname);
}
#endif

#ifdef HWBP_HAVE_LIBELF
/* Open @path for reading symbols into @t: *@fd and libelf's handle *@e
 * (the caller ends both).  Errors: -EBUSY (t finished), -EIO (libelf's
 * version), open()'s, -EINVAL (not ELF at all: a directory, an empty
 * file). */
static int open_elf(const struct hwbp_symtab *t, const char *path, int *fd, Elf **e)
{
	if (t->finished)
		return -EBUSY;
	/* Idempotent; libelf wants it before any elf_begin. */
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EIO;
	*fd = open_ro(path);
	if (*fd < 0)
		return *fd;
	*e = elf_begin(*fd, ELF_C_READ, NULL);
	if (!*e) {
		close(*fd);
		return -EINVAL;
	}
	return 0;
}
#endif

int hwbpi_symtab_load_region(struct hwbp_symtab *t, const char *path, const char *name,
			     uint64_t bias)
{
#ifdef HWBP_HAVE_LIBELF
	Elf *e;
	int fd, r;

	if (!t || !path || !name)
		return -EINVAL;
	if ((r = open_elf(t, path, &fd, &e)))
		return r;
	r = elf_kind(e) == ELF_K_ELF ? add_elf_region(t, e, path, name, bias) : -EINVAL;
	elf_end(e);
	close(fd);
	return r;
#else
	(void)t;
	(void)path;
	(void)name;
	(void)bias;
	return -EOPNOTSUPP;
#endif
}

int hwbp_symtab_load_elf(struct hwbp_symtab *t, const char *path, uint64_t bias)
{
	return hwbpi_symtab_load_elf_as(t, path, path, bias);
}

int hwbpi_symtab_load_elf_as(struct hwbp_symtab *t, const char *path, const char *name,
			     uint64_t bias)
{
#ifdef HWBP_HAVE_LIBELF
	const char *soname = NULL;
	struct mark m;
	Elf *e;
	int fd, r;

	if (!t || !path || !name)
		return -EINVAL;
	if ((r = open_elf(t, path, &fd, &e)))
		return r;
	m = hwbpi_symtab_mark_of(t);
	r = load_elf_or_debug(t, e, path, name, bias, &soname);
	/* The file's name and soname, for "LIB:sym" and "sym@LIB". */
	if (r >= 0 && hwbpi_symtab_add_obj(t, m, name, soname))
		r = -ENOMEM;
	/* Last: a region is never rolled back, so nothing may fail after. */
	if (r >= 0 && add_elf_region(t, e, path, name, bias))
		r = -ENOMEM;
	if (r < 0)
		hwbpi_symtab_rollback(t, m);
	elf_end(e);
	close(fd);
	return r;
#else
	(void)t;
	(void)path;
	(void)name;
	(void)bias;
	return -EOPNOTSUPP;
#endif
}

