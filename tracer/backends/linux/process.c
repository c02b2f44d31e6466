/* SPDX-License-Identifier: MIT */
/*
 * The processes of the Linux backends (backends/linux/linux.h): the
 * workload (-- CMD or -p PID, a -p checked before ptrace or perf would
 * answer with a bare errno), the symbols of a stopped process, the
 * kernel's model of the debug registers, and the options ptrace and perf
 * share (--kinds, --call-graph).
 */
/* process_vm_readv() */
#define _GNU_SOURCE 1
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "backends/linux/linux.h"

/* PF_KTHREAD in /proc/PID/stat's flags (include/linux/sched.h). */
#define PF_KTHREAD_FLAG 0x00200000u

/*
 * A process given with -p that cannot be traced for a reason of its own
 * gets its own message, before any ptrace or perf call would answer with a
 * bare EPERM or ESRCH (or, for perf, wait for ever on a kernel thread):
 * no such process, a zombie (it has exited), a kernel thread (no user
 * space).  From /proc/PID/stat: the state is the field after the command
 * name (which may hold blanks and parentheses: the last ')' ends it), the
 * flags the seventh after it (proc(5)).
 */
static int check_target(struct hwbpi_view *s, pid_t pid)
{
	char path[64], buf[512], state = 0;
	unsigned long flags = 0;
	const char *rp;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return hwbpi_fail(s, -ESRCH, false, "no process %ld: ESRCH", (long)pid);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	if (!rp || sscanf(rp + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
		return 0;   /* unreadable: let ptrace or perf say */
	if (state == 'Z' || state == 'X')
		return hwbpi_fail(s, -ESRCH, false, "process %ld is a zombie: it has exited, "
				  "nothing is left to trace: ESRCH", (long)pid);
	if (flags & PF_KTHREAD_FLAG)
		return hwbpi_fail(s, -EPERM, false, "process %ld is a kernel thread: it has no "
				  "user space to watch: EPERM", (long)pid);
	return 0;
}

/* The workload both take: -- CMD or -p PID, exactly one. */
int hwbpi_process_workload(struct hwbpi_view *s, pid_t *pid)
{
	const char *p = hwbpi_session_opt(s, "pid");
	uint64_t v;

	*pid = 0;
	if (!p == !s->argv)
		return hwbpi_fail(s, -EINVAL, true, "--backend %s traces %s", s->backend->name,
				  s->backend->workload);
	if (p && (hwbp_parse_u64(p, &v) || v == 0 || v > INT32_MAX))
		return hwbpi_fail(s, -EINVAL, true, "bad process id '%s'", p);
	if (p)
		*pid = (pid_t)v;
	return p ? check_target(s, *pid) : 0;
}

/* The pointers of typed names (struct hwbpi_tmem), read from the process
 * whose id @arg points to (the view's mem_pid), in one call (man 2
 * process_vm_readv: a partial read is a failure here). */
static int read_process(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv((pid_t)*(const long *)arg, &l, 1, &r, 1, 0);

	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EFAULT;
}

/* Symbols of the stopped process: the executable and what is mapped. */
int hwbpi_process_symbols(struct hwbpi_view *s, pid_t pid)
{
	struct hwbpi_proc_gone gone;
	int ret;

	s->mem_pid = pid;
	s->mem.read = read_process;
	s->mem.arg = &s->mem_pid;
	/* A started command is held at its entry: its pointers are set
	 * later. */
	s->mem.hint = s->argv ? "pointers are read when the watch is armed, here at the "
		      "command's start: attach with -p PID once it is set" : NULL;

	s->syms = hwbp_symtab_new(&ret);
	if (!s->syms)
		return hwbpi_fail(s, ret, false, "cannot build the symbol table");
	hwbpi_symtab_set_dwarf(s->syms, s->dwarf);   /* debug files, lines (srcline.c) */
	ret = hwbpi_proc_load_symbols(s->syms, pid, &gone);
	if (ret < 0)
		return hwbpi_fail(s, ret, false, "cannot read the symbols of process %ld: %s",
				  (long)pid, hwbp_errno_name(ret));
	/* Files unlinked since they were mapped (a rebuilt program, an
	 * upgraded library): said, as their symbols may not be the ones a
	 * new copy on disk has. */
	if (gone.read)
		hwbpi_note(s, "%s%s was deleted since process %ld mapped it: its symbols are read "
			   "from the process's own copy (/proc/%ld/)", gone.first,
			   gone.read > 1 ? " (and others)" : "", (long)pid, (long)pid);
	if (gone.unread)
		hwbpi_note(s, "%s%s was deleted since process %ld mapped it and cannot be read "
			   "through /proc/%ld/map_files (%s): its symbols are missing", gone.lib,
			   gone.unread > 1 ? " (and others)" : "", (long)pid, (long)pid,
			   hwbp_errno_name(gone.err));
	return 0;
}

int hwbpi_process_model(struct hwbpi_view *s, const char *what)
{
	struct hwbp_cpu native;
	char err[256] = "";
	int ret;

	/* The model of the kernel's own debug registers, asked before
	 * anything is started: the default --cpu, and what a --cpu given
	 * must fit (as for ptrace). */
	ret = hwbpi_child_cpu(&native, err, sizeof(err));
	if (ret)
		return hwbpi_fail(s, ret, false, "%s", err[0] ? err : hwbp_errno_name(ret));
	if (!s->have_cpu)
		s->cpu = native;
	else if ((ret = hwbpi_model_fits(what, &s->cpu, &native, err, sizeof(err))))
		return hwbpi_fail(s, ret, false, "%s", err);
	return 0;
}

void hwbpi_process_drain(void *arg)
{
	hwbpi_session_drain(arg);
}

/* ------------------------------------------------------------ run */

int hwbpi_process_kinds(struct hwbpi_view *s, enum hwbpi_kinds *out)
{
	const char *v = hwbpi_session_opt(s, "kinds");

	*out = HWBPI_KINDS_AUTO;
	if (!v || strcmp(v, "auto") == 0)
		return 0;
	if (strcmp(v, "exact") == 0)
		*out = HWBPI_KINDS_EXACT;
	else if (strcmp(v, "off") == 0)
		*out = HWBPI_KINDS_OFF;
	else
		return hwbpi_fail(s, -EINVAL, true, "bad --kinds '%s' (exact, auto, off): EINVAL", v);
	return 0;
}

int hwbpi_process_callgraph(struct hwbpi_view *s, enum hwbpi_callgraph *out)
{
	char err[160] = "";
	int ret = hwbpi_callgraph_parse(hwbpi_session_opt(s, "call-graph"), out, err, sizeof(err));

	return ret ? hwbpi_fail(s, ret, ret == -EINVAL, "%s", err) : 0;
}

bool hwbpi_process_gone(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* "PID (comm) S ...": the state follows the last ')' (comm may hold one) */
	p = strrchr(buf, ')');
	return !p || p[1] == 0 || p[2] == 'Z' || p[2] == 'X';
}
