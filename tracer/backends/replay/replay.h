/* SPDX-License-Identifier: MIT */
/*
 * Replay (internal), what the simulator's backends and the qemu-x86
 * backend share: an access stream run through the simulator (replay.c),
 * and the demo kernel, whose table is also what qemu-x86's kernel runs as
 * real code (demo.c).
 */
#ifndef HWBP_TRACER_BACKENDS_REPLAY_H
#define HWBP_TRACER_BACKENDS_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "session/backend.h"

/* A data or execute access a workload makes, with the instruction. */
#define HWBPI_WORK_CALLERS 8
struct hwbpi_work_access {
	uint64_t ip;
	uint64_t addr;
	uint32_t size;
	uint32_t op;       /* HWBP_SIM_READ / WRITE / EXEC */
	uint16_t cpu;
	/* the return addresses of the instruction's callers, innermost
	 * first; a workload that knows none leaves ncallers alone:
	 * hwbpi_replay sets it to 0 before asking for an access */
	unsigned ncallers;
	uint64_t callers[HWBPI_WORK_CALLERS];
};

/*
 * The simulator backend: install every watch on every CPU of a simulator
 * of @cpu_model through the generic API, replay the accesses @next yields
 * (until it returns false), decode each exception with the access known
 * exactly (HWBP_KIND_SIM) and feed the hits, with the access's callers
 * (hwbpi_tracer_hit_frames).  @err gets the planner's
 * reason when a watch cannot be held.
 * Errors: those of hwbp_install() (the watch is named in @err), -ENOMEM.
 */
int hwbpi_replay(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu_model, unsigned ncpus,
		    bool (*next)(void *arg, struct hwbpi_work_access *a), void *arg,
		    char *err, size_t errlen);

/* The demo kernel: its symbol table and its deterministic workload. */
struct hwbp_symtab *hwbpi_demo_symtab(int *err);
struct hwbpi_demo_state {
	unsigned step, rep, round;
	uint64_t ts;
};
bool hwbpi_demo_next(void *state, struct hwbpi_work_access *a);
#define HWBPI_DEMO_CPUS 4
/* What the demo watches when no entry is given (NULL-ended). */
extern const char *const hwbpi_demo_watches[];

#endif /* HWBP_TRACER_BACKENDS_REPLAY_H */
