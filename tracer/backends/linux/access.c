/* SPDX-License-Identifier: MIT */
/*
 * The access behind a data hit, decoded (linux.h, hwbpi_hit_access()):
 * where the arch's exception does not report it (x86), the instruction
 * that trapped is found by decoding forward from its function's start
 * (the symbol table's), in the code read from the process (or from
 * /proc/kcore for the kernel's), and its accesses are worked out from the
 * registers at the trap (tracer/insn/insn.h): a stopped thread's (ptrace)
 * or a perf sample's trap frame (PERF_SAMPLE_REGS_INTR).  The one that touches a watched range
 * is the hit's: its address, size and kind then filter and attribute the
 * hit exactly (hwbp_decode()'s @acc), with no store-only twin.
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "backends/linux/linux.h"

/* The most code read before the trap's PC: a function longer than this
 * is decoded from this far back only if that is its start. */
#define CODE_MAX 65536
#define INSN_MAX 15            /* the longest x86 instruction */

struct hwbpi_hit_dec {
	struct hwbp_decoder *dec;      /* @arch's (hwbp/trace.h) */
	enum hwbp_arch arch;
	uint8_t code[CODE_MAX + INSN_MAX];
	/* the code last read, kept: the hits of one function read it once
	 * (a program that rewrote its code there would be misread); tid 0:
	 * the kernel's */
	pid_t tid;
	bool have;
	uint64_t at, len;
};

int hwbpi_hit_dec_open(enum hwbp_arch arch, struct hwbpi_hit_dec **out)
{
	struct hwbpi_hit_dec *h;
	int ret;

	*out = NULL;
	if (!(h = calloc(1, sizeof(*h))))
		return -ENOMEM;
	if ((ret = hwbp_decoder_open(arch, &h->dec))) {
		free(h);
		return ret;
	}
	h->arch = arch;
	*out = h;
	return 0;
}

void hwbpi_hit_dec_close(struct hwbpi_hit_dec *h)
{
	if (!h)
		return;
	hwbp_decoder_close(h->dec);
	free(h);
}

void hwbpi_hit_dec_forget(struct hwbpi_hit_dec *h)
{
	struct hwbp_decoder *d;

	if (!h)
		return;
	h->have = false;
	h->tid = 0;
	h->len = 0;
	/* the decoder's own memory of instruction boundaries too */
	if (hwbp_decoder_open(h->arch, &d) == 0) {
		hwbp_decoder_close(h->dec);
		h->dec = d;
	}
}

/* @len bytes of code at @addr into @dst: @tid's memory (tid 0: the
 * kernel's, from /proc/kcore), or, once the process has ended (perf reads
 * its samples after the fact), the file @syms loaded it from.  Errors:
 * -EFAULT, hwbpi_kcore_read()'s. */
static int read_code(pid_t tid, const struct hwbp_symtab *syms, uint64_t addr, void *dst,
		     size_t len)
{
	struct iovec l = { dst, len }, r = { (void *)(uintptr_t)addr, len };

	if (tid == 0)
		return hwbpi_kcore_read(NULL, addr, dst, len);
	if (process_vm_readv(tid, &l, 1, &r, 1, 0) == (ssize_t)len)
		return 0;
	return hwbpi_symtab_read_file(syms, addr, dst, len) ? -EFAULT : 0;
}

int hwbpi_hit_access_regs(struct hwbpi_hit_dec *h, pid_t tid, const struct hwbp_symtab *syms,
			  uint64_t ip, const uint64_t *regv, uint64_t known, const uint64_t *lo,
			  const uint64_t *len, unsigned nr, struct hwbp_access *acc)
{
	const struct hwbp_sym *f;
	struct hwbpi_insn_regs regs;
	uint64_t start;
	int ret;

	if (!h || !syms || ip == 0)
		return -EOPNOTSUPP;
	/* The trapping instruction ends at @ip: its function is the one
	 * holding ip - 1 (a REP iteration's PC is the instruction itself,
	 * in the same function). */
	if (!(f = hwbp_symtab_func(syms, ip - 1)) || ip - f->addr > CODE_MAX)
		return -ENOENT;
	start = f->addr;
	if (!h->have || h->tid != tid || h->at != start || h->len < ip - start + INSN_MAX) {
		/* up to the longest instruction past the PC (a REP iteration
		 * is there), or, at the end of a mapping, up to the PC */
		uint64_t want = ip - start + INSN_MAX;

		h->have = false;
		h->len = 0;
		if (read_code(tid, syms, start, h->code, (size_t)want)) {
			want = ip - start;
			if ((ret = read_code(tid, syms, start, h->code, (size_t)want)))
				return ret;
		}
		h->have = true;
		h->tid = tid;
		h->at = start;
		h->len = want;
	}
	memcpy(regs.v, regv, sizeof(regs.v));
	regs.known = known;
	if ((ret = hwbpi_decoder_access(h->dec, h->code, (size_t)h->len, start, ip, &regs, lo, len,
					nr, acc)))
		return ret;
	acc->priv = tid != 0;
	return 0;
}

int hwbpi_hit_access(struct hwbpi_hit_dec *h, pid_t tid, const struct hwbp_symtab *syms, uint64_t ip,
		     const uint64_t *lo, const uint64_t *len, unsigned nr, struct hwbp_access *acc)
{
	uint64_t v[HWBPI_INSN_REGS], known;
	int ret;

	if (!h || !syms || ip == 0)
		return -EOPNOTSUPP;
	if ((ret = hwbpi_linux_dwarf_regs(tid, v, HWBPI_INSN_REGS, &known)))
		return ret;
	return hwbpi_hit_access_regs(h, tid, syms, ip, v, known, lo, len, nr, acc);
}
