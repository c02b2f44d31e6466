/* SPDX-License-Identifier: MIT */
/*
 * backends/sim/'s private header: the lackey trace reader (lackey.c)
 * the lackey backend replays (sim.c).
 */
#ifndef HWBP_TRACER_BACKENDS_SIM_INT_H
#define HWBP_TRACER_BACKENDS_SIM_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "backends/replay/replay.h"
#include "backends/sim/sim.h"

/*
 * A valgrind lackey trace (--tool=lackey --trace-mem=yes): "I  ADDR,SIZE"
 * instructions and " L/S/M ADDR,SIZE" data accesses, each attributed to the
 * instruction before it.  M (modify: an x86 read-modify-write instruction)
 * is one write access, as the CPU's debug unit sees it (one trap).  Reads from an open stream; bad lines are counted
 * and skipped (lackey also prints its own "==PID==" chatter).
 */
struct hwbpi_lackey {
	FILE *in;
	uint64_t ip;
	uint64_t lines, bad, bytes;
};
bool hwbpi_lackey_next(void *state, struct hwbpi_work_access *a);

/*
 * The load bias of a PIE from a lackey trace: the page-aligned bias that
 * puts the most instruction addresses inside its functions (tried: each
 * instruction page minus main's or _start's page, bounded), or, with
 * neither (stripped), inside its PF_X segments (tried: each executed
 * address at e_entry's page offset minus e_entry).  Returns 0 if the
 * executable is not position-independent or nothing fits better.
 */
uint64_t hwbpi_lackey_guess_bias(const char *lackey_path, const char *elf_path);

/* Whether @elf_path is position-independent (ET_DYN: a PIE or a shared
 * object), so that a load bias applies to it.  A file that is not ELF
 * counts as movable here: reading its symbols reports it. */
bool hwbpi_lackey_movable(const char *elf_path);

#endif /* HWBP_TRACER_BACKENDS_SIM_INT_H */
