/* SPDX-License-Identifier: MIT */
/*
 * The scenario runner's checks: one `expect` line against the state the
 * command above it left (its simulator result, what hwbp_decode() made of
 * it, its error).  A check that holds counts as passed; one that does not
 * prints "FILE:LINE: expected ... got ..." and counts as failed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "scenario.h"


/* What the last command gave, for messages. */
static void got_text(const struct hwbpi_scn_run *r, char *buf, size_t n)
{
	if (!r->have_res) {
		snprintf(buf, n, "no access result");
		return;
	}
	hwbpi_scn_result_text(r, &r->res, false, buf, n);
	if (r->decoded && r->hit.filtered && strlen(buf) + 12 < n)
		strcat(buf, " (filtered)");
}

static bool exception(const struct hwbpi_scn_run *r)
{
	return r->have_res && r->res.cls != HWBP_SIM_NONE;
}

/*
 * Slot @name as a bit of *data or *inst; false if @cpu has no such slot.
 * A shared pool names each slot the same for both kinds, so its names
 * are data slots here (and the check below merges the pool's bits).
 */
static bool slot_bit(const struct hwbp_cpu *cpu, const char *name, uint32_t *data, uint32_t *inst)
{
	for (unsigned k = 0; k < HWBP_MAX_SLOTS; k++) {
		char nm[16];

		if (hwbp_slot_name(cpu, false, k, nm, sizeof(nm)) == 0 && strcmp(nm, name) == 0) {
			*data |= 1u << k;
			return true;
		}
		if (hwbp_slot_name(cpu, true, k, nm, sizeof(nm)) == 0 && strcmp(nm, name) == 0) {
			*inst |= 1u << k;
			return true;
		}
	}
	return false;
}

/* expect hit SLOT...: exactly those slots, as the model reports them. */
static bool check_hit_slots(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *e, const char *got)
{
	const struct hwbp_cpu *cpu = &r->ps->cpu;
	uint32_t want_d = 0, want_i = 0, gd = r->res.data_slots, gi = r->res.inst_slots;

	for (unsigned i = 0; i < e->ntok; i++)
		if (!slot_bit(cpu, e->tok[i], &want_d, &want_i)) {
			hwbpi_scn_fail(r, e, "expected hit %s, which is no slot of %s", e->tok[i], cpu->name);
			return false;
		}
	if (r->ctx.caps.shared) {
		gd |= gi;
		gi = 0;
	}
	if (gd != want_d || gi != want_i) {
		hwbpi_scn_fail(r, e, "expected hit slots %s... got %s", e->tok[0], got);
		return false;
	}
	return true;
}

/* expect hit REQUEST...: exactly those requests, as hwbp_decode() says. */
static bool check_hit_requests(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *e,
			       const char *got)
{
	uint64_t want = 0;
	char names[256] = "";

	for (unsigned i = 0; i < e->ntok; i++) {
		int id = hwbpi_scn_find_name(r, e->tok[i]);

		if (id < 0) {
			hwbpi_scn_fail(r, e, "expected hit %s, which is no watched request", e->tok[i]);
			return false;
		}
		want |= UINT64_C(1) << id;
	}
	if (!r->decoded) {
		hwbpi_scn_fail(r, e, "expected hit %s got %s (not decoded)", e->tok[0], got);
		return false;
	}
	for (int id = 0; id < HWBP_MAX_REQUESTS; id++)
		if (r->hit.requests & (UINT64_C(1) << id) &&
		    strlen(names) + HWBPI_SCN_NAME_LEN + 2 < sizeof(names)) {
			strcat(names, " ");
			strcat(names, r->names[id][0] ? r->names[id] : "?");
		}
	if (r->hit.requests != want) {
		hwbpi_scn_fail(r, e, "expected hit %s... got requests:%s %s", e->tok[0],
			       names[0] ? names : " none", got);
		return false;
	}
	return true;
}

static bool check_hit(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *e, const char *got)
{
	if (!exception(r)) {
		hwbpi_scn_fail(r, e, "expected hit got %s", got);
		return false;
	}
	if (hwbpi_scn_is_slot_name(e->tok[0]))
		return check_hit_slots(r, e, got);
	return check_hit_requests(r, e, got);
}

/* REG=VALUE: a status register of the result first, else the CPU's. */
static bool check_reg(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *e)
{
	uint64_t v = 0;
	bool have = false;
	char want[40], gv[40];

	for (unsigned i = 0; r->have_res && i < r->res.nstatus; i++)
		if (strcmp(r->res.status[i].name, e->name) == 0) {
			v = r->res.status[i].value;
			have = true;
		}
	if (!have && hwbp_sim_get_reg(r->sim, r->cur, e->name, &v) == 0)
		have = true;
	hwbpi_fmt_reg(&hwbpi_scn_arenas, want, sizeof(want), e->name, e->lo);
	if (!have) {
		hwbpi_scn_fail(r, e, "expected %s=%s got no such register", e->name, want);
		return false;
	}
	if (v != e->lo) {
		hwbpi_fmt_reg(&hwbpi_scn_arenas, gv, sizeof(gv), e->name, v);
		hwbpi_scn_fail(r, e, "expected %s=%s got %s=%s", e->name, want, e->name, gv);
		return false;
	}
	return true;
}

/* addr LO..HI: the reported data address lies in the window. */
static bool check_addr(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *e, const char *got)
{
	char lo[40], hi[40], g[40];

	hwbpi_fmt_addr(&hwbpi_scn_arenas, lo, sizeof(lo), e->lo);
	hwbpi_fmt_addr(&hwbpi_scn_arenas, hi, sizeof(hi), e->hi);
	if (!exception(r) || !r->res.addr_known) {
		hwbpi_scn_fail(r, e, "expected addr %s..%s got %s", lo, hi, got);
		return false;
	}
	if (r->res.addr < e->lo || r->res.addr > e->hi) {
		hwbpi_fmt_addr(&hwbpi_scn_arenas, g, sizeof(g), r->res.addr);
		hwbpi_scn_fail(r, e, "expected addr %s..%s got addr=%s", lo, hi, g);
		return false;
	}
	return true;
}

/* Does @e hold?  Fails it (with its message) when not. */
static bool holds(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *e, const char *got)
{
	const struct hwbp_sim_result *res = &r->res;

	switch (e->ek) {
	case E_NONE:
		if (!exception(r))
			return true;
		hwbpi_scn_fail(r, e, "expected none got %s", got);
		return false;
	case E_FILTERED:
		if (exception(r) && r->decoded && r->hit.filtered)
			return true;
		hwbpi_scn_fail(r, e, "expected filtered got %s%s", got,
			       exception(r) && !r->decoded ? " (not decoded: no watch armed it)" : "");
		return false;
	case E_HIT:
		return check_hit(r, e, got);
	case E_CLASS:
		if ((int)res->cls == e->err && r->have_res)
			return true;
		hwbpi_scn_fail(r, e, "expected class %s got %s", e->tok[0], got);
		return false;
	case E_TIMING:
		if (exception(r) && (uint64_t)res->timing == e->lo)
			return true;
		hwbpi_scn_fail(r, e, "expected timing %s got %s", e->lo ? "after" : "before", got);
		return false;
	case E_REG:
		return check_reg(r, e);
	case E_ADDR:
		return check_addr(r, e, got);
	case E_ERROR:
		if (r->cmd_err == e->err)
			return true;
		hwbpi_scn_fail(r, e, "expected error %s got %s", e->tok[0],
			       r->cmd_err ? hwbp_errno_name(r->cmd_err) : "ok");
		return false;
	case E_OK:
		if (!r->cmd_err)
			return true;
		hwbpi_scn_fail(r, e, "expected ok got error %s", hwbp_errno_name(r->cmd_err));
		return false;
	}
	return false;
}

void hwbpi_scn_check(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *e)
{
	char got[512];

	if (e->profile >= 0 && e->profile != (int)r->o->profile)
		return;
	got_text(r, got, sizeof(got));
	if (holds(r, e, got))
		r->st->passed++;
}
