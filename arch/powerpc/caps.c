/* SPDX-License-Identifier: MIT */
/*
 * powerpc capabilities, arch rules and splitting.
 *
 * Data watchpoints: DABR (ISA v2.06, one doubleword) or DAWR0/DAWR1
 * (ISA v2.07+, up to 64 doublewords each; DAWR1 from v3.1).  Both match
 * whole doublewords, so a piece is always a run of aligned doublewords.
 * Instruction breakpoint: CIABR (ISA v2.07+), one instruction address.
 */

#include "powerpc.h"

static void ppc_caps(const struct hwbp_cpu *cpu, struct hwbp_caps *caps)
{
	bool dawr = hwbp_powerpc_has_dawr(cpu);
	unsigned ndata = hwbp_powerpc_ndata(cpu);

	caps->arch = HWBP_ARCH_POWERPC;
	caps->data_slots = ndata;
	caps->inst_slots = hwbp_powerpc_has_ciabr(cpu) ? 1 : 0;
	caps->shared = false;  /* CIABR and DAWR/DABR are separate registers */
	caps->types = 0;
	if (ndata)
		caps->types |= (1u << HWBP_R) | (1u << HWBP_W) | (1u << HWBP_RW);
	if (caps->inst_slots)
		caps->types |= 1u << HWBP_X;
	caps->align = HWBP_ALIGN_DWORD;
	caps->min_piece = HWBP_PPC_DW;
	/* DAWRX[MRD] is 6 bits of "doublewords - 1": 64 DW; DABR is one DW. */
	caps->max_piece = dawr ? HWBP_PPC_DAWR_MAX : HWBP_PPC_DW;
	caps->granule = HWBP_PPC_DW;
	/* DABR pieces are a single aligned doubleword: nothing to cross. */
	caps->boundary = hwbp_powerpc_boundary(cpu);
	caps->inst_len = 4;
	caps->inst_align = 4;
	/*
	 * A DAWR/DABR match raises a Data Storage interrupt before the access
	 * is performed (Book III §9.4; Linux single-steps the load/store after
	 * the hit, selftests ptrace-hwbreak.c check_success()).
	 */
	caps->data_timing = HWBP_TIMING_BEFORE;
	/*
	 * CIABR is the *Completed* Instruction Address Breakpoint: the match
	 * is recognised when the instruction completes and a Trace interrupt
	 * (0xD00) follows, with SRR0 at the next instruction (Linux commit
	 * "powerpc/xmon: Enable HW instruction breakpoint on POWER8": "Because
	 * CIABR fires on completion regs->nip points to the instruction after
	 * the breakpoint").  So the instruction has executed: AFTER.  (QEMU
	 * TCG raises the trace before executing it; the simulator's qemu
	 * profile owns that difference.)
	 */
	caps->inst_timing = HWBP_TIMING_AFTER;
	/*
	 * The DSI sets DAR to an effective address of the access: its first
	 * byte before v3.1, the first byte of overlap with the watched range
	 * from v3.1 (v3.1 change log, quoted in powerpc.h).
	 */
	caps->precision = HWBP_ADDR_EXACT;
	caps->kind_known = true;   /* DSISR[38] says store */
	caps->priv_filter = true;  /* DAWRX/DABRX PRO/PNH/HYP, CIABR PRIV */
	caps->io_ports = false;
	/* dcbz zeroes one cache block: 128 bytes on POWER7..POWER10. */
	caps->zero_block = 128;
	/* Linux book3s64 user space below 4 PB; kernel linear map at 0xc... */
	caps->user_max = 0x000fffffffffffffull;
	caps->kernel_min = 0xc000000000000000ull;
	caps->addr_max = UINT64_MAX;
}

/*
 * CIABR[PRIV] selects exactly one privilege state (01 problem, 10
 * privileged non-hypervisor, 11 hypervisor; Book III §9.3), so an execute
 * request for both user and kernel cannot be expressed by the one CIABR.
 * Data requests can: DAWRX/DABRX have one enable bit per state.
 */
static int ppc_check(const struct hwbp_cpu *cpu, const struct hwbp_request *req,
		     unsigned hwtype)
{
	(void)cpu;
	if (hwtype == HWBP_X && req->scope == HWBP_SCOPE_BOTH)
		return -EOPNOTSUPP;
	return 0;
}

static unsigned sat_count(uint64_t n)
{
	return n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
}

/*
 * Data: the hardware watches doublewords, so the watched span is
 * [addr & ~7, roundup(addr + len, 8)).  DABR: one piece per doubleword.
 * DAWR: greedy pieces of at most 64 doublewords, and before ISA v3.1 each
 * piece stays inside one 512-byte block.  Greedy is minimal: every piece
 * holds at most 64 DW (so ceil(n / 64) are needed) and, with the boundary,
 * at most one block (so one per block touched is needed), and greedy meets
 * exactly that bound.  Ends are kept inclusive so a span ending at
 * UINT64_MAX does not wrap.
 */
static unsigned ppc_split(const struct hwbp_cpu *cpu, bool inst, uint64_t addr,
			  uint64_t len, struct hwbp_piece *out, unsigned max)
{
	uint64_t lo, last, count, maxp, bnd;
	unsigned n = 0;

	if (len == 0)
		return 0;
	if (inst) {
		/* One CIABR address per instruction (4 bytes, word aligned). */
		count = len / 4;
		for (uint64_t i = 0; i < count && n < max; i++, n++) {
			out[n].addr = addr + 4 * i;
			out[n].len = 4;
		}
		return sat_count(count);
	}

	lo = addr & ~(HWBP_PPC_DW - 1);
	last = (addr + (len - 1)) | (HWBP_PPC_DW - 1);
	maxp = hwbp_powerpc_has_dawr(cpu) ? HWBP_PPC_DAWR_MAX : HWBP_PPC_DW;
	bnd = hwbp_powerpc_boundary(cpu);

	if (bnd)
		count = (last / bnd) - (lo / bnd) + 1;
	else
		count = ((last - lo) / maxp) + 1;   /* (last - lo + 1) <= 2^64 */

	for (uint64_t a = lo; n < max;) {
		uint64_t end = a + (maxp - 1);      /* inclusive */

		if (end < a || end > last)          /* wrap or past the span */
			end = last;
		if (bnd && (end / bnd) != (a / bnd))
			end = (a | (bnd - 1));
		out[n].addr = a;
		out[n].len = end - a + 1;
		n++;
		if (end == last)
			break;
		a = end + 1;
	}
	return sat_count(count);
}

#define PPC(n, isa, units) { n, { .arch = HWBP_ARCH_POWERPC, .u.ppc = { isa, units } } }

/*
 * powerpc units per processor (Power ISA 2.06: DABR/DABRX; 2.07 (POWER8)
 * adds DAWR0/DAWRX0 and CIABR and drops DABR; 3.1 (POWER10) adds
 * DAWR1/DAWRX1 and lifts the 512-byte boundary rule).
 */
static const struct hwbpi_preset ppc_presets[] = {
	PPC("power7", 206, HWBP_PPC_DABR),
	PPC("power8", 207, HWBP_PPC_DAWR0 | HWBP_PPC_CIABR),
	PPC("power9", 300, HWBP_PPC_DAWR0 | HWBP_PPC_CIABR),
	PPC("power10", 310, HWBP_PPC_DAWR0 | HWBP_PPC_DAWR1 | HWBP_PPC_CIABR),
};

const struct hwbpi_arch_ops hwbpi_powerpc_ops = {
	.arch = HWBP_ARCH_POWERPC,
	.name = "powerpc",
	.caps = ppc_caps,
	.check = ppc_check,
	.split = ppc_split,
	.reset = hwbpi_powerpc_reset,
	.encode = hwbpi_powerpc_encode,
	.decode_slot = hwbpi_powerpc_decode_slot,
	.decode_status = hwbpi_powerpc_decode_status,
	.regs_list = hwbpi_powerpc_regs_list,
	.regs_set = hwbpi_powerpc_regs_set,
	.regs_apply = hwbpi_powerpc_regs_apply,
	.slot_name = hwbpi_powerpc_slot_name,
	.status_set = hwbpi_powerpc_status_set,
	.status_fields = hwbpi_powerpc_status_fields,
	.status_hint = "dsisr and dar",
	.presets = ppc_presets,
	.npresets = sizeof(ppc_presets) / sizeof(ppc_presets[0]),
};
