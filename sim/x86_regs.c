/* SPDX-License-Identifier: MIT */
/*
 * The x86 model's register file (the model: sim/x86.c): state at reset,
 * `set` and `get` of DR0-DR7, DRn_ADDR_MASK, CR4 and RF, the CPL of
 * `mode`, and what a MOV to DRn does (#UD, general detect, #GP, the bits
 * DR6 and DR7 keep) under both profiles.
 */
#include <errno.h>
#include <string.h>

#include "x86_model.h"

/* DR6 (SDM §17.2.3, Figure 17-1); BD and BS are in x86_model.h. */
#define DR6_BT (1ull << 15)
/*
 * The bits software can change: B0-B3, BD, BS, BT.  Bits 4-11 and 16-31
 * read as 1 (this model has neither RTM nor bus-lock detection, whose
 * active-low bits 16 and 11 would otherwise be writable), bit 12 reads as 0
 * (Linux KVM: DR6_VOLATILE 0x0001e80f without those two features).
 */
#define DR6_WRITABLE (HWBP_X86_DR6_B_MASK | DR6_BD | DR6_BS | DR6_BT)

/* In 64-bit mode MOV to DR6/DR7 with bits 63:32 set raises #GP(0) (SDM §17.2.6). */
#define DR_HIGH_RESERVED 0xffffffff00000000ull

void hwbpi_sim_x86_reset(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c)
{
	memset(c, 0, sizeof(*c));
	/* DR0-DR3 = 0, DR6 = 0xFFFF0FF0, DR7 = 0x400 (SDM §17.2, Table 10-1
	 * state after reset); CR4 = 0 (DE clear), RF = 0, CPL 0. */
	hwbp_regs_reset(cpu, &c->regs);
	c->s.x86.cr4 = 0;
	c->s.x86.rf = 0;
	c->s.x86.cpl = 0;
	c->pending = false;
	/* The filter belongs to the execution (sim/x86.c). */
	hwbpi_sim_x86.refilter(cpu, profile, c);
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
			hwbpi_sim_x86_qemu_drn_written(c, (unsigned)n, c->regs.u.x86.dr7);
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
			hwbpi_sim_x86_qemu_dr7_written(c, old, c->regs.u.x86.dr7);
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
	struct hwbpi_x86_start st = hwbpi_sim_x86_start(c);

	if ((n == 4 || n == 5) && (c->s.x86.cr4 & CR4_DE)) {
		/* DR4/DR5 are reserved with CR4.DE = 1 (#UD) and alias DR6/DR7
		 * with DE = 0 (SDM §17.2.2). */
		mov_fault(c, HWBP_SIM_UD, res);
	} else if (c->regs.u.x86.dr7 & DR7_GD) {
		general_detect(profile, c, res);
	} else if (cpu->u.x86.mode64 && n >= 4 && (value & DR_HIGH_RESERVED)) {
		mov_fault(c, HWBP_SIM_GP, res);
	} else {
		/* 32-bit debug registers: the upper half of the value is lost. */
		write_dr(profile, c, n >= 4 && n <= 5 ? n + 2 : n,
			 cpu->u.x86.mode64 ? value : value & 0xffffffffull);
		/* The MOV completed: a step trap, a MOV SS's held #DB. */
		hwbpi_sim_x86_end(cpu, profile, c, st, 0, 0, false, res);
		return;
	}
	/* A fault reaches no boundary: what a MOV SS held is lost with it. */
	c->s.x86.held_b = 0;
	c->s.x86.held_bs = false;
}

int hwbpi_sim_x86_set_reg(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
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
	if (strcmp(name, "tf") == 0 || strcmp(name, "step") == 0) {
		/* `step on|off`: a debugger single-steps with RFLAGS.TF. */
		c->s.x86.tf = value != 0;
		return 0;
	}
	if (is_mask_name(name))
		return set_mask(cpu, profile, c, name, value);
	if (n < 0)
		return -ENOENT;
	mov_dr(cpu, profile, c, n, value, res);
	return 0;
}

int hwbpi_sim_x86_get_reg(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c,
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
	if (strcmp(name, "tf") == 0 || strcmp(name, "step") == 0) {
		*value = (uint64_t)c->s.x86.tf;
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

/*
 * MOV from DRn, in the current mode (SDM Vol. 2B "MOV--Move to/from Debug
 * Registers", in QEMU helper_get_dr()'s order): #GP(0) at CPL > 0, #UD for
 * DR4/DR5 with CR4.DE = 1, general detect with DR7.GD, else the value
 * (DR4/DR5 alias DR6/DR7 with DE = 0).  A fault is before the
 * instruction; one that completes ends as every instruction does (a step
 * trap, a MOV SS's held #DB).
 */
int hwbpi_sim_x86_get_insn(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			   const char *name, uint64_t *value, struct hwbp_sim_result *res)
{
	struct hwbpi_x86_start st;
	int n = dr_index(name);

	clear_res(res);
	if (n < 0)
		return -ENOENT;
	st = hwbpi_sim_x86_start(c);
	if (c->s.x86.cpl != 0) {
		mov_fault(c, HWBP_SIM_GP, res);
	} else if ((n == 4 || n == 5) && (c->s.x86.cr4 & CR4_DE)) {
		mov_fault(c, HWBP_SIM_UD, res);
	} else if (c->regs.u.x86.dr7 & DR7_GD) {
		general_detect(profile, c, res);
	} else {
		hwbpi_sim_x86_get_reg(cpu, c, name, value);
		c->s.x86.rf = 0;
		hwbpi_sim_x86_end(cpu, profile, c, st, 0, 0, false, res);
		return 0;
	}
	/* A fault reaches no boundary: what a MOV SS held is lost with it
	 * (kvm-unit-tests "Single-step #DB w/ MOVSS blocking and DR7.GD=1":
	 * the general-detect #DB is 0xffff2ff0, no BS). */
	c->s.x86.held_b = 0;
	c->s.x86.held_bs = false;
	return 0;
}

int hwbpi_sim_x86_mode(const struct hwbp_cpu *cpu, struct hwbpi_sim_cpu *c, const char *key,
		       uint64_t value)
{
	(void)cpu;
	if (strcmp(key, "cpl") != 0)
		return -ENOENT;
	if (value != 0 && value != 3)
		return -EINVAL;
	c->s.x86.cpl = (int)value;
	return 0;
}

int hwbpi_sim_x86_priv(const struct hwbpi_sim_cpu *c)
{
	return c->s.x86.cpl == 3 ? 1 : 0;
}
