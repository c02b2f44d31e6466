/* SPDX-License-Identifier: MIT */
/*
 * The x86-64 decoder of insn/ (tracer/insn/insn.h): which instruction a
 * data breakpoint's #DB came after, and its memory accesses, from the
 * registers at the trap.  A data breakpoint is a trap (Intel SDM Vol. 3B
 * 17.2.5: reported after the instruction completed, RIP past it), so the
 * instruction is the one that ends at the reported RIP, found by decoding
 * forward from a known boundary; except a REP string instruction, which
 * traps after the iteration that matched, with RIP still on it until RCX
 * runs out (17.3.1.2).
 *
 * Capstone (4.0) decodes and gives each explicit operand's access.  What
 * it does not give is added here:
 *   - the stack accesses of PUSH, POP, CALL and RET (implicit: no
 *     operand), at RSP after the instruction;
 *   - CMPXCHG's write: Capstone 4 marks its destination read only, but the
 *     processor always writes it (SDM Vol. 2A CMPXCHG: "the destination
 *     operand is written back if the comparison fails"), so RW;
 *   - SSE and AVX stores: Capstone 4.0.2 marks the memory operand of
 *     `movups xmmword ptr [rdi], xmm0`, `vmovdqu ymmword ptr [rsi], ymm3`
 *     and most other vector stores as read (movaps alone is right).  No
 *     SSE or AVX instruction reads and writes memory, and the destination
 *     is the first operand: a vector instruction's memory operand is
 *     written when it comes first, read otherwise;
 *   - the string instructions' addresses: RSI and RDI have already moved
 *     by the element size (backwards with RFLAGS.DF) when the trap comes.
 * An address whose base or index register the instruction itself wrote
 * (mov rax, [rax]) cannot be computed from the registers after it: that
 * access is reported without its address.  LEA and the hint NOPs have a
 * memory operand but access no memory: none.
 *
 * For the race detector (tracer/race/), the same decoder walks a
 * function's instructions and classes each (scan: what cannot race by
 * definition, and why), and decodes the instruction a thread is stopped
 * on, before it runs (at_pc: the registers still hold its address, even
 * where it loads into its own base).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insn/insn.h"

#if HWBP_HAVE_CAPSTONE
#include <capstone/capstone.h>

/* x86-64 DWARF register numbers (psABI 3.6.2). */
enum { D_RAX = 0, D_RDX, D_RCX, D_RBX, D_RSI, D_RDI, D_RBP, D_RSP, D_R8, D_RIP = 16,
       D_RFLAGS = 49, D_FSBASE = 58, D_GSBASE = 59 };
#define RFLAGS_DF (1u << 10)

/* Where the instruction that ends at a trap's PC starts, for PCs seen
 * before from the same boundary: a hit in a loop is decoded from there,
 * not from its function's start again (direct-mapped by PC; checked on
 * use: the instruction found there must still end at the PC; the caller
 * reopens the decoder when the code may have changed: an exec). */
#define BOUNDS 256

struct hwbpi_insn_dec {
	csh h;
	cs_insn *in;
	struct { uint64_t pc, start, at; } bound[BOUNDS];
};

/* The DWARF number of a 64-bit general register (or its 32-, 16- or 8-bit
 * part, for a 32-bit address), -1 for any other. */
static int dwarf_of(x86_reg r)
{
	static const struct { x86_reg r[4]; int d; } map[] = {
		{ { X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL }, D_RAX },
		{ { X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL }, D_RDX },
		{ { X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL }, D_RCX },
		{ { X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL }, D_RBX },
		{ { X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL }, D_RSI },
		{ { X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL }, D_RDI },
		{ { X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL }, D_RBP },
		{ { X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL }, D_RSP },
		{ { X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B }, D_R8 },
		{ { X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B }, D_R8 + 1 },
		{ { X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B }, D_R8 + 2 },
		{ { X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B }, D_R8 + 3 },
		{ { X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B }, D_R8 + 4 },
		{ { X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B }, D_R8 + 5 },
		{ { X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B }, D_R8 + 6 },
		{ { X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B }, D_R8 + 7 },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		for (unsigned k = 0; k < 4; k++)
			if (map[i].r[k] == r)
				return map[i].d;
	return -1;
}

static bool reg(const struct hwbpi_insn_regs *r, int d, uint64_t *v)
{
	if (d < 0 || d >= HWBPI_INSN_REGS || !(r->known & (UINT64_C(1) << d)))
		return false;
	*v = r->v[d];
	return true;
}

/* Whether the instruction wrote general register @d (Capstone's list of
 * the registers it writes, explicit and implicit). */
static bool writes(const struct hwbpi_insn_dec *dec, int d)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;

	if (d < 0 || cs_regs_access(dec->h, dec->in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return d >= 0;
	for (unsigned i = 0; i < nwr; i++)
		if (dwarf_of((x86_reg)wr[i]) == d)
			return true;
	return false;
}

static void add(struct hwbpi_insn *o, uint64_t addr, bool known, uint64_t size, unsigned kind)
{
	if (o->n == HWBPI_INSN_ACCESSES || !kind || !size)
		return;
	o->acc[o->n++] = (struct hwbpi_insn_access){ .addr = known ? addr : 0, .size = size,
						     .kind = kind, .addr_known = known };
}

static unsigned kind_of(uint8_t access)
{
	return (access & CS_AC_READ ? HWBP_R : 0) | (access & CS_AC_WRITE ? HWBP_W : 0);
}

/* A string instruction's element at RSI or RDI: the register moved by
 * the element's size after each iteration (@before: not yet). */
static void string_op(struct hwbpi_insn *o, const struct hwbpi_insn_regs *r, const cs_x86_op *op,
		      bool before)
{
	int d = dwarf_of(op->mem.base);
	uint64_t v = 0, fl = 0;
	bool known = reg(r, d, &v) && reg(r, D_RFLAGS, &fl);

	if (known && !before)
		v = fl & RFLAGS_DF ? v + op->size : v - op->size;
	add(o, v, known, op->size, kind_of(op->access));
}

/* An explicit memory operand's address: segment base + base + index *
 * scale + displacement (RIP-relative: from the next instruction).  With
 * @before the registers are those before the instruction: a register it
 * writes still holds the address's part. */
static void mem_op(const struct hwbpi_insn_dec *dec, struct hwbpi_insn *o,
		   const struct hwbpi_insn_regs *r, const cs_x86_op *op, unsigned kind, bool before)
{
	const x86_op_mem *m = &op->mem;
	uint64_t ea = (uint64_t)m->disp, v = 0;
	bool known = true;

	if (m->base == X86_REG_RIP) {
		ea += o->ip + o->len;
	} else if (m->base != X86_REG_INVALID) {
		int d = dwarf_of(m->base);

		known = reg(r, d, &v) && (before || !writes(dec, d));
		ea += v;
	}
	if (known && m->index != X86_REG_INVALID) {
		int d = dwarf_of(m->index);

		known = reg(r, d, &v) && (before || !writes(dec, d));
		ea += v * (uint64_t)m->scale;
	}
	if (known && m->segment == X86_REG_FS)
		known = reg(r, D_FSBASE, &v), ea += v;
	else if (known && m->segment == X86_REG_GS)
		known = reg(r, D_GSBASE, &v), ea += v;
	if (dec->in->detail->x86.addr_size == 4)
		ea &= 0xffffffffu;
	add(o, ea, known, op->size, kind);
}

/* The stack slot of a PUSH, POP, CALL or RET: RSP after the instruction
 * points at what a PUSH or CALL wrote; a POP or RET read the slot below
 * (a POP into RSP itself leaves nothing to compute from). */
static bool stack_op(const struct hwbpi_insn_dec *dec, struct hwbpi_insn *o,
		     const struct hwbpi_insn_regs *r)
{
	unsigned id = dec->in->id;
	uint64_t sp = 0;
	bool known = reg(r, D_RSP, &sp);

	switch (id) {
	case X86_INS_PUSH:
	case X86_INS_CALL:
		add(o, sp, known, 8, HWBP_W);
		return true;
	case X86_INS_POP:
		add(o, sp - 8, known && !(dec->in->detail->x86.op_count &&
					  dec->in->detail->x86.operands[0].type == X86_OP_REG &&
					  dec->in->detail->x86.operands[0].reg == X86_REG_RSP), 8, HWBP_R);
		return true;
	case X86_INS_RET:
		add(o, sp - 8, known, 8, HWBP_R);
		return true;
	default:
		return false;
	}
}

/* An SSE, AVX or MMX instruction (Capstone's groups). */
static bool simd(const struct hwbpi_insn_dec *dec)
{
	static const uint8_t groups[] = { X86_GRP_SSE1, X86_GRP_SSE2, X86_GRP_SSE3, X86_GRP_SSSE3,
					  X86_GRP_SSE41, X86_GRP_SSE42, X86_GRP_SSE4A, X86_GRP_AVX,
					  X86_GRP_AVX2, X86_GRP_AVX512, X86_GRP_MMX, X86_GRP_3DNOW,
					  X86_GRP_F16C, X86_GRP_FMA, X86_GRP_FMA4, X86_GRP_XOP,
					  X86_GRP_AES, X86_GRP_SHA };

	for (size_t i = 0; i < sizeof(groups); i++)
		if (cs_insn_group(dec->h, dec->in, groups[i]))
			return true;
	return false;
}

static bool is_string(unsigned id)
{
	switch (id) {
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD: case X86_INS_CMPSQ:
	case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
		return true;
	default:
		return false;
	}
}

/* The accesses of the instruction just decoded, from the registers after
 * it (or with @before, before it: then without its implicit stack
 * slot). */
static void accesses(const struct hwbpi_insn_dec *dec, const struct hwbpi_insn_regs *r,
		     struct hwbpi_insn *o, bool before)
{
	const cs_x86 *x = &dec->in->detail->x86;
	unsigned id = dec->in->id;
	bool string = is_string(id);

	o->n = 0;
	o->rep = string && (x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE);
	for (unsigned k = 0; k < x->op_count; k++) {
		const cs_x86_op *op = &x->operands[k];
		unsigned kind = kind_of(op->access);

		/* LEA computes an address and NOP [mem] is a hint: no access
		 * (Capstone 4 gives LEA's operand a read). */
		if (op->type != X86_OP_MEM || !kind || id == X86_INS_LEA || id == X86_INS_NOP)
			continue;
		if (id == X86_INS_CMPXCHG || id == X86_INS_CMPXCHG8B || id == X86_INS_CMPXCHG16B)
			kind = HWBP_R | HWBP_W;
		else if (simd(dec))
			kind = k == 0 ? HWBP_W : HWBP_R;
		if (string)
			string_op(o, r, op, before);
		else
			mem_op(dec, o, r, op, kind, before);
	}
	if (!before)
		stack_op(dec, o, r);
	o->atomic = o->n && (x->prefix[0] == X86_PREFIX_LOCK || id == X86_INS_XCHG);
}

static void fill(const struct hwbpi_insn_dec *dec, const struct hwbpi_insn_regs *r,
		 struct hwbpi_insn *o, bool before)
{
	memset(o, 0, sizeof(*o));
	o->ip = dec->in->address;
	o->len = dec->in->size;
	/* (cut at the field's end: it names the instruction in messages) */
	snprintf(o->text, sizeof(o->text), "%.31s%s%.31s", dec->in->mnemonic,
		 dec->in->op_str[0] ? " " : "", dec->in->op_str);
	accesses(dec, r, o, before);
}

static int x86_at_trap(struct hwbpi_insn_dec *d, const uint8_t *code, size_t n, uint64_t start,
		       uint64_t ip, const struct hwbpi_insn_regs *regs, struct hwbpi_insn out[2],
		       unsigned *nout)
{
	const uint8_t *p = code;
	uint64_t at = start;
	size_t left = n;

	unsigned b = (unsigned)(ip ^ ip >> 8) % BOUNDS;
	uint64_t found = 0;

	*nout = 0;
	if (ip < start || ip > start + n)
		return -EINVAL;
	if (d->bound[b].pc == ip && d->bound[b].start == start && d->bound[b].at >= start &&
	    d->bound[b].at < ip)
		found = d->bound[b].at;
	else {
		/* Forward from the boundary, without operand details (the
		 * costly part of a decode), to the instruction that ends at
		 * @ip (x86 instructions do not overlap on one path). */
		cs_option(d->h, CS_OPT_DETAIL, CS_OPT_OFF);
		while (at < ip && cs_disasm_iter(d->h, &p, &left, &at, d->in))
			if (d->in->address + d->in->size == ip) {
				found = d->in->address;
				break;
			}
		cs_option(d->h, CS_OPT_DETAIL, CS_OPT_ON);
	}
	if (found) {
		p = code + (found - start);
		left = (size_t)(ip - found);
		at = found;
		if (cs_disasm_iter(d->h, &p, &left, &at, d->in) && d->in->address + d->in->size == ip) {
			fill(d, regs, &out[(*nout)++], false);
			d->bound[b].pc = ip;
			d->bound[b].start = start;
			d->bound[b].at = found;
		}
	}
	/* A REP string instruction at @ip: one of its iterations, not done. */
	if (ip < start + n) {
		p = code + (ip - start);
		left = n - (size_t)(ip - start);
		at = ip;
		if (cs_disasm_iter(d->h, &p, &left, &at, d->in) && is_string(d->in->id)) {
			struct hwbpi_insn tmp;

			fill(d, regs, &tmp, false);
			if (tmp.rep)
				out[(*nout)++] = tmp;
		}
	}
	return *nout ? 0 : -ENOENT;
}

/* ---- the race detector's side: classes and sampled instructions ---- */

/* Whether the operand is one of its own thread's stack slots: based on
 * RSP, or on RBP where the function keeps its frame there (@fp). */
static bool stack_mem(const x86_op_mem *m, bool fp)
{
	int d = dwarf_of(m->base);

	return d == D_RSP || (fp && d == D_RBP);
}

/* Memory operands that touch no data: an address computed (LEA), a hint
 * (NOP with an operand, prefetches), the cache line flushed. */
static bool no_data(unsigned id)
{
	switch (id) {
	case X86_INS_LEA: case X86_INS_NOP: case X86_INS_PREFETCH: case X86_INS_PREFETCHNTA:
	case X86_INS_PREFETCHT0: case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2:
	case X86_INS_PREFETCHW: case X86_INS_CLFLUSH: case X86_INS_CLFLUSHOPT:
		return true;
	default:
		return false;
	}
}

/* An instruction whose only memory access is its own stack slot. */
static bool implicit_stack(unsigned id)
{
	switch (id) {
	case X86_INS_PUSH: case X86_INS_POP: case X86_INS_CALL: case X86_INS_RET:
	case X86_INS_LEAVE: case X86_INS_ENTER: case X86_INS_PUSHFQ: case X86_INS_POPFQ:
		return true;
	default:
		return false;
	}
}

/* The class (enum hwbpi_insn_class) of the instruction just decoded, in
 * a function that keeps its frame in RBP when @fp. */
static unsigned classify(const struct hwbpi_insn_dec *dec, bool fp)
{
	const cs_x86 *x = &dec->in->detail->x86;
	unsigned id = dec->in->id, nmem = 0, nstack = 0;
	bool tls = false, wide = false, odd = false;

	if (no_data(id))
		return HWBPI_INSN_NOMEM;
	for (unsigned k = 0; k < x->op_count; k++) {
		const cs_x86_op *op = &x->operands[k];

		if (op->type != X86_OP_MEM)
			continue;
		nmem++;
		nstack += stack_mem(&op->mem, fp);
		tls |= op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS;
		wide |= op->size > 16 || op->size == 0;
		/* an index that is no general register (a gather's vector) */
		odd |= op->mem.index != X86_REG_INVALID && dwarf_of(op->mem.index) < 0;
		odd |= !kind_of(op->access);
	}
	if (!nmem)
		return implicit_stack(id) ? HWBPI_INSN_STACK : HWBPI_INSN_NOMEM;
	if (is_string(id))
		return HWBPI_INSN_STRING;
	if (x->prefix[0] == X86_PREFIX_LOCK)
		return HWBPI_INSN_LOCKED;
	if (id == X86_INS_XCHG)
		return HWBPI_INSN_ATOMIC;   /* SDM Vol. 2B XCHG: locked whatever the prefix */
	if (tls)
		return HWBPI_INSN_TLS;
	if (id == X86_INS_CALL || id == X86_INS_JMP)
		return HWBPI_INSN_BRANCH;
	if (wide || odd)
		return HWBPI_INSN_UNWATCHABLE;
	return nstack == nmem ? HWBPI_INSN_STACK : HWBPI_INSN_PLAIN;
}

/* Whether the instruction just decoded is PUSH RBP (@push) or MOV RBP,
 * RSP: the two that make RBP the frame pointer. */
static bool frame_step(const struct hwbpi_insn_dec *dec, bool push)
{
	const cs_x86 *x = &dec->in->detail->x86;

	if (push)
		return dec->in->id == X86_INS_PUSH && x->op_count == 1 &&
		       x->operands[0].type == X86_OP_REG && x->operands[0].reg == X86_REG_RBP;
	return dec->in->id == X86_INS_MOV && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
	       x->operands[0].reg == X86_REG_RBP && x->operands[1].type == X86_OP_REG &&
	       x->operands[1].reg == X86_REG_RSP;
}

/* The prologue is looked for in a function's first instructions (ENDBR64
 * and a register push or two may come first). */
#define PROLOGUE_INSNS 4

static int x86_scan(struct hwbpi_insn_dec *d, const uint8_t *code, size_t n, uint64_t start,
		    int (*each)(void *arg, uint64_t ip, unsigned len, unsigned cls), void *arg)
{
	const uint8_t *p = code;
	uint64_t at = start;
	size_t left = n;
	unsigned k = 0;
	bool pushed = false, fp = false;
	int ret;

	if (!d || !code || !each)
		return -EINVAL;
	/* Forward over the function: x86 code has no instruction boundary
	 * to resynchronise on, so the walk ends at the first undecodable
	 * byte (cs_disasm_iter() fails there). */
	while (left && cs_disasm_iter(d->h, &p, &left, &at, d->in)) {
		if (k++ < PROLOGUE_INSNS && !fp) {
			if (frame_step(d, true))
				pushed = true;
			else if (pushed && frame_step(d, false))
				fp = true;
		}
		if ((ret = each(arg, d->in->address, d->in->size, classify(d, fp))))
			return ret;
	}
	return 0;
}

static int x86_at_pc(struct hwbpi_insn_dec *d, const uint8_t *code, size_t n, uint64_t ip,
		     const struct hwbpi_insn_regs *regs, struct hwbpi_insn *out)
{
	const uint8_t *p = code;
	uint64_t at = ip;
	size_t left = n;

	if (!d || !code || !regs || !out)
		return -EINVAL;
	if (!cs_disasm_iter(d->h, &p, &left, &at, d->in))
		return -ENOENT;
	fill(d, regs, out, true);
	return 0;
}

static int x86_open(struct hwbpi_insn_dec **out)
{
	struct hwbpi_insn_dec *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->h) != CS_ERR_OK) {
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

static void x86_close(struct hwbpi_insn_dec *d)
{
	if (!d)
		return;
	cs_free(d->in, 1);
	cs_close(&d->h);
	free(d);
}

/* The sample (hwbp_decoder_sample()): 64 times `add dword ptr [rbx +
 * 0x10], 1` (83 43 10 01: a read-modify-write of 4 bytes at RBX + 16),
 * then NOPs; RBX 0x6000, RSP and RFLAGS as a process has them. */
#define SAMPLE_ADD 0x83, 0x43, 0x10, 0x01
#define SAMPLE_ADD4 SAMPLE_ADD, SAMPLE_ADD, SAMPLE_ADD, SAMPLE_ADD
#define SAMPLE_ADD16 SAMPLE_ADD4, SAMPLE_ADD4, SAMPLE_ADD4, SAMPLE_ADD4
#define SAMPLE_NOP4 0x90, 0x90, 0x90, 0x90
static const uint8_t sample_code[] = {
	SAMPLE_ADD16, SAMPLE_ADD16, SAMPLE_ADD16, SAMPLE_ADD16,
	SAMPLE_NOP4, SAMPLE_NOP4, SAMPLE_NOP4, SAMPLE_NOP4,
};
static const struct hwbp_decoder_sample x86_sample = {
	.code = sample_code, .len = sizeof(sample_code), .start = 0x401000,
	.insn_len = 4, .count = 64,
	.regs = { [3] = 0x6000, [7] = 0x7fff0000, [49] = 0x202 },
	.known = (UINT64_C(1) << 3) | (UINT64_C(1) << 7) | (UINT64_C(1) << 49),
	.addr = 0x6010, .size = 4, .kind = HWBP_RW,
};

const struct hwbpi_insn_arch hwbpi_insn_x86 = {
	.name = "x86-64 (Capstone)",
	.at_trap = x86_at_trap,
	.scan = x86_scan,
	.at_pc = x86_at_pc,
	.open = x86_open,
	.close = x86_close,
	.sample = &x86_sample,
};

#else /* !HWBP_HAVE_CAPSTONE */

static int x86_open(struct hwbpi_insn_dec **out)
{
	(void)out;
	return -EOPNOTSUPP;   /* built without Capstone (-Ddecode=disabled) */
}

const struct hwbpi_insn_arch hwbpi_insn_x86 = {
	.name = "x86-64 (no decoder: built without Capstone)",
	.at_trap = NULL,
	.open = x86_open,
	.close = NULL,
};

#endif
