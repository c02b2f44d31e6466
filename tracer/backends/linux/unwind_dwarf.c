/* SPDX-License-Identifier: MIT */
/*
 * DWARF call stacks (tracer/backends/linux/unwind.h) with libdw's unwinder (libdwfl):
 * one Dwfl per trace, its modules reported once from /proc/PID/maps, and
 * a thread state of our own (dwfl_attach_state()) whose memory is a copy
 * of the thread's stack, so that one code path serves a perf sample
 * (PERF_SAMPLE_STACK_USER, read long after the hit) and a stopped tracee
 * (its stack copied in one process_vm_readv()).
 *
 * The cache: the unwinder is given only the registers of struct
 * hwbpi_uregs (hwbpi_linux_uregs: PC, SP, the frame pointer, the link
 * register), so the frames it finds are a function of those and of the
 * words it reads; an unwind records the words, and a later start with
 * the same registers whose recorded words read the same again has the
 * same frames: a loop's hits cost one unwind per distinct path plus a
 * check of a few words each.  (Registers left out, such as x86's RBX, are
 * ones compiled code never computes a frame address from; a CFI rule that
 * needed one would end that stack early, not make it wrong.)
 *
 * References: elfutils libdwfl.h (Dwfl_Thread_Callbacks,
 * dwfl_thread_state_registers, dwfl_getthread_frames, dwfl_frame_pc: the
 * first frame is the activation, the others return addresses).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/linux/linux.h"
#include "backends/linux/unwind.h"

#ifdef HWBP_HAVE_LIBDW
#include <elfutils/libdwfl.h>
#include <gelf.h>

#define CACHE_SLOTS 256u          /* a power of two */
#define CACHE_READS 144u          /* two words a frame at the deepest --stack, and CFA
				     expressions' few */

struct word_read {
	uint64_t addr, val;
	bool ok;
};

struct centry {
	bool used, complete;      /* complete: every read recorded (else never matched) */
	uint64_t pc;
	uint64_t regs[HWBPI_UREGS_MAX];
	unsigned max, nreads, ncallers;
	struct word_read reads[CACHE_READS];
	uint64_t callers[HWBPI_STACK_MAX];
};

struct hwbpi_dwunw {
	Dwfl *dwfl;
	/* the unwind under way */
	const struct hwbpi_uregs *u;
	const struct hwbpi_stack_dump *dump;
	hwbpi_unwind_read_fn rd;
	void *rd_arg;
	bool first;
	uint64_t *out;
	unsigned n, max;
	struct centry *rec;       /* the entry being recorded */
	struct centry *cache;     /* [CACHE_SLOTS] */
	struct hwbpi_dwunw_stats st;
};

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

/* A word of a read-only part of the module at @addr, from its file: what
 * the process had mapped there, even after it moved on or ended. */
static bool file_word(Dwfl *dwfl, uint64_t addr, uint64_t *val)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, addr);
	GElf_Addr bias;
	Elf *e = m ? dwfl_module_getelf(m, &bias) : NULL;
	size_t n;

	if (!e || elf_getphdrnum(e, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t a = addr - bias;
		Elf_Data *dt;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || (ph.p_flags & PF_W))
			continue;
		if (a < ph.p_vaddr || a - ph.p_vaddr > ph.p_filesz || ph.p_filesz - (a - ph.p_vaddr) < 8)
			continue;
		dt = elf_getdata_rawchunk(e, (int64_t)(ph.p_offset + (a - ph.p_vaddr)), 8, ELF_T_BYTE);
		if (!dt || !dt->d_buf)
			return false;
		memcpy(val, dt->d_buf, 8);
		return true;
	}
	return false;
}

/* A word as the unwind under way sees memory: the stack copy, then the
 * caller's reader or the module files. */
static bool word(struct hwbpi_dwunw *d, uint64_t addr, uint64_t *val)
{
	if (hwbpi_unwind_dump_word(d->dump, addr, val))
		return true;
	if (d->rd)
		return d->rd(d->rd_arg, addr, val);
	return file_word(d->dwfl, addr, val);
}

/* ---- the thread callbacks: one thread, the one being unwound ---- */

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	(void)thread_argp;
	return 0;   /* no list of threads: dwfl_getthread_frames() names one */
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct hwbpi_dwunw *d = arg;
	uint64_t v = 0;
	bool ok = word(d, addr, &v);

	(void)dwfl;
	if (d->rec->nreads < CACHE_READS)
		d->rec->reads[d->rec->nreads++] = (struct word_read){ addr, v, ok };
	else
		d->rec->complete = false;
	*result = v;
	return ok;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct hwbpi_dwunw *d = arg;

	for (unsigned i = 0; i < d->u->n; i++) {
		Dwarf_Word v = d->u->val[i];

		if (!dwfl_thread_state_registers(thread, (int)d->u->dwarf[i], 1, &v))
			return false;
	}
	/* The PC on its own: on arm64 and powerpc libdw would otherwise take
	 * the return address register (the link register) for it. */
	dwfl_thread_state_register_pc(thread, d->u->pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/* ---- setup ---- */

static int open_elf(Dwfl_Module *m, void **userdata, const char *name, Dwarf_Addr start,
		    void *arg)
{
	GElf_Addr bias;

	(void)userdata;
	(void)name;
	(void)start;
	(void)arg;
	dwfl_module_getelf(m, &bias);
	return DWARF_CB_OK;
}

int hwbpi_dwunw_new(struct hwbpi_dwunw **out, pid_t pid, char *err, size_t n)
{
	struct hwbpi_dwunw *d = calloc(1, sizeof(*d));
	int ret;

	*out = NULL;
	if (!d || !(d->cache = calloc(CACHE_SLOTS, sizeof(*d->cache))) ||
	    !(d->rec = calloc(1, sizeof(*d->rec))) || !(d->dwfl = dwfl_begin(&proc_callbacks))) {
		hwbpi_dwunw_free(d);
		return -ENOMEM;
	}
	dwfl_report_begin(d->dwfl);
	ret = dwfl_linux_proc_report(d->dwfl, pid);
	if (dwfl_report_end(d->dwfl, NULL, NULL) != 0 && ret == 0)
		ret = -1;
	if (ret) {
		/* an errno of reading /proc/PID/maps, or libdw's own error */
		hwbpi_say(err, n, "--call-graph dwarf: the modules of process %d: %s", (int)pid,
			  ret > 0 ? strerror(ret) : dwfl_errmsg(-1));
		hwbpi_dwunw_free(d);
		return ret == ENOENT ? -ESRCH : ret > 0 ? -ret : -EIO;
	}
	/* Every file opened now, while the process and its /proc entries
	 * exist (the vDSO is read from its memory): its samples may be
	 * unwound after it ended. */
	dwfl_getmodules(d->dwfl, open_elf, NULL, 0);
	if (!dwfl_attach_state(d->dwfl, NULL, pid, &thread_callbacks, d)) {
		hwbpi_say(err, n, "--call-graph dwarf: libdw cannot unwind process %d: %s", (int)pid,
			  dwfl_errmsg(-1));
		hwbpi_dwunw_free(d);
		return -EIO;
	}
	*out = d;
	return 0;
}

void hwbpi_dwunw_free(struct hwbpi_dwunw *d)
{
	if (!d)
		return;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d->cache);
	free(d->rec);
	free(d);
}

/* ---- unwinding ---- */

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct hwbpi_dwunw *d = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (d->first) {
		d->first = false;   /* the PC itself: not a caller */
		return DWARF_CB_OK;
	}
	if (pc == 0)
		return DWARF_CB_ABORT;
	/* A frame interrupted by a signal is its exact PC, not a return
	 * address: one past it names its function as a return address does. */
	d->out[d->n++] = activation ? pc + 1 : pc;
	return d->n < d->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned slot_of(const struct hwbpi_uregs *u)
{
	uint64_t h = u->pc * 0x9e3779b97f4a7c15ull;

	for (unsigned i = 0; i < u->n; i++)
		h = (h ^ u->val[i]) * 0x9e3779b97f4a7c15ull;
	return (unsigned)(h >> 40) & (CACHE_SLOTS - 1);
}

/* Whether @e was recorded from the same start and its words read the same. */
static bool matches(struct hwbpi_dwunw *d, const struct centry *e, const struct hwbpi_uregs *u,
		    unsigned max)
{
	if (!e->used || !e->complete || e->pc != u->pc || e->max != max)
		return false;
	for (unsigned i = 0; i < u->n; i++)
		if (e->regs[i] != u->val[i])
			return false;
	for (unsigned i = 0; i < e->nreads; i++) {
		uint64_t v = 0;
		bool ok = word(d, e->reads[i].addr, &v);

		if (ok != e->reads[i].ok || (ok && v != e->reads[i].val))
			return false;
	}
	return true;
}

unsigned hwbpi_dwunw_unwind(struct hwbpi_dwunw *d, const struct hwbpi_uregs *u,
			    const struct hwbpi_stack_dump *dump, hwbpi_unwind_read_fn rd, void *arg,
			    uint64_t *callers, unsigned max)
{
	uint64_t t0 = now_ns();
	struct centry *e, *r;

	if (!d || !u || max == 0)
		return 0;
	if (max > HWBPI_STACK_MAX)
		max = HWBPI_STACK_MAX;
	d->u = u;
	d->dump = dump;
	d->rd = rd;
	d->rd_arg = arg;
	d->st.unwinds++;
	e = &d->cache[slot_of(u)];
	if (matches(d, e, u, max)) {
		memcpy(callers, e->callers, e->ncallers * sizeof(*callers));
		d->st.cached++;
		d->st.ns_cached += now_ns() - t0;
		return e->ncallers;
	}
	r = d->rec;
	memset(r, 0, offsetof(struct centry, reads));
	r->complete = true;
	d->first = true;
	d->out = r->callers;
	d->n = 0;
	d->max = max;
	/* Any TID: the one thread of cb_get_thread().  An error ends the
	 * stack where the unwinder lost the way (an unknown module, a word
	 * beyond the copy); the frames found until then stand. */
	dwfl_getthread_frames(d->dwfl, dwfl_pid(d->dwfl), frame_cb, d);
	r->used = true;
	r->pc = u->pc;
	memcpy(r->regs, u->val, sizeof(r->regs));
	r->max = max;
	r->ncallers = d->n;
	memcpy(callers, r->callers, d->n * sizeof(*callers));
	*e = *r;   /* the slot's entry now (a copy: the recording buffer stays) */
	d->st.ns_unwound += now_ns() - t0;
	return r->ncallers;
}

void hwbpi_dwunw_stats(const struct hwbpi_dwunw *d, struct hwbpi_dwunw_stats *st)
{
	if (d)
		*st = d->st;
	else
		memset(st, 0, sizeof(*st));
}

#else /* !HWBP_HAVE_LIBDW */

int hwbpi_dwunw_new(struct hwbpi_dwunw **out, pid_t pid, char *err, size_t n)
{
	(void)pid;
	*out = NULL;
	hwbpi_say(err, n, "--call-graph dwarf: this hwbp was built without libdw (-Ddwarf): "
		  "EOPNOTSUPP");
	return -EOPNOTSUPP;
}

void hwbpi_dwunw_free(struct hwbpi_dwunw *d)
{
	(void)d;
}

unsigned hwbpi_dwunw_unwind(struct hwbpi_dwunw *d, const struct hwbpi_uregs *u,
			    const struct hwbpi_stack_dump *dump, hwbpi_unwind_read_fn rd, void *arg,
			    uint64_t *callers, unsigned max)
{
	(void)d;
	(void)u;
	(void)dump;
	(void)rd;
	(void)arg;
	(void)callers;
	(void)max;
	return 0;
}

void hwbpi_dwunw_stats(const struct hwbpi_dwunw *d, struct hwbpi_dwunw_stats *st)
{
	(void)d;
	memset(st, 0, sizeof(*st));
}

#endif /* HWBP_HAVE_LIBDW */
