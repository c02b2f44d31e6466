/* SPDX-License-Identifier: MIT */
/*
 * What test_sim_arm64.c (breakpoints and watchpoints) and
 * test_sim_arm64_step.c (software step, BRK, MRS) share: addresses,
 * register encodings, ESR values, the row shorthands and make().
 */
#ifndef HWBP_TESTS_SIM_ARM64_UTIL_H
#define HWBP_TESTS_SIM_ARM64_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Data and code addresses: 64-byte aligned, user half. */
#define A 0x10000000ull
#define C 0x10010000ull

/* MDSCR_EL1: MDE bit 15, KDE bit 13. */
#define MDE 0x8000ull
#define KDE 0x2000ull

/* DBGWCR: E 0, PAC 2:1, LSC 4:3, BAS 12:5, SSC 15:14, WT 20, MASK 28:24. */
#define WCR(bas, lsc, pac, mask) \
	(1ull | (uint64_t)(pac) << 1 | (uint64_t)(lsc) << 3 | (uint64_t)(bas) << 5 | (uint64_t)(mask) << 24)
/* DBGBCR: E 0, PMC 2:1, BAS 8:5, BT 23:20. */
#define BCR(bas, pmc, bt) (1ull | (uint64_t)(pmc) << 1 | (uint64_t)(bas) << 5 | (uint64_t)(bt) << 20)

/* ESR_EL1 values: EC << 26 | IL | ISS. */
#define ESR_WP_EL1_R 0xd6000022ull /* EC 0x35, DFSC 0x22 */
#define ESR_WP_EL1_W 0xd6000062ull /* + WnR */
#define ESR_WP_EL0_R 0xd2000022ull /* EC 0x34 */
#define ESR_WP_EL0_W 0xd2000062ull
#define ESR_BP_EL1 0xc6000022ull   /* EC 0x31, IFSC 0x22 */
#define ESR_BP_EL0 0xc2000022ull   /* EC 0x30 */

enum { BOTH = 0, SDM = 1, QEMU = 2 };
enum { WP = HWBP_SIM_WATCHPOINT, BP = HWBP_SIM_BREAKPOINT, NO = HWBP_SIM_NONE };
enum { R = HWBP_SIM_READ, W = HWBP_SIM_WRITE, X = HWBP_SIM_EXEC, Z = HWBP_SIM_ZERO };

struct kv {
	const char *n;
	uint64_t v;
};

/* Debug fully enabled for EL1 (and EL0): OS lock clear, MDE|KDE, D = 0. */
#define EN { "oslar", 0 }, { "daif_d", 0 }, { "mdscr", MDE | KDE }

#define NQ (-1)
#define QOS HWBPI_Q_ARM64_OSLOCK_IGNORED
#define QFAR HWBPI_Q_ARM64_FAR_FIRST_WP
#define QZVA HWBPI_Q_ARM64_ZVA_FAR_OPERAND
#define QBAS HWBPI_Q_ARM64_BAS_FIRST_RUN
#define QVEC HWBPI_Q_ARM64_VECTOR_SPLIT
#define QDBG HWBPI_Q_ARM64_DBG_READ_NORMALISED

/*
 * The arm64 quirks whose sdm and qemu rows are test_sim_arm64_step.c's
 * (step_rows, mrs_rows) rather than test_sim_arm64.c's (rows): each
 * file's test_quirks_covered checks its own share.
 */
static const unsigned step_quirks[] = { QDBG };

static inline bool step_quirk(unsigned q)
{
	for (unsigned k = 0; k < N(step_quirks); k++)
		if (step_quirks[k] == q)
			return true;
	return false;
}

/* run(row, profile) for each row of the table @tab under each profile it
 * names (prof: BOTH, SDM or QEMU). */
#define RUN_ROWS(tab, run)                                            \
	do {                                                          \
		for (unsigned i_ = 0; i_ < N(tab); i_++) {            \
			if ((tab)[i_].prof != QEMU)                   \
				run(&(tab)[i_], HWBP_SIM_SDM);        \
			if ((tab)[i_].prof != SDM)                    \
				run(&(tab)[i_], HWBP_SIM_QEMU);       \
		}                                                     \
	} while (0)

/* A row of profile @prof exercising @quirk: is it an sdm or a qemu row of quirk @q? */
static inline void quirk_row(int quirk, int prof, unsigned q, bool *sdm, bool *qemu)
{
	if (quirk != (int)q)
		return;
	*sdm |= prof == SDM;
	*qemu |= prof == QEMU;
}

/* A simulator of one CPU of @preset under @profile (HWBP_SIM_SDM or HWBP_SIM_QEMU). */
static inline struct hwbp_sim *make(const char *preset, int profile, struct hwbp_cpu *cpu)
{
	struct hwbp_sim *sim;
	int err = -1;

	assert_int_equal(hwbp_cpu_preset(preset, cpu), 0);
	sim = hwbp_sim_new(cpu, (enum hwbp_sim_profile)profile, 1, &err);
	assert_non_null(sim);
	assert_int_equal(err, 0);
	return sim;
}

#endif /* HWBP_TESTS_SIM_ARM64_UTIL_H */
