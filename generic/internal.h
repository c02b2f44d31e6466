/* SPDX-License-Identifier: MIT */
/*
 * Internal interface between generic/ and arch/<a>/.  Nothing here is
 * exported: the shared library's version script keeps only hwbp_*, and
 * internal names use the hwbpi_ prefix.
 */
#ifndef HWBP_INTERNAL_H
#define HWBP_INTERNAL_H

#include <hwbp/hwbp.h>

#include "hwbp_libc.h"

/* UINT_MAX without <limits.h> (not part of a -nostdinc build). */
#define HWBPI_UINT_MAX (~0u)

/*
 * One architecture: pure functions over a CPU model and register values.
 * Every arch/<a>/ provides one const instance (hwbpi_<a>_ops), picked at run
 * time by hwbpi_arch_ops().
 */
struct hwbpi_arch_ops {
	enum hwbp_arch arch;
	const char *name;   /* hwbp_arch_name() */

	/* Fill the capability table (all fields). */
	void (*caps)(const struct hwbp_cpu *cpu, struct hwbp_caps *caps);

	/*
	 * Arch rules beyond the generic checks, or NULL.  @hwtype is the type
	 * after widening.  Used for rules such as "CIABR matches one privilege
	 * level only".  Returns 0 or a negative errno (-EOPNOTSUPP, -EINVAL).
	 */
	int (*check)(const struct hwbp_cpu *cpu, const struct hwbp_request *req,
		     unsigned hwtype);

	/*
	 * Exact tiling of [addr, addr + len) into hardware pieces (data when
	 * !inst, else execute).  Fills piece.addr/len (the bytes the hardware
	 * watches, which on powerpc are whole doublewords) for at most @max
	 * pieces and returns how many pieces the tiling needs (possibly more
	 * than @max; @max 0 only counts).  Pieces come in address order and
	 * data pieces tile exactly [addr, addr + len) widened to caps.granule
	 * (powerpc: whole doublewords), which lets the planner measure a
	 * tiling without storing it.  The generic code has already checked
	 * the request; @len >= 1 and addr + len does not wrap.
	 */
	unsigned (*split)(const struct hwbp_cpu *cpu, bool inst, uint64_t addr,
			  uint64_t len, struct hwbp_piece *out, unsigned max);

	/*
	 * Optional, for an arch where one piece may take several slots (a
	 * RISC-V chained pair of triggers).  piece_slots: the slots piece
	 * @piece of split() takes, a run of consecutive slots starting at the
	 * one it is encoded at.  split_slots: the slots the whole tiling of
	 * split() takes (what the planner compares with the free slots),
	 * without storing it.  NULL: one slot per piece, and split()'s count.
	 * Sets of such an arch are kept packed (slots.c), so that any free
	 * slots form one run.
	 */
	unsigned (*piece_slots)(const struct hwbp_cpu *cpu, bool inst,
				const struct hwbp_piece *piece);
	unsigned (*split_slots)(const struct hwbp_cpu *cpu, bool inst, uint64_t addr,
				uint64_t len);

	/* Registers with nothing armed (reset values). */
	void (*reset)(const struct hwbp_cpu *cpu, struct hwbp_regs *regs);

	/* See hwbp_encode_piece(). */
	int (*encode)(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		      unsigned slot, bool inst, const struct hwbp_piece *piece,
		      enum hwbp_scope scope, bool local);

	/* See hwbp_decode_slot(). */
	int (*decode_slot)(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			   unsigned slot, bool inst, struct hwbp_piece *piece,
			   enum hwbp_scope *scope);

	/* See hwbp_decode_status(): fills data_slots/inst_slots, kind, addr,
	 * addr_known, ip; leaves requests = 0 and filtered = false. */
	int (*decode_status)(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			     const struct hwbp_status *st, struct hwbp_hit *hit);

	/* See hwbp_regs_list() / hwbp_regs_set(). */
	int (*regs_list)(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			 struct hwbp_reg_nv *out, int max);
	int (*regs_set)(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			const char *name, uint64_t value);

	/* See hwbp_regs_apply(); both register blocks are of this arch. */
	void (*regs_apply)(struct hwbp_regs *live, const struct hwbp_regs *written);

	/*
	 * See hwbp_slot_name(): @slot is below the pool's count (checked by
	 * the caller).  Writes at most @n bytes (hwbpi_fmt_name()) and
	 * returns the length the name needs, without the NUL.
	 */
	size_t (*slot_name)(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf,
			    size_t n);

	/*
	 * See hwbp_status_set(), for the arch's own fields (not "ip"):
	 * 1 (identifies the event), 0 (auxiliary) or -ENOENT.
	 */
	int (*status_set)(struct hwbp_status *st, const char *name, uint64_t value);
	const char *const *status_fields;  /* NULL-terminated, for hwbp_status_field() */
	const char *status_hint;           /* see hwbp_status_hint() */

	/* Named CPU models of this arch (hwbp_cpu_preset()), in listing order. */
	const struct hwbpi_preset *presets;
	unsigned npresets;
};

/* One named CPU model. */
struct hwbpi_preset {
	const char *name;
	struct hwbp_cpu cpu;
};


/* The ops of @arch, or NULL. */
const struct hwbpi_arch_ops *hwbpi_arch_ops(enum hwbp_arch arch);

/* The i-th arch's ops (the order in which presets are listed), NULL past
 * the last.  generic/arch.c is the one place that lists the arches. */
const struct hwbpi_arch_ops *hwbpi_arch_nth(unsigned i);

/* Slots @piece takes on @cpu (1 unless the arch says otherwise). */
static inline unsigned hwbpi_piece_slots(const struct hwbp_cpu *cpu, bool inst,
					 const struct hwbp_piece *piece)
{
	const struct hwbpi_arch_ops *ops = hwbpi_arch_ops(cpu->arch);

	return ops && ops->piece_slots ? ops->piece_slots(cpu, inst, piece) : 1;
}

/* Small helpers shared by the arches. */
static inline bool hwbpi_is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

#endif /* HWBP_INTERNAL_H */
