/* SPDX-License-Identifier: MIT */
/*
 * arm64 capabilities and the splitting of a request into watchpoint /
 * breakpoint pieces.
 *
 * A watchpoint (DBGWCR<n>_EL1 + DBGWVR<n>_EL1, Arm ARM D2 "Watchpoint
 * exceptions") watches either
 *   - any contiguous run of bytes inside the doubleword at DBGWVR (BAS,
 *     one bit per byte; non-contiguous BAS is CONSTRAINED UNPREDICTABLE), or
 *   - a naturally aligned block of 2^MASK bytes, MASK 3..31 (up to 2 GiB),
 *     with BAS = 0xFF and DBGWVR aligned to the block (MASK 1 and 2 are
 *     reserved).
 * A breakpoint (DBGBCR/DBGBVR, BT = 0b0000 unlinked address match) watches
 * one A64 instruction: 4 bytes, 4-aligned, BAS = 0b1111.
 * Counts come from ID_AA64DFR0_EL1.BRPs [15:12] and WRPs [23:20], each
 * holding "count - 1" (Arm ARM ID_AA64DFR0_EL1; Linux get_num_brps() /
 * get_num_wrps() in arch/arm64/include/asm/hw_breakpoint.h add one too).
 */

#include "arm64.h"

static void arm64_caps(const struct hwbp_cpu *cpu, struct hwbp_caps *caps)
{
	caps->arch = HWBP_ARCH_ARM64;
	caps->data_slots = hwbp_arm64_nwrp(cpu);
	caps->inst_slots = hwbp_arm64_nbrp(cpu);
	/* Breakpoints and watchpoints are separate register pairs. */
	caps->shared = false;
	/* LSC 01 load, 10 store, 11 both; breakpoints for execute. */
	caps->types = (1u << HWBP_R) | (1u << HWBP_W) | (1u << HWBP_RW) | (1u << HWBP_X);
	caps->align = HWBP_ALIGN_BAS;
	caps->min_piece = 1;
	caps->max_piece = HWBP_ARM64_MAX_PIECE;
	/* BAS selects single bytes: matching is byte-granular. */
	caps->granule = 1;
	/*
	 * No boundary a piece must avoid beyond its own shape (a BAS piece
	 * stays inside its doubleword by construction); split() handles it.
	 */
	caps->boundary = 0;
	caps->inst_len = HWBP_ARM64_INST_LEN;
	caps->inst_align = HWBP_ARM64_INST_LEN;
	/*
	 * Watchpoint and breakpoint exceptions are taken before the
	 * instruction executes: ELR points at the load/store (Arm ARM D2,
	 * "Watchpoint exceptions"); Linux steps over it with the watchpoint
	 * disabled (watchpoint_handler() in arch/arm64/kernel/hw_breakpoint.c).
	 */
	caps->data_timing = HWBP_TIMING_BEFORE;
	caps->inst_timing = HWBP_TIMING_BEFORE;
	/*
	 * FAR is only known to lie between the lowest accessed byte and the
	 * highest watched byte accessed, inside a naturally aligned block no
	 * larger than the DC ZVA block (Arm ARM "Determining the memory
	 * location that caused a Watchpoint exception").
	 */
	caps->precision = HWBP_ADDR_WINDOW;
	/* ESR_ELx.ISS.WnR (bit 6) tells a store from a load. */
	caps->kind_known = true;
	/* PAC/PMC select EL0, EL1 or both. */
	caps->priv_filter = true;
	caps->io_ports = false;
	/*
	 * DC ZVA zeroes one block of DCZID_EL0.BS: 64 bytes on the modelled
	 * CPUs (Cortex-A53/A57 TRMs, QEMU's default), a store of each byte.
	 */
	caps->zero_block = 64;
	/*
	 * 48-bit VAs: TTBR0 covers 0..2^48-1 (user), TTBR1 the top 2^48
	 * bytes (kernel).  Larger VA sizes (FEAT_LVA) are not modelled.
	 */
	caps->user_max = 0x0000ffffffffffffull;
	caps->kernel_min = 0xffff000000000000ull;
	caps->addr_max = UINT64_MAX;
}

/* Largest power of two <= x (x >= 1). */
static uint64_t pow2_floor(uint64_t x)
{
	while (x & (x - 1))
		x &= x - 1;
	return x;
}

static void put(struct hwbp_piece *out, unsigned max, uint64_t n, uint64_t addr, uint64_t len)
{
	if (n < max) {
		memset(&out[n], 0, sizeof(out[n]));
		out[n].addr = addr;
		out[n].len = len;
	}
}

/*
 * Data tiling.  Every piece is either a BAS piece (contiguous bytes inside
 * one doubleword) or an aligned 2^k block with 8 <= 2^k <= 2 GiB, which is a
 * union of whole doublewords.  Hence a doubleword the request covers only
 * partly can only be covered by BAS pieces, and one BAS piece holds all of
 * its requested bytes (they are contiguous): one piece for the head and one
 * for the tail is optimal.  The whole doublewords in between form an
 * interval in units of 8 bytes, and the fewest aligned power-of-two blocks
 * tiling an interval are what the greedy "largest aligned block that fits"
 * picks (each greedy block is maximal: any optimal tiling must split it at
 * least as finely).  An 8-byte block is BAS 0xFF with MASK 0; larger ones
 * use MASK = k.
 */
static unsigned split_data(uint64_t addr, uint64_t len, struct hwbp_piece *out, unsigned max)
{
	uint64_t a = addr, r = len, n = 0;

	while (r) {
		uint64_t plen;

		if ((a & 7) || r < 8) {
			plen = 8 - (a & 7);
			if (plen > r)
				plen = r;
		} else if (n >= max && (a & (HWBP_ARM64_MAX_PIECE - 1)) == 0 &&
			   r >= HWBP_ARM64_MAX_PIECE) {
			/*
			 * Only counting now: a run of 2 GiB blocks in one step,
			 * so that huge kernel ranges do not loop 2^17 times.
			 */
			uint64_t k = r >> HWBP_ARM64_MASK_MAX;

			n += k;
			a += k << HWBP_ARM64_MASK_MAX;
			r -= k << HWBP_ARM64_MASK_MAX;
			continue;
		} else {
			uint64_t align = a ? (a & (~a + 1)) : (1ull << 63);

			plen = pow2_floor(r);
			if (plen > align)
				plen = align;
			if (plen > HWBP_ARM64_MAX_PIECE)
				plen = HWBP_ARM64_MAX_PIECE;
		}
		put(out, max, n, a, plen);
		n++;
		a += plen;
		r -= plen;
	}
	return n > HWBPI_UINT_MAX ? HWBPI_UINT_MAX : (unsigned)n;
}

static unsigned arm64_split(const struct hwbp_cpu *cpu, bool inst, uint64_t addr,
			    uint64_t len, struct hwbp_piece *out, unsigned max)
{
	(void)cpu;
	if (inst) {
		/*
		 * One breakpoint per A64 instruction: DBGBCR has no MASK
		 * (bits [28:24] are RES0 for breakpoints), so a range of
		 * instructions needs one slot each.  Generic code guarantees
		 * addr and len are multiples of 4.
		 */
		uint64_t n = len / HWBP_ARM64_INST_LEN;

		for (uint64_t i = 0; i < n && i < max; i++)
			put(out, max, i, addr + i * HWBP_ARM64_INST_LEN, HWBP_ARM64_INST_LEN);
		return n > HWBPI_UINT_MAX ? HWBPI_UINT_MAX : (unsigned)n;
	}
	return split_data(addr, len, out, max);
}

/*
 * ID_AA64DFR0_EL1 (Arm ARM D19.2): DebugVer [3:0], BRPs [15:12] and WRPs
 * [23:20] hold the count minus one, CTX_CMPs [31:28].  Cortex-A57 and
 * Cortex-A53 read 0x10305106: Armv8 debug, 6 breakpoints, 4 watchpoints
 * (their TRMs; QEMU's cortex-a57 model uses the same value).
 */
#define DFR0_A57 0x10305106ull
#define DFR0_MAX16 0x10f0f006ull

#define A64(n, dfr0) { n, { .arch = HWBP_ARCH_ARM64, .u.arm64 = { dfr0 } } }

static const struct hwbpi_preset arm64_presets[] = {
	A64("cortex-a57", DFR0_A57),
	A64("cortex-a53", DFR0_A57),
	A64("arm64-max16", DFR0_MAX16),
};

int hwbp_cpu_arm64_from_dfr0(uint64_t dfr0, struct hwbp_cpu *out)
{
	if (!out)
		return -EINVAL;
	/* DebugVer 6 is Armv8 debug; lower values are Armv7 or absent. */
	if ((dfr0 & 0xf) < 6)
		return -EINVAL;
	/*
	 * The 4-bit count fields cannot say more than 16.  From Armv8.9
	 * (DebugVer 0xb) a value of 0xf may mean "see ID_AA64DFR1_EL1" for
	 * up to 64; hwbp's fixed-size tables stop at 16, so refuse that
	 * reading rather than silently truncate.
	 */
	if ((dfr0 & 0xf) >= 0xb && (((dfr0 >> 12) & 0xf) == 0xf || ((dfr0 >> 20) & 0xf) == 0xf))
		return -EOPNOTSUPP;
	memset(out, 0, sizeof(*out));
	out->arch = HWBP_ARCH_ARM64;
	out->u.arm64.dfr0 = dfr0;
	hwbpi_strlcpy(out->name, "arm64-dfr0", sizeof(out->name));
	return 0;
}

const struct hwbpi_arch_ops hwbpi_arm64_ops = {
	.arch = HWBP_ARCH_ARM64,
	.name = "arm64",
	.caps = arm64_caps,
	/*
	 * No extra rule: generic code already enforces the 4-byte execute
	 * granule (inst_len/inst_align) and the user/kernel halves; every
	 * type and scope is expressible with PAC/PMC and LSC.
	 */
	.check = NULL,
	.split = arm64_split,
	.reset = hwbpi_arm64_reset,
	.encode = hwbpi_arm64_encode,
	.decode_slot = hwbpi_arm64_decode_slot,
	.decode_status = hwbpi_arm64_decode_status,
	.regs_list = hwbpi_arm64_regs_list,
	.regs_set = hwbpi_arm64_regs_set,
	.regs_apply = hwbpi_arm64_regs_apply,
	.slot_name = hwbpi_arm64_slot_name,
	.status_set = hwbpi_arm64_status_set,
	.status_fields = hwbpi_arm64_status_fields,
	.status_hint = "esr (and far)",
	.presets = arm64_presets,
	.npresets = sizeof(arm64_presets) / sizeof(arm64_presets[0]),
};
