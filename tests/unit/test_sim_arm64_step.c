/* SPDX-License-Identifier: MIT */
/*
 * The arm64 model's other half of the debug unit (sim/arm64_step.c)
 * through the public simulator API: software step (Arm ARM D2.12:
 * MDSCR_EL1.SS and PSTATE.SS, active-not-pending and active-pending, the
 * ESR_EL1 of a step), BRK (EC 0x3C) and MRS of the debug System registers
 * (`get`: the value at EL1, UNDEFINED at EL0), resume after each, and the
 * access filter with step on.  Breakpoints and watchpoints:
 * test_sim_arm64.c.
 */
#include "sim_arm64_util.h"

#include <errno.h>
#include <string.h>

/* ESR_EL1 of a software step exception (Arm ARM ESR_EL1, ISS encoding for
 * an exception from a Software Step: EC 0x32 lower EL / 0x33 same EL, IL,
 * ISV bit 24 = the instruction was stepped, EX bit 6, IFSC 0x22). */
#define ESR_SS_EL0_BEFORE 0xca000022ull
#define ESR_SS_EL0_AFTER 0xcb000022ull
#define ESR_SS_EL1_BEFORE 0xce000022ull
#define ESR_SS_EL1_AFTER 0xcf000022ull
#define SS 1ull /* MDSCR_EL1.SS */
enum { ST = HWBP_SIM_STEP, BK = HWBP_SIM_BRK, UD = HWBP_SIM_UD, SW = HWBP_SIM_SWBP };

/*
 * One instruction from a state: the result class, timing, ESR and the
 * PSTATE.SS it leaves.  D2.12: step active = MDSCR.SS and debug exceptions
 * enabled from the EL (OS lock; EL1: KDE and PSTATE.D = 0); MDE not needed.
 */
struct step_row {
	const char *why;
	int prof, quirk;
	struct kv regs[6];
	int el;
	uint32_t op;
	uint64_t addr;
	uint32_t size;
	int cls;
	enum hwbp_timing timing;
	uint64_t esr;
	int ss_after;
};

static const struct step_row step_rows[] = {
	{ "EL0, step on: stepped load, ISV = 1 (EC 0x32)", BOTH, NQ,
	  { { "oslar", 0 }, { "step", 1 } }, 0, R, A, 8, ST, HWBP_TIMING_AFTER, ESR_SS_EL0_AFTER, 1 },
	{ "EL0: MDE, KDE and PSTATE.D play no part", BOTH, NQ,
	  { { "oslar", 0 }, { "daif_d", 1 }, { "mdscr", SS }, { "pstate_ss", 1 } }, 0, W, A, 4, ST,
	  HWBP_TIMING_AFTER, ESR_SS_EL0_AFTER, 0 },
	{ "EL0, PSTATE.SS = 0: active-pending, before, ISV = 0", BOTH, NQ,
	  { { "oslar", 0 }, { "mdscr", SS } }, 0, X, C, 1, ST, HWBP_TIMING_BEFORE, ESR_SS_EL0_BEFORE, 0 },
	{ "EL0, step on then PSTATE.SS = 0: before, and the debugger sets SS again", BOTH, NQ,
	  { { "oslar", 0 }, { "step", 1 }, { "pstate_ss", 0 } }, 0, Z, A, 64, ST,
	  HWBP_TIMING_BEFORE, ESR_SS_EL0_BEFORE, 1 },
	{ "EL1: KDE | SS, PSTATE.D = 0: EC 0x33", BOTH, NQ,
	  { { "oslar", 0 }, { "daif_d", 0 }, { "mdscr", KDE | SS }, { "pstate_ss", 1 } }, 1, R, A, 1, ST,
	  HWBP_TIMING_AFTER, ESR_SS_EL1_AFTER, 0 },
	{ "EL1 active-pending", BOTH, NQ,
	  { { "oslar", 0 }, { "daif_d", 0 }, { "mdscr", KDE | SS } }, 1, X, C + 8, 1, ST,
	  HWBP_TIMING_BEFORE, ESR_SS_EL1_BEFORE, 0 },
	{ "EL1: KDE = 0, no step", BOTH, NQ,
	  { { "oslar", 0 }, { "daif_d", 0 }, { "mdscr", MDE | SS }, { "pstate_ss", 1 } }, 1, R, A, 1, NO,
	  HWBP_TIMING_BEFORE, 0, 1 },
	{ "EL1: PSTATE.D = 1 masks it", BOTH, NQ,
	  { { "oslar", 0 }, { "daif_d", 1 }, { "step", 1 }, { "mdscr", KDE | SS } }, 1, R, A, 1, NO,
	  HWBP_TIMING_BEFORE, 0, 1 },
	{ "MDSCR.SS = 0: no step whatever PSTATE.SS", BOTH, NQ,
	  { { "oslar", 0 }, { "daif_d", 0 }, { "mdscr", KDE }, { "pstate_ss", 1 } }, 1, R, A, 1, NO,
	  HWBP_TIMING_BEFORE, 0, 1 },
	{ "OS lock set: no step (D2 The OS Lock)", SDM, QOS,
	  { { "step", 1 } }, 0, R, A, 1, NO, HWBP_TIMING_BEFORE, 0, 1 },
	{ "OS lock set: QEMU steps", QEMU, QOS,
	  { { "step", 1 } }, 0, R, A, 1, ST, HWBP_TIMING_AFTER, ESR_SS_EL0_AFTER, 1 },
	{ "OS lock set, active-pending at EL1: QEMU steps", QEMU, QOS,
	  { { "daif_d", 0 }, { "mdscr", KDE | SS } }, 1, R, A, 1, ST, HWBP_TIMING_BEFORE,
	  ESR_SS_EL1_BEFORE, 0 },
	{ "BRK #0x1234: EC 0x3C, ISS = imm16, before", BOTH, NQ,
	  { { "oslar", 0 } }, 0, SW, 0, 0x1234, BK, HWBP_TIMING_BEFORE, 0xf2001234ull, 0 },
	{ "BRK #0xffff at EL1 with PSTATE.D = 1 and the OS lock: never masked", BOTH, NQ,
	  { { "mdscr", 0 } }, 1, SW, 0, 0xffff, BK, HWBP_TIMING_BEFORE, 0xf200ffffull, 0 },
	{ "BRK stepped (active-not-pending): the BRK is taken, SS stays 1", BOTH, NQ,
	  { { "oslar", 0 }, { "step", 1 } }, 0, SW, 0, 3, BK, HWBP_TIMING_BEFORE, 0xf2000003ull, 1 },
	{ "BRK active-pending: the step exception first", BOTH, NQ,
	  { { "oslar", 0 }, { "mdscr", SS } }, 0, SW, 0, 3, ST, HWBP_TIMING_BEFORE, ESR_SS_EL0_BEFORE, 0 },
	{ "misaligned exec: its PC alignment fault, no step", BOTH, NQ,
	  { { "oslar", 0 }, { "step", 1 } }, 0, X, C + 2, 1, NO, HWBP_TIMING_BEFORE, 0, 1 },
};

static void run_step_row(const struct step_row *w, int profile)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim = make("cortex-a57", profile, &cpu);
	struct hwbp_sim_access a = { w->addr, w->size, w->op };
	struct hwbp_sim_result r;
	uint64_t v;

	for (unsigned k = 0; k < N(w->regs) && w->regs[k].n; k++) {
		assert_int_equal(hwbp_sim_set_reg(sim, 0, w->regs[k].n, w->regs[k].v, &r), 0);
		assert_int_equal(r.cls, HWBP_SIM_NONE);
	}
	assert_int_equal(hwbp_sim_mode(sim, 0, "el", (uint64_t)w->el), 0);
	assert_int_equal(hwbp_sim_access(sim, 0, &a, &r), 0);
	if ((int)r.cls != w->cls)
		fail_msg("%s [%s]: class %d, want %d", w->why, profile ? "qemu" : "sdm", r.cls, w->cls);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "pstate_ss", &v), 0);
	if ((int)v != w->ss_after)
		fail_msg("%s: PSTATE.SS %d after, want %d", w->why, (int)v, w->ss_after);
	if (w->cls == NO) {
		assert_int_equal(r.nstatus, 0);
		hwbp_sim_free(sim);
		return;
	}
	assert_int_equal(r.timing, w->timing);
	/* Only ESR: FAR is UNKNOWN for these ECs, and not written. */
	assert_int_equal(r.nstatus, 1);
	assert_string_equal(r.status[0].name, "esr");
	if (r.status[0].value != w->esr)
		fail_msg("%s: esr 0x%llx, want 0x%llx", w->why, (unsigned long long)r.status[0].value,
			 (unsigned long long)w->esr);
	assert_int_equal(r.st.u.arm64.esr, w->esr);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "esr", &v), 0);
	assert_int_equal(v, w->esr);
	assert_int_equal(hwbp_sim_get_reg(sim, 0, "far", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(r.data_slots | r.inst_slots, 0);
	assert_false(r.addr_known);
	/* ELR: the exec's address when taken before it. */
	assert_int_equal(r.st.ip, w->op == X && w->timing == HWBP_TIMING_BEFORE ? w->addr : 0);
	hwbp_sim_free(sim);
}

static void test_step_rows(void **state)
{
	(void)state;
	RUN_ROWS(step_rows, run_step_row);
}

/* The state machine over a sequence: step on / raw SS, resume. */
static void test_step_sequence(void **state)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim = make("cortex-a57", HWBP_SIM_SDM, &cpu);
	struct hwbp_sim_access rd = { A + 0x40, 8, R }, wr = { A, 8, W }, ex = { C, 1, X };
	struct hwbp_sim_result r;
	uint64_t v;

	(void)state;
	hwbp_sim_set_reg(sim, 0, "oslar", 0, &r);
	hwbp_sim_mode(sim, 0, "el", 0);
	/* step on: MDSCR.SS, PSTATE.SS and stepping, read back as `step`. */
	assert_int_equal(hwbp_sim_set_reg(sim, 0, "step", 1, &r), 0);
	hwbp_sim_get_reg(sim, 0, "mdscr", &v);
	assert_int_equal(v, SS);
	hwbp_sim_get_reg(sim, 0, "step", &v);
	assert_int_equal(v, 1);
	for (int k = 0; k < 3; k++) {
		hwbp_sim_access(sim, 0, &rd, &r);
		assert_int_equal(r.cls, ST);
		assert_int_equal(r.timing, HWBP_TIMING_AFTER);
		hwbp_sim_get_reg(sim, 0, "pstate_ss", &v);
		assert_int_equal(v, 1);
	}
	/* Resume after a step taken after the instruction: nothing. */
	hwbp_sim_resume(sim, 0, &r);
	assert_int_equal(r.cls, NO);

	/* A watchpoint of a stepped store: taken instead; resume completes
	 * it and gives the step exception after it. */
	hwbp_sim_set_reg(sim, 0, "mdscr", MDE | SS, &r);
	hwbp_sim_set_reg(sim, 0, "dbgwvr0", A, &r);
	hwbp_sim_set_reg(sim, 0, "dbgwcr0", WCR(0xff, 2, 2, 0), &r);
	hwbp_sim_access(sim, 0, &wr, &r);
	assert_int_equal(r.cls, WP);
	assert_int_equal(r.st.u.arm64.esr, ESR_WP_EL0_W);
	hwbp_sim_resume(sim, 0, &r);
	assert_int_equal(r.cls, ST);
	assert_int_equal(r.timing, HWBP_TIMING_AFTER);
	assert_int_equal(r.st.u.arm64.esr, ESR_SS_EL0_AFTER);
	/* FAR keeps the watchpoint's. */
	hwbp_sim_get_reg(sim, 0, "far", &v);
	assert_int_equal(v, A);
	hwbp_sim_resume(sim, 0, &r);
	assert_int_equal(r.cls, NO);
	/* A watchpoint, then another instruction instead of resume: it is
	 * stepped, and a later resume has nothing to give. */
	hwbp_sim_access(sim, 0, &wr, &r);
	assert_int_equal(r.cls, WP);
	hwbp_sim_access(sim, 0, &rd, &r);
	assert_int_equal(r.cls, ST);
	assert_int_equal(r.timing, HWBP_TIMING_AFTER);
	hwbp_sim_resume(sim, 0, &r);
	assert_int_equal(r.cls, NO);
	hwbp_sim_set_reg(sim, 0, "dbgwcr0", 0, &r);

	/* Step-before, then resume: the instruction runs, stepped. */
	hwbp_sim_set_reg(sim, 0, "pstate_ss", 0, &r);
	hwbp_sim_access(sim, 0, &ex, &r);
	assert_int_equal(r.cls, ST);
	assert_int_equal(r.timing, HWBP_TIMING_BEFORE);
	assert_int_equal(r.st.ip, C);
	hwbp_sim_get_reg(sim, 0, "elr", &v);
	assert_int_equal(v, C);
	hwbp_sim_resume(sim, 0, &r);
	assert_int_equal(r.cls, ST);
	assert_int_equal(r.timing, HWBP_TIMING_AFTER);
	assert_int_equal(r.st.u.arm64.esr, ESR_SS_EL0_AFTER);

	/* step off clears the three; a raw SS without the debugger: one
	 * step after, then before every instruction (SPSR.SS = 0). */
	hwbp_sim_set_reg(sim, 0, "step", 0, &r);
	hwbp_sim_get_reg(sim, 0, "mdscr", &v);
	assert_int_equal(v, MDE);
	hwbp_sim_get_reg(sim, 0, "pstate_ss", &v);
	assert_int_equal(v, 0);
	hwbp_sim_access(sim, 0, &rd, &r);
	assert_int_equal(r.cls, NO);
	hwbp_sim_set_reg(sim, 0, "mdscr", SS, &r);
	hwbp_sim_set_reg(sim, 0, "pstate_ss", 1, &r);
	hwbp_sim_access(sim, 0, &rd, &r);
	assert_int_equal(r.timing, HWBP_TIMING_AFTER);
	for (int k = 0; k < 3; k++) {
		hwbp_sim_access(sim, 0, &rd, &r);
		assert_int_equal(r.cls, ST);
		assert_int_equal(r.timing, HWBP_TIMING_BEFORE);
		assert_int_equal(r.st.u.arm64.esr, ESR_SS_EL0_BEFORE);
		/* Resume returns with SS = 0 again: before again. */
		hwbp_sim_resume(sim, 0, &r);
		assert_int_equal(r.cls, ST);
		assert_int_equal(r.timing, HWBP_TIMING_BEFORE);
	}
	/* BRK: resume skips it; PSTATE.SS as it was. */
	hwbp_sim_set_reg(sim, 0, "step", 1, &r);
	{
		struct hwbp_sim_access b = { 0, 9, SW };

		hwbp_sim_access(sim, 0, &b, &r);
		assert_int_equal(r.cls, BK);
		assert_int_equal(r.st.u.arm64.esr, 0xf2000009ull);
		hwbp_sim_resume(sim, 0, &r);
		assert_int_equal(r.cls, NO);
		hwbp_sim_get_reg(sim, 0, "pstate_ss", &v);
		assert_int_equal(v, 1);
	}
	hwbp_sim_free(sim);
}

/*
 * MRS (`get`): UNDEFINED at EL0 (EC 0x00: 0x02000000), the value at EL1;
 * only the debug unit's System registers; the qemu profile reads DBGWVR
 * and DBGBCR back as QEMU stores them.
 */
struct mrs_row {
	const char *why;
	int prof, quirk;
	const char *name;
	uint64_t set;      /* written first with `set` (when name is settable) */
	int ret;
	uint64_t want;     /* at EL1 */
};

static const struct mrs_row mrs_rows[] = {
	{ "DBGBVR5", BOTH, NQ, "dbgbvr5", 0x4000, 0, 0x4000 },
	{ "DBGBCR0 BAS 0b1111", BOTH, NQ, "dbgbcr0", 0x1e7, 0, 0x1e7 },
	{ "DBGBCR0 BAS 0b0101: as written", SDM, QDBG, "dbgbcr0", 0xa0, 0, 0xa0 },
	{ "DBGBCR0 BAS 0b0101: QEMU copies BAS[0], BAS[2] up", QEMU, QDBG, "dbgbcr0", 0xa0, 0, 0x1e0 },
	{ "DBGWVR3 RES0 [1:0]: as written", SDM, QDBG, "dbgwvr3", 0x2003, 0, 0x2003 },
	{ "DBGWVR3 RES0 [1:0]: QEMU clears them", QEMU, QDBG, "dbgwvr3", 0x2003, 0, 0x2000 },
	{ "DBGWCR2", BOTH, NQ, "dbgwcr2", 0x1fe9, 0, 0x1fe9 },
	{ "MDSCR_EL1 (SS: test_mrs, stepped)", BOTH, NQ, "mdscr", 0xa000, 0, 0xa000 },
	{ "OSLSR_EL1 (locked at reset)", BOTH, NQ, "oslsr", 0, 0, 0xa },
	{ "no 5th watchpoint", BOTH, NQ, "dbgwcr4", 0, -ENOENT, 0 },
	{ "OSLAR_EL1 is write-only", BOTH, NQ, "oslar", 0, -ENOENT, 0 },
	{ "ESR_EL1: the kernel's own", BOTH, NQ, "esr", 0, -ENOENT, 0 },
	{ "PSTATE.SS has no MRS", BOTH, NQ, "pstate_ss", 0, -ENOENT, 0 },
	{ "step is a pseudo register", BOTH, NQ, "step", 0, -ENOENT, 0 },
	{ "an x86 name", BOTH, NQ, "dr7", 0, -ENOENT, 0 },
};

static void run_mrs_row(const struct mrs_row *w, int profile)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim = make("cortex-a57", profile, &cpu);
	struct hwbp_sim_result r;
	uint64_t v;

	if (w->set)
		assert_int_equal(hwbp_sim_set_reg(sim, 0, w->name, w->set, &r), 0);
	assert_int_equal(hwbp_sim_get_insn(sim, 0, w->name, &r), w->ret);
	if (w->ret) {
		hwbp_sim_free(sim);
		return;
	}
	/* EL1: the value under the register's name, as the engine appends it. */
	assert_int_equal(r.cls, NO);
	assert_int_equal(r.nstatus, 1);
	assert_string_equal(r.status[0].name, w->name);
	if (r.status[0].value != w->want)
		fail_msg("%s [%s]: 0x%llx, want 0x%llx", w->why, profile ? "qemu" : "sdm",
			 (unsigned long long)r.status[0].value, (unsigned long long)w->want);
	/* The debugger's peek sees what MRS read. */
	assert_int_equal(hwbp_sim_get_reg(sim, 0, w->name, &v), 0);
	assert_int_equal(v, w->want);
	/* EL0: UNDEFINED, before the instruction, ESR only. */
	hwbp_sim_mode(sim, 0, "el", 0);
	assert_int_equal(hwbp_sim_get_insn(sim, 0, w->name, &r), 0);
	assert_int_equal(r.cls, UD);
	assert_int_equal(r.timing, HWBP_TIMING_BEFORE);
	assert_int_equal(r.nstatus, 1);
	assert_string_equal(r.status[0].name, "esr");
	assert_int_equal(r.status[0].value, 0x02000000ull);
	/* Resume skips it. */
	hwbp_sim_resume(sim, 0, &r);
	assert_int_equal(r.cls, NO);
	hwbp_sim_free(sim);
}

static void test_mrs(void **state)
{
	struct hwbp_cpu cpu;
	struct hwbp_sim *sim;
	struct hwbp_sim_result r;

	(void)state;
	RUN_ROWS(mrs_rows, run_mrs_row);
	/* Stepped at EL1: the step exception is the result, and the value
	 * the MRS read (it completed) follows its status. */
	sim = make("cortex-a57", HWBP_SIM_SDM, &cpu);
	hwbp_sim_set_reg(sim, 0, "oslar", 0, &r);
	hwbp_sim_set_reg(sim, 0, "daif_d", 0, &r);
	hwbp_sim_set_reg(sim, 0, "mdscr", KDE, &r);
	hwbp_sim_set_reg(sim, 0, "step", 1, &r);
	assert_int_equal(hwbp_sim_get_insn(sim, 0, "dbgbcr1", &r), 0);
	assert_int_equal(r.cls, ST);
	assert_int_equal(r.timing, HWBP_TIMING_AFTER);
	assert_int_equal(r.nstatus, 2);
	assert_int_equal(r.status[0].value, ESR_SS_EL1_AFTER);
	assert_string_equal(r.status[1].name, "dbgbcr1");
	/* Active-pending: before; resume runs the MRS (stepped again). */
	hwbp_sim_set_reg(sim, 0, "pstate_ss", 0, &r);
	assert_int_equal(hwbp_sim_get_insn(sim, 0, "mdscr", &r), 0);
	assert_int_equal(r.cls, ST);
	assert_int_equal(r.timing, HWBP_TIMING_BEFORE);
	assert_int_equal(r.status[0].value, ESR_SS_EL1_BEFORE);
	/* ...unless step is no longer active: then it reads, and says so. */
	hwbp_sim_set_reg(sim, 0, "daif_d", 1, &r);
	hwbp_sim_resume(sim, 0, &r);
	assert_int_equal(r.cls, NO);
	assert_int_equal(r.nstatus, 1);
	assert_string_equal(r.status[0].name, "mdscr");
	assert_int_equal(r.status[0].value, KDE | SS);
	hwbp_sim_free(sim);
}

/*
 * The filter with step on: every access reaches the model (each changes
 * PSTATE.SS and is stepped), and a filtered access gives what the model
 * gives, around watchpoints and far from them, at both ELs.
 */
static void test_step_filter(void **state)
{
	static const uint32_t sizes[] = { 1, 8, 64 };

	(void)state;
	for (int p = 0; p < 2; p++) {
		for (int el = 0; el < 2; el++) {
			struct hwbp_cpu cpu;
			struct hwbp_sim *sim = make("cortex-a57", p, &cpu);
			struct hwbp_sim *twin = make("cortex-a57", p, &cpu);
			struct hwbp_sim_result r, u;
			static const struct kv cfg[] = {
				EN, { "dbgwvr0", A + 0x100 }, { "dbgwcr0", WCR(0x0f, 3, 3, 0) },
				{ "step", 1 },
			};

			for (unsigned j = 0; j < N(cfg); j++) {
				hwbp_sim_set_reg(sim, 0, cfg[j].n, cfg[j].v, &r);
				hwbp_sim_set_reg(twin, 0, cfg[j].n, cfg[j].v, &r);
			}
			hwbp_sim_mode(sim, 0, "el", (uint64_t)el);
			hwbp_sim_mode(twin, 0, "el", (uint64_t)el);
			for (uint64_t off = 0; off < 0x10000; off += 0x7f) {
				for (unsigned s = 0; s < N(sizes); s++) {
					struct hwbp_sim_access a = { A + off, sizes[s], off & 1 ? W : R };

					/* The same stream: filtered on one, not on the other. */
					hwbp_sim_access(sim, 0, &a, &r);
					hwbpi_sim_access_unfiltered(twin, 0, &a, &u);
					assert_memory_equal(&r, &u, sizeof(r));
					assert_true((int)r.cls == ST || (int)r.cls == WP);
					if ((int)r.cls == WP) {
						hwbp_sim_resume(sim, 0, &r);
						hwbp_sim_resume(twin, 0, &u);
						assert_memory_equal(&r, &u, sizeof(r));
						assert_int_equal(r.cls, ST);
					}
				}
			}
			/* step off: the watchpoint's window alone again. */
			hwbp_sim_set_reg(sim, 0, "step", 0, &r);
			{
				struct hwbp_sim_access far = { A + 0x8000, 8, R };

				hwbp_sim_access(sim, 0, &far, &r);
				assert_int_equal(r.cls, NO);
			}
			hwbp_sim_free(sim);
			hwbp_sim_free(twin);
		}
	}
}

/* Each quirk that is this file's (step_quirks) has a row under each profile. */
static void test_quirks_covered(void **state)
{
	(void)state;
	for (unsigned k = 0; k < N(step_quirks); k++) {
		unsigned q = step_quirks[k];
		const struct hwbp_sim_quirk *t = hwbp_sim_quirk(q);
		bool sdm = false, qemu = false;

		assert_non_null(t);
		assert_string_equal(t->arch, "arm64");
		for (unsigned i = 0; i < N(step_rows); i++)
			quirk_row(step_rows[i].quirk, step_rows[i].prof, q, &sdm, &qemu);
		for (unsigned i = 0; i < N(mrs_rows); i++)
			quirk_row(mrs_rows[i].quirk, mrs_rows[i].prof, q, &sdm, &qemu);
		if (!sdm || !qemu)
			fail_msg("quirk %s lacks an sdm or a qemu row", t->id);
	}
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_step_rows),
		cmocka_unit_test(test_step_sequence),
		cmocka_unit_test(test_mrs),
		cmocka_unit_test(test_step_filter),
		cmocka_unit_test(test_quirks_covered),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
