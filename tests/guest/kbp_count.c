/* SPDX-License-Identifier: MIT */
/* guest-arch: ppc64le x86_64 (built for these guests only: pid_max's address comes from kallsyms or argv) */
/*
 * tests/guest/kbp_count.c: does this Linux kernel + CPU model count
 * kernel-address hardware breakpoint hits exactly?  No hwbp code: it
 * checks the kernel interface the ksym tracer builds on, in a guest of
 * scripts/guest.
 *   kbp_count [ADDR] [N]
 * ADDR is pid_max's kernel address (hex); without it, pid_max's line of
 * /proc/kallsyms (Debian's ppc64el and arm64 kernels have no data symbols
 * there, CONFIG_KALLSYMS_ALL=n: the host passes the address it reads from
 * the kernel image's own symbol table, e.g. nm of the vmlinux that
 * scripts/guest boots).  N (default 1000) is the number of reads.
 *
 * (a) Exact count: one counting PERF_TYPE_BREAKPOINT event, HW_BREAKPOINT_RW,
 *     length 4, on pid_max, kernel only (exclude_user, exclude_hv),
 *     pid -1, cpu 0, disabled until the loop starts.  The loop does N
 *     pread(fd, buf, 64, 0) of /proc/sys/kernel/pid_max (opened once): each
 *     is one load of pid_max, __do_proc_dointvec() -> do_proc_dointvec_conv()'s
 *     READ_ONCE(*valp) (kernel/sysctl.c, 6.1 L458), since every read is at
 *     file position 0 (a read at ppos != 0 returns at L498-501 without the
 *     load).  pid_max's other readers are alloc_pid() (forks: none in the
 *     loop) and tracing set-up.  With the guest's one CPU, cpu 0 sees every
 *     access.  The count must be exactly N.
 * (b) Slots: counting HW_BREAKPOINT_W events on pid_max, cpu 0, opened one
 *     after another until perf_event_open fails: it must fail with ENOSPC
 *     (reserve_bp_slot() in kernel/events/hw_breakpoint.c), after at least
 *     one success; the number opened is printed ("slots: S").
 * One line per check, "ok"/"FAIL"; exit status 0 only if all passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "open_until.h"

#define MAX_SLOTS 64

static int failures;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		failures++;
}

/* A kernel-only breakpoint of @type, length 4, on @addr. */
static void bp_attr(struct perf_event_attr *a, uint64_t addr, unsigned type, int disabled)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_BREAKPOINT;
	a->bp_type = type;
	a->bp_addr = addr;
	a->bp_len = HW_BREAKPOINT_LEN_4;
	a->disabled = disabled ? 1 : 0;
	a->exclude_user = 1;
	a->exclude_hv = 1;
}

static int bp_open(uint64_t addr, unsigned type, int disabled)
{
	struct perf_event_attr a;

	bp_attr(&a, addr, type, disabled);
	return (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, 0);
}

/* pid_max's address from /proc/kallsyms; 0 if it is not there (or hidden). */
static uint64_t kallsyms_pid_max(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256], type, name[128];
	uint64_t addr = 0, a;

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%" SCNx64 " %c %127s", &a, &type, name) == 3 &&
		    strcmp(name, "pid_max") == 0) {
			addr = a;
			break;
		}
	fclose(f);
	return addr;
}

static void exact_count(uint64_t addr, unsigned long n)
{
	char buf[64], what[160];
	uint64_t count = 0;
	unsigned long i;
	int fd, ev;

	fd = open("/proc/sys/kernel/pid_max", O_RDONLY);
	ev = bp_open(addr, HW_BREAKPOINT_RW, 1);
	if (fd < 0 || ev < 0) {
		printf("FAIL open (%s %s)\n", fd < 0 ? "pid_max:" : "perf_event_open:", strerror(errno));
		failures++;
		return;
	}
	ioctl(ev, PERF_EVENT_IOC_RESET, 0);
	ioctl(ev, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < n; i++)
		if (pread(fd, buf, sizeof buf, 0) <= 0)
			break;
	ioctl(ev, PERF_EVENT_IOC_DISABLE, 0);
	if (read(ev, &count, sizeof count) != (ssize_t)sizeof count)
		count = UINT64_MAX;
	snprintf(what, sizeof what, "%lu reads of /proc/sys/kernel/pid_max: counted %" PRIu64
		 " (expected %lu)", i, count, n);
	check(i == n && count == n, what);
	close(ev);
	close(fd);
}

static void slots(uint64_t addr)
{
	struct perf_event_attr a;
	int fds[MAX_SLOTS], n, err, i;
	char what[160];

	bp_attr(&a, addr, HW_BREAKPOINT_W, 0);
	n = open_until(&a, -1, 0, fds, MAX_SLOTS, &err);
	printf("slots: %d\n", n);
	snprintf(what, sizeof what, "W events on cpu 0: %d opened, then %s", n,
		 err ? strerror(err) : "no refusal");
	check(n > 0 && err == ENOSPC, what);
	for (i = 0; i < n; i++)
		close(fds[i]);
}

int main(int argc, char **argv)
{
	uint64_t addr = argc > 1 ? strtoull(argv[1], NULL, 16) : kallsyms_pid_max();
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;

	if (addr == 0) {
		fprintf(stderr, "kbp_count: no pid_max in /proc/kallsyms: give its address\n");
		return 2;
	}
	/* The events are CPU 0's: run there (a guest may have more CPUs). */
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0) {
		perror("kbp_count: sched_setaffinity");
		return 2;
	}
	printf("kbp_count: pid_max at 0x%" PRIx64 "\n", addr);
	exact_count(addr, n);
	slots(addr);
	return failures ? 1 : 0;
}
