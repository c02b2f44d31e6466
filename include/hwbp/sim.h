/* SPDX-License-Identifier: MIT */
/*
 * hwbp simulator: executes debug-register state as the CPU would.
 *
 * A simulator is a set of CPUs of one model, each with its own register
 * file and execution state.  It takes register writes and accesses (read,
 * write, execute, I/O, cache-block zero) and produces what the CPU would:
 * an exception or none, its class and timing, the status registers, the
 * reported address, and register side effects.  Two profiles: the
 * architecture manuals (sdm) and what QEMU does (qemu).
 *
 * Context: a simulator is ordinary user-space code.  hwbp_sim_new() and
 * the scenario calls allocate and hwbp_sim_free() frees; the other calls
 * allocate nothing and make no system call (the scenario calls write to
 * the FILE they are given, the _file ones read theirs and may make a
 * tmpfile()).  No
 * call locks: the caller serialises every call on one simulator (including
 * those that reach it through hwbp_sim_glue()); distinct simulators are
 * independent.  Errors are negative errno values.
 *
 * (design.md and scenarios.md are installed with hwbp in share/doc/hwbp/.)
 */
#ifndef HWBP_SIM_H
#define HWBP_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hwbp/hwbp.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HWBP_SIM_MAX_CPUS 8

enum hwbp_sim_profile {
	HWBP_SIM_SDM = 0,   /* the architecture manuals */
	HWBP_SIM_QEMU = 1,  /* QEMU as CI installs it (10.0) */
	HWBP_SIM_LINUX = 2, /* the manuals as Linux's ptrace shows them to a
	                       traced user process (the native runner's) */
};

enum hwbp_sim_class {
	HWBP_SIM_NONE = 0,
	HWBP_SIM_DB,          /* x86 #DB */
	HWBP_SIM_UD,          /* x86 #UD */
	HWBP_SIM_GP,          /* x86 #GP */
	HWBP_SIM_WATCHPOINT,  /* arm64 watchpoint exception */
	HWBP_SIM_BREAKPOINT,  /* arm64 breakpoint exception */
	HWBP_SIM_DSI,         /* powerpc data storage interrupt */
	HWBP_SIM_TRACE,       /* powerpc trace interrupt (CIABR, MSR.SE/BE) */
	HWBP_SIM_BP,          /* x86 #BP (INT3) */
	HWBP_SIM_STEP,        /* arm64 software step exception */
	HWBP_SIM_BRK,         /* arm64 BRK instruction exception */
	HWBP_SIM_PROGRAM,     /* powerpc program interrupt (trap, privileged) */
};

enum hwbp_sim_op {
	HWBP_SIM_READ = 1,
	HWBP_SIM_WRITE = 2,
	HWBP_SIM_EXEC = 3,
	HWBP_SIM_IO = 4,      /* x86 in/out: addr is the port */
	HWBP_SIM_ZERO = 5,    /* arm64 DC ZVA / powerpc dcbz of addr's block */
	HWBP_SIM_SWBP = 6,    /* the arch's breakpoint instruction: x86 INT3,
	                         arm64 BRK #size (the immediate), powerpc trap */
	HWBP_SIM_ICEBP = 7,   /* x86 INT1 (ICEBP, opcode F1) */
	HWBP_SIM_MOVSS = 8,   /* x86 MOV SS: a 2-byte load at addr (size 2),
	                         or from a register (size 0) */
	HWBP_SIM_STI = 9,     /* x86 STI */
};

/* One access: 16 bytes, so a stream of them is cache friendly. */
struct hwbp_sim_access {
	uint64_t addr;
	uint32_t size;        /* 1..64 (ignored for exec and zero) */
	uint32_t op;          /* enum hwbp_sim_op */
};

#define HWBP_SIM_MAX_STATUS 4

struct hwbp_sim_result {
	enum hwbp_sim_class cls;
	enum hwbp_timing timing;     /* before: memory unchanged; after: done */
	uint32_t data_slots;         /* hardware slots the status names */
	uint32_t inst_slots;
	unsigned nstatus;            /* status registers, in emit order */
	struct hwbp_reg_nv status[HWBP_SIM_MAX_STATUS];
	uint64_t addr;               /* reported data address */
	bool addr_known;
	struct hwbp_status st;       /* what a handler would pass to hwbp_decode() */
};

struct hwbp_sim;

/*
 * hwbp_sim_new - a simulator of @ncpus CPUs of model @cpu, at reset.
 * Errors (in *err when non-NULL; returns NULL): -EINVAL (NULL cpu, ncpus 0
 * or above HWBP_SIM_MAX_CPUS, bad profile), -ENOMEM.
 * Context: allocates; any thread (distinct simulators are independent).
 */
struct hwbp_sim *hwbp_sim_new(const struct hwbp_cpu *cpu, enum hwbp_sim_profile profile,
			      unsigned ncpus, int *err);
/* hwbp_sim_free - free @sim (NULL: nothing).  No errors.
 * Context: no other call on @sim at the same time, nor after. */
void hwbp_sim_free(struct hwbp_sim *sim);

/*
 * hwbp_sim_set_reg - write a register by name (the names `set` lines use,
 * scenarios.md).  The write itself may raise an exception (x86
 * DR7.GD): then *res says so and the register is not written.
 * Errors: -EINVAL (bad cpu, NULL), -ENOENT (no such register on this CPU).
 * Context: the caller serialises calls on one simulator; allocates nothing.
 */
int hwbp_sim_set_reg(struct hwbp_sim *sim, unsigned cpu, const char *name,
		     uint64_t value, struct hwbp_sim_result *res);

/*
 * hwbp_sim_debug_ready - put simulated CPU @cpu in the state a kernel that
 * uses hardware breakpoints keeps its CPUs in, beyond the registers its
 * glue writes with each request: whatever holds debug exceptions off at
 * reset is released (arm64: the OS lock cleared and PSTATE.D = 0; x86 and
 * powerpc need nothing).  Not for scenario files, which set such state
 * themselves.  Errors: -EINVAL (NULL, bad cpu).  Context: the caller
 * serialises calls on one simulator.
 */
int hwbp_sim_debug_ready(struct hwbp_sim *sim, unsigned cpu);

/* hwbp_sim_get_reg - read a register by name, as a debugger peeks at it
 * (no instruction runs).  Errors: -EINVAL (NULL, bad cpu), -ENOENT (no
 * such register).  Context: the caller serialises calls on one
 * simulator; allocates nothing. */
int hwbp_sim_get_reg(const struct hwbp_sim *sim, unsigned cpu, const char *name,
		     uint64_t *value);

/*
 * hwbp_sim_get_insn - read register @name with the instruction a kernel
 * would (x86 MOV from DRn, arm64 MRS, powerpc mfspr) on @cpu, in its
 * current mode: the instruction may fault (x86 general detect, #UD of
 * DR4/DR5 with CR4.DE; an unprivileged read) and is single-stepped like
 * any other.  Without an exception res->cls is HWBP_SIM_NONE and
 * res->status[0] holds the value read under @name.
 * Errors: -EINVAL (NULL, bad cpu), -ENOENT (no such register).
 * Context: the caller serialises calls on one simulator; allocates nothing.
 */
int hwbp_sim_get_insn(struct hwbp_sim *sim, unsigned cpu, const char *name,
		      struct hwbp_sim_result *res);

/*
 * hwbp_sim_mode - set execution state (el, pr, hv, cpl).
 * Errors: -EINVAL (bad cpu or value), -ENOENT (key unknown for this arch).
 * Context: the caller serialises calls on one simulator; allocates nothing.
 */
int hwbp_sim_mode(struct hwbp_sim *sim, unsigned cpu, const char *key, uint64_t value);

/*
 * hwbp_sim_access - perform one access on @cpu.  Allocation-free; accesses
 * that no armed slot is near cost one range compare.
 * Errors: -EINVAL (bad cpu, op or size).
 * Context: the caller serialises calls on one simulator.
 */
int hwbp_sim_access(struct hwbp_sim *sim, unsigned cpu, const struct hwbp_sim_access *a,
		    struct hwbp_sim_result *res);

/*
 * hwbp_sim_resume - return from the last exception as a kernel would (x86:
 * RF for an execute fault; arm64/ppc: step over the access with the
 * watchpoint disabled, then re-enable).  *res is the result of completing
 * the instruction.  Errors: -EINVAL (NULL, bad cpu).
 * Context: the caller serialises calls on one simulator; allocates nothing.
 */
int hwbp_sim_resume(struct hwbp_sim *sim, unsigned cpu, struct hwbp_sim_result *res);

/*
 * hwbp_sim_run - replay @n accesses on @cpu, resuming after each exception;
 * returns how many accesses raised one.  The benchmark's hot path.
 * No errors: 0 for a NULL argument or a bad cpu.  Context: the caller
 * serialises calls on one simulator; allocates nothing.
 */
size_t hwbp_sim_run(struct hwbp_sim *sim, unsigned cpu,
		    const struct hwbp_sim_access *a, size_t n);

/* hwbp_sim_glue - the glue through which a struct hwbp_ctx writes the
 * simulated CPUs (its calls run on the caller's thread, as direct calls);
 * NULL for NULL.  No errors.  Context: any thread; the calls made through
 * the glue are calls on @sim, which the caller serialises with the others. */
const struct hwbp_glue *hwbp_sim_glue(struct hwbp_sim *sim);

/* hwbp_sim_priv - the privilege of @cpu now (for struct hwbp_access).
 * Returns 0 for kernel, 1 for user.  Errors: -EINVAL (NULL, bad cpu).
 * Context: the caller serialises calls on one simulator. */
int hwbp_sim_priv(const struct hwbp_sim *sim, unsigned cpu);

/* hwbp_sim_class_name - "none", "db", ... "trace" (the names `expect
 * class` takes); "unknown" for a value outside enum hwbp_sim_class.  A
 * static string.  No errors.  Context: any. */
const char *hwbp_sim_class_name(enum hwbp_sim_class cls);

/*
 * The profile table: one row per way QEMU (the qemu profile) or Linux's
 * ptrace layer (the linux profile) departs from the manuals.
 *
 * hwbp_sim_quirk - row @i of the profile table, or NULL past the end (a
 *   constant table).  No errors.  Context: any.
 */
struct hwbp_sim_quirk {
	const char *id;
	const char *arch;
	const char *sdm;       /* what the manual says */
	const char *qemu;      /* what the profile's platform does instead */
	const char *evidence;  /* where that is written */
	const char *profile;   /* the profile that takes the row: "qemu", "linux" */
};
const struct hwbp_sim_quirk *hwbp_sim_quirk(unsigned i);

/* ------------------------------------------------------------------ */
/* Scenario files (.hws, the language of scenarios.md).            */
/* ------------------------------------------------------------------ */
struct hwbp_scenario_opts {
	enum hwbp_sim_profile profile;
	bool emit;        /* print canonical lines instead of checking */
	FILE *out;        /* failures, or canonical lines (NULL: silent) */
};

struct hwbp_scenario_stats {
	unsigned passed;     /* expectations that held */
	unsigned failed;     /* expectations that did not, and failed watches */
	unsigned accesses;   /* accesses executed */
};

/* The longest line of a scenario file, in bytes, without its newline. */
#define HWBP_SCENARIO_LINE_MAX 65536

/*
 * hwbp_scenario_run - parse the whole of @text (named @file in messages),
 * then run it, adding to *stats.  Failures print "FILE:LINE: expected ...
 * got ..." to opts->out; with opts->emit, one canonical line per access
 * instead ("LINE: none" or "LINE: class=.. timing=.. slots=.. REG=..
 * addr=..", slots as hwbp_decode_status() reads them), after a first line
 * "== FILE".  Addresses inside the arenas print as B+0x.. / C+0x...
 * The text is parsed twice, a line at a time (all of it, then each line
 * again as it runs): beyond @text, memory does not depend on its length.
 * Errors: -EINVAL (NULL file, opts or stats; the file does not parse, or
 *         has a NUL byte: @errbuf holds "FILE:LINE:COL: message" and
 *         nothing ran), -EOVERFLOW (a line longer than
 *         HWBP_SCENARIO_LINE_MAX bytes, never cut: @errbuf holds
 *         "FILE:LINE:COL: line longer than 65536 bytes", COL the first
 *         byte past the limit, and nothing ran), -ENOMEM.
 * Context: allocates (its simulators are its own, freed before it
 *         returns) and writes to opts->out; any thread; not in a signal
 *         handler (stdio).
 */
int hwbp_scenario_run(const char *file, const char *text, size_t len,
		      const struct hwbp_scenario_opts *opts,
		      struct hwbp_scenario_stats *stats, char *errbuf, size_t errlen);

/*
 * hwbp_scenario_run_file - hwbp_scenario_run() of the lines of @in, from
 * where it is to its end, in memory independent of the file's length (a
 * buffer of two longest lines): a first pass parses every line and runs
 * nothing, then @in is sought back (fseeko) and a second pass parses each
 * line again and runs it.  A stream that cannot seek (a pipe, a terminal)
 * is copied to a tmpfile() as the first pass reads it, and the second pass
 * reads that.  @in is not closed; it is left at its end, or where an error
 * stopped.  The file must not change while it runs (the second pass would
 * stop at a new error, after some output).
 * Errors: as hwbp_scenario_run() (-EINVAL also for a NULL @in), and the
 *         errno of a failed read of @in (-EISDIR for a directory, -EIO ...)
 *         or of the copy (tmpfile(), its writes: -ENOSPC ...), with
 *         @errbuf empty; a read error is reported by the first pass (before
 *         anything ran) unless the file changed.
 * Context: as hwbp_scenario_run(); one caller per stream @in.
 */
int hwbp_scenario_run_file(const char *file, FILE *in, const struct hwbp_scenario_opts *opts,
			   struct hwbp_scenario_stats *stats, char *errbuf, size_t errlen);

/*
 * hwbp_scenario_compile - parse @text and print its commands (not its
 * expectations) as rows of a C `struct hop` table for the bare-metal
 * harnesses of the source tree (one row per command, one per mode pair).
 * Arena addresses become B/C offsets.
 * Errors: -EINVAL (does not parse: @errbuf as for hwbp_scenario_run()),
 *         -EOVERFLOW (a line too long, as there), -ENOMEM.
 * Context: as hwbp_scenario_run().
 */
int hwbp_scenario_compile(const char *file, const char *text, size_t len, FILE *out,
			  char *errbuf, size_t errlen);

/*
 * hwbp_scenario_compile_file - hwbp_scenario_compile() of the lines of @in,
 * read as hwbp_scenario_run_file() reads them (two passes, nothing printed
 * unless all of it parses).  Errors: as hwbp_scenario_run_file() (-EINVAL
 * for a NULL @in or @out).  Context: as hwbp_scenario_run_file().
 */
int hwbp_scenario_compile_file(const char *file, FILE *in, FILE *out, char *errbuf,
			       size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* HWBP_SIM_H */
