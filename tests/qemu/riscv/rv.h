/* SPDX-License-Identifier: MIT */
/*
 * Between the RISC-V harness's parts (private to tests/qemu/riscv):
 *   harness_riscv.c  boot, UART, exit, the boot probe of the triggers,
 *                    the smoke test, the register shadow and the harness.h
 *                    functions that set a scenario up;
 *   insn.c           one scenario instruction (entered by MRET at the
 *                    scenario's privilege, rv_run in start.S), the trap
 *                    handler (rv_trap), arch_access, arch_get_reg,
 *                    arch_resume;
 *   smp.c            the other harts and arch_on_cpu (CLINT MSIP).
 */
#ifndef HWBP_RV_H
#define HWBP_RV_H

#include <stdint.h>

#include <hwbp/riscv.h>

#include "harness.h"

#define RV_MAX_HARTS 8          /* = HARNESS_MAX_CPUS; start.S MAX_HARTS */

/* QEMU hw/riscv/virt.c virt_memmap[]. */
#define RV_TEST_BASE 0x100000ul        /* sifive_test: the exit */
#define RV_CLINT_BASE 0x2000000ul      /* msip[hart] at +4 * hart */
#define RV_UART_BASE 0x10000000ul      /* ns16550a */
#define RV_RAM_BASE 0x80000000ull
#define RV_RAM_END 0x90000000ull       /* -m 256M */

#define RV_ARENA_SIZE 0x10000ull
#define RV_RET 0x00008067u             /* jalr x0, 0(ra) */

/* mcause values (exceptions). */
#define RV_CAUSE_ILLEGAL 2
#define RV_CAUSE_BREAKPOINT 3
#define RV_CAUSE_ECALL_U 8
#define RV_CAUSE_ECALL_S 9
#define RV_CAUSE_ECALL_M 11

/* What the trap entry saves (start.S). */
struct rv_frame {
	uint64_t x[32];   /* x[0] unused, x[2] = the interrupted sp */
	uint64_t mepc;
	uint64_t mstatus;
};

/* The instruction being run (rv_hart.running). */
enum { RUN_NONE = 0, RUN_ACCESS, RUN_GET };

/*
 * Per hart: only that hart reads or writes its entry (its arch_* calls and
 * its traps run on it); `volatile` for what the trap handler writes behind
 * the back of the code that runs the instruction.
 */
struct rv_hart {
	/* harness_riscv.c's: tdata1 of each trigger as last written (read
	 * back), and the order of the writes that moved QEMU's watchpoint
	 * (tdata1/tdata2 changes: QEMU re-inserts it at the list's tail). */
	uint64_t shadow1[HWBP_MAX_SLOTS];
	uint64_t seq[HWBP_MAX_SLOTS], seq_now;
	unsigned priv;                    /* `mode priv=`: 0 U, 1 S, 3 M */
	/* insn.c's. */
	volatile int running;             /* RUN_* */
	volatile int probing, probe_fault;
	uint64_t insn;                    /* the instruction's address */
	volatile unsigned exc_count;
	volatile uint64_t exc_cause, exc_tval, exc_epc, exc_hits;
};

extern struct rv_hart rv_harts[RV_MAX_HARTS];

static inline unsigned rv_this_hart(void)
{
	uint64_t v;

	__asm__ volatile("mv %0, tp" : "=r"(v));
	return (unsigned)v;
}

static inline struct rv_hart *rv_me(void)
{
	return &rv_harts[rv_this_hart()];
}

/* The trigger CSRs (M-mode). */
static inline uint64_t rv_r_tselect(void)
{
	uint64_t v;

	__asm__ volatile("csrr %0, 0x7a0" : "=r"(v) : : "memory");
	return v;
}

static inline void rv_w_tselect(uint64_t v)
{
	__asm__ volatile("csrw 0x7a0, %0" : : "r"(v) : "memory");
}

static inline uint64_t rv_r_tdata1(void)
{
	uint64_t v;

	__asm__ volatile("csrr %0, 0x7a1" : "=r"(v) : : "memory");
	return v;
}

static inline void rv_w_tdata1(uint64_t v)
{
	__asm__ volatile("csrw 0x7a1, %0" : : "r"(v) : "memory");
}

static inline uint64_t rv_r_tdata2(void)
{
	uint64_t v;

	__asm__ volatile("csrr %0, 0x7a2" : "=r"(v) : : "memory");
	return v;
}

static inline void rv_w_tdata2(uint64_t v)
{
	__asm__ volatile("csrw 0x7a2, %0" : : "r"(v) : "memory");
}

static inline uint64_t rv_r_tdata3(void)
{
	uint64_t v;

	__asm__ volatile("csrr %0, 0x7a3" : "=r"(v) : : "memory");
	return v;
}

static inline void rv_w_tdata3(uint64_t v)
{
	__asm__ volatile("csrw 0x7a3, %0" : : "r"(v) : "memory");
}

/*
 * CSR accesses that may raise an illegal-instruction exception (a CSR
 * this hart lacks: QEMU 10 has no tcontrol): the trap handler skips the
 * 4-byte csrr/csrw and sets probe_fault.  Return 0, or -1 if it trapped
 * (*v then 0).
 */
int rv_try_read(unsigned csr, uint64_t *v);
int rv_try_write(unsigned csr, uint64_t v);

/* HARNESS_SBI (an S-mode kernel): nothing runs at priv 3, M-mode being
 * the firmware's; insn.c refuses such an instruction (the runner cuts the
 * file there).  1 if refused, harness_why set; always 0 in M-mode. */
static inline int rv_priv_refused(const struct rv_hart *p)
{
#ifdef HARNESS_SBI
	if (p->priv == 3) {
		harness_why = "riscv64-sbi: an S-mode kernel runs nothing in M-mode (priv=3)";
		return 1;
	}
#endif
	(void)p;
	return 0;
}

/* harness_riscv.c (harness_sbi.c), for insn.c and smp.c (smp_sbi.c): */

/* The triggers this hart has (tselect write/read-back at boot). */
extern unsigned rv_ntrig;

/* A string on the UART, no formatting (safe in the trap handler). */
void rv_puts(const char *s);
/* QEMU's list order: trigger @n of hart @p (re)armed now (machine.c). */
void rv_moved(struct rv_hart *p, unsigned n);
void rv_puthex(uint64_t v);

/*
 * Disarm every trigger of this hart (its tdata1 without the enable bits,
 * shadow kept; stepping over an access) and re-arm them from the shadow
 * in the order they were last written.  rv_capture() first, in the trap
 * handler: the shadow takes the live tdata1 (hit bits a trigger set).
 */
void rv_capture(void);
void rv_disarm_all(void);
void rv_rearm_all(void);

/* insn.c: one instruction at @pc, at privilege @priv; returns a0. */
uint64_t rv_insn(struct rv_hart *p, uint64_t operand, uint64_t value, uint64_t pc,
		 unsigned priv, int kind);

/* start.S */
extern char rv_acc[], rv_csr[], rv_exec_back[];
extern uint64_t rv_run(uint64_t operand, uint64_t value, uint64_t pc, uint64_t priv);

/* smp.c */
unsigned rv_smp_init(void);
unsigned rv_ncpus(void);
int rv_smp_call(unsigned hart, int (*fn)(void *), void *arg);

/* machine.c: the mailbox of arch_on_cpu's calls.  serve: on hart @me,
 * after its wake-up bit was cleared, run the call if it is for @me.
 * call: from hart 0, -EINVAL past the harts, @fn at once on itself, else
 * the mailbox, kick(@hart), and a wait (60 s, then FATAL) for its end. */
void rv_mailbox_serve(unsigned me);
int rv_mailbox_call(unsigned hart, int (*fn)(void *), void *arg, void (*kick)(unsigned hart));
extern char __arena_b[], __arena_c[];
void rv_secondary_main(void);
uint64_t rv_mtime(void);

#endif /* HWBP_RV_H */
