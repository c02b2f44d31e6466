// SPDX-License-Identifier: MIT
/*
 * The filter of hwbp_ksym.ko (kernel/linux/ksym.h): each watch is planned
 * by hwbp (hwbp_plan(): numeric lengths, an unaligned range split into
 * aligned pieces; never enlarged, HWBP_REQ_EXACT, so no piece watches a
 * byte the user did not ask for and no hit needs filtering: an x86
 * handler could filter an enlarged or shared piece only by decoding the
 * instruction that trapped, and the kernel's decoder is not a module's to
 * call: arch/x86/lib/insn.c's insn_decode(), insn_init() and insn-eval.c's
 * insn_get_addr_ref() are not exported (Debian's 6.1 amd64
 * Module.symvers has none of them; its headers carry asm/insn.h but not
 * insn.c or the generated inat tables), nor is kallsyms_lookup_name()
 * since 5.7, so no piece is shared either) and each
 * piece registered on every CPU with Linux's breakpoint API
 * (register_wide_hw_breakpoint(), kernel/events/hw_breakpoint.c), whose
 * slot accounting (toggle_bp_slot()) refuses what other users hold.
 *
 * Locking: ksym_mutex serialises writers and readers of the watch
 * table.  A hit runs ksym_hist_hit() where the arch allows a handler of
 * ours (ksym_arch_handler_ok()), else only Linux's code (see
 * watch_events()); a watch is freed only after
 * unregister_wide_hw_breakpoint() of all its pieces returned.
 */
#include <linux/err.h>
#include <linux/hw_breakpoint.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ksym.h"

DEFINE_MUTEX(ksym_mutex);
unsigned ksym_hist_entries = KSYM_HIST_ENTRIES;
static struct kwatch *watches[KSYM_MAX_WATCH];
static struct hwbp_cpu model;

int ksym_filter_init(void)
{
	return ksym_model(&model);
}

bool ksym_filter_busy(void)
{
	unsigned i;

	for (i = 0; i < KSYM_MAX_WATCH; i++)
		if (watches[i])
			return true;
	return false;
}

/*
 * The events' own counts: every piece's, every CPU's.  Where no handler
 * of ours may run, the histogram's only source: on arm64 a handler of
 * ours would hang the kernel, its watchpoint handler stepping over the
 * access only for perf's default one (arch/arm64/kernel/hw_breakpoint.c
 * watchpoint_handler(), is_default_overflow_handler()), else the access
 * traps again and again (a soft lockup, seen in the arm64 guest).  (An
 * access that matches two pieces counts in both.)
 */
static s64 watch_events(const struct kwatch *w)
{
	u64 enabled, running;
	s64 n = 0;
	unsigned i;
	int cpu;

	for (i = 0; i < w->plan.n; i++)
		for_each_online_cpu(cpu)
			n += (s64)perf_event_read_value(per_cpu(*w->bp[i], cpu), &enabled, &running);
	return n;
}

static void unregister_pieces(struct kwatch *w, unsigned n)
{
	while (n--)
		unregister_wide_hw_breakpoint(w->bp[n]);
}

/* Linux's breakpoint type for a piece of hwbp type @t. */
static unsigned bp_type(unsigned t)
{
	switch (t) {
	case HWBP_W:
		return HW_BREAKPOINT_W;
	case HWBP_X:
		return HW_BREAKPOINT_X;
	case HWBP_R:
		return HW_BREAKPOINT_R;
	default:
		return HW_BREAKPOINT_RW;
	}
}

static int register_pieces(struct kwatch *w)
{
	unsigned i;

	for (i = 0; i < w->plan.n; i++) {
		struct perf_event_attr attr;

		hw_breakpoint_init(&attr);
		attr.bp_addr = w->plan.piece[i].addr;
		attr.bp_len = w->plan.piece[i].len;
		attr.bp_type = bp_type(w->plan.type);
		w->bp[i] = register_wide_hw_breakpoint(&attr, ksym_arch_handler_ok() ?
						       ksym_hist_hit : NULL, w);
		if (IS_ERR((void __force *)w->bp[i])) {
			int ret = PTR_ERR((void __force *)w->bp[i]);

			unregister_pieces(w, i);
			return ret;
		}
	}
	return 0;
}

/* "r-w" style letters into a type (0: "---"); -EINVAL if malformed. */
static int parse_type(const char *t, size_t n, unsigned *type)
{
	if (n != 3 || (t[0] != 'r' && t[0] != '-') || (t[1] != 'w' && t[1] != '-') ||
	    (t[2] != 'x' && t[2] != '-'))
		return -EINVAL;
	*type = (t[0] == 'r' ? HWBP_R : 0) | (t[1] == 'w' ? HWBP_W : 0) | (t[2] == 'x' ? HWBP_X : 0);
	/* an execute watch is alone: "rwx" is not a type */
	return (*type & HWBP_X) && *type != HWBP_X ? -EINVAL : 0;
}

/* The line without its newline, split at its last ':' into the target
 * and the type; the target "*" or "0xADDR/LEN". */
static int parse_line(const char *s, size_t n, bool *all, uint64_t *addr, uint64_t *len,
		      unsigned *type)
{
	const char *colon, *slash;
	int ret;

	if (n && s[n - 1] == '\n')
		n--;
	if (n == 0 || memchr(s, '\n', n))
		return -EINVAL;
	/* the last ':' (a target never holds one) */
	for (colon = s + n; colon > s && colon[-1] != ':'; colon--)
		;
	if (colon == s)
		return -EINVAL;
	colon--;
	ret = parse_type(colon + 1, n - (size_t)(colon + 1 - s), type);
	if (ret)
		return ret;
	*all = colon - s == 1 && s[0] == '*';
	if (*all)
		return *type ? -EINVAL : 0;
	if (colon - s < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -ENOENT;   /* a name: the module resolves none */
	slash = memchr(s, '/', (size_t)(colon - s));
	if (!slash)
		return -EINVAL;
	if (hwbp_parse_u64n(s, (size_t)(slash - s), addr) ||
	    hwbp_parse_u64n(slash + 1, (size_t)(colon - slash - 1), len) || *len == 0)
		return -EINVAL;
	return 0;
}

static int find(uint64_t addr, uint64_t len)
{
	int i;

	for (i = 0; i < KSYM_MAX_WATCH; i++)
		if (watches[i] && watches[i]->addr == addr && watches[i]->len == len)
			return i;
	return -1;
}

/* The slots of the pool a watch of @type plans in that our watches hold
 * now (x86: one pool for both). */
static unsigned used_slots(const struct hwbp_caps *caps, bool inst)
{
	unsigned i, n = 0;

	for (i = 0; i < KSYM_MAX_WATCH; i++)
		if (watches[i] && (caps->shared || watches[i]->plan.inst == inst))
			n += watches[i]->plan.n;
	return n;
}

static int add(uint64_t addr, uint64_t len, unsigned type)
{
	struct hwbp_request req = { addr, len, type, HWBP_SCOPE_KERNEL,
				    HWBP_REQ_EXACT | HWBP_REQ_WIDEN };
	struct hwbp_caps caps;
	struct kwatch *w;
	unsigned pool, used;
	int slot = find(addr, len), ret, i;

	if (slot >= 0)
		return -EEXIST;
	for (i = 0; i < KSYM_MAX_WATCH && watches[i]; i++)
		;
	if (i == KSYM_MAX_WATCH)
		return -ENOSPC;
	ret = hwbp_caps_get(&model, &caps);
	if (ret)
		return ret;
	pool = type == HWBP_X && !caps.shared ? caps.inst_slots : caps.data_slots;
	used = used_slots(&caps, type == HWBP_X);
	/* (hwbp_plan()'s 0 means the whole pool: none left is ours to say) */
	if (used >= pool)
		return -ENOSPC;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->id = (unsigned)i;
	w->addr = addr;
	w->len = len;
	w->type = type;
	/* An x86 RW hit does not say whether it read or wrote: '?', as in
	 * hwbp trace with no twin or value to tell. */
	w->kind = type == HWBP_W || type == HWBP_X ? type : 0;
	w->n = ksym_hist_entries;
	/* The planner's own errors: -EINVAL, -EFAULT (not a kernel
	 * address), -ERANGE, -ENOSPC (no exact plan in the slots left). */
	ret = hwbp_plan(&model, &req, pool - used, &w->plan);
	if (ret == -ERANGE)
		ret = -ENOSPC;
	/* (the histograms before the pieces: a hit may come at once) */
	if (ret == 0)
		ret = ksym_hist_alloc(w);
	if (ret == 0) {
		ret = register_pieces(w);
		if (ret)
			ksym_hist_free(w);
	}
	if (ret) {
		kfree(w);
		return ret;
	}
	watches[i] = w;
	return 0;
}

static void drop(int i)
{
	unregister_pieces(watches[i], watches[i]->plan.n);
	ksym_hist_free(watches[i]);
	kfree(watches[i]);
	watches[i] = NULL;
}

int ksym_filter_write(const char *line, size_t n)
{
	uint64_t addr = 0, len = 0;
	unsigned type = 0;
	bool all = false;
	int ret = parse_line(line, n, &all, &addr, &len, &type), i;

	if (ret)
		return ret;
	mutex_lock(&ksym_mutex);
	if (all) {
		for (i = 0; i < KSYM_MAX_WATCH; i++)
			if (watches[i])
				drop(i);
	} else if (type == 0) {
		i = find(addr, len);
		if (i < 0)
			ret = -ENOENT;
		else
			drop(i);
	} else {
		ret = add(addr, len, type);
	}
	mutex_unlock(&ksym_mutex);
	return ret;
}

static void show_line(struct seq_file *m, const struct kwatch *w)
{
	seq_printf(m, "0x%llx/%llu:%c%c%c", (unsigned long long)w->addr, (unsigned long long)w->len,
		   w->type & HWBP_R ? 'r' : '-', w->type & HWBP_W ? 'w' : '-',
		   w->type & HWBP_X ? 'x' : '-');
}

void ksym_filter_show(struct seq_file *m)
{
	int i;

	mutex_lock(&ksym_mutex);
	for (i = 0; i < KSYM_MAX_WATCH; i++)
		if (watches[i]) {
			show_line(m, watches[i]);
			seq_putc(m, '\n');
		}
	mutex_unlock(&ksym_mutex);
}

int ksym_filter_hist(struct seq_file *m, bool raw)
{
	int ret;

	mutex_lock(&ksym_mutex);
	ret = ksym_hist_show(m, watches, KSYM_MAX_WATCH, watch_events, raw);
	mutex_unlock(&ksym_mutex);
	return ret;
}

void ksym_filter_clear(void)
{
	int i;

	mutex_lock(&ksym_mutex);
	for (i = 0; i < KSYM_MAX_WATCH; i++)
		if (watches[i])
			drop(i);
	mutex_unlock(&ksym_mutex);
}
