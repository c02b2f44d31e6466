/* SPDX-License-Identifier: MIT */
/*
 * The canonical result lines of `hwbp sim --emit`, shared with the
 * bare-metal harnesses (tests/qemu/), so that both print with one piece of
 * code.  Freestanding: needs only snprintf, strcmp and strncmp, and of the
 * core hwbp_decode_status() and hwbp_slot_name().
 */
#ifndef HWBP_SIM_FORMAT_H
#define HWBP_SIM_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>


/* Where a runner put its arenas (addresses inside print as B+/C+). */
struct hwbpi_arenas {
	uint64_t b, c, size;
};

void hwbpi_fmt_addr(const struct hwbpi_arenas *ar, char *buf, size_t n, uint64_t v);
void hwbpi_fmt_reg(const struct hwbpi_arenas *ar, char *buf, size_t n, const char *name,
		   uint64_t v);
/*
 * "none" or "class=.. timing=.. slots=.. REG=.. addr=..".  With @live, the
 * slots are what hwbp_decode_status() reads from res->st and @live;
 * without, the model's res->data_slots/inst_slots.
 */
void hwbpi_sim_result_text(const struct hwbp_cpu *cpu, const struct hwbp_regs *live,
			   const struct hwbp_sim_result *res, const struct hwbpi_arenas *ar,
			   char *buf, size_t n);

#endif /* HWBP_SIM_FORMAT_H */
