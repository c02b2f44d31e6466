/* SPDX-License-Identifier: MIT */
/*
 * x86: reset values, encoding one piece into DRn/DR7, raw register access.
 */

#include "x86.h"

void hwbpi_x86_reset(const struct hwbp_cpu *cpu, struct hwbp_regs *regs)
{
	(void)cpu;
	for (unsigned i = 0; i < HWBP_X86_SLOTS; i++) {
		regs->u.x86.dr[i] = 0;
		regs->u.x86.addr_mask[i] = 0;
	}
	regs->u.x86.dr6 = HWBP_X86_DR6_RESET;
	regs->u.x86.dr7 = HWBP_X86_DR7_RESET;
}

/* LENn for a native length, or -1 (SDM §17.2.4). */
static int len_field(const struct hwbp_cpu *cpu, uint64_t len)
{
	switch (len) {
	case 1:
		return HWBP_X86_LEN_1;
	case 2:
		return HWBP_X86_LEN_2;
	case 4:
		return HWBP_X86_LEN_4;
	case 8:
		/* LEN=10 means 8 bytes only in 64-bit mode (IA-32e); elsewhere
		 * it is undefined or reserved (SDM §17.2.4). */
		return cpu->u.x86.mode64 ? (int)HWBP_X86_LEN_8 : -1;
	}
	return -1;
}

int hwbpi_x86_encode(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		     unsigned slot, bool inst, const struct hwbp_piece *piece,
		     enum hwbp_scope scope, bool local)
{
	uint64_t addr = piece->addr, len = piece->len, mask = 0;
	unsigned rw;
	int lenf;
	uint64_t dr7;

	if (slot >= HWBP_X86_SLOTS)
		return -EINVAL;
	/*
	 * DR7 has no privilege field, so every scope is "expressible": the
	 * breakpoint simply matches at every CPL and the generic layer filters.
	 * Only a value outside the enum is refused.
	 */
	if (scope != HWBP_SCOPE_BOTH && scope != HWBP_SCOPE_USER &&
	    scope != HWBP_SCOPE_KERNEL)
		return -EINVAL;

	switch (piece->type) {
	case HWBP_X:
		rw = HWBP_X86_RW_X;
		break;
	case HWBP_W:
		rw = HWBP_X86_RW_W;
		break;
	case HWBP_RW:
		rw = HWBP_X86_RW_RW;
		break;
	default:
		/* HWBP_R: R/W=10 is I/O, not a data read (SDM §17.2.4). */
		return -EINVAL;
	}
	/* Shared pool: @inst only has to agree with the piece type. */
	if (inst != (piece->type == HWBP_X))
		return -EINVAL;

	if (!hwbpi_is_pow2(len) || (addr & (len - 1)))
		return -EINVAL;
	/* DRn holds 32 bits outside 64-bit mode (SDM §17.2.6). */
	if (addr > hwbp_x86_addr_max(cpu) - (len - 1))
		return -EINVAL;

	if (piece->type == HWBP_X) {
		/* R/W=00 with LEN other than 00 is undefined (SDM §17.2.4). */
		if (len != 1)
			return -EINVAL;
		lenf = HWBP_X86_LEN_1;
	} else {
		lenf = len_field(cpu, len);
		if (lenf < 0) {
			/*
			 * AMD address mask: a naturally aligned 2^k block is
			 * DRn = base, LEN = 00 and DRn_ADDR_MASK = 2^k - 1, as
			 * Linux arch_build_bp_info() builds it for bp_len > 8
			 * (hw->len = X86_BREAKPOINT_LEN_1, hw->mask = len - 1).
			 * On i386 this is also how an 8-byte piece is held.
			 */
			if (!cpu->u.x86.amd_addr_mask ||
			    len - 1 > HWBP_X86_AMD_MASK_MAX)
				return -EINVAL;
			lenf = HWBP_X86_LEN_1;
			mask = len - 1;
		}
	}

	dr7 = regs->u.x86.dr7;
	/* Clear this slot's L, G, R/W and LEN; leave GD, LE/GE, bit 10 alone. */
	dr7 &= ~(3ull << hwbp_x86_en_shift(slot));
	dr7 &= ~(0xfull << hwbp_x86_rw_shift(slot));
	dr7 |= (local ? 1ull : 2ull) << hwbp_x86_en_shift(slot);
	dr7 |= (uint64_t)rw << hwbp_x86_rw_shift(slot);
	dr7 |= (uint64_t)lenf << hwbp_x86_len_shift(slot);

	regs->u.x86.dr[slot] = addr;
	regs->u.x86.dr7 = dr7;
	/* The mask MSR belongs to this slot; 0 = plain DR compare. */
	regs->u.x86.addr_mask[slot] = mask;
	return 0;
}

/* Register names (lower case, as in docs/scenarios.md). */
static const char *const dr_names[] = { "dr0", "dr1", "dr2", "dr3", "dr6", "dr7" };
static const char *const mask_names[] = { "dr0_mask", "dr1_mask", "dr2_mask", "dr3_mask" };

static uint64_t *reg_ptr(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			 const char *name)
{
	for (unsigned i = 0; i < HWBP_X86_SLOTS; i++) {
		if (hwbpi_streq(name, dr_names[i]))
			return &regs->u.x86.dr[i];
	}
	if (hwbpi_streq(name, "dr6"))
		return &regs->u.x86.dr6;
	if (hwbpi_streq(name, "dr7"))
		return &regs->u.x86.dr7;
	/* The DRn_ADDR_MASK MSRs exist only with the AMD extension. */
	if (cpu->u.x86.amd_addr_mask) {
		for (unsigned i = 0; i < HWBP_X86_SLOTS; i++) {
			if (hwbpi_streq(name, mask_names[i]))
				return &regs->u.x86.addr_mask[i];
		}
	}
	/*
	 * dr4/dr5 alias dr6/dr7 only while CR4.DE = 0 and #UD otherwise
	 * (SDM §17.2.2); that is execution state, left to the simulator.
	 */
	return NULL;
}

int hwbpi_x86_regs_list(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			struct hwbp_reg_nv *out, int max)
{
	struct hwbp_reg_nv all[10];
	int n = 0;

	for (unsigned i = 0; i < HWBP_X86_SLOTS; i++) {
		hwbpi_strlcpy(all[n].name, dr_names[i], sizeof(all[n].name));
		all[n++].value = regs->u.x86.dr[i];
	}
	hwbpi_strlcpy(all[n].name, "dr6", sizeof(all[n].name));
	all[n++].value = regs->u.x86.dr6;
	hwbpi_strlcpy(all[n].name, "dr7", sizeof(all[n].name));
	all[n++].value = regs->u.x86.dr7;
	if (cpu->u.x86.amd_addr_mask) {
		for (unsigned i = 0; i < HWBP_X86_SLOTS; i++) {
			hwbpi_strlcpy(all[n].name, mask_names[i], sizeof(all[n].name));
			all[n++].value = regs->u.x86.addr_mask[i];
		}
	}
	if (n > max)
		n = max;
	memcpy(out, all, (size_t)n * sizeof(all[0]));
	return n;
}

int hwbpi_x86_regs_set(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		       const char *name, uint64_t value)
{
	uint64_t *p = reg_ptr(cpu, regs, name);

	if (!p)
		return -ENOENT;
	/*
	 * Stored raw: what a MOV to DRn would do with reserved bits (#GP for
	 * DR6/DR7 bits 63:32 in 64-bit mode, SDM §17.2.6) is the simulator's
	 * business, and the decoders reject values the hardware cannot hold.
	 */
	*p = value;
	return 0;
}

/*
 * A kernel's glue writes DR0-DR3, DR7 (and the AMD mask MSRs), never DR6:
 * DR6 is the status the CPU sets and the handler clears (SDM §17.2.3).
 */
void hwbpi_x86_regs_apply(struct hwbp_regs *live, const struct hwbp_regs *written)
{
	memcpy(live->u.x86.dr, written->u.x86.dr, sizeof(live->u.x86.dr));
	memcpy(live->u.x86.addr_mask, written->u.x86.addr_mask, sizeof(live->u.x86.addr_mask));
	live->u.x86.dr7 = written->u.x86.dr7;
}

/* One pool of four: DR0-DR3 hold execute and data breakpoints alike. */
size_t hwbpi_x86_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf,
			   size_t n)
{
	(void)cpu;
	(void)inst;
	return hwbpi_fmt_name(buf, n, "dr", slot, true);
}
