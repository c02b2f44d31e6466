/* SPDX-License-Identifier: MIT */
/*
 * The pure part of the arm64 Linux glue (linux_decode.c, built on every host
 * for its tests): how the kernel's view maps to hwbp's CPU models and
 * status.  Internal to libhwbp-trace; the glue itself is linux.c
 * (tracer/backends/linux/glue.h).
 */
#ifndef HWBP_ARCH_ARM64_LINUX_DECODE_H
#define HWBP_ARCH_ARM64_LINUX_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include <hwbp/hwbp.h>

/*
 * An arm64 model from the dbg_info words of NT_ARM_HW_BREAK (@brk) and
 * NT_ARM_HW_WATCH (@wtch) (struct user_hwdebug_state: slot count in bits
 * [7:0], debug architecture in [15:8]; arch/arm64/kernel/ptrace.c
 * ptrace_hbp_get_resource_info()).
 * Errors: -EINVAL (@cpu NULL), -EOPNOTSUPP (no watchpoint or no
 *         breakpoint slot, debug arch 0, or more than HWBP_MAX_SLOTS).
 */
int hwbpi_arm64_linux_cpu(uint32_t brk, uint32_t wtch, struct hwbp_cpu *cpu);

/*
 * The status of a TRAP_HWBKPT stop on arm64 from what Linux gives a
 * tracer: the PC and si_addr (bkpt->trigger: the instruction for a
 * breakpoint, the watchpoint's reported data address FAR for a
 * watchpoint; ptrace_hbptriggered() in arch/arm64/kernel/ptrace.c; a
 * native task gets no slot number, si_errno is 0).  ESR is synthesised:
 * a breakpoint when an armed breakpoint holds @pc and @addr == @pc, else a
 * watchpoint with WnR chosen so that an armed watchpoint of that kind
 * matches: the kind whose watchpoints hold @addr itself, else a store,
 * then a load (hwbp's nearest-above rule).  *@kind_known: one kind only
 * fits.
 * Errors: -EINVAL (NULL), -ENOENT (no armed slot matches).
 */
int hwbpi_arm64_linux_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *armed,
			     uint64_t pc, uint64_t addr, struct hwbp_status *st,
			     bool *kind_known);

/*
 * Whether Linux's ptrace (arch_bp_generic_fields(), hw_breakpoint_arch_
 * parse()) accepts the slot encoding @wcr/@bcr: 0, or -EOPNOTSUPP (MASK,
 * linked, non-contiguous BAS, breakpoint BAS other than 0b1111).
 */
int hwbpi_arm64_linux_ctrl_ok(bool inst, uint64_t ctrl);

#endif
