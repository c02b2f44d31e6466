/* SPDX-License-Identifier: MIT */
/*
 * The x86 harness's instructions run one at a time (step.c): any line
 * while RFLAGS.TF is on (`step on`), INT3, INT1, STI, MOV from and to DRn,
 * and MOV SS with the line after it, as generated code whose every
 * exception the handler attributes to the instruction it belongs to.
 */
#ifndef HWBP_X86_STEP_H
#define HWBP_X86_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include "harness.h"

/* The frame boot.S's vectors build (kernel.c's handler gets it). */
struct x86_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

/* This CPU's RFLAGS.TF for the lines that follow (`step on|off`, `set tf`). */
void x86_step_set_tf(bool on);
bool x86_step_tf(void);

/* A MOV SS line held for the next line. */
bool x86_step_holding(void);
/* TF on, or a MOV SS held: every instruction line goes through step.c. */
bool x86_step_busy(void);
/* Does this line go through step.c (TF on, a MOV SS pending, or an
 * instruction only step.c runs)? */
bool x86_step_wants(const struct hwbp_sim_access *a);

/*
 * Run one line: an access (@a), or a MOV from (@get_n >= 0, @set false) or
 * to (@set) DR @get_n with @value, at ring @cpl, with @de = CR4.DE.  0 and
 * *res; 1 when the line is a MOV SS held for the next one (its result
 * comes from x86_step_held()); -EOPNOTSUPP (harness_why says why).
 */
int x86_step_run(const struct hwbp_sim_access *a, int dr, bool set, uint64_t value,
		 unsigned cpl, struct hwbp_sim_result *res);
/* The result of the MOV SS line the last x86_step_run() ran with its own. */
void x86_step_held(struct hwbp_sim_result *res);
/* `resume` after a stepped execute fault: the step trap that followed. */
bool x86_step_resume(struct hwbp_sim_result *res);
/* A new file: nothing held, TF off, the data arena's stores forgotten. */
void x86_step_reset(void);
/* A store line made (the bytes a MOV SS may not load as a selector). */
void x86_step_stored(uint64_t addr, uint64_t len);

/* From the exception handler: an exception of step.c's instruction
 * (handled: true), or not its business. */
bool x86_step_exception(struct x86_frame *f);

#endif /* HWBP_X86_STEP_H */
