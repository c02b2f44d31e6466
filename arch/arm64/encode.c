/* SPDX-License-Identifier: MIT */
/*
 * arm64 encoder: one piece into DBGWVR/DBGWCR or DBGBVR/DBGBCR, plus
 * MDSCR_EL1, and the register list for printing / raw setting.
 */

#include "arm64.h"

void hwbpi_arm64_reset(const struct hwbp_cpu *cpu, struct hwbp_regs *regs)
{
	(void)cpu;
	/*
	 * Nothing armed: every control register 0 (E = 0) and MDSCR_EL1 0
	 * (MDE = KDE = 0).  The E bits are architecturally UNKNOWN at reset
	 * (DBGBCR/DBGWCR descriptions), so software must write them: this is
	 * the value it writes.  The OS lock is not part of hwbp_regs.
	 */
	memset(&regs->u.arm64, 0, sizeof(regs->u.arm64));
}

/*
 * PAC/PMC for a scope, with HMC = 0 and SSC = 0b00 (Arm ARM table
 * "Summary of breakpoint HMC, SSC, and PMC encodings", same layout for the
 * watchpoint PAC): 0b01 EL1, 0b10 EL0, 0b11 EL1 and EL0.  Returns 0 for a
 * scope it cannot express.
 */
static unsigned pac_of(enum hwbp_scope scope)
{
	switch (scope) {
	case HWBP_SCOPE_USER:
		return HWBP_ARM64_PAC_EL0;
	case HWBP_SCOPE_KERNEL:
		return HWBP_ARM64_PAC_EL1;
	case HWBP_SCOPE_BOTH:
		return HWBP_ARM64_PAC_BOTH;
	}
	return 0;
}

static unsigned lsc_of(unsigned type)
{
	/* LSC: 0b01 load, 0b10 store, 0b11 both -- the generic R/W bits. */
	switch (type) {
	case HWBP_R:
	case HWBP_W:
	case HWBP_RW:
		return type;
	}
	return 0;
}

/*
 * Watchpoint control + value for one piece, or -EINVAL when the piece is
 * neither a BAS piece nor a MASK block.
 */
static int wp_encode(const struct hwbp_piece *p, unsigned pac, uint64_t *wvr, uint64_t *wcr)
{
	unsigned lsc = lsc_of(p->type);
	uint64_t ctl;

	if (!lsc || p->len == 0)
		return -EINVAL;
	ctl = HWBP_ARM64_CR_E | (uint64_t)pac << HWBP_ARM64_CR_PAC_SHIFT |
	      (uint64_t)lsc << HWBP_ARM64_WCR_LSC_SHIFT;
	/* HMC = 0, SSC = 0b00, LBN = 0, WT = 0 (unlinked): left zero. */

	if (p->len <= 8) {
		unsigned off = (unsigned)(p->addr & 7);

		/*
		 * BAS piece: the bytes must stay inside the doubleword at
		 * DBGWVR (Arm ARM DBGWCR.BAS).  DBGWVR holds the doubleword
		 * address; the word-aligned DBGWVR[2] = 1 form is deprecated
		 * and never produced.  An aligned 8-byte piece is BAS 0xFF
		 * with MASK 0, as Linux does for HW_BREAKPOINT_LEN_8.
		 */
		if (off + p->len > 8)
			return -EINVAL;
		*wvr = p->addr & ~7ull;
		ctl |= (uint64_t)(((1u << p->len) - 1) << off) << HWBP_ARM64_WCR_BAS_SHIFT;
		*wcr = ctl;
		return 0;
	}

	/*
	 * MASK block: 2^MASK bytes, MASK 4..31 here (8 bytes is the BAS case
	 * above; MASK 1 and 2 are reserved), address aligned to the block,
	 * BAS = 0xFF (BAS other than all ones with MASK != 0 is CONSTRAINED
	 * UNPREDICTABLE).
	 */
	if (!hwbpi_is_pow2(p->len) || p->len > HWBP_ARM64_MAX_PIECE || (p->addr & (p->len - 1)))
		return -EINVAL;
	*wvr = p->addr;
	ctl |= (uint64_t)HWBP_ARM64_WCR_BAS_MASK << HWBP_ARM64_WCR_BAS_SHIFT;
	ctl |= (uint64_t)hwbpi_arm64_log2(p->len) << HWBP_ARM64_WCR_MASK_SHIFT;
	*wcr = ctl;
	return 0;
}

int hwbpi_arm64_encode(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		       unsigned slot, bool inst, const struct hwbp_piece *piece,
		       enum hwbp_scope scope, bool local)
{
	unsigned pac = pac_of(scope);
	uint64_t vr, cr;

	(void)local; /* x86 only */
	if (!pac)
		return -EINVAL;

	if (inst) {
		if (slot >= hwbp_arm64_nbrp(cpu) || piece->type != HWBP_X ||
		    piece->len != HWBP_ARM64_INST_LEN || (piece->addr & 3))
			return -EINVAL;
		/*
		 * DBGBVR: instruction address, bits [1:0] RES0.  DBGBCR: E,
		 * PMC, BAS = 0b1111 (A64 instruction at DBGBVR), BT = 0b0000
		 * (unlinked address match), HMC/SSC 0.
		 */
		vr = piece->addr;
		cr = HWBP_ARM64_CR_E | (uint64_t)pac << HWBP_ARM64_CR_PAC_SHIFT |
		     (uint64_t)HWBP_ARM64_BCR_BAS_A64 << HWBP_ARM64_BCR_BAS_SHIFT;
	} else {
		if (slot >= hwbp_arm64_nwrp(cpu))
			return -EINVAL;
		if (wp_encode(piece, pac, &vr, &cr))
			return -EINVAL;
	}

	/* All checks passed: only now touch the registers. */
	if (inst) {
		regs->u.arm64.bvr[slot] = vr;
		regs->u.arm64.bcr[slot] = cr;
	} else {
		regs->u.arm64.wvr[slot] = vr;
		regs->u.arm64.wcr[slot] = cr;
	}
	/*
	 * MDSCR_EL1.MDE enables breakpoint and watchpoint debug events at
	 * all; for exceptions taken to the same EL (kernel watching kernel)
	 * KDE must also be 1 and PSTATE.D 0 (Arm ARM D2 "Enabling debug
	 * exceptions"; QEMU aa64_generate_debug_exceptions()).  Bits are only
	 * set, never cleared: other slots may still need them, and the reset
	 * state clears them.
	 */
	regs->u.arm64.mdscr |= HWBP_ARM64_MDSCR_MDE;
	if (pac & HWBP_ARM64_PAC_EL1)
		regs->u.arm64.mdscr |= HWBP_ARM64_MDSCR_KDE;
	return 0;
}

/* Register names, as in docs/scenarios.md. */
enum reg_kind { RK_BVR, RK_BCR, RK_WVR, RK_WCR, RK_MDSCR };

static const struct {
	const char *prefix;
	enum reg_kind kind;
} reg_prefixes[] = {
	{ "dbgbvr", RK_BVR }, { "dbgbcr", RK_BCR },
	{ "dbgwvr", RK_WVR }, { "dbgwcr", RK_WCR },
};

static uint64_t *reg_ptr(struct hwbp_regs *regs, enum reg_kind k, unsigned n)
{
	switch (k) {
	case RK_BVR:
		return &regs->u.arm64.bvr[n];
	case RK_BCR:
		return &regs->u.arm64.bcr[n];
	case RK_WVR:
		return &regs->u.arm64.wvr[n];
	case RK_WCR:
		return &regs->u.arm64.wcr[n];
	case RK_MDSCR:
		break;
	}
	return &regs->u.arm64.mdscr;
}

static void nv(struct hwbp_reg_nv *out, int max, int *i, const char *prefix,
	       unsigned n, uint64_t value)
{
	if (*i < max) {
		memset(&out[*i], 0, sizeof(out[*i]));
		hwbpi_fmt_name(out[*i].name, sizeof(out[*i].name), prefix, n, n != ~0u);
		out[*i].value = value;
		(*i)++;
	}
}

int hwbpi_arm64_regs_list(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			  struct hwbp_reg_nv *out, int max)
{
	unsigned nb = hwbp_arm64_nbrp(cpu), nw = hwbp_arm64_nwrp(cpu);
	int i = 0;

	/* Only the pairs this CPU implements (ID_AA64DFR0_EL1). */
	for (unsigned n = 0; n < nb; n++) {
		nv(out, max, &i, "dbgbvr", n, regs->u.arm64.bvr[n]);
		nv(out, max, &i, "dbgbcr", n, regs->u.arm64.bcr[n]);
	}
	for (unsigned n = 0; n < nw; n++) {
		nv(out, max, &i, "dbgwvr", n, regs->u.arm64.wvr[n]);
		nv(out, max, &i, "dbgwcr", n, regs->u.arm64.wcr[n]);
	}
	nv(out, max, &i, "mdscr", ~0u, regs->u.arm64.mdscr);
	return i;
}

/* Decimal slot number without sign or leading zeros ("0".."15"), or -1. */
static int parse_index(const char *s)
{
	int v = 0;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] != '\0'))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > HWBP_MAX_SLOTS)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

int hwbpi_arm64_regs_set(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			 const char *name, uint64_t value)
{
	if (hwbpi_streq(name, "mdscr")) {
		regs->u.arm64.mdscr = value;
		return 0;
	}
	for (unsigned i = 0; i < sizeof(reg_prefixes) / sizeof(reg_prefixes[0]); i++) {
		size_t pl = hwbpi_strlen(reg_prefixes[i].prefix);
		enum reg_kind k = reg_prefixes[i].kind;
		unsigned count;
		int n;

		if (!hwbpi_starts(name, reg_prefixes[i].prefix))
			continue;
		n = parse_index(name + pl);
		count = (k == RK_BVR || k == RK_BCR) ? hwbp_arm64_nbrp(cpu) : hwbp_arm64_nwrp(cpu);
		if (n < 0 || (unsigned)n >= count)
			return -ENOENT;
		*reg_ptr(regs, k, (unsigned)n) = value;
		return 0;
	}
	return -ENOENT;
}

/*
 * A kernel's glue writes every DBGB/W(V|C)R pair and turns on MDSCR_EL1's
 * MDE/KDE when something is armed; it never clears an enable another user
 * of the debug unit set (Linux enable_debug_monitors() counts users), so
 * MDSCR's bits are OR-ed.
 */
void hwbpi_arm64_regs_apply(struct hwbp_regs *live, const struct hwbp_regs *written)
{
	uint64_t mdscr = live->u.arm64.mdscr | written->u.arm64.mdscr;

	live->u.arm64 = written->u.arm64;
	live->u.arm64.mdscr = mdscr;
}

/* Watchpoints "wp0".., breakpoints "bp0".. (two pools). */
size_t hwbpi_arm64_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf,
			     size_t n)
{
	(void)cpu;
	return hwbpi_fmt_name(buf, n, inst ? "bp" : "wp", slot, true);
}
