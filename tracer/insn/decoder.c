/* SPDX-License-Identifier: MIT */
/*
 * The public decoder of hwbp/trace.h (hwbp_decoder_*): an arch's
 * instruction decoder (tracer/insn/insn.h) over the caller's code and
 * registers, choosing the access as the backends do (hwbpi_insn_access()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwbp/trace.h>

#include "insn/insn.h"

struct hwbp_decoder {
	const struct hwbpi_insn_arch *a;
	struct hwbpi_insn_dec *d;
	struct hwbpi_insn_regs regs;   /* the caller's, by DWARF number */
};

int hwbp_decoder_open(enum hwbp_arch arch, struct hwbp_decoder **out)
{
	const struct hwbpi_insn_arch *a = hwbpi_insn_arch(arch);
	struct hwbp_decoder *dec;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!a)
		return -EOPNOTSUPP;
	if (!(dec = calloc(1, sizeof(*dec))))
		return -ENOMEM;
	dec->a = a;
	if ((ret = a->open(&dec->d))) {
		free(dec);
		return ret;
	}
	*out = dec;
	return 0;
}

void hwbp_decoder_close(struct hwbp_decoder *d)
{
	if (!d)
		return;
	if (d->a->close)
		d->a->close(d->d);
	free(d);
}

int hwbpi_decoder_access(struct hwbp_decoder *d, const uint8_t *code, size_t n, uint64_t start,
			 uint64_t ip, const struct hwbpi_insn_regs *regs, const uint64_t *lo,
			 const uint64_t *len, unsigned nr, struct hwbp_access *acc)
{
	return hwbpi_insn_access(d->a, d->d, code, n, start, ip, regs, lo, len, nr, acc);
}

int hwbp_decoder_sample(enum hwbp_arch arch, const struct hwbp_decoder_sample **out)
{
	const struct hwbpi_insn_arch *a = hwbpi_insn_arch(arch);

	if (!out)
		return -EINVAL;
	*out = a ? a->sample : NULL;
	return *out ? 0 : -EOPNOTSUPP;
}

int hwbp_decoder_access(struct hwbp_decoder *d, const void *code, size_t n, uint64_t start,
			uint64_t ip, const uint64_t *regs, unsigned nregs, uint64_t known,
			uint64_t lo, uint64_t len, struct hwbp_access *acc)
{
	if (!d || !code || !regs || !acc || nregs > HWBPI_INSN_REGS)
		return -EINVAL;
	memset(d->regs.v, 0, sizeof(d->regs.v));
	memcpy(d->regs.v, regs, nregs * sizeof(*regs));
	d->regs.known = nregs < 64 ? known & ((UINT64_C(1) << nregs) - 1) : known;
	/* @len 0: no range, the instruction's only access. */
	return hwbpi_decoder_access(d, code, n, start, ip, &d->regs, &lo, &len, len ? 1 : 0, acc);
}
