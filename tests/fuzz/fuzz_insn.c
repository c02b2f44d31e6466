/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the instruction decoders (tracer/insn/insn.h) on
 * arbitrary code, an arbitrary trap PC and arbitrary registers: code read
 * from a traced process is input like any other (a program may jump into
 * the middle of an instruction, or be rewritten).  Input: one byte for the
 * PC's offset past the start, one for which registers are known, 18
 * registers (x86-64 DWARF 0-16 and RFLAGS), then the code.  Properties
 * checked (a violation traps):
 *
 *  - at_trap returns 0, -ENOENT or -EINVAL (the PC outside the code), and
 *    0 with one or two instructions only;
 *  - each instruction found lies in the code and ends at the PC, or is a
 *    REP string instruction that starts at it;
 *  - each has at most HWBPI_INSN_ACCESSES accesses, each of a kind R, W or
 *    both and a size of 1 to 64 bytes, its address 0 when not known.
 */
#include <stdbool.h>

#include "fuzz_common.h"
#include "insn/insn.h"

#define START UINT64_C(0x400000)

static const uint8_t dwarf[18] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 49 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hwbpi_insn_dec *d;
	const struct hwbpi_insn_arch *a = hwbpi_insn_arch(HWBP_ARCH_X86);
	struct fz f = { data, size };
	struct hwbpi_insn_regs r;
	struct hwbpi_insn out[2];
	unsigned n = 0, off, known;
	int ret;

	if (!a || (!d && a->open(&d)))
		return 0;   /* a build without Capstone: nothing decodes */
	off = fz_u8(&f);
	known = fz_u8(&f);
	memset(&r, 0, sizeof(r));
	for (unsigned i = 0; i < sizeof(dwarf); i++) {
		r.v[dwarf[i]] = fz_u64(&f);
		if (known & (1u << (i % 8)))
			r.known |= UINT64_C(1) << dwarf[i];
	}
	ret = a->at_trap(d, f.p, f.n, START, START + off, &r, out, &n);
	CHECK(ret == 0 || ret == -ENOENT || ret == -EINVAL);
	CHECK(ret != -EINVAL || off > f.n);
	CHECK(ret != 0 || (n >= 1 && n <= 2));
	for (unsigned k = 0; ret == 0 && k < n; k++) {
		const struct hwbpi_insn *in = &out[k];

		CHECK(in->len >= 1 && in->len <= 15);
		CHECK(in->ip >= START && in->ip - START + in->len <= f.n);
		CHECK(in->ip + in->len == START + off || (in->rep && in->ip == START + off));
		CHECK(in->n <= HWBPI_INSN_ACCESSES);
		for (unsigned i = 0; i < in->n; i++) {
			const struct hwbpi_insn_access *x = &in->acc[i];

			CHECK(x->kind >= 1 && x->kind <= (HWBP_R | HWBP_W));
			CHECK(x->size >= 1 && x->size <= 64);
			CHECK(x->addr_known || x->addr == 0);
		}
	}
	return 0;
}
