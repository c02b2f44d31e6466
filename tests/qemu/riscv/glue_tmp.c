// SPDX-License-Identifier: MIT
/*
 * TEMPORARY IMPLEMENTATION, to be replaced by arch/riscv/glue.c at
 * integration (that file does not exist on this branch yet).  Exactly the
 * three functions of the common glue interface (glue_tmp.h), for M-mode:
 *
 * hwbp_glue_write_regs: for each trigger n below the count this hart has
 *   (the first tselect value that does not read back as written, probed
 *   once): tselect = n; tdata1 = 0 (nothing armed while tdata2/tdata3
 *   change); tdata2; tdata3; tdata1 = the value.  tselect is put back as
 *   it was afterwards.
 * hwbp_glue_read_regs: tdata1..3 of each trigger (tselect = n), tselect
 *   put back; the slots past the count read 0.
 * hwbp_glue_read_status: mcause and mtval.
 *
 * Registers: The RISC-V Debug Specification 1.0, §5.5 (tselect 0x7a0,
 * tdata1 0x7a1, tdata2 0x7a2, tdata3 0x7a3).
 */
#include "glue_tmp.h"
#include "hwbp_libc.h"   /* EINVAL (freestanding: -nostdinc) */

static uint64_t r_tselect(void)
{
	uint64_t v;

	__asm__ volatile("csrr %0, 0x7a0" : "=r"(v) : : "memory");
	return v;
}

static void w_tselect(uint64_t v)
{
	__asm__ volatile("csrw 0x7a0, %0" : : "r"(v) : "memory");
}

/* The triggers: tselect = n reads back n for n below the count (tselect
 * is WARL: a value past the last trigger does not stick).  The same on
 * every hart of one machine; a race between harts computes the same
 * value. */
static unsigned ntrig(void)
{
	static volatile int known;
	static volatile unsigned count;
	uint64_t saved;
	unsigned n;

	if (known)
		return count;
	saved = r_tselect();
	for (n = 0; n < HWBP_MAX_SLOTS; n++) {
		w_tselect(n);
		if (r_tselect() != n)
			break;
	}
	w_tselect(saved);
	count = n;
	known = 1;
	return n;
}

int hwbp_glue_write_regs(const struct hwbp_regs *regs)
{
	uint64_t saved;
	unsigned n, cnt;

	if (!regs || regs->arch != HWBP_ARCH_RISCV)
		return -EINVAL;
	cnt = ntrig();
	saved = r_tselect();
	for (n = 0; n < cnt; n++) {
		w_tselect(n);
		__asm__ volatile("csrw 0x7a1, zero" ::: "memory");
		__asm__ volatile("csrw 0x7a2, %0" : : "r"(regs->u.riscv.tdata2[n]) : "memory");
		__asm__ volatile("csrw 0x7a3, %0" : : "r"(regs->u.riscv.tdata3[n]) : "memory");
		__asm__ volatile("csrw 0x7a1, %0" : : "r"(regs->u.riscv.tdata1[n]) : "memory");
	}
	w_tselect(saved);
	return 0;
}

void hwbp_glue_read_regs(struct hwbp_regs *regs)
{
	uint64_t saved, v;
	unsigned n, cnt;

	if (!regs)
		return;
	regs->arch = HWBP_ARCH_RISCV;
	cnt = ntrig();
	saved = r_tselect();
	for (n = 0; n < HWBP_MAX_SLOTS; n++) {
		regs->u.riscv.tdata1[n] = 0;
		regs->u.riscv.tdata2[n] = 0;
		regs->u.riscv.tdata3[n] = 0;
		if (n >= cnt)
			continue;
		w_tselect(n);
		__asm__ volatile("csrr %0, 0x7a1" : "=r"(v) : : "memory");
		regs->u.riscv.tdata1[n] = v;
		__asm__ volatile("csrr %0, 0x7a2" : "=r"(v) : : "memory");
		regs->u.riscv.tdata2[n] = v;
		__asm__ volatile("csrr %0, 0x7a3" : "=r"(v) : : "memory");
		regs->u.riscv.tdata3[n] = v;
	}
	w_tselect(saved);
}

void hwbp_glue_read_status(struct hwbp_status *st)
{
	uint64_t v;

	if (!st)
		return;
	__asm__ volatile("csrr %0, mcause" : "=r"(v));
	st->u.riscv.cause = v;
	__asm__ volatile("csrr %0, mtval" : "=r"(v));
	st->u.riscv.tval = v;
}
