/* SPDX-License-Identifier: MIT */
/*
 * powerpc debug registers (DABR/DABRX, DAWRn/DAWRXn, CIABR): the register layout hwbp's
 * encoders and decoders follow, for code that models or programs the
 * hardware itself (a simulator, a kernel's glue).  Field positions, reset
 * values and the small rules that derive a CPU model's slot counts.
 * Only facts of the architecture: no state, no functions with effects.
 *
 * Bit numbers below are LSB-0 (value = 1 << n).  The Power ISA numbers bits
 * MSB-0 in a 64-bit register, so ISA bit b is 1 << (63 - b); each constant
 * names the ISA bit it comes from.  Sources: Power ISA v3.1 Book III ch. 9
 * ("Debug Facilities": DAWRn/DAWRXn, CIABR; DABR/DABRX in v2.06 Book III-S
 * §9.3), cross-checked against Linux arch/powerpc/include/asm/reg.h
 * (DAWRX_*, DABRX_*, CIABR_PRIV_*) and arch/powerpc/kernel/dawr.c set_dawr().
 */
#ifndef HWBP_POWERPC_H
#define HWBP_POWERPC_H

#ifndef __KERNEL__   /* a Linux module: <hwbp/hwbp.h> takes <linux/types.h> */
#include <stdbool.h>
#include <stdint.h>
#endif

#include <hwbp/hwbp.h>

/* DAWRXn fields (ISA bits 48:63). */
#define HWBP_PPC_DAWRX_PRO 0x0001ull   /* ISA 63: match in problem state */
#define HWBP_PPC_DAWRX_PNH 0x0002ull   /* ISA 62: privileged non-hypervisor */
#define HWBP_PPC_DAWRX_HYP 0x0004ull   /* ISA 61: hypervisor state */
#define HWBP_PPC_DAWRX_PRIV 0x0007ull
#define HWBP_PPC_DAWRX_WTI 0x0008ull   /* ISA 60: ignore MSR[DR] vs WT */
#define HWBP_PPC_DAWRX_WT 0x0010ull    /* ISA 59: match only if MSR[DR] == WT */
#define HWBP_PPC_DAWRX_DR 0x0020ull    /* ISA 58: match loads */
#define HWBP_PPC_DAWRX_DW 0x0040ull    /* ISA 57: match stores */
#define HWBP_PPC_DAWRX_MRD_SHIFT 10    /* ISA 48:53: doublewords - 1 */
#define HWBP_PPC_DAWRX_MRD_MASK 0x3full

/* DABR low bits (ISA bits 61:63) and DABRX (ISA bits 60:63). */
#define HWBP_PPC_DABR_DR 0x1ull        /* ISA 63: data read */
#define HWBP_PPC_DABR_DW 0x2ull        /* ISA 62: data write */
#define HWBP_PPC_DABR_BT 0x4ull        /* ISA 61: breakpoint translation */
#define HWBP_PPC_DABRX_USER 0x1ull     /* ISA 63: problem state */
#define HWBP_PPC_DABRX_KERNEL 0x2ull   /* ISA 62: privileged non-hypervisor */
#define HWBP_PPC_DABRX_HYP 0x4ull      /* ISA 61: hypervisor state */
#define HWBP_PPC_DABRX_PRIV 0x7ull
#define HWBP_PPC_DABRX_BTI 0x8ull      /* ISA 60: ignore MSR[DR] vs BT */

/* CIABR: CEA in ISA bits 0:61, PRIV in ISA bits 62:63. */
#define HWBP_PPC_CIABR_PRIV 0x3ull
#define HWBP_PPC_CIABR_PRIV_USER 0x1ull   /* MSR[PR] = 1 */
#define HWBP_PPC_CIABR_PRIV_SUPER 0x2ull  /* MSR[HV PR] = 0b00 */
#define HWBP_PPC_CIABR_PRIV_HYPER 0x3ull  /* MSR[HV PR] = 0b10 */

/* DSISR bits of a Data Storage interrupt (vector 0x300). */
#define HWBP_PPC_DSISR_STORE 0x02000000ull     /* ISA 38: access was a store */
#define HWBP_PPC_DSISR_DABRMATCH 0x00400000ull /* ISA 41: DABR/DAWR match */

#define HWBP_PPC_VEC_DSI 0x300ull
#define HWBP_PPC_VEC_TRACE 0xd00ull
/* SRR1 bit 43 (IBM numbering, = 1 << 20): the Trace interrupt was caused
 * by a CIABR match (Linux reg.h; QEMU sets it with bit 33). */
#define HWBP_PPC_SRR1_CIABR 0x00100000ull

#define HWBP_PPC_DW 8ull           /* matching granule: one doubleword */
#define HWBP_PPC_DAWR_MAX 512ull   /* 64 doublewords (6-bit MRD) */
#define HWBP_PPC_DAWR_BOUNDARY 512ull

/* True when data slots are DAWRs (DAWR preferred over DABR, as Linux does). */
static inline bool hwbp_powerpc_has_dawr(const struct hwbp_cpu *cpu)
{
	return (cpu->u.ppc.units & (HWBP_PPC_DAWR0 | HWBP_PPC_DAWR1)) != 0;
}

static inline bool hwbp_powerpc_dabr_mode(const struct hwbp_cpu *cpu)
{
	return !hwbp_powerpc_has_dawr(cpu) && (cpu->u.ppc.units & HWBP_PPC_DABR);
}

static inline bool hwbp_powerpc_has_ciabr(const struct hwbp_cpu *cpu)
{
	return (cpu->u.ppc.units & HWBP_PPC_CIABR) != 0;
}

/*
 * The 512-byte rule: ISA v2.07/v3.0 DAWR ranges may not cross a 512-byte
 * boundary.  ISA v3.1 removed it (its change log: "Multiple DEAW: ... 512B
 * boundary is removed"), even though v3.1 Book III §9.4's match text still
 * shows the limit; Linux (hw_breakpoint.c hw_breakpoint_validate_len, commit
 * "powerpc/watchpoint: Remove 512 byte boundary") calls that text a
 * documentation mistake and allows crossing on CPU_FTR_ARCH_31.  We follow
 * the change log and Linux.
 */
static inline uint64_t hwbp_powerpc_boundary(const struct hwbp_cpu *cpu)
{
	return (hwbp_powerpc_has_dawr(cpu) && cpu->u.ppc.isa < 310) ?
		HWBP_PPC_DAWR_BOUNDARY : 0;
}

/* Number of data slots: the DAWRs present, or the one DABR. */
static inline unsigned hwbp_powerpc_ndata(const struct hwbp_cpu *cpu)
{
	if (hwbp_powerpc_has_dawr(cpu))
		return !!(cpu->u.ppc.units & HWBP_PPC_DAWR0) +
		       !!(cpu->u.ppc.units & HWBP_PPC_DAWR1);
	return (cpu->u.ppc.units & HWBP_PPC_DABR) ? 1 : 0;
}

/*
 * Data slot -> DAWR register index (0 or 1), or -1.  Slots number the DAWRs
 * present in order, so DAWR0+DAWR1 gives slot n = DAWRn.
 */
static inline int hwbp_powerpc_dawr_index(const struct hwbp_cpu *cpu, unsigned slot)
{
	unsigned n = 0;

	for (int i = 0; i < 2; i++) {
		if (!(cpu->u.ppc.units & (HWBP_PPC_DAWR0 << i)))
			continue;
		if (n++ == slot)
			return i;
	}
	return -1;
}

#endif /* HWBP_POWERPC_H */
