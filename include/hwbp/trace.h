/* SPDX-License-Identifier: MIT */
/*
 * hwbp ksym tracer: watch symbols by name, record hits.
 *
 * Four layers (DESIGN §2), each calling only the one below it:
 *   hooking          hwbp core + glue / simulator: where a hit comes from
 *   event definition struct hwbp_trace_event: one fixed-size hit record
 *   event management filters (hwbp_trace_filter_*), histograms (hwbp_hist_*)
 *   transport        per-CPU rings (hwbp_ring_*), outputs (text, CTF)
 * Symbols (hwbp_symtab_*) serve the filter (name -> address, size) and the
 * outputs (IP -> function).
 *
 * Everything on the hit path (hwbp_hist_add, hwbp_ring_push) allocates
 * nothing, takes no lock and makes no system call.
 */
#ifndef HWBP_TRACE_H
#define HWBP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hwbp/hwbp.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Symbols.                                                            */
/* ------------------------------------------------------------------ */
struct hwbp_sym {
	uint64_t addr;
	uint64_t size;       /* 0 when the source does not say */
	const char *name;
	char type;           /* nm-style: 'T'/'t' function, 'D'/'d'/'B'/'b'/'R'/'r' data ... */
};

struct hwbp_symtab;

/* hwbp_symtab_new - an empty table.  Errors (NULL, *err): -ENOMEM. */
struct hwbp_symtab *hwbp_symtab_new(int *err);
void hwbp_symtab_free(struct hwbp_symtab *t);

/*
 * hwbp_symtab_add - add one symbol (the name is copied).
 * Errors: -EINVAL (NULL or empty name), -EBUSY (table already finished),
 *         -ENOMEM.
 */
int hwbp_symtab_add(struct hwbp_symtab *t, const char *name, uint64_t addr,
		    uint64_t size, char type);

/*
 * hwbp_symtab_load_elf - add the symbols of an ELF file (.symtab, else
 * .dynsym) through libelf, each address plus @bias (a PIE's load bias).
 * Returns the number added.
 * Errors: -ENOENT (no such file) and other open() errors as they are
 *         (-EACCES...), -EINVAL (not ELF / no symbol table), -EBUSY,
 *         -ENOMEM, -EIO, -EOPNOTSUPP (built without libelf).
 */
int hwbp_symtab_load_elf(struct hwbp_symtab *t, const char *path, uint64_t bias);

/*
 * hwbp_symtab_load_map - add the symbols of a System.map or /proc/kallsyms
 * text ("ADDR TYPE NAME [module]" per line; sizes are inferred at finish
 * from the next symbol's address).  Returns the number added.
 * Errors: -ENOENT and other open() errors as they are, -EINVAL (a
 *         malformed line: *line says which, when non-NULL), -EBUSY,
 *         -ENOMEM, -EIO.
 */
int hwbp_symtab_load_map(struct hwbp_symtab *t, const char *path, unsigned *line);

/* Same, from memory (for tests and fuzzing). */
int hwbp_symtab_load_map_text(struct hwbp_symtab *t, const char *text, size_t len,
			      unsigned *line);

/*
 * hwbp_symtab_finish - sort, infer missing sizes, build the lookup tables.
 * After it the table is read-only and lookups are allocation-free.
 * Errors: -EINVAL (NULL), -ENOMEM.
 */
int hwbp_symtab_finish(struct hwbp_symtab *t);

/* By name (the first one added wins); NULL if none or not finished. */
const struct hwbp_sym *hwbp_symtab_find(const struct hwbp_symtab *t, const char *name);

/* The function (type t/T/w/W/i) containing @ip, or NULL.  O(log n), no
 * allocation.  Where symbols share an address the first added wins. */
const struct hwbp_sym *hwbp_symtab_func(const struct hwbp_symtab *t, uint64_t ip);

/* The symbol of any type containing @addr (for symbol+offset), or NULL. */
const struct hwbp_sym *hwbp_symtab_at(const struct hwbp_symtab *t, uint64_t addr);

size_t hwbp_symtab_count(const struct hwbp_symtab *t);

/* ------------------------------------------------------------------ */
/* Filter entries: SYM[+OFF][/LEN]:rwx (ftrace ksym_trace_filter).      */
/* ------------------------------------------------------------------ */
#define HWBP_TRACE_SYM_LEN 128

struct hwbp_trace_entry {
	char sym[HWBP_TRACE_SYM_LEN]; /* symbol name; "" for an absolute address; "*" for all */
	uint64_t addr;                /* absolute address (sym == "") */
	uint64_t off;                 /* +OFF */
	uint64_t len;                 /* /LEN; 0 = the symbol's own size */
	unsigned type;                /* HWBP_R | HWBP_W | HWBP_X bits; 0 = remove ("---") */
};

/*
 * hwbp_trace_filter_parse - parse one entry ("pid_max:rw-", "buf+8/16:-w-",
 * "0xffffffff81000000/8:rw-", "pid_max:---", "*:---").
 * Errors: -EINVAL with *col = the 1-based column of the offending character
 *         (and *msg a static description), -ERANGE (a number overflows).
 */
int hwbp_trace_filter_parse(const char *s, struct hwbp_trace_entry *out, unsigned *col,
			    const char **msg);

/* ------------------------------------------------------------------ */
/* Events.                                                              */
/* ------------------------------------------------------------------ */

/* One hit: 32 bytes, fixed size. */
struct hwbp_trace_event {
	uint64_t ts;         /* timestamp (ns; the simulator's clock for --backend sim) */
	uint64_t ip;         /* instruction that made the access */
	uint64_t addr;       /* data address when known, else the watched address */
	uint16_t cpu;
	uint16_t bp;         /* index of the watched entry (breakpoint) */
	uint8_t kind;        /* HWBP_R, HWBP_W, HWBP_X, or 0: unknown */
	uint8_t kind_how;    /* HWBP_KIND_* : where the kind came from */
	uint16_t size;       /* access size when known, else 0 */
};

/* How an access kind is known (reported with it: never a guess as fact). */
#define HWBP_KIND_UNKNOWN 0  /* not known (e.g. x86 RW watch, value unchanged) */
#define HWBP_KIND_HW 1       /* reported by the hardware (arm64 WnR, ppc store bit) */
#define HWBP_KIND_SIM 2      /* the simulator knows it exactly */
#define HWBP_KIND_VALUE 3    /* x86 RW watch: the watched bytes changed, so a write */
#define HWBP_KIND_TYPE 4     /* the watch type allows only one kind (W-only, X) */
#define HWBP_KIND_INSN 5     /* the faulting instruction is a known load/store/RMW */

/* ------------------------------------------------------------------ */
/* Histograms: per breakpoint, n preallocated (function, kind) entries. */
/* ------------------------------------------------------------------ */
struct hwbp_hist_entry {
	uint64_t func;       /* function start address (0: unknown function) */
	uint8_t kind;
	uint64_t count;
};

struct hwbp_hist {
	unsigned nbp, n;
	struct hwbp_hist_entry *e;   /* nbp * n entries */
	unsigned *used;              /* per breakpoint: entries in use */
	uint64_t *overrun;           /* per breakpoint: hits that found no entry */
	uint64_t *hits;              /* per breakpoint: all hits */
};

/*
 * hwbp_hist_init - allocate (at setup) @nbp histograms of @n entries.
 * Errors: -EINVAL (nbp or n 0, or absurdly large), -ENOMEM.
 */
int hwbp_hist_init(struct hwbp_hist *h, unsigned nbp, unsigned n);
void hwbp_hist_fini(struct hwbp_hist *h);

/*
 * hwbp_hist_add - count one hit of breakpoint @bp in function @func with
 * @kind.  Allocation-free; a hit whose (func, kind) has no entry when all
 * n are used increments that breakpoint's overrun counter.  Returns true
 * when the hit was counted in an entry; false for an overrun hit and for a
 * bad @bp or @kind (ignored).  One writer at a time (the backend's hit path).
 */
bool hwbp_hist_add(struct hwbp_hist *h, unsigned bp, uint64_t func, unsigned kind);

/*
 * hwbp_hist_print - the histogram as a table ("Access_Type Symbol Function
 * Counter", most hits first, ties by breakpoint, then function name), then
 * per breakpoint "SYM: N functions, overrun M".  @names[bp] names each
 * breakpoint; @syms names functions (may be NULL: addresses are printed).
 * Not on the hit path: it allocates to sort.
 * Errors: -EINVAL, -ENOMEM, -EIO (the stream failed).
 */
int hwbp_hist_print(const struct hwbp_hist *h, const char *const *names,
		    const struct hwbp_symtab *syms, FILE *out);

/* ------------------------------------------------------------------ */
/* Per-CPU rings: one producer (the CPU), one consumer, lock-free.      */
/* ------------------------------------------------------------------ */
struct hwbp_ring;

/*
 * hwbp_ring_new - a ring of @bytes (rounded down to a power-of-two number
 * of events, at least 2), allocated once at setup.  With @overwrite a full
 * ring drops its oldest event for the new one, else the new one.
 * Errors (NULL, *err): -EINVAL (too small), -ENOMEM.
 */
struct hwbp_ring *hwbp_ring_new(size_t bytes, bool overwrite, int *err);
void hwbp_ring_free(struct hwbp_ring *r);

/* Events the ring holds at most. */
size_t hwbp_ring_capacity(const struct hwbp_ring *r);

/*
 * Producer (one thread): record one event.  Returns false when an event
 * was lost (the new one with discard, the oldest with overwrite).
 * Allocation-free, lock-free, no system call.
 */
bool hwbp_ring_push(struct hwbp_ring *r, const struct hwbp_trace_event *e);

/* Consumer (one thread, may run concurrently with the producer): take up
 * to @max events, oldest first; returns how many. */
size_t hwbp_ring_pop(struct hwbp_ring *r, struct hwbp_trace_event *out, size_t max);

/*
 * Accounting: events pushed, and events lost (never recorded, or
 * overwritten before the consumer took them).  Once the producer stopped
 * and the consumer drained the ring: produced = popped + lost, exactly.
 */
void hwbp_ring_stats(const struct hwbp_ring *r, uint64_t *produced, uint64_t *lost);

#ifdef __cplusplus
}
#endif

#endif /* HWBP_TRACE_H */
