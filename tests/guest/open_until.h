/* SPDX-License-Identifier: MIT */
/*
 * tests/guest/open_until.h: open perf breakpoint events one after another
 * until the kernel refuses one, to count the debug registers free (the
 * slot checks of tests/guest/kbp_count.c and tests/trace/kwork.c).
 *
 * A header, not a .c file: those programs are each built from their one
 * source file (gcc -static, by scripts/guest and scripts/guest-tests), so
 * the loop they share comes in with #include.  Include it after the
 * system headers, with _GNU_SOURCE defined before them (syscall(2)).
 */
#ifndef HWBP_TESTS_GUEST_OPEN_UNTIL_H
#define HWBP_TESTS_GUEST_OPEN_UNTIL_H

#include <errno.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/*
 * perf_event_open(2) of @a on @pid/@cpu (group -1, no flags), again and
 * again, until a call fails or @max are open; their fds go to @fds[0..].
 * With breakpoint events a refusal is ENOSPC once every debug register
 * that can take one is in use (reserve_bp_slot() in
 * kernel/events/hw_breakpoint.c).  Returns how many were opened (the
 * caller closes them); *@err: the failed call's errno, 0 if @max were
 * opened without a refusal.
 */
static inline int open_until(struct perf_event_attr *a, pid_t pid, int cpu, int *fds, int max,
			     int *err)
{
	int n = 0;

	*err = 0;
	while (n < max) {
		long fd = syscall(SYS_perf_event_open, a, pid, cpu, -1, 0);

		if (fd < 0) {
			*err = errno;
			break;
		}
		fds[n++] = (int)fd;
	}
	return n;
}

#endif /* HWBP_TESTS_GUEST_OPEN_UNTIL_H */
