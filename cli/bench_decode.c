/* SPDX-License-Identifier: MIT */
/*
 * hwbp bench trace, the decode row: what finding the access behind one x86
 * data hit costs (hwbp_decoder_access(), the work the ptrace and perf
 * backends add to each hit).  The code is a synthetic function of
 * BENCH_DECODE_INSNS read-modify-write instructions (`add dword ptr
 * [rbx + 0x10], 1`, 4 bytes each): each hit is a trap after one of them,
 * in turn, so that every decode walks forward from the function's start
 * as far as the hit's instruction, or, once the decoder knows that
 * instruction boundary, takes it from its cache (a loop's hits come back
 * to the same PCs).  Both are rows: a fresh decoder per round of PCs
 * ("first hit at each PC") and one kept across rounds ("a PC seen
 * before").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

#define BENCH_DECODE_INSNS 64u
#define INSN_LEN 4u
#define CODE_START 0x401000u

/* Nanoseconds per decode of @rounds rounds over every PC; @fresh: a new
 * decoder each round.  Returns < 0 when a decode fails. */
static double time_decodes(const uint8_t *code, size_t n, const uint64_t *regs, uint64_t known,
			   unsigned rounds, int fresh)
{
	struct hwbp_decoder *d = NULL;
	double t0, ns = 0;

	if (!fresh && hwbp_decoder_open(HWBP_ARCH_X86, &d))
		return -1;
	for (unsigned r = 0; r < rounds; r++) {
		/* (the open itself, Capstone's cs_open(), is not timed: a
		 * backend opens one decoder per trace) */
		if (fresh && hwbp_decoder_open(HWBP_ARCH_X86, &d))
			return -1;
		t0 = bench_now_ns();
		for (unsigned k = 1; k <= BENCH_DECODE_INSNS; k++) {
			struct hwbp_access acc;

			if (hwbp_decoder_access(d, code, n, CODE_START, CODE_START + k * INSN_LEN, regs,
						64, known, 0x6010, 4, &acc) || acc.kind != HWBP_RW) {
				hwbp_decoder_close(d);
				return -1;
			}
			bench_sink += acc.addr;
		}
		ns += bench_now_ns() - t0;
		if (fresh) {
			hwbp_decoder_close(d);
			d = NULL;
		}
	}
	hwbp_decoder_close(d);
	return ns / ((double)rounds * BENCH_DECODE_INSNS);
}

int bench_decode(unsigned rounds, struct bench_decode_result *res)
{
	static const uint8_t add_rbx[INSN_LEN] = { 0x83, 0x43, 0x10, 0x01 };
	uint8_t code[BENCH_DECODE_INSNS * INSN_LEN + 16];
	uint64_t regs[64] = { 0 }, known = 0;
	struct hwbp_decoder *probe = NULL;
	int ret;

	memset(res, 0, sizeof(*res));
	if ((ret = hwbp_decoder_open(HWBP_ARCH_X86, &probe))) {
		snprintf(res->why, sizeof(res->why), "%s", ret == -EOPNOTSUPP ?
			 "built without Capstone: hits are not decoded" : "the decoder did not open");
		return ret;
	}
	hwbp_decoder_close(probe);
	for (unsigned k = 0; k < BENCH_DECODE_INSNS; k++)
		memcpy(code + k * INSN_LEN, add_rbx, INSN_LEN);
	memset(code + BENCH_DECODE_INSNS * INSN_LEN, 0x90, 16);   /* nops past the end */
	regs[3] = 0x6000;                 /* RBX (DWARF 3) */
	regs[7] = 0x7fff0000;             /* RSP */
	regs[49] = 0x202;                 /* RFLAGS */
	known = (UINT64_C(1) << 3) | (UINT64_C(1) << 7) | (UINT64_C(1) << 49);
	res->cold_ns = time_decodes(code, sizeof(code), regs, known, rounds, 1);
	res->warm_ns = time_decodes(code, sizeof(code), regs, known, rounds * 10, 0);
	if (res->cold_ns < 0 || res->warm_ns < 0) {
		snprintf(res->why, sizeof(res->why), "a decode failed");
		return -EIO;
	}
	res->insns = BENCH_DECODE_INSNS;
	res->ok = 1;
	return 0;
}
