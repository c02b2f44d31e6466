/* SPDX-License-Identifier: MIT */
/*
 * x86 debug unit model: executes DR0-DR7, CR4.DE and RFLAGS.RF as the CPU
 * would (Intel SDM Vol. 3 ch. 17; AMD APM Vol. 2 §13.1), with the QEMU 10.0
 * TCG departures of quirks_x86.def under the qemu profile.
 *
 * Where the manuals leave a choice, the sdm profile takes the one written
 * at the spot (search "Choice:").  Not modelled: task switch (BT), REP
 * string iterations (one scenario access is one whole instruction), the
 * instruction pointer of a data access (unknown, so no execute slot is
 * compared against it), and the CPL check of a `set` (see set_reg).
 *
 * This file is the accesses and the model's table; the register file
 * (reset, set_reg/get_reg, mode, what a MOV to or from DRn does) is
 * sim/x86_regs.c; the end of an instruction (single step, the MOV SS
 * shadow, INT3, INT1) is sim/x86_step.c; what they share is in
 * sim/x86_model.h.
 */
#include "x86_model.h"

#define ALL_ONES UINT64_MAX

static bool enabled(uint64_t dr7, unsigned i)
{
	/* Ln or Gn (SDM §17.2.4). */
	return (dr7 >> hwbp_x86_en_shift(i)) & 3u;
}

static unsigned rw_of(uint64_t dr7, unsigned i)
{
	return (unsigned)(dr7 >> hwbp_x86_rw_shift(i)) & 3u;
}

static unsigned len_of(uint64_t dr7, unsigned i)
{
	return (unsigned)(dr7 >> hwbp_x86_len_shift(i)) & 3u;
}

static uint64_t dr_addr(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c, unsigned i)
{
	/* Outside 64-bit mode DRn holds a 32-bit linear address (SDM §17.2.6). */
	return c->regs.u.x86.dr[i] & hwbp_x86_addr_max(cpu);
}

/*
 * What one data or I/O slot watches: base and the set of address bits the
 * compare ignores (@ign), or for the qemu profile an unmasked range
 * [lo, hi].  Returns false when the slot can never match.
 */
struct watch {
	uint64_t lo, hi;   /* every byte that can match (inclusive) */
	uint64_t base;     /* compare value */
	uint64_t ign;      /* ignored address bits; low contiguous => block */
	bool holes;        /* ign is not a low contiguous mask: test per byte */
};

static bool slot_watch(const struct hwbp_cpu *cpu, int profile, const struct hwbpi_sim_cpu *c,
		       unsigned i, bool io, struct watch *w)
{
	uint64_t dr7 = c->regs.u.x86.dr7, drn = dr_addr(cpu, c, i), len;

	/*
	 * LEN=10 is 8 bytes in IA-32e mode (SDM §17.2.4, AMD APM §13.1.1).
	 * Choice: outside it the encoding is undefined ("or 8 bytes" on a
	 * few listed processors); the i386 model is a processor for which it
	 * is undefined, so the slot never matches (hwbp never encodes it).
	 */
	if (len_of(dr7, i) == HWBP_X86_LEN_8 && !cpu->u.x86.mode64 &&
	    !hwbpi_quirk_on(profile, HWBPI_Q_X86_LEN8_LEGACY))
		return false;
	len = hwbp_x86_len_bytes(len_of(dr7, i));

	if (hwbpi_quirk_on(profile, HWBPI_Q_X86_NO_ALIGN_MASK)) {
		/*
		 * QEMU watches [DRn, DRn + len) as given; a range running off
		 * the end of the address space is refused by
		 * cpu_watchpoint_insert() and so never matches.
		 */
		if (drn + (len - 1) < drn)
			return false;
		w->lo = drn;
		w->hi = drn + (len - 1);
		w->base = drn;
		w->ign = 0;
		w->holes = false;
		/* Every byte of the range matches: express it as a block. */
		return true;
	}

	/*
	 * The processor masks the low DRn bits by LEN: a misaligned DRn
	 * watches the aligned block that holds it (SDM §17.2.5, which also
	 * applies it to I/O port addresses).
	 */
	w->ign = len - 1;
	/*
	 * AMD DataBkptExt (APM Vol. 2 §13.1.1): each set bit of
	 * DRn_ADDR_MASK drops that address bit from the compare.  Only bits
	 * 11:0 exist (x86.h: HWBP_X86_AMD_MASK_MAX).  The extension is for
	 * data breakpoints; I/O breakpoints compare ports unmasked.
	 */
	if (!io && cpu->u.x86.amd_addr_mask && !hwbpi_quirk_on(profile, HWBPI_Q_X86_NO_ADDR_MASK))
		w->ign |= c->regs.u.x86.addr_mask[i] & HWBP_X86_AMD_MASK_MAX;
	w->base = drn & ~w->ign;
	w->holes = (w->ign & (w->ign + 1)) != 0;
	w->lo = w->base;
	/* For a mask with holes this is the smallest cover of all matches. */
	w->hi = w->base | w->ign;
	return true;
}

/* Does the access [lo, hi] touch a byte @w matches? */
static bool watch_hits(const struct watch *w, uint64_t lo, uint64_t hi)
{
	if (lo > w->hi || hi < w->lo)
		return false;
	if (!w->holes)
		return true;
	/* A non-contiguous AMD mask: at most 64 bytes, test each one. */
	for (uint64_t b = lo;; b++) {
		if (((b ^ w->base) & ~w->ign) == 0)
			return true;
		if (b == hi)
			return false;
	}
}

/* Last byte of an access, saturating at the top of the address space. */
static uint64_t last_byte(uint64_t addr, uint64_t size)
{
	uint64_t n = size ? size : 1;

	return addr + (n - 1) < addr ? ALL_ONES : addr + (n - 1);
}

/*
 * Entry to the #DB handler (SDM §17.2.4): the processor clears DR7.GD so
 * that the handler can use the debug registers.  QEMU clears it only in
 * the general-detect fault itself (quirk HWBPI_Q_X86_GD_ONLY_MOV).
 */
void hwbpi_sim_x86_db_entry(int profile, struct hwbpi_sim_cpu *c)
{
	if (!hwbpi_quirk_on(profile, HWBPI_Q_X86_GD_ONLY_MOV))
		c->regs.u.x86.dr7 &= ~DR7_GD;
}

/* ------------------------------------------------------------------ */
/*
 * QEMU's watchpoint list (qemu profile, quirk HWBPI_Q_X86_DATA_FIRST_SLOT).
 * QEMU keeps one watchpoint per enabled data slot in a list; a DRn write
 * to an enabled slot re-inserts it at the tail, a DR7 write that changes
 * only enable bits re-inserts just the slots whose enable changed, any
 * other DR7 write re-inserts all four in slot order.  An access that
 * "visits" the list (one of a type some watchpoint in its page watches:
 * the TLB flags pages per access type) clears the hit flag of every
 * watchpoint it passes without matching and sets the flag of the first
 * one it matches, where the search stops; DR6.B0-B3 then come from every
 * flag still set, stale ones included.  c->wseq[] is the list order,
 * c->mflags the hit flags.
 */
static bool in_list(uint64_t dr7, unsigned i)
{
	unsigned rw = rw_of(dr7, i);

	return enabled(dr7, i) && (rw == HWBP_X86_RW_W || rw == HWBP_X86_RW_RW);
}

/* helper_set_dr(): DRn of an enabled, non-I/O slot is removed and
 * inserted again, at the tail. */
void hwbpi_sim_x86_qemu_drn_written(struct hwbpi_sim_cpu *c, unsigned n, uint64_t dr7)
{
	if (enabled(dr7, n) && rw_of(dr7, n) != HWBP_X86_RW_IO) {
		c->wseq[n] = ++c->wclock;
		c->mflags &= ~(1u << n);
	}
}

/* cpu_x86_update_dr7(): only-enable changes touch the changed slots. */
void hwbpi_sim_x86_qemu_dr7_written(struct hwbpi_sim_cpu *c, uint64_t old, uint64_t new)
{
	for (unsigned i = 0; i < HWBP_X86_SLOTS; i++) {
		if (((old ^ new) & ~0xffull) == 0 && enabled(old, i) == enabled(new, i))
			continue;
		c->mflags &= ~(1u << i);
		c->wseq[i] = ++c->wclock;
	}
}

/* The B bits QEMU reports for data access @a, updating the hit flags. */
static uint32_t qemu_list_hits(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			       const struct hwbp_sim_access *a)
{
	uint64_t dr7 = c->regs.u.x86.dr7;
	uint64_t lo = a->addr, hi = last_byte(a->addr, a->size);
	/* the pages the access touches (an access across a page boundary is
	 * checked page by page) */
	uint64_t plo = lo & ~0xfffull, phi = hi | 0xfff;
	bool visit = false;
	unsigned order[HWBP_X86_SLOTS], n = 0;
	uint32_t listed = 0;

	for (unsigned i = 0; i < HWBP_X86_SLOTS; i++) {
		struct watch w;

		if (!in_list(dr7, i) || !slot_watch(cpu, profile, c, i, false, &w))
			continue;
		listed |= 1u << i;
		if ((a->op == HWBP_SIM_WRITE || rw_of(dr7, i) == HWBP_X86_RW_RW) &&
		    w.lo <= phi && w.hi >= plo)
			visit = true;
		/* insertion sort by list position */
		unsigned k = n++;

		while (k && c->wseq[order[k - 1]] > c->wseq[i]) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	c->mflags &= listed;
	if (!visit)
		return 0;
	for (unsigned k = 0; k < n; k++) {
		unsigned i = order[k];
		struct watch w;

		slot_watch(cpu, profile, c, i, false, &w);
		if ((a->op == HWBP_SIM_WRITE || rw_of(dr7, i) == HWBP_X86_RW_RW) &&
		    watch_hits(&w, lo, hi)) {
			c->mflags |= 1u << i;
			return c->mflags;
		}
		c->mflags &= ~(1u << i);
	}
	return 0;
}

static void glue_wrote(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		       const struct hwbp_regs *old)
{
	(void)cpu;
	if (!hwbpi_quirk_on(profile, HWBPI_Q_X86_DATA_FIRST_SLOT))
		return;
	/* A kernel's glue writes DR0-DR3, then DR7 (arch/x86/glue.c). */
	for (unsigned n = 0; n < HWBP_X86_SLOTS; n++)
		hwbpi_sim_x86_qemu_drn_written(c, n, old->u.x86.dr7);
	hwbpi_sim_x86_qemu_dr7_written(c, old->u.x86.dr7, c->regs.u.x86.dr7);
}

/* ------------------------------------------------------------------ */

static void refilter(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c)
{
	uint64_t dr7 = c->regs.u.x86.dr7, lo = ALL_ONES, hi = 0;
	bool any = false;

	/*
	 * While RF is set every access must reach the model: the instruction
	 * that completes clears RF (SDM §17.3.1.1), which is state; so must
	 * every instruction that TF single-steps, or that a MOV SS shadows.
	 */
	c->nwin = 0;
	if (c->s.x86.rf || c->s.x86.tf || c->s.x86.shadow) {
		c->flo = 0;
		c->fhi = ALL_ONES;
		return;
	}
	for (unsigned i = 0; i < HWBP_X86_SLOTS; i++) {
		unsigned rw = rw_of(dr7, i);
		struct watch w;

		/* A data trap needs an enabled slot; disabled ones only add B bits. */
		if (!enabled(dr7, i) || (rw != HWBP_X86_RW_W && rw != HWBP_X86_RW_RW))
			continue;
		if (!slot_watch(cpu, profile, c, i, false, &w))
			continue;
		any = true;
		/*
		 * One window per enabled data slot for the engine's bitmap.
		 * Under QEMU any access to the slot's pages may clear a stale
		 * hit flag (qemu_list_hits()): the window is the whole pages.
		 */
		if (hwbpi_quirk_on(profile, HWBPI_Q_X86_DATA_FIRST_SLOT)) {
			w.lo &= ~0xfffull;
			w.hi |= 0xfff;
		}
		c->wlo[c->nwin] = w.lo;
		c->whi[c->nwin++] = w.hi == ALL_ONES ? ALL_ONES : w.hi + 1;
		if (w.lo < lo)
			lo = w.lo;
		if (w.hi > hi)
			hi = w.hi;
	}
	if (!any) {
		c->flo = c->fhi = 0;
		return;
	}
	c->flo = lo;
	/* fhi is exclusive; a watch ending at the top saturates (that last
	 * byte is non-canonical in 64-bit mode, beyond 4 GiB on i386). */
	c->fhi = hi == ALL_ONES ? ALL_ONES : hi + 1;
}

/* The instruction completed: RF is cleared (SDM §17.3.1.1). */
static void complete(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c)
{
	if (c->s.x86.rf) {
		c->s.x86.rf = 0;
		refilter(cpu, profile, c);
	}
}

/*
 * Slots whose data (@io false) or I/O (@io true) condition the access
 * meets: enabled ones in *en, disabled ones in *dis.
 */
static void match_data(const struct hwbp_cpu *cpu, int profile, const struct hwbpi_sim_cpu *c,
		       const struct hwbp_sim_access *a, bool io, uint32_t *en, uint32_t *dis)
{
	uint64_t dr7 = c->regs.u.x86.dr7;
	uint64_t lo = a->addr, hi = last_byte(a->addr, a->size);

	*en = *dis = 0;
	for (unsigned i = 0; i < HWBP_X86_SLOTS; i++) {
		unsigned rw = rw_of(dr7, i);
		struct watch w;

		if (io) {
			/*
			 * R/W = 10 is an I/O breakpoint only with CR4.DE = 1
			 * (SDM §17.2.4).  Choice: with DE = 0 the encoding is
			 * undefined and the model never matches it.
			 */
			if (rw != HWBP_X86_RW_IO)
				continue;
			if (!(c->s.x86.cr4 & CR4_DE) &&
			    !hwbpi_quirk_on(profile, HWBPI_Q_X86_IO_WITHOUT_DE))
				continue;
		} else {
			/* 01 writes only, 11 reads or writes; never fetches. */
			if (rw == HWBP_X86_RW_W) {
				if (a->op != HWBP_SIM_WRITE)
					continue;
			} else if (rw != HWBP_X86_RW_RW) {
				continue;
			}
		}
		if (!slot_watch(cpu, profile, c, i, io, &w) || !watch_hits(&w, lo, hi))
			continue;
		if (enabled(dr7, i))
			*en |= 1u << i;
		else
			*dis |= 1u << i;
	}
}

static void data_trap(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		      const struct hwbp_sim_access *a, bool io, struct hwbp_sim_result *res)
{
	struct hwbpi_x86_start st = hwbpi_sim_x86_start(c);
	bool movss = a->op == HWBP_SIM_MOVSS;
	uint32_t en = 0, dis = 0, b;

	/* A MOV SS from a register accesses nothing. */
	if (!movss || a->size)
		match_data(cpu, profile, c, a, io, &en, &dis);
	/* QEMU: its watchpoint list decides, stale hit flags included. */
	if (!io && (!movss || a->size) && hwbpi_quirk_on(profile, HWBPI_Q_X86_DATA_FIRST_SLOT))
		en = qemu_list_hits(cpu, profile, c, a);
	/* The access is done either way (a trap, SDM §17.3.1.2). */
	complete(cpu, profile, c);

	b = en;
	/*
	 * Choice: "B0-B3 may or may not be set if the breakpoint is not
	 * enabled" (SDM §17.2.3): the sdm profile sets them for every slot
	 * whose condition the access met, so handlers (and hwbp's decoder)
	 * must honour the enables as the manual tells them to.
	 */
	if (en && !hwbpi_quirk_on(profile, HWBPI_Q_X86_DISABLED_B_BITS) &&
	    !hwbpi_quirk_on(profile, HWBPI_Q_X86_LINUX_VIRTUAL_DR6))
		b |= dis;
	hwbpi_sim_x86_end(cpu, profile, c, st, en, b, movss, res);
	if (res->cls != HWBP_SIM_NONE) {
		c->last = *a;
		c->pending = true;
	}
}

/* Execute breakpoints (R/W = 00): a fault before the instruction. */
static void exec_fault(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		       const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	uint64_t dr7 = c->regs.u.x86.dr7;
	uint32_t en = 0, dis = 0, b;
	struct hwbpi_x86_start st = hwbpi_sim_x86_start(c);

	/*
	 * RF = 1 suppresses instruction breakpoints for one instruction and
	 * the processor clears it when that instruction completes (SDM
	 * §17.3.1.1; QEMU x86_debug_check_breakpoint() and gen_eob()).
	 */
	if (c->s.x86.rf) {
		complete(cpu, profile, c);
		hwbpi_sim_x86_end(cpu, profile, c, st, 0, 0, false, res);
		return;
	}
	for (unsigned i = 0; i < HWBP_X86_SLOTS; i++) {
		if (rw_of(dr7, i) != HWBP_X86_RW_X)
			continue;
		/*
		 * The address of the instruction's first byte equals DRn
		 * (SDM §17.3.1.1).  Choice: LEN must be 00 for R/W = 00 and
		 * other values are undefined (§17.2.4); the model compares
		 * DRn exactly whatever LEN holds, as QEMU does.  The AMD mask
		 * is for data breakpoints and is not applied.
		 */
		if (dr_addr(cpu, c, i) != (a->addr & hwbp_x86_addr_max(cpu)))
			continue;
		if (enabled(dr7, i))
			en |= 1u << i;
		else
			dis |= 1u << i;
	}
	if (!en) {
		complete(cpu, profile, c);
		hwbpi_sim_x86_end(cpu, profile, c, st, 0, 0, false, res);
		return;
	}
	/*
	 * A fault: the instruction did not run, so it reaches no boundary
	 * where a MOV SS's held conditions or a step trap could be taken
	 * (the handler returns to it with TF as it was).
	 */
	c->s.x86.held_b = 0;
	c->s.x86.held_bs = false;
	/*
	 * Matching disabled execute slots set their B bits too: the sdm
	 * reading of §17.2.3 (see data_trap) and what QEMU does
	 * (check_hw_breakpoints() compares every R/W = 00 DRn with EIP);
	 * not as a Linux tracer sees DR6 (the linux profile).
	 */
	b = en;
	if (!hwbpi_quirk_on(profile, HWBPI_Q_X86_LINUX_VIRTUAL_DR6))
		b |= dis;
	else
		/* A tracer's DR6 is rebuilt at each #DB (x86_step.c). */
		c->regs.u.x86.dr6 = HWBP_X86_DR6_RESET;
	c->regs.u.x86.dr6 = (c->regs.u.x86.dr6 & ~HWBP_X86_DR6_B_MASK) | b;
	hwbpi_sim_x86_db_entry(profile, c);
	db_result(c, HWBP_TIMING_BEFORE, en, a->addr, res);
	hwbpi_sim_x86_si_code(profile, res, b);
	/* The instruction did not run: RF stays as it was (0). */
	c->last = *a;
	c->pending = true;
}

static void access_(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		    const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	clear_res(res);
	switch (a->op) {
	case HWBP_SIM_READ:
	case HWBP_SIM_WRITE:
		data_trap(cpu, profile, c, a, false, res);
		break;
	case HWBP_SIM_IO:
		/* IN/OUT: the port, zero-extended, against DRn (SDM §17.2.5). */
		data_trap(cpu, profile, c, a, true, res);
		break;
	case HWBP_SIM_EXEC:
		exec_fault(cpu, profile, c, a, res);
		break;
	case HWBP_SIM_MOVSS:
		data_trap(cpu, profile, c, a, false, res);
		break;
	case HWBP_SIM_SWBP:
	case HWBP_SIM_ICEBP:
	case HWBP_SIM_STI:
		hwbpi_sim_x86_insn(cpu, profile, c, a, res);
		break;
	default:
		/* HWBP_SIM_ZERO is arm64 DC ZVA / ppc dcbz: no x86 meaning. */
		break;
	}
}

static void resume(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		   struct hwbp_sim_result *res)
{
	clear_res(res);
	if (!c->pending)
		return;
	c->pending = false;
	if (c->last.op == HWBP_SIM_EXEC) {
		/*
		 * A kernel returns from an instruction-breakpoint fault with
		 * RF set in the EFLAGS image so that the instruction runs
		 * once without faulting again (SDM §17.3.1.1).
		 */
		struct hwbp_sim_access again = c->last;

		c->s.x86.rf = 1;
		exec_fault(cpu, profile, c, &again, res);
		return;
	}
	/* Data and I/O breakpoints are traps: the instruction is done. */
}

const struct hwbpi_sim_model hwbpi_sim_x86 = {
	.arch = HWBP_ARCH_X86,
	.io_ports = true,
	.swbp = "int3",
	.shadows = true,
	.reset = hwbpi_sim_x86_reset,
	.set_reg = hwbpi_sim_x86_set_reg,
	.get_reg = hwbpi_sim_x86_get_reg,
	.get_insn = hwbpi_sim_x86_get_insn,
	.mode = hwbpi_sim_x86_mode,
	.access = access_,
	.resume = resume,
	.glue_wrote = glue_wrote,
	.refilter = refilter,
	.priv = hwbpi_sim_x86_priv,
};
