/* SPDX-License-Identifier: MIT */
/*
 * hwbp bench trace, the decode rows: what finding the access behind one
 * data hit costs where the CPU does not report it (hwbp_decoder_access(),
 * the work the ptrace and perf backends add to each hit), on each arch
 * with a decoder, over its sample function (hwbp_decoder_sample(): x86
 * 64 read-modify-write instructions).  Each hit is a trap after one of
 * them, in turn, so that a decode walks forward from the function's start
 * to the hit's instruction, or, once the decoder knows that instruction
 * boundary, takes it from its cache (a loop's hits come back to the same
 * PCs): "first at its PC" is a fresh decoder per round of PCs, "a PC seen
 * before" one kept across rounds.  Every answer is checked against the
 * sample's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

/* Nanoseconds per decode of @rounds rounds over every PC of @s; @fresh: a
 * new decoder each round (its open not timed: a backend opens one per
 * trace).  Returns < 0 when a decode fails or answers wrong. */
static double time_decodes(enum hwbp_arch arch, const struct hwbp_decoder_sample *s,
			   unsigned rounds, int fresh)
{
	struct hwbp_decoder *d = NULL;
	double t0, ns = 0;

	if (!fresh && hwbp_decoder_open(arch, &d))
		return -1;
	for (unsigned r = 0; r < rounds; r++) {
		if (fresh && hwbp_decoder_open(arch, &d))
			return -1;
		t0 = bench_now_ns();
		for (unsigned k = 1; k <= s->count; k++) {
			struct hwbp_access acc;

			if (hwbp_decoder_access(d, s->code, s->len, s->start,
						s->start + (uint64_t)k * s->insn_len, s->regs, 64, s->known,
						s->addr, s->size, &acc) ||
			    acc.addr != s->addr || acc.size != s->size || acc.kind != s->kind) {
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
	return ns / ((double)rounds * s->count);
}

int bench_decode(unsigned rounds, struct bench_decode_result *res)
{
	memset(res, 0, sizeof(*res));
	snprintf(res->why, sizeof(res->why), "no arch's decoder in this build (Capstone): every "
		 "arch it knows reports its accesses, or hits are not decoded");
	for (unsigned a = 0; strcmp(hwbp_arch_name((enum hwbp_arch)a), "unknown") != 0; a++) {
		const struct hwbp_decoder_sample *s;

		if (hwbp_decoder_sample((enum hwbp_arch)a, &s))
			continue;
		res->arch = hwbp_arch_name((enum hwbp_arch)a);
		res->insns = s->count;
		res->cold_ns = time_decodes((enum hwbp_arch)a, s, rounds, 1);
		res->warm_ns = time_decodes((enum hwbp_arch)a, s, rounds * 10, 0);
		if (res->cold_ns < 0 || res->warm_ns < 0) {
			snprintf(res->why, sizeof(res->why), "%s: a decode failed or answered wrong",
				 res->arch);
			return -EIO;
		}
		res->ok = 1;
		return 0;
	}
	return -EOPNOTSUPP;
}
