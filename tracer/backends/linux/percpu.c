/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU variables of the running kernel (backends/linux/linux.h): a
 * watch of "runqueues.nr_running" resolved to an offset in the per-CPU
 * area becomes one watch per CPU, at that CPU's copy.
 *
 * CPU c's copy of a per-CPU symbol is at its value plus
 * __per_cpu_offset[c] (include/asm-generic/percpu.h: per_cpu_ptr() is
 * SHIFT_PERCPU_PTR(ptr, per_cpu_offset(cpu)); x86_64's symbols are offsets
 * from 0, arm64's addresses of the boot copy, the same sum for both).  The
 * array is read once, through /proc/kcore.  Each copy is watched on its
 * own CPU only: what a CPU does to its own copy, which is what per-CPU
 * data is for; another CPU touching it (a remote per_cpu() access, as
 * the scheduler's load balancer reads other runqueues) is not seen,
 * unless --percpu-all watches every copy on every CPU.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "backends/linux/linux.h"

/* __per_cpu_offset[0, @n) into @off. */
static int read_offsets(struct hwbpi_view *s, uint64_t *off, unsigned n)
{
	const struct hwbp_sym *arr = hwbp_symtab_find(s->syms, "__per_cpu_offset");
	int ret;

	if (!arr)
		return hwbpi_fail(s, -ENOENT, true, "per-CPU variables need __per_cpu_offset, which "
				  "the symbol table lacks (kallsyms without data symbols): give "
				  "--vmlinux FILE or a System.map (ENOENT)");
	ret = hwbpi_kcore_read(NULL, arr->addr, off, (size_t)n * sizeof(*off));
	if (ret)
		return hwbpi_fail(s, ret, false, "cannot read __per_cpu_offset at 0x%" PRIx64
				  " through /proc/kcore: %s", arr->addr, hwbp_errno_name(ret));
	return 0;
}

/* "@name@cpuN" into @out (@n bytes), @name cut to leave room for the CPU. */
static void name_copy(char *out, size_t n, const char *name, unsigned cpu)
{
	char suffix[16];
	int k = snprintf(suffix, sizeof(suffix), "@cpu%u", cpu);
	size_t len = strnlen(name, n - 1 - (size_t)k);

	memcpy(out, name, len);
	memcpy(out + len, suffix, (size_t)k + 1);
}

/* Watch @i (per-CPU) replaced by its @n copies. */
static int place_one(struct hwbpi_view *s, unsigned i, const uint64_t *off, unsigned n)
{
	struct hwbpi_tracer *t = &s->t;
	struct hwbpi_watch w = t->w[i];
	char list[256];
	size_t k = 0;

	if (t->nw - 1 + n > HWBP_MAX_REQUESTS)
		return hwbpi_fail(s, -ENOSPC, true, "%s: a per-CPU variable on %u CPUs is %u watches, "
				  "%u with the others, at most %d (ENOSPC)", w.name, n, n,
				  t->nw - 1 + n, HWBP_MAX_REQUESTS);
	memmove(&t->w[i + n], &t->w[i + 1], (t->nw - i - 1) * sizeof(t->w[0]));
	t->nw += n - 1;
	for (unsigned c = 0; c < n; c++) {
		struct hwbpi_watch *cw = &t->w[i + c];

		*cw = w;
		cw->percpu = false;
		cw->addr = w.addr + off[c];
		cw->on_cpu = s->percpu_all ? 0 : c + 1;
		name_copy(cw->name, sizeof(cw->name), w.name, c);
		if (k < sizeof(list))
			k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%u: 0x%" PRIx64, c ? ", " : "",
					      c, cw->addr);
	}
	hwbpi_note(s, "%s: per-CPU, one copy per CPU (%s)%s", w.name, list, s->percpu_all ?
		   ": each watched on every CPU (--percpu-all)" :
		   ": each watched on its own CPU; another CPU touching it is not seen "
		   "(--percpu-all)");
	return 0;
}

int hwbpi_kernel_place(struct hwbpi_view *s)
{
	uint64_t off[HWBPI_TRACE_MAX_CPUS];
	unsigned n = s->ncpus;
	bool read = false;
	int ret;

	for (unsigned i = 0; i < s->t.nw; i++) {
		if (!s->t.w[i].percpu)
			continue;
		if (!read && (ret = read_offsets(s, off, n)))
			return ret;
		read = true;
		if ((ret = place_one(s, i, off, n)))
			return ret;
		i += n - 1;
	}
	return 0;
}
