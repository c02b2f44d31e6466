/* SPDX-License-Identifier: MIT */
/*
 * x86: capabilities and splitting a range into DR0-DR3 pieces.
 */

#include "x86.h"

static void x86_caps(const struct hwbp_cpu *cpu, struct hwbp_caps *caps)
{
	/* DR0-DR3 serve instruction and data breakpoints alike (SDM §17.2.1). */
	caps->data_slots = HWBP_X86_SLOTS;
	caps->inst_slots = HWBP_X86_SLOTS;
	caps->shared = true;
	/*
	 * R/Wn (SDM §17.2.4) has execute (00), write (01) and read-or-write
	 * (11); 10 is I/O, not memory.  There is no read-only encoding.
	 */
	caps->types = (1u << HWBP_W) | (1u << HWBP_RW) | (1u << HWBP_X);
	/*
	 * LENn gives 1, 2, 4 and (in 64-bit mode, LEN=10) 8 bytes, and the
	 * address bits below LEN are ignored (SDM §17.2.5), so a piece is a
	 * naturally aligned power of two.  The AMD address mask keeps that
	 * shape and only raises the ceiling (see x86.h).
	 */
	caps->align = HWBP_ALIGN_NATURAL;
	caps->min_piece = 1;
	caps->max_piece = hwbp_x86_max_piece(cpu);
	caps->granule = 1;
	caps->boundary = 0;
	/*
	 * An instruction breakpoint matches the first byte of an instruction
	 * and must use LEN=00 (SDM §17.2.4: other lengths are undefined for
	 * R/W=00; Linux accepts only X86_BREAKPOINT_LEN_X, i.e. LEN 00).
	 */
	caps->inst_len = 1;
	caps->inst_align = 1;
	/*
	 * Data breakpoints are traps taken after the access; instruction
	 * breakpoints are faults taken before the instruction (SDM §17.2.4,
	 * §17.3.1.1, §17.3.1.2).
	 */
	caps->data_timing = HWBP_TIMING_AFTER;
	caps->inst_timing = HWBP_TIMING_BEFORE;
	/* DR6 names slots (B0-B3), never the address or read vs write. */
	caps->precision = HWBP_ADDR_NONE;
	caps->kind_known = false;
	/* DR7 has no privilege field: a breakpoint matches at every CPL. */
	caps->priv_filter = false;
	/* R/W = 10b watches I/O ports once CR4.DE is set (SDM §17.2.4). */
	caps->io_ports = true;
	caps->zero_block = 0;     /* no cache-block zeroing instruction */
	if (cpu->u.x86.mode64 && cpu->u.x86.la57) {
		/* With 5-level paging a linear address is canonical when bits
		 * 63:57 copy bit 56 (SDM Vol. 3A §4.5, "4-level paging and
		 * 5-level paging"): Linux then maps its per-CPU areas and
		 * direct map below 0xffff800000000000. */
		caps->user_max = 0x00ffffffffffffffull;
		caps->kernel_min = 0xff00000000000000ull;
		caps->addr_max = UINT64_MAX;
	} else if (cpu->u.x86.mode64) {
		/* 48-bit canonical split (SDM Vol. 1 §3.3.7.1). */
		caps->user_max = 0x00007fffffffffffull;
		caps->kernel_min = 0xffff800000000000ull;
		caps->addr_max = UINT64_MAX;
	} else {
		/* The classic i386 3G/1G split (Linux PAGE_OFFSET 0xC0000000). */
		caps->user_max = 0xbfffffffull;
		caps->kernel_min = 0xc0000000ull;
		caps->addr_max = 0xffffffffull;
	}
}

/* Largest power of two <= x (x >= 1). */
static uint64_t pow2_floor(uint64_t x)
{
	uint64_t p = 1;

	while (p <= x / 2)
		p <<= 1;
	return p;
}

/*
 * Data: at each step take the largest naturally aligned power-of-two block
 * that starts at the current address, is <= max_piece and fits in the bytes
 * left.  This is minimal: aligned power-of-two blocks are either nested or
 * disjoint, so in any tiling every block that starts inside the greedy
 * block [a, a+g) lies inside it (a larger block starting in (a, a+g) would
 * have to start on a multiple of 2g, and there is none there; the block at
 * a itself is at most g by the choice of g).  Hence any tiling spends at
 * least one block on [a, a+g) where greedy spends exactly one, and
 * replacing them keeps it a tiling; induction on the rest.
 *
 * Execute: an instruction breakpoint is LEN=00 only, one byte each.
 */
static unsigned x86_split(const struct hwbp_cpu *cpu, bool inst, uint64_t addr,
			  uint64_t len, struct hwbp_piece *out, unsigned max)
{
	uint64_t maxp = hwbp_x86_max_piece(cpu);
	uint64_t left = len, mid;
	unsigned n = 0;

	if (inst) {
		uint64_t count = len > HWBPI_UINT_MAX ? HWBPI_UINT_MAX : len;

		for (uint64_t i = 0; i < count && i < max; i++)
			out[i] = (struct hwbp_piece){ .addr = addr + i, .len = 1 };
		return (unsigned)count;
	}
	/* Head: greedy steps until addr is aligned to max_piece. */
	while (left && (addr & (maxp - 1))) {
		uint64_t size = pow2_floor(left);
		uint64_t align = addr & -addr;

		if (size > align)
			size = align;
		if (size > maxp)
			size = maxp;
		if (n < max)
			out[n] = (struct hwbp_piece){ .addr = addr, .len = size };
		n++;
		left -= size;
		addr += size;
	}
	/*
	 * Middle: from an address aligned to max_piece every greedy step takes
	 * a whole max_piece while one fits; count them without looping over
	 * possibly 2^61 of them.
	 */
	mid = left / maxp;
	for (uint64_t i = 0; i < mid && n + i < max; i++)
		out[n + i] = (struct hwbp_piece){ .addr = addr + i * maxp, .len = maxp };
	n = (mid > (uint64_t)(HWBPI_UINT_MAX - n)) ? HWBPI_UINT_MAX : n + (unsigned)mid;
	addr += mid * maxp;   /* wraps to 0 only when nothing is left */
	left -= mid * maxp;
	/* Tail: fewer than max_piece bytes from an aligned address. */
	while (left) {
		uint64_t size = pow2_floor(left);

		if (n < max)
			out[n] = (struct hwbp_piece){ .addr = addr, .len = size };
		if (n < HWBPI_UINT_MAX)
			n++;
		left -= size;
		addr += size;
	}
	return n;
}

#define X86(n, m64, amd) { n, { .arch = HWBP_ARCH_X86, .u.x86 = { m64, amd, false } } }

static const struct hwbpi_preset x86_presets[] = {
	X86("x86_64", true, false),
	X86("i386", false, false),
	X86("x86_64-amd", true, true),
};

const struct hwbpi_arch_ops hwbpi_x86_ops = {
	.arch = HWBP_ARCH_X86,
	.name = "x86",
	.caps = x86_caps,
	/*
	 * No arch rule is left for check(): R is not native (generic answers
	 * -EOPNOTSUPP or widens to RW), execute requests are already cut to
	 * inst_len = 1 byte pieces, addresses above 4 GiB on i386 fail on
	 * addr_max, and any scope is accepted because the hardware has no
	 * privilege filter (generic filters hits by scope when it can).
	 */
	.check = NULL,
	.split = x86_split,
	.reset = hwbpi_x86_reset,
	.encode = hwbpi_x86_encode,
	.decode_slot = hwbpi_x86_decode_slot,
	.decode_status = hwbpi_x86_decode_status,
	.regs_list = hwbpi_x86_regs_list,
	.regs_set = hwbpi_x86_regs_set,
	.regs_apply = hwbpi_x86_regs_apply,
	.slot_name = hwbpi_x86_slot_name,
	.status_set = hwbpi_x86_status_set,
	.status_fields = hwbpi_x86_status_fields,
	.status_hint = "dr6",
	.presets = x86_presets,
	.npresets = sizeof(x86_presets) / sizeof(x86_presets[0]),
};
