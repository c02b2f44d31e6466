/* SPDX-License-Identifier: MIT */
/*
 * arm64 glue: MSR/MRS to the self-hosted debug registers at EL1 (Arm ARM
 * D2 / the AArch64 System register descriptions).  The register number is
 * part of the instruction encoding, hence the switches over n.
 */
#include "glue.h"
#include "hwbp_libc.h"

#define SYSREG_READ(name)                                                    \
	({                                                                   \
		uint64_t v_;                                                 \
		__asm__ volatile("mrs %0, " name : "=r"(v_));                \
		v_;                                                          \
	})
#define SYSREG_WRITE(name, v) __asm__ volatile("msr " name ", %0" : : "r"((uint64_t)(v)) : "memory")

#define CASES_READ(kind)                                                     \
	case 0: return SYSREG_READ("dbg" kind "0_el1");                      \
	case 1: return SYSREG_READ("dbg" kind "1_el1");                      \
	case 2: return SYSREG_READ("dbg" kind "2_el1");                      \
	case 3: return SYSREG_READ("dbg" kind "3_el1");                      \
	case 4: return SYSREG_READ("dbg" kind "4_el1");                      \
	case 5: return SYSREG_READ("dbg" kind "5_el1");                      \
	case 6: return SYSREG_READ("dbg" kind "6_el1");                      \
	case 7: return SYSREG_READ("dbg" kind "7_el1");                      \
	case 8: return SYSREG_READ("dbg" kind "8_el1");                      \
	case 9: return SYSREG_READ("dbg" kind "9_el1");                      \
	case 10: return SYSREG_READ("dbg" kind "10_el1");                    \
	case 11: return SYSREG_READ("dbg" kind "11_el1");                    \
	case 12: return SYSREG_READ("dbg" kind "12_el1");                    \
	case 13: return SYSREG_READ("dbg" kind "13_el1");                    \
	case 14: return SYSREG_READ("dbg" kind "14_el1");                    \
	case 15: return SYSREG_READ("dbg" kind "15_el1");                    \
	default: return 0;

#define CASES_WRITE(kind, v)                                                 \
	case 0: SYSREG_WRITE("dbg" kind "0_el1", v); break;                  \
	case 1: SYSREG_WRITE("dbg" kind "1_el1", v); break;                  \
	case 2: SYSREG_WRITE("dbg" kind "2_el1", v); break;                  \
	case 3: SYSREG_WRITE("dbg" kind "3_el1", v); break;                  \
	case 4: SYSREG_WRITE("dbg" kind "4_el1", v); break;                  \
	case 5: SYSREG_WRITE("dbg" kind "5_el1", v); break;                  \
	case 6: SYSREG_WRITE("dbg" kind "6_el1", v); break;                  \
	case 7: SYSREG_WRITE("dbg" kind "7_el1", v); break;                  \
	case 8: SYSREG_WRITE("dbg" kind "8_el1", v); break;                  \
	case 9: SYSREG_WRITE("dbg" kind "9_el1", v); break;                  \
	case 10: SYSREG_WRITE("dbg" kind "10_el1", v); break;                \
	case 11: SYSREG_WRITE("dbg" kind "11_el1", v); break;                \
	case 12: SYSREG_WRITE("dbg" kind "12_el1", v); break;                \
	case 13: SYSREG_WRITE("dbg" kind "13_el1", v); break;                \
	case 14: SYSREG_WRITE("dbg" kind "14_el1", v); break;                \
	case 15: SYSREG_WRITE("dbg" kind "15_el1", v); break;                \
	default: break;

uint64_t hwbp_a64_read_dbg(enum hwbp_a64_dbg kind, unsigned n)
{
	switch (kind) {
	case HWBP_A64_BVR:
		switch (n) { CASES_READ("bvr") }
	case HWBP_A64_BCR:
		switch (n) { CASES_READ("bcr") }
	case HWBP_A64_WVR:
		switch (n) { CASES_READ("wvr") }
	case HWBP_A64_WCR:
		switch (n) { CASES_READ("wcr") }
	}
	return 0;
}

void hwbp_a64_write_dbg(enum hwbp_a64_dbg kind, unsigned n, uint64_t v)
{
	switch (kind) {
	case HWBP_A64_BVR:
		switch (n) { CASES_WRITE("bvr", v) }
		break;
	case HWBP_A64_BCR:
		switch (n) { CASES_WRITE("bcr", v) }
		break;
	case HWBP_A64_WVR:
		switch (n) { CASES_WRITE("wvr", v) }
		break;
	case HWBP_A64_WCR:
		switch (n) { CASES_WRITE("wcr", v) }
		break;
	}
}

uint64_t hwbp_a64_read_mdscr(void)
{
	return SYSREG_READ("mdscr_el1");
}

void hwbp_a64_write_mdscr(uint64_t v)
{
	SYSREG_WRITE("mdscr_el1", v);
	__asm__ volatile("isb" ::: "memory");
}

void hwbp_a64_write_oslar(uint64_t v)
{
	SYSREG_WRITE("oslar_el1", v);
	__asm__ volatile("isb" ::: "memory");
}

uint64_t hwbp_a64_read_oslsr(void)
{
	return SYSREG_READ("oslsr_el1");
}

uint64_t hwbp_a64_read_dfr0(void)
{
	return SYSREG_READ("id_aa64dfr0_el1");
}

void hwbp_a64_set_daif_d(int d)
{
	if (d)
		__asm__ volatile("msr daifset, #8" ::: "memory");
	else
		__asm__ volatile("msr daifclr, #8" ::: "memory");
	__asm__ volatile("isb" ::: "memory");
}

int hwbp_a64_get_daif_d(void)
{
	return (SYSREG_READ("daif") >> 9) & 1;
}

unsigned hwbp_a64_nbrp(void)
{
	return (unsigned)((hwbp_a64_read_dfr0() >> 12) & 0xf) + 1;
}

unsigned hwbp_a64_nwrp(void)
{
	return (unsigned)((hwbp_a64_read_dfr0() >> 20) & 0xf) + 1;
}

void hwbp_a64_write_regs(const struct hwbp_regs *regs, unsigned nb, unsigned nw)
{
	for (unsigned i = 0; i < nb && i < HWBP_MAX_SLOTS; i++) {
		hwbp_a64_write_dbg(HWBP_A64_BVR, i, regs->u.arm64.bvr[i]);
		hwbp_a64_write_dbg(HWBP_A64_BCR, i, regs->u.arm64.bcr[i]);
	}
	for (unsigned i = 0; i < nw && i < HWBP_MAX_SLOTS; i++) {
		hwbp_a64_write_dbg(HWBP_A64_WVR, i, regs->u.arm64.wvr[i]);
		hwbp_a64_write_dbg(HWBP_A64_WCR, i, regs->u.arm64.wcr[i]);
	}
	hwbp_a64_write_mdscr(regs->u.arm64.mdscr);
}

void hwbp_a64_read_regs(struct hwbp_regs *regs, unsigned nb, unsigned nw)
{
	regs->arch = HWBP_ARCH_ARM64;
	for (unsigned i = 0; i < HWBP_MAX_SLOTS; i++) {
		regs->u.arm64.bvr[i] = i < nb ? hwbp_a64_read_dbg(HWBP_A64_BVR, i) : 0;
		regs->u.arm64.bcr[i] = i < nb ? hwbp_a64_read_dbg(HWBP_A64_BCR, i) : 0;
		regs->u.arm64.wvr[i] = i < nw ? hwbp_a64_read_dbg(HWBP_A64_WVR, i) : 0;
		regs->u.arm64.wcr[i] = i < nw ? hwbp_a64_read_dbg(HWBP_A64_WCR, i) : 0;
	}
	regs->u.arm64.mdscr = hwbp_a64_read_mdscr();
}

/*
 * This CPU's pairs (ID_AA64DFR0_EL1), MDSCR_EL1 last: it only gains the
 * enables (MDE/KDE) @regs asks for, as Linux's enable_debug_monitors()
 * never clears what another user of the debug unit turned on.
 */
int hwbp_glue_write_regs(const struct hwbp_regs *regs)
{
	unsigned nb, nw;

	if (!regs || regs->arch != HWBP_ARCH_ARM64)
		return -EINVAL;
	nb = hwbp_a64_nbrp();
	nw = hwbp_a64_nwrp();
	/* As hwbp_a64_write_regs(), without a copy of @regs on the stack. */
	for (unsigned i = 0; i < nb && i < HWBP_MAX_SLOTS; i++) {
		hwbp_a64_write_dbg(HWBP_A64_BVR, i, regs->u.arm64.bvr[i]);
		hwbp_a64_write_dbg(HWBP_A64_BCR, i, regs->u.arm64.bcr[i]);
	}
	for (unsigned i = 0; i < nw && i < HWBP_MAX_SLOTS; i++) {
		hwbp_a64_write_dbg(HWBP_A64_WVR, i, regs->u.arm64.wvr[i]);
		hwbp_a64_write_dbg(HWBP_A64_WCR, i, regs->u.arm64.wcr[i]);
	}
	hwbp_a64_write_mdscr(hwbp_a64_read_mdscr() | regs->u.arm64.mdscr);
	return 0;
}

void hwbp_glue_read_regs(struct hwbp_regs *regs)
{
	memset(regs, 0, sizeof(*regs));
	hwbp_a64_read_regs(regs, hwbp_a64_nbrp(), hwbp_a64_nwrp());
}

/* ESR_ELx names the class (watchpoint, breakpoint), FAR the address. */
void hwbp_glue_read_status(struct hwbp_status *st)
{
	st->u.arm64.esr = SYSREG_READ("esr_el1");
	st->u.arm64.far = SYSREG_READ("far_el1");
}
