/* SPDX-License-Identifier: MIT */
/*
 * Reading the running kernel's memory through /proc/kcore (tracer-
 * internal): the bytes of a kernel variable when a trace starts, the
 * "before" of its first hit in the kernel tracer's values, as GDB reads a
 * watched expression when the watchpoint is set.
 */
#ifndef HWBP_TRACER_KCORE_H
#define HWBP_TRACER_KCORE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Read @len bytes at kernel virtual address @addr from @path (NULL:
 * /proc/kcore, an ELF core file whose PT_LOAD segments are the kernel's
 * mappings: fs/proc/kcore.c) into @buf.  The read is not atomic with the
 * kernel's own writes (a variable being written meanwhile may read torn).
 * Needs root (CAP_SYS_RAWIO) and a kernel with CONFIG_PROC_KCORE and
 * without lockdown's confidentiality mode.
 * Errors: -EINVAL (@buf NULL or @len 0), -errno of open/pread (-EACCES,
 *         -EPERM, -ENOENT: no /proc/kcore), -ENOEXEC (not a 64-bit ELF core
 *         of this byte order), -EFAULT (no segment holds the whole range),
 *         -EIO (a short read).
 * Context: a plain system-call user; no state.
 */
int hwbpi_kcore_read(const char *path, uint64_t addr, void *buf, size_t len);

#endif /* HWBP_TRACER_KCORE_H */
