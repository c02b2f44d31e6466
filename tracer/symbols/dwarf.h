/* SPDX-License-Identifier: MIT */
/*
 * Debug information of a traced program (internal; tracer/symbols/dwarf.c, through
 * elfutils' libdwfl): the separate debug file of a stripped executable or
 * library, found as GDB and perf find it (its build-id under
 * /usr/lib/debug/.build-id/, its .gnu_debuglink beside it, in .debug/
 * beside it or under /usr/lib/debug/), and the source line of an
 * instruction.  A session keeps one (struct hwbpi_dwarf) and gives it to
 * the symbol table it loads (hwbpi_symtab_set_dwarf), which records every
 * ELF file it reads there; the outputs ask it for lines at print time.
 *
 * Without libdw (HWBP_HAVE_LIBDW undefined: a cross build without the
 * target's libdw, or -Ddwarf=disabled) the bookkeeping still works, and
 * every search and line lookup says -EOPNOTSUPP.
 *
 * Nothing here runs on a hit path: files are read as the symbols load,
 * lines looked up once per distinct instruction (cached) as events are
 * printed.  One thread at a time per struct hwbpi_dwarf.
 */
#ifndef HWBP_TRACER_DWARF_H
#define HWBP_TRACER_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwbp/trace.h>

struct hwbpi_dwarf;

/* Where a debug file is searched without --debug-dir: elfutils' default
 * (the file's own directory, its .debug/ subdirectory, the system's root,
 * where the distribution's debug packages install them). */
#define HWBPI_SYSTEM_DEBUG_DIR "/usr/lib/debug"
#define HWBPI_DEBUGINFO_PATH ":.debug:" HWBPI_SYSTEM_DEBUG_DIR

/*
 * hwbpi_dwarf_new - an empty set of files.  @debug_dir (NULL: none) is one
 * more root to search, after the file's own directories and before
 * /usr/lib/debug (as GDB's debug-file-directory: DIR/.build-id/xx/rest.debug
 * and DIR/<the file's directory>/<its .gnu_debuglink>); @lines: source
 * lines will be asked for, so every file is handed to libdwfl as it is
 * recorded (while it can still be opened: a process's /proc/PID/exe is gone
 * once it exited).
 * Errors (NULL, *@err): -ENOENT, -ENOTDIR, -EACCES (@debug_dir is not a
 * directory one can read: realpath()'s and stat()'s errno), -EINVAL (it
 * holds a ':', which would split the search path), -EOPNOTSUPP (@debug_dir
 * or @lines in a build without libdw), -ENOMEM.
 */
struct hwbpi_dwarf *hwbpi_dwarf_new(const char *debug_dir, bool lines, int *err);

/* Free @d and everything it read (NULL: nothing); line names it gave
 * (hwbpi_dwarf_srcline) die with it. */
void hwbpi_dwarf_free(struct hwbpi_dwarf *d);

/* Give @d to table @t: its ELF loads (hwbp_symtab_load_elf, the files of
 * a process) record their files there and search its debug directory.
 * @d must outlive @t's loads.  NULL @d: the default search, nothing kept. */
void hwbpi_symtab_set_dwarf(struct hwbp_symtab *t, struct hwbpi_dwarf *d);

/* The set of table @t (NULL if none was given). */
struct hwbpi_dwarf *hwbpi_symtab_dwarf(const struct hwbp_symtab *t);

/*
 * hwbpi_dwarf_file - record the ELF file at @path (read from there; named
 * @name, the path it was mapped from, whose directory is where its
 * .gnu_debuglink is searched) loaded at @bias (its symbols' addresses plus
 * @bias are where it runs), and with @want_debug (it has no .symtab) find
 * its separate debug file, whose path goes into @debug (@n bytes).  The
 * debug file must match: the same build-id when the file has one, else the
 * CRC its .gnu_debuglink gives.  A file recorded before (the same @name
 * and @bias) is not recorded again, and its first search's answer stands.
 * @d NULL: the search alone, with the default path.  Called by the symbol
 * loader (symbols_load.c).
 * Returns 0 (found, or nothing to find), -ENOENT (no debug file),
 * -EOPNOTSUPP (no libdw: nothing searched), -ENOMEM, -ENAMETOOLONG (the
 * debug file's path does not fit @n).
 */
int hwbpi_dwarf_file(struct hwbpi_dwarf *d, const char *name, const char *path, uint64_t bias,
		     bool want_debug, char *debug, size_t n);

/* What the search said of one file that had no .symtab. */
struct hwbpi_dwarf_debug {
	const char *file;     /* its name (as mapped) */
	const char *debug;    /* the debug file read, NULL: none */
	const char *how;      /* how it was found: "build-id", ".gnu_debuglink" or "name"
			       * (FILE.debug without a .gnu_debuglink), NULL: not found */
	int err;              /* 0, -ENOENT (none found), -EOPNOTSUPP (no libdw) */
	bool system;          /* the debug file is under HWBPI_SYSTEM_DEBUG_DIR */
};

/* The @i-th file recorded without a .symtab (in load order) into @out;
 * false past the last.  Borrowed strings, alive as long as @d. */
bool hwbpi_dwarf_stripped(const struct hwbpi_dwarf *d, unsigned i, struct hwbpi_dwarf_debug *out);

/*
 * hwbpi_dwarf_srcline - the source line of the instruction at @ip (an
 * address of the traced process, at which an instruction starts or which
 * lies inside one): *@file its file as the DWARF line table names it (its
 * last path component; borrowed, alive as long as @d) and *@line.  Looked
 * up once per distinct @ip: the answer, found or not, is cached.
 * Returns 0, -ENOENT (no file of @d holds @ip, or it has no line table
 * there), -EOPNOTSUPP (no libdw), -ENOMEM.
 */
int hwbpi_dwarf_srcline(struct hwbpi_dwarf *d, uint64_t ip, const char **file, unsigned *line);

/*
 * hwbpi_dwarf_debug_at - where the DWARF of the @i-th file recorded in @d
 * (load order) is read, when its image holds address @addr (0: any
 * file): *@path the file that holds it (its separate debug file, or the
 * file itself), *@bias what its addresses run at less their file
 * addresses.  Borrowed strings, alive as long as @d.  A file whose image
 * does not hold @addr is not searched (a library's debug file is looked
 * for only when asked for).  Types (tracer/types/) read the variables and
 * types there.
 * Returns 1 (found), 0 (the file does not hold @addr), -ENODATA (it has
 * no DWARF anywhere, or libdw is missing), -ERANGE (past the last file).
 */
int hwbpi_dwarf_debug_at(struct hwbpi_dwarf *d, unsigned i, uint64_t addr, const char **path,
			 uint64_t *bias);

/*
 * hwbpi_dwarf_inlined - the @i-th function inlined at @ip (0: the
 * innermost, then each one it was inlined into), as its DWARF names it:
 * the linkage (mangled) name where it has one, else its plain name; a
 * borrowed string, alive as long as @d.  The race detector asks whether
 * an access lies in an inlined atomic operation (C++'s std::atomic).
 * Returns 0, -ENOENT (no such, or no DWARF holds @ip), -EOPNOTSUPP (no
 * libdw), -EINVAL.  Not cached: the caller asks once per instruction.
 */
int hwbpi_dwarf_inlined(struct hwbpi_dwarf *d, uint64_t ip, unsigned i, const char **name);

#endif /* HWBP_TRACER_DWARF_H */
