/* SPDX-License-Identifier: MIT */
/*
 * Objects, the interface of objects/ (internal): watches of the objects a
 * function is given.  An entry "make_node():return->value:-w-" or
 * "vfs_write(file)->f_pos:-w-" names an arming function, which of its
 * parameters (or its return value) points to the object, and a field
 * chain in it; a release point ("free_node(n)", or "scope": the arming
 * call's return) ends each object's watch.  This folder parses those
 * (spec.c) and keeps the objects seen (table.c): a preallocated table of
 * N entries per watch, never allocating once made, with an overflow count
 * when every entry holds a live object, each entry's age, its hits by
 * function and kind, and how long it held a debug register (the slots
 * rotate among the live objects when there are more of them than slots).
 *
 * The mechanism that sees the functions run is the backend's (ptrace:
 * traps at the functions' entries and returns); it calls the table's
 * operations.  Depends on util/ and types/ (the field chain's
 * expression); used by events/ (a watch's spec), output/ (the report)
 * and the backends.  One thread at a time per table.
 */
#ifndef HWBP_TRACER_OBJECTS_H
#define HWBP_TRACER_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hwbp/trace.h>

#include "util/util.h"
#include "types/types.h"

#define HWBPI_OBJ_DEFAULT 64      /* --objects: entries per watch */
#define HWBPI_OBJ_MAX 65536
#define HWBPI_OBJ_ROTATE_MS 5     /* --rotate: ms between two rotations */
#define HWBPI_OBJ_FUNCS 6         /* (function, kind) counters per object */

/* ---------------------------------------------------------- specs (spec.c) */

/* A function and the parameter that holds the object (or its return). */
struct hwbpi_objfn {
	char func[HWBP_TRACE_SYM_LEN];
	char param[64];              /* "" with ret */
	bool ret;                    /* the return value ("FUNC():return") */
	unsigned col;                /* 1-based column of the parameter (messages) */
	/* resolved (events/watch_obj.c) */
	uint64_t addr;               /* the function's entry */
	unsigned index;              /* the parameter's, 0-based */
};

/* What one watch of objects is: armed at @arm, released at @rel. */
struct hwbpi_objspec {
	struct hwbpi_objfn arm;
	bool scope;                  /* released when the arming call returns */
	struct hwbpi_objfn rel;      /* else: released when rel.func is called */
	uint64_t off;                /* the chain's offset from the object pointer */
	char chain[HWBP_TRACE_SYM_LEN];   /* "->value", "->f_pos", "" (the whole
					   * object) */
};

/*
 * hwbpi_objspec_parse - entry name @s as an object watch: "FUNC(PARAM)CHAIN"
 * or "FUNC():return CHAIN" ("FUNC():returnCHAIN" without a space), CHAIN
 * empty (the object it points to, whole) or starting with "->", '.' or
 * '['.  Returns 1 and fills @o's arm and chain, 0 when @s has no such
 * form (a symbol, an expression), or -EINVAL with *@col (1-based) and
 * *@msg.  No allocation.
 */
int hwbpi_objspec_parse(const char *s, struct hwbpi_objspec *o, unsigned *col, const char **msg);

/*
 * hwbpi_objspec_release - a release point (--release): "FUNC(PARAM)"
 * (the object is PARAM of FUNC, released as FUNC is entered) or "scope"
 * (when the arming call returns).  Returns 0, or -EINVAL with *@msg.
 */
int hwbpi_objspec_release(const char *s, struct hwbpi_objspec *o, const char **msg);

/* ---------------------------------------------------------- the table (table.c) */

enum hwbpi_obj_state { HWBPI_OBJ_FREE = 0, HWBPI_OBJ_LIVE, HWBPI_OBJ_RELEASED };

/* One object seen by an arming function. */
struct hwbpi_obj {
	uint64_t ptr;                /* the object's address: what the function was given */
	uint64_t seq;                /* 1, 2, ...: the order objects were armed in */
	uint64_t born, died;         /* ns (the backend's clock); died: released */
	uint64_t site;               /* the arming call's return address (its caller) */
	uint64_t armings;            /* calls of the arming function that gave it */
	uint64_t watched_ns;         /* time in a debug register, closed spells */
	uint64_t since;              /* in a debug register since then (0: not now) */
	uint64_t hits;
	struct {
		uint64_t func;       /* the function's address (0: none known) */
		uint8_t kind;        /* HWBP_R/W/X, 0 unknown */
		uint64_t n;
	} by[HWBPI_OBJ_FUNCS];
	uint64_t by_other;           /* hits that found no counter free */
	int slot;                    /* the backend's, -1: none */
	uint8_t state;               /* enum hwbpi_obj_state */
};

/* The objects of one watch. */
struct hwbpi_objtab {
	struct hwbpi_obj *obj;       /* n entries */
	unsigned n;
	uint64_t seq;                /* objects armed so far */
	uint64_t released;           /* objects released so far */
	uint64_t overflow;           /* objects not tracked: every entry live */
	uint64_t forgotten;          /* released objects whose entry a new one took */
	uint64_t unknown_release;    /* releases of no tracked object */
	unsigned rr;                 /* the rotation's next candidate */
	uint64_t ended;              /* when the trace ended (hwbpi_objtab_close), 0: not yet */
	/* the backend's, for the report: rotations of the slots, objects
	 * whose address the planner refused, returns not awaited (its
	 * table of calls was full) */
	uint64_t rotations, refused, ret_lost;
	/* asynchronous arming (the perf and bpf backends): the delay from
	 * each object's arming call to its first spell in a slot, ns (the
	 * median and the largest over delay_n objects), and hits that came
	 * after an object's release, before its slot was disarmed: on freed
	 * memory, never counted */
	bool async;
	uint64_t delay_n, delay_median, delay_max;
	uint64_t after_release;
	/* --objects-log: each object's events as they happen, one line each,
	 * "SEQ 0xPTR EVENT NS" (EVENT armed, in, out, released; NS the
	 * backend's clock, CLOCK_MONOTONIC), or NULL */
	FILE *log;
};

/* Make a table of @n entries (1..HWBPI_OBJ_MAX).  Errors: -EINVAL,
 * -ENOMEM. */
int hwbpi_objtab_init(struct hwbpi_objtab *tab, unsigned n);
void hwbpi_objtab_fini(struct hwbpi_objtab *tab);

/*
 * hwbpi_objtab_arm - the arming function was given @ptr at time @now,
 * called from @site: a live object at @ptr is the same object (armings
 * counted), else a new one in a free entry (or the oldest released one's:
 * counted as forgotten).  Returns the entry's index, or -ENOSPC when
 * every entry is live (counted as overflow).  No allocation.
 */
int hwbpi_objtab_arm(struct hwbpi_objtab *tab, uint64_t ptr, uint64_t site, uint64_t now);

/* The live object at @ptr, or -ENOENT. */
int hwbpi_objtab_find(const struct hwbpi_objtab *tab, uint64_t ptr);

/*
 * hwbpi_objtab_release - live object @i released at @now: its watch
 * spell closed (the caller has taken it out of its slot first).  No
 * error.
 */
void hwbpi_objtab_release(struct hwbpi_objtab *tab, int i, uint64_t now);

/* Object @i goes into slot @slot (>= 0) or out of its slot (-1) at @now:
 * its watched time.  No error. */
void hwbpi_objtab_slot(struct hwbpi_objtab *tab, int i, int slot, uint64_t now);

/* A hit of object @i by function @func, of @kind.  The hit path's: no
 * allocation, no system call. */
void hwbpi_objtab_hit(struct hwbpi_objtab *tab, int i, uint64_t func, uint8_t kind);

/* The next live object without a slot after the rotation's last choice
 * (round robin), or -ENOENT.  Advances the cursor. */
int hwbpi_objtab_next_waiting(struct hwbpi_objtab *tab);

/* The trace ended at @now: every spell in a slot closed there; a live
 * object's life, for its coverage, ends there too.  No error. */
void hwbpi_objtab_close(struct hwbpi_objtab *tab, uint64_t now);

/* Live objects, and those of them in a slot. */
unsigned hwbpi_objtab_live(const struct hwbpi_objtab *tab, unsigned *in_slot);

/* The fraction of object @i's life (a live one's: up to the end of the
 * trace, or @now before it) spent in a slot, in parts per million
 * (1000000: watched all along). */
uint32_t hwbpi_objtab_coverage(const struct hwbpi_objtab *tab, int i, uint64_t now);

#endif /* HWBP_TRACER_OBJECTS_H */
