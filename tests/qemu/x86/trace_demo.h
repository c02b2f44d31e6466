/* SPDX-License-Identifier: MIT */
/*
 * The tracer demo kernel (trace_kernel.c) and its generated workload
 * (gen_demo.py from tracer/backends/replay/demo.c).
 */
#ifndef HWBP_QEMU_X86_TRACE_DEMO_H
#define HWBP_QEMU_X86_TRACE_DEMO_H

#include <stdint.h>

/* One access instruction of the workload: [start, end) and its kind
 * (1 = load, HWBP_R; 2 = store or read-modify-write, HWBP_W). */
struct demo_site {
	uint64_t start, end, kind;
};

extern const struct demo_site __start_demo_sites[], __stop_demo_sites[];

/* The demo's rounds, in the simulator's order. */
void demo_run(void);

#endif
