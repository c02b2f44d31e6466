/* SPDX-License-Identifier: MIT */
/*
 * The bare-metal harness: common/runner.c executes the compiled scenario
 * table (hops.h) through the generic hwbp API and the arch's real debug
 * registers, and prints the canonical lines of `hwbp sim --emit` over the
 * serial port.  Each tests/qemu/<arch>/ provides the arch_* functions below
 * (boot, serial, exit, exception entry, glue) and links common/runner.c,
 * common/libc.c and the freestanding libhwbp sources.
 */
#ifndef HWBP_HARNESS_H
#define HWBP_HARNESS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>   /* struct hwbp_sim_result/access and enums only: no sim code */

#include "hops.h"

/* ---- provided by common/ ------------------------------------------- */

/* Run hwbp_hops[]; prints "== FILE", lines, "# skip ..." and "== END". */
int harness_main(void);

/*
 * Why the last arch_* call that returned -EOPNOTSUPP could not do it
 * (a static string), or NULL: the runner prints it in the file's
 * "# skip:" line and clears it.  Harnesses that have nothing more to say
 * than the runner's own words leave it NULL.
 */
extern const char *harness_why;

/*
 * 0 (the default): a command the harness cannot execute skips its whole
 * file ("# skip: ...").  1: the file is cut there instead ("# cut LINE:
 * ..."): the lines before it are compared, the rest is not run.  Set by a
 * harness whose refusals are a host's rules about single commands (the
 * native runner), never to hide a failure: the simulator is causal, so
 * its lines before LINE do not depend on what follows.
 */
extern int harness_cut;

/* hwbp's glue as the harnesses give it: write_regs on the CPU it names
 * (arch_write_regs through arch_on_cpu), on_cpu = arch_on_cpu. */
extern const struct hwbp_glue harness_glue;

/*
 * The on_cpu self-check (common/selftest.c): install on one CPU and on all,
 * modify, a task at switch-in, remove, each CPU's registers read back on
 * that CPU after each step.  0, -EINVAL (bad @n, no context), -EIO (a
 * CPU does not hold what hwbp wrote: the line that says which is printed).
 */
int harness_selftest(const struct hwbp_cpu *cpu, unsigned n, uint64_t arena_b);

/* Formatted output through arch_putc: %s %c %d %u %x %lu %lx %llu %llx %%. */
void h_printf(const char *fmt, ...);
void h_vprintf(const char *fmt, va_list ap);

/* ---- provided by tests/qemu/<arch>/ --------------------------------- */

void arch_putc(char c);

/* The CPUs this harness booted, at most HARNESS_MAX_CPUS (1 where it
 * brings up no other).  CPU 0 runs the runner. */
#define HARNESS_MAX_CPUS 8
unsigned arch_ncpus(void);

/*
 * Run fn(arg) on CPU @cpu and return its value (an IPI and a wait, or a
 * direct call on the CPU that calls).  Every other arch_* function acts
 * on the CPU it runs on: the runner calls them through this.  -EINVAL
 * for no such CPU.
 */
int arch_on_cpu(unsigned cpu, int (*fn)(void *), void *arg);
__attribute__((noreturn)) void arch_exit(int code);

/* Where the arenas are: 64 KiB each, 64 KiB aligned, mapped read/write
 * (B) and executable (C, every instruction slot a return instruction). */
uint64_t arch_arena_b(void);
uint64_t arch_arena_c(void);

/* The preset of the CPU this harness boots on (the on_cpu self-check's
 * model, whatever model the files name). */
const char *arch_machine_model(void);

/* NULL if this harness runs @cpu (its arch and a compatible model: e.g.
 * the x86_64 harness cannot run an i386 file), else the reason to skip. */
const char *arch_cpu_unsupported(const struct hwbp_cpu *cpu);

/* Put this CPU's debug registers and execution state back to reset (at
 * each new file, on every CPU): as hwbp_regs_reset(), x86 DR6 = 0xFFFF0FF0, arm64 MDSCR = 0,
 * OS lock as the scenario language says (set), PSTATE.D as at reset... */
void arch_reset(const struct hwbp_cpu *cpu);

/*
 * `set NAME VALUE`: write the real register.  0, or -ENOENT (no such
 * register here), or -EOPNOTSUPP (exists but the harness cannot write it:
 * the runner skips the file).  If the write itself raised an exception
 * (x86 GD), fill *res (cls, timing, status, st) as for an access.
 */
int arch_set_reg(const char *name, uint64_t value, struct hwbp_sim_result *res);

/* `mode KEY=VALUE` other than cpu=: 0, or -EOPNOTSUPP (skip the file). */
int arch_mode(const char *key, uint64_t value);

/*
 * Perform one access for real (a->addr absolute) and fill *res from what
 * the exception handler saw: cls (HWBP_SIM_NONE if nothing), timing
 * (measured: before = the access had not happened; for an instruction
 * that traps, the saved IP: at the instruction = before, at the next one =
 * after), status[] in the same
 * order and names as the simulator model prints them (x86 "dr6"; arm64
 * "esr", "far"; powerpc "dsisr", "dar" or "srr1"), st (for
 * hwbp_decode_status), addr/addr_known (as the sim model reports them).
 * The access must complete (the handler steps over it) before returning.
 * Returns 0, or -EOPNOTSUPP for an access this harness cannot make (the
 * runner skips the file).
 */
int arch_access(const struct hwbp_sim_access *a, struct hwbp_sim_result *res);

/*
 * `get NAME`: read the register with the instruction (x86 MOV from DRn,
 * arm64 MRS, powerpc mfspr) in the current mode, and fill *res as the
 * simulator's hwbp_sim_get_insn() does: the exception it raised, or
 * cls HWBP_SIM_NONE and status[0] = NAME and the value.  0, -ENOENT,
 * or -EOPNOTSUPP (the runner skips the file).
 */
int arch_get_reg(const char *name, struct hwbp_sim_result *res);

/*
 * An access may also return 1: its line is held and runs with the next
 * instruction line (x86 MOV SS, whose shadow covers the next instruction);
 * after that line the runner asks arch_held_result() for the held line's
 * result and prints both, in order.  A harness that never holds needs not
 * define it (common/runner.c has a weak one).
 */
void arch_held_result(struct hwbp_sim_result *res);

/* `resume`: what completing the last faulting instruction gives (usually
 * none: the handler already stepped over it). */
void arch_resume(struct hwbp_sim_result *res);

/* Write this CPU's debug registers from @regs (the glue hwbp_install uses;
 * only address/control registers, never x86 DR6). */
int arch_write_regs(const struct hwbp_regs *regs);

/* Read the live debug registers (for hwbp_decode_status()). */
void arch_read_regs(struct hwbp_regs *regs);

#endif /* HWBP_HARNESS_H */
