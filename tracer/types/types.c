/* SPDX-License-Identifier: MIT */
/*
 * A session's type sources (types/types.h): each opened the first time an
 * expression needs it, and kept until the session ends (a second entry on
 * the same file reads the same DWARF).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types/types.h"

#define MAX_FILES 64
#define MAX_MODULES 1024     /* Debian's amd64 6.1 builds about 4000; a
			      * machine loads a hundred or two */
#define MODULE_NAME_LEN 64   /* MODULE_NAME_LEN (include/linux/module.h)
			      * is 56 on 64-bit */

struct opened {
	struct hwbpi_tsrc *src;
	int err;                     /* the open's, 0: not tried or opened */
	bool tried;
};

struct hwbpi_typer {
	struct hwbpi_typer_opts o;
	struct opened file[MAX_FILES];   /* the traced files', by hwbpi_dwarf index */
	struct opened kdwarf, btf;
	/* the loaded modules' BTF: listed when a cast's type is first
	 * missing from vmlinux's, each opened when first asked */
	bool listed;
	unsigned nmod;
	char (*mod)[MODULE_NAME_LEN];
	struct opened *modsrc;
};

struct hwbpi_typer *hwbpi_typer_new(const struct hwbpi_typer_opts *o)
{
	struct hwbpi_typer *ty = calloc(1, sizeof(*ty));

	if (ty)
		ty->o = *o;
	return ty;
}

static void close_one(struct opened *op)
{
	hwbpi_tsrc_free(op->src);
	op->src = NULL;
}

void hwbpi_typer_free(struct hwbpi_typer *ty)
{
	if (!ty)
		return;
	for (unsigned i = 0; i < MAX_FILES; i++)
		close_one(&ty->file[i]);
	close_one(&ty->kdwarf);
	/* Each module's BTF is split on vmlinux's: freed before it. */
	for (unsigned i = 0; i < ty->nmod; i++)
		close_one(&ty->modsrc[i]);
	close_one(&ty->btf);
	free(ty->mod);
	free(ty->modsrc);
	free(ty);
}

/* Say (once, the first) why source @what could not be opened. */
static void why_not(char *why, size_t n, const char *what, int err)
{
	if (why[0])
		return;
	if (err == -ENODATA)
		snprintf(why, n, "%s has no DWARF (ENODATA)", what);
	else if (err == -EOPNOTSUPP)
		snprintf(why, n, "this build reads no %s (EOPNOTSUPP)", what);
	else
		snprintf(why, n, "%s: %s", what, hwbp_errno_name(err));
}

static struct hwbpi_tsrc *open_dwarf(struct opened *op, const char *path, int64_t bias,
				     char *why, size_t n)
{
	if (!op->tried) {
		op->tried = true;
		op->src = hwbpi_tsrc_dwarf(path, bias, &op->err);
	}
	if (!op->src)
		why_not(why, n, path, op->err);
	return op->src;
}

static struct hwbpi_tsrc *open_btf(struct hwbpi_typer *ty, char *why, size_t n)
{
	struct opened *op = &ty->btf;
	const char *path = ty->o.btf ? ty->o.btf : "/sys/kernel/btf/vmlinux";

	if (!op->tried) {
		op->tried = true;
		op->src = hwbpi_tsrc_btf(ty->o.btf, &op->err);
	}
	if (!op->src)
		why_not(why, n, op->err == -EOPNOTSUPP ? "BTF (no libbpf)" : path, op->err);
	return op->src;
}

static const char *btf_dir(const struct hwbpi_typer *ty)
{
	return ty->o.btf_dir ? ty->o.btf_dir : ty->o.btf ? NULL : "/sys/kernel/btf";
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The modules whose BTF the kernel shows (each file of btf_dir() but
 * vmlinux), by name, once.  An unreadable directory is no modules. */
static void list_modules(struct hwbpi_typer *ty)
{
	const char *dir = btf_dir(ty);
	struct dirent *d;
	DIR *dp;

	if (ty->listed)
		return;
	ty->listed = true;
	if (!dir || !(dp = opendir(dir)))
		return;
	ty->mod = calloc(MAX_MODULES, sizeof(*ty->mod));
	while (ty->mod && (d = readdir(dp)) && ty->nmod < MAX_MODULES)
		if (d->d_name[0] != '.' && strcmp(d->d_name, "vmlinux") != 0 &&
		    strlen(d->d_name) < MODULE_NAME_LEN)
			snprintf(ty->mod[ty->nmod++], MODULE_NAME_LEN, "%s", d->d_name);
	closedir(dp);
	if (ty->nmod && !(ty->modsrc = calloc(ty->nmod, sizeof(*ty->modsrc))))
		ty->nmod = 0;
	qsort(ty->mod, ty->nmod, sizeof(*ty->mod), by_name);
}

/* Module @i's BTF, split on vmlinux's (open_btf() first). */
static struct hwbpi_tsrc *open_module(struct hwbpi_typer *ty, unsigned i, char *why, size_t n)
{
	struct opened *op = &ty->modsrc[i];
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", btf_dir(ty), ty->mod[i]);
	if (!op->tried) {
		op->tried = true;
		op->src = ty->btf.src ? hwbpi_tsrc_btf_split(path, ty->btf.src, &op->err) : NULL;
	}
	if (!op->src && ty->btf.src)
		why_not(why, n, path, op->err);
	return op->src;
}

/* A process's @i-th file, when its image holds @addr (or @addr is 0). */
static struct hwbpi_tsrc *file_source(struct hwbpi_typer *ty, unsigned i, uint64_t addr,
				      bool *more, char *why, size_t n)
{
	const char *path = NULL;
	uint64_t bias = 0;
	int ret = i < MAX_FILES ? hwbpi_dwarf_debug_at(ty->o.dwarf, i, addr, &path, &bias) : -ERANGE;

	*more = ret != -ERANGE;
	if (ret == -ENODATA && addr)
		why_not(why, n, "the file holding it", -ENODATA);
	return ret == 1 ? open_dwarf(&ty->file[i], path, (int64_t)bias, why, n) : NULL;
}

struct hwbpi_tsrc *hwbpi_typer_next(struct hwbpi_typer *ty, uint64_t addr, bool cast,
				   unsigned *pos, char *why, size_t n)
{
	struct hwbpi_tsrc *s = NULL;
	bool more = true;

	if (!ty->o.kernel) {
		while (!s && more && ty->o.dwarf)
			s = file_source(ty, (*pos)++, addr, &more, why, n);
		return s;
	}
	/* The kernel: 0 BTF (a cast), 1 --vmlinux, 2 BTF (otherwise), then
	 * for a cast each module's BTF (its own structs). */
	while (!s && *pos < 3) {
		unsigned at = (*pos)++;

		if (at == 0 && cast)
			s = open_btf(ty, why, n);
		else if (at == 1 && ty->o.vmlinux)
			s = open_dwarf(&ty->kdwarf, ty->o.vmlinux, ty->o.kaslr, why, n);
		else if (at == 2 && !cast)
			s = open_btf(ty, why, n);
	}
	if (!s && cast) {
		list_modules(ty);
		while (!s && *pos - 3 < ty->nmod)
			s = open_module(ty, (*pos)++ - 3, why, n);
	}
	return s;
}
