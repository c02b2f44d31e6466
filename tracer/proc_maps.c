/* SPDX-License-Identifier: MIT */
/*
 * /proc/PID/maps for the Linux backends (tracer/proc_maps.h): which files
 * a process has mapped where, their load biases, and their symbols.
 * Every architecture; no ptrace.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "proc_maps.h"

/* ------------------------------------------------------------------ */
/* /proc/PID/maps (every architecture).                                */
/* ------------------------------------------------------------------ */
struct mapent {
	uint64_t start, off, ino;
	unsigned maj, min;
	char path[4096];
};

/* "start-end perms offset maj:min inode path" (man 5 proc_pid_maps). */
static bool parse_maps_line(const char *line, struct mapent *m)
{
	int n = 0;

	m->path[0] = '\0';
	if (sscanf(line, "%" SCNx64 "-%*x %*s %" SCNx64 " %x:%x %" SCNu64 " %n", &m->start,
		   &m->off, &m->maj, &m->min, &m->ino, &n) < 5)
		return false;
	snprintf(m->path, sizeof(m->path), "%s", line + n);
	m->path[strcspn(m->path, "\n")] = '\0';
	return true;
}

/* The page of the first PT_LOAD's p_vaddr: where the mapping at file
 * offset 0 goes before the bias (the ELF spec sorts PT_LOAD by p_vaddr;
 * the kernel maps ELF_PAGESTART(bias + p_vaddr): fs/binfmt_elf.c). */
static int elf_first_page(const char *path, uint64_t *page)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -EINVAL;

	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_phentsize == sizeof(ph)) {
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD) {
				*page = ph.p_vaddr & ~(pg - 1);
				ret = 0;
				break;
			}
		}
	}
	close(fd);
	return ret;
}

static FILE *open_maps(pid_t pid, int *ret)
{
	char p[64];
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
	f = fopen(p, "re");
	*ret = f ? 0 : -errno;
	return f;
}

int hwbpi_proc_load_bias(pid_t pid, const char *exe_path, uint64_t *bias)
{
	char exe[64], line[4300];
	struct mapent m;
	struct stat sb;
	uint64_t page;
	FILE *f;
	int ret;

	if (pid <= 0 || !bias)
		return -EINVAL;
	if (!exe_path) {
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
		exe_path = exe;
	}
	/* Matched by device and inode: the maps' path is absolute and may
	 * differ from the one the user typed (symlinks, relative paths). */
	if (stat(exe_path, &sb))
		return -errno;
	ret = elf_first_page(exe_path, &page);
	if (ret)
		return ret;
	f = open_maps(pid, &ret);
	if (!f)
		return ret;
	ret = -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		if (parse_maps_line(line, &m) && m.off == 0 && m.ino == (uint64_t)sb.st_ino &&
		    m.maj == major(sb.st_dev) && m.min == minor(sb.st_dev)) {
			*bias = m.start - page;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* The symbols of one mapped file (@m at offset 0) at its load bias:
 * the number added, 0 for a file without symbols, or an error. */
static int load_mapped(struct hwbp_symtab *syms, const struct mapent *m)
{
	uint64_t page;
	int n;

	if (elf_first_page(m->path, &page))
		return 0;   /* not a 64-bit ELF (a locale archive, a data file) */
	n = hwbp_symtab_load_elf(syms, m->path, m->start - page);
	if (n == -EINVAL || n == -ENOENT || n == -EACCES)
		return 0;   /* stripped, or gone since: no symbols to add */
	return n;
}

/* One pass over the maps: the executable only (@exe), or every other
 * file mapped at offset 0, each once. */
static int load_pass(struct hwbp_symtab *syms, FILE *f, bool exe, const struct stat *xsb)
{
	char line[4300];
	struct mapent m;
	uint64_t seen[512];
	unsigned nseen = 0;
	int total = 0;

	while (fgets(line, sizeof(line), f)) {
		bool dup = false, is_exe;
		int n;

		/* Files only ([vdso], [heap], anonymous maps are not). */
		if (!parse_maps_line(line, &m) || m.off != 0 || m.ino == 0 || m.path[0] != '/')
			continue;
		is_exe = xsb && m.ino == (uint64_t)xsb->st_ino && m.maj == major(xsb->st_dev) &&
			 m.min == minor(xsb->st_dev);
		if (is_exe != exe)
			continue;
		for (unsigned i = 0; i < nseen; i++)
			dup |= seen[i] == m.ino;
		if (dup)
			continue;
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = m.ino;
		n = load_mapped(syms, &m);
		if (n < 0)
			return n;
		total += n;
		if (exe)
			break;
	}
	return total;
}

int hwbpi_proc_load_symbols(struct hwbp_symtab *syms, pid_t pid)
{
	char exe[64];
	struct stat xsb;
	bool have_exe;
	FILE *f;
	int ret, n;

	if (!syms || pid <= 0)
		return -EINVAL;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	have_exe = stat(exe, &xsb) == 0;
	f = open_maps(pid, &ret);
	if (!f)
		return ret;
	/*
	 * The dynamic linker's order, so that "first added wins" picks the
	 * copy the program uses: the executable first (its copy relocations,
	 * R_*_COPY, make its .bss copy of a library's variable the one every
	 * module reads: glibc's do_lookup_x() searches the executable's scope
	 * first), then the libraries as mapped.
	 */
	ret = have_exe ? load_pass(syms, f, true, &xsb) : 0;
	if (ret >= 0) {
		rewind(f);
		n = load_pass(syms, f, false, have_exe ? &xsb : NULL);
		ret = n < 0 ? n : ret + n;
	}
	fclose(f);
	return ret;
}
