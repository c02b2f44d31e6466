/* SPDX-License-Identifier: MIT */
/*
 * /proc/PID/maps (internal, Linux; tracer/symbols/proc_maps.c): load biases and
 * the symbols of every file a process has mapped, for the ptrace and perf
 * backends, whose watches are resolved against the running program.
 */
#ifndef HWBP_TRACER_PROC_MAPS_H
#define HWBP_TRACER_PROC_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <hwbp/trace.h>

/*
 * hwbpi_proc_load_bias - the load bias of @exe_path in process @pid: the
 * start of its mapping at file offset 0 (matched by device and inode, so
 * any path to the file works) minus the page of its first PT_LOAD's
 * p_vaddr.  0 for a non-PIE executable.  @exe_path NULL: /proc/PID/exe.
 * Errors: -ENOENT (the file is not mapped in @pid), -EINVAL (not a
 *         64-bit ELF), open()/stat() errors as they are.
 */
int hwbpi_proc_load_bias(pid_t pid, const char *exe_path, uint64_t *bias);

/*
 * hwbpi_proc_load_symbols - add the ELF symbols of every file mapped in
 * @pid at offset 0 (the executable, ld.so, the libraries loaded so far)
 * with their load biases, in the dynamic linker's order: the executable,
 * then DT_NEEDED breadth first (matched by DT_SONAME or file name), then
 * the rest (dlopen()ed, LD_PRELOAD) in maps order, so that a plain name
 * finds the definition the program binds to.  Each file's span is
 * remembered as a region (tracer/symbols/symtab.h: an IP in none of its
 * functions reads "libfoo.so.1+0x1234"), also for a file without a
 * symbol table, whose symbols are skipped.  A file unlinked since it was mapped (maps' "
 * (deleted)") is read through /proc/PID/exe (the executable) or
 * /proc/PID/map_files/ (a library: needs CAP_SYS_ADMIN) under its old
 * path; @gone (may be NULL) says how many were, and which could not be.
 * Returns the number of symbols added.
 * Errors: -ENOMEM, open errors of /proc/PID/maps (-ENOENT, -EACCES), those of
 *         hwbp_symtab_load_elf() other than -EINVAL/-ENOENT/-EACCES
 *         (-EBUSY, -ENOMEM, -EIO, -EOPNOTSUPP: built without libelf).
 */
struct hwbpi_proc_gone {
	unsigned read;        /* unlinked files whose symbols were read */
	char first[4096];     /* the first of them */
	unsigned unread;      /* unlinked files that could not be read */
	char lib[4096];       /* the first of those */
	int err;              /* and why (-EPERM...) */
};

int hwbpi_proc_load_symbols(struct hwbp_symtab *syms, pid_t pid, struct hwbpi_proc_gone *gone);

/*
 * hwbpi_proc_entry - AT_ENTRY of /proc/PID/auxv (man 3 getauxval): the
 * executable's entry point as loaded, where control goes once the
 * dynamic loader is done.  Errors: -ENOENT (none), open() errors.
 */
int hwbpi_proc_entry(pid_t pid, uint64_t *entry);

#endif /* HWBP_TRACER_PROC_MAPS_H */
