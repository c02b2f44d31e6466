/* SPDX-License-Identifier: MIT */
/*
 * The arm64 decoder of insn/ (tracer/insn/insn.h).  For the tracer none
 * is needed: a watchpoint exception reports the access itself, in FAR_EL1
 * (the address a watchpoint matched, Arm ARM D2.10.5) and ESR_EL1.WnR
 * (store or load), which hwbp_decode() reads from struct hwbp_status.  So
 * at_trap is NULL and hwbpi_insn_arch() says so to the tracer's callers.
 *
 * The race detector (tracer/race/, hwbpi_insn_race_arch()) needs more:
 * which instructions of a function may race (scan) and what a sampled one
 * is about to access (at_pc), and, since the watchpoint exception comes
 * before the access (D2.10.5: the instruction has not run), what a caught
 * one will access, decoded at its PC the same way (at_pc).
 *
 * Capstone (4.0) decodes; what it does not give right is done here:
 *   - the size of an access: Capstone 4's arm64 operands have none; it is
 *     the transfer register's width (W 4, X 8, B/H/S/D/Q 1 to 16), times
 *     two for a pair, or the mnemonic's B, H, SB, SH, SW;
 *   - load or store: Capstone 4 marks the memory operand of `str q0,
 *     [x0]`, `stur` and of every writeback form read-write, and of `stxr`
 *     read: the mnemonic says (LD... reads, ST... writes);
 *   - the Armv8.1-8.4 atomics (LSE: LDADD, CAS, SWP...; LDAPR, LDAPUR,
 *     STLUR): unknown to Capstone 4, decoded from their encodings (Arm
 *     ARM C4.1, Loads and Stores) before Capstone is asked, so that they
 *     are told atomic whatever the library's version makes of them.
 * A64 instructions are 4 bytes and aligned: an undecodable word is
 * skipped (class UNWATCHABLE in the load/store group, else NOMEM), not
 * the end of the walk as on x86.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insn/insn.h"

#if HWBP_HAVE_CAPSTONE
#include <capstone/capstone.h>

/* DWARF register numbers (AADWARF64 4.1): X0-X30 0-30, SP 31. */
enum { D_FP = 29, D_SP = 31, D_ZR = 32 /* (no DWARF number: reads as zero) */ };

struct hwbpi_insn_dec {
	csh h;
	cs_insn *in;
};

/* A register's DWARF number (D_ZR for XZR/WZR, -1 for a vector or
 * system one) and its width in bytes, from its name ("x3", "w3", "sp",
 * "wsp", "xzr", "q0", "v0"...): Capstone's enum orders them differently
 * from one version to the next. */
static int reg_info(csh h, arm64_reg r, unsigned *width)
{
	const char *s = cs_reg_name(h, r);
	/* (letter, bytes) pairs of the FP/SIMD registers' names */
	static const char widths[] = "b\1h\2s\4d\10q\20v\20";
	const char *w;

	*width = 0;
	if (!s || !s[0])
		return -1;
	if (!strcmp(s, "sp") || !strcmp(s, "wsp")) {
		*width = s[0] == 'w' ? 4 : 8;
		return D_SP;
	}
	if (s[0] == 'x' || s[0] == 'w') {
		*width = s[0] == 'x' ? 8 : 4;
		return !strcmp(s + 1, "zr") ? D_ZR : atoi(s + 1);
	}
	if (!strcmp(s, "fp") || !strcmp(s, "lr")) {
		*width = 8;
		return s[0] == 'f' ? D_FP : 30;
	}
	if ((w = strchr(widths, s[0])) && (unsigned)(w - widths) % 2 == 0)
		*width = (unsigned char)w[1];
	return -1;
}

static bool reg(const struct hwbpi_insn_regs *r, int d, uint64_t *v)
{
	if (d == D_ZR) {
		*v = 0;
		return true;
	}
	if (d < 0 || d >= HWBPI_INSN_REGS || !(r->known & (UINT64_C(1) << d)))
		return false;
	*v = r->v[d];
	return true;
}

static bool prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* ---- encodings Capstone 4 does not know (Arm ARM C4.1, Loads and Stores) - */

/* An Armv8.1-8.4 atomic or RCpc access: its base register (Rn), size and
 * kind; false for any other word. */
static bool raw_atomic(uint32_t w, unsigned *rn, unsigned *size, unsigned *kind)
{
	unsigned sz = w >> 30;

	*rn = (w >> 5) & 31;
	if ((w & 0x3f200c00) == 0x38200000) {          /* LDADD..LDUMIN, SWP, LDAPR (C6.2) */
		*size = 1u << sz;
		*kind = (w & 0x0000fc00) == 0x0000c000 && ((w >> 16) & 31) == 31 ? HWBP_R
											: HWBP_RW;
		return true;
	}
	if ((w & 0x3fa07c00) == 0x08a07c00) {          /* CAS{A,L,AL}{B,H} */
		*size = 1u << sz;
		*kind = HWBP_RW;
		return true;
	}
	if ((w & 0xbfa07c00) == 0x08207c00) {          /* CASP{A,L,AL}: sz is bit 30 */
		*size = (w & 0x40000000) ? 16 : 8;
		*kind = HWBP_RW;
		return true;
	}
	if ((w & 0x3f200c00) == 0x19000000) {          /* LDAPUR*, STLUR* */
		unsigned opc = (w >> 22) & 3;

		*size = 1u << sz;
		*kind = opc == 0 ? HWBP_W : HWBP_R;
		return true;
	}
	return false;
}

/* Whether @w is in the load/store encoding group (op0 x1x0, C4.1). */
static bool raw_loadstore(uint32_t w)
{
	return (w & 0x0a000000) == 0x08000000;
}

/* MRS Xt, TPIDR_EL0 (op0 3, op1 3, CRn 13, CRm 0, op2 2): Xt, or -1. */
static int raw_mrs_tpidr(uint32_t w)
{
	return (w & 0xffffffe0) == 0xd53bd040 ? (int)(w & 31) : -1;
}

static uint32_t word(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- Capstone's instructions --------------------------------------------- */

/* The memory operand of the instruction just decoded, or NULL. */
static const cs_arm64_op *mem_operand(const struct hwbpi_insn_dec *dec)
{
	const cs_arm64 *a = &dec->in->detail->arm64;

	for (unsigned k = 0; k < a->op_count; k++)
		if (a->operands[k].type == ARM64_OP_MEM)
			return &a->operands[k];
	return NULL;
}

/* Acquire, release and exclusive accesses (Arm ARM C3.2, the load/store
 * instructions), and the LSE ones by name: atomic by the C11 mapping
 * (LDAR/STLR for seq_cst, LDXR/STXR loops or LSE for RMWs). */
static bool atomic_mnemonic(const char *m)
{
	static const char *const p[] = { "ldxr", "ldxp", "ldaxr", "ldaxp", "stxr", "stxp", "stlxr",
					 "stlxp", "ldar", "stlr", "ldlar", "stllr", "ldapr",
					 "ldapur", "stlur", "cas", "swp", "ldadd", "stadd" };

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (prefix(m, p[i]))
			return true;
	return false;
}

/* Structure loads and stores of vector registers (LD1-LD4, ST1-ST4 and
 * their replicating forms): lanes and register lists, not decoded. */
static bool structure(const char *m)
{
	return (m[0] == 'l' || m[0] == 's') && m[1] == (m[0] == 'l' ? 'd' : 't') &&
	       m[2] >= '1' && m[2] <= '4';
}

/* Exclusive stores name their status register first (STXR Ws, Xt, [Xn]). */
static bool status_first(const char *m)
{
	return prefix(m, "stxr") || prefix(m, "stxp") || prefix(m, "stlxr") || prefix(m, "stlxp");
}

/* The bytes the instruction just decoded moves (0: unknown), from its
 * mnemonic's size suffix or its transfer registers. */
static uint64_t access_size(const struct hwbpi_insn_dec *dec)
{
	const cs_arm64 *a = &dec->in->detail->arm64;
	const char *m = dec->in->mnemonic;
	size_t len = strlen(m);
	unsigned k = status_first(m) ? 1 : 0, width = 0, nregs = 0, w;

	if (prefix(m, "ldpsw"))
		return 8;
	if (len >= 2 && (!strcmp(m + len - 2, "sw")))
		return 4;
	/* LDRB, STURH, LDRSB, LDXRB, STLRH...: but not "ldnp", "ldp", "ldr" */
	if (len >= 4 && (m[len - 1] == 'b' || m[len - 1] == 'h') && m[len - 2] != 'p')
		return m[len - 1] == 'b' ? 1 : 2;
	for (; k < a->op_count && a->operands[k].type == ARM64_OP_REG; k++) {
		reg_info(dec->h, a->operands[k].reg, &w);
		width = w;
		nregs++;
	}
	if (!width || !nregs || nregs > 2)
		return 0;
	return (uint64_t)width * nregs;
}

/* Load (R) or store (W), by the mnemonic (Capstone 4's operand access is
 * not reliable on arm64, see the head comment); 0: neither. */
static unsigned access_kind(const char *m)
{
	if (prefix(m, "prfm") || prefix(m, "prfum"))
		return 0;
	if (m[0] == 'l' && m[1] == 'd')
		return HWBP_R;
	if (m[0] == 's' && m[1] == 't')
		return HWBP_W;
	return 0;
}

/* The address of memory operand @op: base + displacement + the index
 * extended and shifted (C6.2 "LDR (register)"); a post-index offset is a
 * separate operand, applied after the access, so not here.  The registers
 * are those before the instruction. */
static bool address(const struct hwbpi_insn_dec *dec, const struct hwbpi_insn_regs *r,
		    const cs_arm64_op *op, uint64_t *ea)
{
	unsigned w;
	uint64_t v;

	if (!reg(r, reg_info(dec->h, op->mem.base, &w), &v))
		return false;
	*ea = v + (uint64_t)(int64_t)op->mem.disp;
	if (op->mem.index != ARM64_REG_INVALID) {
		if (!reg(r, reg_info(dec->h, op->mem.index, &w), &v))
			return false;
		if (op->ext == ARM64_EXT_UXTW)
			v = (uint32_t)v;
		else if (op->ext == ARM64_EXT_SXTW)
			v = (uint64_t)(int64_t)(int32_t)v;
		if (op->shift.type == ARM64_SFT_LSL && op->shift.value < 64)
			v <<= op->shift.value;
		*ea += v;
	}
	return true;
}

/* ---- scan: the race detector's classes ----------------------------------- */

/* What a walk over a function knows as it goes: whether x29 is its frame
 * pointer, and which registers hold a pointer derived from TPIDR_EL0. */
struct walk {
	bool fp, saved_fp;
	unsigned k;
	uint32_t tls;                /* bit n: Xn = TPIDR_EL0 + something */
};

/* The prologue is looked for in a function's first instructions (BTI or
 * PACIASP, a SUB SP may come first). */
#define PROLOGUE_INSNS 6

/* STP X29, X30, [SP...] (@save) or MOV X29, SP / ADD X29, SP, #n: the two
 * that make x29 the frame pointer (AAPCS64 6.4.6, the frame record). */
static bool frame_step(const struct hwbpi_insn_dec *dec, bool save)
{
	const cs_arm64 *a = &dec->in->detail->arm64;
	unsigned w;

	if (a->op_count < 2 || a->operands[0].type != ARM64_OP_REG ||
	    reg_info(dec->h, a->operands[0].reg, &w) != D_FP)
		return false;
	if (save) {
		const cs_arm64_op *m = mem_operand(dec);

		return dec->in->id == ARM64_INS_STP && m && reg_info(dec->h, m->mem.base, &w) == D_SP;
	}
	return (dec->in->id == ARM64_INS_MOV || dec->in->id == ARM64_INS_ADD) &&
	       a->operands[1].type == ARM64_OP_REG &&
	       reg_info(dec->h, a->operands[1].reg, &w) == D_SP;
}

/* Follow the thread-pointer-derived registers over the instruction just
 * decoded: ADD, SUB and MOV of a tainted X register taint their
 * destination (local-exec: MRS; ADD #hi, LSL #12; ADD #lo; TLS
 * descriptors: ADD Xd, Xtp, X0), anything else written is clean again, and
 * a call clobbers X0-X18 (AAPCS64 6.1.1).  A straight walk, not a flow
 * analysis: a branch target inherits what the instruction before it left. */
static void follow_tls(const struct hwbpi_insn_dec *dec, struct walk *s)
{
	const cs_arm64 *a = &dec->in->detail->arm64;
	unsigned id = dec->in->id, w;
	int d, src;
	bool from_tp = false;

	if (id == ARM64_INS_BL || id == ARM64_INS_BLR) {
		s->tls &= ~UINT32_C(0x7ffff);
		return;
	}
	if (a->op_count < 1 || a->operands[0].type != ARM64_OP_REG || !(a->operands[0].access & CS_AC_WRITE))
		return;
	d = reg_info(dec->h, a->operands[0].reg, &w);
	if (d < 0 || d > 30)
		return;
	if ((id == ARM64_INS_ADD || id == ARM64_INS_SUB || id == ARM64_INS_MOV) && w == 8)
		for (unsigned k = 1; k < a->op_count; k++)
			if (a->operands[k].type == ARM64_OP_REG &&
			    (src = reg_info(dec->h, a->operands[k].reg, &w)) >= 0 && src <= 30 &&
			    (s->tls & (UINT32_C(1) << src)))
				from_tp = true;
	if (from_tp)
		s->tls |= UINT32_C(1) << d;
	else
		s->tls &= ~(UINT32_C(1) << d);
}

/* The class of the instruction just decoded. */
static unsigned classify(const struct hwbpi_insn_dec *dec, const struct walk *s)
{
	const char *m = dec->in->mnemonic;
	const cs_arm64_op *op = mem_operand(dec);
	unsigned w;
	int base;

	if (prefix(m, "dc") && prefix(dec->in->op_str, "zva"))
		return HWBPI_INSN_UNWATCHABLE;   /* zeroes a block of DCZID_EL0.BS words */
	/* (a literal load, LDR Xt, label, reads the code's constant pool: no
	 * writer, no race; Capstone gives its address as an immediate) */
	if (!op || !access_kind(m))
		return HWBPI_INSN_NOMEM;
	if (atomic_mnemonic(m))
		return HWBPI_INSN_ATOMIC;
	base = reg_info(dec->h, op->mem.base, &w);
	if (base == D_SP || (s->fp && base == D_FP))
		return HWBPI_INSN_STACK;
	if (base >= 0 && base <= 30 && (s->tls & (UINT32_C(1) << base)))
		return HWBPI_INSN_TLS;
	if (structure(m))
		return HWBPI_INSN_UNWATCHABLE;
	w = (unsigned)access_size(dec);
	if (!w || w > 16)
		return HWBPI_INSN_UNWATCHABLE;
	return HWBPI_INSN_PLAIN;
}

/* The class of undecodable word @w: an atomic of a later architecture
 * version, an access of unknown kind, or no access. */
static unsigned classify_raw(uint32_t w)
{
	unsigned rn, size, kind;

	if (raw_atomic(w, &rn, &size, &kind))
		return HWBPI_INSN_ATOMIC;
	return raw_loadstore(w) ? HWBPI_INSN_UNWATCHABLE : HWBPI_INSN_NOMEM;
}

static int arm64_scan(struct hwbpi_insn_dec *d, const uint8_t *code, size_t n, uint64_t start,
		      int (*each)(void *arg, uint64_t ip, unsigned len, unsigned cls), void *arg)
{
	struct walk s = { .fp = false };
	int ret;

	if (!d || !code || !each || (start & 3))
		return -EINVAL;
	for (size_t off = 0; off + 4 <= n; off += 4, s.k++) {
		const uint8_t *p = code + off;
		size_t left = 4;
		uint64_t at = start + off;
		uint32_t w = word(p);
		unsigned cls, rn, size, kind;
		int t;

		if ((t = raw_mrs_tpidr(w)) >= 0) {
			s.tls |= UINT32_C(1) << t;
			cls = HWBPI_INSN_NOMEM;
		} else if (raw_atomic(w, &rn, &size, &kind) ||
			   !cs_disasm_iter(d->h, &p, &left, &at, d->in)) {
			cls = classify_raw(w);
		} else {
			if (s.k < PROLOGUE_INSNS && !s.fp) {
				if (frame_step(d, true))
					s.saved_fp = true;
				else if (s.saved_fp && frame_step(d, false))
					s.fp = true;
			}
			cls = classify(d, &s);
			follow_tls(d, &s);
		}
		if ((ret = each(arg, start + off, 4, cls)))
			return ret;
	}
	return 0;
}

/* ---- at_pc: the access an instruction is about to make ------------------- */

static void add(struct hwbpi_insn *o, uint64_t addr, bool known, uint64_t size, unsigned kind)
{
	if (o->n == HWBPI_INSN_ACCESSES || !kind || !size)
		return;
	o->acc[o->n++] = (struct hwbpi_insn_access){ .addr = known ? addr : 0, .size = size,
						     .kind = kind, .addr_known = known };
}

/* An atomic Capstone 4 does not know, at @ip: its one access at Xn. */
static int at_pc_raw(uint32_t w, uint64_t ip, const struct hwbpi_insn_regs *regs,
		     struct hwbpi_insn *out)
{
	unsigned rn, size, kind;
	uint64_t v = 0;
	bool known;

	if (!raw_atomic(w, &rn, &size, &kind))
		return -ENOENT;
	known = reg(regs, (int)rn, &v);   /* (Rn 31 is SP here) */
	if ((w & 0x3f200c00) == 0x19000000)   /* LDAPUR/STLUR: a signed 9-bit offset */
		v += (uint64_t)((int64_t)(int32_t)(w << 11) >> 23);
	memset(out, 0, sizeof(*out));
	out->ip = ip;
	out->len = 4;
	out->atomic = true;
	snprintf(out->text, sizeof(out->text), ".inst 0x%08x (atomic)", w);
	add(out, v, known, size, kind);
	return 0;
}

static int arm64_at_pc(struct hwbpi_insn_dec *d, const uint8_t *code, size_t n, uint64_t ip,
		       const struct hwbpi_insn_regs *regs, struct hwbpi_insn *out)
{
	const uint8_t *p = code;
	uint64_t at = ip, ea = 0;
	size_t left = n;
	const cs_arm64_op *op;
	bool known;

	if (!d || !code || !regs || !out || n < 4)
		return -EINVAL;
	/* (the atomics from their encodings first, whatever Capstone's
	 * version makes of them: CAS and SWP are no LD or ST mnemonic) */
	if (at_pc_raw(word(code), ip, regs, out) == 0)
		return 0;
	if (!cs_disasm_iter(d->h, &p, &left, &at, d->in))
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->ip = ip;
	out->len = 4;
	snprintf(out->text, sizeof(out->text), "%.31s%s%.31s", d->in->mnemonic,
		 d->in->op_str[0] ? " " : "", d->in->op_str);
	if (!(op = mem_operand(d)) || !access_kind(d->in->mnemonic) || structure(d->in->mnemonic))
		return 0;
	known = address(d, regs, op, &ea);
	add(out, ea, known, access_size(d), access_kind(d->in->mnemonic));
	out->atomic = out->n && atomic_mnemonic(d->in->mnemonic);
	return 0;
}

static int arm64_open(struct hwbpi_insn_dec **out)
{
	struct hwbpi_insn_dec *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &d->h) != CS_ERR_OK) {
		free(d);
		return -ENOMEM;
	}
	cs_option(d->h, CS_OPT_DETAIL, CS_OPT_ON);
	if (!(d->in = cs_malloc(d->h))) {
		cs_close(&d->h);
		free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

static void arm64_close(struct hwbpi_insn_dec *d)
{
	if (!d)
		return;
	cs_free(d->in, 1);
	cs_close(&d->h);
	free(d);
}

const struct hwbpi_insn_arch hwbpi_insn_arm64 = {
	.name = "arm64 (Capstone; the hardware reports a hit's access)",
	.at_trap = NULL,
	.scan = arm64_scan,
	.at_pc = arm64_at_pc,
	.open = arm64_open,
	.close = arm64_close,
};

#else /* !HWBP_HAVE_CAPSTONE */

static int arm64_open(struct hwbpi_insn_dec **out)
{
	(void)out;
	return -EOPNOTSUPP;   /* built without Capstone (-Ddecode=disabled) */
}

const struct hwbpi_insn_arch hwbpi_insn_arm64 = {
	.name = "arm64 (the hardware reports the access)",
	.at_trap = NULL,
	.open = arm64_open,
	.close = NULL,
};

#endif
