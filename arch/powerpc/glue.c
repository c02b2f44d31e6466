/* SPDX-License-Identifier: MIT */
/*
 * powerpc glue for the bare-metal harness: the real debug SPRs.
 * SPR numbers: Power ISA v3.1 Book III (Linux reg.h SPRN_DAWR0 0xb4,
 * SPRN_DAWR1 0xb5, SPRN_CIABR 0xbb, SPRN_DAWRX0 0xbc, SPRN_DAWRX1 0xbd).
 * They are hypervisor-privileged: called in MSR[HV] = 1, MSR[PR] = 0.
 * DABR/DABRX (ISA 2.06) do not exist on POWER8 and later: kept in the
 * shadow only (the harness skips POWER7 files).
 */
#include <stdint.h>

#include "glue.h"
#include "hwbp_libc.h"

#define SPRN_DAWR0 180
#define SPRN_DAWR1 181
#define SPRN_CIABR 187
#define SPRN_DAWRX0 188
#define SPRN_DAWRX1 189
#define SPRN_DSISR 18
#define SPRN_DAR 19
#define SPRN_SRR1 27

#define mtspr(n, v) __asm__ volatile("mtspr %0, %1" : : "i"(n), "r"((uint64_t)(v)) : "memory")
#define mfspr(n) ({ uint64_t v__; __asm__ volatile("mfspr %0, %1" : "=r"(v__) : "i"(n)); v__; })

/*
 * The last values written, per thread: DAWR0/1, DAWRX0/1 and CIABR are
 * per-thread SPRs (Power ISA v3.1 Book III), and DABR/DABRX live only
 * here; the shadow a function uses is the one of the thread it runs on
 * (hwbp_ppc_this_cpu(), the host's).  A thread's shadow is touched by
 * that thread only, with interrupts off (glue.h): no lock.
 */
static struct hwbp_regs shadows[HWBP_PPC_GLUE_MAX_CPUS];

static struct hwbp_regs *this_shadow(void)
{
	unsigned c = hwbp_ppc_this_cpu();

	if (c >= HWBP_PPC_GLUE_MAX_CPUS)
		c = 0;   /* (a host bug: better one shared shadow than a wild write) */
	shadows[c].arch = HWBP_ARCH_POWERPC;
	return &shadows[c];
}

int hwbp_glue_write_regs(const struct hwbp_regs *regs)
{
	if (!regs || regs->arch != HWBP_ARCH_POWERPC)
		return -EINVAL;
	*this_shadow() = *regs;
	/* Disable before moving an address, then arm: no transient match. */
	mtspr(SPRN_DAWRX0, 0);
	mtspr(SPRN_DAWRX1, 0);
	mtspr(SPRN_DAWR0, regs->u.ppc.dawr[0]);
	mtspr(SPRN_DAWR1, regs->u.ppc.dawr[1]);
	mtspr(SPRN_DAWRX0, regs->u.ppc.dawrx[0]);
	mtspr(SPRN_DAWRX1, regs->u.ppc.dawrx[1]);
	mtspr(SPRN_CIABR, regs->u.ppc.ciabr);
	__asm__ volatile("isync" ::: "memory");
	return 0;
}

void hwbp_glue_read_regs(struct hwbp_regs *regs)
{
	*regs = *this_shadow();
	regs->u.ppc.dawr[0] = mfspr(SPRN_DAWR0);
	regs->u.ppc.dawr[1] = mfspr(SPRN_DAWR1);
	regs->u.ppc.dawrx[0] = mfspr(SPRN_DAWRX0);
	regs->u.ppc.dawrx[1] = mfspr(SPRN_DAWRX1);
	regs->u.ppc.ciabr = mfspr(SPRN_CIABR);
}

/*
 * A DSI (0x300) leaves DSISR and DAR; a trace interrupt (0xd00) SRR1 with
 * bit 43 for a CIABR match (Power ISA Book III, "Interrupts").  Read before
 * anything else can take an interrupt that rewrites them.
 */
void hwbp_glue_read_status(struct hwbp_status *st)
{
	st->u.ppc.dsisr = mfspr(SPRN_DSISR);
	st->u.ppc.dar = mfspr(SPRN_DAR);
	st->u.ppc.srr1 = mfspr(SPRN_SRR1);
}

void hwbp_ppc_glue_shadow(struct hwbp_regs *regs)
{
	*regs = *this_shadow();
}
