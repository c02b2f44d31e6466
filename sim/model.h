/* SPDX-License-Identifier: MIT */
/*
 * Internal interface between the simulator engine (sim/sim.c) and the
 * per-arch semantic models (sim/x86.c, sim/arm64.c, sim/powerpc.c; the
 * register files of the first two are sim/x86_regs.c, sim/arm64_regs.c).
 */
#ifndef HWBP_SIM_MODEL_H
#define HWBP_SIM_MODEL_H

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>


#define HWBPI_SIM_MAXWIN 32
#define HWBPI_SIM_GRAN_SHIFT 6
#define HWBPI_SIM_GRAN_COUNT 16384

/* One simulated CPU. */
struct hwbpi_sim_cpu {
	struct hwbp_regs regs;      /* the debug registers (x86 DR6 lives here) */

	/*
	 * Precomputed filter, maintained by the model's refilter(): a data
	 * access [addr, addr + size) with addr + size <= flo or addr >= fhi
	 * cannot raise anything and changes no state, so the engine skips
	 * the model.  fhi == 0 means nothing can fire for data.  Must be
	 * conservative (include every byte any enabled slot could match,
	 * under the profile and the current mode).
	 */
	uint64_t flo, fhi;

	/*
	 * Optional finer filter, also kept by refilter(): one conservative
	 * window [wlo[i], whi[i]) per enabled data slot.  nwin == 0 means the
	 * model gives no list and only [flo, fhi) is used.  From the windows
	 * the engine builds a map of 64-byte granules (gran, one byte each,
	 * hashed by the low 14 bits of the granule number) so that accesses
	 * between slots also skip the model.
	 */
	unsigned nwin;
	uint64_t wlo[HWBPI_SIM_MAXWIN], whi[HWBPI_SIM_MAXWIN];
	bool gran_on;
	uint8_t gran[HWBPI_SIM_GRAN_COUNT];

	union {
		struct {
			uint64_t cr4;       /* only DE (bit 3) matters */
			int rf;             /* RFLAGS.RF */
			int tf;             /* RFLAGS.TF */
			int cpl;            /* 0 or 3 */
			/* The MOV SS / STI shadow over the next instruction
			 * (0 none, HWBP_SIM_MOVSS, HWBP_SIM_STI), and the #DB
			 * conditions a MOV SS held back for it: DR6 B bits, BS. */
			int shadow;
			uint32_t held_b;
			bool held_bs;
		} x86;
		struct {
			int el;             /* 0 or 1 (starts at 1) */
			int oslock;         /* OSLSR.OSLK: set at reset */
			int daif_d;         /* PSTATE.D */
			int pstate_ss;      /* PSTATE.SS */
			int stepping;       /* `step on`: the debugger ERETs with SPSR.SS = 1 */
			uint64_t esr, far, elr;
		} arm64;
		struct {
			int pr, hv;         /* MSR[PR], MSR[HV]: start pr=0 hv=1 */
			int se, be;         /* MSR[SE], MSR[BE]: trace */
			uint64_t dsisr, dar, srr0, srr1, siar;
		} ppc;
		struct {
			int profile;        /* the sim's (get_reg has none) */
			int priv;           /* 0 U, 1 S, 3 M (starts at 3) */
			unsigned tselect;
			uint64_t tcontrol;  /* mte, mpte (Debug spec 1.0 CPUs) */
			uint64_t mcause, mtval, mepc;
		} riscv;
	} s;

	/*
	 * When each data slot's registers were last written (a clock that
	 * only grows): QEMU keeps its watchpoints in a list in that order and
	 * reports the first match, which the qemu profile needs.  The engine's
	 * glue writes every slot in slot order; models update it on `set`.
	 */
	uint64_t wseq[HWBP_MAX_SLOTS];
	uint64_t wclock;
	/* Model-private flags (x86 qemu profile: QEMU's per-watchpoint
	 * BP_WATCHPOINT_HIT, which outlives the access that set it). */
	uint32_t mflags;

	/* The access that raised the last exception, for resume(). */
	struct hwbp_sim_access last;
	bool pending;
};

/*
 * One arch's semantics.  profile is enum hwbp_sim_profile; a model tests
 * quirks with hwbpi_quirk_on(profile, HWBPI_Q_...).
 */
struct hwbpi_sim_model {
	enum hwbp_arch arch;

	/* Which scenario lines the model gives a meaning to: `io` (port
	 * I/O, HWBP_SIM_IO) and `zero` (a cache-block store, HWBP_SIM_ZERO:
	 * zero_block bytes, the aligned block holding the address; 0 when the
	 * arch has no such instruction). */
	bool io_ports;
	unsigned zero_block;
	/* The scenario word of the arch's breakpoint instruction
	 * (HWBP_SIM_SWBP: "int3", "brk", "trap"), and whether the arch has
	 * INT1 and the MOV SS / STI shadows (`icebp`, `movss`, `sti`). */
	const char *swbp;
	bool shadows;

	/* State at reset (registers, mode, OS lock...).  Then refilter. */
	void (*reset)(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c);

	/*
	 * Write a register by its docs/scenarios.md name.  If the write raises an
	 * exception instead (x86 GD), fill *res (cls != NONE) and do not
	 * write.  Otherwise res->cls = NONE.  Returns 0 or -ENOENT (unknown
	 * name).  The engine calls refilter() afterwards.
	 */
	int (*set_reg)(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		       const char *name, uint64_t value, struct hwbp_sim_result *res);
	/* hwbp_sim_debug_ready(): release what holds debug exceptions off at
	 * reset, or NULL when nothing does. */
	void (*debug_ready)(struct hwbpi_sim_cpu *c);
	int (*get_reg)(const struct hwbp_cpu *cpu, const struct hwbpi_sim_cpu *c,
		       const char *name, uint64_t *value);
	/*
	 * hwbp_sim_get_insn(): read @name with the instruction, which may
	 * fault (fill *res, cls != NONE) or complete (and be stepped: a trap
	 * in *res), or give the value in *value with res->cls NONE.  0 or
	 * -ENOENT.  The engine calls refilter() afterwards.
	 */
	int (*get_insn)(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			const char *name, uint64_t *value, struct hwbp_sim_result *res);

	/* mode KEY=VALUE (not cpu=, which the engine handles).  0, -ENOENT,
	 * -EINVAL.  The engine calls refilter() afterwards. */
	int (*mode)(const struct hwbp_cpu *cpu, struct hwbpi_sim_cpu *c,
		    const char *key, uint64_t value);

	/*
	 * Perform one access.  Must be correct whether or not the filter
	 * would have skipped it.  Fills *res completely (cls NONE when
	 * nothing happens); on an exception also sets c->last/pending.
	 */
	void (*access)(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		       const struct hwbp_sim_access *a, struct hwbp_sim_result *res);

	/* See hwbp_sim_resume(). */
	void (*resume)(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
		       struct hwbp_sim_result *res);

	/*
	 * Optional (NULL: nothing to do): the engine's glue has just copied
	 * registers over @old, the way a kernel's glue writes them (x86:
	 * DR0-DR3 in order, then DR7).  For models whose state depends on the
	 * order of register writes (QEMU's watchpoint list).
	 */
	void (*glue_wrote)(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c,
			   const struct hwbp_regs *old);

	/* Recompute c->flo/fhi after any change of registers or mode. */
	void (*refilter)(const struct hwbp_cpu *cpu, int profile, struct hwbpi_sim_cpu *c);

	/* 0 kernel, 1 user. */
	int (*priv)(const struct hwbpi_sim_cpu *c);
};

extern const struct hwbpi_sim_model hwbpi_sim_x86;
extern const struct hwbpi_sim_model hwbpi_sim_arm64;
extern const struct hwbpi_sim_model hwbpi_sim_powerpc;
extern const struct hwbpi_sim_model hwbpi_sim_riscv;

/* The model of @arch, or NULL (sim/models.c: the one table of models). */
const struct hwbpi_sim_model *hwbpi_sim_model(enum hwbp_arch arch);

/* The profile table (sim/quirks.c), built from one X-macro file per arch
 * and profile: QUIRK(ID, "arch", "manual says", "QEMU does", "evidence")
 * for the qemu profile, QUIRK_LINUX(...) for the linux one.  The qemu
 * rows come first, then the linux rows, in one numbering. */
enum hwbpi_quirk {
#define QUIRK(id, arch, sdm, qemu, evidence) id,
#include "quirks_x86.def"
#include "quirks_arm64.def"
#include "quirks_powerpc.def"
#include "quirks_riscv.def"
#undef QUIRK
	HWBPI_Q_QEMU_COUNT,
	/* (so that the first linux row is HWBPI_Q_QEMU_COUNT) */
	HWBPI_Q_LINUX_BEFORE = HWBPI_Q_QEMU_COUNT - 1,
#define QUIRK_LINUX(id, arch, sdm, linux, evidence) id,
#include "quirks_linux_x86.def"
#undef QUIRK_LINUX
	HWBPI_Q_COUNT
};

static inline bool hwbpi_quirk_on(int profile, enum hwbpi_quirk q)
{
	/* The qemu profile takes every QEMU row, the linux profile every
	 * Linux row; sdm none. */
	if ((unsigned)q < HWBPI_Q_QEMU_COUNT)
		return profile == HWBP_SIM_QEMU;
	return profile == HWBP_SIM_LINUX;
}

/* hwbp_sim_access() without the filter (for tests of the filter). */
int hwbpi_sim_access_unfiltered(struct hwbp_sim *sim, unsigned cpu,
				const struct hwbp_sim_access *a, struct hwbp_sim_result *res);

/* The live debug registers of @cpu (NULL if none). */
const struct hwbp_regs *hwbpi_sim_regs(const struct hwbp_sim *sim, unsigned cpu);

/* Helpers for models. */
static inline void hwbpi_sim_status(struct hwbp_sim_result *res, const char *name, uint64_t v)
{
	if (res->nstatus < HWBP_SIM_MAX_STATUS) {
		struct hwbp_reg_nv *nv = &res->status[res->nstatus++];
		unsigned i = 0;

		for (; name[i] && i + 1 < sizeof(nv->name); i++)
			nv->name[i] = name[i];
		nv->name[i] = '\0';
		nv->value = v;
	}
}

#endif /* HWBP_SIM_MODEL_H */
