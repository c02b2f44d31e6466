/* SPDX-License-Identifier: MIT */
/*
 * Canonical result lines (docs/scenarios.md "Canonical lines"): one piece
 * of code for the simulator's runner and the bare-metal harnesses, so that
 * their outputs can be compared with diff.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "format.h"

/* Addresses inside the arenas print relative to them, so that runners
 * with other arena placements print the same lines. */
void hwbpi_fmt_addr(const struct hwbpi_arenas *ar, char *buf, size_t n, uint64_t v)
{
	if (v >= ar->b && v - ar->b < ar->size)
		snprintf(buf, n, "B+0x%" PRIx64, v - ar->b);
	else if (v >= ar->c && v - ar->c < ar->size)
		snprintf(buf, n, "C+0x%" PRIx64, v - ar->c);
	else
		snprintf(buf, n, "0x%" PRIx64, v);
}

/* Status registers that hold data addresses. */
static bool is_addr_reg(const char *name)
{
	/* (the address registers too, which a `get` prints) */
	return strcmp(name, "far") == 0 || strcmp(name, "dar") == 0 || strcmp(name, "mtval") == 0 ||
	       strcmp(name, "tdata2") == 0 ||
	       (strncmp(name, "dr", 2) == 0 && name[2] >= '0' && name[2] <= '3' && !name[3]) ||
	       strncmp(name, "dbgbvr", 6) == 0 || strncmp(name, "dbgwvr", 6) == 0 ||
	       ((strncmp(name, "dawr", 4) == 0 && name[4] != 'x')) || strcmp(name, "dabr") == 0 ||
	       strcmp(name, "ciabr") == 0;
}

void hwbpi_fmt_reg(const struct hwbpi_arenas *ar, char *buf, size_t n, const char *name,
		   uint64_t v)
{
	if (is_addr_reg(name))
		hwbpi_fmt_addr(ar, buf, n, v);
	else
		snprintf(buf, n, "0x%" PRIx64, v);
}

/* "dr0,dr2" (data slots then instruction slots, by index), or "-". */
static void slots_text(const struct hwbp_cpu *cpu, uint32_t data, uint32_t inst,
		       char *buf, size_t n)
{
	size_t used = 0;
	char nm[16];

	buf[0] = '\0';
	for (int pass = 0; pass < 2; pass++) {
		uint32_t m = pass ? inst : data;

		for (unsigned i = 0; i < 32; i++) {
			if (!(m & (1u << i)))
				continue;
			/* A shared pool (x86) names a slot the same for both kinds. */
			if (hwbp_slot_name(cpu, pass, i, nm, sizeof(nm)))
				snprintf(nm, sizeof(nm), "?");
			used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%s",
						 used ? "," : "", nm);
		}
	}
	if (!used)
		snprintf(buf, n, "-");
}

const char *hwbp_sim_class_name(enum hwbp_sim_class cls)
{
	switch (cls) {
	case HWBP_SIM_NONE:
		return "none";
	case HWBP_SIM_DB:
		return "db";
	case HWBP_SIM_UD:
		return "ud";
	case HWBP_SIM_GP:
		return "gp";
	case HWBP_SIM_WATCHPOINT:
		return "watchpoint";
	case HWBP_SIM_BREAKPOINT:
		return "breakpoint";
	case HWBP_SIM_DSI:
		return "dsi";
	case HWBP_SIM_TRACE:
		return "trace";
	case HWBP_SIM_BP:
		return "bp";
	case HWBP_SIM_STEP:
		return "step";
	case HWBP_SIM_BRK:
		return "brk";
	case HWBP_SIM_PROGRAM:
		return "program";
	}
	return "unknown";
}

void hwbpi_sim_result_text(const struct hwbp_cpu *cpu, const struct hwbp_regs *live,
			   const struct hwbp_sim_result *res, const struct hwbpi_arenas *ar,
			   char *buf, size_t n)
{
	uint32_t data = res->data_slots, inst = res->inst_slots;
	char slots[128], v[40];
	size_t used;

	if (res->cls == HWBP_SIM_NONE) {
		/* A `get` that completed: the value it read. */
		used = (size_t)snprintf(buf, n, "none");
		for (unsigned i = 0; i < res->nstatus && used < n; i++) {
			hwbpi_fmt_reg(ar, v, sizeof(v), res->status[i].name, res->status[i].value);
			used += (size_t)snprintf(buf + used, n - used, " %s=%s", res->status[i].name, v);
		}
		return;
	}
	if (live) {
		struct hwbp_hit h;

		data = inst = 0;
		if (hwbp_decode_status(cpu, live, &res->st, &h) == 0) {
			data = h.data_slots;
			inst = h.inst_slots;
		}
	}
	slots_text(cpu, data, inst, slots, sizeof(slots));
	used = (size_t)snprintf(buf, n, "class=%s timing=%s slots=%s", hwbp_sim_class_name(res->cls),
				res->timing == HWBP_TIMING_AFTER ? "after" : "before", slots);
	for (unsigned i = 0; i < res->nstatus && used < n; i++) {
		hwbpi_fmt_reg(ar, v, sizeof(v), res->status[i].name, res->status[i].value);
		used += (size_t)snprintf(buf + used, n - used, " %s=%s", res->status[i].name, v);
	}
	if (used < n) {
		if (res->addr_known)
			hwbpi_fmt_addr(ar, v, sizeof(v), res->addr);
		else
			snprintf(v, sizeof(v), "-");
		snprintf(buf + used, n - used, " addr=%s", v);
	}
}
