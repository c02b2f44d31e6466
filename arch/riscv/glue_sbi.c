/* SPDX-License-Identifier: MIT */
/*
 * RISC-V glue for a kernel running in S-mode: the triggers through its
 * SBI firmware's Debug Triggers extension (DBTR, EID 0x44425452; SBI
 * spec 3.0, chapter "Debug Triggers Extension"), since the trigger CSRs
 * are M-mode's (Debug spec 1.0 §5.5).  The same interface as glue.c
 * (glue.h); a kernel links one of the two.
 *
 * hwbp's trigger n (regs->u.riscv.tdata1[n]...) is a "logical trigger"
 * in the SBI's words: the firmware picks the hardware trigger behind it
 * and names it by an index of its own (install_triggers), which need
 * not be n.  Per hart the glue keeps, for each slot, whether an SBI
 * trigger backs it, that trigger's index and what was installed.
 *
 * Invariants of the per-hart table (struct hart):
 *  - a slot is installed iff its tdata1 could match (an address-match
 *    type with an access bit and a mode bit, §5.5.10): what hwbp writes
 *    for "nothing here" (the type alone, arch/riscv/encode.c) is never
 *    sent to the firmware, so an empty slot costs no SBI trigger;
 *  - idx[n] is the firmware's index of slot n's trigger while installed,
 *    and no two installed slots share one;
 *  - t1/t2/t3[n] are what the slot was last given (installed or not):
 *    an empty slot reads back as that (it never reaches the hardware).
 *
 * Calls made, and why these:
 *  - base extension probe_extension (FID 3), get_spec_version (FID 0),
 *    get_impl_id (FID 1), once per hart;
 *  - DBTR num_triggers(0) (FID 0), set_shmem (FID 1) once per hart, on a
 *    static 5-word buffer of that hart;
 *  - install_triggers(1) (FID 3) and disable_triggers then
 *    uninstall_triggers(idx, 1) (FID 7, 5; uninstall() says why both)
 *    for a changed slot.  One trigger per call: with one entry, both the
 *    spec's layout (§"Shared memory": 4 words, idx in word 0 on output)
 *    and OpenSBI's before 1.7 (5 words, idx in word 4; SBI spec version
 *    2.0, DBTR a draft there) read tdata1-3 from words 1-3, and the glue
 *    reads idx where the version says.  update_triggers (FID 4) is not
 *    used: before 1.7 OpenSBI took (base, mask) and changed tdata2 only,
 *    the spec takes a count and entries with idx, tdata1-3;
 *  - read_triggers(idx, 1) (FID 2) for read_regs;
 *  - disable_triggers / enable_triggers (FID 7 / 6) for a breakpoint
 *    handler that steps over an access (hwbp_rv_sbi_disable/_enable).
 *
 * Every function acts on the hart it runs on (hwbp_rv_sbi_this_cpu(),
 * the kernel's number for it, indexes the table): call it there with
 * interrupts off.  No allocation, no lock.  An ecall from S-mode traps
 * to M-mode and returns; it may be made from S-mode exception context.
 */
#include "glue.h"
#include "hwbp_libc.h"

#include <hwbp/riscv.h>

#define SBI_EXT_BASE 0x10
#define SBI_BASE_SPEC_VERSION 0
#define SBI_BASE_IMPL_ID 1
#define SBI_BASE_PROBE 3
#define SBI_IMPL_OPENSBI 1

#define SBI_EXT_DBTR 0x44425452   /* "DBTR" */
#define DBTR_NUM_TRIGGERS 0
#define DBTR_SET_SHMEM 1
#define DBTR_READ 2
#define DBTR_INSTALL 3
#define DBTR_UNINSTALL 5
#define DBTR_ENABLE 6
#define DBTR_DISABLE 7

/* SBI spec §"Standard SBI Errors". */
#define SBI_SUCCESS 0
#define SBI_ERR_FAILED (-1)
#define SBI_ERR_NOT_SUPPORTED (-2)
#define SBI_ERR_INVALID_PARAM (-3)
#define SBI_ERR_DENIED (-4)
#define SBI_ERR_INVALID_ADDRESS (-5)
#define SBI_ERR_ALREADY_AVAILABLE (-6)
#define SBI_ERR_NO_SHMEM (-9)
#define SBI_ERR_BAD_RANGE (-11)

#ifndef HWBP_RV_SBI_MAX_HARTS
#define HWBP_RV_SBI_MAX_HARTS 32
#endif

#define ACCESS (HWBP_RISCV_MC_LOAD | HWBP_RISCV_MC_STORE | HWBP_RISCV_MC_EXECUTE)
#define MODES (HWBP_RISCV_MC_U | HWBP_RISCV_MC_S | HWBP_RISCV_MC_M | HWBP_RISCV_MC6_VU | \
	       HWBP_RISCV_MC6_VS)

struct sbiret {
	long error;
	long value;
};

struct hart {
	uint64_t shmem[5];          /* one entry, either layout; first: 8-byte aligned */
	uint64_t t1[HWBP_MAX_SLOTS], t2[HWBP_MAX_SLOTS], t3[HWBP_MAX_SLOTS];
	uint64_t idx[HWBP_MAX_SLOTS];
	uint32_t installed;         /* bit n: slot n has an SBI trigger */
	uint8_t ready;              /* shmem set, ntrig known */
	uint8_t idx_word;           /* where install_triggers puts idx: 0 or 4 */
	uint8_t ntrig;
};

static struct hart harts[HWBP_RV_SBI_MAX_HARTS];

_Static_assert(HWBP_MAX_SLOTS <= 32, "struct hart's installed mask");

#if defined(__riscv) && __riscv_xlen == 64
static struct sbiret sbi_call(unsigned long eid, unsigned long fid, unsigned long a0,
			      unsigned long a1, unsigned long a2)
{
	register unsigned long r0 __asm__("a0") = a0;
	register unsigned long r1 __asm__("a1") = a1;
	register unsigned long r2 __asm__("a2") = a2;
	register unsigned long r6 __asm__("a6") = fid;
	register unsigned long r7 __asm__("a7") = eid;

	/* The shared memory is read and written by the firmware: "memory". */
	__asm__ volatile("ecall" : "+r"(r0), "+r"(r1) : "r"(r2), "r"(r6), "r"(r7) : "memory");
	return (struct sbiret){ (long)r0, (long)r1 };
}

#define CSR_READ(csr)                                                        \
	({                                                                   \
		uint64_t v_;                                                 \
		__asm__ volatile("csrr %0, " #csr : "=r"(v_));               \
		v_;                                                          \
	})
#else
/* Not a riscv64 build (a host compiling the file for its checks). */
static struct sbiret sbi_call(unsigned long eid, unsigned long fid, unsigned long a0,
			      unsigned long a1, unsigned long a2)
{
	(void)eid, (void)fid, (void)a0, (void)a1, (void)a2;
	return (struct sbiret){ SBI_ERR_NOT_SUPPORTED, 0 };
}
#define CSR_READ(csr) ((uint64_t)0)
#endif

/* An SBI error as a negative errno. */
static int sbi_errno(long e)
{
	switch (e) {
	case SBI_SUCCESS:
		return 0;
	case SBI_ERR_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case SBI_ERR_INVALID_PARAM:
	case SBI_ERR_BAD_RANGE:
		return -EINVAL;
	case SBI_ERR_DENIED:
		return -EPERM;
	case SBI_ERR_INVALID_ADDRESS:
		return -EFAULT;
	case SBI_ERR_ALREADY_AVAILABLE:
		return -EBUSY;
	case SBI_ERR_NO_SHMEM:
		return -ENOMEM;
	case SBI_ERR_FAILED:
	default:
		/* install_triggers: "failed" covers a refused configuration
		 * (OpenSBI: the m bit, dmode, a type other than 2/6) and too
		 * few free triggers alike. */
		return -EIO;
	}
}

static bool can_match(uint64_t t1)
{
	unsigned type = (unsigned)(t1 >> HWBP_RISCV_TDATA1_TYPE_SHIFT) &
			(unsigned)HWBP_RISCV_TDATA1_TYPE_MASK;

	return (type == HWBP_RISCV_TYPE_MCONTROL || type == HWBP_RISCV_TYPE_MCONTROL6) &&
	       (t1 & ACCESS) && (t1 & MODES);
}

/*
 * This hart's entry, ready: DBTR present, its trigger count and shared
 * memory set up on the first call.  NULL with *err set otherwise.
 */
static struct hart *this_hart(int *err)
{
	unsigned cpu = hwbp_rv_sbi_this_cpu();
	struct hart *h;
	struct sbiret r;

	if (cpu >= HWBP_RV_SBI_MAX_HARTS) {
		*err = -ENODEV;
		return NULL;
	}
	h = &harts[cpu];
	if (h->ready)
		return h;
	r = sbi_call(SBI_EXT_BASE, SBI_BASE_PROBE, SBI_EXT_DBTR, 0, 0);
	if (r.error || r.value == 0) {
		*err = -EOPNOTSUPP;   /* no DBTR (OpenSBI: no Sdtrig detected) */
		return NULL;
	}
	/* Spec version (major in bits 30:24): DBTR was ratified with 3.0.
	 * Before it, only OpenSBI implemented the draft (5-word entries). */
	r = sbi_call(SBI_EXT_BASE, SBI_BASE_SPEC_VERSION, 0, 0, 0);
	if (((unsigned long)r.value >> 24 & 0x7f) >= 3) {
		h->idx_word = 0;
	} else {
		r = sbi_call(SBI_EXT_BASE, SBI_BASE_IMPL_ID, 0, 0, 0);
		if (r.error || r.value != SBI_IMPL_OPENSBI) {
			*err = -EOPNOTSUPP;   /* a draft DBTR of unknown layout */
			return NULL;
		}
		h->idx_word = 4;
	}
	r = sbi_call(SBI_EXT_DBTR, DBTR_NUM_TRIGGERS, 0, 0, 0);
	if (r.error) {
		*err = sbi_errno(r.error);
		return NULL;
	}
	h->ntrig = (uint8_t)((unsigned long)r.value < HWBP_MAX_SLOTS ? r.value : HWBP_MAX_SLOTS);
	/* set_shmem(lo, hi, flags = 0): another owner's shared memory on
	 * this hart (SBI_ERR_ALREADY_AVAILABLE) is not taken over. */
	r = sbi_call(SBI_EXT_DBTR, DBTR_SET_SHMEM, hwbp_rv_sbi_pa(h->shmem), 0, 0);
	if (r.error) {
		*err = sbi_errno(r.error);
		return NULL;
	}
	h->ready = 1;
	return h;
}

/*
 * disable_triggers first: OpenSBI's uninstall writes tdata1 = 0 then
 * tdata2 = 0 (Debug spec 1.0 §5.5: writing 0 to tdata1 disables the
 * trigger), but QEMU 10 ignores a tdata1 write of type 0, and the old
 * trigger stays armed, now at address 0 (found by the riscv64-sbi
 * harness: an execute trigger left so gave mtval 0 for another one's
 * hit).  Disabled first, what stays behind has no mode bit.
 */
static int uninstall(struct hart *h, unsigned n)
{
	struct sbiret r = sbi_call(SBI_EXT_DBTR, DBTR_DISABLE, h->idx[n], 1, 0);

	if (!r.error)
		r = sbi_call(SBI_EXT_DBTR, DBTR_UNINSTALL, h->idx[n], 1, 0);
	if (r.error)
		return sbi_errno(r.error);
	h->installed &= ~(1u << n);
	return 0;
}

static int install(struct hart *h, unsigned n, uint64_t t1, uint64_t t2, uint64_t t3)
{
	struct sbiret r;

	memset(h->shmem, 0, sizeof(h->shmem));
	h->shmem[1] = t1;
	h->shmem[2] = t2;
	h->shmem[3] = t3;
	r = sbi_call(SBI_EXT_DBTR, DBTR_INSTALL, 1, 0, 0);
	if (r.error)
		return sbi_errno(r.error);
	h->idx[n] = h->shmem[h->idx_word];
	h->installed |= 1u << n;
	return 0;
}

/*
 * hwbp_glue_write_regs - make this hart's slots what @regs says.
 *
 * Slots whose tdata1-3 did not change are not touched.  Each changed
 * slot that had an SBI trigger is uninstalled, then each changed slot
 * whose tdata1 can match is installed, both in slot order.  If the
 * firmware refuses anything, what this call changed is undone (its
 * installs uninstalled, its uninstalls installed again with what they
 * held) and the first error is returned: the previous state stays.
 *
 * Errors: -EINVAL (@regs NULL or of another arch; a trigger number the
 * firmware does not know), -EOPNOTSUPP (no DBTR, or a chained trigger:
 * the SBI does not say which hardware triggers back two logical ones,
 * so a chain's partner is unknown), -ENODEV (hwbp_rv_sbi_this_cpu() past
 * HWBP_RV_SBI_MAX_HARTS), -EBUSY (this hart's DBTR shared memory is
 * someone else's), -EIO (install_triggers failed: OpenSBI refuses the m
 * bit and dmode, and fails when no trigger is free), or another SBI
 * error mapped as sbi_errno() says.  Context: on the hart it acts on,
 * interrupts off.
 */
int hwbp_glue_write_regs(const struct hwbp_regs *regs)
{
	uint32_t undo_in = 0, undo_out = 0, change = 0;
	struct hart *h;
	int err = 0;
	unsigned n;

	if (!regs || regs->arch != HWBP_ARCH_RISCV)
		return -EINVAL;
	h = this_hart(&err);
	if (!h)
		return err;
	for (n = 0; n < h->ntrig; n++) {
		uint64_t t1 = regs->u.riscv.tdata1[n];

		if (can_match(t1) && (t1 & HWBP_RISCV_MC_CHAIN))
			return -EOPNOTSUPP;
		if (t1 != h->t1[n] || regs->u.riscv.tdata2[n] != h->t2[n] ||
		    regs->u.riscv.tdata3[n] != h->t3[n])
			change |= 1u << n;
	}
	for (n = 0; n < h->ntrig && !err; n++) {
		if (!(change & h->installed & (1u << n)))
			continue;
		err = uninstall(h, n);
		if (!err)
			undo_out |= 1u << n;
	}
	for (n = 0; n < h->ntrig && !err; n++) {
		if (!(change & (1u << n)) || !can_match(regs->u.riscv.tdata1[n]))
			continue;
		err = install(h, n, regs->u.riscv.tdata1[n], regs->u.riscv.tdata2[n],
			      regs->u.riscv.tdata3[n]);
		if (!err)
			undo_in |= 1u << n;
	}
	if (err) {
		/* Back to the previous state; a second failure cannot be
		 * helped (the first error is the one to report). */
		for (n = 0; n < h->ntrig; n++)
			if (undo_in & (1u << n))
				(void)uninstall(h, n);
		for (n = 0; n < h->ntrig; n++)
			if (undo_out & (1u << n))
				(void)install(h, n, h->t1[n], h->t2[n], h->t3[n]);
		return err;
	}
	for (n = 0; n < h->ntrig; n++) {
		h->t1[n] = regs->u.riscv.tdata1[n];
		h->t2[n] = regs->u.riscv.tdata2[n];
		h->t3[n] = regs->u.riscv.tdata3[n];
	}
	return 0;
}

/*
 * hwbp_glue_read_regs - this hart's slots into @regs: an installed
 * slot's tdata1-3 as read_triggers gives them (the firmware's copy: a
 * disabled trigger reads without its mode bits), an empty one as it was
 * last written.  Where read_triggers refuses (OpenSBI 1.5 to 1.9 refuse
 * any range that reaches the last trigger: base + count >= total), the
 * glue's own copy of what it installed.  No hit bits: OpenSBI 1.5.1
 * answers from its copy, not the CSRs (measured).  Without DBTR (or the shared
 * memory), every slot as last written.  Context: as write_regs.
 */
void hwbp_glue_read_regs(struct hwbp_regs *regs)
{
	struct hart *h;
	int err = 0;

	memset(regs, 0, sizeof(*regs));
	regs->arch = HWBP_ARCH_RISCV;
	h = this_hart(&err);
	if (!h)
		return;
	for (unsigned n = 0; n < h->ntrig; n++) {
		struct sbiret r;

		regs->u.riscv.tdata1[n] = h->t1[n];
		regs->u.riscv.tdata2[n] = h->t2[n];
		regs->u.riscv.tdata3[n] = h->t3[n];
		if (!(h->installed & (1u << n)))
			continue;
		r = sbi_call(SBI_EXT_DBTR, DBTR_READ, h->idx[n], 1, 0);
		if (r.error)
			continue;
		regs->u.riscv.tdata1[n] = h->shmem[1];
		regs->u.riscv.tdata2[n] = h->shmem[2];
		regs->u.riscv.tdata3[n] = h->shmem[3];
	}
}

/*
 * hwbp_glue_read_status - first thing in the S-mode handler of a
 * breakpoint exception (the firmware delegates cause 3: medeleg bit 3):
 * scause and stval into @st, hits 0 (@st->ip, the handler's sepc, is
 * left as it is).  No error; any context.
 */
void hwbp_glue_read_status(struct hwbp_status *st)
{
	st->u.riscv.cause = CSR_READ(scause);
	st->u.riscv.tval = CSR_READ(stval);
	/* The hit bits are M-mode's; read_triggers gives OpenSBI's copy,
	 * which has none (measured, 1.5.1): hwbp_decode() goes by stval. */
	st->u.riscv.hits = 0;
}

/* Slots @slots' SBI triggers, one call each in slot order. */
static int each(uint32_t slots, unsigned long fid)
{
	struct hart *h;
	int err = 0;

	h = this_hart(&err);
	if (!h)
		return err;
	for (unsigned n = 0; n < h->ntrig; n++) {
		struct sbiret r;

		if (!(slots & h->installed & (1u << n)))
			continue;
		r = sbi_call(SBI_EXT_DBTR, fid, h->idx[n], 1, 0);
		if (r.error)
			return sbi_errno(r.error);
	}
	return 0;
}

/*
 * hwbp_rv_sbi_disable - disable_triggers for the installed slots of
 * @slots (bit n: slot n): the firmware clears their mode bits (OpenSBI:
 * u, s, vu, vs) and keeps them installed.  For a breakpoint handler that
 * lets the access complete.  Errors: as write_regs.
 */
int hwbp_rv_sbi_disable(uint32_t slots)
{
	return each(slots, DBTR_DISABLE);
}

/*
 * hwbp_rv_sbi_enable - enable_triggers for the installed slots of
 * @slots, in slot order (the firmware restores the mode bits it recorded
 * at install).  Errors: as write_regs.
 */
int hwbp_rv_sbi_enable(uint32_t slots)
{
	return each(slots, DBTR_ENABLE);
}
