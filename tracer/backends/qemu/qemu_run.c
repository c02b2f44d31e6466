/* SPDX-License-Identifier: MIT */
/*
 * The qemu-x86 backend's process side: find the installed demo kernel,
 * start QEMU on it with fork and exec (no shell: any path works, nothing
 * is interpreted), read its serial port line by line with a deadline, and
 * tell how it ended.  The machine is the one tests/qemu/x86/run.sh runs:
 * -machine pc -cpu qemu64 -m 512M, COM1 on stdout, isa-debug-exit at 0xf4,
 * through which the kernel leaves with status ((code + 32) << 1) | 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backends/qemu/qemu_x86.h"

#ifndef HWBP_INSTALL_DATADIR
#define HWBP_INSTALL_DATADIR "/usr/local/lib/hwbp"
#endif

const char *hwbpi_datadir(void)
{
	const char *d = getenv("HWBP_DATADIR");

	return d && *d ? d : HWBP_INSTALL_DATADIR;
}

int hwbpi_qemu_x86_files(char *kernel, char *symbols, size_t n, char *err, size_t errlen)
{
	const char *d = hwbpi_datadir();

	if (!kernel || !symbols)
		return -EINVAL;
#ifndef HWBP_HAVE_QEMU_X86_DEMO
	(void)d;
	(void)n;
	hwbpi_say(err, errlen, "not available: this hwbp was built without the x86_64 demo kernel "
		  "(it is built on x86_64 Linux hosts with gcc, ld, objcopy and python3)");
	return -EOPNOTSUPP;
#else
	if ((size_t)snprintf(kernel, n, "%s/qemu-x86/kernel.elf", d) >= n ||
	    (size_t)snprintf(symbols, n, "%s/qemu-x86/kernel64.elf", d) >= n)
		return -ENAMETOOLONG;
	if (access(kernel, R_OK) != 0 || access(symbols, R_OK) != 0) {
		int e = errno;

		hwbpi_say(err, errlen, "not available: no demo kernel in %s/qemu-x86 (%s; is "
			  "HWBP_DATADIR right?)", d, hwbp_errno_name(-e));
		return -ENOENT;
	}
	return 0;
#endif
}

/* The kernel command line: hwbp.watch=ADDR,LEN,TYPE;... (hex). */
static int watch_arg(const struct hwbpi_tracer *t, char *buf, size_t n, char *err, size_t errlen)
{
	size_t k = (size_t)snprintf(buf, n, "hwbp.watch=");

	for (unsigned i = 0; i < t->nw && k < n; i++) {
		const struct hwbpi_watch *w = &t->w[i];

		if (w->type & HWBP_X) {
			hwbpi_say(err, errlen, "%s: the qemu-x86 demo kernel watches data only", w->name);
			return -EOPNOTSUPP;
		}
		k += (size_t)snprintf(buf + k, n - k, "%s%" PRIx64 ",%" PRIx64 ",%x", i ? ";" : "",
				      w->addr, w->len, w->type);
	}
	/* A check of the fallback: the kernel ignores its site table. */
	if (k < n && getenv("HWBP_QEMU_X86_NOSITES"))
		k += (size_t)snprintf(buf + k, n - k, " hwbp.nosites");
	return k < n ? 0 : -ENAMETOOLONG;
}

/* The child: stdin /dev/null, stdout and stderr the pipes; an exec failure
 * goes back through @errfd (close-on-exec: nothing arrives on success). */
static void child(char *const argv[], int out, int errp, int errfd)
{
	int null = open("/dev/null", O_RDONLY), e;

	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(errp, 2) < 0)
		_exit(127);
	execvp(argv[0], argv);
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static int cloexec_pipe(int fd[2])
{
	if (pipe(fd) != 0)
		return -errno;
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	fcntl(fd[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Bytes of one stream, cut into lines. */
struct lines {
	char buf[512];
	size_t n;
};

/* Read what @fd has; call @fn for each full line (or a full buffer).
 * Returns false at end of file or on an error. */
static bool read_lines(int fd, struct lines *l, void (*fn)(void *, const char *), void *arg)
{
	ssize_t r = read(fd, l->buf + l->n, sizeof(l->buf) - 1 - l->n);
	char *nl;

	if (r < 0 && errno == EINTR)
		return true;
	if (r <= 0) {
		if (l->n) {
			l->buf[l->n] = '\0';
			fn(arg, l->buf);
			l->n = 0;
		}
		return false;
	}
	l->n += (size_t)r;
	l->buf[l->n] = '\0';
	while ((nl = strchr(l->buf, '\n')) || l->n == sizeof(l->buf) - 1) {
		size_t len = nl ? (size_t)(nl - l->buf) + 1 : l->n;
		char c = l->buf[len];

		l->buf[len] = '\0';
		fn(arg, l->buf);
		l->buf[len] = c;
		memmove(l->buf, l->buf + len, l->n - len + 1);
		l->n -= len;
	}
	return true;
}

struct feed {
	struct hwbpi_tracer *t;
	struct hwbpi_qemu_x86_run run;
	char *err;
	size_t errlen;
	char last[256];   /* QEMU's last non-empty line on stderr */
	struct lines lo, le;
};

static void say_ended(char *err, size_t errlen, const char *why)
{
	hwbpi_say(err, errlen, "the demo kernel did not finish: %s", why);
}

static void on_out(void *arg, const char *line)
{
	struct feed *f = arg;

	hwbpi_qemu_x86_line(f->t, &f->run, line, f->err, f->errlen);
}

static void on_err(void *arg, const char *line)
{
	struct feed *f = arg;

	if (line[0] && line[0] != '\n') {
		snprintf(f->last, sizeof(f->last), "%s", line);
		f->last[strcspn(f->last, "\n")] = '\0';
	}
}

/* QEMU's command line in @argv (32 entries): the machine of run.sh, the
 * kernel, its command line @watch. */
static void qemu_argv(char *argv[], const char *qemu, const char *kernel, char *watch)
{
	static const char *const fixed[] = {
		"-nodefaults", "-machine", "pc,accel=tcg", "-cpu", "qemu64", "-m", "512M",
		"-display", "none", "-no-reboot", "-monitor", "none",
		"-chardev", "stdio,id=ser0,signal=off", "-serial", "chardev:ser0",
		"-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
	};
	unsigned na = 0;

	argv[na++] = (char *)qemu;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		argv[na++] = (char *)fixed[i];
	argv[na++] = "-kernel";
	argv[na++] = (char *)kernel;
	argv[na++] = "-append";
	argv[na++] = watch;
	argv[na] = NULL;
}

/* The pipes of the QEMU child: its stdout, its stderr, the exec's errno
 * (-1: not open). */
struct pipes {
	int out[2], ep[2], xp[2];
};

static void close_pipes(struct pipes *p)
{
	for (int i = 0; i < 2; i++) {
		if (p->out[i] >= 0)
			close(p->out[i]);
		if (p->ep[i] >= 0)
			close(p->ep[i]);
		if (p->xp[i] >= 0)
			close(p->xp[i]);
	}
}

/* Fork and exec QEMU (@argv, child()); the pipes in @p, only the read
 * ends left open here.  Errors: -errno of pipe() or fork(). */
static int spawn(char *const argv[], struct pipes *p, pid_t *pid)
{
	int ret;

	if ((ret = cloexec_pipe(p->out)) || (ret = cloexec_pipe(p->ep)) || (ret = cloexec_pipe(p->xp)))
		return ret;
	fflush(NULL);
	*pid = fork();
	if (*pid < 0)
		return -errno;
	if (*pid == 0)
		child(argv, p->out[1], p->ep[1], p->xp[1]);
	close(p->out[1]);
	close(p->ep[1]);
	close(p->xp[1]);
	p->out[1] = p->ep[1] = p->xp[1] = -1;
	return 0;
}

/* Whether the exec of QEMU (@qemu, named @base) failed: then the child
 * reaped, the reason said and *ret its error (-ENOENT: not found). */
static bool exec_failed(int xfd, pid_t pid, const char *qemu, const char *base, int *ret,
			char *err, size_t errlen)
{
	int r, e = 0;

	/* The exec's errno, or end of file once it exec'd. */
	while ((r = (int)read(xfd, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	if (r != (int)sizeof(e))
		return false;
	waitpid(pid, NULL, 0);
	if (e == ENOENT) {
		hwbpi_say(err, errlen, "%s not found", base);
		*ret = -ENOENT;
	} else {
		hwbpi_say(err, errlen, "cannot run %s: %s", qemu, hwbp_errno_name(-e));
		*ret = -e;
	}
	return true;
}

/* Why pump() returned. */
enum end { END_CLOSED, END_STOPPED, END_TIMED_OUT };

/* QEMU's stdout fed to the tracer, its stderr's last line kept, until
 * both end (or poll() fails), *@stop is set or @timeout seconds pass. */
static enum end pump(struct feed *f, const struct pipes *p, volatile sig_atomic_t *stop,
		     double timeout)
{
	double deadline = now() + timeout;
	bool out_open = true, err_open = true;

	while (out_open || err_open) {
		struct pollfd pf[2] = { { p->out[0], POLLIN, 0 }, { p->ep[0], POLLIN, 0 } };
		double left = deadline - now();
		int n;

		if (stop && *stop)
			return END_STOPPED;
		if (left <= 0)
			return END_TIMED_OUT;
		pf[0].fd = out_open ? p->out[0] : -1;
		pf[1].fd = err_open ? p->ep[0] : -1;
		/* At most 200 ms, so that a stop is seen without a signal. */
		n = poll(pf, 2, left > 0.2 ? 200 : (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
			out_open = read_lines(p->out[0], &f->lo, on_out, f) && out_open;
		if (n > 0 && (pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
			err_open = read_lines(p->ep[0], &f->le, on_err, f) && err_open;
	}
	return END_CLOSED;
}

/* How QEMU ended (wait status @st): 0 when the kernel finished, else
 * -EIO and why. */
static int check_end(const struct feed *f, int st, bool timed_out, double timeout,
		     char *err, size_t errlen)
{
	if (timed_out) {
		char why[64];

		snprintf(why, sizeof(why), "QEMU timed out after %.0fs (the kernel hangs)", timeout);
		say_ended(err, errlen, why);
		return -EIO;
	} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 65 || !f->run.ended) {
		/* 65: the kernel's code 0 through isa-debug-exit */
		char why[300];

		if (f->last[0])
			snprintf(why, sizeof(why), "%s", f->last);
		else if (WIFEXITED(st) && WEXITSTATUS(st) % 2 && WEXITSTATUS(st) >= 65 &&
			 WEXITSTATUS(st) < 124)
			snprintf(why, sizeof(why), "kernel exited with code %d", (WEXITSTATUS(st) >> 1) - 32);
		else
			snprintf(why, sizeof(why), "QEMU ended with status %d without the kernel's exit",
				 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		say_ended(err, errlen, why);
		return -EIO;
	}
	return 0;
}

int hwbpi_trace_qemu_x86(struct hwbpi_tracer *t, const char *kernel,
			 volatile sig_atomic_t *stop, uint64_t *disagree, char *err, size_t errlen)
{
	const char *qemu = getenv("QEMU"), *to = getenv("HARNESS_TIMEOUT"), *base;
	char watch[4096];
	char *argv[32];
	struct pipes p = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	int ret, st = 0;
	double timeout = to && atoi(to) > 0 ? atoi(to) : 120;
	enum end end;
	struct feed *f;
	pid_t pid;

	if (!t || !kernel || t->nw == 0)
		return -EINVAL;
	if ((ret = watch_arg(t, watch, sizeof(watch), err, errlen)))
		return ret;
	if (access(kernel, R_OK) != 0) {
		hwbpi_say(err, errlen, "no kernel image %s", kernel);
		return -ENOENT;
	}
	qemu = qemu && *qemu ? qemu : "qemu-system-x86_64";
	base = strrchr(qemu, '/') ? strrchr(qemu, '/') + 1 : qemu;
	qemu_argv(argv, qemu, kernel, watch);
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->t = t;
	f->err = err;
	f->errlen = errlen;
	if ((ret = spawn(argv, &p, &pid)) || exec_failed(p.xp[0], pid, qemu, base, &ret, err, errlen))
		goto out;
	end = pump(f, &p, stop, timeout);
	if (end != END_CLOSED)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	ret = f->run.ret;
	if (disagree)
		*disagree = f->run.disagree;
	if (ret == 0 && end != END_STOPPED)
		ret = check_end(f, st, end == END_TIMED_OUT, timeout, err, errlen);
out:
	close_pipes(&p);
	free(f);
	return ret;
}
