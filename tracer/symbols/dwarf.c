/* SPDX-License-Identifier: MIT */
/*
 * Debug information through elfutils' libdwfl (tracer/symbols/dwarf.h): the files
 * a symbol table loaded, each reported to one Dwfl at its load bias; the
 * separate debug file of those without a .symtab, found by libdwfl's
 * standard search; source lines of instructions, cached per address.
 */
/* realpath() (XSI) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/dwarf.h"
#include "symbols/symbols_int.h"

#ifdef HWBP_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#endif

/* One ELF file the table loaded. */
struct file {
	char *name;                  /* as mapped: messages, .gnu_debuglink's directory */
	char *path;                  /* where its bytes are read (/proc/PID/exe when unlinked) */
	uint64_t bias;
	bool stripped;               /* no .symtab: its debug file was searched */
	int err;                     /* that search: 0, -ENOENT, -EOPNOTSUPP */
	char *debug;                 /* the debug file found */
	const char *how;
#ifdef HWBP_HAVE_LIBDW
	bool reported;               /* handed to libdwfl (mod NULL: it refused the file) */
	Dwfl_Module *mod;
#endif
};

/* The line cache: open addressing by instruction address. */
struct line_slot {
	uint64_t ip;
	const char *file;            /* NULL: no line known there */
	unsigned line;
	bool used;
};

struct hwbpi_dwarf {
	struct file **f;             /* pointers: a module's userdata outlives a realloc */
	size_t nf, capf;
	bool lines;
	char *search;                /* the debuginfo path: DEFAULT with --debug-dir's root */
	struct line_slot *lc;
	size_t lcap, lused;          /* lcap: a power of 2, or 0 */
#ifdef HWBP_HAVE_LIBDW
	Dwfl_Callbacks cb;
	Dwfl *dwfl;                  /* made at the first file it is given */
	const char *found_how;       /* set by find_debuginfo() for the search under way */
#endif
};

/* ------------------------------------------------------------------ */
/* The set.                                                            */
/* ------------------------------------------------------------------ */

#ifdef HWBP_HAVE_LIBDW
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc,
			  char **debuginfo_name);
#endif

/*
 * The search path: elfutils' default (HWBPI_DEBUGINFO_PATH), with
 * @debug_dir's absolute form before /usr/lib/debug.  An absolute element is
 * a root for both searches of libdwfl: DIR/.build-id/xx/rest.debug and
 * DIR/<the file's directory>/<debuglink> (a relative element would mean a
 * subdirectory of the file's own: hence realpath()).
 */
static int search_path(const char *debug_dir, char **out)
{
	char *abs;
	size_t n;

	if (!debug_dir) {
		*out = strdup(HWBPI_DEBUGINFO_PATH);
		return *out ? 0 : -ENOMEM;
	}
	abs = realpath(debug_dir, NULL);
	if (!abs)
		return -errno;
	if (strchr(abs, ':')) {
		free(abs);
		return -EINVAL;
	}
	n = strlen(abs) + sizeof(":.debug::" HWBPI_SYSTEM_DEBUG_DIR);
	*out = malloc(n);
	if (*out)
		snprintf(*out, n, ":.debug:%s:" HWBPI_SYSTEM_DEBUG_DIR, abs);
	free(abs);
	return *out ? 0 : -ENOMEM;
}

struct hwbpi_dwarf *hwbpi_dwarf_new(const char *debug_dir, bool lines, int *err)
{
	struct hwbpi_dwarf *d;
	struct stat sb;
	int ret;

#ifndef HWBP_HAVE_LIBDW
	if (debug_dir || lines) {
		if (err)
			*err = -EOPNOTSUPP;
		return NULL;
	}
#endif
	if (debug_dir && stat(debug_dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
		if (err)
			*err = -ENOTDIR;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	ret = d ? search_path(debug_dir, &d->search) : -ENOMEM;
	if (ret) {
		free(d);
		if (err)
			*err = ret;
		return NULL;
	}
	d->lines = lines;
#ifdef HWBP_HAVE_LIBDW
	/* Files are reported open, at their bias (dwfl_report_elf): find_elf
	 * is never asked for (set, as libdwfl calls it without a check), nor
	 * section_address (no ET_REL file). */
	d->cb.find_elf = dwfl_build_id_find_elf;
	d->cb.find_debuginfo = find_debuginfo;
	d->cb.debuginfo_path = &d->search;
#endif
	if (err)
		*err = 0;
	return d;
}

void hwbpi_dwarf_free(struct hwbpi_dwarf *d)
{
	if (!d)
		return;
#ifdef HWBP_HAVE_LIBDW
	if (d->dwfl)
		dwfl_end(d->dwfl);
#endif
	for (size_t i = 0; i < d->nf; i++) {
		free(d->f[i]->name);
		free(d->f[i]->path);
		free(d->f[i]->debug);
		free(d->f[i]);
	}
	free(d->f);
	free(d->lc);
	free(d->search);
	free(d);
}

void hwbpi_symtab_set_dwarf(struct hwbp_symtab *t, struct hwbpi_dwarf *d)
{
	if (t)
		t->dwarf = d;
}

struct hwbpi_dwarf *hwbpi_symtab_dwarf(const struct hwbp_symtab *t)
{
	return t ? t->dwarf : NULL;
}

static struct file *add_file(struct hwbpi_dwarf *d, const char *name, const char *path,
			     uint64_t bias)
{
	struct file *f;

	if (d->nf == d->capf) {
		size_t cap = d->capf ? 2 * d->capf : 16;
		struct file **nf = realloc(d->f, cap * sizeof(*nf));

		if (!nf)
			return NULL;
		d->f = nf;
		d->capf = cap;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = strdup(name);
	f->path = strdup(path);
	if (!f->name || !f->path) {
		free(f->name);
		free(f->path);
		free(f);
		return NULL;
	}
	f->bias = bias;
	d->f[d->nf++] = f;
	return f;
}

bool hwbpi_dwarf_stripped(const struct hwbpi_dwarf *d, unsigned i, struct hwbpi_dwarf_debug *out)
{
	for (size_t k = 0; d && k < d->nf; k++) {
		const struct file *f = d->f[k];

		if (!f->stripped || i-- > 0)
			continue;
		out->file = f->name;
		out->debug = f->debug;
		out->how = f->how;
		out->err = f->err;
		out->system = f->debug && strncmp(f->debug, HWBPI_SYSTEM_DEBUG_DIR "/",
						  sizeof(HWBPI_SYSTEM_DEBUG_DIR)) == 0;
		return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* libdwfl.                                                            */
/* ------------------------------------------------------------------ */

#ifdef HWBP_HAVE_LIBDW
/*
 * libdwfl's standard search (dwfl_standard_find_debuginfo: the build-id
 * first, then the .gnu_debuglink name, or FILE.debug, in each element of
 * the path), split in two so that the note can say which found the file:
 * the build-id search alone first, and when it finds nothing the standard
 * one, whose own build-id try then finds nothing again.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc,
			  char **debuginfo_name)
{
	struct hwbpi_dwarf *d = *userdata;
	const char *how = "build-id";
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink,
					      crc, debuginfo_name);

	if (fd < 0) {
		how = debuglink ? ".gnu_debuglink" : "name";
		fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						  debuglink, crc, debuginfo_name);
	}
	/* The first answer is the debug file's; a later call looks for
	 * its dwz companion (.gnu_debugaltlink). */
	if (fd >= 0 && d && !d->found_how)
		d->found_how = how;
	return fd;
}

/*
 * Hand @f to libdwfl once, at its bias: with add_p_vaddr, dwfl_report_elf
 * puts an ET_DYN file's p_vaddr 0 at @f->bias (the bias of its symbols),
 * where dwfl_report_offline would move it to its own base (0x10000 for the
 * first one); an ET_EXEC file stays at its link addresses (bias 0).  The
 * module name is the mapped path, unique in a process.  NULL when the file
 * cannot be opened or is refused (not ELF, overlapping another).
 */
static Dwfl_Module *report(struct hwbpi_dwarf *d, struct file *f)
{
	Dwfl_Module *m;
	void **ud;
	int fd;

	if (f->reported)
		return f->mod;
	f->reported = true;
	if (!d->dwfl && !(d->dwfl = dwfl_begin(&d->cb)))
		return NULL;
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	dwfl_report_begin_add(d->dwfl);
	/* The fd is libdwfl's once the call succeeds. */
	m = dwfl_report_elf(d->dwfl, f->name, f->name, fd, f->bias, true);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!m) {
		close(fd);
		return NULL;
	}
	if (dwfl_module_info(m, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		*ud = d;
	f->mod = m;
	return m;
}

/* The debug file of @f: asking for the module's symbol table makes
 * libdwfl search one when the file has no .symtab (find_symtab()); the
 * debug file is then the module's, its DWARF bias known. */
static int search_debug(struct hwbpi_dwarf *d, struct file *f)
{
	Dwfl_Module *m = report(d, f);
	Dwarf_Addr dwbias = (Dwarf_Addr)-1;
	const char *debug = NULL;

	if (!m)
		return -ENOENT;
	d->found_how = NULL;
	dwfl_module_getsymtab(m);
	dwfl_module_info(m, NULL, NULL, NULL, &dwbias, NULL, NULL, &debug);
	if (!debug || dwbias == (Dwarf_Addr)-1 || !d->found_how)
		return -ENOENT;
	f->debug = strdup(debug);
	f->how = d->found_how;
	return f->debug ? 0 : -ENOMEM;
}

static int lookup_line(struct hwbpi_dwarf *d, uint64_t ip, const char **file, unsigned *line)
{
	Dwfl_Module *m;
	Dwfl_Line *l;
	const char *src, *base;
	int ln = 0;

	/* Files recorded before lines were asked for go in now. */
	for (size_t i = 0; i < d->nf; i++)
		report(d, d->f[i]);
	m = d->dwfl ? dwfl_addrmodule(d->dwfl, ip) : NULL;
	/* The row of the line table whose addresses hold @ip (the DWARF
	 * of the file itself, or of its debug file, found as above). */
	l = m ? dwfl_module_getsrc(m, ip) : NULL;
	src = l ? dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL) : NULL;
	if (!src || ln <= 0)
		return -ENOENT;
	base = strrchr(src, '/');
	*file = base ? base + 1 : src;
	*line = (unsigned)ln;
	return 0;
}

int hwbpi_dwarf_debug_at(struct hwbpi_dwarf *d, unsigned i, uint64_t addr, const char **path,
			 uint64_t *bias)
{
	const char *main_file = NULL, *debug = NULL;
	Dwarf_Addr start = 0, end = 0, dwbias = 0;
	Dwfl_Module *m;

	if (!d || i >= d->nf)
		return -ERANGE;
	m = report(d, d->f[i]);
	if (!m)
		return addr ? 0 : -ENODATA;
	dwfl_module_info(m, NULL, &start, &end, NULL, NULL, NULL, NULL);
	if (addr && (addr < start || addr >= end))
		return 0;
	/* Asking for the DWARF makes libdwfl find the debug file (as for
	 * search_debug()); the bias is that of the DWARF's addresses. */
	if (!dwfl_module_getdwarf(m, &dwbias))
		return -ENODATA;
	dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, &main_file, &debug);
	*path = debug ? debug : main_file;
	*bias = dwbias;
	return 1;
}
#endif

/* ------------------------------------------------------------------ */
/* Files and lines.                                                    */
/* ------------------------------------------------------------------ */

#ifndef HWBP_HAVE_LIBDW
int hwbpi_dwarf_debug_at(struct hwbpi_dwarf *d, unsigned i, uint64_t addr, const char **path,
			 uint64_t *bias)
{
	(void)addr;
	(void)path;
	(void)bias;
	return !d || i >= d->nf ? -ERANGE : -ENODATA;
}
#endif

/* The record of @name at @bias, if any. */
static struct file *find_file(const struct hwbpi_dwarf *d, const char *name, uint64_t bias)
{
	for (size_t i = 0; i < d->nf; i++)
		if (d->f[i]->bias == bias && strcmp(d->f[i]->name, name) == 0)
			return d->f[i];
	return NULL;
}

int hwbpi_dwarf_file(struct hwbpi_dwarf *d, const char *name, const char *path, uint64_t bias,
		     bool want_debug, char *debug, size_t n)
{
	struct hwbpi_dwarf *tmp = NULL;
	struct file *f;
	int ret = 0;

	if (!name || !path || (want_debug && (!debug || !n)))
		return -EINVAL;
	if (!d && !want_debug)
		return 0;
	if (!d && !(d = tmp = hwbpi_dwarf_new(NULL, false, &ret)))
		return ret;
	/* A file recorded again (the same name at the same bias) is the same
	 * module: libdwfl would refuse a second one over it. */
	f = find_file(d, name, bias);
	if (!f && !(f = add_file(d, name, path, bias))) {
		hwbpi_dwarf_free(tmp);
		return -ENOMEM;
	}
#ifdef HWBP_HAVE_LIBDW
	if (d->lines)
		report(d, f);
	if (want_debug && !f->stripped)
		f->err = search_debug(d, f);
#else
	if (want_debug && !f->stripped)
		f->err = -EOPNOTSUPP;
#endif
	if (want_debug) {
		f->stripped = true;
		ret = f->err;
		if (ret == 0 && snprintf(debug, n, "%s", f->debug) >= (int)n)
			ret = -ENAMETOOLONG;
	}
	hwbpi_dwarf_free(tmp);
	return ret;
}

#ifdef HWBP_HAVE_LIBDW
/* The cache's slot for @ip: its own, or the empty one where it goes. */
static struct line_slot *line_slot(const struct hwbpi_dwarf *d, uint64_t ip)
{
	size_t i = (size_t)((ip * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (d->lcap - 1);

	while (d->lc[i].used && d->lc[i].ip != ip)
		i = (i + 1) & (d->lcap - 1);
	return &d->lc[i];
}

/* Room for one more entry at a load of at most a half. */
static int line_grow(struct hwbpi_dwarf *d)
{
	struct line_slot *old = d->lc;
	size_t ocap = d->lcap, cap = ocap ? 2 * ocap : 256;

	if (2 * (d->lused + 1) <= ocap)
		return 0;
	d->lc = calloc(cap, sizeof(*d->lc));
	if (!d->lc) {
		d->lc = old;
		return -ENOMEM;
	}
	d->lcap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].used)
			*line_slot(d, old[i].ip) = old[i];
	free(old);
	return 0;
}
#endif

int hwbpi_dwarf_srcline(struct hwbpi_dwarf *d, uint64_t ip, const char **file, unsigned *line)
{
#ifdef HWBP_HAVE_LIBDW
	struct line_slot *s;

	if (!d || !file || !line)
		return -EINVAL;
	if (d->lcap) {
		s = line_slot(d, ip);
		if (s->used) {
			*file = s->file;
			*line = s->line;
			return s->file ? 0 : -ENOENT;
		}
	}
	if (line_grow(d))
		return -ENOMEM;
	s = line_slot(d, ip);
	s->used = true;
	s->ip = ip;
	d->lused++;
	if (lookup_line(d, ip, &s->file, &s->line)) {
		s->file = NULL;
		s->line = 0;
		return -ENOENT;
	}
	*file = s->file;
	*line = s->line;
	return 0;
#else
	(void)ip;
	return d && file && line ? -EOPNOTSUPP : -EINVAL;
#endif
}

#ifdef HWBP_HAVE_LIBDW
/* The name of inlined function @scope: its abstract origin's linkage
 * (mangled) name where it has one, else its plain name. */
static const char *inlined_name(Dwarf_Die *scope)
{
	Dwarf_Attribute a;
	const char *nm = dwarf_formstring(dwarf_attr_integrate(scope, DW_AT_linkage_name, &a));

	if (!nm)
		nm = dwarf_formstring(dwarf_attr_integrate(scope, DW_AT_MIPS_linkage_name, &a));
	return nm ? nm : dwarf_diename(scope);
}
#endif

int hwbpi_dwarf_inlined(struct hwbpi_dwarf *d, uint64_t ip, unsigned i, const char **name)
{
#ifdef HWBP_HAVE_LIBDW
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Addr bias = 0;
	Dwfl_Module *m;
	unsigned k = 0;
	int n, ret = -ENOENT;

	if (!d || !name)
		return -EINVAL;
	for (size_t f = 0; f < d->nf; f++)
		report(d, d->f[f]);
	m = d->dwfl ? dwfl_addrmodule(d->dwfl, ip) : NULL;
	if (!m || !(cu = dwfl_module_addrdie(m, ip, &bias)))
		return -ENOENT;
	/* dwarf_getscopes(): innermost first, each inlined_subroutine whose
	 * ranges hold the address, out to the CU. */
	n = dwarf_getscopes(cu, ip - bias, &scopes);
	for (int s = 0; s < n; s++) {
		if (dwarf_tag(&scopes[s]) != DW_TAG_inlined_subroutine || k++ != i)
			continue;
		*name = inlined_name(&scopes[s]);
		ret = *name ? 0 : -ENOENT;
		break;
	}
	free(scopes);
	return ret;
#else
	(void)ip;
	(void)i;
	return d && name ? -EOPNOTSUPP : -EINVAL;
#endif
}
