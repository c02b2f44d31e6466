/* SPDX-License-Identifier: MIT */
/*
 * /proc/PID/maps for the Linux backends (tracer/symbols/proc_maps.h): which files
 * a process has mapped where, their load biases, and their symbols.
 * Every architecture; no ptrace.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "symbols/proc_maps.h"
#include "symbols/symbols_int.h"

/* ------------------------------------------------------------------ */
/* /proc/PID/maps (every architecture).                                */
/* ------------------------------------------------------------------ */
struct mapent {
	uint64_t start, end, off, ino;
	unsigned maj, min;
	bool deleted;                  /* the path's file was unlinked */
	char path[4096];               /* without the " (deleted)" mark */
};

#define DELETED_MARK " (deleted)"

/* "start-end perms offset maj:min inode path" (man 5 proc_pid_maps). */
static bool parse_maps_line(const char *line, struct mapent *m)
{
	size_t n = 0, len, mark = sizeof(DELETED_MARK) - 1;
	int k = 0;

	m->path[0] = '\0';
	m->deleted = false;
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %x:%x %" SCNu64 " %n", &m->start,
		   &m->end, &m->off, &m->maj, &m->min, &m->ino, &k) < 6)
		return false;
	n = (size_t)k;
	snprintf(m->path, sizeof(m->path), "%s", line + n);
	m->path[strcspn(m->path, "\n")] = '\0';
	/* The kernel appends the mark to the path of an unlinked file
	 * (d_path(): fs/d_path.c prepend " (deleted)"); the file itself is
	 * still there through /proc/PID/exe or /proc/PID/map_files/. */
	len = strlen(m->path);
	if (len > mark && strcmp(m->path + len - mark, DELETED_MARK) == 0) {
		m->path[len - mark] = '\0';
		m->deleted = true;
	}
	return true;
}


/* The ELF header of @fd, a 64-bit ELF whose program headers are
 * Elf64_Phdr (every file a process of this machine maps): 0 or -EINVAL. */
static int read_ehdr(int fd, Elf64_Ehdr *eh)
{
	return pread(fd, eh, sizeof(*eh), 0) == (ssize_t)sizeof(*eh) &&
	       memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_phentsize == sizeof(Elf64_Phdr) ? 0 : -EINVAL;
}

/* The page of the first PT_LOAD's p_vaddr: where the mapping at file
 * offset 0 goes before the bias (the ELF spec sorts PT_LOAD by p_vaddr;
 * the kernel maps ELF_PAGESTART(bias + p_vaddr): fs/binfmt_elf.c).
 * 0 or -EINVAL (none). */
static int first_page(int fd, const Elf64_Ehdr *eh, uint64_t *page)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	Elf64_Phdr ph;

	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh->e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			break;
		if (ph.p_type == PT_LOAD) {
			*page = ph.p_vaddr & ~(pg - 1);
			return 0;
		}
	}
	return -EINVAL;
}

/* The same from the file at @path: 0, -EINVAL, or open()'s error. */
static int elf_first_page(const char *path, uint64_t *page)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = read_ehdr(fd, &eh);
	if (ret == 0)
		ret = first_page(fd, &eh, page);
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


/* ------------------------------------------------------------------ */
/* The dynamic linker's order.                                         */
/* ------------------------------------------------------------------ */

/* A file mapped at offset 0, with what its PT_DYNAMIC says: DT_SONAME
 * and the DT_NEEDED names, NUL-separated in needed[] (those past its
 * end are left out: such a file is placed in maps order instead). */
struct mapped {
	struct mapent m;
	bool exe;                      /* the process's executable */
	char src[80];                  /* deleted: the /proc path to read it by */
	int elf;                       /* 0: a 64-bit ELF with a PT_LOAD, else
					  -EINVAL or why it could not be opened */
	uint64_t page;                 /* its first PT_LOAD's page (elf == 0) */
	char soname[256];
	char needed[2048];
	size_t nlen;
	bool placed;
};

/* Where @f's bytes are read from: its path, or for an unlinked file the
 * /proc name of the open inode. */
static const char *src_of(const struct mapped *f)
{
	return f->src[0] ? f->src : f->m.path;
}

/*
 * An unlinked file is read through /proc: the executable by
 * /proc/PID/exe (PTRACE_MODE_READ, as for the trace itself), a library
 * by /proc/PID/map_files/START-END (opening it needs CAP_SYS_ADMIN in
 * the initial user namespace, or CAP_CHECKPOINT_RESTORE: Linux's
 * proc_map_files_get_link()).
 */
static void set_src(struct mapped *f, pid_t pid)
{
	f->src[0] = '\0';
	if (f->m.deleted && f->exe)
		snprintf(f->src, sizeof(f->src), "/proc/%d/exe", (int)pid);
	else if (f->m.deleted)
		snprintf(f->src, sizeof(f->src), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid,
			 f->m.start, f->m.end);
}

/* The symbols of mapped file @f (at offset 0) at its load bias, named by
 * its path even when read through /proc: the number added, 0 for a file
 * without symbols, or an error.  An unlinked file that cannot be read
 * is counted in @gone. */
static int load_mapped(struct hwbp_symtab *syms, const struct mapped *f,
		       struct hwbpi_proc_gone *gone)
{
	int n = f->elf;

	if (n && f->m.deleted && gone && n != -EINVAL) {
		if (!gone->unread++) {
			snprintf(gone->lib, sizeof(gone->lib), "%s", f->m.path);
			gone->err = n;
		}
		return 0;
	}
	if (n)
		return 0;   /* not a 64-bit ELF (a locale archive, a data file) */
	if (f->m.deleted && gone && !gone->read++)
		snprintf(gone->first, sizeof(gone->first), "%s", f->m.path);
	n = hwbpi_symtab_load_elf_as(syms, src_of(f), f->m.path, f->m.start - f->page);
	/* Without symbols (no .symtab nor .dynsym), its code is still a
	 * place: its region names an IP there "FILE+0xOFF" (tracer/symbols/symtab.h);
	 * with symbols the load added it. */
	if (n == -EINVAL)
		n = hwbpi_symtab_load_region(syms, src_of(f), f->m.path, f->m.start - f->page);
	if (n == -EINVAL || n == -ENOENT || n == -EACCES)
		return 0;   /* not ELF after all, or gone since: nothing to add */
	return n;
}

/* The file offset of virtual address @v, through the PT_LOAD segments. */
static bool vaddr_off(int fd, const Elf64_Ehdr *eh, uint64_t v, uint64_t *off)
{
	Elf64_Phdr ph;

	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh->e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return false;
		if (ph.p_type == PT_LOAD && v >= ph.p_vaddr && v - ph.p_vaddr < ph.p_filesz) {
			*off = v - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

/* String @i of the dynamic string table at file offset @str (@strsz). */
static void dyn_str(int fd, uint64_t str, uint64_t strsz, uint64_t i, char *out, size_t n)
{
	ssize_t r = i < strsz ? pread(fd, out, n - 1, (off_t)(str + i)) : -1;

	out[r > 0 ? (size_t)r : 0] = '\0';
	out[strnlen(out, n - 1)] = '\0';
}

/* What the headers of @f say: whether it is a 64-bit ELF and where its
 * first PT_LOAD goes (f->elf, f->page), its DT_SONAME and DT_NEEDED (of
 * this machine's byte order, as every file mapped in a process it can
 * trace is; nothing for a file without PT_DYNAMIC).  One open for all. */
static void read_dynamic(struct mapped *f)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Dyn d;
	uint64_t dyn = 0, ndyn = 0, strva = 0, strsz = 0, str, soname = UINT64_MAX;
	uint64_t need[128];
	unsigned nneed = 0;
	int fd = open(src_of(f), O_RDONLY | O_CLOEXEC);
	int hdr = fd < 0 ? -errno : read_ehdr(fd, &eh);

	f->elf = hdr ? hdr : first_page(fd, &eh, &f->page);
	if (fd < 0)
		return;
	if (hdr)
		goto out;
	for (unsigned i = 0; i < eh.e_phnum && !ndyn; i++)
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) ==
			    (ssize_t)sizeof(ph) && ph.p_type == PT_DYNAMIC) {
			dyn = ph.p_offset;
			ndyn = ph.p_filesz / sizeof(d);
		}
	for (uint64_t i = 0; i < ndyn; i++) {
		if (pread(fd, &d, sizeof(d), (off_t)(dyn + i * sizeof(d))) != (ssize_t)sizeof(d) ||
		    d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_STRTAB)
			strva = d.d_un.d_ptr;
		else if (d.d_tag == DT_STRSZ)
			strsz = d.d_un.d_val;
		else if (d.d_tag == DT_SONAME)
			soname = d.d_un.d_val;
		else if (d.d_tag == DT_NEEDED && nneed < sizeof(need) / sizeof(need[0]))
			need[nneed++] = d.d_un.d_val;
	}
	if (!strva || !vaddr_off(fd, &eh, strva, &str))
		goto out;
	if (soname != UINT64_MAX)
		dyn_str(fd, str, strsz, soname, f->soname, sizeof(f->soname));
	for (unsigned i = 0; i < nneed && f->nlen < sizeof(f->needed) - 1; i++) {
		char name[256];
		size_t len;

		dyn_str(fd, str, strsz, need[i], name, sizeof(name));
		len = strlen(name);
		if (!len || len + 1 > sizeof(f->needed) - 1 - f->nlen)
			break;
		memcpy(f->needed + f->nlen, name, len + 1);
		f->nlen += len + 1;
	}
out:
	close(fd);
}

/* The files mapped at offset 0 in maps order, each once, the executable
 * (@xsb, NULL: unknown) first, into *file (grown as needed).  Returns
 * how many, or -ENOMEM. */
static int list_files(FILE *f, const struct stat *xsb, struct mapped **file)
{
	char line[4300];
	size_t n = 0, cap = 0;
	struct mapent m;

	*file = NULL;
	while (fgets(line, sizeof(line), f)) {
		bool dup = false;
		struct mapped *x;

		/* Files only ([vdso], [heap], anonymous maps are not). */
		if (!parse_maps_line(line, &m) || m.off != 0 || m.ino == 0 || m.path[0] != '/')
			continue;
		for (size_t i = 0; i < n; i++)
			dup |= (*file)[i].m.ino == m.ino && (*file)[i].m.maj == m.maj &&
			       (*file)[i].m.min == m.min;
		if (dup)
			continue;
		if (n == cap) {
			struct mapped *nf = n < INT_MAX / 2 ?
				realloc(*file, (cap = cap ? 2 * cap : 16) * sizeof(**file)) : NULL;

			if (!nf) {
				free(*file);
				*file = NULL;
				return -ENOMEM;
			}
			*file = nf;
		}
		x = &(*file)[n];
		x->m = m;
		x->soname[0] = x->needed[0] = '\0';
		x->nlen = 0;
		x->placed = false;
		x->exe = xsb && m.ino == (uint64_t)xsb->st_ino && m.maj == major(xsb->st_dev) &&
			 m.min == minor(xsb->st_dev);
		if (x->exe && n) {
			struct mapped t = *x;   /* the executable goes first */

			memmove(&(*file)[1], &(*file)[0], n * sizeof(**file));
			(*file)[0] = t;
		}
		n++;
	}
	return (int)n;
}

/* The mapped file DT_NEEDED @name refers to: by soname, else by the
 * path's last component; not yet placed. */
static struct mapped *find_needed(struct mapped *file, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++) {
		const char *base = strrchr(file[i].m.path, '/');

		if (!file[i].placed && (!strcmp(file[i].soname, name) || !strcmp(base + 1, name)))
			return &file[i];
	}
	return NULL;
}

/*
 * @order: the files in the order of the dynamic linker's global scope
 * (glibc's _dl_map_object_deps(): the executable, then its DT_NEEDED
 * breadth first), then whatever else is mapped (dlopen()ed libraries,
 * LD_PRELOAD ones) in maps order.
 */
static void scope_order(struct mapped *file, unsigned n, unsigned *order)
{
	unsigned k = 0;


	if (!n)
		return;
	file[0].placed = true;
	order[k++] = 0;
	for (unsigned q = 0; q < k; q++) {
		const struct mapped *x = &file[order[q]];

		for (size_t i = 0; i < x->nlen; i += strlen(x->needed + i) + 1) {
			struct mapped *y = find_needed(file, n, x->needed + i);

			if (y) {
				y->placed = true;
				order[k++] = (unsigned)(y - file);
			}
		}
	}
	for (unsigned i = 0; i < n; i++)
		if (!file[i].placed)
			order[k++] = i;
}

int hwbpi_proc_load_symbols(struct hwbp_symtab *syms, pid_t pid, struct hwbpi_proc_gone *gone)
{
	struct mapped *file = NULL;
	unsigned *order;
	char exe[64];
	struct stat xsb;
	FILE *f;
	int ret, n, total = 0;

	if (!syms || pid <= 0)
		return -EINVAL;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	f = open_maps(pid, &ret);
	if (!f)
		return ret;
	n = list_files(f, stat(exe, &xsb) == 0 ? &xsb : NULL, &file);
	fclose(f);
	if (n < 0)
		return n;
	order = malloc(((size_t)n + 1) * sizeof(*order));
	if (!order) {
		free(file);
		return -ENOMEM;
	}
	if (gone)
		memset(gone, 0, sizeof(*gone));
	for (int i = 0; i < n; i++) {
		set_src(&file[i], pid);
		read_dynamic(&file[i]);
	}
	/*
	 * Loaded in the dynamic linker's order, so that "first added wins"
	 * picks the copy the program uses: the executable first (its copy
	 * relocations, R_*_COPY, make its .bss copy of a library's variable
	 * the one every module reads: glibc's do_lookup_x() searches the
	 * scope in this order), then its libraries breadth first.
	 */
	scope_order(file, (unsigned)n, order);
	for (int i = 0; i < n; i++) {
		int r = load_mapped(syms, &file[order[i]], gone);

		if (r < 0) {
			total = r;
			break;
		}
		total += r;
	}
	free(order);
	free(file);
	return total;
}

int hwbpi_proc_entry(pid_t pid, uint64_t *entry)
{
	char p[64];
	Elf64_auxv_t a;
	int fd, ret = -ENOENT;

	snprintf(p, sizeof(p), "/proc/%d/auxv", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (read(fd, &a, sizeof(a)) == (ssize_t)sizeof(a) && a.a_type != AT_NULL)
		if (a.a_type == AT_ENTRY) {
			*entry = a.a_un.a_val;
			ret = 0;
			break;
		}
	close(fd);
	return ret;
}
