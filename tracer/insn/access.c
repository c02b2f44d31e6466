/* SPDX-License-Identifier: MIT */
/*
 * The access of a data hit, from the instructions an arch's decoder says
 * may have trapped (tracer/insn/insn.h, hwbpi_insn_access()): the backends
 * read the code and the registers (backends/linux/access.c), the public
 * decoder takes them from its caller (decoder.c); both choose the access
 * here, the same way.
 */
#include <errno.h>
#include <stddef.h>

#include "insn/insn.h"

static bool overlaps(const struct hwbpi_insn_access *a, uint64_t lo, uint64_t len)
{
	return a->addr_known && a->addr < lo + len && lo < a->addr + a->size;
}

static void give(const struct hwbpi_insn_access *a, struct hwbp_access *acc)
{
	acc->addr = a->addr;
	acc->size = a->size;
	acc->kind = a->kind;
}

int hwbpi_insn_access(const struct hwbpi_insn_arch *a, struct hwbpi_insn_dec *d,
		      const uint8_t *code, size_t n, uint64_t start, uint64_t ip,
		      const struct hwbpi_insn_regs *regs, const uint64_t *lo, const uint64_t *len,
		      unsigned nr, struct hwbp_access *acc)
{
	const struct hwbpi_insn_access *found = NULL;
	struct hwbpi_insn in[2];
	unsigned k, i, r, ni = 0;
	int ret;

	if (!a || !a->at_trap)
		return -EOPNOTSUPP;
	if ((ret = a->at_trap(d, code, n, start, ip, regs, in, &ni)))
		return ret;
	for (k = 0; k < ni; k++)
		for (i = 0; i < in[k].n; i++)
			for (r = 0; r < nr; r++)
				if (overlaps(&in[k].acc[i], lo[r], len[r])) {
					give(&in[k].acc[i], acc);
					return 0;
				}
	/*
	 * No access touched a range: it touched only bytes the hardware
	 * watches beyond them (an enlarged piece's, or those between the
	 * watches of a shared one).  When the instruction has one access
	 * that can be located, that one raised the trap: give it, so that
	 * hwbp_decode() filters the hit rather than give it to every watch.
	 */
	for (k = 0; k < ni; k++)
		for (i = 0; i < in[k].n; i++) {
			if (!in[k].acc[i].addr_known)
				continue;
			if (found)
				return -ENOENT;   /* two candidates: which one is not known */
			found = &in[k].acc[i];
		}
	if (!found)
		return -ENOENT;
	give(found, acc);
	return 0;
}
