/* SPDX-License-Identifier: MIT */
/*
 * powerpc encoders: one piece -> DAWRn/DAWRXn, DABR/DABRX or CIABR.
 *
 * Privilege (scope) choices, shared with decode.c:
 *
 *  - DAWRX/DABRX have one enable bit per state (PRO = problem state, PNH =
 *    privileged non-hypervisor, HYP = hypervisor).  USER -> PRO; KERNEL ->
 *    PNH|HYP, so a kernel watch works whether the kernel runs bare metal
 *    (MSR[HV]=1, HYP matches) or as a pseries/KVM guest (MSR[HV]=0, PNH
 *    matches).  This is the value Linux programs for a perf breakpoint that
 *    does not exclude kernel or hv (hw_breakpoint.c hw_breakpoint_arch_parse
 *    sets HW_BRK_TYPE_KERNEL|HW_BRK_TYPE_HYP, dawr.c shifts them into DAWRX).
 *    A guest's glue must drop HYP before H_SET_MODE: PAPR forbids it and
 *    Linux pseries_set_dawr() clears DAWRX_HYP for that reason.
 *
 *  - CIABR[PRIV] names exactly one state (Book III §9.3: 01 problem, 10
 *    privileged non-hypervisor, 11 hypervisor).  USER -> 01.  KERNEL -> 11,
 *    the state of a bare-metal kernel (MSR[HV]=1, as hwbp's own harnesses
 *    and the simulator start: docs/scenarios.md "pr=0 hv=1").  A pseries guest
 *    kernel runs with MSR[HV]=0 and would need 10; Linux xmon set_ciabr()
 *    makes the same HV-mode / guest distinction.  Such a guest's glue must
 *    rewrite PRIV 11 -> 10 (the hypervisor refuses 11 from a guest).
 *    BOTH cannot be expressed (check() already refuses it: -EOPNOTSUPP).
 *
 * Translation: Linux sets DAWRX[WT]=1 (and DABR[BT]=1), so its watchpoints
 * match only accesses made with MSR[DR]=1.  hwbp's bare-metal harnesses may
 * run with data relocation off, where such a watch would never fire.  The
 * ISA's DAWRX[WTI] / DABRX[BTI] ("translation ignore") make the match
 * independent of MSR[DR] (the WT/BT comparison is skipped), so we set WTI
 * (BTI) and keep WT (BT) = 1 as Linux does; the value is then correct with
 * relocation on and off.  (Reading chosen: ignore translation, rather than
 * Linux's "translated accesses only".)
 */

#include "powerpc.h"

void hwbpi_powerpc_reset(const struct hwbp_cpu *cpu, struct hwbp_regs *regs)
{
	(void)cpu;
	/* Every field 0: DR=DW=0 and PRIV=0 disable each unit. */
	memset(&regs->u.ppc, 0, sizeof(regs->u.ppc));
}

static int priv_bits(enum hwbp_scope scope, uint64_t user, uint64_t kernel,
		     uint64_t *out)
{
	switch (scope) {
	case HWBP_SCOPE_USER:
		*out = user;
		return 0;
	case HWBP_SCOPE_KERNEL:
		*out = kernel;
		return 0;
	case HWBP_SCOPE_BOTH:
		*out = user | kernel;
		return 0;
	}
	return -EINVAL;
}

static bool data_type_ok(unsigned type)
{
	return type == HWBP_R || type == HWBP_W || type == HWBP_RW;
}

static int encode_ciabr(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			unsigned slot, const struct hwbp_piece *piece,
			enum hwbp_scope scope)
{
	uint64_t priv;

	if (!hwbp_powerpc_has_ciabr(cpu) || slot != 0)
		return -EINVAL;
	if (piece->type != HWBP_X || piece->len != 4 || (piece->addr & 3))
		return -EINVAL;
	if (scope == HWBP_SCOPE_USER)
		priv = HWBP_PPC_CIABR_PRIV_USER;
	else if (scope == HWBP_SCOPE_KERNEL)
		priv = HWBP_PPC_CIABR_PRIV_HYPER;
	else
		return -EINVAL;
	regs->u.ppc.ciabr = piece->addr | priv;
	return 0;
}

static int encode_dawr(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		       unsigned slot, const struct hwbp_piece *piece,
		       enum hwbp_scope scope)
{
	int idx = hwbp_powerpc_dawr_index(cpu, slot);
	uint64_t bnd = hwbp_powerpc_boundary(cpu);
	uint64_t last, priv, x;

	if (idx < 0)
		return -EINVAL;
	if ((piece->addr & (HWBP_PPC_DW - 1)) || (piece->len & (HWBP_PPC_DW - 1)) ||
	    piece->len == 0 || piece->len > HWBP_PPC_DAWR_MAX)
		return -EINVAL;
	last = piece->addr + (piece->len - 1);
	if (last < piece->addr)
		return -EINVAL;  /* wraps past the top of the address space */
	if (bnd && (piece->addr / bnd) != (last / bnd))
		return -EINVAL;  /* crosses 512 bytes before ISA v3.1 */
	if (!data_type_ok(piece->type))
		return -EINVAL;
	if (priv_bits(scope, HWBP_PPC_DAWRX_PRO,
		      HWBP_PPC_DAWRX_PNH | HWBP_PPC_DAWRX_HYP, &priv))
		return -EINVAL;

	x = priv | HWBP_PPC_DAWRX_WTI | HWBP_PPC_DAWRX_WT;
	if (piece->type & HWBP_R)
		x |= HWBP_PPC_DAWRX_DR;
	if (piece->type & HWBP_W)
		x |= HWBP_PPC_DAWRX_DW;
	x |= ((piece->len / HWBP_PPC_DW) - 1) << HWBP_PPC_DAWRX_MRD_SHIFT;
	regs->u.ppc.dawr[idx] = piece->addr;
	regs->u.ppc.dawrx[idx] = x;
	return 0;
}

static int encode_dabr(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		       unsigned slot, const struct hwbp_piece *piece,
		       enum hwbp_scope scope)
{
	uint64_t priv, d;

	if (!hwbp_powerpc_dabr_mode(cpu) || slot != 0)
		return -EINVAL;
	if ((piece->addr & (HWBP_PPC_DW - 1)) || piece->len != HWBP_PPC_DW)
		return -EINVAL;
	if (!data_type_ok(piece->type))
		return -EINVAL;
	if (priv_bits(scope, HWBP_PPC_DABRX_USER,
		      HWBP_PPC_DABRX_KERNEL | HWBP_PPC_DABRX_HYP, &priv))
		return -EINVAL;

	d = piece->addr | HWBP_PPC_DABR_BT;
	if (piece->type & HWBP_R)
		d |= HWBP_PPC_DABR_DR;
	if (piece->type & HWBP_W)
		d |= HWBP_PPC_DABR_DW;
	regs->u.ppc.dabr = d;
	regs->u.ppc.dabrx = priv | HWBP_PPC_DABRX_BTI;
	return 0;
}

/*
 * Every check happens before the first store, so a failure leaves *regs
 * untouched.  @local (x86 only) is ignored.
 */
int hwbpi_powerpc_encode(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			 unsigned slot, bool inst, const struct hwbp_piece *piece,
			 enum hwbp_scope scope, bool local)
{
	(void)local;
	if (inst)
		return encode_ciabr(cpu, regs, slot, piece, scope);
	if (hwbp_powerpc_has_dawr(cpu))
		return encode_dawr(cpu, regs, slot, piece, scope);
	return encode_dabr(cpu, regs, slot, piece, scope);
}

/* The registers of the units this CPU has, in docs/scenarios.md order. */
struct ppc_reg {
	const char *name;
	unsigned unit;   /* HWBP_PPC_* that must be present */
	size_t off;      /* offset in regs->u.ppc */
};

#define PPC_OFF(f) offsetof(struct hwbp_regs, u.ppc.f)

static const struct ppc_reg ppc_regs[] = {
	{ "dabr", HWBP_PPC_DABR, PPC_OFF(dabr) },
	{ "dabrx", HWBP_PPC_DABR, PPC_OFF(dabrx) },
	{ "dawr0", HWBP_PPC_DAWR0, PPC_OFF(dawr[0]) },
	{ "dawrx0", HWBP_PPC_DAWR0, PPC_OFF(dawrx[0]) },
	{ "dawr1", HWBP_PPC_DAWR1, PPC_OFF(dawr[1]) },
	{ "dawrx1", HWBP_PPC_DAWR1, PPC_OFF(dawrx[1]) },
	{ "ciabr", HWBP_PPC_CIABR, PPC_OFF(ciabr) },
};

#define NPPC_REGS (sizeof(ppc_regs) / sizeof(ppc_regs[0]))

static uint64_t *reg_ptr(struct hwbp_regs *regs, const struct ppc_reg *r)
{
	return (uint64_t *)((char *)regs + r->off);
}

int hwbpi_powerpc_regs_list(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			    struct hwbp_reg_nv *out, int max)
{
	int n = 0;

	for (size_t i = 0; i < NPPC_REGS && n < max; i++) {
		const struct ppc_reg *r = &ppc_regs[i];
		uint64_t v;

		if (!(cpu->u.ppc.units & r->unit))
			continue;
		memcpy(&v, (const char *)regs + r->off, sizeof(v));
		memset(out[n].name, 0, sizeof(out[n].name));
		hwbpi_strlcpy(out[n].name, r->name, sizeof(out[n].name));
		out[n].value = v;
		n++;
	}
	return n;
}

int hwbpi_powerpc_regs_set(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			   const char *name, uint64_t value)
{
	for (size_t i = 0; i < NPPC_REGS; i++) {
		const struct ppc_reg *r = &ppc_regs[i];

		if (!hwbpi_streq(name, r->name))
			continue;
		if (!(cpu->u.ppc.units & r->unit))
			return -ENOENT;
		*reg_ptr(regs, r) = value;
		return 0;
	}
	return -ENOENT;
}

/* A kernel's glue writes every unit's registers; none is a status. */
void hwbpi_powerpc_regs_apply(struct hwbp_regs *live, const struct hwbp_regs *written)
{
	live->u.ppc = written->u.ppc;
}

/* "ciabr"; data: "dabr" before POWER8, else "dawr0"/"dawr1" by unit. */
size_t hwbpi_powerpc_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf,
			       size_t n)
{
	int dawr;

	if (inst)
		return hwbpi_fmt_name(buf, n, "ciabr", 0, false);
	if (!hwbp_powerpc_has_dawr(cpu))
		return hwbpi_fmt_name(buf, n, "dabr", 0, false);
	dawr = hwbp_powerpc_dawr_index(cpu, slot);
	return hwbpi_fmt_name(buf, n, "dawr", dawr < 0 ? slot : (unsigned)dawr, true);
}
