/* SPDX-License-Identifier: MIT */
/*
 * x86 debug registers (DR0-DR3, DR6, DR7): the register layout hwbp's
 * encoders and decoders follow, for code that models or programs the
 * hardware itself (a simulator, a kernel's glue).  Field positions, reset
 * values and the small rules that derive a CPU model's slot counts.
 * Only facts of the architecture: no state, no functions with effects.
 *
 * Intel SDM Vol. 3 §17.2 (Debug Registers) and AMD APM Vol. 2 §13.1:
 * four address registers DR0-DR3, a status register DR6 and a control
 * register DR7.  DR7 holds, per slot n, the enables Ln (bit 2n) and Gn
 * (bit 2n+1), R/Wn at bits 16+4n and LENn at bits 18+4n (§17.2.4).
 */
#ifndef HWBP_X86_H
#define HWBP_X86_H

#ifndef __KERNEL__   /* a Linux module: <hwbp/hwbp.h> takes <linux/types.h> */
#include <stdbool.h>
#include <stdint.h>
#endif

#include <hwbp/hwbp.h>

/* DR0-DR3: one pool shared by instruction and data breakpoints. */
#define HWBP_X86_SLOTS 4u

/*
 * Values with nothing armed (SDM §17.2.3/§17.2.4 and Figure 17-1): DR6
 * reads 0xFFFF0FF0 when no condition is recorded (bits 4-11 and 16-31 are
 * reserved and read as 1, bit 12 reads as 0), DR7 bit 10 is reserved and
 * reads as 1.
 */
#define HWBP_X86_DR6_RESET 0xffff0ff0ull
#define HWBP_X86_DR7_RESET 0x400ull

/* DR6.B0-B3 (bits 0-3): breakpoint condition n was met (SDM §17.2.3). */
#define HWBP_X86_DR6_B_MASK 0xfull

/* R/Wn encodings (SDM §17.2.4).  10b is an I/O breakpoint (CR4.DE). */
#define HWBP_X86_RW_X 0u
#define HWBP_X86_RW_W 1u
#define HWBP_X86_RW_IO 2u
#define HWBP_X86_RW_RW 3u

/* LENn encodings (SDM §17.2.4): 00 1 byte, 01 2, 11 4, 10 8 (64-bit only). */
#define HWBP_X86_LEN_1 0u
#define HWBP_X86_LEN_2 1u
#define HWBP_X86_LEN_8 2u
#define HWBP_X86_LEN_4 3u

/*
 * Bytes a LEN field selects (SDM §17.2.5): 00 = 1, 01 = 2, 11 = 4, 10 = 8.
 * LEN=10 is 8 bytes only in 64-bit mode; callers decide what it means
 * elsewhere (the decoder refuses it, the simulator's models choose).
 */
static inline unsigned hwbp_x86_len_bytes(unsigned lenf)
{
	static const unsigned char bytes[4] = { 1, 2, 8, 4 };

	return bytes[lenf & 3u];
}

/*
 * AMD breakpoint address-mask extension (CPUID Fn8000_0001_ECX[26]
 * DataBkptExt, Linux X86_FEATURE_BPEXT; MSRs DR0_ADDR_MASK C001_1027 and
 * DR1..DR3_ADDR_MASK C001_1019..C001_101B).  A set mask bit drops that
 * address bit from the DRn compare.  With DataBkptExt alone only mask bits
 * 11:0 exist: VirtualBox's CPU database, probed on a Family 15h part, shows
 * DR0_ADDR_MASK bits 63:12 as write-ignored.  CPUID Fn8000_0001_ECX[30]
 * AddrMaskExt ("breakpoint address masking extended to bit 31") widens it
 * to 31:0 (a Zen 1 part shows bits 31:0 writable; Xen and Linux only ever
 * write the low 32 bits).  struct hwbp_cpu has one flag, so it is read as
 * the DataBkptExt guarantee: a mask of at most 12 bits, 4 KiB blocks.
 */
#define HWBP_X86_AMD_MASK_MAX 0xfffull

static inline unsigned hwbp_x86_en_shift(unsigned slot) { return 2u * slot; }
static inline unsigned hwbp_x86_rw_shift(unsigned slot) { return 16u + 4u * slot; }
static inline unsigned hwbp_x86_len_shift(unsigned slot) { return 18u + 4u * slot; }

/* The slots DR7 enables (Ln or Gn), as a mask of DR0-DR3: what a #DB
 * handler honours of DR6's B0-B3 (SDM Vol. 3 §17.2.3). */
static inline uint32_t hwbp_x86_enabled_slots(uint64_t dr7)
{
	uint32_t m = 0;

	for (unsigned i = 0; i < HWBP_X86_SLOTS; i++)
		if ((dr7 >> hwbp_x86_en_shift(i)) & 3u)
			m |= 1u << i;
	return m;
}

/* Highest linear address a DRn can name: DRn are 32 bits outside 64-bit mode. */
static inline uint64_t hwbp_x86_addr_max(const struct hwbp_cpu *cpu)
{
	return cpu->u.x86.mode64 ? UINT64_MAX : 0xffffffffull;
}

/* Largest naturally aligned data piece one slot can watch. */
static inline uint64_t hwbp_x86_max_piece(const struct hwbp_cpu *cpu)
{
	if (cpu->u.x86.amd_addr_mask)
		return HWBP_X86_AMD_MASK_MAX + 1;
	return cpu->u.x86.mode64 ? 8 : 4;
}

#endif /* HWBP_X86_H */
