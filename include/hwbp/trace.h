/* SPDX-License-Identifier: MIT */
/*
 * hwbp ksym tracer: watch symbols by name, record hits.
 *
 * Four layers (design.md), each calling only the one below it:
 *   hooking          hwbp core + glue / simulator: where a hit comes from
 *   event definition struct hwbp_trace_event: one fixed-size hit record
 *   event management filters (hwbp_trace_filter_*), histograms (hwbp_hist_*)
 *   transport        per-CPU rings (hwbp_ring_*), outputs (text, CTF)
 * Symbols (hwbp_symtab_*) serve the filter (name -> address, size) and the
 * outputs (IP -> function).
 *
 * Everything on the hit path (hwbp_hist_add, hwbp_ring_push) allocates
 * nothing, takes no lock and makes no system call.
 *
 * (design.md and scenarios.md are installed with hwbp in share/doc/hwbp/.)
 */
#ifndef HWBP_TRACE_H
#define HWBP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hwbp/hist.h>
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

/* hwbp_symtab_new - an empty table.  Errors (NULL, *err): -ENOMEM.
 * Context: allocates; any thread. */
struct hwbp_symtab *hwbp_symtab_new(int *err);
/* hwbp_symtab_free - free @t and its symbols (NULL: nothing).  No errors.
 * Context: no other call on @t at the same time, nor after. */
void hwbp_symtab_free(struct hwbp_symtab *t);

/*
 * hwbp_symtab_add - add one symbol (the name is copied).
 * Errors: -EINVAL (NULL or empty name), -EBUSY (table already finished),
 *         -ENOMEM.
 * Context: one thread at a time per table, before hwbp_symtab_finish();
 *         allocates.
 */
int hwbp_symtab_add(struct hwbp_symtab *t, const char *name, uint64_t addr,
		    uint64_t size, char type);

/*
 * hwbp_symtab_load_elf - add the symbols of an ELF file (.symtab, else
 * .dynsym) through libelf, each address plus @bias (a PIE's load bias).
 * A stripped file (no .symtab) gets the .symtab of its separate debug
 * file instead, found as GDB finds it (its build-id under
 * /usr/lib/debug/.build-id/, its .gnu_debuglink beside it, in .debug/ or
 * under /usr/lib/debug; a build with libdw only), else its .dynsym.
 * A versioned symbol (a .symtab's "optind@GLIBC_2.2.5", a .dynsym's
 * .gnu.version) is added by its plain name with the version beside it;
 * the file (its path and DT_SONAME) is remembered for hwbp_symtab_find(),
 * and the addresses its PT_LOAD segments span (plus @bias), so that an
 * IP in none of its functions is shown as "FILE+0xOFF" (its last path
 * component; OFF = IP - @bias, the address nm and addr2line -e FILE use)
 * by the histogram and the traces, rather than "?".
 * Returns the number added.
 * Errors: -ENOENT (no such file) and other open() errors as they are
 *         (-EACCES...), -EINVAL (not ELF / no symbol table), -EBUSY,
 *         -ENOMEM, -EIO, -EOPNOTSUPP (built without libelf).
 * Context: as hwbp_symtab_add(); reads the file.
 */
int hwbp_symtab_load_elf(struct hwbp_symtab *t, const char *path, uint64_t bias);

/*
 * hwbp_symtab_load_map - add the symbols of a System.map or /proc/kallsyms
 * text ("ADDR TYPE NAME [module]" per line; sizes are inferred at finish
 * from the next symbol's address).  Returns the number added.
 * Errors: -ENOENT and other open() errors as they are, -EINVAL (a
 *         malformed line: *line says which, when non-NULL), -EBUSY,
 *         -ENOMEM, -EIO.
 * Context: as hwbp_symtab_add(); reads the file.
 */
int hwbp_symtab_load_map(struct hwbp_symtab *t, const char *path, unsigned *line);

/* hwbp_symtab_load_map_text - hwbp_symtab_load_map() of the @len bytes at
 * @text, from memory (for tests and fuzzing); a malformed line adds
 * nothing.  Returns the number added.  Errors: -EINVAL (@t NULL, @text NULL
 * with @len, a malformed line: *line says which, when non-NULL), -EBUSY,
 * -ENOMEM.  Context: as hwbp_symtab_add(). */
int hwbp_symtab_load_map_text(struct hwbp_symtab *t, const char *text, size_t len,
			      unsigned *line);

/*
 * hwbp_symtab_finish - sort, infer missing sizes, build the lookup tables.
 * After it the table is read-only and lookups are allocation-free.
 * Errors: -EINVAL (NULL), -ENOMEM.
 * Context: as hwbp_symtab_add(): the last call that changes @t.
 */
int hwbp_symtab_finish(struct hwbp_symtab *t);

/*
 * hwbp_symtab_find - by name: the first one added wins (load a process's
 * files in the dynamic linker's order, the executable first, and a
 * plain name finds the copy the program uses).  @name may choose among
 * same-named symbols: "NAME@VERSION" (or "@@"), and a file loaded with
 * hwbp_symtab_load_elf() as "LIB:NAME" or "NAME@LIB", LIB its path, its
 * path's last component or its soname; after '@' a name holding ".so"
 * is a file, anything else a version; both: "LIB:NAME@VERSION".  LIB
 * ends at the first ':' outside brackets that is not part of "::"
 * ("libapp.so:app::hits"; "::" is always part of NAME).
 * A name in the table as given always matches first.  Else NAME may be
 * a C++ or Rust name as demangled (libiberty, as the outputs print it):
 * "app::hits" finds _ZN3app4hitsE, "app::bump(int)" _ZN3app4bumpEi,
 * "void app::store<long>(long)" or "app::store<long>(long)" the template
 * function _ZN3app5storeIlEEvT_; and a function's name without its
 * parameter list ("app::bump") when every symbol having it has the same
 * demangled name (C1/C2 constructors, the same function in two files:
 * the first added wins), NULL when overloads differ (tracer-internal
 * hwbpi_symtab_resolve() names them).
 * Returns the symbol, or NULL if none, or not finished.
 * Cost: a name as given hashes; a qualified one scans the table (O(n)).
 * A demangled one demangles only the symbols whose mangled name spells
 * its last identifier ("17cli_options_mutex": a few, ~3 ms among a
 * 100 MB program's 106,000 symbols), unless it has none to rely on (an
 * operator, a constructor), names overloads, or misses: then the first
 * such lookup demangles every name into an index (~0.1 s there), which
 * later lookups hash.  Never at load: a program looked up by its table's
 * own names never demangles.  No errors.
 * Context: any thread once finished (the index is published lock-free; a
 * lookup that cannot allocate finds only names as given).
 */
const struct hwbp_sym *hwbp_symtab_find(const struct hwbp_symtab *t, const char *name);

/* hwbp_symtab_func - the function (type t/T/w/W/i) containing @ip, or NULL
 * (also before hwbp_symtab_finish()).  O(log n), no allocation.  Where
 * symbols share an address the first added wins.  No errors.
 * Context: any thread once finished. */
const struct hwbp_sym *hwbp_symtab_func(const struct hwbp_symtab *t, uint64_t ip);

/* hwbp_symtab_at - the symbol of any type containing @addr (for
 * symbol+offset), or NULL (also before hwbp_symtab_finish()).  As
 * hwbp_symtab_func(): O(log n), no allocation.  No errors.
 * Context: any thread once finished. */
const struct hwbp_sym *hwbp_symtab_at(const struct hwbp_symtab *t, uint64_t addr);

/* hwbp_symtab_count - the symbols @t holds (0 for NULL).  No errors.
 * Context: not concurrently with a call that adds to @t. */
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
 * "0xffffffff81000000/8:rw-", "pid_max:---", "*:---").  SYM may be
 * qualified, "optind@GLIBC_2.2.5", "libc.so.6:optind", "optind@libc.so.6",
 * a demangled C++ or Rust name, or a glob pattern (kept whole in ->sym
 * for hwbp_symtab_find() and the tracer).  The rules (tracer/events/filter.c has
 * the grammar):
 *  - the type's ':' is the LAST ':' of the entry, when exactly three
 *    type letters [r-][w-][x-] (and blanks) follow it;
 *  - "::" is part of a name, never a library's ':'; before the type's
 *    ':', a ':' outside brackets that is not part of "::" ends LIB:
 *    "libapp.so:app::hits:rw-" ("s[abi:cxx11]()" holds its ':' inside
 *    brackets);
 *  - a name holds what demangled names hold: "::", brackets ( ) < > [ ]
 *    { } that nest and close, with anything printable inside them
 *    ("std::map<int, int>::find(int const&) const"), '~', '&', '*', '?',
 *    operators ("operator+=", "operator()", "operator<", "operator new"),
 *    blanks between words ("vtable for app::Foo");
 *  - outside brackets '+' and '/' start +OFF and /LEN (a number, then
 *    '/' or the type's ':'), except the symbol after "operator", which is
 *    taken whole, longest first: "operator+=+8" is operator+= at offset 8,
 *    "operator//4" operator/ with length 4, "operator+++8" operator++ at
 *    8, but a '+' right before a digit is the offset's: "operator++8" is
 *    operator+ at 8;
 *  - '*', '?' or "[...]" make a name a pattern (fnmatch(3)) unless some
 *    symbol has it as it is; a lone "*" is all watches ("*:---").
 * Errors: -EINVAL with *col = the 1-based column of the offending character
 *         (and *msg a static description), -ERANGE (a number overflows).
 * Context: any; allocates nothing.
 */
int hwbp_trace_filter_parse(const char *s, struct hwbp_trace_entry *out, unsigned *col,
			    const char **msg);

/* ------------------------------------------------------------------ */
/* Events.                                                              */
/* ------------------------------------------------------------------ */

/* One hit: 64 bytes (one cache line), fixed size. */
struct hwbp_trace_event {
	uint64_t ts;         /* timestamp (ns; the simulator's clock for --backend sim) */
	uint64_t ip;         /* instruction that made the access */
	uint64_t addr;       /* data address when known, else the watched address */
	uint16_t cpu;
	uint16_t bp;         /* index of the watched entry (breakpoint) */
	uint8_t kind;        /* HWBP_R, HWBP_W, HWBP_X, or 0: unknown */
	uint8_t kind_how;    /* HWBP_KIND_* : where the kind came from */
	uint16_t size;       /* access size when known, else 0 */
	uint32_t tid;        /* the thread that made the access (a Linux TID), 0: not known */
	uint32_t stack;      /* its call stack, an id of the session's stack table; 0: none */
	uint64_t value;      /* HWBP_EV_VALUE: the watched bytes after the access */
	uint64_t old;        /* HWBP_EV_OLD: the watched bytes before it (a write) */
	uint8_t vflags;      /* HWBP_EV_* */
	uint8_t vsize;       /* bytes of value and old (1..8; little-endian in the low bytes) */
	uint8_t pad[6];
};
#define HWBP_EV_VALUE 1u
#define HWBP_EV_OLD 2u

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

/*
 * hwbp_hist_init - allocate (at setup) @nbp histograms of @n entries.
 * Errors: -EINVAL (nbp or n 0, or absurdly large), -ENOMEM.
 * Context: allocates; no other call on @h at the same time.
 */
int hwbp_hist_init(struct hwbp_hist *h, unsigned nbp, unsigned n);
/* hwbp_hist_fini - free what hwbp_hist_init() allocated and zero @h (NULL:
 * nothing).  No errors.  Context: no other call on @h at the same time,
 * no hwbp_hist_add() after. */
void hwbp_hist_fini(struct hwbp_hist *h);

/* (hwbp_hist_add, the hit path: <hwbp/hist.h>) */

/*
 * hwbp_hist_print - the histogram as a table ("Access_Type Symbol Function
 * Counter", most hits first, ties by breakpoint, then function name), then
 * per breakpoint "SYM: N functions, overrun M".  @names[bp] names each
 * breakpoint; @syms names functions (may be NULL: addresses are printed),
 * and a place in no function by the file that holds it, "libfoo.so+0x1234"
 * (see hwbp_symtab_load_elf), else as 0xADDR (a kernel IP in no symbol);
 * names wider than 60 columns are shortened (see hwbp_hist_print_flags).
 * Not on the hit path: it allocates to sort.
 * Errors: -EINVAL, -ENOMEM, -EIO (the stream failed).
 * Context: not concurrently with hwbp_hist_add() on @h; not in a signal
 * handler (stdio).
 */
int hwbp_hist_print(const struct hwbp_hist *h, const char *const *names,
		    const struct hwbp_symtab *syms, FILE *out);

/*
 * hwbp_hist_print_flags - hwbp_hist_print with HWBP_HIST_* @flags:
 * HWBP_HIST_DEMANGLE shows C++ (Itanium) and Rust (legacy, v0) function
 * names demangled ("foo::bar(int)" for _ZN3foo3barEi), each once per
 * print; C names are unchanged, and so is every name when the library
 * was built without libiberty.
 * In the table a function name wider than 60 columns (a column is one
 * UTF-8 character) is shortened so that rows do not wrap, by the first
 * of these steps after which it fits, each on top of the ones before:
 * the outermost parameter list of a C++ name becomes "(...)"
 * ("ns::f(std::vector<int, std::allocator<int> > const&)" -> "ns::f(...)"),
 * then template argument lists become "<...>", one nesting level at a
 * time, innermost first ("a::b<std::map<K, V> >::c" -> "a::b<...>::c"),
 * then the name is cut after 57 columns and "..." (ASCII) appended,
 * never inside a UTF-8 sequence.  Names of 60 columns or fewer are
 * unchanged; rows still sort by the full name.  HWBP_HIST_WIDE prints
 * every name in full.  hwbp_hist_print is @flags 0.
 * Errors: as hwbp_hist_print; -EINVAL also for an unknown flag.
 * Context: as hwbp_hist_print.
 */
#define HWBP_HIST_DEMANGLE 1u
#define HWBP_HIST_WIDE 2u
int hwbp_hist_print_flags(const struct hwbp_hist *h, const char *const *names,
			  const struct hwbp_symtab *syms, unsigned flags, FILE *out);

/* ------------------------------------------------------------------ */
/* Per-CPU rings: one producer (the CPU), one consumer, lock-free.      */
/* ------------------------------------------------------------------ */
struct hwbp_ring;

/*
 * hwbp_ring_new - a ring of @bytes (rounded down to a power-of-two number
 * of events, at least 2), allocated once at setup.  With @overwrite a full
 * ring drops its oldest event for the new one, else the new one.
 * Errors (NULL, *err): -EINVAL (too small), -ENOMEM.
 * Context: allocates (at setup); any thread.
 */
struct hwbp_ring *hwbp_ring_new(size_t bytes, bool overwrite, int *err);
/* hwbp_ring_free - free @r (NULL: nothing).  No errors.
 * Context: once its producer and consumer are done with it. */
void hwbp_ring_free(struct hwbp_ring *r);

/* hwbp_ring_capacity - the events the ring holds at most (0 for NULL).
 * No errors.  Context: any (fixed at hwbp_ring_new()). */
size_t hwbp_ring_capacity(const struct hwbp_ring *r);

/*
 * hwbp_ring_push - the producer (one thread): record one event.  Returns
 * false when an event was lost (the new one with discard, the oldest with
 * overwrite).  No errors.
 * Context: one producer thread per ring, concurrently with the consumer;
 * allocation-free, lock-free, no system call.
 */
bool hwbp_ring_push(struct hwbp_ring *r, const struct hwbp_trace_event *e);

/* hwbp_ring_pop - the consumer (one thread, may run concurrently with the
 * producer): take up to @max events, oldest first; returns how many it
 * took.
 * No errors.  Context: one consumer thread per ring, concurrently with the
 * producer; allocation-free, lock-free. */
size_t hwbp_ring_pop(struct hwbp_ring *r, struct hwbp_trace_event *out, size_t max);

/*
 * hwbp_ring_stats - the accounting: events pushed (*@produced), and events
 * lost (*@lost: never recorded, or overwritten before the consumer took
 * them); either pointer may be NULL, and a NULL @r counts 0.  Once the
 * producer stopped and the consumer drained the ring: produced = popped +
 * lost, exactly.  No errors.  Context: any thread, any time.
 */
void hwbp_ring_stats(const struct hwbp_ring *r, uint64_t *produced, uint64_t *lost);


/* ------------------------------------------------------------------ */
/* Sessions and backends: `hwbp trace` as parse -> session -> backend.  */
/* ------------------------------------------------------------------ */

/*
 * A session is one trace: the backend that feeds it hits, that backend's
 * options (its workload: a demo, a file, a process), the watches (filter
 * entries, resolved against the symbols the backend loads plus extra
 * symbol files), histogram or trace mode, and where the results go.
 *
 *   b = hwbp_trace_backend_find("sim");
 *   s = hwbp_trace_session_new(b, &err);
 *   hwbp_trace_session_option(s, "demo", NULL);
 *   hwbp_trace_session_entry(s, "pid_max:rw-", "-e");
 *   hwbp_trace_session_output(s, &out);
 *   ret = hwbp_trace_session_run(s);       (a one-line reason: hwbp_trace_session_message)
 *   hwbp_trace_session_free(s);
 *
 * Strings and streams passed in are borrowed: they must outlive the
 * session.  A session is used by one thread, except
 * hwbp_trace_session_stop(), which may run in a signal handler.
 */
struct hwbp_trace_session;
struct hwbp_trace_backend;

/* An option a backend takes, as the command line spells it (--NAME). */
struct hwbp_trace_backend_option {
	const char *name;        /* "demo", "lackey", "pid", "cmd" ... */
	char short_name;         /* 'p', or 0 */
	const char *arg;         /* what the value is ("FILE", "PID"); NULL: a flag */
	unsigned flags;          /* HWBP_TRACE_OPT_* */
	const char *requires;    /* another option this one needs, or NULL */
	const char *help;        /* one line */
};
#define HWBP_TRACE_OPT_WORKLOAD 1u  /* names what is traced: one per session */
#define HWBP_TRACE_OPT_SELECTS 2u   /* giving it chooses this backend by default */
#define HWBP_TRACE_OPT_ARGV 4u      /* given as "-- CMD [ARGS]" (hwbp_trace_session_command) */
#define HWBP_TRACE_OPT_WITH_CMD 8u  /* a workload that -- CMD may join: the command then
				     * only bounds the trace (--kernel -- CMD) */

struct hwbp_trace_backend {
	const char *name;                     /* "sim", "ptrace" ... (--backend NAME) */
	const char *description;              /* one line */
	const char *workload;                 /* what it traces, for messages: "-- CMD or -p PID" */
	const struct hwbp_trace_backend_option *options;   /* ended by a NULL name */
	unsigned flags;                       /* HWBP_TRACE_BACKEND_* */
	/*
	 * The operations, in this order, each called once by
	 * hwbp_trace_session_run() (and close by hwbp_trace_session_free()):
	 *  open  check the options, start or attach the workload, load its
	 *        symbols (the watches are resolved after it);
	 *  run   install the watches, feed hits until the workload ends or
	 *        stop was called;
	 *  stop  async-signal-safe: make a running run() end soon (may be NULL:
	 *        the backend polls the session's stop flag);
	 *  close release what open made (may be called after a failed open).
	 * Each returns 0 or a negative errno with the session's message set.
	 * The registered backends are the library's own: their operations
	 * use the session's insides; an outside backend would need accessors
	 * (hwbp_trace_session_hit() is the first) that later issues add.
	 */
	int (*open)(struct hwbp_trace_session *s);
	int (*run)(struct hwbp_trace_session *s);
	void (*stop)(struct hwbp_trace_session *s);
	void (*close)(struct hwbp_trace_session *s);
};
#define HWBP_TRACE_BACKEND_CPU 1u      /* takes a CPU model (--cpu) */
#define HWBP_TRACE_BACKEND_MISSING 2u  /* not built into this library (open says why) */
#define HWBP_TRACE_BACKEND_RINGS 4u    /* its hits wait in per-CPU rings of the kernel, in both
                                        * modes: ring_bytes sizes those too */
#define HWBP_TRACE_BACKEND_TLS 8u      /* watches a thread-local variable of the executable
                                        * in each thread's own copy; other backends refuse
                                        * one (-EOPNOTSUPP at prepare) */
#define HWBP_TRACE_BACKEND_STACKS 16u  /* it sees each hit's callers: takes "stack", "folded" */
#define HWBP_TRACE_BACKEND_OBJECTS 32u /* it sees functions run, and watches the objects they
                                        * are given ("make_node():return->value"); other
                                        * backends refuse such a watch (-EOPNOTSUPP) */

/*
 * hwbp_trace_backend_find - the registered backend called @name, or NULL.
 *
 * hwbp_trace_backend_at - the @i-th registered backend (registry order,
 *   which is also the order in which a default is chosen), NULL past the
 *   last.
 *
 * Backends that need Linux are registered only there.
 * No error.  Context: any (the registry is a constant table).
 */
const struct hwbp_trace_backend *hwbp_trace_backend_find(const char *name);
const struct hwbp_trace_backend *hwbp_trace_backend_at(unsigned i);

/* hwbp_trace_backend_option - the option @name of @b, or NULL when @b does
 * not take it.  No error.  Context: any. */
const struct hwbp_trace_backend_option *
hwbp_trace_backend_option(const struct hwbp_trace_backend *b, const char *name);

/*
 * hwbp_trace_host_cpu - this machine's CPU model as the running kernel
 * lets a tracer program its debug registers (the ptrace backend's
 * default --cpu, `hwbp caps --cpu host`): x86 four shared slots (the
 * x86_64 preset), arm64 the slot counts Linux reports, powerpc what
 * PPC_PTRACE_GETHWDBGINFO says.  Linux answers for a stopped tracee: a
 * child is forked, stopped under ptrace, asked, killed and reaped
 * (nothing is left behind).  @err (may be NULL) gets a one-line reason.
 * Errors: -EINVAL (NULL @cpu), -EOPNOTSUPP (not Linux, or no debug
 * registers for ptrace here), -EPERM (ptrace not permitted), fork and
 * wait errors.  Context: not in a signal handler; forks (flushes stdio
 * first).
 */
int hwbp_trace_host_cpu(struct hwbp_cpu *cpu, char *err, size_t errlen);

/* Histogram or trace mode. */
struct hwbp_trace_mode {
	bool trace;              /* every hit into per-CPU rings, else a histogram */
	unsigned hist_entries;   /* histogram entries per watch; 0: 16 */
	size_t ring_bytes;       /* bytes per CPU ring, at most 64 MiB: trace mode's rings
				  * (0: 1 MiB), and with a HWBP_TRACE_BACKEND_RINGS backend
				  * its kernel rings too, in both modes (0: its default);
				  * else it must be 0 (-EINVAL at prepare) */
	bool overwrite;          /* trace mode: a full ring drops its oldest event */
};

/* Where the results go. */
struct hwbp_trace_output {
	FILE *hist;              /* histogram mode: the table (NULL: not printed) */
	FILE *text;              /* trace mode, text: one line per event */
	const char *ctf_dir;     /* trace mode, CTF 1.8: a directory (instead of text),
				  * new or empty unless option "force"; files made with
				  * O_EXCL|O_NOFOLLOW */
	FILE *diag;              /* notes and the trace summary (NULL: none) */
	const char *diag_prefix; /* before each note ("hwbp: trace: "), NULL: "" */
};

/*
 * hwbp_trace_session_new - an empty session for backend @b.
 * Errors (NULL, *err when non-NULL): -EINVAL (NULL @b), -ENOMEM.
 * Context: allocates; any thread.
 */
struct hwbp_trace_session *hwbp_trace_session_new(const struct hwbp_trace_backend *b, int *err);

/* hwbp_trace_session_free - close the backend (if opened: a started command
 * is ended, an attached process let go) and free everything.  NULL is a
 * no-op.  No errors.  Context: the thread that uses @s; not while
 * hwbp_trace_session_run() runs, not in a signal handler. */
void hwbp_trace_session_free(struct hwbp_trace_session *s);

/*
 * hwbp_trace_session_option - set the backend's option @name (without
 * dashes) to @value (NULL for a flag).  These options are the session's own,
 * for every backend: "force" (a flag; only with a CTF output), the CTF
 * directory may hold an earlier hwbp trace (its metadata and stream_N
 * files only), which is replaced; anything else there is refused; and
 * "no-demangle" (a flag): function names in the histogram, the text lines
 * and CTF as the symbol table has them, where by default C++ and Rust
 * names are demangled (see hwbp_hist_print_flags), and "wide" (a flag):
 * function names in the histogram's table in full, where by default
 * names over 60 columns are shortened (HWBP_HIST_WIDE); "stack" (a value or none):
 * key the histogram by call stack, the hit's function and up to N callers
 * (the value, 1..64, default 8; -EINVAL not a number, -ERANGE out of
 * range), rows "bump <- work <- main", and in trace mode give every event
 * its callers (ev->stack, the text line, CTF); "folded" (a file): the
 * histogram also written as folded stacks ("jiffies [W];main;work;bump
 * 300": a root frame for the watch and kind, then the frames outermost
 * first, as flamegraph.pl and inferno read them), the file created new
 * at prepare (O_EXCL | O_NOFOLLOW: -EEXIST for any file there), implying
 * "stack" (depth 8) when not given; both refused at prepare with
 * -EOPNOTSUPP by a backend without HWBP_TRACE_BACKEND_STACKS, and
 * "folded" with -EINVAL in trace mode.
 * Three need libdw
 * at build time (else the session's prepare fails with -EOPNOTSUPP):
 * "debug-dir" (a directory: one more root, before /usr/lib/debug, where
 * the separate debug files of stripped files are searched; prepare fails
 * with -ENOENT/-ENOTDIR for one that is not there), "sort" ("function",
 * the default, or "srcline": histogram entries by source line, printed
 * with a Source column; not in trace mode) and "srcline" (a flag, trace
 * mode only: each text event ends with " at FILE:LINE", each CTF event
 * has a "src" field), checked at prepare.  Values are checked by the
 * backend's open.  Errors (message set): -EINVAL (NULL, a value for a flag
 * or none for an option that takes one, a "stack" that is not a number),
 * -ERANGE (a "stack" depth beyond 1..64), -ENOENT (the backend does not
 * take @name), -EBUSY (already set, or the session ran).
 * Context: the thread that uses @s, before it runs.
 */
int hwbp_trace_session_option(struct hwbp_trace_session *s, const char *name, const char *value);

/*
 * hwbp_trace_session_command - the command to start (-- CMD [ARGS]):
 * @argv NULL-terminated, @argv[0] searched in PATH.
 * Errors (message set): -EINVAL (NULL or empty), -ENOENT (the backend
 * runs no command), -EBUSY.
 * Context: the thread that uses @s, before it runs.
 */
int hwbp_trace_session_command(struct hwbp_trace_session *s, char *const argv[]);

/*
 * hwbp_trace_session_cpu - the CPU model to plan for (a preset name of
 * hwbp_cpu_preset()); without it the backend's default (the simulator's
 * x86_64, a real process's kernel model).
 * Errors (message set): -EINVAL (NULL, unknown preset), -ENOENT (the
 * backend has a fixed CPU), -EBUSY.
 * Context: the thread that uses @s, before it runs.
 */
int hwbp_trace_session_cpu(struct hwbp_trace_session *s, const char *preset);

/*
 * hwbp_trace_session_symbols - a System.map or /proc/kallsyms to add to
 * the backend's symbols (read at run).  Errors: -EINVAL, -ENOSPC (more
 * than 8), -EBUSY.
 * Context: the thread that uses @s, before it runs.
 */
int hwbp_trace_session_symbols(struct hwbp_trace_session *s, const char *path);

/*
 * hwbp_trace_session_entry, hwbp_trace_session_filter_file - the watches.
 * hwbp_trace_session_entry: a filter entry (SYM[+OFF][/LEN]:rwx), applied
 * in the order given once the backend's symbols are loaded; @where names
 * its origin in messages ("-e").  hwbp_trace_session_filter_file: a file
 * of entries, one a line ('#' comments; at most 65536 bytes a line, a
 * longer line or a NUL byte is refused by run with -EOVERFLOW or -EINVAL,
 * never cut), applied where it was given.  An entry whose name is a
 * pattern (hwbp_trace_filter_parse) watches every data symbol matching
 * it (functions when its type has x), in address order, aliases once,
 * each a watch named as it matched (demangled when the pattern holds
 * "::"): at most HWBP_MAX_REQUESTS, and run says how many matched in a
 * note on the diag stream; "PAT:---" removes them.  A pattern matching
 * nothing is a bad entry (-ENOENT), one matching more than
 * HWBP_MAX_REQUESTS too (-ENOSPC); whether the CPU holds them all is
 * the backend's to say, as for entries given one by one.
 * Errors: -EINVAL (NULL), -ENOSPC (more than 2 * HWBP_MAX_REQUESTS),
 * -EBUSY.  A bad entry is reported by hwbp_trace_session_run().
 * Context: the thread that uses @s, before it runs.
 */
int hwbp_trace_session_entry(struct hwbp_trace_session *s, const char *entry, const char *where);
int hwbp_trace_session_filter_file(struct hwbp_trace_session *s, const char *path);

/* hwbp_trace_session_mode, hwbp_trace_session_output - histogram or trace
 * mode (*@m), and the outputs (*@o), copied into the session.
 * Errors: -EINVAL (NULL; CTF without trace mode; trace mode without an
 * output), -ERANGE with input set (ring_bytes above 64 MiB per CPU),
 * -EBUSY.  Context: the thread that uses @s, before it runs. */
int hwbp_trace_session_mode(struct hwbp_trace_session *s, const struct hwbp_trace_mode *m);
int hwbp_trace_session_output(struct hwbp_trace_session *s, const struct hwbp_trace_output *o);

/*
 * hwbp_trace_session_prepare - the first half of hwbp_trace_session_run():
 * open the backend (start or attach the workload, load its symbols),
 * resolve the watches, allocate the histogram or rings and open the
 * outputs, without running.  Then hwbp_trace_session_hit() may be called
 * (a benchmark of the hit path), and hwbp_trace_session_run() runs.
 * Errors: as hwbp_trace_session_run() before its run; -EBUSY (prepared
 * already).  After an error only hwbp_trace_session_free() is useful.
 * Context: the thread that uses @s.
 */
int hwbp_trace_session_prepare(struct hwbp_trace_session *s);

/*
 * hwbp_trace_session_run - (prepare if not done, then) open the backend, resolve the watches, run the
 * workload to its end (or hwbp_trace_session_stop), and write the results:
 * the histogram, or the remaining events and the summary ("N events
 * produced, N recorded, N lost"; after a failed write ", N not written
 * (ENOSPC)": recorded is then what the file holds, whole lines or whole
 * CTF packets, and the run is stopped).  Once per session.
 * Errors (one line: hwbp_trace_session_message): -EINVAL with input set
 * (a bad entry or option value, nothing to watch), -ERANGE with input set
 * (an entry whose range wraps past 2^64), the errno of an unreadable
 * filter file with input set (-ENOENT, -EISDIR; -EOVERFLOW a line over
 * 65536 bytes, -EINVAL a NUL byte), -EEXIST / -ENOTEMPTY with input set
 * (a CTF directory that is not empty / not hwbp's to replace),
 * the backend's errors (a watch the CPU cannot hold: -ENOSPC, -ERANGE,
 * -EOPNOTSUPP; a process that cannot be traced: -EPERM, -ESRCH ...),
 * -EIO or the errno of a failed write to an output (CTF), -EBUSY (ran).
 * Writes to the hist stream, and the text stream's error, are not
 * reported here: the caller checks the streams (ferror, fclose) as it
 * closes them; after a failed text write errno is its errno.
 * Context: the thread that uses @s (hwbp_trace_session_stop() may run
 * meanwhile, in a signal handler).
 */
int hwbp_trace_session_run(struct hwbp_trace_session *s);

/*
 * hwbp_trace_session_stop - make a running hwbp_trace_session_run() end
 * soon (a signal handler; install it without SA_RESTART so that the
 * backend's waits return).  What was gathered so far is still written.
 * No error.  Context: async-signal-safe; any thread.
 */
void hwbp_trace_session_stop(struct hwbp_trace_session *s);

/*
 * hwbp_trace_session_stop_signal - as hwbp_trace_session_stop(), for
 * signal @sig received by the caller: a
 * command the backend started (-- CMD) is sent @sig too, as a terminal
 * sends it to its foreground process group (0: nothing is sent, e.g. when
 * the terminal sent it to the command itself).  A second stop hurries:
 * the backend ends at once (a started command is killed), still leaving
 * an attached process disarmed.  No error.
 * Context: async-signal-safe; any thread.
 */
void hwbp_trace_session_stop_signal(struct hwbp_trace_session *s, int sig);

/*
 * hwbp_trace_session_message - the one-line reason of the last error ("" if
 * none); *input (may be NULL) is set when it was the caller's input (a bad
 * entry, option or file: a usage error) rather than the trace failing.
 * No errors.  Context: the thread that uses @s.
 */
const char *hwbp_trace_session_message(const struct hwbp_trace_session *s, bool *input);

/*
 * hwbp_trace_session_wait_status - true, with *@status (may be NULL) the
 * wait status (waitpid(2)) of the command the backend started, once that
 * command ended; false when the session started no command or it has not
 * ended.  No error.  Context: the thread that uses @s.
 */
bool hwbp_trace_session_wait_status(const struct hwbp_trace_session *s, int *status);

/*
 * hwbp_trace_session_hit - the hit path for a backend: one event into the
 * session's histogram or its CPU's ring.  No errors.
 * Context: allocation-free, no lock, no system call; histogram mode one
 * caller at a time, trace mode one caller per CPU (ev->cpu).  Only
 * between a successful prepare and hwbp_trace_session_free(), and not
 * concurrently with run()'s own hits.
 */
void hwbp_trace_session_hit(struct hwbp_trace_session *s, const struct hwbp_trace_event *ev);

/*
 * hwbp_trace_session_hit_frames - hwbp_trace_session_hit() with the hit's
 * call stack: @callers the return addresses of its callers, innermost
 * first (ev->ip not among them; at most the "stack" depth are used, the
 * first 0 ends them; NULL when @n is 0).  With option "stack" the
 * histogram entry is the (stack, kind)'s, and in trace mode ev->stack is
 * set to the stack's id (0: the table of stacks was full, counted in the
 * summary); without it, this is hwbp_trace_session_hit() and ev->stack
 * is set to 0.  No errors.  Context: as hwbp_trace_session_hit().
 */
void hwbp_trace_session_hit_frames(struct hwbp_trace_session *s, struct hwbp_trace_event *ev,
				   const uint64_t *callers, unsigned n);

/*
 * hwbp_trace_session_hist - histogram mode: the session's histogram (one
 * breakpoint per watch, in the order the entries gave them), from a
 * successful prepare until hwbp_trace_session_free(); NULL otherwise
 * (trace mode, not prepared, NULL @s).  No error.
 * Context: read-only: its counts are those of the hits so far, so read
 * them while no hit is being fed (after run(), or between the caller's own
 * hwbp_trace_session_hit() calls).
 */
const struct hwbp_hist *hwbp_trace_session_hist(const struct hwbp_trace_session *s);

/*
 * hwbp_trace_session_ring - trace mode: CPU @cpu's ring, from a successful
 * prepare until hwbp_trace_session_free(); NULL otherwise (histogram mode,
 * not prepared, @cpu beyond the backend's CPUs, NULL @s).  No error.
 * Context: the thread that uses @s.  Popping events from it makes the
 * caller the ring's consumer: only while run() is not running (run drains
 * the rings itself), and what the caller took is not written to the
 * session's outputs.  hwbp_ring_stats() on it may be read any time.
 */
struct hwbp_ring *hwbp_trace_session_ring(struct hwbp_trace_session *s, unsigned cpu);

/* ------------------------------------------------------------------ */
/* Valgrind lackey traces (the `lackey` backend's input).              */
/* ------------------------------------------------------------------ */
struct hwbp_trace_lackey_counts {
	uint64_t lines;      /* lines read */
	uint64_t bad;        /* lines that are neither an instruction nor a data access */
	uint64_t accesses;   /* data accesses (L, S, M lines) */
	uint64_t bytes;      /* bytes read */
};

/*
 * hwbp_trace_lackey_scan - parse a lackey trace (valgrind --tool=lackey
 * --trace-mem=yes) from @in to its end exactly as the `lackey` backend
 * does, counting into *@c (zeroed first) without replaying anything: to
 * check a trace before a session replays it, or to time the parser alone.
 * Errors: -EINVAL (NULL), -EIO (the stream failed: ferror(@in); *@c holds
 * what was read).  Context: allocates nothing; one caller per stream (it
 * reads without the stream's lock); not in a signal handler (stdio).
 */
int hwbp_trace_lackey_scan(FILE *in, struct hwbp_trace_lackey_counts *c);

/* ------------------------------------------------------------------ */
/* The access behind a data hit, decoded (x86).                        */
/* ------------------------------------------------------------------ */
/*
 * An x86 debug exception names the DR that fired (DR6) after the access,
 * not the access: the tracer decodes the instruction that ended at the
 * trap's RIP (with Capstone, forward from a known boundary such as the
 * function's start; a REP string instruction, whose RIP stays on it, is
 * handled) and works out its memory operand from the registers at the
 * trap.  This is that decoder, for a debugger or a kernel tool that has
 * the code and the registers: its answer is the struct hwbp_access that
 * hwbp_decode() filters and attributes with, as it does with arm64's FAR.
 *
 * hwbp_decoder_open - a decoder for @arch.  Errors: -EOPNOTSUPP (an arch
 *   whose exception reports the access, arm64 and powerpc; or a build
 *   without Capstone), -ENOMEM, -EINVAL (@out NULL).
 * hwbp_decoder_close - free it (NULL: nothing).  No errors.
 * hwbp_decoder_access - the access of the instruction that ended at @ip:
 *   @code holds the @n bytes at @start, a known instruction boundary at
 *   or before @ip (a function's start), up to at least @ip, better 15
 *   bytes past it (a REP string instruction at @ip); @regs the registers
 *   after the access by DWARF number (x86-64 psABI 3.6.2: 0 RAX, 1 RDX,
 *   2 RCX, 3 RBX, 4 RSI, 5 RDI, 6 RBP, 7 RSP, 8-15 R8-R15, 16 RIP, 49
 *   RFLAGS, 58 FS.base, 59 GS.base), @nregs of them (at most 64), bit k of
 *   @known set where regs[k] holds a value.  Of its memory accesses (a
 *   MOVS has two), the one that touches [@lo, @lo + @len) (the watched
 *   bytes), else (or with @len 0) its only one: address, size, kind (HWBP_R,
 *   HWBP_W, or both for a read-modify-write) into *@acc; acc->priv is left
 *   as it was (the caller knows the privilege).
 *   Errors: -EINVAL (NULL, @ip outside @code, @nregs over 64), -ENOENT (no
 *   instruction ends at @ip: @start is no boundary before it, or the
 *   instruction branched; or its address cannot be worked out: a load
 *   into its own base register, a register not in @known; or two
 *   candidates and none in the range), -EOPNOTSUPP.
 * Context: a decoder is one thread's at a time; no allocation after open,
 * no system call, no lock: an exception handler's work in user space (a
 * ptrace stop, a perf sample), not a kernel's (Capstone is a library).
 */
struct hwbp_decoder;
int hwbp_decoder_open(enum hwbp_arch arch, struct hwbp_decoder **out);

/*
 * hwbp_decoder_sample - a function of @arch's code whose answers are known
 * (for self-checks and benchmarks: `hwbp bench trace`): @count
 * instructions of @insn_len bytes each from @start, every one of them an
 * access of @size bytes at @addr of kind @kind given @regs/@known; a trap
 * after instruction k ends at start + k * insn_len.  Errors: -EINVAL
 * (@out NULL), -EOPNOTSUPP (no decoder for @arch).  Context: any.
 */
struct hwbp_decoder_sample {
	const uint8_t *code;
	size_t len;           /* bytes of @code: the instructions, then padding */
	uint64_t start;
	unsigned insn_len, count;
	uint64_t regs[64];
	uint64_t known;
	uint64_t addr, size;
	unsigned kind;
};
int hwbp_decoder_sample(enum hwbp_arch arch, const struct hwbp_decoder_sample **out);
void hwbp_decoder_close(struct hwbp_decoder *d);
int hwbp_decoder_access(struct hwbp_decoder *d, const void *code, size_t n, uint64_t start,
			uint64_t ip, const uint64_t *regs, unsigned nregs, uint64_t known,
			uint64_t lo, uint64_t len, struct hwbp_access *acc);

/* ------------------------------------------------------------------ */
/* Data races: `hwbp race` (DataCollider's method).                     */
/* ------------------------------------------------------------------ */
/*
 * A race run samples the memory-access instructions of a user process's
 * code: a code trap on a random few (re-sampled as they are taken); when
 * a thread reaches one, the access it is about to make is decoded, a
 * hardware watch on those bytes is armed in every other thread (a read:
 * writes watched; a write: every access), and the thread is held for a
 * short delay.  Another thread's conflicting access during it traps in
 * the act: a race, both instructions known.  The bytes are compared
 * before and after the delay too (a change no watch saw: an unseen
 * writer).  Stack accesses, locked and atomic instructions and
 * thread-local ones are never sampled; a caught access made by an atomic
 * instruction is not a race.  Linux on x86-64 and arm64, through ptrace.
 *
 *   r = hwbp_race_new(&err);
 *   hwbp_race_option(r, "rate", "50");          (and "delay", "only"...)
 *   hwbp_race_command(r, argv);                 (or option "pid")
 *   ret = hwbp_race_run(r);                     (a one-line reason: hwbp_race_message)
 *   for (i = 0; hwbp_race_report(r, i, &rep) == 0; i++) ...
 *   hwbp_race_free(r);
 *
 * Strings passed in are borrowed: they must outlive the run.  A run is
 * used by one thread, except hwbp_race_stop(), which may run in a signal
 * handler.
 */
struct hwbp_race;

/* Why instructions of the sampled code were left out (struct
 * hwbp_race_stats, skipped[]); hwbp_race_skip_name() names each. */
enum hwbp_race_skip {
	HWBP_RACE_SKIP_STACK = 0,    /* the thread's own stack (stack or frame pointer,
				      * pushes, pops, calls, returns) */
	HWBP_RACE_SKIP_LOCKED,       /* a locked (atomic) read-modify-write */
	HWBP_RACE_SKIP_ATOMIC,       /* atomic without a lock prefix (XCHG) */
	HWBP_RACE_SKIP_TLS,          /* thread-local (through the thread pointer) */
	HWBP_RACE_SKIP_STRING,       /* a string instruction (a range in registers) */
	HWBP_RACE_SKIP_BRANCH,       /* a code pointer read to jump or call through */
	HWBP_RACE_SKIP_UNWATCHABLE,  /* wider than 16 bytes, a gather, a kind not known */
	HWBP_RACE_SKIPS
};

/* hwbp_race_skip_name - "stack", "locked", "atomic", "thread-local",
 * "string", "branch", "unwatchable"; NULL past the last.  No error.
 * Context: any. */
const char *hwbp_race_skip_name(unsigned reason);

/* How a run went.  Counts of accesses caught are before deduplication. */
struct hwbp_race_stats {
	uint64_t seed;                /* the random choice's seed (option "seed") */
	unsigned objects;             /* objects whose code was sampled */
	uint64_t functions;           /* functions walked */
	uint64_t instructions;        /* instructions decoded in them */
	uint64_t candidates;          /* memory accesses that may race: sampled at random */
	uint64_t skipped[HWBP_RACE_SKIPS];   /* left out, by reason */
	uint64_t unsized;             /* functions of unknown size: not walked */
	uint64_t traps;               /* code traps armed */
	uint64_t samples;             /* taken: a watch armed in the other threads, held */
	uint64_t passed;              /* taken while another sample ran, or not decoded */
	uint64_t alone;               /* taken with no other thread to race with */
	uint64_t synced;              /* taken at an address an atomic was seen at */
	uint64_t conflicts;           /* conflicting accesses caught (races) */
	uint64_t unseen;              /* values changed with no access caught */
	uint64_t atomic;              /* accesses caught made by atomic instructions */
	uint64_t atomic_objects;      /* samples and accesses caught that were atomic
				       * operations in plain instructions: on an object
				       * DWARF types atomic (C11 _Atomic, C++ std::atomic),
				       * or in a std::atomic member function: not races */
	uint64_t undecoded;           /* accesses caught whose instruction did not decode:
				       * not reported */
	uint64_t threads;             /* threads seen */
	uint64_t held_ns;             /* time sampled threads were held, in total */
};

/* A caller of a race's access: the return address into it, and its
 * names as struct hwbp_race_access gives them (the line: the call's). */
struct hwbp_race_frame {
	uint64_t ip;                  /* the return address */
	const char *func;             /* demangled, NULL: none */
	uint64_t func_off;
	const char *object;
	const char *file;
	unsigned line;                /* 0: none */
};

/* One side of a race.  Strings are the run's, alive until
 * hwbp_race_free(); NULL when not known. */
struct hwbp_race_access {
	uint64_t ip;                  /* the instruction (its first byte); 0: not known */
	uint64_t addr;                /* the bytes it accessed ... */
	uint64_t size;                /* ... (0: not known) */
	unsigned kind;                /* HWBP_R, HWBP_W, both (read-modify-write); 0: not known */
	uint32_t tid;                 /* the thread (a Linux TID) */
	const char *func;             /* the function holding ip (demangled) */
	uint64_t func_off;            /* ip - the function's start */
	const char *object;           /* the file holding ip (its last path component) */
	const char *file;             /* the source file (DWARF line table) */
	unsigned line;                /* its line, 0: none */
	const struct hwbp_race_frame *callers;   /* innermost first, as unwound when
						  * the race was first caught */
	unsigned ncallers;            /* 0: none (option "stack" 0, no unwinding) */
};

/* A race, deduplicated by its pair of instructions. */
struct hwbp_race_report {
	bool unseen;                  /* the bytes changed during the delay and no access was
				       * caught: @b is not known */
	uint64_t count;               /* how often it was caught */
	uint64_t addr, len;           /* the watched bytes: @a's access */
	const char *var;              /* the data symbol holding addr, NULL: none */
	uint64_t var_off;             /* addr - its start */
	const char *expr;             /* the object at addr as its DWARF type names it:
				       * "cfg.limits[2]" (var then each member or index
				       * down to the innermost holding addr), NULL: no
				       * symbol, or no DWARF types it */
	const char *where;            /* with no symbol: the mapping ("[heap]", "anonymous"...) */
	uint64_t before, after;       /* unseen: the first 8 bytes before and after the delay
				       * (little-endian in the low bytes) */
	struct hwbp_race_access a;    /* the sampled access (the thread that was held) */
	struct hwbp_race_access b;    /* the other access, caught by the watch */
};

/* hwbp_race_new - an empty run.  Errors (NULL, *err when non-NULL):
 * -ENOMEM.  Context: allocates; any thread. */
struct hwbp_race *hwbp_race_new(int *err);

/* hwbp_race_free - free the run and its reports (nothing is traced once
 * hwbp_race_run() returned).  NULL: nothing.  No errors.  Context: the
 * run's thread; not while hwbp_race_run() runs, not in a signal handler. */
void hwbp_race_free(struct hwbp_race *r);

/*
 * hwbp_race_option - set option @name (without dashes) to @value, parsed
 * as the command line spells it: "pid" (a process to attach to, instead
 * of a command), "rate" (code traps armed per second, up to 3 decimals,
 * 0.001..100000: 0.5 is one trap every 2 s; default
 * HWBP_RACE_RATE_DEFAULT), "delay" (how long a sampled thread is held,
 * milliseconds with up to 3 decimals, 0.001..1000, default
 * HWBP_RACE_DELAY_MS_DEFAULT), "duration" (seconds, up to 3 decimals:
 * the sampling stops then; a started command gets SIGTERM, an attached
 * process is let go), "seed" (the random choice's, a number; default from
 * the clock), "stack" (callers given per side of a report, 0..16,
 * default 8; DWARF call frame information, frame pointers without libdw),
 * "only" and "exclude" (an object by its file's last path
 * component, libfoo.so.1: sample its code, or not; "OBJ:GLOB": only its
 * functions that match the fnmatch(3) pattern, by the symbol's name or
 * its demangled one; each up to 16 times; without "only", the
 * executable's code); "kernel" (any value: the running kernel instead
 * of a process, through hwbp_ksym.ko; "only" then names kernel functions
 * or loaded modules, commas allowed; "delay" at most 0.5 ms, default
 * HWBP_RACE_KERNEL_DELAY_US_DEFAULT us, and rate times delay at most
 * 50 ms a second; "duration" default 10 s).
 * Errors (message set, input): -EINVAL (NULL, unknown option, a bad
 * value), -ERANGE (a number out of its range), -ENOSPC (a 17th "only" or
 * "exclude"), -EBUSY (given twice, or the run ran).
 * Context: the run's thread, before it runs.
 */
#define HWBP_RACE_RATE_DEFAULT 10
#define HWBP_RACE_DELAY_MS_DEFAULT 4
#define HWBP_RACE_KERNEL_DELAY_US_DEFAULT 200
int hwbp_race_option(struct hwbp_race *r, const char *name, const char *value);

/*
 * hwbp_race_command - the command to start (-- CMD [ARGS]): @argv
 * NULL-terminated, @argv[0] searched in PATH; it is held at its entry
 * point while its code is walked.  Errors (message set, input): -EINVAL
 * (NULL or empty; with option "pid"), -EBUSY.  Context: the run's
 * thread, before it runs.
 */
int hwbp_race_command(struct hwbp_race *r, char *const argv[]);

/*
 * hwbp_race_diag - where notes go (a line each, @prefix before it; NULL
 * @f: none, the default).  Errors: -EINVAL (NULL @r), -EBUSY.
 * Context: the run's thread, before it runs.
 */
int hwbp_race_diag(struct hwbp_race *r, FILE *f, const char *prefix);

/*
 * hwbp_race_run - start the command (or attach to the process), walk its
 * code, sample until it ends, the duration is over or hwbp_race_stop()
 * is called, and keep the races found (hwbp_race_report()).  An attached
 * process is left as it was: no trap left in its code, no debug register
 * armed, every thread running.  The caller's SIGCHLD is blocked while it
 * runs (its thread's mask is restored at the end).  Once per run.
 * Errors (one line: hwbp_race_message, input set for a usage error):
 * -EINVAL (no command and no pid), -ENODEV (the debug registers do not
 * fire on this machine), -EOPNOTSUPP (not Linux, a CPU without a decoder:
 * x86-64 and arm64; a build without Capstone), -EPERM (ptrace not permitted),
 * -ESRCH (no such process), the command's exec errors (-ENOENT,
 * -EACCES), -ECHILD (it ended before its entry point), -ENOENT (nothing
 * to sample: no function symbols, no memory access; input when --only
 * names no mapped object), -ENOMEM, -EBUSY (ran).  With option
 * "kernel" (root; hwbp_ksym.ko loaded): -EINVAL (no "only"), -ERANGE
 * (the delay's bound), -ENOENT (input: no kernel function or loaded
 * module of that name; or nothing to sample; or the module gone
 * mid-run), -ENODEV (hwbp_ksym.ko not loaded), -EACCES (kcore
 * unreadable), -ECHILD (one CPU online), -EOPNOTSUPP (not x86-64), the
 * module's errors; every kprobe and breakpoint it set is unregistered on
 * every path.
 * Context: the run's thread (it becomes the tracer); not in a signal
 * handler.
 */
int hwbp_race_run(struct hwbp_race *r);

/*
 * hwbp_race_stop - make a running hwbp_race_run() end soon: no more
 * samples, the one in progress closed, every thread let go; a started
 * command is sent @sig (0: nothing, e.g. the terminal sent it already)
 * and waited for.  A second call kills a started command.  No error.
 * Context: async-signal-safe (install the handler without SA_RESTART);
 * any thread.
 */
void hwbp_race_stop(struct hwbp_race *r, int sig);

/* hwbp_race_message - the one-line reason of the last error ("" if none);
 * *input (may be NULL) set when it was the caller's input.  No errors.
 * Context: the run's thread. */
const char *hwbp_race_message(const struct hwbp_race *r, bool *input);

/* hwbp_race_wait_status - true, with *@status (may be NULL) the wait
 * status of the command the run started, once it ended; false otherwise.
 * No error.  Context: the run's thread. */
bool hwbp_race_wait_status(const struct hwbp_race *r, int *status);

/*
 * hwbp_race_report - the @i-th race found (in the order first caught)
 * into *@out, after hwbp_race_run().  Errors: -EINVAL (NULL), -ENOENT
 * (@i past the last: hwbp_race_count() of them).  Context: the run's
 * thread; allocates once (the names).
 */
int hwbp_race_report(struct hwbp_race *r, unsigned i, struct hwbp_race_report *out);

/* hwbp_race_count - races found so far (0 for NULL).  No error.
 * Context: the run's thread. */
unsigned hwbp_race_count(const struct hwbp_race *r);

/* hwbp_race_stats - how the run went, into *@out.  Errors: -EINVAL
 * (NULL).  Context: the run's thread. */
int hwbp_race_stats(const struct hwbp_race *r, struct hwbp_race_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* HWBP_TRACE_H */
