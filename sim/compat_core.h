/* SPDX-License-Identifier: MIT */
/*
 * TEMPORARY (the lead deletes this file, sim/compat_core.c and the two
 * includes of it, in model.h and format.h, at merge): declarations of the
 * public core functions of issue 11 that the core does not have yet, with
 * exactly the signatures include/hwbp/hwbp.h will give them.  Until then
 * sim/compat_core.c implements them.
 */
#ifndef HWBP_SIM_COMPAT_CORE_H
#define HWBP_SIM_COMPAT_CORE_H

#include <stdbool.h>
#include <stddef.h>

#include <hwbp/hwbp.h>

/* Slot names for printing: "dr0".."dr3" (x86: one pool, same name for inst), "wp0".., "bp0"..
 * (arm64), "dabr" / "dawr0","dawr1" / "ciabr" (powerpc).  Writes a NUL-terminated name into buf.
 * Errors: -EINVAL (NULL, n too small, slot >= the pool's count). */
int hwbp_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf, size_t n);

/* What a kernel's glue writing @written changes in @live: address/control registers copied,
 * status registers kept (x86 DR6), enables OR-ed (arm64 MDSCR MDE/KDE).  For simulators.
 * Errors: -EINVAL (NULL, arch mismatch). */
int hwbp_regs_apply(const struct hwbp_cpu *cpu, struct hwbp_regs *live,
		    const struct hwbp_regs *written);

/* TEMPORARY for cli/hwbp.c, which still calls the old name: forwards to
 * hwbp_slot_name() ("?" when that fails, where the old one never did). */
void hwbpi_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned i, char *buf, size_t n);

#endif /* HWBP_SIM_COMPAT_CORE_H */
