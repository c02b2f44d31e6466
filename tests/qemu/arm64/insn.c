/* SPDX-License-Identifier: MIT */
/*
 * The arm64 harness's scenario instructions (the other half of the debug
 * unit, next to harness_arm64.c's registers): each one, an access, `exec`,
 * `brk` or `get`, is entered by ERET (a64_el0_run / a64_el1_run in
 * start.S) so that PSTATE.SS at it is the scenario's (SPSR_EL1.SS), with
 * MDSCR_EL1.SS set for real only from that ERET to the first step
 * exception or the way back (software step, Arm ARM D2.12).  Here too:
 * the exception entry from every vector (a64_exception()), which records
 * the first debug exception of the instruction, steps over watchpoints
 * and breakpoints, and sends a step exception before the instruction, a
 * BRK or an UNDEFINED MRS back to the harness; the result of the
 * instruction; and arch_access(), arch_get_reg() (an MRS of a debug
 * register from a64_mrs_table) and arch_resume().  State: the CPU's
 * struct a64_pcpu (insn.h).
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "glue.h"
#include "insn.h"
#include "smp.h"

/* start.S */
extern char a64_acc_el1[];
extern char a64_acc_el0[];
extern char a64_brk_table[];
extern char a64_mrs_table[];
extern void a64_el0_run(uint64_t addr, uint64_t pc, uint64_t spsr_bits, uint64_t lr,
			uint64_t mdscr);
extern uint64_t a64_el1_run(uint64_t addr, uint64_t pc, uint64_t spsr, uint64_t unused,
			    uint64_t mdscr);

/* ------------------------------------------------------------------ */
/* The exception entry                                                 */
/* ------------------------------------------------------------------ */
/* What every vector saves (start.S). */
struct a64_frame {
	uint64_t x[31];
	uint64_t elr;
	uint64_t spsr;
	uint64_t pad;
};

static void puthex(uint64_t v)
{
	a64_puts("0x");
	for (int i = 60; i >= 0; i -= 4)
		arch_putc("0123456789abcdef"[(v >> i) & 0xf]);
}

/* The first exception of an access: what its line reports. */
static void record(struct a64_pcpu *p, uint64_t esr, uint64_t far, uint64_t elr)
{
	if (p->exc_count++ == 0) {
		p->exc_esr = esr;
		p->exc_far = far;
		p->exc_elr = elr;
	}
}

/* MDSCR_EL1.SS = 0 (in the handler: PSTATE.D = 1, nothing is stepped). */
static void ss_off(void)
{
	hwbp_a64_write_mdscr(hwbp_a64_read_mdscr() & ~1ull);
	__asm__ volatile("isb" ::: "memory");
}

/* Back to the harness instead of the instruction: from EL0 through
 * a64_el0_back, at EL1 to a64_el1_run's label (x30 of the routine). */
static uint64_t leave(struct a64_frame *f, uint64_t kind)
{
	if (kind == 8)
		return 1;
	f->elr = f->x[30];
	return 0;
}

/*
 * Called from every vector with the saved frame, on the CPU that took
 * the exception.  kind: 4 = current EL (SPx) synchronous, 8 = lower EL
 * (AArch64) synchronous, 5 = current EL (SPx) IRQ (a secondary's call,
 * smp.c), others fatal.  Returns 0 to ERET to the frame, 1 to return
 * from a64_el0_run().
 */
uint64_t a64_exception(struct a64_frame *f, uint64_t kind);
uint64_t a64_exception(struct a64_frame *f, uint64_t kind)
{
	struct a64_pcpu *p = a64_me();
	struct hwbp_status st;
	uint64_t esr, far, ec;

	if (kind == 5) {
		a64_smp_irq(&f->spsr);
		return 0;
	}
	hwbp_glue_read_status(&st);
	esr = st.u.arm64.esr;
	far = st.u.arm64.far;
	ec = (esr >> 26) & 0x3f;
	if ((kind == 4 || kind == 8) &&
	    (ec == 0x30 || ec == 0x31 || ec == 0x34 || ec == 0x35) && p->exc_armed) {
		record(p, esr, far, f->elr);
		/* Step over: disable every breakpoint/watchpoint and return to
		 * the same instruction; arch_access() re-arms afterwards.  With
		 * SPSR.SS = 1 (stepped) the instruction completes and a step
		 * exception follows: resume's result. */
		a64_disarm_all();
		return 0;
	}
	if ((kind == 4 || kind == 8) && (ec == 0x32 || ec == 0x33) && p->exc_armed) {
		/* Software step (Arm ARM D2.12): no more stepping of this code. */
		ss_off();
		p->stepped = 1;
		if (p->exc_count == 0) {
			record(p, esr, far, f->elr);
		} else if (!p->rs_valid) {
			p->rs_esr = esr;
			p->rs_valid = 1;
		}
		/* Before the instruction (ELR = it): it must not run. */
		return f->elr == p->insn ? leave(f, kind) : 0;
	}
	if ((kind == 4 || kind == 8) && (ec == 0x3c || ec == 0x00) && p->exc_armed) {
		/* BRK, or an UNDEFINED MRS from EL0: recorded, then skipped
		 * (back to the harness). */
		ss_off();
		record(p, esr, far, f->elr);
		return leave(f, kind);
	}
	if (kind == 8 && ec == 0x15)
		return 1; /* svc #0 from the EL0 stub: back to a64_el0_run's caller */
	if ((kind == 4 || kind == 8) && ec == 0x22 && p->exc_armed) {
		/* PC alignment fault of `exec` at a misaligned address: it has
		 * priority over breakpoints, no debug event, and is its own
		 * exception (not stepped).  Back to x30: the trampoline's
		 * label at EL1, the stub's `svc #0` at EL0. */
		ss_off();
		f->elr = f->x[30];
		return 0;
	}
	if ((kind == 4 || kind == 8) && (ec == 0x30 || ec == 0x31 || ec == 0x34 || ec == 0x35))
		a64_puts("\n# FATAL: debug exception outside a scenario access (does a watchpoint"
		      " or breakpoint cover the harness's own memory?)");
	a64_puts("\n# FATAL: unexpected exception on CPU ");
	arch_putc((char)('0' + a64_this_cpu()));
	a64_puts(" kind=");
	puthex(kind);
	a64_puts(" esr=");
	puthex(esr);
	a64_puts(" far=");
	puthex(far);
	a64_puts(" elr=");
	puthex(f->elr);
	a64_puts(" spsr=");
	puthex(f->spsr);
	a64_puts("\n");
	arch_exit(3);
}

/* ------------------------------------------------------------------ */
/* One instruction: arch_access, arch_resume, arch_get_reg             */
/* ------------------------------------------------------------------ */
/* Index of the access routine (16 bytes each, order of start.S). */
static int routine_index(const struct hwbp_sim_access *a)
{
	int k;

	switch (a->op) {
	case HWBP_SIM_ZERO:
		return 14;
	case HWBP_SIM_EXEC:
		return 15;
	case HWBP_SIM_READ:
	case HWBP_SIM_WRITE:
		switch (a->size) {
		case 1: k = 0; break;
		case 2: k = 1; break;
		case 4: k = 2; break;
		case 8: k = 3; break;
		case 16: k = 4; break;
		case 32: k = 5; break;
		case 64: k = 6; break;
		default: return -1;
		}
		return a->op == HWBP_SIM_READ ? k : 7 + k;
	default:
		return -1;
	}
}

/*
 * Run the scenario's instruction at @pc once, at the scenario's EL, with
 * the scenario's PSTATE.D and MDSCR_EL1 (SS included) and PSTATE.SS
 * entered through SPSR_EL1.SS; x0 = @operand.  What the exception handler
 * saw is in *p.  Returns x0 (an MRS's value at EL1).
 */
static uint64_t run_insn(struct a64_pcpu *p, uint64_t operand, uint64_t pc)
{
	uint64_t ss = p->pstate_ss ? 1ull << 21 : 0, v = 0;
	/* EL0: x30 for an `exec` target's `ret` = the exec stub's `svc #0`. */
	uint64_t lr0 = (uint64_t)a64_acc_el0 + 15 * 16 + 12;

	p->insn = pc;
	p->exc_count = 0;
	p->stepped = 0;
	p->rs_valid = 0;
	p->exc_armed = 1;
	__asm__ volatile("" ::: "memory");
	if (p->cur_el == 0)
		a64_el0_run(operand, pc, ss, lr0, p->shadow.u.arm64.mdscr);
	else
		/* EL1h, A I F masked, D as the harness runs now. */
		v = a64_el1_run(operand, pc,
				0x1c5ull | (hwbp_a64_get_daif_d() ? 0x200ull : 0) | ss, 0,
				p->shadow.u.arm64.mdscr);
	__asm__ volatile("" ::: "memory");
	p->exc_armed = 0;
	/* The debugger's return from each step exception: SPSR.SS = stepping. */
	if (p->stepped)
		p->pstate_ss = p->stepping;
	return v;
}

/* *res from the first exception of the instruction at p->insn. */
static void fill_result(struct a64_pcpu *p, struct hwbp_sim_result *res)
{
	uint64_t ec = (p->exc_esr >> 26) & 0x3f;

	switch (ec) {
	case 0x34: case 0x35: res->cls = HWBP_SIM_WATCHPOINT; break;
	case 0x30: case 0x31: res->cls = HWBP_SIM_BREAKPOINT; break;
	case 0x32: case 0x33: res->cls = HWBP_SIM_STEP; break;
	case 0x3c: res->cls = HWBP_SIM_BRK; break;
	default: res->cls = HWBP_SIM_UD; break;
	}
	/* Measured: ELR at the instruction = taken before it. */
	res->timing = p->exc_elr == p->insn ? HWBP_TIMING_BEFORE : HWBP_TIMING_AFTER;
	memcpy(res->status[0].name, "esr", 4);
	res->status[0].value = p->exc_esr;
	res->nstatus = 1;
	res->st.ip = p->exc_elr;
	res->st.u.arm64.esr = p->exc_esr;
	res->st.u.arm64.far = p->exc_far;
	/* FAR is written by watchpoints and breakpoints only (UNKNOWN for a
	 * step, BRK or UNDEFINED: not reported). */
	if (res->cls == HWBP_SIM_WATCHPOINT || res->cls == HWBP_SIM_BREAKPOINT) {
		memcpy(res->status[1].name, "far", 4);
		res->status[1].value = p->exc_far;
		res->nstatus = 2;
	}
	if (res->cls == HWBP_SIM_WATCHPOINT) {
		res->addr = p->exc_far;
		res->addr_known = true;
	}
}

/* What resume will do after this instruction (arch_resume). */
static void note_last(struct a64_pcpu *p, const struct hwbp_sim_result *res)
{
	p->last_kind = LAST_NONE;
	if (p->rs_valid)
		p->last_kind = LAST_STEP_DUE;
	else if (res->cls == HWBP_SIM_STEP && res->timing == HWBP_TIMING_BEFORE)
		p->last_kind = LAST_REDO;
}

int arch_access(const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	struct a64_pcpu *p = a64_me();
	int k = routine_index(a);
	uint64_t pc;

	memset(res, 0, sizeof(*res));
	if (a->op == HWBP_SIM_SWBP) {
		/* BRK #imm: its entry in the table. */
		pc = (uint64_t)a64_brk_table + 4 * (uint64_t)(a->size & 0xffffu);
	} else {
		if (k < 0 || !a64_access_mapped(a))
			return -EOPNOTSUPP;
		/* The instruction that makes the access; exec: the target itself,
		 * entered directly (its `ret` comes back through x30). */
		pc = a->op == HWBP_SIM_EXEC ? a->addr
					    : (uint64_t)(p->cur_el == 0 ? a64_acc_el0 : a64_acc_el1) +
						      (uint64_t)k * 16;
	}
	p->last_acc = *a;
	p->last_get = NULL;
	run_insn(p, a->addr, pc);
	if (!p->exc_count) {
		p->last_kind = LAST_NONE;
		return 0;
	}
	a64_rearm_all();
	fill_result(p, res);
	note_last(p, res);
	if (p->exc_count > 1)
		h_printf("# note: %u debug exceptions for one access\n", p->exc_count);
	return 0;
}

void arch_resume(struct hwbp_sim_result *res)
{
	struct a64_pcpu *p = a64_me();
	int kind = p->last_kind;

	memset(res, 0, sizeof(*res));
	p->last_kind = LAST_NONE;
	if (kind == LAST_STEP_DUE) {
		/* The step exception taken when the instruction completed after
		 * its watchpoint/breakpoint (measured in arch_access). */
		res->cls = HWBP_SIM_STEP;
		res->timing = HWBP_TIMING_AFTER;
		memcpy(res->status[0].name, "esr", 4);
		res->status[0].value = p->rs_esr;
		res->nstatus = 1;
		res->st.u.arm64.esr = p->rs_esr;
	} else if (kind == LAST_REDO) {
		/* A step exception before the instruction: the debugger returns
		 * to it, and it runs now. */
		if (p->last_get) {
			const char *name = p->last_get;

			arch_get_reg(name, res);
			/* `resume` reports the exception, not the value read
			 * (the simulator's resume knows no register). */
			if (res->nstatus && strcmp(res->status[res->nstatus - 1].name, name) == 0)
				res->nstatus--;
		} else
			arch_access(&p->last_acc, res);
	}
}

/*
 * `get NAME`: the MRS of the register from its routine in a64_mrs_table
 * (start.S), at the scenario's EL and stepped like any instruction: at
 * EL1 the value (status NAME=value), at EL0 the UNDEFINED exception
 * (class ud, EC 0x00).  The names of the simulator's get_insn
 * (sim/arm64_step.c): dbg[bw][vc]rN, mdscr, oslsr.
 */
static int mrs_index(const char *name)
{
	enum hwbp_a64_dbg kind;
	unsigned n;
	int ret;

	if (strcmp(name, "mdscr") == 0)
		return 64;
	if (strcmp(name, "oslsr") == 0)
		return 65;
	ret = a64_dbg_slot(name, &kind, &n);
	if (ret)
		return ret;
	/* The table's order: BVR, BCR, WVR, WCR (enum hwbp_a64_dbg). */
	return (int)kind * 16 + (int)n;
}

int arch_get_reg(const char *name, struct hwbp_sim_result *res)
{
	struct a64_pcpu *p = a64_me();
	int k = mrs_index(name);
	uint64_t v;
	unsigned i = 0;

	memset(res, 0, sizeof(*res));
	if (k < 0)
		return k;
	p->last_get = name;
	v = run_insn(p, 0, (uint64_t)a64_mrs_table + 8 * (uint64_t)k);
	if (p->exc_count) {
		a64_rearm_all();
		fill_result(p, res);
		note_last(p, res);
		/* Stepped: the MRS completed, and its value follows the step's
		 * status, as the simulator's hwbp_sim_get_insn() gives it. */
		if (res->cls != HWBP_SIM_STEP || res->timing != HWBP_TIMING_AFTER)
			return 0;
	} else {
		p->last_kind = LAST_NONE;
	}
	if (res->nstatus >= HWBP_SIM_MAX_STATUS)
		return 0;
	for (; name[i] && i + 1 < sizeof(res->status[0].name); i++)
		res->status[res->nstatus].name[i] = name[i];
	res->status[res->nstatus].name[i] = '\0';
	res->status[res->nstatus++].value = v;
	return 0;
}
