/* SPDX-License-Identifier: MIT */
/*
 * x86 debug unit model: executes DR0-DR7, CR4.DE and RFLAGS.RF as the CPU
 * would (Intel SDM Vol. 3 ch. 17; AMD APM Vol. 2 §13.1), with the QEMU 10.0
 * TCG departures of quirks_x86.def under the qemu profile.
 *
 * Where the manuals leave a choice, the sdm profile takes the one written
 * at the spot (search "Choice:").  Not modelled: single step (BS), task
 * switch (BT), REP string iterations (one scenario access is one whole
 * instruction), the instruction pointer of a data access (unknown, so no
 * execute slot is compared against it), MOV from DRn (get_reg is a peek,
 * not an instruction), and the CPL check of MOV DRn (see set_reg).
 */
#include <errno.h>
#include <string.h>

#include "model.h"
#include <hwbp/x86.h>

/* DR6 (SDM §17.2.3, Figure 17-1). */
#define DR6_BD (1ull << 13)
#define DR6_BS (1ull << 14)
#define DR6_BT (1ull << 15)
/*
 * The bits software can change: B0-B3, BD, BS, BT.  Bits 4-11 and 16-31
 * read as 1 (this model has neither RTM nor bus-lock detection, whose
 * active-low bits 16 and 11 would otherwise be writable), bit 12 reads as 0
 * (Linux KVM: DR6_VOLATILE 0x0001e80f without those two features).
 */
#define DR6_WRITABLE (HWBP_X86_DR6_B_MASK | DR6_BD | DR6_BS | DR6_BT)

/* DR7.GD, general detect (SDM §17.2.4). */
#define DR7_GD (1ull << 13)

/* CR4.DE, debugging extensions (SDM Vol. 3 §2.5). */
#define CR4_DE (1ull << 3)

/* In 64-bit mode MOV to DR6/DR7 with bits 63:32 set raises #GP(0) (SDM §17.2.6). */
#define DR_HIGH_RESERVED 0xffffffff00000000ull

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

static void clear_res(struct hwbp_sim_result *res)
{
	memset(res, 0, sizeof(*res));
	res->cls = HWBP_SIM_NONE;
}

/* Fill a #DB result with the DR6 a handler would read. */
/*
 * Entry to the #DB handler (SDM §17.2.4): the processor clears DR7.GD so
 * that the handler can use the debug registers.  QEMU clears it only in
 * the general-detect fault itself (quirk HWBPI_Q_X86_GD_ONLY_MOV).
 */
static void db_entry(int profile, struct hwbpi_sim_cpu *c)
{
	if (!hwbpi_quirk_on(profile, HWBPI_Q_X86_GD_ONLY_MOV))
		c->regs.u.x86.dr7 &= ~DR7_GD;
}

static void db_result(const struct hwbpi_sim_cpu *c, enum hwbp_timing timing,
		      uint32_t slots, uint64_t ip, struct hwbp_sim_result *res)
{
	res->cls = HWBP_SIM_DB;
	res->timing = timing;
	/* Shared pool: the decoder reports every hit in data_slots. */
	res->data_slots = slots;
	res->inst_slots = 0;
	res->st.u.x86.dr6 = c->regs.u.x86.dr6;
	res->st.ip = ip;
	/* DR6 names slots, never the data address (SDM §17.2.3). */
	res->addr = 0;
	res->addr_known = false;
	hwbpi_sim_status(res, "dr6", c->regs.u.x86.dr6);
}

static uint32_t enabled_mask(uint64_t dr7)
{
	uint32_t m = 0;

	for (unsigned i = 0; i < HWBP_X86_SLOTS; i++)
		if (enabled(dr7, i))
			m |= 1u << i;
	return m;
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
static void qemu_drn_written(struct hwbpi_sim_cpu *c, unsigned n, uint64_t dr7)
{
	if (enabled(dr7, n) && rw_of(dr7, n) != HWBP_X86_RW_IO) {
		c->wseq[n] = ++c->wclock;
		c->mflags &= ~(1u << n);
	}
}

/* cpu_x86_update_dr7(): only-enable changes touch the changed slots. */
static void qemu_dr7_written(struct hwbpi_sim_cpu *c, uint64_t old, uint64_t new)
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
		qemu_drn_written(c, n, old->u.x86.dr7);
	qemu_dr7_written(c, old->u.x86.dr7, c->regs.u.x86.dr7);
}

/* ------------------------------------------------------------------ */

static void refilter(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c)
{
	uint64_t dr7 = c->regs.u.x86.dr7, lo = ALL_ONES, hi = 0;
	bool any = false;

	/*
	 * While RF is set every access must reach the model: the instruction
	 * that completes clears RF (SDM §17.3.1.1), which is state.
	 */
	c->nwin = 0;
	if (c->s.x86.rf) {
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

static void reset(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c)
{
	memset(c, 0, sizeof(*c));
	/* DR0-DR3 = 0, DR6 = 0xFFFF0FF0, DR7 = 0x400 (SDM §17.2, Table 10-1
	 * state after reset); CR4 = 0 (DE clear), RF = 0, CPL 0. */
	hwbp_regs_reset(cpu, &c->regs);
	c->s.x86.cr4 = 0;
	c->s.x86.rf = 0;
	c->s.x86.cpl = 0;
	c->pending = false;
	refilter(cpu, profile, c);
}

/* Index of a debug register name dr0..dr7, or -1. */
static int dr_index(const char *name)
{
	if (name[0] == 'd' && name[1] == 'r' && name[2] >= '0' && name[2] <= '7' && !name[3])
		return name[2] - '0';
	return -1;
}

static bool is_mask_name(const char *name)
{
	return strncmp(name, "dr", 2) == 0 && name[2] >= '0' && name[2] <= '3' &&
	       strcmp(name + 3, "_mask") == 0;
}

/* WRMSR to DRn_ADDR_MASK: not a debug register, no GD. */
static int set_mask(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		    const char *name, uint64_t value)
{
	if (!cpu->u.x86.amd_addr_mask)
		return -ENOENT;
	/* QEMU has no such MSR, and TCG ignores a WRMSR to an unknown MSR: no
	 * #GP, nothing written. */
	if (hwbpi_quirk_on(profile, HWBPI_Q_X86_NO_ADDR_MASK))
		return 0;
	/* Bits 63:12 are write-ignored with DataBkptExt (x86.h). */
	c->regs.u.x86.addr_mask[name[2] - '0'] = value & HWBP_X86_AMD_MASK_MAX;
	return 0;
}

/* A fault of MOV DRn before it writes (#UD, #GP): the status as it is. */
static void mov_fault(struct hwbpi_sim_cpu *c, enum hwbp_sim_class cls, struct hwbp_sim_result *res)
{
	res->cls = cls;
	res->timing = HWBP_TIMING_BEFORE;
	res->st.u.x86.dr6 = c->regs.u.x86.dr6;
}

/*
 * General detect (SDM §17.2.4, §17.3.1.3): a fault before the MOV with
 * DR6.BD set; the processor clears GD on entry to the handler so that the
 * handler can use the registers.  Choice ("certain debug exceptions may
 * clear bits 0-3", §17.2.3): the sdm profile clears B0-B3, as KVM does
 * when it delivers a general-detect #DB; BS/BT stay.
 */
static void general_detect(int profile, struct hwbpi_sim_cpu *c, struct hwbp_sim_result *res)
{
	uint64_t dr6 = c->regs.u.x86.dr6;

	if (!hwbpi_quirk_on(profile, HWBPI_Q_X86_GD_KEEPS_B))
		dr6 &= ~HWBP_X86_DR6_B_MASK;
	c->regs.u.x86.dr6 = dr6 | DR6_BD;
	c->regs.u.x86.dr7 &= ~DR7_GD;
	/* Nothing to resume: a kernel re-executes the MOV itself. */
	db_result(c, HWBP_TIMING_BEFORE, 0, 0, res);
}

/* The write of a MOV to DRn (n = 0-3, 6 or 7) that did not fault. */
static void write_dr(int profile, struct hwbpi_sim_cpu *c, int n, uint64_t value)
{
	if (n < 4) {
		c->regs.u.x86.dr[n] = value;
		if (hwbpi_quirk_on(profile, HWBPI_Q_X86_DATA_FIRST_SLOT))
			qemu_drn_written(c, (unsigned)n, c->regs.u.x86.dr7);
	} else if (n == 6) {
		if (hwbpi_quirk_on(profile, HWBPI_Q_X86_DR6_BIT12))
			c->regs.u.x86.dr6 = value | HWBP_X86_DR6_RESET;
		else
			c->regs.u.x86.dr6 = (value & DR6_WRITABLE) | HWBP_X86_DR6_RESET;
	} else {
		uint64_t old = c->regs.u.x86.dr7;

		/* Bit 10 reads as 1 (SDM §17.2.4); other reserved bits stored. */
		c->regs.u.x86.dr7 = value | HWBP_X86_DR7_RESET;
		if (hwbpi_quirk_on(profile, HWBPI_Q_X86_DATA_FIRST_SLOT))
			qemu_dr7_written(c, old, c->regs.u.x86.dr7);
	}
}

/*
 * A `set` of dr0-dr7 is a MOV to DRn.  Choice: it is executed as by the
 * kernel (CPL 0) whatever the current mode, so the #GP a MOV DRn raises at
 * CPL > 0 is not modelled; the rest of MOV DRn is (SDM Vol. 2B "MOV--Move
 * to/from Debug Registers", checked in QEMU helper_set_dr()'s order):
 * DR4/DR5 with CR4.DE = 1 #UD, then DR7.GD #DB, then the reserved upper
 * half of DR6/DR7 in 64-bit mode #GP.  A faulting MOV writes nothing.
 */
static void mov_dr(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c, int n,
		   uint64_t value, struct hwbp_sim_result *res)
{
	if (n == 4 || n == 5) {
		/* DR4/DR5 are reserved with CR4.DE = 1 (#UD) and alias DR6/DR7
		 * with DE = 0 (SDM §17.2.2). */
		if (c->s.x86.cr4 & CR4_DE) {
			mov_fault(c, HWBP_SIM_UD, res);
			return;
		}
		n += 2;
	}
	if (c->regs.u.x86.dr7 & DR7_GD)
		general_detect(profile, c, res);
	else if (cpu->u.x86.mode64 && n >= 6 && (value & DR_HIGH_RESERVED))
		mov_fault(c, HWBP_SIM_GP, res);
	else if (cpu->u.x86.mode64)
		write_dr(profile, c, n, value);
	else
		/* 32-bit debug registers: the upper half of the value is lost. */
		write_dr(profile, c, n, value & 0xffffffffull);
}

static int set_reg(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		   const char *name, uint64_t value, struct hwbp_sim_result *res)
{
	int n = dr_index(name);

	clear_res(res);
	if (strcmp(name, "cr4") == 0) {
		/* Only DE is meaningful (docs/scenarios.md); MOV CR4 has no GD check. */
		c->s.x86.cr4 = value & CR4_DE;
		return 0;
	}
	if (strcmp(name, "rf") == 0) {
		c->s.x86.rf = value != 0;
		return 0;
	}
	if (is_mask_name(name))
		return set_mask(cpu, profile, c, name, value);
	if (n < 0)
		return -ENOENT;
	mov_dr(cpu, profile, c, n, value, res);
	return 0;
}

static int get_reg(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c,
		   const char *name, uint64_t *value)
{
	int n = dr_index(name);

	if (strcmp(name, "cr4") == 0) {
		*value = c->s.x86.cr4;
		return 0;
	}
	if (strcmp(name, "rf") == 0) {
		*value = (uint64_t)c->s.x86.rf;
		return 0;
	}
	if (is_mask_name(name)) {
		if (!cpu->u.x86.amd_addr_mask)
			return -ENOENT;
		*value = c->regs.u.x86.addr_mask[name[2] - '0'];
		return 0;
	}
	if (n < 0)
		return -ENOENT;
	if (n == 4 || n == 5) {
		/* A peek, not a MOV: no #UD to raise, so with CR4.DE = 1
		 * DR4/DR5 simply do not exist (SDM §17.2.2). */
		if (c->s.x86.cr4 & CR4_DE)
			return -ENOENT;
		n += 2;
	}
	if (n < 4)
		*value = c->regs.u.x86.dr[n];
	else if (n == 6)
		*value = c->regs.u.x86.dr6;
	else
		*value = c->regs.u.x86.dr7;
	return 0;
}

static int mode(const struct hwbp_cpu *cpu, struct hwbpi_sim_cpu *c, const char *key, uint64_t value)
{
	(void)cpu;
	if (strcmp(key, "cpl") != 0)
		return -ENOENT;
	if (value != 0 && value != 3)
		return -EINVAL;
	c->s.x86.cpl = (int)value;
	return 0;
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
	uint32_t en, dis, b;

	match_data(cpu, profile, c, a, io, &en, &dis);
	/* QEMU: its watchpoint list decides, stale hit flags included. */
	if (!io && hwbpi_quirk_on(profile, HWBPI_Q_X86_DATA_FIRST_SLOT))
		en = qemu_list_hits(cpu, profile, c, a);
	/* The access is done either way (a trap, SDM §17.3.1.2). */
	complete(cpu, profile, c);
	if (!en)
		return;

	b = en;
	/*
	 * Choice: "B0-B3 may or may not be set if the breakpoint is not
	 * enabled" (SDM §17.2.3): the sdm profile sets them for every slot
	 * whose condition the access met, so handlers (and hwbp's decoder)
	 * must honour the enables as the manual tells them to.
	 */
	if (!hwbpi_quirk_on(profile, HWBPI_Q_X86_DISABLED_B_BITS))
		b |= dis;
	/*
	 * B0-B3 are rewritten on a breakpoint #DB; BD, BS, BT and the
	 * reserved bits are never cleared by the processor (SDM §17.2.3;
	 * kvm-unit-tests x86/debug.c "hw watchpoint (test that dr6.BS is
	 * not cleared)").
	 */
	c->regs.u.x86.dr6 = (c->regs.u.x86.dr6 & ~HWBP_X86_DR6_B_MASK) | b;
	db_entry(profile, c);
	db_result(c, HWBP_TIMING_AFTER, b & enabled_mask(c->regs.u.x86.dr7), 0, res);
	c->last = *a;
	c->pending = true;
}

/* Execute breakpoints (R/W = 00): a fault before the instruction. */
static void exec_fault(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		       const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	uint64_t dr7 = c->regs.u.x86.dr7;
	uint32_t en = 0, dis = 0, b;

	/*
	 * RF = 1 suppresses instruction breakpoints for one instruction and
	 * the processor clears it when that instruction completes (SDM
	 * §17.3.1.1; QEMU x86_debug_check_breakpoint() and gen_eob()).
	 */
	if (c->s.x86.rf) {
		complete(cpu, profile, c);
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
		return;
	}
	/*
	 * Matching disabled execute slots set their B bits too: the sdm
	 * reading of §17.2.3 (see data_trap) and what QEMU does
	 * (check_hw_breakpoints() compares every R/W = 00 DRn with EIP).
	 */
	b = en | dis;
	c->regs.u.x86.dr6 = (c->regs.u.x86.dr6 & ~HWBP_X86_DR6_B_MASK) | b;
	db_entry(profile, c);
	db_result(c, HWBP_TIMING_BEFORE, en, a->addr, res);
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

static int priv(const struct hwbpi_sim_cpu *c)
{
	return c->s.x86.cpl == 3 ? 1 : 0;
}

const struct hwbpi_sim_model hwbpi_sim_x86 = {
	.arch = HWBP_ARCH_X86,
	.io_ports = true,
	.reset = reset,
	.set_reg = set_reg,
	.get_reg = get_reg,
	.mode = mode,
	.access = access_,
	.resume = resume,
	.glue_wrote = glue_wrote,
	.refilter = refilter,
	.priv = priv,
};
