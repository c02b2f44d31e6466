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

/* A process's files: the one whose image holds @addr, or all (@addr 0). */
static unsigned file_sources(struct hwbpi_typer *ty, uint64_t addr, struct hwbpi_tsrc **out,
			     unsigned max, char *why, size_t n)
{
	const char *path;
	uint64_t bias, lo, hi;
	unsigned k = 0;

	for (unsigned i = 0; i < MAX_FILES && k < max &&
	     hwbpi_dwarf_debug_at(ty->o.dwarf, i, &path, &bias, &lo, &hi); i++) {
		struct hwbpi_tsrc *s;

		if (addr && (addr < lo || addr >= hi))
			continue;
		if (!path) {
			why_not(why, n, "the file holding it", -ENODATA);
			continue;
		}
		if ((s = open_dwarf(&ty->file[i], path, (int64_t)bias, why, n)))
			out[k++] = s;
	}
	return k;
}

unsigned hwbpi_typer_sources(struct hwbpi_typer *ty, uint64_t addr, bool cast,
			     struct hwbpi_tsrc **out, unsigned max, char *why, size_t n)
{
	struct hwbpi_tsrc *s;
	unsigned k = 0;

	why[0] = '\0';
	if (!ty->o.kernel)
		return ty->o.dwarf ? file_sources(ty, addr, out, max, why, n) : 0;
	if (cast && k < max && (s = open_btf(ty, why, n)))
		out[k++] = s;
	if (ty->o.vmlinux && k < max && (s = open_dwarf(&ty->kdwarf, ty->o.vmlinux, ty->o.kaslr,
							 why, n)))
		out[k++] = s;
	if (!cast && k < max && (s = open_btf(ty, why, n)))
		out[k++] = s;
	return k;
}
