/* SPDX-License-Identifier: MIT */
/*
 * The module backend: `hwbp trace --kernel --backend module` drives
 * hwbp_ksym.ko (kernel/linux/), whose histogram is built in the kernel by
 * hwbp's own planner and hit path.  What the module cannot do itself, this
 * does: the watches' names resolved in the kernel's symbols (as for the
 * perf and bpf backends' --kernel: tracer/symbols/ksyms.h), the function table
 * written (the symbol table's sorted starts, as the bpf backend loads
 * them), hist_entries set; then the filter written, the command run (or
 * the trace held until a stop), the module's counts read back into the
 * session's histogram and the filter cleared.  Every file is the module's
 * debugfs directory's (KSYM_DIR).
 *
 * The module's filter is the whole kernel's, not this session's: a
 * session clears it as it starts (so that its watch ids are 0..n-1) and
 * as it ends, and refuses to start while another one's watches are set
 * (-EBUSY: the filter is not empty).
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/linux/linux.h"
#include "session/backend.h"

#define KSYM_DIR "/sys/kernel/debug/hwbp_ksym"
#define POLL_MS 50

struct module_state {
	void *kstate;        /* the kernel scope's symbols (hwbpi_kernel_open) */
	bool armed;          /* the filter holds our watches: clear at close */
	int status;
	bool have_status;
};

/* Write @len bytes of @buf to the module's file @name in one write(2)
 * (the module takes one filter line per write); -errno. */
static int put(const char *name, int flags, const char *buf, size_t len)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), KSYM_DIR "/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	if (len && write(fd, buf, len) != (ssize_t)len)
		ret = errno ? -errno : -EIO;
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	return ret;
}

static int clear_filter(void)
{
	return put("ksym_trace_filter", 0, "*:---\n", 6);
}

static int module_open(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	struct module_state *m = calloc(1, sizeof(*m));
	char err[256] = "";
	int ret;

	if (!m)
		return hwbpi_fail(s, -ENOMEM, false, "out of memory");
	s->bstate = m;
	if (!hwbpi_session_opt(s, "kernel"))
		return hwbpi_fail(s, -EINVAL, true, "the module backend watches the kernel: --kernel");
	if (s->mode.trace)
		return hwbpi_fail(s, -EOPNOTSUPP, true, "hwbp_ksym.ko keeps a histogram: --trace is "
				  "not possible with the module backend (EOPNOTSUPP)");
	if ((ret = hwbpi_linux_glue_check(err, sizeof(err))))
		return hwbpi_fail(s, ret, false, "%s (%s)", err, hwbp_errno_name(ret));
	if (access(KSYM_DIR "/ksym_trace_filter", W_OK) < 0) {
		ret = -errno;
		return hwbpi_fail(s, ret, false, "%s: %s (is hwbp_ksym.ko loaded? insmod "
				  "hwbp_ksym.ko; debugfs mounted?)", KSYM_DIR "/ksym_trace_filter",
				  hwbp_errno_name(ret));
	}
	ret = hwbpi_kernel_open(s, &m->kstate);
	s->t.missing_hint = hwbpi_kernel_missing_hint(m->kstate);
	return ret;
}

/* The function table: "> ksym_trace_functions" (O_TRUNC empties it),
 * then a page of lines per write. */
static int put_functions(struct hwbpi_view *s)
{
	const uint64_t *starts;
	size_t n = hwbpi_symtab_func_starts(s->syms, &starts), i, len = 0;
	char buf[4096];
	int fd, ret = 0;

	fd = open(KSYM_DIR "/ksym_trace_functions", O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (i = 0; i <= n && ret == 0; i++) {
		if (i == n || len + 20 > sizeof(buf)) {
			if (len && write(fd, buf, len) != (ssize_t)len)
				ret = errno ? -errno : -EIO;
			len = 0;
		}
		if (i < n)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%" PRIx64 "\n", starts[i]);
	}
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	return ret;
}

/* Each watch's filter line; a refusal names the watch and the errno. */
static int put_watches(struct hwbpi_view *s)
{
	/* The module's filter has no CPU: it arms each watch on every CPU
	 * (hwbp_ksym.c), so a per-CPU copy only with --percpu-all; checked
	 * before any line is written. */
	for (unsigned i = 0; i < s->t.nw; i++)
		if (s->t.w[i].on_cpu)
			return hwbpi_fail(s, -EOPNOTSUPP, true, "%s: hwbp_ksym.ko arms every watch on "
					  "every CPU, not a copy on its own CPU: give --percpu-all "
					  "(EOPNOTSUPP)", s->t.w[i].name);
	for (unsigned i = 0; i < s->t.nw; i++) {
		const struct hwbpi_watch *w = &s->t.w[i];
		uint64_t len = hwbpi_watch_len(w, &s->cpu);
		char line[96];
		int n = snprintf(line, sizeof(line), "0x%" PRIx64 "/%" PRIu64 ":%c%c%c\n", w->addr,
				 len, w->type & HWBP_R ? 'r' : '-', w->type & HWBP_W ? 'w' : '-',
				 w->type & HWBP_X ? 'x' : '-');
		int ret = put("ksym_trace_filter", 0, line, (size_t)n);

		if (ret)
			return hwbpi_fail(s, ret, ret == -EINVAL || ret == -ENOSPC || ret == -EEXIST,
					  "hwbp_ksym.ko refused watch %s (0x%" PRIx64 "/%" PRIu64 "): %s",
					  w->name, w->addr, len, hwbp_errno_name(ret));
	}
	return 0;
}

/* Set up the module for the session: empty filter (else -EBUSY), the
 * entries, the functions, the watches. */
static int arm(struct hwbpi_view *s, struct module_state *m)
{
	char buf[32];
	int fd, n, ret;

	fd = open(KSYM_DIR "/ksym_trace_filter", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return hwbpi_fail(s, ret, false, "%s: %s", KSYM_DIR "/ksym_trace_filter",
				  hwbp_errno_name(ret));
	}
	n = (int)read(fd, buf, sizeof(buf));
	close(fd);
	if (n != 0)
		return hwbpi_fail(s, -EBUSY, false, "hwbp_ksym.ko's filter is in use (cat %s; "
				  "echo '*:---' > it to clear it): EBUSY", KSYM_DIR "/ksym_trace_filter");
	n = snprintf(buf, sizeof(buf), "%u\n", s->t.hist.n);
	if ((ret = put("hist_entries", 0, buf, (size_t)n)))
		return hwbpi_fail(s, ret, ret == -EINVAL, "hwbp_ksym.ko: hist_entries %u: %s",
				  s->t.hist.n, hwbp_errno_name(ret));
	if ((ret = put_functions(s)))
		return hwbpi_fail(s, ret, false, "hwbp_ksym.ko: cannot write the function table: %s",
				  hwbp_errno_name(ret));
	m->armed = true;
	ret = put_watches(s);
	return ret;
}

/* "ID 0xFUNC KIND COUNT" and "ID overrun N events E" lines into the
 * session's histogram; *@events the events' total, *@counted the
 * histogram's. */
static int read_counts(struct hwbpi_view *s, uint64_t *events, uint64_t *counted,
		       bool *by_func)
{
	FILE *f = fopen(KSYM_DIR "/ksym_trace_hist_raw", "re");
	char line[160];
	int ret = 0;

	*events = *counted = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned id, kind, by;
		uint64_t func, n, e;

		if (sscanf(line, "by-function %u", &by) == 1) {
			*by_func = by;
		} else if (sscanf(line, "%u overrun %" SCNu64 " events %" SCNu64, &id, &n, &e) == 3 &&
			   id < s->t.nw) {
			hwbpi_hist_overrun(&s->t.hist, id, n);
			*counted += n;
			*events += e;
		} else if (sscanf(line, "%u 0x%" SCNx64 " %u %" SCNu64, &id, &func, &kind, &n) == 4 &&
			   id < s->t.nw) {
			hwbpi_hist_add_n(&s->t.hist, id, func, kind, n);
			*counted += n;
		} else {
			ret = -EPROTO;   /* a module of another version */
			break;
		}
	}
	if (ferror(f) && ret == 0)
		ret = -EIO;
	fclose(f);
	return ret;
}

/* The held command's end, or a stop (perf's rule: the signal passed on
 * once, a second stop kills it); without a command, a stop ends it. */
static void wait_end(struct hwbpi_view *s, pid_t pid, int *status)
{
	int passed = 0, st;

	for (;;) {
		if (pid > 0) {
			pid_t r = waitpid(pid, &st, WNOHANG);

			if (r == pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
				*status = st;
				return;
			}
			if (r < 0 && errno == ECHILD)
				return;
		}
		if (s->stop) {
			if (pid <= 0)
				return;
			if (!passed && s->stop_sig)
				kill(pid, s->stop_sig);
			passed = passed ? passed : 1;
			if (s->stop > 1 && passed < 2) {
				passed = 2;
				kill(pid, SIGKILL);
			}
		}
		poll(NULL, 0, POLL_MS);
	}
}

struct held {
	struct hwbpi_view *s;
	struct module_state *m;
	int ret;
};

static void held_exec(void *arg, int ef)
{
	const struct held *h = arg;

	hwbpi_child_exec(h->s->argv, ef, false);
}

static int held_arm(void *arg, pid_t pid)
{
	struct held *h = arg;

	(void)pid;
	h->ret = arm(h->s, h->m);
	return h->ret;
}

static void held_wait(void *arg, pid_t pid)
{
	struct held *h = arg;

	wait_end(h->s, pid, &h->m->status);
	h->m->have_status = true;
}

/*
 * Watches of objects: not by the module.  Arming one synchronously means
 * re-pointing a breakpoint in a kprobe's handler, with preemption off;
 * the only exported way to re-point one, modify_user_hw_breakpoint()
 * (kernel/events/hw_breakpoint.c, for any breakpoint whatever its name),
 * calls perf_event_disable() and perf_event_enable(), which take the
 * event context's mutex (perf_event_ctx_lock()) and wait for a call on
 * the event's CPU, so it may sleep; the local ones (perf_event_disable_local(),
 * arch_install_hw_breakpoint()) are not exported, and the non-sleeping
 * modify_wide_hw_breakpoint_local() exists only in a 2025-26 patch
 * series.  So on Linux 6.1 a module can only arm asynchronously (from a
 * work item), as the perf events already do from user space: the
 * session's objects go that way, and the note says so.
 */
static int run_objects(struct hwbpi_view *s)
{
	int st = 0, ret;

	hwbpi_note(s, "hwbp_ksym.ko cannot arm an object from a kprobe on this kernel (re-pointing a "
		   "breakpoint, modify_user_hw_breakpoint(), may sleep: perf_event_ctx_lock()); "
		   "the objects are armed asynchronously through perf events instead, as with bpf");
	ret = hwbpi_linux_objects(s, true, NULL, 0, false, &st);
	if (ret == 0 && s->argv) {
		s->status = st;
		s->have_status = true;
	}
	return ret;
}

static int module_run(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	struct module_state *m = s->bstate;
	uint64_t events = 0, counted = 0;
	bool by_func = true;
	char err[256] = "";
	int ret;

	if ((ret = clear_filter()))
		return hwbpi_fail(s, ret, false, "hwbp_ksym.ko: cannot clear the filter: %s",
				  hwbp_errno_name(ret));
	if (s->t.nw && s->t.w[0].object)
		return run_objects(s);
	if (s->argv) {
		struct held h = { .s = s, .m = m };
		struct hwbpi_held hh = { .run = held_exec, .open = held_arm, .wait = held_wait,
					 .arg = &h };

		ret = hwbpi_child_held(&hh, err, sizeof(err));
		if (ret)
			return h.ret ? ret : hwbpi_fail(s, ret, false, "%s", err[0] ? err :
							hwbp_errno_name(ret));
		s->status = m->status;
		s->have_status = m->have_status;
	} else {
		if ((ret = arm(s, m)))
			return ret;
		wait_end(s, 0, NULL);
	}
	ret = read_counts(s, &events, &counted, &by_func);
	if (ret)
		return hwbpi_fail(s, ret, false, "hwbp_ksym.ko: cannot read ksym_trace_hist_raw: %s",
				  hwbp_errno_name(ret));
	if (!by_func)
		hwbpi_note(s, "hwbp_ksym.ko counts hits here without their functions ('?'): this "
			   "arch's kernel steps over a watched access only for perf's own handler");
	hwbpi_note(s, "hwbp_ksym.ko: %" PRIu64 " hits counted, %" PRIu64 " breakpoint events%s",
		   counted, events, events > counted ? " (the module reads the events' count "
		   "after the hits: an access that matched two pieces of a watch is one hit, and "
		   "hits still coming while it read are in the events only)" : "");
	return 0;
}

static void module_close(struct hwbp_trace_session *ts)
{
	struct hwbpi_view *s = hwbpi_view(ts);
	struct module_state *m = s->bstate;

	if (m && m->armed)
		clear_filter();
	if (m)
		hwbpi_kernel_close(m->kstate);
	free(m);
	s->bstate = NULL;
}

static const struct hwbp_trace_backend_option module_options[] = {
	{ "kernel", 0, NULL, HWBP_TRACE_OPT_WORKLOAD | HWBP_TRACE_OPT_WITH_CMD, NULL,
	  "watch kernel symbols on every CPU (with -- CMD: until it exits)" },
	/* (not a workload of its own: -- CMD only bounds --kernel) */
	{ "cmd", 0, "CMD", HWBP_TRACE_OPT_ARGV, "kernel", "with --kernel: run CMD [ARGS], "
	  "trace until it exits" },
	{ "vmlinux", 0, "FILE", 0, "kernel", "with --kernel: names and sizes from this ELF "
	  "image of the running kernel" },
	{ NULL, 0, NULL, 0, NULL, NULL },
};

const struct hwbp_trace_backend hwbpi_backend_module = {
	.name = "module",
	.description = "the kernel through hwbp_ksym.ko (kernel/linux/): hwbp's planner and "
		       "histogram inside the kernel",
	.workload = "--kernel [-- CMD]",
	.options = module_options,
	.flags = HWBP_TRACE_BACKEND_OBJECTS,
	.open = module_open,
	.run = module_run,
	.close = module_close,
};
