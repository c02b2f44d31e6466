/* SPDX-License-Identifier: MIT */
/*
 * Thread-local variables of a traced program (internal): an STT_TLS
 * symbol's value is an offset in its module's TLS block, not an address
 * (ELF gABI, "Symbol Values"; Drepper, "ELF Handling For Thread-Local
 * Storage" §2), so the symbol table (tracer/symbols/symbols_load.c) leaves such
 * symbols out and a watch on one is resolved here instead: only the
 * executable's own block (module 1), which every thread holds at a fixed
 * distance from its thread pointer (static TLS: hwbpi_linux_tls_block()).
 * A library's block is placed by the dynamic linker (dlopen()ed ones in
 * dynamic TLS, allocated on a thread's first access), which a tracer
 * cannot find without reading the loader's own data: refused.
 */
#ifndef HWBP_TRACER_TLS_H
#define HWBP_TRACER_TLS_H

#include <stddef.h>
#include <stdint.h>

#include <hwbp/trace.h>

/* A thread-local variable of the executable. */
struct hwbpi_tls_var {
	uint64_t off;            /* st_value: its offset in the TLS block */
	uint64_t size;           /* st_size (0: not given) */
	uint64_t memsz, align;   /* the executable's PT_TLS p_memsz, p_align */
};

/*
 * hwbpi_tls_find - the thread-local (STT_TLS) variable @name of a file
 * that @t was loaded from (hwbp_symtab_load_elf(): each file's .symtab,
 * else .dynsym, in load order; the first loaded is the executable when it
 * is one: ET_EXEC, a PT_INTERP, or DT_FLAGS_1 DF_1_PIE).  @name is a plain
 * name, or a C++/Rust one as demangled ("app::tl_hits"); "LIB:NAME" and
 * "NAME@VER" forms are not looked up here.
 * Errors: -ENOENT (no such variable, or @t NULL or read from no ELF file),
 *         -EOPNOTSUPP (a shared library's, or the executable's PT_TLS is
 *         missing or placed off its alignment: @err says which, naming
 *         the variable and the errno).
 * Context: opens and reads the files (not on a hit path); a finished
 * table, read only.
 */
int hwbpi_tls_find(const struct hwbp_symtab *t, const char *name, struct hwbpi_tls_var *v,
		   char *err, size_t errlen);

#endif /* HWBP_TRACER_TLS_H */
