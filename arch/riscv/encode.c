/* SPDX-License-Identifier: MIT */
/*
 * RISC-V encoder: one piece into trigger n's tdata1/tdata2 (two triggers
 * for a chained pair), and the register list for printing / raw setting.
 *
 * tdata1 (Debug spec 1.0 §5.5.10 mcontrol, §5.5.11 mcontrol6): type in
 * bits 63:60, dmode 0 (M-mode may write the trigger), action 0 (raise a
 * breakpoint exception), select 0 (match the address), load / store /
 * execute from the piece's type, u / s / m from the scope, match and
 * size from the piece's shape, chain = 1 on the first of a pair.
 * mcontrol's timing stays 0 (before).  tdata3 (textra) stays 0: no
 * context match.
 */

#include "riscv.h"

static uint64_t type_bits(const struct hwbp_cpu *cpu)
{
	return (uint64_t)hwbpi_riscv_type(cpu) << HWBP_RISCV_TDATA1_TYPE_SHIFT;
}

/*
 * Nothing armed: each trigger holds an address-match type with no
 * load/store/execute and no mode bit, which never matches (§5.5.10: both
 * must be set).  Not tdata1 = 0: QEMU 10.0 ignores a tdata1 write of type
 * 0 (tdata_csr_write(): TRIGGER_TYPE_NO_EXIST), so the old trigger would
 * stay armed.  The type is the lowest the trigger supports (mcontrol
 * before mcontrol6), which is what a two-type trigger holds at reset
 * (QEMU: riscv_trigger_reset_hold(), type 2): the registers of a CPU
 * nothing was armed on are hwbp's unarmed ones.
 */
void hwbpi_riscv_reset(const struct hwbp_cpu *cpu, struct hwbp_regs *regs)
{
	uint64_t t = (cpu->u.riscv.tinfo >> HWBP_RISCV_TYPE_MCONTROL) & 1u ? HWBP_RISCV_TYPE_MCONTROL
									   : hwbpi_riscv_type(cpu);

	memset(&regs->u.riscv, 0, sizeof(regs->u.riscv));
	for (unsigned n = 0; n < hwbpi_riscv_ntrig(cpu); n++)
		regs->u.riscv.tdata1[n] = t << HWBP_RISCV_TDATA1_TYPE_SHIFT;
}

/*
 * u / s / m for a scope.  "kernel" is S-mode and M-mode: an S-mode kernel
 * (Linux) runs in S, a bare-metal kernel (the glue's harness) in M; a
 * model without S-mode has M alone, one whose triggers are the SBI's
 * (HWBP_RISCV_F_SBI) S alone.  0 when the model lacks the u bit a user
 * scope needs.
 */
static uint64_t priv_bits(const struct hwbp_cpu *cpu, enum hwbp_scope scope)
{
	uint64_t k = HWBP_RISCV_MC_M, u = HWBP_RISCV_MC_U;

	if (hwbpi_riscv_has(cpu, HWBP_RISCV_F_SMODE))
		k |= HWBP_RISCV_MC_S;
	if (hwbpi_riscv_has(cpu, HWBP_RISCV_F_SBI))
		k &= ~HWBP_RISCV_MC_M;
	if (!hwbpi_riscv_has(cpu, HWBP_RISCV_F_UMODE))
		u = 0;
	switch (scope) {
	case HWBP_SCOPE_USER:
		return u;
	case HWBP_SCOPE_KERNEL:
		return k;
	case HWBP_SCOPE_BOTH:
		return u ? (u | k) : 0;
	}
	return 0;
}

static uint64_t access_bits(unsigned type)
{
	switch (type) {
	case HWBP_R:
		return HWBP_RISCV_MC_LOAD;
	case HWBP_W:
		return HWBP_RISCV_MC_STORE;
	case HWBP_RW:
		return HWBP_RISCV_MC_LOAD | HWBP_RISCV_MC_STORE;
	case HWBP_X:
		return HWBP_RISCV_MC_EXECUTE;
	}
	return 0;
}

static uint64_t match_bits(unsigned match)
{
	return (uint64_t)match << HWBP_RISCV_MC_MATCH_SHIFT;
}

/* The size field for @code (0 any, 1 one byte, 2 two bytes...). */
static uint64_t size_bits(const struct hwbp_cpu *cpu, unsigned code)
{
	if (hwbpi_riscv_type(cpu) == HWBP_RISCV_TYPE_MCONTROL6)
		return (uint64_t)code << HWBP_RISCV_MC6_SIZE_SHIFT;
	return (uint64_t)(code & 3u) << HWBP_RISCV_MC2_SIZELO_SHIFT |
	       (uint64_t)(code >> 2) << HWBP_RISCV_MC2_SIZEHI_SHIFT;
}

int hwbpi_riscv_encode(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		       unsigned slot, bool inst, const struct hwbp_piece *piece,
		       enum hwbp_scope scope, bool local)
{
	uint64_t base = type_bits(cpu), priv = priv_bits(cpu, scope), acc;
	uint64_t t1, t2, t1b = 0, t2b = 0;
	unsigned n = hwbpi_riscv_ntrig(cpu);
	bool pair = false, exec = piece->type == HWBP_X;

	(void)local; /* x86 only */
	(void)inst;  /* one pool: the piece's type says execute or data */
	acc = access_bits(piece->type);
	if (!priv || !acc || slot >= n || piece->len == 0)
		return -EINVAL;
	/* An execute piece is whole parcels: instructions start on 2 bytes. */
	if (exec && ((piece->addr | piece->len) & (HWBP_RISCV_INST_LEN - 1)))
		return -EINVAL;
	base |= priv | acc;   /* action 0, dmode 0, select 0, timing 0 */

	switch (hwbpi_riscv_shape(cpu, exec, piece->addr, piece->len)) {
	case RV_EXACT:
		/* The byte at tdata2, or the instruction there. */
		t1 = base | match_bits(HWBP_RISCV_MATCH_EQUAL);
		t2 = piece->addr;
		break;
	case RV_SIZED:
		/* QEMU's reading of size: 1 and 2 bytes, 0 for 8. */
		t1 = base | match_bits(HWBP_RISCV_MATCH_EQUAL) |
		     size_bits(cpu, piece->len == 8 ? 0 : (unsigned)piece->len);
		t2 = piece->addr;
		break;
	case RV_NAPOT:
		/* §5.5: tdata2 = base | (len/2 - 1): the trailing ones
		 * give the size (2^(ones + 1) bytes). */
		t1 = base | match_bits(HWBP_RISCV_MATCH_NAPOT);
		t2 = piece->addr | (piece->len / 2 - 1);
		break;
	case RV_GE_TOP:
		t1 = base | match_bits(HWBP_RISCV_MATCH_GE);
		t2 = piece->addr;
		break;
	case RV_NONE:
	default:
		/* Any range: trigger n >= start with chain = 1, trigger
		 * n + 1 < end; both must match (§5.5, chain). */
		if (!hwbpi_riscv_pairs(cpu) || slot + 1 >= n || piece->addr + piece->len == 0)
			return -EINVAL;
		pair = true;
		t1 = base | match_bits(HWBP_RISCV_MATCH_GE) | HWBP_RISCV_MC_CHAIN;
		t2 = piece->addr;
		t1b = base | match_bits(HWBP_RISCV_MATCH_LT);
		t2b = piece->addr + piece->len;
		break;
	}
	regs->u.riscv.tdata1[slot] = t1;
	regs->u.riscv.tdata2[slot] = t2;
	regs->u.riscv.tdata3[slot] = 0;
	if (pair) {
		regs->u.riscv.tdata1[slot + 1] = t1b;
		regs->u.riscv.tdata2[slot + 1] = t2b;
		regs->u.riscv.tdata3[slot + 1] = 0;
	}
	return 0;
}

/* Names "tdata1_<n>", "tdata2_<n>", "tdata3_<n>": trigger n's registers. */
static const char *const prefixes[] = { "tdata1_", "tdata2_", "tdata3_" };

static uint64_t *reg_ptr(struct hwbp_regs *regs, unsigned which, unsigned n)
{
	if (which == 0)
		return &regs->u.riscv.tdata1[n];
	if (which == 1)
		return &regs->u.riscv.tdata2[n];
	return &regs->u.riscv.tdata3[n];
}

int hwbpi_riscv_regs_list(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
			  struct hwbp_reg_nv *out, int max)
{
	int i = 0;

	for (unsigned n = 0; n < hwbpi_riscv_ntrig(cpu); n++) {
		for (unsigned w = 0; w < 3 && i < max; w++) {
			memset(&out[i], 0, sizeof(out[i]));
			hwbpi_fmt_name(out[i].name, sizeof(out[i].name), prefixes[w], n, true);
			out[i].value = *reg_ptr((struct hwbp_regs *)regs, w, n);
			i++;
		}
	}
	return i;
}

/* Decimal trigger number without sign or leading zeros, or -1. */
static int parse_index(const char *s)
{
	int v = 0;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] != '\0'))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > HWBP_MAX_SLOTS)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

int hwbpi_riscv_regs_set(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
			 const char *name, uint64_t value)
{
	for (unsigned w = 0; w < 3; w++) {
		int n;

		if (!hwbpi_starts(name, prefixes[w]))
			continue;
		n = parse_index(name + hwbpi_strlen(prefixes[w]));
		if (n < 0 || (unsigned)n >= hwbpi_riscv_ntrig(cpu))
			return -ENOENT;
		*reg_ptr(regs, w, (unsigned)n) = value;
		return 0;
	}
	return -ENOENT;
}

/*
 * The glue writes every trigger's tdata1-3 (hit bits included: a write
 * of tdata1 clears them), and there is no status register to keep.
 */
void hwbpi_riscv_regs_apply(struct hwbp_regs *live, const struct hwbp_regs *written)
{
	live->u.riscv = written->u.riscv;
}

/* One pool: "t0".."t15" (the tselect value). */
size_t hwbpi_riscv_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf,
			     size_t n)
{
	(void)cpu;
	(void)inst;
	return hwbpi_fmt_name(buf, n, "t", slot, true);
}
