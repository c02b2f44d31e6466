/* SPDX-License-Identifier: MIT */
/*
 * The riscv trigger-module model (sim/riscv.c, sim/riscv_regs.c) through
 * the public simulator API, on CPU models built by hand (the presets are
 * arch/riscv's).  Rows cite the RISC-V Debug Specification 1.0 (Sdtrig,
 * §5.3 Priority, §5.4 Native Triggers, §5.7 Trigger Module Registers:
 * tselect 5.7.1, tdata1 5.7.2, tinfo 5.7.5, tcontrol 5.7.6, mcontrol
 * 5.7.11, mcontrol6 5.7.12) and, for the qemu profile, the QEMU 10.0
 * functions of target/riscv/debug.c named in sim/quirks_riscv.def.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include <hwbp/riscv.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define A 0x80010000ull

/* tdata1 encoders: flags are the low bits (load 1, store 2, execute 4,
 * u 8, s 0x10, m 0x40, chain 0x800). */
#define LD 0x1ull
#define ST 0x2ull
#define EX 0x4ull
#define PU 0x8ull
#define PS 0x10ull
#define PM 0x40ull
#define CH 0x800ull
#define ALLP (PU | PS | PM)
#define MC2(f, m, sz) (2ull << 60 | (f) | (uint64_t)(m) << 7 | ((uint64_t)(sz) & 3) << 16 | \
		       ((uint64_t)(sz) >> 2) << 21)
#define MC6(f, m, sz) (6ull << 60 | (f) | (uint64_t)(m) << 7 | (uint64_t)(sz) << 16)
#define TIMING2 (1ull << 18)
#define T15 (15ull << 60)
#define T2 (2ull << 60)

#define F_ALL 0x7ffu
/* Like QEMU: S and U modes, size, tval; nothing else. */
#define F_QEMU (HWBP_RISCV_F_SMODE | HWBP_RISCV_F_UMODE | HWBP_RISCV_F_SIZE | HWBP_RISCV_F_TVAL)

enum { SDT = 0, QCPU = 1, SDT13 = 2 };   /* the CPU models of the rows */
enum { BOTH = 0, SDM = 1, QEMU = 2 };
enum { R = HWBP_SIM_READ, W = HWBP_SIM_WRITE, X = HWBP_SIM_EXEC };
enum { NO = HWBP_SIM_NONE, BP = HWBP_SIM_BREAKPOINT };
#define NQ (-1)

static struct hwbp_cpu mkcpu(int which)
{
	struct hwbp_cpu c;

	memset(&c, 0, sizeof(c));
	c.arch = HWBP_ARCH_RISCV;
	if (which == SDT) {
		/* Debug spec 1.0, 4 mcontrol6 triggers, every feature. */
		strcpy(c.name, "test-sdtrig");
		c.u.riscv.ntrig = 4;
		c.u.riscv.spec = 10;
		c.u.riscv.tinfo = 1u << 6 | 1u << 15;
		c.u.riscv.features = F_ALL;
	} else if (which == QCPU) {
		/* What QEMU 10.0 offers: 2 triggers of types 2 and 6. */
		strcpy(c.name, "test-qemu");
		c.u.riscv.ntrig = 2;
		c.u.riscv.spec = 13;
		c.u.riscv.tinfo = 1u << 2 | 1u << 6;
		c.u.riscv.features = F_QEMU;
	} else {
		/* Debug spec 0.13, 8 mcontrol triggers, every feature. */
		strcpy(c.name, "test-013");
		c.u.riscv.ntrig = 8;
		c.u.riscv.spec = 13;
		c.u.riscv.tinfo = 1u << 2;
		c.u.riscv.features = F_ALL;
	}
	return c;
}

static struct hwbp_sim *mk(int which, int profile)
{
	struct hwbp_cpu cpu = mkcpu(which);
	int err = -1;
	struct hwbp_sim *sim = hwbp_sim_new(&cpu, (enum hwbp_sim_profile)profile, 1, &err);

	assert_non_null(sim);
	assert_int_equal(err, 0);
	return sim;
}

static void set(struct hwbp_sim *sim, const char *n, uint64_t v)
{
	struct hwbp_sim_result r;

	assert_int_equal(hwbp_sim_set_reg(sim, 0, n, v, &r), 0);
	assert_int_equal(r.cls, HWBP_SIM_NONE);
}

static uint64_t get(struct hwbp_sim *sim, const char *n)
{
	uint64_t v = 0;

	assert_int_equal(hwbp_sim_get_reg(sim, 0, n, &v), 0);
	return v;
}

/* Trigger @i as §5.7 tells software to write one: tdata1 = 0, tdata2,
 * then tdata1. */
static void arm(struct hwbp_sim *sim, unsigned i, uint64_t t1, uint64_t t2)
{
	set(sim, "tselect", i);
	set(sim, "tdata1", 0);
	set(sim, "tdata2", t2);
	set(sim, "tdata1", t1);
}

/* ------------------------------------------------------------------ */
/* Matching rows                                                       */
/* ------------------------------------------------------------------ */

struct trg {
	bool on;
	uint64_t t1, t2, t3;
};

struct row {
	const char *why;
	int prof, quirk, cpu;
	struct trg t[4];       /* armed in the order 3, 2, 1, 0 unless order01 */
	bool order01;
	uint64_t tcontrol;     /* written first when the CPU has tcontrol */
	int priv;
	uint32_t op;
	uint64_t addr;
	uint32_t size;
	int cls;
	uint32_t slots;
	bool after;
	uint64_t mtval;
};

#define TC_ON HWBP_RISCV_TCONTROL_MTE
#define ON(t1, t2) { true, (t1), (t2), 0 }

static const struct row rows[] = {
	/* ---- equal match, access kinds, sizes: mcontrol6 §5.7.12 ---- */
	{ "load trigger, 1-byte load at tdata2", BOTH, NQ, SDT, { ON(MC6(LD | ALLP, 0, 0), A) }, false,
	  TC_ON, 3, R, A, 1, BP, 1, false, A },
	{ "load trigger ignores a store", BOTH, NQ, SDT, { ON(MC6(LD | ALLP, 0, 0), A) }, false,
	  TC_ON, 3, W, A, 1, NO, 0, false, 0 },
	{ "store trigger, 8-byte store covering tdata2 (every accessed byte is a compare value)",
	  BOTH, NQ, SDT, { ON(MC6(ST | ALLP, 0, 0), A + 3) }, false, TC_ON, 3, W, A, 8, BP, 1, false, A + 3 },
	{ "size any: an access that does not touch tdata2 does not match", SDM, HWBPI_Q_RV_SIZE_ANY_8,
	  SDT, { ON(MC6(LD | ALLP, 0, 0), A) }, false, TC_ON, 3, R, A + 4, 4, NO, 0, false, 0 },
	{ "size any: QEMU watches 8 bytes from tdata2", QEMU, HWBPI_Q_RV_SIZE_ANY_8,
	  SDT, { ON(MC6(LD | ALLP, 0, 0), A) }, false, TC_ON, 3, R, A + 4, 4, BP, 1, false, A + 4 },
	{ "size 32-bit: a 4-byte load at tdata2 matches", BOTH, NQ, SDT,
	  { ON(MC6(LD | ALLP, 0, 3), A) }, false, TC_ON, 3, R, A, 4, BP, 1, false, A },
	{ "size 32-bit: a 1-byte load does not (only 32-bit accesses)", SDM, HWBPI_Q_RV_SIZE_AS_LENGTH, SDT,
	  { ON(MC6(LD | ALLP, 0, 3), A) }, false, TC_ON, 3, R, A + 2, 1, NO, 0, false, 0 },
	{ "size 32-bit: QEMU watches 3 bytes, any access size", QEMU, HWBPI_Q_RV_SIZE_AS_LENGTH, SDT,
	  { ON(MC6(LD | ALLP, 0, 3), A) }, false, TC_ON, 3, R, A + 2, 1, BP, 1, false, A + 2 },
	{ "size 32-bit: byte 3 is outside QEMU's 3 bytes", QEMU, HWBPI_Q_RV_SIZE_AS_LENGTH, SDT,
	  { ON(MC6(LD | ALLP, 0, 3), A) }, false, TC_ON, 3, R, A + 3, 1, NO, 0, false, 0 },
	{ "execute trigger at the instruction", BOTH, NQ, SDT, { ON(MC6(EX | ALLP, 0, 0), A) }, false,
	  TC_ON, 3, X, A, 0, BP, 1, false, A },
	{ "execute trigger: another instruction", BOTH, NQ, SDT, { ON(MC6(EX | ALLP, 0, 0), A) }, false,
	  TC_ON, 3, X, A + 4, 0, NO, 0, false, 0 },
	{ "execute trigger of size 16-bit: a 32-bit instruction does not match", SDM, HWBPI_Q_RV_SIZE_AS_LENGTH,
	  SDT, { ON(MC6(EX | ALLP, 0, 2), A) }, false, TC_ON, 3, X, A, 0, NO, 0, false, 0 },
	{ "execute trigger of size 16-bit: QEMU ignores size for execute", QEMU, HWBPI_Q_RV_SIZE_AS_LENGTH,
	  SDT, { ON(MC6(EX | ALLP, 0, 2), A) }, false, TC_ON, 3, X, A, 0, BP, 1, false, A },

	{ "execute NAPOT 64 bytes: an instruction inside (its address is the compare value)", SDM,
	  HWBPI_Q_RV_TDATA1_WARL, SDT, { ON(MC6(EX | ALLP, 1, 0), A + 0x1f) }, false, TC_ON, 3, X, A + 0x22,
	  0, BP, 1, false, A + 0x22 },
	{ "execute NAPOT 64 bytes: the instruction after the block", SDM, NQ, SDT,
	  { ON(MC6(EX | ALLP, 1, 0), A + 0x1f) }, false, TC_ON, 3, X, A + 0x40, 0, NO, 0, false, 0 },
	{ "execute range >= A + 2 (chain), < A + 12: an instruction at A + 8", SDM, NQ, SDT,
	  { ON(MC6(EX | ALLP, 2, 0) | CH, A + 2), ON(MC6(EX | ALLP, 3, 0), A + 12) }, true, TC_ON, 3, X,
	  A + 8, 0, BP, 3, false, A + 8 },
	{ "execute range: an instruction at its end (< is exclusive)", SDM, NQ, SDT,
	  { ON(MC6(EX | ALLP, 2, 0) | CH, A + 2), ON(MC6(EX | ALLP, 3, 0), A + 12) }, true, TC_ON, 3, X,
	  A + 12, 0, NO, 0, false, 0 },

	/* ---- privilege: u/s/m bits (mcontrol.m/s/u) ---- */
	{ "m only, from S-mode: no", BOTH, NQ, SDT, { ON(MC6(LD | PM, 0, 0), A) }, false, TC_ON, 1, R, A, 1,
	  NO, 0, false, 0 },
	{ "s only, from S-mode", BOTH, NQ, SDT, { ON(MC6(LD | PS, 0, 0), A) }, false, 0, 1, R, A, 1, BP, 1,
	  false, A },
	{ "u only, from U-mode", BOTH, NQ, QCPU, { ON(MC2(ST | PU, 0, 0), A) }, false, 0, 0, W, A, 2, BP, 1,
	  false, A },
	{ "u only, from M-mode: no", BOTH, NQ, QCPU, { ON(MC2(ST | PU, 0, 0), A) }, false, 0, 3, W, A, 2, NO,
	  0, false, 0 },
	/* ---- tcontrol.mte (§5.4, §5.7.6) ---- */
	{ "M-mode trigger with tcontrol.mte = 0 (reset): no match", SDM, HWBPI_Q_RV_TCONTROL_ABSENT, SDT,
	  { ON(MC6(LD | PM, 0, 0), A) }, false, 0, 3, R, A, 1, NO, 0, false, 0 },
	{ "M-mode trigger: QEMU has no tcontrol, fires", QEMU, HWBPI_Q_RV_TCONTROL_ABSENT, SDT,
	  { ON(MC6(LD | PM, 0, 0), A) }, false, 0, 3, R, A, 1, BP, 1, false, A },
	{ "0.13 CPU: no tcontrol, M-mode triggers fire", BOTH, NQ, SDT13,
	  { ON(MC2(LD | PM, 0, 0), A) }, false, 0, 3, R, A, 1, BP, 1, false, A },

	/* ---- match modes (mcontrol.match), F_NAPOT/F_GE_LT/F_MASK CPUs ---- */
	{ "NAPOT 16 bytes: tdata2 = A + 7, a load at A", SDM, HWBPI_Q_RV_TDATA1_WARL, SDT,
	  { ON(MC6(LD | ALLP, 1, 0), A + 7) }, false, TC_ON, 3, R, A, 4, BP, 1, false, A },
	{ "NAPOT 16 bytes: at A + 12", SDM, NQ, SDT,
	  { ON(MC6(LD | ALLP, 1, 0), A + 7) }, false, TC_ON, 3, R, A + 12, 4, BP, 1, false, A + 12 },
	{ "NAPOT: QEMU reads match as 0, 8 bytes from A + 7", QEMU, HWBPI_Q_RV_TDATA1_WARL, SDT,
	  { ON(MC6(LD | ALLP, 1, 0), A + 7) }, false, TC_ON, 3, R, A, 4, NO, 0, false, 0 },
	{ "NAPOT: outside the 16 bytes", SDM, NQ, SDT, { ON(MC6(LD | ALLP, 1, 0), A + 7) }, false, TC_ON, 3,
	  R, A + 16, 1, NO, 0, false, 0 },
	{ "NAPOT on a CPU without it: match reads 0 (equal)", SDM, NQ, QCPU,
	  { ON(MC2(LD | ALLP, 1, 0), A + 7) }, false, 0, 3, R, A + 7, 1, BP, 1, false, A + 7 },
	{ "GE: an access ending at tdata2", SDM, NQ, SDT, { ON(MC6(ST | ALLP, 2, 0), A + 8) }, false, TC_ON,
	  3, W, A + 1, 8, BP, 1, false, A + 8 },
	{ "GE: below", SDM, NQ, SDT, { ON(MC6(ST | ALLP, 2, 0), A + 8) }, false, TC_ON, 3, W, A, 8, NO, 0,
	  false, 0 },
	{ "LT: an access starting below tdata2", SDM, NQ, SDT, { ON(MC6(ST | ALLP, 3, 0), A) }, false, TC_ON,
	  3, W, A - 1, 4, BP, 1, false, A - 1 },
	{ "LT: at tdata2", SDM, NQ, SDT, { ON(MC6(ST | ALLP, 3, 0), A) }, false, TC_ON, 3, W, A, 4, NO, 0,
	  false, 0 },
	{ "mask low: low half & 0xfff0 == 0x0010", SDM, NQ, SDT,
	  { ON(MC6(LD | ALLP, 4, 0), 0xfff000000010ull) }, false, TC_ON, 3, R, 0x1230001eull, 1, BP, 1,
	  false, 0x1230001eull },
	{ "mask low: 0x20 does not", SDM, NQ, SDT, { ON(MC6(LD | ALLP, 4, 0), 0xfff000000010ull) }, false,
	  TC_ON, 3, R, 0x12300020ull, 1, NO, 0, false, 0 },
	{ "not equal (8): every byte but tdata2", SDM, NQ, SDT, { ON(MC6(LD | ALLP, 8, 0), A) }, false, TC_ON,
	  3, R, A + 1, 1, BP, 1, false, A + 1 },
	{ "not equal: the byte itself", SDM, NQ, SDT, { ON(MC6(LD | ALLP, 8, 0), A) }, false, TC_ON, 3, R, A,
	  2, NO, 0, false, 0 },

	/* ---- chain (mcontrol.chain): both must match the same access ---- */
	{ "chain GE A, LT A+16: inside", SDM, NQ, SDT,
	  { ON(MC6(LD | ALLP | CH, 2, 0), A), ON(MC6(LD | ALLP, 3, 0), A + 16) }, false, TC_ON, 3, R, A + 8,
	  4, BP, 3, false, A + 8 },
	{ "chain GE A, LT A+16: above", SDM, NQ, SDT,
	  { ON(MC6(LD | ALLP | CH, 2, 0), A), ON(MC6(LD | ALLP, 3, 0), A + 16) }, false, TC_ON, 3, R, A + 16,
	  4, NO, 0, false, 0 },
	{ "chain: QEMU reads chain and match as 0: two equal triggers", QEMU, HWBPI_Q_RV_TDATA1_WARL, SDT,
	  { ON(MC6(LD | ALLP | CH, 2, 0), A), ON(MC6(LD | ALLP, 3, 0), A + 16) }, false, TC_ON, 3, R, A + 8,
	  4, NO, 0, false, 0 },

	/* ---- timing (mcontrol.timing), type 2 on a 0.13 CPU ---- */
	{ "timing = after", SDM, HWBPI_Q_RV_TDATA1_WARL, SDT13, { ON(MC2(ST | ALLP, 0, 0) | TIMING2, A) },
	  false, 0, 3, W, A, 4, BP, 1, true, A },
	{ "timing = after: QEMU reads 0, before", QEMU, HWBPI_Q_RV_TDATA1_WARL, SDT13,
	  { ON(MC2(ST | ALLP, 0, 0) | TIMING2, A) }, false, 0, 3, W, A, 4, BP, 1, false, A },
	{ "before wins over after (both match)", SDM, NQ, SDT13,
	  { ON(MC2(ST | ALLP, 0, 0) | TIMING2, A), ON(MC2(ST | ALLP, 0, 0), A + 1) }, false, 0, 3, W, A, 4,
	  BP, 2, false, A + 1 },

	/* ---- execute triggers at two addresses: which one fires ---- */
	{ "two execute triggers: the one at the instruction", SDM, HWBPI_Q_RV_EXEC_FIRST_BP, SDT,
	  { ON(MC6(EX | ALLP, 0, 0), A), ON(MC6(EX | ALLP, 0, 0), A + 0x10) }, false, TC_ON, 3, X, A, 0,
	  BP, 1, false, A },
	{ "two execute triggers: QEMU's first breakpoint (trigger 1, written first) decides mtval",
	  QEMU, HWBPI_Q_RV_EXEC_FIRST_BP, SDT,
	  { ON(MC6(EX | ALLP, 0, 0), A), ON(MC6(EX | ALLP, 0, 0), A + 0x10) }, false, TC_ON, 3, X, A, 0,
	  BP, 2, false, A + 0x10 },
	{ "two execute triggers written 0 then 1: QEMU's first is trigger 0", QEMU, NQ, SDT,
	  { ON(MC6(EX | ALLP, 0, 0), A), ON(MC6(EX | ALLP, 0, 0), A + 0x10) }, true, TC_ON, 3, X, A, 0,
	  BP, 1, false, A },

	/* ---- several triggers: which one mtval names ---- */
	{ "two triggers: mtval of the lowest-numbered", SDM, HWBPI_Q_RV_FIRST_WATCHPOINT, SDT,
	  { ON(MC6(LD | ALLP, 0, 0), A + 4), ON(MC6(LD | ALLP, 0, 0), A) }, false, TC_ON, 3, R, A, 8, BP, 3,
	  false, A + 4 },
	{ "two triggers: QEMU's list, trigger 1 written first", QEMU, HWBPI_Q_RV_FIRST_WATCHPOINT, SDT,
	  { ON(MC6(LD | ALLP, 0, 0), A + 4), ON(MC6(LD | ALLP, 0, 0), A) }, false, TC_ON, 3, R, A, 8, BP, 3,
	  false, A },
	{ "two triggers written 0 then 1: QEMU's first is trigger 0", QEMU, NQ, SDT,
	  { ON(MC6(LD | ALLP, 0, 0), A + 4), ON(MC6(LD | ALLP, 0, 0), A) }, true, TC_ON, 3, R, A, 8, BP, 3,
	  false, A + 4 },
	{ "QEMU: a U-only trigger's watchpoint fires through an M trigger with the same tdata2",
	  QEMU, HWBPI_Q_RV_FIRST_WATCHPOINT, QCPU,
	  { ON(MC2(LD | PU, 0, 0), A), ON(MC2(LD | PM, 0, 1), A) }, false, 0, 3, R, A + 5, 1, BP, 1, false,
	  A + 5 },
	{ "sdm: neither matches (U-only; 1-byte at A)", SDM, HWBPI_Q_RV_FIRST_WATCHPOINT, QCPU,
	  { ON(MC2(LD | PU, 0, 0), A), ON(MC2(LD | PM, 0, 1), A) }, false, 0, 3, R, A + 5, 1, NO, 0, false,
	  0 },

	/* ---- textra (tdata3) ---- */
	{ "tdata3 mhselect = 4, mhvalue = 1: sdm has no textra", SDM, HWBPI_Q_RV_TEXTRA, QCPU,
	  { { true, MC2(LD | ALLP, 0, 0), A, 1ull << 51 | 4ull << 48 } }, false, 0, 3, R, A, 1, BP, 1, false,
	  A },
	{ "tdata3 mhselect = 4, mhvalue = 1: QEMU compares mcontext (0)", QEMU, HWBPI_Q_RV_TEXTRA, QCPU,
	  { { true, MC2(LD | ALLP, 0, 0), A, 1ull << 51 | 4ull << 48 } }, false, 0, 3, R, A, 1, NO, 0, false,
	  0 },

	/* ---- select = 1 (data value): no data in the simulator ---- */
	{ "select = 1 never matches", SDM, NQ, SDT, { ON(MC6(LD | ALLP, 0, 0) | HWBP_RISCV_MC6_SELECT, A) },
	  false, TC_ON, 3, R, A, 1, NO, 0, false, 0 },
};

static void run_row(const struct row *w, int profile)
{
	struct hwbp_cpu cpu = mkcpu(w->cpu);
	struct hwbp_sim *sim = mk(w->cpu, profile);
	struct hwbp_sim_access a = { w->addr, w->size, w->op };
	struct hwbp_sim_result r, u;
	const char *pn = profile == HWBP_SIM_QEMU ? "qemu" : "sdm";

	if (cpu.u.riscv.spec == 10)
		set(sim, "tcontrol", w->tcontrol);
	for (int k = 3; k >= 0; k--) {
		unsigned i = w->order01 ? (unsigned)(3 - k) : (unsigned)k;

		if (!w->t[i].on)
			continue;
		arm(sim, i, w->t[i].t1, w->t[i].t2);
		if (w->t[i].t3)
			set(sim, "tdata3", w->t[i].t3);
	}
	assert_int_equal(hwbp_sim_mode(sim, 0, "priv", (uint64_t)w->priv), 0);
	assert_int_equal(hwbp_sim_priv(sim, 0), w->priv == 0 ? 1 : 0);
	assert_int_equal(hwbpi_sim_access_unfiltered(sim, 0, &a, &u), 0);
	/* Fresh state for the filtered run (the first may have set hits). */
	hwbp_sim_free(sim);
	sim = mk(w->cpu, profile);
	if (cpu.u.riscv.spec == 10)
		set(sim, "tcontrol", w->tcontrol);
	for (int k = 3; k >= 0; k--) {
		unsigned i = w->order01 ? (unsigned)(3 - k) : (unsigned)k;

		if (!w->t[i].on)
			continue;
		arm(sim, i, w->t[i].t1, w->t[i].t2);
		if (w->t[i].t3)
			set(sim, "tdata3", w->t[i].t3);
	}
	assert_int_equal(hwbp_sim_mode(sim, 0, "priv", (uint64_t)w->priv), 0);
	assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), 0);
	assert_memory_equal(&r, &u, sizeof(r));
	if ((int)r.cls != w->cls)
		fail_msg("%s [%s]: class %d, want %d", w->why, pn, r.cls, w->cls);
	if (w->cls == NO) {
		assert_int_equal(r.data_slots | r.inst_slots | r.nstatus, 0);
		hwbp_sim_free(sim);
		return;
	}
	if (r.data_slots != w->slots || r.status[1].value != w->mtval ||
	    (r.timing == HWBP_TIMING_AFTER) != w->after)
		fail_msg("%s [%s]: slots 0x%x mtval 0x%llx timing %d, want 0x%x 0x%llx %d", w->why, pn,
			 r.data_slots, (unsigned long long)r.status[1].value, r.timing, w->slots,
			 (unsigned long long)w->mtval, w->after);
	assert_int_equal(r.inst_slots, 0);
	assert_int_equal(r.nstatus, 2);
	assert_string_equal(r.status[0].name, "mcause");
	assert_int_equal(r.status[0].value, HWBP_RISCV_CAUSE_BREAKPOINT);
	assert_string_equal(r.status[1].name, "mtval");
	assert_int_equal(r.st.u.riscv.cause, 3);
	assert_int_equal(r.st.u.riscv.tval, w->mtval);
	assert_int_equal(get(sim, "mcause"), 3);
	assert_int_equal(get(sim, "mtval"), w->mtval);
	/* mepc: the instruction (before), the next (after); 0 for data. */
	assert_int_equal(get(sim, "mepc"),
			 w->op == X ? w->addr + (w->after ? 4 : 0) : 0);
	/* Resume: the kernel steps the access; nothing more. */
	assert_int_equal(hwbp_sim_resume(sim, 0, &u), 0);
	assert_int_equal(u.cls, HWBP_SIM_NONE);
	hwbp_sim_free(sim);
}

static void test_rows(void **state)
{
	(void)state;
	for (unsigned i = 0; i < N(rows); i++) {
		if (rows[i].prof != QEMU)
			run_row(&rows[i], HWBP_SIM_SDM);
		if (rows[i].prof != SDM)
			run_row(&rows[i], HWBP_SIM_QEMU);
	}
}

/* Quirks exercised outside the rows: by test_warl / test_hits. */
static bool other_test(unsigned q)
{
	return q == HWBPI_Q_RV_TDATA1_ZERO_IGNORED || q == HWBPI_Q_RV_HIT_NEVER ||
	       q == HWBPI_Q_RV_TINFO_FIXED;
}

/* Every riscv quirk row has an sdm and a qemu row here (or its own test). */
static void test_quirks_covered(void **state)
{
	unsigned nrv = 0;

	(void)state;
	for (unsigned q = 0; q < HWBPI_Q_COUNT; q++) {
		const struct hwbp_sim_quirk *t = hwbp_sim_quirk(q);
		bool sdm = false, qemu = false;

		assert_non_null(t);
		if (strcmp(t->arch, "riscv") != 0)
			continue;
		nrv++;
		assert_true(strncmp(t->id, "HWBPI_Q_RV_", 11) == 0);
		assert_string_equal(t->profile, "qemu");
		assert_true(strlen(t->sdm) > 20 && strlen(t->qemu) > 20 && strlen(t->evidence) > 20);
		for (unsigned i = 0; i < N(rows); i++) {
			if (rows[i].quirk != (int)q)
				continue;
			sdm |= rows[i].prof == SDM;
			qemu |= rows[i].prof == QEMU;
		}
		if (!other_test(q) && (!sdm || !qemu))
			fail_msg("quirk %s lacks an sdm or a qemu row", t->id);
		assert_true(hwbpi_quirk_on(HWBP_SIM_QEMU, (enum hwbpi_quirk)q));
		assert_false(hwbpi_quirk_on(HWBP_SIM_SDM, (enum hwbpi_quirk)q));
		assert_false(hwbpi_quirk_on(HWBP_SIM_LINUX, (enum hwbpi_quirk)q));
	}
	assert_int_equal(nrv, 10);
}

/* ------------------------------------------------------------------ */
/* Reset, names, WARL                                                  */
/* ------------------------------------------------------------------ */

static void test_reset(void **state)
{
	struct hwbp_sim_result r;
	uint64_t v;

	(void)state;
	for (int p = 0; p < 2; p++) {
		struct hwbp_sim *sim = mk(SDT, p);

		/* tselect 0 (§5.7.1), every trigger disabled: type 15 on a
		 * multi-type 1.0 trigger (sdm; §5.7.2), type 2 in QEMU
		 * (riscv_trigger_reset_hold()). */
		assert_int_equal(get(sim, "tselect"), 0);
		for (unsigned i = 0; i < 4; i++) {
			set(sim, "tselect", i);
			assert_int_equal(get(sim, "tdata1"), p ? T2 : T15);
			assert_int_equal(get(sim, "tdata2"), 0);
			assert_int_equal(get(sim, "tdata3"), 0);
			/* tinfo: the types, version 1 (§5.7.5); QEMU 0x44. */
			assert_int_equal(get(sim, "tinfo"), p ? 0x44 : (0x8040ull | 1ull << 24));
		}
		assert_int_equal(get(sim, "tcontrol"), 0);
		assert_int_equal(get(sim, "priv"), 3);
		assert_int_equal(hwbp_sim_priv(sim, 0), 0);
		assert_int_equal(get(sim, "mcause"), 0);
		assert_int_equal(get(sim, "mtval"), 0);
		assert_int_equal(get(sim, "mepc"), 0);
		/* Read-only names: a set fails with ENOENT. */
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "tinfo", 1, &r), -ENOENT);
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "mtval", 1, &r), -ENOENT);
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "dr7", 1, &r), -ENOENT);
		assert_int_equal(hwbp_sim_get_reg(sim, 0, "dbgwcr0", &v), -ENOENT);
		/* Modes: 0, 1, 3; 2 is reserved. */
		assert_int_equal(hwbp_sim_mode(sim, 0, "priv", 2), -EINVAL);
		assert_int_equal(hwbp_sim_mode(sim, 0, "el", 0), -ENOENT);
		assert_int_equal(hwbp_sim_mode(sim, 0, "priv", 0), 0);
		assert_int_equal(hwbp_sim_priv(sim, 0), 1);
		hwbp_sim_free(sim);
	}
	{
		/* A 0.13 CPU of one type: reset type 2, tinfo version 0, no
		 * tcontrol; without S-mode, priv=1 is refused. */
		struct hwbp_cpu cpu = mkcpu(SDT13);
		struct hwbp_sim *sim;

		cpu.u.riscv.features &= ~HWBP_RISCV_F_SMODE;
		sim = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 1, NULL);
		assert_non_null(sim);
		assert_int_equal(get(sim, "tdata1"), T2);
		assert_int_equal(get(sim, "tinfo"), 0x4);
		assert_int_equal(hwbp_sim_get_reg(sim, 0, "tcontrol", &v), -ENOENT);
		assert_int_equal(hwbp_sim_set_reg(sim, 0, "tcontrol", 8, &r), -ENOENT);
		assert_int_equal(hwbp_sim_mode(sim, 0, "priv", 1), -EINVAL);
		hwbp_sim_free(sim);
	}
}

static void test_warl(void **state)
{
	const uint64_t full6 = MC6(LD | ST | EX | ALLP | CH, 1, 5) | HWBP_RISCV_MC6_SELECT |
			       HWBP_RISCV_MC6_HIT0 | HWBP_RISCV_TDATA1_DMODE | 1ull << 12 |
			       HWBP_RISCV_MC6_VU | HWBP_RISCV_MC6_UNCERTAINEN;
	struct hwbp_sim *sim;

	(void)state;
	/* tselect: a value >= ntrig leaves it as it was (both profiles). */
	for (int p = 0; p < 2; p++) {
		sim = mk(SDT, p);
		set(sim, "tselect", 2);
		set(sim, "tselect", 4);
		assert_int_equal(get(sim, "tselect"), 2);
		set(sim, "tselect", ~0ull);
		assert_int_equal(get(sim, "tselect"), 2);
		hwbp_sim_free(sim);
	}

	/* sdm, every feature: what the CPU implements stays; dmode (Debug
	 * Mode only), action 1 (needs dmode), vu (no H), uncertainen read 0. */
	sim = mk(SDT, HWBP_SIM_SDM);
	set(sim, "tdata1", full6);
	assert_int_equal(get(sim, "tdata1"),
			 MC6(LD | ST | EX | ALLP | CH, 1, 5) | HWBP_RISCV_MC6_SELECT | HWBP_RISCV_MC6_HIT0);
	/* chain on the last trigger: no next trigger, reads 0 */
	set(sim, "tselect", 3);
	set(sim, "tdata1", MC6(LD | PM | CH, 0, 0));
	assert_int_equal(get(sim, "tdata1"), MC6(LD | PM, 0, 0));
	/* a type the trigger lacks (2, 3), and 0: disabled, type 15 */
	set(sim, "tdata1", MC2(LD | PM, 0, 0));
	assert_int_equal(get(sim, "tdata1"), T15);
	set(sim, "tdata1", MC6(LD | PM, 0, 0));
	set(sim, "tdata1", 3ull << 60 | 0x41);
	assert_int_equal(get(sim, "tdata1"), T15);
	set(sim, "tdata1", MC6(LD | PM, 0, 0));
	set(sim, "tdata1", 0);
	assert_int_equal(get(sim, "tdata1"), T15);
	/* size 4 (48-bit: execution only) and 6 (128-bit): read 0 */
	set(sim, "tdata1", MC6(LD | PM, 0, 6));
	assert_int_equal(get(sim, "tdata1"), MC6(LD | PM, 0, 0));
	/* match 6, 7 (reserved): 0 */
	set(sim, "tdata1", MC6(LD | PM, 6, 0));
	assert_int_equal(get(sim, "tdata1"), MC6(LD | PM, 0, 0));
	/* tdata2 reads back as written; tdata3 (no textra) 0; tcontrol
	 * keeps mte and mpte only */
	set(sim, "tdata2", 0xfedcba9876543210ull);
	assert_int_equal(get(sim, "tdata2"), 0xfedcba9876543210ull);
	set(sim, "tdata3", ~0ull);
	assert_int_equal(get(sim, "tdata3"), 0);
	set(sim, "tcontrol", ~0ull);
	assert_int_equal(get(sim, "tcontrol"), 0x88);
	hwbp_sim_free(sim);

	/* sdm, QEMU-like CPU (no NAPOT, chain, timing, select, hit). */
	sim = mk(QCPU, HWBP_SIM_SDM);
	set(sim, "tdata1", MC2(LD | ALLP | CH, 1, 5) | TIMING2 | HWBP_RISCV_MC2_SELECT | HWBP_RISCV_MC2_HIT);
	assert_int_equal(get(sim, "tdata1"), MC2(LD | ALLP, 0, 5));
	set(sim, "tdata1", 0);
	assert_int_equal(get(sim, "tdata1"), T2);  /* one-type-per-version CPU: type 2, nothing enabled */
	hwbp_sim_free(sim);

	/* qemu: only type, size, vu/vs, u/s/m, l/s/x survive
	 * (type6_mcontrol6_validate()) ... */
	sim = mk(SDT, HWBP_SIM_QEMU);
	set(sim, "tdata1", full6);
	assert_int_equal(get(sim, "tdata1"), MC6(LD | ST | EX | ALLP, 0, 5) | HWBP_RISCV_MC6_VU);
	/* ... and a write of type 0 or 15 is dropped (TDATA1_ZERO_IGNORED) */
	set(sim, "tdata1", 0);
	assert_int_equal(get(sim, "tdata1"), MC6(LD | ST | EX | ALLP, 0, 5) | HWBP_RISCV_MC6_VU);
	set(sim, "tdata1", T15);
	assert_int_equal(get(sim, "tdata1"), MC6(LD | ST | EX | ALLP, 0, 5) | HWBP_RISCV_MC6_VU);
	/* type 2 although this CPU model lists type 6 only (TINFO_FIXED) */
	set(sim, "tdata1", MC2(ST | PM, 0, 3));
	assert_int_equal(get(sim, "tdata1"), MC2(ST | PM, 0, 3));
	/* size 4 (6 bytes): access_size[] -1, dropped */
	set(sim, "tdata1", MC2(ST | PM, 0, 4));
	assert_int_equal(get(sim, "tdata1"), MC2(ST | PM, 0, 0));
	/* textra_validate(): mhvalue kept, mhselect 5 -> 4, the rest 0 */
	set(sim, "tdata3", 0xfff8000000000000ull | 5ull << 48 | 0xffff);
	assert_int_equal(get(sim, "tdata3"), 0xfff8000000000000ull | 4ull << 48);
	hwbp_sim_free(sim);

	/* qemu: a disarmed-by-zero trigger still fires. */
	for (int p = 0; p < 2; p++) {
		struct hwbp_sim_access a = { A, 1, R };
		struct hwbp_sim_result r;

		sim = mk(QCPU, p);
		arm(sim, 0, MC2(LD | ALLP, 0, 0), A);
		set(sim, "tdata1", 0);
		assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), 0);
		assert_int_equal(r.cls, p ? BP : NO);
		hwbp_sim_free(sim);
	}
}

/* Hit bits (§5.3: set for every trigger that fired), tcontrol's trap and
 * mret (§5.7.6), and resume. */
static void test_hits_tcontrol(void **state)
{
	struct hwbp_sim_access a = { A + 8, 4, R };
	struct hwbp_sim_result r;

	(void)state;
	for (int p = 0; p < 2; p++) {
		struct hwbp_sim *sim = mk(SDT, p);

		set(sim, "tcontrol", HWBP_RISCV_TCONTROL_MTE);
		arm(sim, 1, MC6(LD | PM, 0, 0), A + 8);
		arm(sim, 2, MC6(LD | PM, 0, 0), A + 10);
		arm(sim, 3, MC6(LD | PM, 0, 0), A + 64);
		assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), 0);
		assert_int_equal(r.cls, BP);
		assert_int_equal(r.data_slots, 0x6);
		/* The status carries them (QEMU: none to read). */
		assert_int_equal(r.st.u.riscv.hits, p == HWBP_SIM_SDM ? 0x6 : 0);
		for (unsigned i = 1; i < 4; i++) {
			uint64_t want = MC6(LD | PM, 0, 0);

			set(sim, "tselect", i);
			/* 1.0: hit1:hit0 = 1 (before); QEMU: none (HIT_NEVER) */
			if (p == HWBP_SIM_SDM && i < 3)
				want |= HWBP_RISCV_MC6_HIT0;
			assert_int_equal(get(sim, "tdata1"), want);
		}
		/* The trap into M-mode: mpte = 1, mte = 0; QEMU has no
		 * tcontrol and the model leaves its bits alone. */
		assert_int_equal(get(sim, "tcontrol"), p ? 0x08 : 0x80);
		if (p == HWBP_SIM_SDM) {
			/* mte = 0: the handler's own accesses do not match */
			assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), 0);
			assert_int_equal(r.cls, NO);
		}
		/* mret: mte = mpte */
		assert_int_equal(hwbp_sim_resume(sim, 0, &r), 0);
		assert_int_equal(r.cls, NO);
		assert_int_equal(get(sim, "tcontrol"), p ? 0x08 : 0x88);
		/* software clears hit0 by writing tdata1 */
		set(sim, "tselect", 1);
		set(sim, "tdata1", MC6(LD | PM, 0, 0));
		assert_int_equal(get(sim, "tdata1"), MC6(LD | PM, 0, 0));
		assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), 0);
		assert_int_equal(r.cls, BP);
		/* resume with nothing pending does nothing */
		assert_int_equal(hwbp_sim_resume(sim, 0, &r), 0);
		assert_int_equal(hwbp_sim_resume(sim, 0, &r), 0);
		assert_int_equal(r.cls, NO);
		hwbp_sim_free(sim);
	}
	{
		/* type 2 hit (bit 20), a 0.13 CPU with F_HIT; timing after */
		struct hwbp_sim *sim = mk(SDT13, HWBP_SIM_SDM);
		struct hwbp_sim_access x = { A, 0, X };

		arm(sim, 5, MC2(EX | PM, 0, 0) | TIMING2, A);
		assert_int_equal(hwbp_sim_access(sim, 0, &x, &r), 0);
		assert_int_equal(r.cls, BP);
		assert_int_equal(r.timing, HWBP_TIMING_AFTER);
		assert_int_equal(r.data_slots, 1u << 5);
		assert_int_equal(r.st.u.riscv.hits, 1u << 5);
		assert_int_equal(r.st.ip, A + 4);
		/* maskmax (read only) = 63 with F_NAPOT: any NAPOT size */
		assert_int_equal(get(sim, "tdata1"), MC2(EX | PM, 0, 0) | TIMING2 | HWBP_RISCV_MC2_HIT |
							   0x3full << 53);
		hwbp_sim_free(sim);
	}
	{
		/* Without F_TVAL mtval is 0 (the Privileged spec allows zero). */
		struct hwbp_cpu cpu = mkcpu(SDT13);
		struct hwbp_sim *sim;

		cpu.u.riscv.features &= ~HWBP_RISCV_F_TVAL;
		sim = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 1, NULL);
		arm(sim, 0, MC2(ST | PM, 0, 0), A);
		a.op = W;
		a.addr = A;
		assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), 0);
		assert_int_equal(r.cls, BP);
		assert_int_equal(r.st.u.riscv.tval, 0);
		assert_false(r.addr_known);
		hwbp_sim_free(sim);
	}
}

/* ------------------------------------------------------------------ */
/* The filter                                                          */
/* ------------------------------------------------------------------ */

/* `get` is csrr: M-mode CSRs are illegal instructions from U and S, and
 * tcontrol wherever the hart lacks it (QEMU). */
static void test_get_insn(void **state)
{
	struct hwbp_sim_result r;

	(void)state;
	for (int p = 0; p < 2; p++) {
		struct hwbp_sim *sim = mk(SDT, p);

		set(sim, "tcontrol", HWBP_RISCV_TCONTROL_MTE);
		assert_int_equal(hwbp_sim_get_insn(sim, 0, "tinfo", &r), 0);
		assert_int_equal(r.cls, NO);
		assert_int_equal(hwbp_sim_get_insn(sim, 0, "tcontrol", &r), 0);
		/* QEMU 10 has no tcontrol CSR (RV_TCONTROL_ABSENT) */
		assert_int_equal(r.cls, p == HWBP_SIM_SDM ? NO : HWBP_SIM_UD);
		assert_int_equal(hwbp_sim_resume(sim, 0, &r), 0);
		for (int priv = 0; priv < 2; priv++) {
			assert_int_equal(hwbp_sim_mode(sim, 0, "priv", (uint64_t)priv), 0);
			assert_int_equal(hwbp_sim_get_insn(sim, 0, "tdata1", &r), 0);
			assert_int_equal(r.cls, HWBP_SIM_UD);
			assert_int_equal(r.st.u.riscv.cause, 2);
			assert_int_equal(r.st.u.riscv.tval, 0x7a102573);   /* csrr a0, tdata1 */
			assert_int_equal(get(sim, "mcause"), 2);
			/* The trap went to M-mode: mpte = mte, mte = 0 (sdm). */
			if (p == HWBP_SIM_SDM)
				assert_int_equal(get(sim, "tcontrol"), HWBP_RISCV_TCONTROL_MPTE);
			/* mret: mte = mpte */
			assert_int_equal(hwbp_sim_resume(sim, 0, &r), 0);
			if (p == HWBP_SIM_SDM)
				assert_int_equal(get(sim, "tcontrol"), 0x88);
		}
		assert_int_equal(hwbp_sim_get_insn(sim, 0, "priv", &r), -ENOENT);
		hwbp_sim_free(sim);
	}
}

/*
 * The precomputed filter never changes a result: random trigger sets
 * (types, match modes, sizes, chains, privileges, tcontrol) and random
 * loads and stores near them, under both profiles and every privilege.
 * Two simulators get the same writes and the same stream, one through
 * hwbp_sim_access() and one unfiltered, each access followed by a
 * resume: their results must agree at every step (and so their states).
 */
static void test_filter_random(void **state)
{
	static const uint32_t sizes[] = { 1, 2, 3, 4, 8, 16, 32, 64 };
	static const int privs[] = { 0, 1, 3 };
	unsigned seed = 20261204u;
	unsigned long compared = 0, hits = 0;

	(void)state;
	for (int p = 0; p < 2; p++) {
		for (int which = 0; which < 3; which++) {
			for (unsigned cfg = 0; cfg < 40; cfg++) {
				struct hwbp_sim *sim = mk(which, p), *ref = mk(which, p);
				struct hwbp_cpu cpu = mkcpu(which);
				unsigned nt = cpu.u.riscv.ntrig;

				for (unsigned i = 0; i < nt; i++) {
					uint64_t f = (uint64_t)(rand_r(&seed) & 0x5f) |
						     ((rand_r(&seed) & 3) == 0 ? CH : 0);
					unsigned m = (unsigned)rand_r(&seed) % 14;
					unsigned sz = (unsigned)rand_r(&seed) % 6;
					uint64_t t2 = A + (uint64_t)(rand_r(&seed) % 0x100);
					uint64_t t1 = (rand_r(&seed) & 1) ? MC6(f, m, sz) : MC2(f, m, sz);

					if (m == 1 || m == 9)
						t2 |= (1u << (rand_r(&seed) % 6)) - 1;
					if (rand_r(&seed) % 4 == 0)
						t1 |= TIMING2;
					arm(sim, i, t1, t2);
					arm(ref, i, t1, t2);
				}
				if (cpu.u.riscv.spec == 10) {
					uint64_t tc = (rand_r(&seed) % 4) ? 8 : 0;

					set(sim, "tcontrol", tc);
					set(ref, "tcontrol", tc);
				}
				for (unsigned k = 0; k < 3; k++) {
					assert_int_equal(hwbp_sim_mode(sim, 0, "priv", (uint64_t)privs[k]), 0);
					assert_int_equal(hwbp_sim_mode(ref, 0, "priv", (uint64_t)privs[k]), 0);
					for (unsigned s = 0; s < 300; s++) {
						struct hwbp_sim_access a = {
							A - 0x80 + (uint64_t)(rand_r(&seed) % 0x280),
							sizes[rand_r(&seed) % N(sizes)],
							(rand_r(&seed) & 1) ? R : W,
						};
						struct hwbp_sim_result r, u;

						assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), 0);
						assert_int_equal(hwbpi_sim_access_unfiltered(ref, 0, &a, &u), 0);
						assert_memory_equal(&r, &u, sizeof(r));
						hits += r.cls != HWBP_SIM_NONE;
						hwbp_sim_resume(sim, 0, &r);
						hwbp_sim_resume(ref, 0, &u);
						assert_memory_equal(&r, &u, sizeof(r));
						compared++;
					}
				}
				assert_memory_equal(hwbpi_sim_regs(sim, 0), hwbpi_sim_regs(ref, 0),
						    sizeof(struct hwbp_regs));
				hwbp_sim_free(sim);
				hwbp_sim_free(ref);
			}
		}
	}
	print_message("filter: %lu accesses compared, %lu raised\n", compared, hits);
	assert_true(compared > 100000 && hits > 1000);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_quirks_covered),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_warl),
		cmocka_unit_test(test_hits_tcontrol),
		cmocka_unit_test(test_get_insn),
		cmocka_unit_test(test_filter_random),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
