/* SPDX-License-Identifier: MIT */
/*
 * powerpc (Book III-S) debug facilities: register layout shared by caps.c,
 * encode.c and decode.c.
 *
 * Bit numbers below are LSB-0 (value = 1 << n).  The Power ISA numbers bits
 * MSB-0 in a 64-bit register, so ISA bit b is 1 << (63 - b); each constant
 * names the ISA bit it comes from.  Sources: Power ISA v3.1 Book III ch. 9
 * ("Debug Facilities": DAWRn/DAWRXn, CIABR; DABR/DABRX in v2.06 Book III-S
 * §9.3), cross-checked against Linux arch/powerpc/include/asm/reg.h
 * (DAWRX_*, DABRX_*, CIABR_PRIV_*) and arch/powerpc/kernel/dawr.c set_dawr().
 */
#ifndef HWBP_ARCH_POWERPC_H
#define HWBP_ARCH_POWERPC_H

#include "internal.h"

/* DAWRXn fields (ISA bits 48:63). */
#define HWBPI_PPC_DAWRX_PRO 0x0001ull   /* ISA 63: match in problem state */
#define HWBPI_PPC_DAWRX_PNH 0x0002ull   /* ISA 62: privileged non-hypervisor */
#define HWBPI_PPC_DAWRX_HYP 0x0004ull   /* ISA 61: hypervisor state */
#define HWBPI_PPC_DAWRX_PRIV 0x0007ull
#define HWBPI_PPC_DAWRX_WTI 0x0008ull   /* ISA 60: ignore MSR[DR] vs WT */
#define HWBPI_PPC_DAWRX_WT 0x0010ull    /* ISA 59: match only if MSR[DR] == WT */
#define HWBPI_PPC_DAWRX_DR 0x0020ull    /* ISA 58: match loads */
#define HWBPI_PPC_DAWRX_DW 0x0040ull    /* ISA 57: match stores */
#define HWBPI_PPC_DAWRX_MRD_SHIFT 10    /* ISA 48:53: doublewords - 1 */
#define HWBPI_PPC_DAWRX_MRD_MASK 0x3full

/* DABR low bits (ISA bits 61:63) and DABRX (ISA bits 60:63). */
#define HWBPI_PPC_DABR_DR 0x1ull        /* ISA 63: data read */
#define HWBPI_PPC_DABR_DW 0x2ull        /* ISA 62: data write */
#define HWBPI_PPC_DABR_BT 0x4ull        /* ISA 61: breakpoint translation */
#define HWBPI_PPC_DABRX_USER 0x1ull     /* ISA 63: problem state */
#define HWBPI_PPC_DABRX_KERNEL 0x2ull   /* ISA 62: privileged non-hypervisor */
#define HWBPI_PPC_DABRX_HYP 0x4ull      /* ISA 61: hypervisor state */
#define HWBPI_PPC_DABRX_PRIV 0x7ull
#define HWBPI_PPC_DABRX_BTI 0x8ull      /* ISA 60: ignore MSR[DR] vs BT */

/* CIABR: CEA in ISA bits 0:61, PRIV in ISA bits 62:63. */
#define HWBPI_PPC_CIABR_PRIV 0x3ull
#define HWBPI_PPC_CIABR_PRIV_USER 0x1ull   /* MSR[PR] = 1 */
#define HWBPI_PPC_CIABR_PRIV_SUPER 0x2ull  /* MSR[HV PR] = 0b00 */
#define HWBPI_PPC_CIABR_PRIV_HYPER 0x3ull  /* MSR[HV PR] = 0b10 */

/* DSISR bits of a Data Storage interrupt (vector 0x300). */
#define HWBPI_PPC_DSISR_STORE 0x02000000ull     /* ISA 38: access was a store */
#define HWBPI_PPC_DSISR_DABRMATCH 0x00400000ull /* ISA 41: DABR/DAWR match */

#define HWBPI_PPC_VEC_DSI 0x300ull
#define HWBPI_PPC_VEC_TRACE 0xd00ull
/* SRR1 bit 43 (IBM numbering, = 1 << 20): the Trace interrupt was caused
 * by a CIABR match (Linux reg.h; QEMU sets it with bit 33). */
#define HWBPI_PPC_SRR1_CIABR 0x00100000ull

#define HWBPI_PPC_DW 8ull           /* matching granule: one doubleword */
#define HWBPI_PPC_DAWR_MAX 512ull   /* 64 doublewords (6-bit MRD) */
#define HWBPI_PPC_DAWR_BOUNDARY 512ull

/* True when data slots are DAWRs (DAWR preferred over DABR, as Linux does). */
static inline bool hwbpi_powerpc_has_dawr(const struct hwbp_cpu *cpu)
{
	return (cpu->u.ppc.units & (HWBP_PPC_DAWR0 | HWBP_PPC_DAWR1)) != 0;
}

static inline bool hwbpi_powerpc_dabr_mode(const struct hwbp_cpu *cpu)
{
	return !hwbpi_powerpc_has_dawr(cpu) && (cpu->u.ppc.units & HWBP_PPC_DABR);
}

static inline bool hwbpi_powerpc_has_ciabr(const struct hwbp_cpu *cpu)
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
static inline uint64_t hwbpi_powerpc_boundary(const struct hwbp_cpu *cpu)
{
	return (hwbpi_powerpc_has_dawr(cpu) && cpu->u.ppc.isa < 310) ?
		HWBPI_PPC_DAWR_BOUNDARY : 0;
}

/* Number of data slots: the DAWRs present, or the one DABR. */
static inline unsigned hwbpi_powerpc_ndata(const struct hwbp_cpu *cpu)
{
	if (hwbpi_powerpc_has_dawr(cpu))
		return !!(cpu->u.ppc.units & HWBP_PPC_DAWR0) +
		       !!(cpu->u.ppc.units & HWBP_PPC_DAWR1);
	return (cpu->u.ppc.units & HWBP_PPC_DABR) ? 1 : 0;
}

/*
 * Data slot -> DAWR register index (0 or 1), or -1.  Slots number the DAWRs
 * present in order, so DAWR0+DAWR1 gives slot n = DAWRn.
 */
static inline int hwbpi_powerpc_dawr_index(const struct hwbp_cpu *cpu, unsigned slot)
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

/* Functions of decode.c and encode.c that the ops table in caps.c needs. */
void hwbpi_powerpc_reset(const struct hwbp_cpu *cpu, struct hwbp_regs *regs);
int hwbpi_powerpc_encode(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			 unsigned slot, bool inst, const struct hwbp_piece *piece,
			 enum hwbp_scope scope, bool local);
int hwbpi_powerpc_regs_list(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			    struct hwbp_reg_nv *out, int max);
int hwbpi_powerpc_regs_set(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			   const char *name, uint64_t value);
int hwbpi_powerpc_decode_slot(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			      unsigned slot, bool inst, struct hwbp_piece *piece,
			      enum hwbp_scope *scope);
int hwbpi_powerpc_decode_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
				const struct hwbp_status *st, struct hwbp_hit *hit);
void hwbpi_powerpc_regs_apply(struct hwbp_regs *live, const struct hwbp_regs *written);
size_t hwbpi_powerpc_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf,
			       size_t n);
int hwbpi_powerpc_status_set(struct hwbp_status *st, const char *name, uint64_t value);
extern const char *const hwbpi_powerpc_status_fields[];

#endif /* HWBP_ARCH_POWERPC_H */
