/* SPDX-License-Identifier: MIT */
/*
 * What a race report names (race/race.h): the function and object of an
 * instruction, its source line where the program's DWARF has one (the
 * symbol room's line tables, as `hwbp trace --srcline` reads them), the
 * variable a data symbol holds, and for an address no symbol holds, the
 * mapping it lies in (the heap, a thread's stack, an anonymous one).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "race/race.h"

const char *hwbpi_race_func(const struct hwbpi_race_run *r, uint64_t ip, uint64_t *off)
{
	const struct hwbp_sym *f = r && r->syms ? hwbp_symtab_func(r->syms, ip) : NULL;

	*off = f ? ip - f->addr : 0;
	return f ? f->name : NULL;
}

const char *hwbpi_race_object(const struct hwbpi_race_run *r, uint64_t ip)
{
	const char *path = NULL, *s;
	uint64_t bias;

	if (!r || !r->syms || hwbpi_symtab_region_of(r->syms, ip, &path, &bias) || !path)
		return NULL;
	s = strrchr(path, '/');
	return s ? s + 1 : path;
}

void hwbpi_race_line(const struct hwbpi_race_run *r, uint64_t ip, const char **file,
		     unsigned *line)
{
	*file = NULL;
	*line = 0;
	if (r && r->dwarf && hwbpi_dwarf_srcline(r->dwarf, ip, file, line)) {
		*file = NULL;
		*line = 0;
	}
}

/* nm's letters of data: initialised, zeroed, read-only, small, common,
 * unique global, weak object. */
static bool data_type(char t)
{
	return t && strchr("dDbBrRgGsSvVuC", t) != NULL;
}

const char *hwbpi_race_var(const struct hwbpi_race_run *r, uint64_t addr, uint64_t *off)
{
	const struct hwbp_sym *s = r && r->syms ? hwbp_symtab_at(r->syms, addr) : NULL;

	*off = 0;
	if (!s || !data_type(s->type) || (s->size ? addr >= s->addr + s->size : addr != s->addr))
		return NULL;
	*off = addr - s->addr;
	return s->name;
}

void hwbpi_race_where(pid_t pid, uint64_t addr, char *buf, size_t n)
{
	char p[64], line[4352];
	FILE *f;

	if (!buf || !n)
		return;
	buf[0] = '\0';
	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(p, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		uint64_t lo, hi;
		int name = 0;

		/* "lo-hi perms offset dev inode [name]" */
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %*s %*s %n", &lo, &hi, &name) < 2 ||
		    addr < lo || addr >= hi)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (!name || !line[name]) {
			snprintf(buf, n, "anonymous");
		} else {
			const char *s = strrchr(line + name, '/');

			snprintf(buf, n, "%s", s && line[name] == '/' ? s + 1 : line + name);
		}
		break;
	}
	fclose(f);
}
