/* SPDX-License-Identifier: MIT */
/*
 * The kernel scope the Linux backends share (backends/linux/linux.h):
 * --kernel's open for perf, bpf and module (--cpus, the CPU model, the
 * running kernel's symbols), and what this kernel has: its online CPUs,
 * the breakpoint slots its own events get, and perf_event_open itself.
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "backends/linux/linux.h"

int hwbpi_kernel_event_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	/* No glibc wrapper (man 2 perf_event_open, NOTES). */
	long fd = syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

/* ------------------------------------------------------------ helpers */

unsigned hwbpi_kernel_ncpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	unsigned a, b, max = 0;
	int c;

	if (!f) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		return n > 0 ? (unsigned)n : 1;
	}
	/* "0-3,5,7-8" */
	while (fscanf(f, "%u", &a) == 1) {
		b = a;
		c = fgetc(f);
		if (c == '-') {
			if (fscanf(f, "%u", &b) != 1)
				break;
			c = fgetc(f);
		}
		if (b + 1 > max)
			max = b + 1;
		if (c != ',')
			break;
	}
	fclose(f);
	return max ? max : 1;
}

/* Count the data breakpoint events the kernel lets @cpu open (store-only,
 * one byte at the kernel address @addr, opened disabled, so that they
 * reserve a slot and never fire: reserve_bp_slot() at perf_event_open),
 * all closed again.  Returns the count, or -errno of the first open when
 * it was not ENOSPC. */
int hwbpi_kernel_slots(uint64_t addr, int cpu)
{
	int fd[16], n = 0, ret = 0;

	while (n < (int)(sizeof(fd) / sizeof(fd[0]))) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_BREAKPOINT;
		a.size = sizeof(a);
		a.bp_type = HW_BREAKPOINT_W;
		a.bp_addr = addr;
		a.bp_len = HW_BREAKPOINT_LEN_1;
		a.exclude_user = 1;
		a.exclude_hv = 1;
		a.disabled = 1;
		if ((ret = hwbpi_kernel_event_open(&a, -1, cpu)) < 0)
			break;
		fd[n++] = ret;
		ret = 0;
	}
	for (int i = 0; i < n; i++)
		close(fd[i]);
	return n || ret == -ENOSPC || ret == 0 ? n : ret;
}

/* "0-3,5": CPUs below @ncpus, each online one at most once. */
static int parse_cpus(struct hwbpi_view *s, const char *v, bool *mask, unsigned ncpus)
{
	const char *p = v;
	unsigned any = 0;

	memset(mask, 0, ncpus * sizeof(*mask));
	while (*p) {
		uint64_t a, b;
		const char *q = p;

		while (*q && *q != ',' && *q != '-')
			q++;
		if (hwbp_parse_u64n(p, (size_t)(q - p), &a))
			goto bad;
		b = a;
		if (*q == '-') {
			p = q + 1;
			q = p;
			while (*q && *q != ',')
				q++;
			if (hwbp_parse_u64n(p, (size_t)(q - p), &b) || b < a)
				goto bad;
		}
		if (b >= ncpus)
			return hwbpi_fail(s, -EINVAL, true, "--cpus %s: CPU %" PRIu64 " is not online "
					  "(this machine's CPUs are 0-%u): EINVAL", v, b, ncpus - 1);
		for (uint64_t c = a; c <= b; c++, any++)
			mask[c] = true;
		if (*q == ',')
			q++;
		if (*q == '\0' && q[-1] == ',')
			goto bad;
		p = q;
	}
	if (any)
		return 0;
bad:
	return hwbpi_fail(s, -EINVAL, true, "bad --cpus '%s' (a list such as 0-3,5): EINVAL", v);
}

/*
 * The kernel's own breakpoint events may have more slots than ptrace
 * gives a task (powerpc: one DAWR for ptrace, nr_wp_slots() for perf):
 * count what the first watched CPU lets the kernel scope open, at the
 * lowest kernel symbol's address (any kernel address does: the events are
 * opened disabled), and let the arch widen the model
 * (hwbpi_linux_kernel_cpu()).
 * A model given with --cpu stands; a failed count keeps ptrace's model
 * (the opens that follow report their own error).
 */
static void kernel_model(struct hwbpi_view *s, const struct hwbpi_kernel *k)
{
	int cpu = 0, n;

	if (s->have_cpu || !k->ks.kernel_lo)
		return;
	if (k->have_cpus)
		while (cpu + 1 < (int)s->ncpus && !k->cpus[cpu])
			cpu++;
	n = hwbpi_kernel_slots(k->ks.kernel_lo, cpu);
	if (n > 0)
		hwbpi_linux_kernel_cpu(&s->cpu, (unsigned)n);
}

/* ------------------------------------------------------------ --cpus */

/* The pointers of typed names (struct hwbpi_tmem), read from the running
 * kernel through /proc/kcore. */
static int read_kernel(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	return hwbpi_kcore_read(NULL, addr, buf, len);
}

int hwbpi_kernel_open(struct hwbpi_view *s, void **state)
{
	struct hwbpi_kernel *k = calloc(1, sizeof(*k));
	struct hwbpi_ksyms_opts ko;
	char err[320] = "";
	const char *cpus = hwbpi_session_opt(s, "cpus");
	int ret;

	*state = k;
	if (!k)
		return hwbpi_fail(s, -ENOMEM, false, "out of memory");
	if (hwbpi_session_opt(s, "pid"))
		return hwbpi_fail(s, -EINVAL, true, "--kernel watches the whole kernel: -p PID does "
				  "not apply (-- CMD only bounds the trace)");
	s->ncpus = hwbpi_kernel_ncpus();
	if (s->ncpus > HWBPI_TRACE_MAX_CPUS)
		s->ncpus = HWBPI_TRACE_MAX_CPUS;
	if (cpus) {
		if ((ret = parse_cpus(s, cpus, k->cpus, s->ncpus)))
			return ret;
		k->have_cpus = true;
	}
	if ((ret = hwbpi_process_model(s, "kernel")))
		return ret;
	/* The kernel's symbols: --symbols with --kernel is a System.map of
	 * this kernel (read here, moved by the KASLR offset, not as a plain
	 * map by the session). */
	if (s->nsymfile > 1)
		return hwbpi_fail(s, -EINVAL, true, "--kernel takes one System.map (--symbols)");
	memset(&ko, 0, sizeof(ko));
	ko.vmlinux = hwbpi_session_opt(s, "vmlinux");
	ko.sysmap = s->nsymfile ? s->symfile[0] : NULL;
	s->nsymfile = 0;
	s->syms = hwbp_symtab_new(&ret);
	if (!s->syms)
		return hwbpi_fail(s, ret, false, "cannot build the symbol table");
	ret = hwbpi_ksyms_load(s->syms, &ko, &k->ks, err, sizeof(err));
	if (ret < 0)
		return hwbpi_fail(s, ret, ret != -ENOMEM && ret != -EIO, "%s",
				  err[0] ? err : hwbp_errno_name(ret));
	kernel_model(s, k);
	s->kernel = true;
	s->kaslr = k->ks.kaslr;
	s->t.ksyms = &k->ks;   /* k outlives the entries: freed at close */
	s->mem.read = read_kernel;
	s->place = hwbpi_kernel_place;
	return 0;
}

void hwbpi_kernel_close(void *state)
{
	free(state);
}

/* A name not found: say why a kernel may lack it. */
const char *hwbpi_kernel_missing_hint(const void *state)
{
	const struct hwbpi_kernel *k = state;

	return k ? hwbpi_ksyms_missing_hint(&k->ks) : NULL;
}
