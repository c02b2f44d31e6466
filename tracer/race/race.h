/* SPDX-License-Identifier: MIT */
/*
 * The race detector, the interface of race/ (internal): data races found
 * in an unmodified user process by DataCollider's method (Erickson et
 * al., OSDI 2010).  A code trap (the arch's trap instruction, unlimited
 * in number) sits on a random few of the program's memory-access
 * instructions; when a thread reaches one, the access it is about to
 * make is decoded from its registers, a hardware watch on those bytes is
 * armed in every other thread (a read: W, a write: RW), and the thread is
 * held for a short delay while the others run.  Another thread's
 * conflicting access during the delay traps in the act: a race, with both
 * instructions known.  The bytes are compared before and after the delay
 * too: a change no watch saw (an unseen writer) is reported as well.
 * Nothing is reported without a second access the hardware caught, or a
 * changed value: no false positive by construction, whatever the
 * locking discipline, which the detector never needs to know.
 *
 * Its parts:
 *   candidates.c  the instructions that may race, per object, and what
 *                 was left out by reason (insn/'s classes);
 *   pairs.c       races deduplicated by their pair of instructions;
 *   sampler.c     the random choice and the budget of traps;
 *   setup.c, engine.c, threads.c, window.c  the run: its start and end,
 *                 the ptrace loop, the threads, a sample (Linux; elsewhere
 *                 run_none.c says EOPNOTSUPP);
 *   names.c       what a report names: function, line, variable;
 *   api.c         <hwbp/trace.h>'s hwbp_race_*().
 * A room of the tracer at the backends' rank (docs/design.md): it uses
 * session/backend.h's folders and backends/linux/ (seized tracees, code
 * traps, the debug-register glue), no backend's own header.
 */
#ifndef HWBP_TRACER_RACE_H
#define HWBP_TRACER_RACE_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include <hwbp/trace.h>

#include "session/backend.h"

struct hwbpi_typer;

/* ---- candidates.c --------------------------------------------------- */

#define HWBPI_RACE_MAX_OBJS 16

/* Which objects' code is sampled: by the last component of the file's
 * path (libfoo.so.1); with no --only, the executable (@exe) alone.  An
 * entry "OBJ:GLOB" chooses (or, in @exclude, leaves out) only the
 * functions of OBJ that match GLOB (fnmatch(3), on the symbol's name or
 * its demangled one). */
struct hwbpi_race_sel {
	const char *only[HWBPI_RACE_MAX_OBJS];
	unsigned nonly;
	const char *exclude[HWBPI_RACE_MAX_OBJS];
	unsigned nexclude;
	const char *exe;
};

/* Whether @sel chooses the object at @path (a path or a bare name: its
 * last component is compared).  No error; no system call. */
bool hwbpi_race_chosen(const struct hwbpi_race_sel *sel, const char *path);

/* Whether @sel chooses function @func of the object at @path (chosen by
 * hwbpi_race_chosen()).  No error; no system call. */
bool hwbpi_race_func_chosen(const struct hwbpi_race_sel *sel, const char *path, const char *func);

/* The candidates: the PLAIN instructions of the chosen objects' functions,
 * ascending, and what the walk left out. */
struct hwbpi_race_cands {
	uint64_t *ip;
	uint8_t *state;              /* per candidate: HWBPI_RACE_TRAP_* bits */
	size_t n, cap;
	uint64_t skipped[HWBPI_INSN_NCLASS];   /* instructions by class (not NOMEM/PLAIN) */
	uint64_t functions;          /* walked */
	uint64_t instructions;       /* decoded in them */
	uint64_t unsized;            /* functions of unknown size: not walked */
	uint64_t cut;                /* functions whose walk stopped at bytes that are
				      * no instruction (the rest not walked) */
	unsigned objects;            /* objects chosen */
	char first_obj[64];          /* the first of them (messages) */
};
#define HWBPI_RACE_TRAP_ON 1u        /* a trap is planted there now */
#define HWBPI_RACE_TRAP_EVER 2u      /* one was, once: a thread may still stop on it */
#define HWBPI_RACE_CAND_ATOMIC 4u    /* an atomic operation (atomic.c): never again */

/* Reads @len bytes of code at @addr into @buf: 0 or -errno. */
typedef int (*hwbpi_race_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

/*
 * hwbpi_race_candidates - walk every function of finished table @syms
 * (a symbol with a size) in an object @sel chooses, its code read through
 * @rd, with decoder @a/@d (scan), into *@out (zeroed first): the PLAIN
 * instructions, and the others counted by class.  Functions are walked
 * once each (aliases share a start).
 * Errors: -EINVAL (NULL; @a without scan), -ENOMEM; a function whose
 * code cannot be read is skipped (counted in unsized).
 * Context: allocates; the decoder is the caller's.
 */
int hwbpi_race_candidates(const struct hwbp_symtab *syms, const struct hwbpi_race_sel *sel,
			  const struct hwbpi_insn_arch *a, struct hwbpi_insn_dec *d,
			  hwbpi_race_read_fn rd, void *rarg, struct hwbpi_race_cands *out);
void hwbpi_race_cands_free(struct hwbpi_race_cands *c);

/* One function @f walked into @c (hwbpi_race_candidates()' step, for a
 * caller that chooses functions itself: the kernel's): its code read
 * through @rd into *@buf (grown to *@bufn), PLAIN instructions appended
 * unsorted.  Errors: -ENOMEM, scan's; unreadable or unsized: counted. */
int hwbpi_race_walk_func(const struct hwbp_sym *f, const struct hwbpi_insn_arch *a,
			 struct hwbpi_insn_dec *d, hwbpi_race_read_fn rd, void *rarg,
			 uint8_t **buf, size_t *bufn, struct hwbpi_race_cands *c);
/* After the walks: @c sorted, each once, its states allocated; on @ret
 * or -ENOMEM @c freed.  Returns @ret or -ENOMEM. */
int hwbpi_race_cands_finish(struct hwbpi_race_cands *c, int ret);

/*
 * hwbpi_race_linear - the access of the instruction at @ip (@code: @n
 * bytes from it) as what a kernel module can compute from a kprobe's
 * registers without a decoder: @out->disp + coef[0] * reg[0] + coef[1] *
 * reg[1] (DWARF numbers 0..HWBPI_RACE_LINEAR_REGS-1, -1: none), its size
 * and kind.  Found with @a's at_pc alone: the address with every register
 * 0, then with each one alone 1 (a PC-relative address comes out
 * resolved: at_pc adds the instruction's own address).
 * Errors: -EINVAL (NULL), -ENOENT (not one access, an address at_pc
 * cannot tell, more than two registers, wider than
 * HWBPI_RACE_LINEAR_SIZE_MAX).  Context: no allocation; the decoder is
 * the caller's.
 */
#define HWBPI_RACE_LINEAR_REGS 16
#define HWBPI_RACE_LINEAR_SIZE_MAX 64
struct hwbpi_race_linear {
	uint64_t disp;
	int64_t coef[2];
	int reg[2];
	unsigned size, kind;
};
int hwbpi_race_linear(const struct hwbpi_insn_arch *a, struct hwbpi_insn_dec *d,
		      const uint8_t *code, size_t n, uint64_t ip, struct hwbpi_race_linear *out);

/* The candidate at @ip (index), or -1.  O(log n); no error. */
long hwbpi_race_cand_find(const struct hwbpi_race_cands *c, uint64_t ip);

/* ---- pairs.c -------------------------------------------------------- */

/* One side of a race: an access and who made it. */
struct hwbpi_race_side {
	uint64_t ip;                 /* its instruction's first byte; 0: not known */
	uint64_t addr, size;         /* what it accessed (size 0: not known) */
	unsigned kind;               /* HWBP_R, HWBP_W, both; 0: not known */
	pid_t tid;
};

/* The callers a report gives each side at most (option "stack"). */
#define HWBPI_RACE_FRAMES 16
#define HWBPI_RACE_FRAMES_DEFAULT 8

/* A race: the sampled access (a), the one caught (b; unseen: no b, the
 * bytes changed from before to after).  @count: how often. */
struct hwbpi_race_pair {
	struct hwbpi_race_side a, b;
	bool unseen;
	uint64_t lo, len;            /* the watched bytes */
	uint64_t before, after;      /* unseen: their first 8 before and after the delay */
	uint64_t count;
	char where[64];              /* what holds lo when no symbol does ("[heap]"...) */
	char expr[96];               /* lo's typed name (atomic.c), made for the report */
	/* the callers of a's and of b's function when first caught, innermost
	 * first (return addresses) */
	uint64_t stack[2][HWBPI_RACE_FRAMES];
	unsigned nstack[2];
};

struct hwbpi_race_pairs {
	struct hwbpi_race_pair *p;
	size_t n, cap;
};

/*
 * hwbpi_race_pairs_add - one observation @obs: a race already seen
 * between the same two instructions (either way round: A sampled and B
 * caught is B sampled and A caught; an unseen writer is its one
 * instruction's) counts once more, else it is added with count 1.
 * Returns its index; -ENOMEM, -EINVAL.  Context: allocates when new.
 */
long hwbpi_race_pairs_add(struct hwbpi_race_pairs *t, const struct hwbpi_race_pair *obs);
void hwbpi_race_pairs_free(struct hwbpi_race_pairs *t);

/* ---- sampler.c ------------------------------------------------------ */

/* A small random generator (SplitMix64): the choice of traps, seeded so
 * that a run can be repeated (--seed). */
struct hwbpi_race_rng {
	uint64_t s;
};
void hwbpi_race_rng_seed(struct hwbpi_race_rng *r, uint64_t seed);
uint64_t hwbpi_race_rand(struct hwbpi_race_rng *r);
/* Uniform in [0, @n), @n > 0 (0 for @n 0). */
uint64_t hwbpi_race_rand_below(struct hwbpi_race_rng *r, uint64_t n);

/*
 * The budget of traps: @millirate thousandths of a trap armed per second
 * (--rate 0.5: 500), as a bucket that fills with time up to one second's
 * worth, and at least one trap (the first second's are there at the
 * start, so that a short program is sampled from its first
 * instructions).  hwbpi_race_budget_take(): how many may be armed at
 * @now_ns, at most @max (they are taken; the others stay).  No error.
 */
struct hwbpi_race_budget {
	uint64_t millirate;
	uint64_t last_ns;            /* the time the bucket is filled up to */
	uint64_t milli;              /* thousandths of a trap in the bucket */
};
void hwbpi_race_budget_init(struct hwbpi_race_budget *b, uint64_t millirate, uint64_t now_ns);
unsigned hwbpi_race_budget_take(struct hwbpi_race_budget *b, uint64_t now_ns, unsigned max);
/* The time from @now_ns until one more trap may be armed (ns). */
uint64_t hwbpi_race_budget_wait(const struct hwbpi_race_budget *b, uint64_t now_ns);

/*
 * hwbpi_race_pick - a candidate without a trap now, at random: one try
 * at a random index, then the next ones round the table; -1 when every
 * candidate has one.  No error.
 */
long hwbpi_race_pick(const struct hwbpi_race_cands *c, struct hwbpi_race_rng *r);

/* ---- the run (engine.c: Linux; elsewhere -EOPNOTSUPP) ---------------- */

/* Counts of a run (<hwbp/trace.h> struct hwbp_race_stats has the same
 * meaning, field by field). */
struct hwbpi_race_counts {
	uint64_t traps, samples, passed, alone, synced_skips, conflicts, unseen, atomic,
		 atomic_objects, undecoded, threads, held_ns;
};

struct hwbpi_race_run {
	/* given */
	char *const *argv;           /* -- CMD, or NULL */
	pid_t pid;                   /* -p PID, 0 */
	uint64_t millirate;          /* thousandths of a trap armed per second */
	uint64_t delay_ns;           /* how long a sampled thread is held */
	uint64_t duration_ns;        /* 0: until the process ends */
	uint64_t seed;
	unsigned stack_depth;        /* callers per side, 0..HWBPI_RACE_FRAMES */
	struct hwbpi_race_sel sel;
	void (*note)(void *arg, const char *line);   /* one line for the user, or NULL */
	void *note_arg;
	volatile sig_atomic_t stop;  /* asked to stop (hwbp_race_stop()) */
	volatile sig_atomic_t stop_sig;
	bool kernel;                 /* --kernel: the running kernel, through
				      * hwbp_ksym.ko (kernel.c) */
	/* made by the run, freed by hwbpi_race_run_fini() */
	struct hwbp_symtab *syms;
	struct hwbpi_dwarf *dwarf;
	struct hwbpi_typer *typer;   /* variables' types (typed.c), made when first asked */
	const struct hwbp_sym **ptrs;   /* the pointer-sized globals of the objects
					 * sampled (typed.c), made when first asked */
	size_t nptrs;
	bool ptrs_made;
	struct hwbpi_race_cands cands;
	struct hwbpi_race_pairs pairs;
	struct hwbpi_race_counts counts;
	bool have_status;
	int status;                  /* a started command's wait status */
	char exe[256];               /* the executable's name (last component) */
	char msg[512];
	bool input;                  /* the error was the caller's input */
};

/*
 * hwbpi_race_run - start @r->argv (held at its entry point) or attach to
 * @r->pid, load its symbols, choose the candidates, and sample until it
 * ends, the duration is over or a stop is asked; races into r->pairs.
 * An attached process is left as it was (no trap, no debug register,
 * running); a started command runs to its end.
 * Errors (r->msg one line): -EOPNOTSUPP (no decoder for this CPU, a build
 * without Capstone, no Linux debug-register glue), -ENODEV (the debug
 * registers do not fire here), -EPERM, -ESRCH, -ENOENT/-EACCES (the
 * command), -ECHILD, -ENOMEM, -ENOENT (no candidate instruction: nothing
 * to sample; input set when --only chose no object).
 * Context: the caller's thread owns the tracees; r->stop may be set from
 * a signal handler (install it without SA_RESTART).
 */
int hwbpi_race_run(struct hwbpi_race_run *r);

/*
 * hwbpi_race_kernel_run - --kernel: the functions --only names (or every
 * function of a module it names) walked in /proc/kcore, their candidate
 * accesses given to hwbp_ksym.ko as linear forms of registers, sampled
 * there for the duration (default 10 s) or until a stop; races into
 * r->pairs.  Every kprobe and breakpoint is unregistered on every path
 * ("clear"; the module's exit does it when it goes away mid-run).
 * Errors (r->msg one line): -EINVAL/-ERANGE (input: no --only, a delay
 * over 0.5 ms or rate * delay over 50 ms a second), -ENOENT (input: no
 * function or loaded module of that name; or nothing to sample), -ENODEV
 * (hwbp_ksym.ko not loaded), -EACCES (kallsyms or kcore unreadable),
 * -EOPNOTSUPP (no decoder; not x86_64: the module's race side), -ECHILD
 * (one CPU online), the module's write errors, -ENOMEM.
 * Context: root; r->stop may be set from a signal handler.
 */
int hwbpi_race_kernel_run(struct hwbpi_race_run *r);

/* ---- atomic.c ------------------------------------------------------- */

/* Whether the instruction at @ip is an atomic operation though its bytes
 * are a plain load or store: code of a C++ std::atomic class's member
 * function, or inlined from one (DWARF).  No error: false when unknown. */
bool hwbpi_race_atomic_code(const struct hwbpi_race_run *r, uint64_t ip);

/* ---- typed.c -------------------------------------------------------- */

/* The farthest a global pointer may point before the bytes it is asked
 * to name (a struct's size, at most). */
#define HWBPI_RACE_OBJ_MAX (UINT64_C(1) << 20)

/*
 * hwbpi_race_typed - the typed name of the byte at @addr into @out (@n
 * bytes) and *@atomic: an object on the way to that byte is atomic (C11
 * _Atomic, C++ std::atomic): no access to it races.  A data symbol's
 * bytes: the symbol, then its DWARF type walked down ("cfg.limits[2].hi";
 * just the symbol when it is a scalar).  Other bytes, when @rd reads the
 * process's memory (NULL: it is gone): a pointer-sized global of the
 * sampled objects whose value points at most its pointee's size before
 * them, as C names it ("table->rows[3].count").  Errors: -ENOENT (no
 * symbol, no pointer, or no DWARF types it; *@atomic false), -ENOMEM,
 * -EINVAL.  Context: the tracer's thread; the process stopped or gone.
 */
int hwbpi_race_typed(struct hwbpi_race_run *r, uint64_t addr, hwbpi_race_read_fn rd, void *rarg,
		     char *out, size_t n, bool *atomic);

/* ---- names.c -------------------------------------------------------- */

/* What a report names of run @r (after it): the function holding @ip
 * (*@off past its start; NULL: none), its object, its source line (NULL
 * file: none); the data symbol holding @addr (NULL: none).  Borrowed
 * strings, alive as long as @r's table.  No error. */
const char *hwbpi_race_func(const struct hwbpi_race_run *r, uint64_t ip, uint64_t *off);
const char *hwbpi_race_object(const struct hwbpi_race_run *r, uint64_t ip);
void hwbpi_race_line(const struct hwbpi_race_run *r, uint64_t ip, const char **file,
		     unsigned *line);
const char *hwbpi_race_var(const struct hwbpi_race_run *r, uint64_t addr, uint64_t *off);

/* Where @addr lies in process @pid when no symbol holds it: the mapping's
 * name in /proc/PID/maps ("[heap]", "[stack]", a file's last component),
 * "anonymous", or "" (not mapped, or the maps unreadable), into @buf. */
void hwbpi_race_where(pid_t pid, uint64_t addr, char *buf, size_t n);

#endif /* HWBP_TRACER_RACE_H */
