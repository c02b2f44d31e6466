/* SPDX-License-Identifier: MIT */
/*
 * The symbol table's insides (tracer/symbols*.c): the loading records,
 * the finished table and its address indices (described in symbols.c),
 * and the helpers the loaders (symbols_load.c) and the index builder
 * (symbols_index.c) share with the table (symbols.c).
 */
#ifndef HWBP_TRACER_SYMTAB_INT_H
#define HWBP_TRACER_SYMTAB_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwbp/trace.h>

/* Indices are 32-bit (half the memory of size_t in the hot arrays) and the
 * load functions return counts as int. */
#define MAX_SYMS ((size_t)INT_MAX - 1)

/* One symbol while loading. */
struct ent {
	uint64_t addr;
	uint64_t size;
	size_t name;          /* offset into the pool */
	char type;
	bool infer;           /* from a map: size 0 means "up to the next symbol" */
	bool ver;             /* a version follows the name's NUL in the pool */
};

/* The file one hwbp_symtab_load_elf() call read (a library, the
 * executable): its symbols are the insertion indices [first, end), so
 * that "LIB:sym" and "sym@LIB" can choose among same-named symbols. */
struct obj {
	size_t path;          /* pool offsets: the path as given */
	size_t soname;        /* DT_SONAME, or NO_SONAME */
	uint32_t first, end;
};
#define NO_SONAME SIZE_MAX

/* Per finished symbol (t->sx): its insertion index, and SX_VER when it
 * has a version (MAX_SYMS leaves the top bit free). */
#define SX_VER UINT32_C(0x80000000)

/* Per node of an index (Eytzinger order, like the keys). */
struct ivl {
	uint64_t last;        /* inclusive: no overflow at the top of the space */
	uint32_t up;          /* node of the nearest earlier interval reaching our start, 0: none */
	uint32_t sym;         /* position in t->sym */
};

struct ivl_index {
	uint32_t n;           /* intervals: nodes 1..n */
	unsigned depth;       /* levels of the complete tree holding them */
	uint32_t top;         /* node of the highest start (0: empty) */
	uint64_t *key;        /* [1..2^depth): start addresses in Eytzinger order,
	                       * then UINT64_MAX */
	struct ivl *iv;       /* [1..n] */
	/*
	 * The radix front: starts in address order (skey, by rank), each
	 * rank's node (rnode), and per bucket of 2^shift bytes from base the
	 * first rank starting in it (bucket[0..nb]).  A lookup reads one
	 * bucket and compares a start or two instead of descending ~18
	 * dependent levels; the tree stays for the lookups of crowded
	 * buckets.
	 */
	uint64_t base;
	unsigned shift;
	uint32_t nb;
	uint32_t *bucket;
	uint64_t *skey;
	uint32_t *rnode;
};

/* A loaded object's address range (hwbpi_symtab_add_region): [lo, hi)
 * holds its code and data, ip - bias is the address in the file. */
struct region {
	uint64_t lo, hi, bias;
	char *name;           /* the path's last component, malloc'd */
	char *path;           /* the file it was loaded from, malloc'd (NULL:
			       * not known: hwbpi_symtab_region_file()) */
};

/* The index of demangled names (symbols_demangled.c), built on first
 * need; per symbol position i: */
#define HWBPI_DM_NO_PARAMS UINT32_MAX
struct hwbpi_dm_chunk;
struct hwbpi_dm_index {
	const char **dn;          /* demangled, or the name itself */
	uint32_t *rt;             /* where the name starts past a return type */
	uint32_t *pe;             /* its parameter list's '(', HWBPI_DM_NO_PARAMS */
	uint32_t *fhead, *fnext;  /* chains (position + 1, 0 ends) on dn + rt, */
	uint32_t *bhead, *bnext;  /* on dn[rt, pe), hashed by hwbpi_dm_hash() */
	size_t mask;
	struct hwbpi_dm_chunk *chunks;
};

struct hwbp_symtab {
	/* loading */
	struct ent *ent;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	struct obj *obj;              /* in insertion order */
	size_t nobj, obj_cap;
	/* finished */
	bool finished;
	struct hwbp_sym *sym;         /* n, sorted by address, ties in insertion order */
	uint32_t *sx;                 /* n: insertion index | SX_VER */
	bool *inferred;               /* n: the source gave no size (a map's line) */
	uint32_t *hslot;              /* name hash: sym position + 1, 0 = empty */
	size_t hmask;
	struct ivl_index all, func;
	/* loaded objects' ranges, sorted by lo, not overlapping (any time) */
	struct region *reg;
	size_t nreg, reg_cap;
	/* finished: built by the first lookup that needs it and published
	 * with a compare-and-swap, so that lookups stay lock-free (read with
	 * __atomic_load_n; NULL: not built) */
	struct hwbpi_dm_index *dm;
	/* where ELF loads record their files and find debug files
	 * (tracer/symbols/dwarf.h), or NULL: the default search */
	struct hwbpi_dwarf *dwarf;
};

/* Where a load started: a failed load rolls the table back to it. */
struct mark {
	size_t n, pool_len, nobj;
};

/* Add one symbol of @len name bytes (symbols.c).  @infer: a map's
 * symbol, whose size 0 means "up to the next one".  The caller checked
 * the table is not finished.  Errors: -ENOMEM (also past MAX_SYMS). */
int hwbpi_symtab_add_n(struct hwbp_symtab *t, const char *name, size_t len, uint64_t addr,
		       uint64_t size, char type, bool infer);
/* The same with a version (@ver, @vlen bytes; NULL: none), stored after
 * the name's NUL (an ELF symbol "optind@GLIBC_2.2.5" is "optind" with
 * version "GLIBC_2.2.5", so that plain "optind" finds it). */
int hwbpi_symtab_add_v(struct hwbp_symtab *t, const char *name, size_t len, const char *ver,
		       size_t vlen, uint64_t addr, uint64_t size, char type, bool infer);
/* Record that the symbols added since @m came from the file @path (its
 * DT_SONAME @soname, NULL: none).  Errors: -ENOMEM. */
int hwbpi_symtab_add_obj(struct hwbp_symtab *t, struct mark m, const char *path,
			 const char *soname);
struct mark hwbpi_symtab_mark_of(const struct hwbp_symtab *t);
/* hwbp_symtab_load_elf() of the file at @path, remembered as @name (for
 * "LIB:sym"): an unlinked file read through /proc under its old path.
 * Errors: as hwbp_symtab_load_elf(). */
int hwbpi_symtab_load_elf_as(struct hwbp_symtab *t, const char *path, const char *name,
			     uint64_t bias);
void hwbpi_symtab_rollback(struct hwbp_symtab *t, struct mark m);
/* Only the region of the ELF file at @path (tracer/symbols/symtab.h), named
 * @name, for a file without symbols: its PT_LOAD segments' span plus
 * @bias.  0 (also when it has no PT_LOAD or overlaps a region added
 * before), -EINVAL (not ELF), open()'s errors, -EBUSY, -ENOMEM, -EIO,
 * -EOPNOTSUPP (built without libelf). */
int hwbpi_symtab_load_region(struct hwbp_symtab *t, const char *path, const char *name,
			     uint64_t bias);
/* One line of a System.map or /proc/kallsyms ("ADDR TYPE NAME [MOD]"):
 * the name and module point into the text (not NUL-terminated); mod is
 * NULL for a line without "[MOD]". */
struct hwbpi_map_line {
	uint64_t addr;
	const char *name, *mod;
	size_t nlen, mlen;
	char type;
};
/* The next symbol line of map text from *@pos (before @end) into @l,
 * blank lines skipped; *@pos moves past it and *@line counts the lines
 * read (symbols_load.c: the one parser of map text).  Returns 1 for a
 * line, 0 at the end of the text, -EINVAL for a malformed line (*@line is
 * its number). */
int hwbpi_map_next(const char **pos, const char *end, struct hwbpi_map_line *l, unsigned *line);
/* The whole file at @path (read to EOF: /proc files report size 0) into
 * a malloc'd *@buf of *@len bytes.  Errors: open's -errno (-ENOENT,
 * -EACCES ...), -EIO, -ENOMEM. */
int hwbpi_read_file(const char *path, char **buf, size_t *len);
/* Free an index's arrays (symbols.c). */
void hwbpi_symtab_ivl_free(struct ivl_index *x);
/* FNV-1a of a name, for the name hash (symbols_index.c). */
uint64_t hwbpi_symtab_hash_name(const char *s);
/* The symbol named exactly @name (the name hash; first added wins), or
 * NULL (symbols_names.c). */
const struct hwbp_sym *hwbpi_symtab_hash_find(const struct hwbp_symtab *t, const char *name);
/* Free the index of demangled names and the regions (symbols_demangled.c,
 * symbols_regions.c), for hwbp_symtab_free(). */
void hwbpi_symtab_dm_free(struct hwbpi_dm_index *dm);
/* The table's index of demangled names, built now if no lookup built it
 * before (opens nothing; allocates); NULL with *@err = -ENOMEM.  Safe to
 * call from concurrent lookups of a finished table. */
const struct hwbpi_dm_index *hwbpi_symtab_dm_get(const struct hwbp_symtab *t, int *err);
/* The index's hash of the @n bytes at @s (its chains' key). */
uint64_t hwbpi_dm_hash(const char *s, size_t n);
/* Whether @name can be a mangled name at all ("_Z", "_R"). */
bool hwbpi_dm_may_be_mangled(const char *name);
/* @name demangled into *@buf (*@cap bytes, grown as needed): 1 when it
 * was a mangled name, 0 when it stays as it is, -ENOMEM. */
int hwbpi_dm_demangle_into(const char *name, char **buf, size_t *cap);
void hwbpi_symtab_regions_free(struct hwbp_symtab *t);
/* Every region moved by @d (with its bias: the file's own addresses stay
 * what they are), for a kernel image whose symbols KASLR moves after
 * they were loaded at their link addresses (ksyms.c). */
void hwbpi_symtab_move_regions(struct hwbp_symtab *t, uint64_t d);

#endif /* HWBP_TRACER_SYMTAB_INT_H */
