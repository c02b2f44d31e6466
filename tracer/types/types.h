/* SPDX-License-Identifier: MIT */
/*
 * Types, the interface of types/ (internal): what users name, resolved to
 * the bytes to watch.  An entry's name may be a C expression over a
 * variable ("init_net.ipv4.sysctl_ip_default_ttl", "cfg->limits[2].hi",
 * "(struct net)init_net.ipv4.x", "(struct task_struct *)0xADDR->comm");
 * this folder parses it (expr.c), finds the types it walks in one of two
 * sources behind one set of operations (struct hwbpi_tsrc_ops): DWARF
 * through libdw (tdwarf.c: programs, their libraries and debug files, a
 * vmlinux with debug info) and BTF through libbpf (tbtf.c: the running
 * kernel's /sys/kernel/btf/), and walks it (resolve.c), reading each
 * pointer once through the target's reader.
 *
 * Depends on util/ and symbols/ (the DWARF files a symbol table recorded);
 * used by events/ (watch.c).  Nothing here runs on a hit path: everything
 * happens once, when the watches are resolved.  One thread at a time per
 * struct hwbpi_types.
 */
#ifndef HWBP_TRACER_TYPES_H
#define HWBP_TRACER_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwbp/trace.h>

#include "util/util.h"
#include "symbols/symbols.h"

/* Steps an expression may have (".a", "->b", "[3]"): deeper is not a
 * name a person types. */
#define HWBPI_EXPR_MAX_STEPS 16
#define HWBPI_TYPE_NAME_LEN 128

/* ---------------------------------------------------------- expressions */

/* One step after the base. */
struct hwbpi_expr_step {
	char op;                     /* '.' member, '>' "->" member, '[' element */
	char name[HWBPI_TYPE_NAME_LEN];   /* the member ('.', '>') */
	uint64_t index;              /* the element ('[') */
	unsigned col;                /* 1-based column of the step's operator */
};

/* A parsed expression: [ (CAST) ] BASE STEP... */
struct hwbpi_expr {
	const char *text;            /* the parsed string (borrowed): messages */
	char cast[HWBPI_TYPE_NAME_LEN];   /* "struct net", "task_struct" ("" none) */
	unsigned cast_ptr;           /* '*'s after the cast's type name */
	unsigned cast_col;
	char base[HWBP_TRACE_SYM_LEN];    /* "init_net", "app::Config::instance",
					   * "main::counter"; "" when the base is a number */
	uint64_t base_addr;          /* the number ("(T *)0xADDR") */
	unsigned base_col;
	struct hwbpi_expr_step step[HWBPI_EXPR_MAX_STEPS];
	unsigned nstep;
};

/*
 * hwbpi_expr_parse - parse entry name @s (an hwbp_trace_entry's sym) as an
 * expression.  Returns 1 when it is one (a cast, or at least one step),
 * 0 when it is a plain name (no step: the caller's symbol lookup says what
 * it is), or -EINVAL with *@col (1-based) and *@msg saying what is wrong
 * ("expected a member name after '.'", "an index is a number" ...).
 * Grammar: '(' ['struct'|'union'|'enum'] NAME '*'* ')' then BASE, or BASE;
 * a NAME in several words is C's integer type ("unsigned long"), kept as
 * GCC's DWARF and pahole's BTF name it ("long unsigned int");
 * BASE is a name (identifier characters and "::") or, after a cast, a
 * number; each STEP is '.' NAME, '->' NAME or '[' NUMBER ']'.  A cast
 * applies to BASE alone ("(struct task_struct *)0xADDR->comm" reads the
 * task's comm).  No allocation.
 */
int hwbpi_expr_parse(const char *s, struct hwbpi_expr *e, unsigned *col, const char **msg);

/* ---------------------------------------------------------- type sources */

enum hwbpi_tkind {
	HWBPI_TK_OTHER,              /* void, a function, what no step walks */
	HWBPI_TK_SCALAR,             /* an integer, enum, float, bool */
	HWBPI_TK_PTR,
	HWBPI_TK_ARRAY,
	HWBPI_TK_STRUCT,             /* a struct or a class */
	HWBPI_TK_UNION,
};

/* A type of one source: its operations' @id (a DIE offset, a BTF id). */
struct hwbpi_tsrc;
struct hwbpi_type {
	struct hwbpi_tsrc *src;
	uint64_t id;
};

/* A type with typedefs and qualifiers looked through. */
struct hwbpi_tinfo {
	uint64_t id;                 /* the type itself: typedefs and qualifiers
				      * looked through, a declaration's complete
				      * definition when the source has one */
	enum hwbpi_tkind kind;
	uint64_t size;               /* bytes; 0: incomplete or unknown */
	uint64_t nelem;              /* array: elements; UINT64_MAX: no bound ("x[]") */
	struct hwbpi_type target;    /* pointer: what it points to; array: its element */
	char name[HWBPI_TYPE_NAME_LEN];   /* as C spells it: "struct net", "u8", "int *" */
	bool atomic;                 /* every access to it is atomic: C11's _Atomic
				      * among the qualifiers looked through, or one
				      * of C++'s std::atomic classes (DWARF only: BTF
				      * keeps no _Atomic) */
};

/* A member found by name (inside anonymous members too: their offsets
 * added). */
struct hwbpi_member {
	uint64_t bit_off;            /* from the start of the outer type */
	unsigned bit_size;           /* a bitfield's width, 0: not a bitfield */
	struct hwbpi_type type;
};

/* A function's parameter (or its return value) found by name. */
struct hwbpi_tparam {
	unsigned index;              /* 0-based among the parameters */
	struct hwbpi_type type;
	char names[200];             /* on -ENOENT for an unknown parameter: the
				      * function's parameters, "a, b, c" */
	char tname[HWBPI_TYPE_NAME_LEN];  /* the caller's: its type as C spells it */
};

/* A variable's type and, where the source knows it, its address. */
struct hwbpi_tvar {
	struct hwbpi_type type;
	uint64_t addr;               /* its address as the source knows it (plus
				      * the source's bias), 0: not said */
	bool percpu;                 /* a per-CPU variable (addr: its offset) */
};

struct hwbpi_tsrc_ops {
	const char *name;            /* "DWARF", "BTF": messages */
	/* Errors: -ENOENT (no such id), -EIO (malformed). */
	int (*info)(struct hwbpi_tsrc *src, uint64_t id, struct hwbpi_tinfo *out);
	/* Member @name of struct/union @id.  -ENOENT: none of that name. */
	int (*member)(struct hwbpi_tsrc *src, uint64_t id, const char *name,
		      struct hwbpi_member *out);
	/* The @i-th named member of @id (anonymous members' own flattened),
	 * for the suggestions of an unknown one; false past the last. */
	bool (*member_name)(struct hwbpi_tsrc *src, uint64_t id, unsigned i, const char **name);
	/* The type C spells @name ("struct net", "net", "u8"): -ENOENT. */
	int (*find_type)(struct hwbpi_tsrc *src, const char *name, uint64_t *id);
	/* Variable @name: at @addr when nonzero (a static of that name
	 * elsewhere is another variable), else any of that name with a type
	 * (an extern declaration will do: a global's name is unique).
	 * "FUNC::VAR" names a static local of function FUNC.  -ENOENT. */
	int (*find_var)(struct hwbpi_tsrc *src, const char *name, uint64_t addr,
			struct hwbpi_tvar *out);
	/* Function @func's parameter @param (NULL: its return type; a
	 * function returning void has none: -ENODATA).  -ESRCH: no function
	 * of that name with a prototype; -ENOENT: no such parameter (out->names
	 * lists them). */
	int (*func_param)(struct hwbpi_tsrc *src, const char *func, const char *param,
			  struct hwbpi_tparam *out);
	void (*free)(struct hwbpi_tsrc *src);
};

struct hwbpi_tsrc {
	const struct hwbpi_tsrc_ops *ops;
	unsigned ptr_size;           /* bytes of a pointer in this source's target */
};

/*
 * hwbpi_tsrc_dwarf - a source over one DWARF file: the ELF at @path (its
 * own DWARF, or a separate debug file) whose addresses run at file
 * address + @bias (a PIE's load bias, the kernel's KASLR offset).
 * Errors (NULL, *@err): -EOPNOTSUPP (no libdw in this build), -ENOENT
 * and open's errors, -ENODATA (no DWARF in it), -ENOMEM.
 */
struct hwbpi_tsrc *hwbpi_tsrc_dwarf(const char *path, int64_t bias, int *err);

/*
 * hwbpi_tsrc_btf - a source over the BTF at @path (NULL:
 * /sys/kernel/btf/vmlinux), read with libbpf.  Errors (NULL, *@err):
 * -EOPNOTSUPP (no libbpf in this build), -ENOENT and libbpf's errors,
 * -ENOMEM.
 */
struct hwbpi_tsrc *hwbpi_tsrc_btf(const char *path, int *err);

/*
 * hwbpi_tsrc_btf_split - a source over a module's BTF at @path
 * (/sys/kernel/btf/<module>), split on the kernel's, source @base (from
 * hwbpi_tsrc_btf(), freed after this one).  Errors (NULL, *@err):
 * -EOPNOTSUPP (no libbpf), -EINVAL (@base no BTF source), libbpf's,
 * -ENOMEM.
 */
struct hwbpi_tsrc *hwbpi_tsrc_btf_split(const char *path, struct hwbpi_tsrc *base, int *err);

static inline void hwbpi_tsrc_free(struct hwbpi_tsrc *s)
{
	if (s)
		s->ops->free(s);
}

/* ---------------------------------------------------------- a session's sources */

/* Where a session's types come from (types.c). */
struct hwbpi_typer_opts {
	struct hwbpi_dwarf *dwarf;   /* the traced files (a process's), or NULL */
	bool kernel;                 /* the running kernel: its BTF */
	const char *btf;             /* NULL: /sys/kernel/btf/vmlinux */
	const char *btf_dir;         /* the modules' BTF, every file but
				      * "vmlinux" (NULL: /sys/kernel/btf when
				      * btf is NULL, else none) */
	const char *vmlinux;         /* a vmlinux with DWARF (--vmlinux), or NULL */
	int64_t kaslr;               /* its addresses run at file address + kaslr */
};
struct hwbpi_typer;

/* hwbpi_typer_new - the sources of @o, opened when first asked for.
 * Errors (NULL): -ENOMEM only. */
struct hwbpi_typer *hwbpi_typer_new(const struct hwbpi_typer_opts *o);
void hwbpi_typer_free(struct hwbpi_typer *ty);

/*
 * hwbpi_typer_next - the next source to ask, best first, for an
 * expression whose base is at @addr (0: found by name, as a static local,
 * or @cast: a cast's type, looked up by name: BTF first, as it indexes
 * names): for a process the DWARF of the file whose image holds @addr
 * (every file's, main first, for 0); for the kernel --vmlinux's DWARF,
 * then BTF, and for a cast then each loaded module's BTF (by name).  *@pos (0 at first) is where the walk is; each source is
 * opened when first returned, so a walk that stops at the first answer
 * reads no more.  NULL past the last; when a source could not be opened,
 * @why (@n bytes, "" at first) says which and why, for the caller's "no
 * type" error.
 */
struct hwbpi_tsrc *hwbpi_typer_next(struct hwbpi_typer *ty, uint64_t addr, bool cast,
				   unsigned *pos, char *why, size_t n);

/* ---------------------------------------------------------- resolution */

/* Where an expression's reads go: the traced process's memory or the
 * kernel's.  read returns 0 or a negative errno (-EFAULT unreadable). */
struct hwbpi_tmem {
	int (*read)(void *arg, uint64_t addr, void *buf, size_t len);
	void *arg;
	const char *none;            /* read NULL: why nothing can be read ("a
				      * recording", "the simulator") */
	const char *hint;            /* added to a NULL pointer's error, or NULL */
};

/* The base of an expression, found by the caller (a symbol, a thread-local
 * variable) or NULL-typed for the source to find by name. */
struct hwbpi_tbase {
	uint64_t addr;               /* the symbol's address; TLS: the offset in
				      * the block; per-CPU: the offset */
	bool known;                  /* addr is known (else the source's, as a
				      * static local's) */
	bool tls;                    /* a thread-local variable (no pointer step) */
	uint64_t tls_memsz, tls_align; /* TLS: the executable's PT_TLS, which
				      * places each thread's block */
	bool percpu;                 /* a per-CPU variable (no pointer step) */
	bool global;                 /* its name is unique (an extern declaration
				      * gives its type) */
	/* A value of known type instead of a variable (an object's pointer,
	 * tracer/objects/objects.h): the base is a pointer of type @type whose
	 * value is addr (no read; its first '->' adds the member's offset). */
	bool typed;
	struct hwbpi_type type;
};

/* One step of a resolution, for --dry-run: the expression's first len
 * bytes name the object at addr; a pointer read on the way to it held
 * value. */
struct hwbpi_tstep {
	uint16_t len;
	bool read;
	uint64_t value;
	uint64_t addr;
};

/* The bytes an expression names. */
struct hwbpi_tres {
	struct hwbpi_tstep step[HWBPI_EXPR_MAX_STEPS + 1];   /* the base, then each step */
	unsigned nsteps;
	uint64_t addr;               /* as the base's (TLS, per-CPU: offsets) */
	uint64_t size;               /* the type's size, or the bitfield's bytes */
	unsigned bit_shift, bit_width;   /* a bitfield: its bits in those bytes
					  * (little-endian), width 0: none */
	char type[HWBPI_TYPE_NAME_LEN];  /* the last step's type */
	char how[512];               /* the pointer reads and the result, for the
				      * note: "cfg = 0x5581... -> watching ..." */
	unsigned nread;              /* pointers read */
	bool percpu;                 /* the base is a per-CPU variable: addr is
				      * its symbol's value (the base was known) or
				      * its offset in the per-CPU section (BTF) */
};

/*
 * hwbpi_types_resolve - walk expression @e from @base in source @src:
 * the base's type is @e's cast or @src's for the variable, then each step.
 * Each pointer is read once through @mem.  On failure @err holds one line
 * naming the column and the errno, and nothing is read after the failing
 * step.
 * Errors: -ENOENT (a variable with no type there, an unknown member: the
 *         closest members are named, an unknown cast type), -EINVAL ('->'
 *         on a non-pointer, '.' on a pointer, '[' on what is no array or
 *         pointer, a step into a scalar), -ERANGE (an index past the
 *         array's bound), -EFAULT (a NULL or unreadable pointer),
 *         -EOPNOTSUPP (a pointer step with nothing to read, or through a
 *         thread-local or per-CPU base), -EIO.
 */
int hwbpi_types_resolve(struct hwbpi_tsrc *src, const struct hwbpi_expr *e,
			const struct hwbpi_tbase *base, const struct hwbpi_tmem *mem,
			struct hwbpi_tres *r, char *err, size_t errlen);

/* The names closest to @name among @src's members of @id, as ", did you
 * mean a, b?" into @out (empty when none is close).  No errors. */
void hwbpi_types_suggest(struct hwbpi_tsrc *src, uint64_t id, const char *name, char *out,
			 size_t n);

#endif /* HWBP_TRACER_TYPES_H */
