/* SPDX-License-Identifier: MIT */
/*
 * RISC-V glue: csrr/csrw to the trigger CSRs in M-mode (Debug spec 1.0
 * §5.5; CSR numbers in <hwbp/riscv.h>).  Only for a riscv64 target: on
 * any other the functions compile to nothing that touches a CSR, so that
 * the file still builds (the other arches' glue is built for its own
 * target only, and so is this one).
 */
#include "glue.h"
#include "hwbp_libc.h"

#include <hwbp/riscv.h>

#if defined(__riscv) && __riscv_xlen == 64
#define CSR_READ(csr)                                                        \
	({                                                                   \
		uint64_t v_;                                                 \
		__asm__ volatile("csrr %0, " #csr : "=r"(v_));               \
		v_;                                                          \
	})
#define CSR_WRITE(csr, v) __asm__ volatile("csrw " #csr ", %0" : : "r"((uint64_t)(v)) : "memory")
#else
/* Not a riscv64 build: a host that compiles the file for its checks. */
#define CSR_READ(csr) ((uint64_t)0)
#define CSR_WRITE(csr, v) ((void)(v))
#endif

/* The CSR numbers of <hwbp/riscv.h>, spelled for the assembler. */
_Static_assert(HWBP_RISCV_CSR_TSELECT == 0x7a0 && HWBP_RISCV_CSR_TDATA1 == 0x7a1 &&
		       HWBP_RISCV_CSR_TDATA2 == 0x7a2 && HWBP_RISCV_CSR_TDATA3 == 0x7a3,
	       "csrr/csrw below name the trigger CSRs by number");

void hwbp_rv_select(unsigned n)
{
	CSR_WRITE(0x7a0, n);
}

uint64_t hwbp_rv_read_tdata(unsigned which, unsigned n)
{
	hwbp_rv_select(n);
	switch (which) {
	case 1:
		return CSR_READ(0x7a1);
	case 2:
		return CSR_READ(0x7a2);
	case 3:
		return CSR_READ(0x7a3);
	}
	return 0;
}

unsigned hwbp_rv_ntrig(void)
{
	unsigned n = 0;

	while (n < HWBP_MAX_SLOTS) {
		CSR_WRITE(0x7a0, n);
		if (CSR_READ(0x7a0) != n)
			break;
		/* Type 0: no trigger at this tselect. */
		if (((CSR_READ(0x7a1) >> HWBP_RISCV_TDATA1_TYPE_SHIFT) &
		     HWBP_RISCV_TDATA1_TYPE_MASK) == HWBP_RISCV_TYPE_NONE)
			break;
		n++;
	}
	return n;
}

int hwbp_glue_write_regs(const struct hwbp_regs *regs)
{
	unsigned n;

	uint64_t sel;

	if (!regs || regs->arch != HWBP_ARCH_RISCV)
		return -EINVAL;
	/* tselect is the interrupted code's too (a debugger's, a kernel's
	 * own trigger code): it is put back as it was. */
	sel = CSR_READ(0x7a0);
	n = hwbp_rv_ntrig();
	for (unsigned i = 0; i < n; i++) {
		uint64_t t1 = regs->u.riscv.tdata1[i];

		CSR_WRITE(0x7a0, i);
		CSR_WRITE(0x7a1, t1 & (HWBP_RISCV_TDATA1_TYPE_MASK << HWBP_RISCV_TDATA1_TYPE_SHIFT));
		CSR_WRITE(0x7a2, regs->u.riscv.tdata2[i]);
		CSR_WRITE(0x7a3, regs->u.riscv.tdata3[i]);
		CSR_WRITE(0x7a1, t1);
	}
	CSR_WRITE(0x7a0, sel);
	return 0;
}

void hwbp_glue_read_regs(struct hwbp_regs *regs)
{
	uint64_t sel = CSR_READ(0x7a0);
	unsigned n = hwbp_rv_ntrig();

	memset(regs, 0, sizeof(*regs));
	regs->arch = HWBP_ARCH_RISCV;
	for (unsigned i = 0; i < n; i++) {
		CSR_WRITE(0x7a0, i);
		regs->u.riscv.tdata1[i] = CSR_READ(0x7a1);
		regs->u.riscv.tdata2[i] = CSR_READ(0x7a2);
		regs->u.riscv.tdata3[i] = CSR_READ(0x7a3);
	}
	CSR_WRITE(0x7a0, sel);
}

/* The hit bits of @t1 (mcontrol bit 20; mcontrol6 hit0, hit1). */
static uint64_t hit_bits(uint64_t t1)
{
	switch ((t1 >> HWBP_RISCV_TDATA1_TYPE_SHIFT) & HWBP_RISCV_TDATA1_TYPE_MASK) {
	case HWBP_RISCV_TYPE_MCONTROL:
		return t1 & HWBP_RISCV_MC2_HIT;
	case HWBP_RISCV_TYPE_MCONTROL6:
		return t1 & (HWBP_RISCV_MC6_HIT0 | HWBP_RISCV_MC6_HIT1);
	}
	return 0;
}

/*
 * mcause 3 (breakpoint), mtval (the address that matched, or 0) and the
 * triggers whose hit bits are set.  The hit bits are sticky: the
 * hardware sets them and only software clears them (§5.5.10 "hit"), so
 * each one read is cleared here, or the next exception would report
 * this one's trigger too.  Writing tdata1 back with the same enables
 * re-arms nothing that was not armed.  A core without hit bits reads 0
 * and nothing is written.
 */
void hwbp_glue_read_status(struct hwbp_status *st)
{
	uint64_t sel = CSR_READ(0x7a0);
	unsigned n = hwbp_rv_ntrig();

	st->u.riscv.cause = CSR_READ(mcause);
	st->u.riscv.tval = CSR_READ(mtval);
	st->u.riscv.hits = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t t1, h;

		CSR_WRITE(0x7a0, i);
		t1 = CSR_READ(0x7a1);
		h = hit_bits(t1);
		if (!h)
			continue;
		st->u.riscv.hits |= UINT64_C(1) << i;
		CSR_WRITE(0x7a1, t1 & ~h);
	}
	CSR_WRITE(0x7a0, sel);
}
