/* SPDX-License-Identifier: MIT */
/*
 * A loaded object's bytes read from its file (tracer/symbols/symtab.h,
 * hwbpi_symtab_read_file()): the instruction decoder reads the code of a
 * function that trapped from the process while it lives, and from the
 * file once it has ended (perf's samples are read after the fact).  The
 * region says which file and bias; the file's PT_LOAD segments say where
 * a run address's bytes are in it (p_offset + (vaddr - p_vaddr), within
 * p_filesz: bytes past it are zero-filled memory, not code).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "symbols/symtab.h"

#ifdef HWBP_HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>

/* The file offset of the @len bytes at file address @vaddr of @e. */
static int file_offset(Elf *e, uint64_t vaddr, size_t len, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr <= ph.p_filesz &&
		    len <= ph.p_filesz - (vaddr - ph.p_vaddr)) {
			*off = ph.p_offset + (vaddr - ph.p_vaddr);
			return 0;
		}
	}
	return -EFAULT;
}

int hwbpi_symtab_read_file(const struct hwbp_symtab *t, uint64_t addr, void *buf, size_t len)
{
	const char *path;
	uint64_t bias, off = 0;
	Elf *e;
	int fd, ret;

	if ((ret = hwbpi_symtab_region_of(t, addr, &path, &bias)))
		return ret;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EIO;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	ret = e ? file_offset(e, addr - bias, len, &off) : -EINVAL;
	if (ret == 0) {
		ssize_t got = pread(fd, buf, len, (off_t)off);

		ret = got == (ssize_t)len ? 0 : got < 0 ? -errno : -EFAULT;
	}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}
#else
int hwbpi_symtab_read_file(const struct hwbp_symtab *t, uint64_t addr, void *buf, size_t len)
{
	(void)t;
	(void)addr;
	(void)buf;
	(void)len;
	return -EOPNOTSUPP;
}
#endif
