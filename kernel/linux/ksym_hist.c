// SPDX-License-Identifier: MIT
/*
 * hwbp_ksym.ko's histograms (ksym.h): per watch, one hwbp histogram (one
 * breakpoint, hist_entries entries) per CPU, counted by hwbp's own hit
 * path (tracer/events/hist_add.c's hwbp_hist_add()) in perf's overflow handler.
 * One per CPU because hwbp_hist_add() is one writer at a time, and a
 * handler runs in the debug exception of the CPU that made the access,
 * with IRQs off: nothing else of that CPU runs until it returns.  When
 * read, the CPUs' tables are merged, in CPU order, into one of the same n
 * entries: a (function, kind) that finds no entry goes to the overrun, so
 * the total is kept (counts + overrun == hits), as in hwbp trace.
 *
 * A read while hits come in may miss the last ones, and may see an entry
 * claimed before its count is written (count 0: skipped); the table is
 * exact once the workload has stopped.
 */
#include <linux/kallsyms.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "events/hist_add.h"
#include "ksym.h"

/* The watches of the current debug exception that have counted (bit per
 * watch id): a multi-piece watch counts one access once. */
static DEFINE_PER_CPU(unsigned long, counted);

static void hist_fini(struct hwbp_hist *h)
{
	kfree(h->e);   /* the start of the single block */
	h->e = NULL;
}

/* The layout of hwbp_hist_init(): entries, overrun[], hits[], used[]. */
static int hist_init(struct hwbp_hist *h, unsigned n, int node)
{
	size_t eb = (size_t)n * sizeof(struct hwbp_hist_entry);
	char *mem = kzalloc_node(eb + 2 * sizeof(uint64_t) + sizeof(unsigned), GFP_KERNEL, node);

	if (!mem)
		return -ENOMEM;
	h->nbp = 1;
	h->n = n;
	h->e = (struct hwbp_hist_entry *)mem;
	h->overrun = (uint64_t *)(mem + eb);
	h->hits = h->overrun + 1;
	h->used = (unsigned *)(h->hits + 1);
	return 0;
}

void ksym_hist_free(struct kwatch *w)
{
	int cpu;

	if (!w->hist)
		return;
	for_each_possible_cpu(cpu)
		hist_fini(per_cpu_ptr(w->hist, cpu));
	free_percpu(w->hist);
	w->hist = NULL;
}

int ksym_hist_alloc(struct kwatch *w)
{
	int cpu;

	w->hist = alloc_percpu(struct hwbp_hist);
	if (!w->hist)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		if (hist_init(per_cpu_ptr(w->hist, cpu), w->n, cpu_to_node(cpu))) {
			ksym_hist_free(w);
			return -ENOMEM;
		}
	return 0;
}

void ksym_hist_hit(struct perf_event *bp, struct perf_sample_data *data, struct pt_regs *regs)
{
	struct kwatch *w = bp->overflow_handler_context;
	uint64_t ip = instruction_pointer(regs), func = ip, adj;

	if (w->plan.n > 1) {
		int first = ksym_arch_exception_first();
		unsigned long *c = this_cpu_ptr(&counted);

		if (first == 1)
			*c = 0;
		else if (first == 0 && (*c & (1ul << w->id)))
			return;   /* the same access, another piece */
		*c |= 1ul << w->id;
	}
	/* An execute hit's IP is the instruction's; a data hit's may be the
	 * next one's (a trap): then the accessing function is the one just
	 * before it.  A hit in no known function is keyed by its IP. */
	adj = w->type == HWBP_X ? 0 : ksym_arch_ip_adjust();
	if (ip >= adj && !ksym_funcs_lookup(ip - adj, &func))
		func = ip;
	hwbp_hist_add(this_cpu_ptr(w->hist), 0, func, w->kind);
}

/* ------------------------------------------------------------ reading */

struct row {
	uint64_t count, func;
	unsigned watch, kind;
	bool named;
	char name[KSYM_NAME_LEN];
};

/* hwbp trace's order (tracer/output/hist_print.c row_cmp()): most hits first, then by
 * watch, named functions by name before unnamed ones by address. */
static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	int c;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->watch != b->watch)
		return a->watch < b->watch ? -1 : 1;
	if (a->named && b->named) {
		c = strcmp(a->name, b->name);
		if (c)
			return c;
	} else if (a->named || b->named) {
		return a->named ? -1 : 1;
	}
	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	return (a->kind > b->kind) - (a->kind < b->kind);
}

/* @w's CPUs merged into @m (n entries), then its events' count read into
 * *@ev: in this order, so that hits arriving meanwhile can only make the
 * events' count the larger.  Where no handler counts (arm64) the events'
 * count is the histogram, in function 0 ("?": not known). */
static int merge(struct hwbp_hist *m, const struct kwatch *w,
		 s64 (*events)(const struct kwatch *w), s64 *ev)
{
	int cpu, ret = hist_init(m, w->n, NUMA_NO_NODE);
	unsigned k;

	if (ret)
		return ret;
	if (!ksym_arch_handler_ok()) {
		*ev = events(w);
		if (*ev > 0)
			hwbpi_hist_add_n(m, 0, 0, w->kind, (uint64_t)*ev);
		return 0;
	}
	for_each_possible_cpu(cpu) {
		const struct hwbp_hist *h = per_cpu_ptr(w->hist, cpu);
		unsigned used = READ_ONCE(*h->used);

		for (k = 0; k < used && k < h->n; k++)
			hwbpi_hist_add_n(m, 0, h->e[k].func, h->e[k].kind, h->e[k].count);
		hwbpi_hist_overrun(m, 0, *h->overrun);
	}
	*ev = events(w);
	return 0;
}

static void kind_str(unsigned kind, char buf[4])
{
	size_t k = 0;

	if (kind & HWBP_R)
		buf[k++] = 'R';
	if (kind & HWBP_W)
		buf[k++] = 'W';
	if (kind & HWBP_X)
		buf[k++] = 'X';
	if (k == 0)
		buf[k++] = '?';
	buf[k] = '\0';
}

/* The Symbol column: the watch's symbol when it starts there, else its
 * filter line's target. */
static void watch_name(const struct kwatch *w, char buf[KSYM_SYMBOL_LEN])
{
	/* ("name+0x0/0x4" at a symbol's start) */
	sprint_symbol(buf, (unsigned long)w->addr);
	if (strstr(buf, "+0x0/"))
		sprint_symbol_no_offset(buf, (unsigned long)w->addr);
	else
		snprintf(buf, KSYM_SYMBOL_LEN, "0x%llx/%llu", (unsigned long long)w->addr,
			 (unsigned long long)w->len);
}

/* The Function column: a start of the table by its name (kallsyms), a
 * hit keyed by its IP as symbol+offset, function 0 as "?". */
static void func_name(struct row *r)
{
	r->named = r->func && ksym_funcs_has(r->func);
	if (r->named)
		sprint_symbol_no_offset(r->name, (unsigned long)r->func);
	else if (r->func)
		snprintf(r->name, sizeof(r->name), "0x%llx", (unsigned long long)r->func);
	else
		strscpy(r->name, "?", sizeof(r->name));
}

static void show_raw(struct seq_file *m, const struct hwbp_hist *h, unsigned nw, const s64 *events)
{
	unsigned i, k;

	/* (0: the arch's hits carry no function, ksym_arch_handler_ok()) */
	seq_printf(m, "by-function %d\n", ksym_arch_handler_ok());
	for (i = 0; i < nw; i++) {
		if (!h[i].e)
			continue;
		for (k = 0; k < h[i].used[0]; k++)
			if (h[i].e[k].count)
				seq_printf(m, "%u 0x%llx %u %llu\n", i,
					   (unsigned long long)h[i].e[k].func, h[i].e[k].kind,
					   (unsigned long long)h[i].e[k].count);
		seq_printf(m, "%u overrun %llu events %lld\n", i,
			   (unsigned long long)h[i].overrun[0], (long long)events[i]);
	}
}

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

static void show_table(struct seq_file *m, struct kwatch *const *w, const struct hwbp_hist *h,
		       unsigned nw, struct row *rows, size_t nrows, char (*names)[KSYM_SYMBOL_LEN])
{
	size_t wsym = 6, wfn = 8, wcnt = 7, i;
	char kbuf[4], cbuf[24];
	unsigned k;

	for (i = 0; i < nw; i++)
		if (w[i])
			wsym = max_sz(wsym, strlen(names[i]));
	for (i = 0; i < nrows; i++) {
		wfn = max_sz(wfn, strlen(rows[i].name));
		wcnt = max_sz(wcnt, (size_t)snprintf(cbuf, sizeof(cbuf), "%llu",
						     (unsigned long long)rows[i].count));
	}
	sort(rows, nrows, sizeof(*rows), row_cmp, NULL);
	seq_printf(m, "%-13s%-*s%-*s%*s\n", "Access_Type", (int)max_sz(10, wsym + 2), "Symbol",
		   (int)max_sz(16, wfn + 2), "Function", (int)wcnt, "Counter");
	for (i = 0; i < nrows; i++) {
		kind_str(rows[i].kind, kbuf);
		seq_printf(m, "%-13s%-*s%-*s%*llu\n", kbuf, (int)max_sz(10, wsym + 2),
			   names[rows[i].watch], (int)max_sz(16, wfn + 2), rows[i].name, (int)wcnt,
			   (unsigned long long)rows[i].count);
	}
	/* Distinct functions per watch: with one kind per watch, its entries. */
	for (i = 0; i < nw; i++) {
		unsigned distinct = 0;

		if (!w[i])
			continue;
		for (k = 0; k < h[i].used[0]; k++)
			distinct += h[i].e[k].count != 0;
		seq_printf(m, "%s: %u functions, overrun %llu\n", names[i], distinct,
			   (unsigned long long)h[i].overrun[0]);
	}
}

int ksym_hist_show(struct seq_file *m, struct kwatch *const *w, unsigned nw,
		   s64 (*events)(const struct kwatch *w), bool raw)
{
	struct hwbp_hist *h = kcalloc(nw, sizeof(*h), GFP_KERNEL);
	s64 *ev = kcalloc(nw, sizeof(*ev), GFP_KERNEL);
	char (*names)[KSYM_SYMBOL_LEN] = NULL;
	struct row *rows = NULL;
	size_t nrows = 0, cap = 0;
	unsigned i, k;
	int ret = -ENOMEM;

	if (!h || !ev)
		goto out;
	for (i = 0; i < nw; i++)
		if (w[i]) {
			if (merge(&h[i], w[i], events, &ev[i]))
				goto out;
			cap += h[i].used[0];
		}
	if (raw) {
		show_raw(m, h, nw, ev);
		ret = 0;
		goto out;
	}
	names = kcalloc(nw, sizeof(*names), GFP_KERNEL);
	rows = kvcalloc(cap ? cap : 1, sizeof(*rows), GFP_KERNEL);
	if (!names || !rows)
		goto out;
	for (i = 0; i < nw; i++) {
		if (!w[i])
			continue;
		watch_name(w[i], names[i]);
		for (k = 0; k < h[i].used[0]; k++) {
			struct row *r = &rows[nrows];

			if (!h[i].e[k].count)
				continue;
			r->count = h[i].e[k].count;
			r->func = h[i].e[k].func;
			r->kind = h[i].e[k].kind;
			r->watch = i;
			func_name(r);
			nrows++;
		}
	}
	show_table(m, w, h, nw, rows, nrows, names);
	ret = 0;
out:
	for (i = 0; h && i < nw; i++)
		hist_fini(&h[i]);
	kfree(h);
	kfree(ev);
	kfree(names);
	kvfree(rows);
	return ret;
}
