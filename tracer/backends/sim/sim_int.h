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
 * The load bias of a PIE from a lackey trace, into *bias: of the executed
 * addresses at e_entry's page offset that control reached from outside
 * the image they would place (the loader's jump to the entry point), the
 * one whose bias puts the most executed instructions in the PF_X segments
 * and none in the others (mapped without execute permission).  Returns 0
 * (bias 0 for an executable that is not position-independent, or a file
 * that is not ELF), -ENOENT if no executed address fits (a trace of
 * another program, one cut before the entry, a shared library), -EIO,
 * -ENOMEM or fopen()'s -errno.
 */
int hwbpi_lackey_bias(const char *lackey_path, const char *elf_path, uint64_t *bias);

/* The same, 0 where it fails (tests/fuzz/fuzz_lackey.c's interface). */
uint64_t hwbpi_lackey_guess_bias(const char *lackey_path, const char *elf_path);

/* Whether @elf_path is position-independent (ET_DYN: a PIE or a shared
 * object), so that a load bias applies to it.  A file that is not ELF
 * counts as movable here: reading its symbols reports it. */
bool hwbpi_lackey_movable(const char *elf_path);

#endif /* HWBP_TRACER_BACKENDS_SIM_INT_H */
