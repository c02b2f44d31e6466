/* SPDX-License-Identifier: MIT */
/*
 * x86: reading back DR0-DR3/DR7 and decoding DR6.
 */

#include "x86.h"

static bool slot_enabled(uint64_t dr7, unsigned slot)
{
	/* Either Ln or Gn arms the slot (SDM §17.2.4). */
	return (dr7 >> hwbp_x86_en_shift(slot)) & 3u;
}

static unsigned slot_rw(uint64_t dr7, unsigned slot)
{
	return (dr7 >> hwbp_x86_rw_shift(slot)) & 3u;
}

int hwbpi_x86_decode_slot(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			  unsigned slot, bool inst, struct hwbp_piece *piece,
			  enum hwbp_scope *scope)
{
	uint64_t dr7 = regs->u.x86.dr7, addr, len, mask = 0;
	unsigned rw, lenf;

	/*
	 * @inst is not checked: DR0-DR3 are one pool, and what a slot holds
	 * (execute or data) is reported in piece->type.
	 */
	(void)inst;
	if (slot >= HWBP_X86_SLOTS)
		return -EINVAL;
	if (!slot_enabled(dr7, slot))
		return 0;

	rw = slot_rw(dr7, slot);
	lenf = (dr7 >> hwbp_x86_len_shift(slot)) & 3u;
	/* R/W=10 is an I/O breakpoint (only with CR4.DE), not memory. */
	if (rw == HWBP_X86_RW_IO)
		return -EINVAL;
	/* LEN=10: 8 bytes in 64-bit mode, undefined elsewhere. */
	if (lenf == HWBP_X86_LEN_8 && !cpu->u.x86.mode64)
		return -EINVAL;
	len = hwbp_x86_len_bytes(lenf);
	/* Execute with LEN != 00 is undefined (SDM §17.2.4). */
	if (rw == HWBP_X86_RW_X && len != 1)
		return -EINVAL;

	addr = regs->u.x86.dr[slot];
	/* Outside 64-bit mode DRn is 32 bits wide (SDM §17.2.6). */
	if (addr > hwbp_x86_addr_max(cpu))
		return -EINVAL;

	if (cpu->u.x86.amd_addr_mask)
		mask = regs->u.x86.addr_mask[slot];
	if (mask) {
		/*
		 * Only the shape Linux programs is given a meaning: a data
		 * breakpoint with LEN=00 and a mask of low contiguous bits
		 * within the 12 DataBkptExt bits.  A mask on an execute
		 * breakpoint (the extension is for data accesses), combined
		 * with LEN != 00, with holes (non-contiguous watched set) or
		 * wider than the extension, is refused.
		 */
		if (rw == HWBP_X86_RW_X || lenf != HWBP_X86_LEN_1 ||
		    mask > HWBP_X86_AMD_MASK_MAX || !hwbpi_is_pow2(mask + 1))
			return -EINVAL;
		len = mask + 1;
	}
	/*
	 * The hardware ignores the address bits below LEN (and below the
	 * mask): a misaligned DRn watches the aligned block (SDM §17.2.5).
	 */
	addr &= ~(len - 1);

	memset(piece, 0, sizeof(*piece));
	piece->addr = addr;
	piece->len = len;
	piece->cover_lo = addr;
	piece->cover_len = len;
	piece->type = rw == HWBP_X86_RW_X ? HWBP_X :
		      rw == HWBP_X86_RW_W ? HWBP_W : HWBP_RW;
	/* Matches at every CPL: there is no privilege field in DR7. */
	*scope = HWBP_SCOPE_BOTH;
	return 1;
}

int hwbpi_x86_decode_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			    const struct hwbp_status *st, struct hwbp_hit *hit)
{
	uint64_t dr7 = regs->u.x86.dr7;
	uint32_t b = (uint32_t)(st->u.x86.dr6 & HWBP_X86_DR6_B_MASK);
	uint32_t hits = 0;
	bool all_x = true, all_w = true;

	(void)cpu;
	/*
	 * No B0-B3 bit: single step (BS), debug-register access (BD), task
	 * switch (BT) or nothing at all -- not a breakpoint event.
	 */
	if (!b)
		return -EINVAL;
	/*
	 * B bits can be set for slots whose condition matched although Ln/Gn
	 * are clear (SDM §17.2.3), so keep only the enabled ones.
	 */
	for (unsigned i = 0; i < HWBP_X86_SLOTS; i++) {
		unsigned rw;

		if (!((b >> i) & 1u) || !slot_enabled(dr7, i))
			continue;
		hits |= 1u << i;
		rw = slot_rw(dr7, i);
		if (rw != HWBP_X86_RW_X)
			all_x = false;
		if (rw != HWBP_X86_RW_W)
			all_w = false;
	}
	if (!hits)
		return -ENOENT;

	/* Shared pool: hits go to data_slots (see internal conventions). */
	hit->data_slots = hits;
	hit->inst_slots = 0;
	/*
	 * DR6 never says read or write.  Only when every reported slot is of
	 * one type is the kind implied: execute slots fire on instruction
	 * fetch, write-only slots only on writes.
	 */
	if (all_x)
		hit->kind = HWBP_X;
	else if (all_w)
		hit->kind = HWBP_W;
	else
		hit->kind = 0;
	/*
	 * An instruction breakpoint is a fault on the instruction whose first
	 * byte is DRn, so the address is known; a data trap gives none.
	 */
	if (all_x) {
		unsigned first = 0;

		while (!((hits >> first) & 1u))
			first++;

		hit->addr = regs->u.x86.dr[first];
		hit->addr_known = true;
	} else {
		hit->addr = 0;
		hit->addr_known = false;
	}
	hit->ip = st->ip;
	return 0;
}

/* The status a #DB handler reads: DR6 alone names the slots. */
const char *const hwbpi_x86_status_fields[] = { "dr6", NULL };

int hwbpi_x86_status_set(struct hwbp_status *st, const char *name, uint64_t value)
{
	if (!hwbpi_streq(name, "dr6"))
		return -ENOENT;
	st->u.x86.dr6 = value;
	return 1;
}
