/* SPDX-License-Identifier: MIT */
/*
 * The symbol table's operations beyond include/hwbp/trace.h
 * (tracer-internal): name lookups that say why they failed, glob
 * patterns, and the address ranges of loaded objects, which name a place
 * that no function symbol covers ("libfoo.so.1+0x1234").
 */
#ifndef HWBP_TRACER_SYMTAB_H
#define HWBP_TRACER_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwbp/trace.h>

/* An ambiguous name: how many different symbols it could be, and the
 * demangled names of the first few in address order (the table's). */
#define HWBPI_SYMTAB_CANDIDATES 3
struct hwbpi_symtab_amb {
	size_t n;
	const char *name[HWBPI_SYMTAB_CANDIDATES];
};

/* The symbol of finished table @t named exactly @name (one hash probe:
 * no qualifier, no demangled name), or NULL.  Any thread. */
const struct hwbp_sym *hwbpi_symtab_exact(const struct hwbp_symtab *t, const char *name);

/*
 * hwbpi_symtab_resolve - hwbp_symtab_find() with the reason of a failure:
 * 0 and *@out, or -ENOENT (no such symbol), -EINVAL (@spec is a function
 * name without its parameters that several overloads have: *@amb, when
 * non-NULL, says which; also for NULL arguments or a table not
 * finished), -ENOMEM (the index of demangled names could not be built:
 * only names as the table has them were looked up).
 * Any thread once finished; the first lookup that needs demangled names
 * builds their index (allocates), the others read it.
 */
int hwbpi_symtab_resolve(const struct hwbp_symtab *t, const char *spec,
			 const struct hwbp_sym **out, struct hwbpi_symtab_amb *amb);

/*
 * hwbpi_symtab_glob - the symbols whose name matches @spec, a glob
 * pattern (fnmatch(3), no flags: '*', '?', "[...]", '\\' escapes) with
 * hwbp_symtab_find()'s qualifiers ("LIB:PAT", "PAT@VERSION", "PAT@LIB").
 * A pattern holding "::" is matched against demangled names (without a
 * template function's return type), any other against the names as the
 * table has them.  @kinds: HWBPI_SYM_DATA (nm's d D b B r R g G s S v V u),
 * HWBPI_SYM_FUNC (t T w W i), or both.  The matches go in address order,
 * one per address (the first added of aliases), into @out[0, @max) and,
 * when @names is non-NULL, the name each matched as into @names (the
 * table's strings).  Returns the number of matches, which may exceed
 * @max; -EINVAL (NULL @t or @spec, not finished, an empty pattern),
 * -ENOMEM.  Any thread once finished (as hwbpi_symtab_resolve).
 */
#define HWBPI_SYM_DATA 1u
#define HWBPI_SYM_FUNC 2u
int hwbpi_symtab_glob(const struct hwbp_symtab *t, const char *spec, unsigned kinds,
		      const struct hwbp_sym **out, const char **names, size_t max);

/* Whether @t's index of demangled names has been built (for tests of
 * when it is: never by a lookup that a name as given answers). */
bool hwbpi_symtab_demangled_built(const struct hwbp_symtab *t);

/*
 * hwbpi_symtab_add_region - object @name (a path: its last component is
 * kept) occupies [@lo, @hi), loaded with bias @bias: an address ip there
 * is ip - @bias in the file, the address nm(1) prints and addr2line -e
 * FILE takes.  Any time before hwbp_symtab_finish().
 * Errors: -EINVAL (NULL, @lo >= @hi, empty @name), -EEXIST (it overlaps
 * a region added before, which keeps the range), -EBUSY (finished),
 * -ENOMEM.  Not thread-safe (loading is one thread's).
 */
int hwbpi_symtab_add_region(struct hwbp_symtab *t, uint64_t lo, uint64_t hi, uint64_t bias,
			    const char *name);

/*
 * hwbpi_symtab_region_file - remember the file the region that starts at
 * @lo was loaded from (for hwbpi_symtab_read_file()).  Errors: -ENOENT
 * (no region starts there), -ENOMEM.  Loading only (one thread).
 * hwbpi_symtab_region_of - the file (borrowed) and bias of the region
 * holding @addr.  Errors: -ENOENT (none, or its file not known).
 */
int hwbpi_symtab_region_file(struct hwbp_symtab *t, uint64_t lo, const char *path);
int hwbpi_symtab_region_of(const struct hwbp_symtab *t, uint64_t addr, const char **path,
			   uint64_t *bias);

/*
 * hwbpi_symtab_read_file - the @len bytes a loaded object holds at run
 * address @addr, read from its file (the PT_LOAD segment whose file
 * bytes hold them), for code that is no longer in a process: one that
 * ended before its perf samples were read.  Errors: -ENOENT (no region
 * with a known file holds @addr), -EFAULT (no segment's file bytes hold
 * all @len), -errno of open/pread, -EOPNOTSUPP (no libelf).  Any thread
 * once the table is finished; opens the file each call.
 */
int hwbpi_symtab_read_file(const struct hwbp_symtab *t, uint64_t addr, void *buf, size_t len);

/*
 * hwbpi_symtab_describe - where @ip is, for an IP that no function
 * contains: "NAME+0xOFF" (OFF = @ip - bias) in the region holding it,
 * else "0xADDR"; into @buf (@n bytes, cut to fit; HWBPI_SYMTAB_DESCRIBE_MAX
 * holds every result).  Returns @buf, or a constant "" when @buf is NULL
 * or @n is 0.  No allocation, no lock; any thread once the regions stopped
 * changing (finished).
 */
#define HWBPI_SYMTAB_DESCRIBE_MAX 288
const char *hwbpi_symtab_describe(const struct hwbp_symtab *t, uint64_t ip, char *buf, size_t n);

#endif /* HWBP_TRACER_SYMTAB_H */
