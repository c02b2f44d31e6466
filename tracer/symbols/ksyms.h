/* SPDX-License-Identifier: MIT */
/*
 * The running kernel's symbols for the kernel tracer (tracer-internal):
 * /proc/kallsyms alone, or a vmlinux ELF / System.map moved by the KASLR
 * offset that kallsyms shows, with kallsyms' module symbols; and the
 * checks a resolved kernel watch must pass before it is armed.
 */
#ifndef HWBP_TRACER_KSYMS_H
#define HWBP_TRACER_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwbp/trace.h>

/* Fewer data symbols than this in kallsyms' vmlinux lines (section
 * markers "__*" not counted) means CONFIG_KALLSYMS_ALL=n. */
#define HWBPI_KSYMS_MIN_DATA 16
/* Room for "System.map " and a path. */
#define HWBPI_KSYMS_SOURCE_LEN 4200

struct hwbpi_ksyms_opts {
	const char *kallsyms;            /* NULL: "/proc/kallsyms" (tests pass a file) */
	const char *vmlinux;             /* --vmlinux FILE (ELF) or NULL */
	const char *sysmap;              /* a System.map (--symbols FILE with --kernel) or NULL */
	const char *kptr_restrict_path;  /* NULL: /proc/sys/kernel/kptr_restrict (messages only) */
	const char *paranoid_path;       /* NULL: /proc/sys/kernel/perf_event_paranoid (messages only) */
};

/* What a load found, for the backend's checks and notes. */
struct hwbpi_ksyms {
	int64_t kaslr;                   /* running address - file address (0: kallsyms alone) */
	char source[HWBPI_KSYMS_SOURCE_LEN];  /* "kallsyms", "vmlinux FILE", "System.map FILE" */
	bool from_file;                  /* the vmlinux symbols came from --vmlinux / System.map */
	bool sizes_exact;                /* vmlinux: st_size; else lengths are inferred */
	unsigned long nsyms;             /* vmlinux symbols loaded (from kallsyms or the file) */
	unsigned long nmodsyms;          /* module symbols (kallsyms "[mod]" lines) */
	unsigned long ndata;             /* data symbols (d D b B r R, no "__*") among nsyms */
	uint64_t init[2][2];             /* [begin, end) of __init_begin..__init_end and
					  * _sinittext.._einittext (0, 0: unknown) */
	uint64_t kernel_lo;              /* lowest address of a loaded symbol, per-CPU ones
					  * (type 'A') not counted; 0: none */
	uint64_t percpu[2];              /* [begin, end) of __per_cpu_start..__per_cpu_end
					  * when they are addresses in the image (arm64:
					  * the copy each CPU's is made from); 0, 0
					  * when they are offsets ('A', x86_64) or unknown */
};

/*
 * hwbpi_ksyms_load - add the running kernel's symbols to @t (not
 * finished: the caller finishes it) and describe them in *@k.
 *
 * kallsyms is always read: alone it gives every symbol (sizes inferred at
 * finish, up to the next symbol at a higher address); with @o->vmlinux or
 * @o->sysmap the file gives the vmlinux symbols (names, and with an ELF
 * st_size), moved by kallsyms(_stext) - file(_stext) after _etext and
 * kallsyms' first global functions after _stext agree on it, and kallsyms
 * still gives the modules' symbols.  Per-CPU symbols stay offsets (type
 * 'A', unmoved).  All or nothing: on failure @t is as it was and *@k
 * untouched; *@k describes this load's symbols only (not those @t held).
 *
 * Errors, each with one line in @err naming the errno:
 *   -EINVAL: NULL argument, both a vmlinux and a System.map, a malformed
 *            or empty kallsyms or System.map, Debian's placeholder
 *            System.map (names the -dbg package), a file that is not
 *            ELF or has no symbol table, no _stext, a file that is not
 *            the running kernel's (offsets differ) or cannot be checked;
 *   -EBUSY:  @t is finished;
 *   -EACCES: kallsyms shows every address as 0 (kptr_restrict: the
 *            message says which rule applies and what to change);
 *   open's errors for an unreadable file (-ENOENT, -EACCES ...), -EIO,
 *   -ENOMEM; -EOPNOTSUPP: a vmlinux and no libelf in this build.
 * Context: reads files, allocates; not for a hot path.
 */
int hwbpi_ksyms_load(struct hwbp_symtab *t, const struct hwbpi_ksyms_opts *o,
		     struct hwbpi_ksyms *k, char *err, size_t errlen);

/*
 * hwbpi_ksyms_missing_hint - what to append to "no symbol NAME" for a data
 * symbol: "this kernel's kallsyms has no data symbols
 * (CONFIG_KALLSYMS_ALL=n): give --vmlinux FILE or a System.map" when the
 * symbols came from kallsyms alone and it has fewer than
 * HWBPI_KSYMS_MIN_DATA data symbols; NULL otherwise.  No errors.
 */
const char *hwbpi_ksyms_missing_hint(const struct hwbpi_ksyms *k);

/*
 * hwbpi_ksyms_check - may a watch of [@addr, @addr + @len) be armed?
 * @name: the symbol the address came from (looked up in the finished
 * @t), NULL when it was given as a number.
 * Errors, with one line in @err:
 *   -EINVAL: a per-CPU variable: type 'A' or a symbol's address below
 *            k->kernel_lo (an offset, not an address), or a range that
 *            meets k->percpu (the boot-time copy, not any CPU's); a range
 *            that meets one of k->init (freed after boot); NULL @k;
 *   -EFAULT: a number in the other half of the address space than the
 *            kernel's symbols (a user-space address).
 * Context: no allocation, no system call.
 */
int hwbpi_ksyms_check(const struct hwbpi_ksyms *k, const struct hwbp_symtab *t,
		      const char *name, uint64_t addr, uint64_t len, char *err, size_t errlen);

/*
 * hwbpi_ksyms_percpu - is @s (a symbol of the table *@k describes) a
 * per-CPU variable: an offset into each CPU's area (type 'A', or below
 * k->kernel_lo: x86_64) or in the boot-time copy k->percpu (arm64)?
 * Its value plus a CPU's __per_cpu_offset is that CPU's copy either way.
 * No errors (false for NULL); no allocation.
 */
bool hwbpi_ksyms_percpu(const struct hwbpi_ksyms *k, const struct hwbp_sym *s);

/*
 * How a symbol's default length was chosen, for the output's note (both
 * in symbols.c): true when its source gave no size (a map line: the size
 * is what the next symbol at a higher address leaves, 0 for the last),
 * false when it did (ELF st_size, hwbp_symtab_add) or @s is not a symbol
 * of the finished @t.  No errors; no allocation.
 */
bool hwbpi_symtab_size_inferred(const struct hwbp_symtab *t, const struct hwbp_sym *s);

/* The first symbol after @s at a higher address (aliases of @s skipped),
 * or NULL (the last, or @s not a symbol of the finished @t).  No errors;
 * no allocation. */
const struct hwbp_sym *hwbpi_symtab_next(const struct hwbp_symtab *t, const struct hwbp_sym *s);

#endif /* HWBP_TRACER_KSYMS_H */
