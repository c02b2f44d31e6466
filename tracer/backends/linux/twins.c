/* SPDX-License-Identifier: MIT */
/*
 * Store-only twins (backends/linux/linux.h): an RW watch paired with a
 * W-only one in a free slot tells a load from a store on an arch whose
 * status names the slots that matched (x86: DR6.Bn), if the CPU sets both
 * bits for a store.  The ptrace and perf backends both pair them; this
 * self-test, run once per process, says whether they may.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "backends/linux/linux.h"

/* Once per process: does this CPU report both slots of a twin pair?  A
 * child stores 100 times and loads 50 times to a variable watched by an
 * RW and a W-only event: RW must count 150 and W 100 (QEMU's x86 TCG
 * sets one DR6 bit per access: then twins cannot be paired). */
static volatile uint64_t twin_var;

static void twin_child(void *arg, int ef)
{
	uint64_t sink = 0;

	(void)arg;
	(void)ef;
	for (int i = 0; i < 100; i++)
		twin_var = (uint64_t)i;
	for (int i = 0; i < 50; i++)
		sink += twin_var;
	_exit(sink == 50 * 99 ? 0 : 2);
}

/* The RW event, then the W-only one, on the held child (the events that
 * opened stay in @arg, an int[2], for their counts). */
static int twin_open(void *arg, pid_t p)
{
	int *fd = arg;
	struct perf_event_attr a;

	for (int k = 0; k < 2; k++) {
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_BREAKPOINT;
		a.size = sizeof(a);
		a.bp_type = k ? HW_BREAKPOINT_W : HW_BREAKPOINT_RW;
		a.bp_addr = (uintptr_t)&twin_var;
		a.bp_len = HW_BREAKPOINT_LEN_8;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fd[k] = hwbpi_kernel_event_open(&a, p, -1);
		if (fd[k] < 0)
			return fd[k];
	}
	return 0;
}

/* The verdict of a run: 0, or -errno with the reason in @why. */
static int twin_verdict(int ret, int st, const uint64_t v[2], char *why, size_t n)
{
	if (ret) {
		snprintf(why, n, "the kind self-test could not open its two events (%s)",
			 hwbp_errno_name(ret));
	} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(why, n, "the kind self-test's child failed");
		ret = -ECHILD;
	} else if (v[0] != 150 || v[1] != 100) {
		snprintf(why, n, "this CPU reports one slot per store (RW and W-only breakpoints "
			 "counted %llu and %llu for 100 stores, 50 loads: not 150, 100; QEMU's x86 "
			 "TCG sets one DR6 bit)",
			 (unsigned long long)v[0], (unsigned long long)v[1]);
		ret = -ENODEV;
	}
	return ret;
}

int hwbpi_twins_selftest(char *why, size_t n)
{
	static int result = 1;   /* 1: not run */
	static char said[256];   /* its reason, for every caller */
	int fd[2] = { -1, -1 }, ret;
	struct hwbpi_held h = { .run = twin_child, .open = twin_open, .arg = fd,
				.fork_err = -ECHILD };
	uint64_t v[2] = { 0, 0 };

	if (result != 1) {
		snprintf(why, n, "%s", said);
		return result;
	}
	ret = hwbpi_child_held(&h, NULL, 0);
	if (h.pid < 0)
		return ret;   /* not run: tried again next time */
	for (int k = 0; k < 2; k++)
		if (fd[k] >= 0) {
			if (read(fd[k], &v[k], sizeof(v[k])) != (ssize_t)sizeof(v[k]))
				v[k] = 0;
			close(fd[k]);
		}
	ret = twin_verdict(ret, h.wstatus, v, why, n);
	result = ret;
	snprintf(said, sizeof(said), "%s", ret ? why : "");
	return ret;
}

bool hwbpi_twins(enum hwbpi_kinds kinds)
{
	char why[256];

	return kinds != HWBPI_KINDS_OFF && hwbpi_linux_kind_split == HWBPI_SPLIT_TWIN &&
	       hwbpi_twins_selftest(why, sizeof(why)) == 0;
}
