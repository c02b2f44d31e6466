/* SPDX-License-Identifier: MIT */
/*
 * Call stacks (tracer/backends/linux/unwind.h): --call-graph, the kernel's callchains,
 * the frame-pointer walk, and the unwinding of a stopped tracee.  The
 * DWARF unwinder is tracer/backends/linux/unwind_dwarf.c.
 *
 * References: man 2 perf_event_open (PERF_SAMPLE_CALLCHAIN, the
 * PERF_CONTEXT_* markers); kernel/events/callchain.c get_perf_callchain()
 * and arch/x86/events/core.c perf_callchain_user() (each context starts
 * with its marker, then the IP of the interrupted context, then the
 * return addresses); man 2 process_vm_readv.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "backends/linux/linux.h"
#include "backends/linux/unwind.h"

bool hwbpi_unwind_have_dwarf(void)
{
#ifdef HWBP_HAVE_LIBDW
	return true;
#else
	return false;
#endif
}

int hwbpi_callgraph_parse(const char *v, enum hwbpi_callgraph *out, char *err, size_t n)
{
	/* dwarf by default where it can run: it is right whether or not the
	 * program keeps frame pointers, and most programs do not (gcc -O1 and
	 * above, distributions' libraries); fp costs nothing in the consumer
	 * but gives short stacks there. */
	if (!v) {
		*out = hwbpi_unwind_have_dwarf() ? HWBPI_CG_DWARF : HWBPI_CG_FP;
		return 0;
	}
	if (strcmp(v, "fp") == 0) {
		*out = HWBPI_CG_FP;
		return 0;
	}
	if (strcmp(v, "dwarf") == 0) {
		if (!hwbpi_unwind_have_dwarf()) {
			hwbpi_say(err, n, "--call-graph dwarf: this hwbp was built without libdw "
				  "(-Ddwarf): EOPNOTSUPP");
			return -EOPNOTSUPP;
		}
		*out = HWBPI_CG_DWARF;
		return 0;
	}
	hwbpi_say(err, n, "bad --call-graph '%s' (fp, dwarf): EINVAL", v);
	return -EINVAL;
}

unsigned hwbpi_unwind_chain(const uint64_t *ips, uint64_t nr, uint64_t ip, bool kernel,
			    uint64_t *callers, unsigned max)
{
	uint64_t want = kernel ? PERF_CONTEXT_KERNEL : PERF_CONTEXT_USER;
	bool in = false, lead = false;
	unsigned n = 0;

	for (uint64_t i = 0; i < nr && n < max; i++) {
		uint64_t a = ips[i];

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			in = a == want;
			lead = in;
			continue;
		}
		if (!in)
			continue;
		/* The context's first entry is the interrupted IP; x86's
		 * kernel unwinder may report it once more as the first
		 * frame (perf_callchain_kernel() stores regs->ip, then
		 * unwinds from the same regs). */
		if (lead && a == ip)
			continue;
		lead = false;
		if (a == 0)
			break;
		callers[n++] = a;
	}
	return n;
}

bool hwbpi_unwind_dump_word(const struct hwbpi_stack_dump *d, uint64_t addr, uint64_t *val)
{
	if (!d || !d->data || addr < d->sp || addr - d->sp > d->len || d->len - (addr - d->sp) < 8)
		return false;
	memcpy(val, d->data + (addr - d->sp), 8);
	return true;
}

unsigned hwbpi_unwind_fp(hwbpi_unwind_read_fn rd, void *arg, const struct hwbpi_uregs *u,
			 uint64_t *callers, unsigned max)
{
	uint64_t rec = u->fp, next, ret;
	unsigned n = 0;

	if (hwbpi_linux_fp_chain == HWBPI_FP_NONE)
		return 0;
	while (n < max) {
		/* Records are 8-byte aligned and lie above the stack pointer;
		 * each is above the one before (the callee's frame is below). */
		if (rec & 7 || rec < u->sp || !rd(arg, rec, &next))
			break;
		if (hwbpi_linux_fp_chain == HWBPI_FP_RECORD) {
			if (!rd(arg, rec + 8, &ret))
				break;
		} else if (next & 7 || next <= rec || !rd(arg, next + 16, &ret)) {
			/* back chain: the return address into the caller was
			 * saved in the caller's frame */
			break;
		}
		if (ret == 0)
			break;
		callers[n++] = ret;
		if (next <= rec)
			break;
		rec = next;
	}
	return n;
}

/* ------------------------------------------------- a stopped tracee */

int hwbpi_unwinder_init(struct hwbpi_unwinder *u, enum hwbpi_callgraph mode, pid_t pid,
			char *err, size_t n)
{
	int ret = 0;

	memset(u, 0, sizeof(*u));
	if (mode == HWBPI_CG_DEFAULT && (ret = hwbpi_callgraph_parse(NULL, &mode, err, n)))
		return ret;
	u->mode = mode;
	u->buf = malloc(HWBPI_UNWIND_PTRACE_DUMP);
	if (!u->buf)
		return -ENOMEM;
	if (mode == HWBPI_CG_DWARF && (ret = hwbpi_dwunw_new(&u->dw, pid, err, n))) {
		hwbpi_unwinder_fini(u);
		return ret;
	}
	return 0;
}

void hwbpi_unwinder_fini(struct hwbpi_unwinder *u)
{
	if (!u)
		return;
	hwbpi_dwunw_free(u->dw);
	free(u->buf);
	memset(u, 0, sizeof(*u));
}

/* One word of the stopped thread's memory (outside the copy). */
static bool live_word(void *arg, uint64_t addr, uint64_t *val)
{
	const struct hwbpi_unwinder *u = arg;
	struct iovec l = { val, 8 }, r = { (void *)(uintptr_t)addr, 8 };

	return process_vm_readv(u->tid, &l, 1, &r, 1, 0) == 8;
}

/* The copy first, then the live thread. */
struct fp_read {
	struct hwbpi_unwinder *u;
	const struct hwbpi_stack_dump *d;
};

static bool fp_word(void *arg, uint64_t addr, uint64_t *val)
{
	const struct fp_read *f = arg;

	return hwbpi_unwind_dump_word(f->d, addr, val) || live_word(f->u, addr, val);
}

/*
 * The stack from SP up, in one system call: page-sized pieces, so that
 * the copy stops at the end of the stack's mapping rather than failing
 * as a whole (process_vm_readv() transfers whole iovec elements up to the
 * first one it cannot).
 */
static size_t copy_stack(pid_t tid, uint64_t sp, uint8_t *buf)
{
	enum { PIECE = 4096, PIECES = HWBPI_UNWIND_PTRACE_DUMP / PIECE };
	struct iovec l = { buf, HWBPI_UNWIND_PTRACE_DUMP }, r[PIECES + 1];
	uint64_t at = sp;
	unsigned nr = 0;
	ssize_t got;

	/* the first piece up to SP's page end, so that each piece after it
	 * is one page */
	while (nr <= PIECES && at - sp < HWBPI_UNWIND_PTRACE_DUMP) {
		uint64_t end = (at | (PIECE - 1)) + 1;

		if (end - sp > HWBPI_UNWIND_PTRACE_DUMP)
			end = sp + HWBPI_UNWIND_PTRACE_DUMP;
		r[nr].iov_base = (void *)(uintptr_t)at;
		r[nr].iov_len = (size_t)(end - at);
		nr++;
		at = end;
	}
	got = process_vm_readv(tid, &l, 1, r, nr, 0);
	return got > 0 ? (size_t)got : 0;
}

unsigned hwbpi_unwind_thread(struct hwbpi_unwinder *u, pid_t tid, uint64_t *callers,
			     unsigned max)
{
	struct hwbpi_uregs regs;
	struct hwbpi_stack_dump d;
	struct fp_read f = { u, &d };

	if (!u || !u->buf || hwbpi_linux_uregs(tid, &regs))
		return 0;
	u->tid = tid;
	d.sp = regs.sp;
	d.data = u->buf;
	d.len = copy_stack(tid, regs.sp, u->buf);
	if (u->mode == HWBPI_CG_DWARF && u->dw)
		return hwbpi_dwunw_unwind(u->dw, &regs, &d, live_word, u, callers, max);
	return hwbpi_unwind_fp(fp_word, &f, &regs, callers, max);
}
