/* SPDX-License-Identifier: MIT */
/*
 * x86 glue: write DR0-DR3/DR7 from struct hwbp_regs, read them back, and
 * the #DB entry helper (see glue.h).  Intel SDM Vol. 3 §17.2: MOV to/from
 * DRn at CPL 0; DR7.GD makes the next MOV a #DB fault (DR6.BD) and the
 * fault clears GD (§17.2.4); DR4/DR5 alias DR6/DR7 while CR4.DE = 0
 * (§17.2.2).
 */
#include <stdint.h>

#include "glue.h"
#include "hwbp_libc.h"

#define DR6_FIXED1 0xffff0ff0ull
#define DR7_FIXED1 0x400ull

static int (*const dr_to[8])(uint64_t) = {
	hwbp_x86_movdr_to0, hwbp_x86_movdr_to1, hwbp_x86_movdr_to2, hwbp_x86_movdr_to3,
	hwbp_x86_movdr_to4, hwbp_x86_movdr_to5, hwbp_x86_movdr_to6, hwbp_x86_movdr_to7,
};

static int (*const dr_from[8])(uint64_t *) = {
	hwbp_x86_movdr_from0, hwbp_x86_movdr_from1, hwbp_x86_movdr_from2, hwbp_x86_movdr_from3,
	hwbp_x86_movdr_from4, hwbp_x86_movdr_from5, hwbp_x86_movdr_from6, hwbp_x86_movdr_from7,
};

/*
 * Shadow of each CPU's DR0-DR7 (4 and 5 unused): what its registers hold.
 * Debug registers are per logical processor (SDM Vol. 3 §17.2), and so is
 * what a CPU's DR7.GD guards: the shadow a function reads is the one of
 * the CPU it runs on (hwbp_x86_this_cpu(), the host's).  A CPU's shadow
 * is touched by that CPU only, with interrupts off (glue.h): no lock.
 */
static uint64_t shadows[HWBP_X86_GLUE_MAX_CPUS][8];
static unsigned char shadow_init[HWBP_X86_GLUE_MAX_CPUS];

static uint64_t *this_shadow(void)
{
	unsigned c = hwbp_x86_this_cpu();
	uint64_t *s;

	if (c >= HWBP_X86_GLUE_MAX_CPUS)
		c = 0;   /* (a host bug: better one shared shadow than a wild write) */
	s = shadows[c];
	if (!shadow_init[c]) {
		/* The reset values (§17.2.3, §17.2.4). */
		s[6] = DR6_FIXED1;
		s[7] = DR7_FIXED1;
		shadow_init[c] = 1;
	}
	return s;
}

static int gd_armed(void)
{
	uint64_t *sh = this_shadow();

	return (sh[7] & HWBP_X86_GLUE_DR7_GD) != 0;
}

/* Read the real register into the shadow (only while GD is clear). */
static void refresh(unsigned k)
{
	uint64_t *sh = this_shadow();
	uint64_t v;

	if (!gd_armed() && dr_from[k](&v) == 0)
		sh[k] = v;
}

int hwbp_x86_dr_write(unsigned n, uint64_t v, int de)
{
	uint64_t *sh = this_shadow();
	unsigned k = n;
	int vec;

	if (n > 7)
		return -EINVAL;
	if ((n == 4 || n == 5) && !de)
		k = n + 2;
	vec = dr_to[n](v);
	if (vec == HWBP_X86_GLUE_VEC_DB) {
		/* General detect: GD is clear now, DR6 has BD. */
		sh[7] &= ~HWBP_X86_GLUE_DR7_GD;
		refresh(7);
		refresh(6);
		return vec;
	}
	if (vec)
		return vec;
	if (k == 7)
		sh[7] = v | DR7_FIXED1;
	else if (k == 6)
		sh[6] = v | DR6_FIXED1;
	else
		sh[k] = v;
	refresh(k);
	return 0;
}

uint64_t hwbp_x86_dr_read(unsigned n)
{
	uint64_t *sh = this_shadow();

	if (n > 7 || n == 4 || n == 5)
		return 0;
	refresh(n);
	return sh[n];
}

uint64_t hwbp_x86_dr6_read_raw(void)
{
	uint64_t *sh = this_shadow();
	uint64_t v = 0, before = sh[6];

	if (hwbp_x86_movdr_from6(&v) != HWBP_X86_GLUE_VEC_DB) {
		sh[6] = v;
		return v;
	}
	/*
	 * GD was armed: the MOV itself faulted, disarmed GD and set BD
	 * (Intel SDM §17.2.4; QEMU helper_get_dr()).  Read again, then undo
	 * both, so that a handler looking at DR6 leaves the debug state as
	 * the CPU left it: BD only if it was set before, GD armed again.
	 * (On hardware the #DB delivery itself clears GD; QEMU does not.)
	 */
	hwbp_x86_movdr_from6(&v);
	if (!(before & HWBP_X86_GLUE_DR6_BD)) {
		v &= ~HWBP_X86_GLUE_DR6_BD;
		hwbp_x86_movdr_to6(v);
	}
	sh[6] = v;
	hwbp_x86_movdr_to7(sh[7]);
	return v;
}

uint64_t hwbp_x86_dr7_shadow(void)
{
	return this_shadow()[7];
}

void hwbp_x86_dr_reset(void)
{
	/* A first write may only disarm GD (general-detect #DB): retry. */
	if (hwbp_x86_dr_write(7, 0, 0) == HWBP_X86_GLUE_VEC_DB)
		hwbp_x86_dr_write(7, 0, 0);
	for (unsigned i = 0; i < 4; i++)
		hwbp_x86_dr_write(i, 0, 0);
	hwbp_x86_dr_write(6, 0, 0);
}

/* DR6 is the whole status (SDM §17.2.3): which Bn, BD, BS. */
void hwbp_glue_read_status(struct hwbp_status *st)
{
	st->u.x86.dr6 = hwbp_x86_dr6_read_raw();
}

void hwbp_x86_db_entry(uint64_t rip, struct hwbp_status *st)
{
	st->ip = rip;
	hwbp_glue_read_status(st);
}

/*
 * hwbp's write_regs: the address registers first, DR7 last, so that the
 * enables apply to the new addresses (and QEMU re-inserts its watchpoints
 * in slot order).  DR6 is the CPU's: never written.  The AMD address masks
 * are not written (no DataBkptExt on this target).
 */
int hwbp_glue_write_regs(const struct hwbp_regs *regs)
{
	uint64_t *sh = this_shadow();

	if (!regs || regs->arch != HWBP_ARCH_X86)
		return -EINVAL;
	for (unsigned i = 0; i < 5; i++) {
		unsigned n = i < 4 ? i : 7;
		uint64_t v = i < 4 ? regs->u.x86.dr[i] : regs->u.x86.dr7;
		uint64_t dr6 = sh[6];
		int vec = hwbp_x86_dr_write(n, v, 0);

		if (vec == HWBP_X86_GLUE_VEC_DB) {
			/*
			 * DR7.GD was armed: the MOV faulted (GD now clear, DR6.BD
			 * set).  hwbp's write is the kernel's own, not the
			 * guarded MOV a scenario makes: undo BD and write again.
			 */
			if (!(dr6 & HWBP_X86_GLUE_DR6_BD))
				hwbp_x86_dr_write(6, dr6, 0);
			vec = hwbp_x86_dr_write(n, v, 0);
		}
		if (vec)
			return -EIO;
	}
	return 0;
}

void hwbp_glue_read_regs(struct hwbp_regs *regs)
{
	regs->arch = HWBP_ARCH_X86;
	for (unsigned i = 0; i < 4; i++) {
		regs->u.x86.dr[i] = hwbp_x86_dr_read(i);
		regs->u.x86.addr_mask[i] = 0;
	}
	regs->u.x86.dr6 = hwbp_x86_dr_read(6);
	regs->u.x86.dr7 = hwbp_x86_dr_read(7);
}
