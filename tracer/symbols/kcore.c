/* SPDX-License-Identifier: MIT */
/*
 * /proc/kcore reads (tracer/symbols/kcore.h).  The file is an ELF64 core (on a
 * 64-bit kernel) whose program headers map kernel virtual addresses to
 * file offsets: one PT_LOAD per region (KCORE_TEXT for the kernel image,
 * KCORE_RAM for the direct map, KCORE_VMALLOC, ...: fs/proc/kcore.c
 * elf_kcore_store_hdr()); reading a segment's bytes reads the memory.
 */
#define _GNU_SOURCE 1

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "symbols/kcore.h"

/* The kernel's core is in the byte order of the CPU reading it. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_DATA ELFDATA2MSB
#else
#define HOST_DATA ELFDATA2LSB
#endif

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* The file offset of [@addr, @addr + @len) in the core open on @fd. */
static int find(int fd, uint64_t addr, size_t len, uint64_t *off)
{
	Elf64_Ehdr eh;
	int ret = read_at(fd, &eh, sizeof(eh), 0);

	if (ret)
		return ret;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != HOST_DATA || eh.e_type != ET_CORE ||
	    eh.e_phentsize != sizeof(Elf64_Phdr))
		return -ENOEXEC;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		ret = read_at(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * sizeof(ph));
		if (ret)
			return ret;
		if (ph.p_type == PT_LOAD && addr >= ph.p_vaddr && addr - ph.p_vaddr < ph.p_filesz &&
		    len <= ph.p_filesz - (addr - ph.p_vaddr)) {
			*off = ph.p_offset + (addr - ph.p_vaddr);
			return 0;
		}
	}
	return -EFAULT;
}

int hwbpi_kcore_read(const char *path, uint64_t addr, void *buf, size_t len)
{
	uint64_t off = 0;
	int fd, ret;

	if (!buf || len == 0)
		return -EINVAL;
	fd = open(path ? path : "/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = find(fd, addr, len, &off);
	if (ret == 0)
		ret = read_at(fd, buf, len, off);
	close(fd);
	return ret;
}
