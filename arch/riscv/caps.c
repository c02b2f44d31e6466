/* SPDX-License-Identifier: MIT */
/*
 * RISC-V capabilities and the splitting of a request into trigger pieces.
 *
 * Triggers (RISC-V Debug Specification 1.0, Sdtrig, §5.5 "Trigger Module
 * Registers"): tselect picks trigger n, whose tdata1 (mcontrol, type 2, or
 * mcontrol6, type 6) says what it matches and tdata2 holds the address.
 * One trigger watches execute, load or store (its execute/load/store bits):
 * execute and data share ONE pool.  What one trigger watches, by match:
 *   - 0 (equal): the byte at tdata2 (size 0: accesses of any size);
 *   - 1 (NAPOT): a naturally aligned 2^k block, k >= 1, its size in the
 *     trailing ones of tdata2 (mcontrol: up to 2^maskmax);
 *   - 2 (>=) with chain = 1, then 3 (<) on the next trigger: any range
 *     [tdata2(n), tdata2(n + 1)), two consecutive triggers that fire only
 *     together (§5.5, chain).  A range that runs to the top of the address
 *     space is one trigger with match 2 alone.
 * The planner asks split_slots for the slots a tiling takes: a chained
 * pair is one piece of two slots, chosen only when it takes fewer slots
 * than the single-trigger pieces (so aligned blocks look as elsewhere).
 *
 * Timing: an address trigger's breakpoint exception comes before the
 * access or instruction (mcontrol timing = 0; mcontrol6 has no timing bit,
 * and the spec's suggested timing for address triggers is "before").
 * QEMU inserts its watchpoints with BP_STOP_BEFORE_ACCESS
 * (type2_breakpoint_insert(), type6_breakpoint_insert()).
 */

#include "riscv.h"

static void riscv_caps(const struct hwbp_cpu *cpu, struct hwbp_caps *caps)
{
	unsigned n = hwbpi_riscv_ntrig(cpu);

	caps->arch = HWBP_ARCH_RISCV;
	/* One pool: every trigger matches execute, load or store. */
	caps->data_slots = n;
	caps->inst_slots = n;
	caps->shared = true;
	/* load (R), store (W), both (RW), execute (X): all native. */
	caps->types = (1u << HWBP_R) | (1u << HWBP_W) | (1u << HWBP_RW) | (1u << HWBP_X);
	caps->align = HWBP_ALIGN_NATURAL;
	caps->min_piece = 1;
	if (hwbpi_riscv_pairs(cpu))
		caps->max_piece = UINT64_MAX;   /* a chained pair holds any range */
	else if (hwbpi_riscv_has(cpu, HWBP_RISCV_F_NAPOT))
		caps->max_piece = UINT64_C(1) << hwbpi_riscv_maskmax(cpu);
	else if (hwbpi_riscv_has(cpu, HWBP_RISCV_F_SIZE_AS_LEN))
		caps->max_piece = 8;
	else
		caps->max_piece = 1;
	caps->granule = 1;
	caps->boundary = 0;
	/* IALIGN 16 (C extension): an instruction starts on any 2-byte
	 * boundary.  inst_len is the unit (match 0 on one parcel); where
	 * NAPOT or chains exist, an execute trigger holds a range of them
	 * (split_slots counts it). */
	caps->inst_len = HWBP_RISCV_INST_LEN;
	caps->inst_align = HWBP_RISCV_INST_LEN;
	caps->data_timing = HWBP_TIMING_BEFORE;
	caps->inst_timing = HWBP_TIMING_BEFORE;
	/*
	 * mtval: the Privileged spec lets a breakpoint exception from a
	 * trigger write the faulting virtual address (or 0); QEMU writes the
	 * first watched byte the access touched (riscv_cpu_do_interrupt():
	 * watchpoint_hit->hitaddr, MAX(access, watchpoint start)).  A byte
	 * of the access inside the piece: a window, not the access's start.
	 */
	caps->precision = hwbpi_riscv_has(cpu, HWBP_RISCV_F_TVAL) ? HWBP_ADDR_WINDOW
								  : HWBP_ADDR_NONE;
	/* mcause 3 is the same for loads and stores, and no tdata1 bit says
	 * which access fired (mcontrol6 has none; hit only says "fired"). */
	caps->kind_known = false;
	/* m, s, u enables (§5.5.10, §5.5.11). */
	caps->priv_filter = true;
	caps->io_ports = false;
	caps->zero_block = 0;   /* cbo.zero (Zicboz) is not modelled */
	/*
	 * Sv48 halves: user 0..2^47-1, kernel from 0xffff800000000000.  They
	 * hold the Sv39 halves too (user below 2^38, kernel from
	 * 0xffffffc000000000), so one model serves both; Sv57 is not modelled.
	 */
	caps->user_max = 0x00007fffffffffffull;
	caps->kernel_min = 0xffff800000000000ull;
	caps->addr_max = UINT64_MAX;
}

enum hwbpi_riscv_shape hwbpi_riscv_shape(const struct hwbp_cpu *cpu, bool exec, uint64_t addr,
					  uint64_t len)
{
	/* The smallest unit: a byte, or an execute piece's parcel. */
	uint64_t unit = exec ? HWBP_RISCV_INST_LEN : 1;

	if (len == 0 || len % unit || addr % unit)
		return RV_NONE;
	/* QEMU's size-as-length is an access size: data only (its execute
	 * triggers take size 0, type6_breakpoint_insert()). */
	if (!exec && hwbpi_riscv_has(cpu, HWBP_RISCV_F_SIZE_AS_LEN) &&
	    (len == 1 || len == 2 || len == 8) && addr % len == 0)
		return RV_SIZED;
	if (len == unit)
		return RV_EXACT;
	if (hwbpi_riscv_has(cpu, HWBP_RISCV_F_NAPOT) && hwbpi_is_pow2(len) &&
	    len <= (UINT64_C(1) << hwbpi_riscv_maskmax(cpu)) && (addr & (len - 1)) == 0)
		return RV_NAPOT;
	if (hwbpi_riscv_has(cpu, HWBP_RISCV_F_GE_LT) && addr + len == 0)
		return RV_GE_TOP;
	return RV_NONE;
}

/* The largest single-trigger block at @a for @r bytes (a power of two). */
static uint64_t block(const struct hwbp_cpu *cpu, bool exec, uint64_t a, uint64_t r)
{
	uint64_t align = a ? (a & (~a + 1)) : (UINT64_C(1) << 63);
	uint64_t b = UINT64_C(1) << 63, unit = exec ? HWBP_RISCV_INST_LEN : 1;

	while (b > unit && (b > r || b > align || hwbpi_riscv_shape(cpu, exec, a, b) == RV_NONE))
		b >>= 1;
	return b;
}

static void put(struct hwbp_piece *out, unsigned max, uint64_t n, uint64_t addr, uint64_t len)
{
	if (n < max) {
		memset(&out[n], 0, sizeof(out[n]));
		out[n].addr = addr;
		out[n].len = len;
	}
}

/*
 * The fewest single-trigger pieces tiling [addr, addr + len): the sizes a
 * trigger holds are powers of two, each dividing the next, all aligned, so
 * "largest aligned block that fits" is optimal (as arm64's MASK tiling).
 * A range to the top of the space is one >= trigger where the model has
 * it.  Counting only (n >= max): runs of equal blocks in one step.  An
 * execute range is tiled the same way in parcels: generic code made
 * addr and len multiples of one.
 */
static uint64_t tile(const struct hwbp_cpu *cpu, bool exec, uint64_t addr, uint64_t len,
		     struct hwbp_piece *out, unsigned max)
{
	uint64_t a = addr, r = len, n = 0, bmax = exec ? HWBP_RISCV_INST_LEN : 1;

	/* The largest block one trigger holds. */
	if (hwbpi_riscv_has(cpu, HWBP_RISCV_F_NAPOT))
		bmax = UINT64_C(1) << hwbpi_riscv_maskmax(cpu);
	if (!exec && hwbpi_riscv_has(cpu, HWBP_RISCV_F_SIZE_AS_LEN) && bmax < 8)
		bmax = 8;
	while (r) {
		uint64_t b;

		if (hwbpi_riscv_shape(cpu, exec, a, r) == RV_GE_TOP) {
			put(out, max, n++, a, r);
			break;
		}
		b = block(cpu, exec, a, r);
		if (n >= max && b == bmax && r / b > 1) {
			/* Counting only: a run of the largest blocks at once
			 * (huge ranges on a one-byte-trigger model). */
			uint64_t k = r / b;

			n += k;
			a += k * b;
			r -= k * b;
			continue;
		}
		put(out, max, n++, a, b);
		a += b;
		r -= b;
	}
	return n;
}

static unsigned clamp(uint64_t n)
{
	return n > HWBPI_UINT_MAX ? HWBPI_UINT_MAX : (unsigned)n;
}

/* Single-trigger pieces, or one chained pair when that takes fewer slots
 * (ties keep the single pieces: they need no two consecutive slots). */
static bool use_pair(const struct hwbp_cpu *cpu, bool exec, uint64_t addr, uint64_t len)
{
	return hwbpi_riscv_pairs(cpu) && tile(cpu, exec, addr, len, NULL, 0) > 2;
}

/* Execute and data alike: one pool, and the same match modes for both
 * (mcontrol.match compares tdata2 with the instruction's address). */
static unsigned riscv_split(const struct hwbp_cpu *cpu, bool inst, uint64_t addr,
			    uint64_t len, struct hwbp_piece *out, unsigned max)
{
	if (use_pair(cpu, inst, addr, len)) {
		put(out, max, 0, addr, len);
		return 1;
	}
	return clamp(tile(cpu, inst, addr, len, out, max));
}

static unsigned riscv_split_slots(const struct hwbp_cpu *cpu, bool inst, uint64_t addr,
				  uint64_t len)
{
	return use_pair(cpu, inst, addr, len) ? 2 : clamp(tile(cpu, inst, addr, len, NULL, 0));
}

/* A piece no single trigger holds is a chained pair: two slots. */
unsigned hwbpi_riscv_piece_slots(const struct hwbp_cpu *cpu, bool inst,
				 const struct hwbp_piece *piece)
{
	bool exec = inst || piece->type == HWBP_X;

	if (!hwbpi_riscv_pairs(cpu))
		return 1;
	return hwbpi_riscv_shape(cpu, exec, piece->addr, piece->len) == RV_NONE ? 2 : 1;
}

/* ----------------------------------------------------------- presets */

#define TINFO_2_6 ((1u << HWBP_RISCV_TYPE_MCONTROL) | (1u << HWBP_RISCV_TYPE_MCONTROL6))
#define F_PRIV (HWBP_RISCV_F_SMODE | HWBP_RISCV_F_UMODE)

#define RV(n, nt, sp, ti, f)                                                         \
	{ n, { .arch = HWBP_ARCH_RISCV, .u.riscv = { .ntrig = nt, .spec = sp, .tinfo = ti, \
						     .features = f } } }

static const struct hwbpi_preset riscv_presets[] = {
	/*
	 * QEMU 10.0 (target/riscv/debug.c): 2 triggers (RV_MAX_TRIGGERS; the
	 * table at the top of the file, riscv_trigger_reset_hold()), tinfo
	 * types 2 and 6 (tinfo_csr_read()); type2_mcontrol_validate() and
	 * type6_mcontrol6_validate() keep only size, u/s/m (vu/vs), load,
	 * store, execute: match, chain, timing, select, hit, action stay 0.
	 * The size quirk: HWBP_RISCV_F_SIZE_AS_LEN.  mtval: the address
	 * (riscv_cpu_do_interrupt(), riscv_cpu_debug_check_breakpoint()).
	 * Debug spec 0.13 (the "by default"; measured: tinfo reads
	 * 0x44, version 0, and there is no tcontrol CSR).
	 */
	RV("rv64-qemu", 2, 13, TINFO_2_6,
	   HWBP_RISCV_F_SIZE_AS_LEN | HWBP_RISCV_F_TVAL | F_PRIV),
	/*
	 * The same harts as an S-mode kernel sees them through OpenSBI's
	 * Debug Triggers extension (QEMU's -bios default; arch/riscv/
	 * glue_sbi.c, tests/qemu/riscv/README.md): the kernel scope is s
	 * alone, install_triggers refusing the m bit.
	 */
	RV("rv64-qemu-sbi", 2, 13, TINFO_2_6,
	   HWBP_RISCV_F_SIZE_AS_LEN | HWBP_RISCV_F_TVAL | F_PRIV | HWBP_RISCV_F_SBI),
	/*
	 * The ratified Sdtrig trigger in full (Debug spec 1.0 §5.5.11):
	 * mcontrol6, NAPOT with no limit, >=/<, chain, select, hit0/hit1,
	 * size; 4 triggers (a common count, not a rule of the spec).
	 */
	RV("rv64-sdtrig", 4, 10, 1u << HWBP_RISCV_TYPE_MCONTROL6,
	   HWBP_RISCV_F_NAPOT | HWBP_RISCV_F_GE_LT | HWBP_RISCV_F_CHAIN | HWBP_RISCV_F_MASK |
		   HWBP_RISCV_F_SELECT | HWBP_RISCV_F_HIT | HWBP_RISCV_F_SIZE |
		   HWBP_RISCV_F_TVAL | F_PRIV),
	/*
	 * SiFive's trigger unit as its core manuals publish it (chapter
	 * "Debug", "Breakpoints"; read in the E31 Core Complex and FE310
	 * manuals): four breakpoint registers per hart, mcontrol (type 2)
	 * only, match exact, NAPOT up to maskmax = 4 (16 bytes) and ranges
	 * of two chained registers (lower one >=, higher one <), timing and
	 * select always 0, no hit bit, no size field.  The U74-MC manual
	 * could not be read here: this row assumes its unit is the same.
	 */
	RV("sifive-u74", 4, 13, 1u << HWBP_RISCV_TYPE_MCONTROL,
	   HWBP_RISCV_F_NAPOT | HWBP_RISCV_F_MASKMAX(4) | HWBP_RISCV_F_GE_LT |
		   HWBP_RISCV_F_CHAIN | HWBP_RISCV_F_TVAL | F_PRIV),
};

/* tdata1 bits hwbp's probe writes, for both types. */
#define PROBE_MC6_SIZE (HWBP_RISCV_MC6_SIZE_MASK << HWBP_RISCV_MC6_SIZE_SHIFT)

int hwbp_cpu_riscv_from_tinfo(unsigned ntrig, uint64_t tinfo, uint64_t probe_napot,
			      uint64_t probe_ge, struct hwbp_cpu *out)
{
	unsigned info = (unsigned)(tinfo & HWBP_RISCV_TINFO_INFO_MASK), type;
	uint32_t f = HWBP_RISCV_F_TVAL;
	uint64_t t = probe_napot;

	if (!out || ntrig == 0 || info == 1u)
		return -EINVAL;
	if ((info >> HWBP_RISCV_TYPE_MCONTROL6) & 1u)
		type = HWBP_RISCV_TYPE_MCONTROL6;
	else if ((info >> HWBP_RISCV_TYPE_MCONTROL) & 1u)
		type = HWBP_RISCV_TYPE_MCONTROL;
	else
		return -EINVAL;
	if (((probe_napot >> HWBP_RISCV_TDATA1_TYPE_SHIFT) & HWBP_RISCV_TDATA1_TYPE_MASK) != type ||
	    ((probe_ge >> HWBP_RISCV_TDATA1_TYPE_SHIFT) & HWBP_RISCV_TDATA1_TYPE_MASK) != type)
		return -EINVAL;
	if (ntrig > HWBP_MAX_SLOTS || !(t & HWBP_RISCV_MC_M))
		return -EOPNOTSUPP;
	if (t & HWBP_RISCV_MC_S)
		f |= HWBP_RISCV_F_SMODE;
	if (t & HWBP_RISCV_MC_U)
		f |= HWBP_RISCV_F_UMODE;
	if (t & HWBP_RISCV_MC_CHAIN)
		f |= HWBP_RISCV_F_CHAIN;
	if (((t >> HWBP_RISCV_MC_MATCH_SHIFT) & HWBP_RISCV_MC_MATCH_MASK) == HWBP_RISCV_MATCH_NAPOT)
		f |= HWBP_RISCV_F_NAPOT;
	if (((probe_ge >> HWBP_RISCV_MC_MATCH_SHIFT) & HWBP_RISCV_MC_MATCH_MASK) ==
	    HWBP_RISCV_MATCH_GE)
		f |= HWBP_RISCV_F_GE_LT;
	if (type == HWBP_RISCV_TYPE_MCONTROL6) {
		if (t & HWBP_RISCV_MC6_SELECT)
			f |= HWBP_RISCV_F_SELECT;
		if (t & PROBE_MC6_SIZE)
			f |= HWBP_RISCV_F_SIZE;
	} else {
		unsigned mm = (unsigned)(t >> HWBP_RISCV_MC2_MASKMAX_SHIFT) &
			      (unsigned)HWBP_RISCV_MC2_MASKMAX_MASK;

		if (t & HWBP_RISCV_MC2_SELECT)
			f |= HWBP_RISCV_F_SELECT;
		if (t & HWBP_RISCV_MC2_TIMING)
			f |= HWBP_RISCV_F_TIMING_AFTER;
		if (t & ((3ull << HWBP_RISCV_MC2_SIZELO_SHIFT) | (3ull << HWBP_RISCV_MC2_SIZEHI_SHIFT)))
			f |= HWBP_RISCV_F_SIZE;
		/* maskmax 0 with match 1 kept: NAPOT of 2^0, no range at all. */
		if (mm == 0)
			f &= ~HWBP_RISCV_F_NAPOT;
		else if (mm < 63)
			f |= HWBP_RISCV_F_MASKMAX(mm);
	}
	memset(out, 0, sizeof(*out));
	out->arch = HWBP_ARCH_RISCV;
	out->u.riscv.ntrig = (uint8_t)ntrig;
	out->u.riscv.spec = type == HWBP_RISCV_TYPE_MCONTROL6 ? 10 : 13;
	out->u.riscv.tinfo = (uint16_t)info;
	out->u.riscv.features = f;
	hwbpi_strlcpy(out->name, "riscv-tinfo", sizeof(out->name));
	return 0;
}

const struct hwbpi_arch_ops hwbpi_riscv_ops = {
	.arch = HWBP_ARCH_RISCV,
	.name = "riscv",
	.caps = riscv_caps,
	/* Every type and scope is expressible (scope: encode checks that the
	 * model has the u/s enable it needs); execute alignment is generic. */
	.check = NULL,
	.split = riscv_split,
	.piece_slots = hwbpi_riscv_piece_slots,
	.split_slots = riscv_split_slots,
	.reset = hwbpi_riscv_reset,
	.encode = hwbpi_riscv_encode,
	.decode_slot = hwbpi_riscv_decode_slot,
	.decode_status = hwbpi_riscv_decode_status,
	.regs_list = hwbpi_riscv_regs_list,
	.regs_set = hwbpi_riscv_regs_set,
	.regs_apply = hwbpi_riscv_regs_apply,
	.slot_name = hwbpi_riscv_slot_name,
	.status_set = hwbpi_riscv_status_set,
	.status_fields = hwbpi_riscv_status_fields,
	.status_hint = "cause (and tval)",
	.presets = riscv_presets,
	.npresets = sizeof(riscv_presets) / sizeof(riscv_presets[0]),
};
