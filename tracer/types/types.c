/* SPDX-License-Identifier: MIT */
/*
 * A session's type sources (types/types.h): each opened the first time an
 * expression needs it, and kept until the session ends (a second entry on
 * the same file reads the same DWARF).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types/types.h"

#define MAX_FILES 64

struct opened {
	struct hwbpi_tsrc *src;
	int err;                     /* the open's, 0: not tried or opened */
	bool tried;
};

struct hwbpi_typer {
	struct hwbpi_typer_opts o;
	struct opened file[MAX_FILES];   /* the traced files', by hwbpi_dwarf index */
	struct opened kdwarf, btf;
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
	close_one(&ty->btf);
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
	/* The kernel: 0 BTF (a cast), 1 --vmlinux, 2 BTF (otherwise). */
	while (!s && *pos < 3) {
		unsigned at = (*pos)++;

		if (at == 0 && cast)
			s = open_btf(ty, why, n);
		else if (at == 1 && ty->o.vmlinux)
			s = open_dwarf(&ty->kdwarf, ty->o.vmlinux, ty->o.kaslr, why, n);
		else if (at == 2 && !cast)
			s = open_btf(ty, why, n);
	}
	return s;
}
