/* SPDX-License-Identifier: MIT */
/*
 * arm64 under Linux ptrace, the pure part (tracer/backends/linux/glue.h; built on
 * every host): the kernel's slot counts as a CPU model, a TRAP_HWBKPT
 * siginfo as a status, and the slot encodings the kernel accepts.
 */
#include <errno.h>
#include <string.h>

#include <hwbp/arm64.h>

#include "backends/linux/glue.h"
#include "linux_decode.h"

/* ESR_ELx of a debug exception from EL0 (Arm ARM ESR_ELx: EC [31:26],
 * IL [25], WnR [6], DFSC/IFSC [5:0] = 0b100010 debug). */
#define ESR_EC_SHIFT 26
#define EC_BREAKPOINT_LOWER 0x30u
#define EC_WATCHPOINT_LOWER 0x34u
#define ESR_IL (1u << 25)
#define ESR_WNR (1u << 6)
#define FSC_DEBUG 0x22u

int hwbpi_arm64_linux_cpu(uint32_t brk, uint32_t wtch, struct hwbp_cpu *cpu)
{
	unsigned nb = brk & 0xff, nw = wtch & 0xff;
	uint64_t dfr0;
	int ret;

	if (!cpu)
		return -EINVAL;
	/*
	 * dbg_info = debug arch << 8 | slot count (ptrace_hbp_get_resource_
	 * info(): debug_monitors_arch() and hw_breakpoint_slots()).  Debug
	 * arch 0 means the kernel found no debug unit.  Slots are written
	 * back into ID_AA64DFR0_EL1's fields (count - 1) with DebugVer 6
	 * (Armv8): the rest of hwbp reads the counts from there.
	 */
	if (((brk >> 8) & 0xff) == 0 || ((wtch >> 8) & 0xff) == 0 || nb == 0 || nw == 0 ||
	    nb > HWBP_MAX_SLOTS || nw > HWBP_MAX_SLOTS)
		return -EOPNOTSUPP;
	dfr0 = 6u | (uint64_t)(nb - 1) << HWBP_ARM64_DFR0_BRPS_SHIFT |
	       (uint64_t)(nw - 1) << HWBP_ARM64_DFR0_WRPS_SHIFT;
	ret = hwbp_cpu_arm64_from_dfr0(dfr0, cpu);
	if (ret == 0) {
		strncpy(cpu->name, "arm64-linux", sizeof(cpu->name) - 1);
		cpu->name[sizeof(cpu->name) - 1] = '\0';
	}
	return ret;
}

static bool bp_at(const struct hwbp_cpu *cpu, const struct hwbp_regs *armed, uint64_t pc)
{
	unsigned nb = hwbp_arm64_nbrp(cpu);

	for (unsigned i = 0; i < nb; i++) {
		struct hwbp_piece p;
		enum hwbp_scope s;

		if (hwbp_decode_slot(cpu, armed, i, true, &p, &s) == 1 && p.addr == (pc & ~3ull))
			return true;
	}
	return false;
}

/* Whether one of the watchpoints @hit names holds @addr itself. */
static bool exact(const struct hwbp_cpu *cpu, const struct hwbp_regs *armed,
		  const struct hwbp_hit *hit, uint64_t addr)
{
	for (unsigned i = 0; i < HWBP_MAX_SLOTS; i++) {
		struct hwbp_piece p;
		enum hwbp_scope s;

		if ((hit->data_slots & (1u << i)) &&
		    hwbp_decode_slot(cpu, armed, i, false, &p, &s) == 1 && addr >= p.addr &&
		    addr - p.addr < p.len)
			return true;
	}
	return false;
}

int hwbpi_arm64_linux_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *armed,
			     uint64_t pc, uint64_t addr, struct hwbp_status *st,
			     bool *kind_known)
{
	struct hwbp_status w, r;
	struct hwbp_hit hw, hr;
	bool ew, er;
	int rw, rr;

	if (!cpu || !armed || !st || !kind_known || cpu->arch != HWBP_ARCH_ARM64)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->ip = pc;
	/*
	 * A breakpoint's trigger is the PC itself (do_breakpoint():
	 * trigger = instruction_pointer(regs)).  A watchpoint whose FAR
	 * equals the PC (code reading itself) is told apart only when no
	 * breakpoint holds that PC: the breakpoint is taken first anyway (it
	 * is a Prefetch Abort, before the instruction's data access).
	 */
	if (addr == pc && bp_at(cpu, armed, pc)) {
		st->u.arm64.esr = (uint64_t)EC_BREAKPOINT_LOWER << ESR_EC_SHIFT | ESR_IL | FSC_DEBUG;
		*kind_known = true;
		return 0;
	}
	/*
	 * A watchpoint: FAR is si_addr (watchpoint_report(): trigger = addr,
	 * the FAR of do_watchpoint()).  WnR is not given to a tracer; the
	 * kernel reported a watchpoint whose type holds the access (it skips
	 * the others), so both kinds are tried: the kind whose watchpoints
	 * hold FAR itself wins (one kind only: known); otherwise a store,
	 * then a load, as hwbp's decoder picks the nearest watchpoint above
	 * FAR (unknown unless only one kind matches at all).
	 */
	w = r = *st;
	w.u.arm64.esr = (uint64_t)EC_WATCHPOINT_LOWER << ESR_EC_SHIFT | ESR_IL | ESR_WNR | FSC_DEBUG;
	w.u.arm64.far = addr;
	r.u.arm64.esr = (uint64_t)EC_WATCHPOINT_LOWER << ESR_EC_SHIFT | ESR_IL | FSC_DEBUG;
	r.u.arm64.far = addr;
	memset(&hw, 0, sizeof(hw));
	memset(&hr, 0, sizeof(hr));
	rw = hwbp_decode_status(cpu, armed, &w, &hw);
	rr = hwbp_decode_status(cpu, armed, &r, &hr);
	if (rw && rr)
		return rw == -ENOENT || rr == -ENOENT ? -ENOENT : rw;
	ew = rw == 0 && exact(cpu, armed, &hw, addr);
	er = rr == 0 && exact(cpu, armed, &hr, addr);
	if (ew != er) {
		*st = ew ? w : r;
		*kind_known = true;
		return 0;
	}
	*kind_known = !(rw == 0 && rr == 0);
	*st = rw == 0 ? w : r;
	return 0;
}

int hwbpi_arm64_linux_ctrl_ok(bool inst, uint64_t ctrl)
{
	unsigned bas;

	if (!(ctrl & HWBP_ARM64_CR_E))
		return 0;
	/*
	 * The kernel reads only E, PAC, LSC and BAS of the control word
	 * (decode_ctrl_reg() in arch/arm64/include/asm/hw_breakpoint.h) and
	 * rebuilds the rest: MASK, linking and the breakpoint types would be
	 * dropped silently, so they are refused here.
	 */
	if (inst) {
		bas = (unsigned)(ctrl >> HWBP_ARM64_BCR_BAS_SHIFT) & HWBP_ARM64_BCR_BAS_MASK;
		if (bas != HWBP_ARM64_BCR_BAS_A64 ||
		    ((ctrl >> HWBP_ARM64_BCR_BT_SHIFT) & HWBP_ARM64_BCR_BT_MASK) ||
		    ((ctrl >> HWBP_ARM64_WCR_LBN_SHIFT) & 0xf))
			return -EOPNOTSUPP;
		return 0;
	}
	bas = (unsigned)(ctrl >> HWBP_ARM64_WCR_BAS_SHIFT) & HWBP_ARM64_WCR_BAS_MASK;
	if (((ctrl >> HWBP_ARM64_WCR_MASK_SHIFT) & HWBP_ARM64_WCR_MASK_MASK) ||
	    (ctrl & HWBP_ARM64_WCR_WT) || ((ctrl >> HWBP_ARM64_WCR_LBN_SHIFT) & 0xf) ||
	    ((ctrl >> HWBP_ARM64_WCR_LSC_SHIFT) & HWBP_ARM64_WCR_LSC_MASK) == 0)
		return -EOPNOTSUPP;
	/* arch_bp_generic_fields(): BAS >> its lowest set bit must be one
	 * of the contiguous lengths 1..8 (0b1, 0b11, ... 0xff). */
	if (bas == 0)
		return -EOPNOTSUPP;
	while (!(bas & 1))
		bas >>= 1;
	return (bas & (bas + 1)) ? -EOPNOTSUPP : 0;
}
