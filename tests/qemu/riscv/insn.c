/* SPDX-License-Identifier: MIT */
/*
 * The RISC-V harness's scenario instructions: each one (an access, an
 * `exec`, a `get`) is a stub in start.S entered by MRET at the scenario's
 * privilege (mstatus.MPP: U, S or M) and left by its `ecall`; the trap
 * handler (rv_trap) records the first breakpoint exception (mcause 3) of
 * the instruction and steps over it: every trigger disarmed (rv.h
 * rv_disarm_all), back to the same instruction, which then completes;
 * arch_access() re-arms afterwards.  Also here: the CSR probes that may
 * trap (rv_try_read/rv_try_write).
 *
 * Privileged ISA facts used: with medeleg = 0 every exception of every
 * privilege traps to M-mode (mtvec, direct mode); mepc is the address of
 * the instruction that took it; ECALL's cause is 8 from U, 9 from S, 11
 * from M; a trigger with action 0 raises a breakpoint exception (cause 3)
 * (Debug spec 1.0 §5.5, "action"), before the access when its timing is
 * before (mepc = the access) and after it otherwise (mepc = the next
 * instruction).
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "glue.h"
#include "rv.h"

/* ------------------------------------------------------------------ */
/* The trap handler                                                    */
/* ------------------------------------------------------------------ */
static void record(struct rv_hart *p, uint64_t cause, uint64_t tval, uint64_t epc)
{
	if (p->exc_count++ == 0) {
		p->exc_cause = cause;
		p->exc_tval = tval;
		p->exc_epc = epc;
	}
}

/*
 * From start.S with this hart's trap frame.  Returns 0 to go back to the
 * frame (MRET), 1 to return from rv_run() (the stub's ecall, or an
 * instruction that must not complete).
 */
uint64_t rv_trap(struct rv_frame *f);
uint64_t rv_trap(struct rv_frame *f)
{
	struct rv_hart *p = rv_me();
	struct hwbp_status st;
	uint64_t cause;

	memset(&st, 0, sizeof(st));
	hwbp_glue_read_status(&st);
	cause = st.u.riscv.cause;
	if ((int64_t)cause >= 0) {
		if ((cause == RV_CAUSE_ECALL_U || cause == RV_CAUSE_ECALL_S ||
		     cause == RV_CAUSE_ECALL_M) && p->running)
			return 1;
		if (cause == RV_CAUSE_BREAKPOINT && p->running) {
			record(p, cause, st.u.riscv.tval, f->mepc);
			/* Step over: no trigger armed, the same instruction
			 * again (an `exec` target: the `ret` itself). */
			if (p->exc_count == 1) {
				/* The glue read (and cleared) the hit bits:
				 * QEMU 10 sets none (HWBPI_Q_RV_HIT_NEVER). */
				p->exc_hits = st.u.riscv.hits;
				rv_capture(); /* the live tdata1s */
			}
			rv_disarm_all();
			return 0;
		}
		if (cause == RV_CAUSE_ILLEGAL && p->running == RUN_GET) {
			/* A trigger CSR read from U/S (or a CSR this hart
			 * lacks): recorded, not completed. */
			record(p, cause, st.u.riscv.tval, f->mepc);
			return 1;
		}
		if (cause == RV_CAUSE_ILLEGAL && p->probing) {
			p->probe_fault = 1;
			f->mepc += 4; /* csrr/csrw: 4 bytes */
			return 0;
		}
		if (cause == RV_CAUSE_BREAKPOINT)
			rv_puts("\n# FATAL: breakpoint exception outside a scenario instruction"
				" (does a trigger cover the harness's own code or memory?)");
	}
	rv_puts("\n# FATAL: unexpected trap on hart ");
	arch_putc((char)('0' + rv_this_hart()));
	rv_puts(" mcause=");
	rv_puthex(cause);
	rv_puts(" mtval=");
	rv_puthex(st.u.riscv.tval);
	rv_puts(" mepc=");
	rv_puthex(f->mepc);
	rv_puts(" mstatus=");
	rv_puthex(f->mstatus);
	rv_puts("\n");
	arch_exit(3);
}

/* ------------------------------------------------------------------ */
/* CSRs that may not exist                                             */
/* ------------------------------------------------------------------ */
#define TRY_R(n) __asm__ volatile("li %0, 0\n\tcsrr %0, " #n : "=&r"(x) : : "memory")
#define TRY_W(n) __asm__ volatile("csrw " #n ", %0" : : "r"(v) : "memory")

int rv_try_read(unsigned csr, uint64_t *v)
{
	struct rv_hart *p = rv_me();
	uint64_t x = 0;

	p->probe_fault = 0;
	p->probing = 1;
	switch (csr) {
	case HWBP_RISCV_CSR_TSELECT: TRY_R(0x7a0); break;
	case HWBP_RISCV_CSR_TDATA1: TRY_R(0x7a1); break;
	case HWBP_RISCV_CSR_TDATA2: TRY_R(0x7a2); break;
	case HWBP_RISCV_CSR_TDATA3: TRY_R(0x7a3); break;
	case HWBP_RISCV_CSR_TINFO: TRY_R(0x7a4); break;
	case HWBP_RISCV_CSR_TCONTROL: TRY_R(0x7a5); break;
	default: p->probe_fault = 1; break;
	}
	p->probing = 0;
	*v = p->probe_fault ? 0 : x;
	return p->probe_fault ? -1 : 0;
}

int rv_try_write(unsigned csr, uint64_t v)
{
	struct rv_hart *p = rv_me();

	p->probe_fault = 0;
	p->probing = 1;
	switch (csr) {
	case HWBP_RISCV_CSR_TSELECT: TRY_W(0x7a0); break;
	case HWBP_RISCV_CSR_TDATA1: TRY_W(0x7a1); break;
	case HWBP_RISCV_CSR_TDATA2: TRY_W(0x7a2); break;
	case HWBP_RISCV_CSR_TDATA3: TRY_W(0x7a3); break;
	case HWBP_RISCV_CSR_TCONTROL: TRY_W(0x7a5); break;
	default: p->probe_fault = 1; break;
	}
	p->probing = 0;
	return p->probe_fault ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* One instruction                                                     */
/* ------------------------------------------------------------------ */
uint64_t rv_insn(struct rv_hart *p, uint64_t operand, uint64_t value, uint64_t pc,
		 unsigned priv, int kind)
{
	uint64_t v;

	p->insn = pc;
	p->exc_count = 0;
	p->running = kind;
	__asm__ volatile("" ::: "memory");
	v = rv_run(operand, value, pc, priv);
	__asm__ volatile("" ::: "memory");
	p->running = RUN_NONE;
	return v;
}

/* The stub of a load/store of @size bytes (start.S rv_acc order). */
static int acc_index(const struct hwbp_sim_access *a)
{
	int k;

	switch (a->size) {
	case 1: k = 0; break;
	case 2: k = 1; break;
	case 4: k = 2; break;
	case 8: k = 3; break;
	default: return -1;
	}
	return a->op == HWBP_SIM_READ ? k : 4 + k;
}

/* [addr, addr + len) inside arena @base. */
static int in_arena(uint64_t base, uint64_t addr, uint64_t len)
{
	return addr >= base && addr - base <= RV_ARENA_SIZE && len <= RV_ARENA_SIZE - (addr - base);
}

/*
 * What a store writes: 0 in arena B; in arena C the bytes already there
 * (the `ret` pattern as the address's offset in its word sees it), so
 * that every slot of C stays a `ret` whatever the scenario stores.
 */
static uint64_t store_value(uint64_t addr)
{
	uint64_t pat = ((uint64_t)RV_RET << 32) | RV_RET;
	unsigned s = (unsigned)(addr & 3) * 8;

	if (!in_arena(arch_arena_c(), addr, 1))
		return 0;
	return s ? (pat >> s) | (pat << (64 - s)) : pat;
}

/* *res from the first trap of the instruction at p->insn. */
static void fill_result(struct rv_hart *p, struct hwbp_sim_result *res)
{
	/* The sim model's class names are the model's to decide: a trigger's
	 * breakpoint exception is HWBP_SIM_BREAKPOINT for now, an illegal
	 * instruction (a `get` from U/S) HWBP_SIM_UD. */
	res->cls = p->exc_cause == RV_CAUSE_BREAKPOINT ? HWBP_SIM_BREAKPOINT : HWBP_SIM_UD;
	/* Measured: mepc at the instruction = taken before it. */
	res->timing = p->exc_epc == p->insn ? HWBP_TIMING_BEFORE : HWBP_TIMING_AFTER;
	memcpy(res->status[0].name, "mcause", 7);
	res->status[0].value = p->exc_cause;
	memcpy(res->status[1].name, "mtval", 6);
	res->status[1].value = p->exc_tval;
	res->nstatus = 2;
	res->st.ip = p->exc_epc;
	res->st.u.riscv.cause = p->exc_cause;
	res->st.u.riscv.tval = p->exc_tval;
	res->st.u.riscv.hits = p->exc_hits;
}

int arch_access(const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	struct rv_hart *p = rv_me();
	uint64_t pc;

	memset(res, 0, sizeof(*res));
	if (rv_priv_refused(p))
		return -EOPNOTSUPP;
	switch (a->op) {
	case HWBP_SIM_READ:
	case HWBP_SIM_WRITE:
		if (acc_index(a) < 0)
			return -EOPNOTSUPP;
		/* Only the arenas: M-mode has no paging, and the rest of RAM is
		 * the harness's own. */
		if (!in_arena(arch_arena_b(), a->addr, a->size) &&
		    !in_arena(arch_arena_c(), a->addr, a->size)) {
			harness_why = "riscv: data accesses only inside arenas B and C";
			return -EOPNOTSUPP;
		}
		pc = (uint64_t)rv_acc + 8 * (uint64_t)acc_index(a);
		break;
	case HWBP_SIM_EXEC:
		/* Each 4-byte slot of C is a `ret`: the halfword at +2 of a
		 * slot is 0x0000 (c.unimp), not an instruction to return by. */
		if (!in_arena(arch_arena_c(), a->addr, 4) || (a->addr & 3)) {
			harness_why = "riscv: exec only at a 4-byte slot of arena C";
			return -EOPNOTSUPP;
		}
		pc = a->addr;
		break;
	default:
		return -EOPNOTSUPP;
	}
	rv_insn(p, a->addr, a->op == HWBP_SIM_WRITE ? store_value(a->addr) : 0, pc, p->priv,
		RUN_ACCESS);
	if (!p->exc_count)
		return 0;
	rv_rearm_all();
	fill_result(p, res);
	/* The data address: mtval of a load or store's breakpoint (the sim
	 * model's addr); an instruction's is its own address, not data. */
	res->addr = p->exc_tval;
	res->addr_known = res->cls == HWBP_SIM_BREAKPOINT && a->op != HWBP_SIM_EXEC && p->exc_tval;
	if (p->exc_count > 1)
		h_printf("# note: %u breakpoint exceptions for one access\n", p->exc_count);
	return 0;
}

/* The handler stepped over the instruction already: nothing is left. */
void arch_resume(struct hwbp_sim_result *res)
{
	memset(res, 0, sizeof(*res));
}

/*
 * `get NAME`: `csrr a0, CSR` from rv_csr (start.S) at the scenario's
 * privilege: in M-mode the value (status NAME=value), from U/S the
 * illegal-instruction exception (the trigger CSRs are M-mode CSRs; the
 * stub's mtval as QEMU writes it).  A CSR this hart lacks traps in
 * M-mode too, and is reported the same way.
 */
static const char *const csr_names[] = {
	"tselect", "tdata1", "tdata2", "tdata3", "tinfo", "tcontrol",
};

int arch_get_reg(const char *name, struct hwbp_sim_result *res)
{
	struct rv_hart *p = rv_me();
	unsigned k, i;
	uint64_t v;

	memset(res, 0, sizeof(*res));
	for (k = 0; k < sizeof(csr_names) / sizeof(csr_names[0]); k++)
		if (strcmp(name, csr_names[k]) == 0)
			break;
	if (k == sizeof(csr_names) / sizeof(csr_names[0]))
		return -ENOENT;
	/* (in S-mode, from U/S only: illegal, OpenSBI redirects it to S) */
	if (rv_priv_refused(p))
		return -EOPNOTSUPP;
	v = rv_insn(p, 0, 0, (uint64_t)rv_csr + 8 * (uint64_t)k, p->priv, RUN_GET);
	if (p->exc_count) {
		if (p->exc_cause == RV_CAUSE_BREAKPOINT)
			rv_rearm_all();
		fill_result(p, res);
		return 0;
	}
	for (i = 0; name[i] && i + 1 < sizeof(res->status[0].name); i++)
		res->status[0].name[i] = name[i];
	res->status[0].name[i] = '\0';
	res->status[0].value = v;
	res->nstatus = 1;
	return 0;
}
