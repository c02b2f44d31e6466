/* SPDX-License-Identifier: MIT */
/*
 * The ptrace backend of the tracer (tracer/ptrace.h): x86 debug registers
 * written into every thread of a traced process with PTRACE_POKEUSER on
 * struct user's u_debugreg[] (man 2 ptrace; arch/x86/kernel/ptrace.c
 * ptrace_set_debugreg()), hwbp's own DR7 encoding, hits decoded from DR6
 * through the generic API.  /proc/PID/maps helpers for symbols.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "ptrace.h"

/* ------------------------------------------------------------------ */
/* /proc/PID/maps (every architecture).                                */
/* ------------------------------------------------------------------ */
struct mapent {
	uint64_t start, off, ino;
	unsigned maj, min;
	char path[4096];
};

/* "start-end perms offset maj:min inode path" (man 5 proc_pid_maps). */
static bool parse_maps_line(const char *line, struct mapent *m)
{
	int n = 0;

	m->path[0] = '\0';
	if (sscanf(line, "%" SCNx64 "-%*x %*s %" SCNx64 " %x:%x %" SCNu64 " %n", &m->start,
		   &m->off, &m->maj, &m->min, &m->ino, &n) < 5)
		return false;
	snprintf(m->path, sizeof(m->path), "%s", line + n);
	m->path[strcspn(m->path, "\n")] = '\0';
	return true;
}

/* The page of the first PT_LOAD's p_vaddr: where the mapping at file
 * offset 0 goes before the bias (the ELF spec sorts PT_LOAD by p_vaddr;
 * the kernel maps ELF_PAGESTART(bias + p_vaddr): fs/binfmt_elf.c). */
static int elf_first_page(const char *path, uint64_t *page)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -EINVAL;

	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_phentsize == sizeof(ph)) {
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD) {
				*page = ph.p_vaddr & ~(pg - 1);
				ret = 0;
				break;
			}
		}
	}
	close(fd);
	return ret;
}

static FILE *open_maps(pid_t pid, int *ret)
{
	char p[64];
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
	f = fopen(p, "re");
	*ret = f ? 0 : -errno;
	return f;
}

int hwbpi_proc_load_bias(pid_t pid, const char *exe_path, uint64_t *bias)
{
	char exe[64], line[4300];
	struct mapent m;
	struct stat sb;
	uint64_t page;
	FILE *f;
	int ret;

	if (pid <= 0 || !bias)
		return -EINVAL;
	if (!exe_path) {
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
		exe_path = exe;
	}
	/* Matched by device and inode: the maps' path is absolute and may
	 * differ from the one the user typed (symlinks, relative paths). */
	if (stat(exe_path, &sb))
		return -errno;
	ret = elf_first_page(exe_path, &page);
	if (ret)
		return ret;
	f = open_maps(pid, &ret);
	if (!f)
		return ret;
	ret = -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		if (parse_maps_line(line, &m) && m.off == 0 && m.ino == (uint64_t)sb.st_ino &&
		    m.maj == major(sb.st_dev) && m.min == minor(sb.st_dev)) {
			*bias = m.start - page;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

int hwbpi_proc_load_symbols(struct hwbp_symtab *syms, pid_t pid)
{
	char line[4300];
	struct mapent m;
	uint64_t seen[512];
	unsigned nseen = 0;
	FILE *f;
	int ret, total = 0;

	if (!syms || pid <= 0)
		return -EINVAL;
	f = open_maps(pid, &ret);
	if (!f)
		return ret;
	while (fgets(line, sizeof(line), f)) {
		uint64_t page;
		bool dup = false;
		int n;

		/* Files only ([vdso], [heap], anonymous maps are not). */
		if (!parse_maps_line(line, &m) || m.off != 0 || m.ino == 0 || m.path[0] != '/')
			continue;
		for (unsigned i = 0; i < nseen; i++)
			dup |= seen[i] == m.ino;
		if (dup)
			continue;
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = m.ino;
		if (elf_first_page(m.path, &page))
			continue;   /* not a 64-bit ELF (a locale archive, a data file) */
		n = hwbp_symtab_load_elf(syms, m.path, m.start - page);
		if (n == -EINVAL || n == -ENOENT || n == -EACCES)
			continue;   /* stripped, or gone since: no symbols to add */
		if (n < 0) {
			total = n;
			break;
		}
		total += n;
	}
	fclose(f);
	return total;
}

static volatile sig_atomic_t stop_requested;

void hwbpi_ptrace_request_stop(void)
{
	stop_requested = 1;
}

#if defined(__x86_64__)

#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4   /* include/uapi/asm-generic/siginfo.h */
#endif

/* struct user's u_debugreg[n] (sys/user.h), the offsets PEEKUSER and
 * POKEUSER take for DR0-DR7 (arch/x86/kernel/ptrace.c: arch_ptrace()). */
#define DR_OFF(n) (offsetof(struct user, u_debugreg) + (size_t)(n) * sizeof(long))

#define OPTS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC)

struct thr {
	pid_t tid, tgid;
	bool armed;          /* its first stop was seen and DRs written */
	int pending;         /* signal to deliver at the first resume */
};

struct proc {
	pid_t tgid;
	bool watched;        /* false after an exec */
	uint8_t *shadow;     /* the watched bytes at the last hit */
};

struct hwbpi_ptrace {
	pid_t pid;
	bool attached, traced;
	int status;
	struct thr *thr;
	size_t nthr, cthr;
	struct proc *proc;
	size_t nproc, cproc;
};

static int selftest_result = 1;   /* 1: not run yet */
static char selftest_msg[256];

pid_t hwbpi_ptrace_pid(const struct hwbpi_ptrace *s)
{
	return s ? s->pid : -1;
}

static struct thr *thr_find(struct hwbpi_ptrace *s, pid_t tid)
{
	for (size_t i = 0; i < s->nthr; i++)
		if (s->thr[i].tid == tid)
			return &s->thr[i];
	return NULL;
}

static struct thr *thr_add(struct hwbpi_ptrace *s, pid_t tid, pid_t tgid)
{
	if (s->nthr == s->cthr) {
		size_t c = s->cthr ? 2 * s->cthr : 16;
		struct thr *n = realloc(s->thr, c * sizeof(*n));

		if (!n)
			return NULL;
		s->thr = n;
		s->cthr = c;
	}
	s->thr[s->nthr] = (struct thr){ tid, tgid, false, 0 };
	return &s->thr[s->nthr++];
}

static void thr_del(struct hwbpi_ptrace *s, pid_t tid)
{
	struct thr *t = thr_find(s, tid);

	if (t)
		*t = s->thr[--s->nthr];
}

static struct proc *proc_find(struct hwbpi_ptrace *s, pid_t tgid)
{
	for (size_t i = 0; i < s->nproc; i++)
		if (s->proc[i].tgid == tgid)
			return &s->proc[i];
	return NULL;
}

static struct proc *proc_add(struct hwbpi_ptrace *s, pid_t tgid, size_t shadow_len)
{
	struct proc *p = proc_find(s, tgid);

	if (p)
		return p;
	if (s->nproc == s->cproc) {
		size_t c = s->cproc ? 2 * s->cproc : 4;
		struct proc *n = realloc(s->proc, c * sizeof(*n));

		if (!n)
			return NULL;
		s->proc = n;
		s->cproc = c;
	}
	p = &s->proc[s->nproc];
	p->tgid = tgid;
	p->watched = true;
	p->shadow = calloc(1, shadow_len ? shadow_len : 1);
	if (!p->shadow)
		return NULL;
	s->nproc++;
	return p;
}

/* A field of /proc/TID/status ("Tgid": a CLONE event may be a thread or a
 * process; "TracerPid"). */
static pid_t status_field(pid_t tid, const char *field)
{
	char p[64], line[256];
	size_t fl = strlen(field);
	pid_t v = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)tid);
	f = fopen(p, "re");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, field, fl) == 0 && line[fl] == ':') {
			v = (pid_t)atoi(line + fl + 1);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

static struct hwbpi_ptrace *session_new(pid_t pid, bool attached)
{
	struct hwbpi_ptrace *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pid = pid;
	s->attached = attached;
	return s;
}

static int poke_dr(pid_t tid, unsigned n, uint64_t v)
{
	return ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFF(n), (void *)(uintptr_t)v) ? -errno : 0;
}

/*
 * Write one thread's debug registers: addresses first, DR7 last, because
 * ptrace_write_dr7() validates each slot it enables against the address
 * already written (arch_build_bp_info() in arch/x86/kernel/hw_breakpoint.c:
 * alignment to the length).  DR7 goes to 0 first so that no slot is ever
 * enabled with a half-written configuration.
 */
static int write_regs(pid_t tid, const struct hwbp_regs *r)
{
	int ret = poke_dr(tid, 7, 0);

	for (unsigned i = 0; ret == 0 && i < 4; i++)
		if (r->u.x86.dr[i] || (r->u.x86.dr7 & (3u << (2 * i))))
			ret = poke_dr(tid, i, r->u.x86.dr[i]);
	/* Only the enable and control bits: the kernel owns the rest. */
	if (ret == 0)
		ret = poke_dr(tid, 7, r->u.x86.dr7 & 0xffff00ffu);
	return ret;
}

/* Memory of a stopped tracee, word by word (PTRACE_PEEKDATA). */
static int read_mem(pid_t tid, uint64_t addr, uint8_t *buf, size_t len)
{
	uint64_t a = addr & ~UINT64_C(7);

	while (a < addr + len) {
		long w;
		uint8_t b[8];

		errno = 0;
		w = ptrace(PTRACE_PEEKDATA, tid, (void *)(uintptr_t)a, NULL);
		if (errno)
			return -errno;
		memcpy(b, &w, 8);
		for (unsigned k = 0; k < 8; k++)
			if (a + k >= addr && a + k < addr + len)
				buf[a + k - addr] = b[k];
		a += 8;
	}
	return 0;
}

static void resume(pid_t tid, int sig)
{
	/* ESRCH: killed meanwhile (its exit is reported by waitpid). */
	ptrace(PTRACE_CONT, tid, NULL, (void *)(uintptr_t)sig);
}

/* Wait for @pid's next stop or end, retrying EINTR. */
static int wait_for(pid_t pid, int *st)
{
	pid_t w;

	do
		w = waitpid(pid, st, __WALL);
	while (w < 0 && errno == EINTR);
	return w < 0 ? -errno : 0;
}

/* AT_ENTRY of /proc/PID/auxv (man 3 getauxval). */
static int auxv_entry(pid_t pid, uint64_t *entry)
{
	char p[64];
	Elf64_auxv_t a;
	int fd, ret = -ENOENT;

	snprintf(p, sizeof(p), "/proc/%d/auxv", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (read(fd, &a, sizeof(a)) == (ssize_t)sizeof(a) && a.a_type != AT_NULL)
		if (a.a_type == AT_ENTRY) {
			*entry = a.a_un.a_val;
			ret = 0;
			break;
		}
	close(fd);
	return ret;
}

/*
 * From the stop after execve() to the program's entry point, where ld.so
 * has mapped every DT_NEEDED library: an execute breakpoint in DR0
 * (DR7 = L0, R/W0 = 00 execute, LEN0 = 00: Intel SDM vol. 3 §17.2.4) so
 * that no code byte changes.  Linux sets RF on the way back from an
 * execute breakpoint, so the instruction then runs
 * (arch/x86/kernel/hw_breakpoint.c hw_breakpoint_handler()).
 */
static int run_to_entry(pid_t pid, const char *cmd, char *err, size_t errlen)
{
	uint64_t entry = 0;
	int st, ret = auxv_entry(pid, &entry);

	if (ret == 0)
		ret = poke_dr(pid, 0, entry);
	if (ret == 0)
		ret = poke_dr(pid, 7, 1);
	if (ret) {
		hwbpi_say(err, errlen, "%s: cannot stop at its entry point: %s", cmd, strerror(-ret));
		return -EIO;
	}
	resume(pid, 0);
	for (;;) {
		siginfo_t si;

		ret = wait_for(pid, &st);
		if (ret)
			return ret;
		if (!WIFSTOPPED(st)) {
			hwbpi_say(err, errlen, "%s %s before its entry point", cmd,
			    WIFEXITED(st) ? "exited" : "was killed");
			return -EIO;
		}
		if (WSTOPSIG(st) == SIGTRAP && (st >> 16) == 0 &&
		    ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) == 0 && si.si_code == TRAP_HWBKPT)
			break;
		/* A signal the program gets on the way: delivered. */
		resume(pid, (st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP ? WSTOPSIG(st) : 0);
	}
	ret = poke_dr(pid, 7, 0);
	if (ret == 0)
		ret = poke_dr(pid, 0, 0);
	if (ret == 0)
		ret = poke_dr(pid, 6, 0);
	return ret;
}

static int spawn(struct hwbpi_ptrace **out, char *const argv[], int (*fn)(void *), void *arg,
		 char *err, size_t errlen)
{
	int pfd[2], e[2], st, ret;
	ssize_t n;
	pid_t pid;

	if (!out || (!argv && !fn) || (argv && !argv[0]))
		return -EINVAL;
	*out = NULL;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return ret;
	}
	if (pid == 0) {
		/* The child reports a failure through the pipe; a successful
		 * execve() closes it (O_CLOEXEC): the parent reads EOF. */
		close(pfd[0]);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
			e[0] = 1;
			e[1] = errno;
			if (write(pfd[1], e, sizeof(e)) < 0)
				_exit(126);
			_exit(127);
		}
		if (fn) {
			close(pfd[1]);
			raise(SIGSTOP);
			_exit(fn(arg));
		}
		execvp(argv[0], argv);
		e[0] = 2;
		e[1] = errno;
		if (write(pfd[1], e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == (ssize_t)sizeof(e)) {
		wait_for(pid, &st);
		if (e[0] == 1)
			hwbpi_say(err, errlen, "ptrace not permitted (PTRACE_TRACEME: %s): see "
			    "/proc/sys/kernel/yama/ptrace_scope", strerror(e[1]));
		else
			hwbpi_say(err, errlen, "cannot run %s: %s", argv[0], strerror(e[1]));
		return -e[1];
	}
	ret = wait_for(pid, &st);
	if (ret == 0 && !WIFSTOPPED(st)) {
		hwbpi_say(err, errlen, "%s ended before it could be traced", fn ? "the child" : argv[0]);
		return -EIO;
	}
	/* Options take effect from the first stop (man 2 ptrace,
	 * PTRACE_SETOPTIONS); EXITKILL: the program dies with the tracer. */
	if (ret == 0 && ptrace(PTRACE_SETOPTIONS, pid, NULL,
			       (void *)(uintptr_t)(OPTS | PTRACE_O_EXITKILL)))
		ret = -errno;
	if (ret == 0 && !fn)
		ret = run_to_entry(pid, argv[0], err, errlen);
	if (ret == 0) {
		*out = session_new(pid, false);
		if (!*out || !thr_add(*out, pid, pid)) {
			hwbpi_ptrace_free(*out);
			*out = NULL;
			return -ENOMEM;
		}
		(*out)->thr[0].armed = true;   /* its first stop is behind us */
		return 0;
	}
	kill(pid, SIGKILL);
	wait_for(pid, &st);
	if (err && !err[0])
		hwbpi_say(err, errlen, "%s: ptrace: %s", fn ? "the child" : argv[0], strerror(-ret));
	return ret;
}

int hwbpi_ptrace_start(struct hwbpi_ptrace **out, char *const argv[], char *err, size_t errlen)
{
	int ret = hwbpi_ptrace_selftest(err, errlen);

	return ret ? ret : spawn(out, argv, NULL, NULL, err, errlen);
}

int hwbpi_ptrace_start_fn(struct hwbpi_ptrace **out, int (*fn)(void *), void *arg,
			  char *err, size_t errlen)
{
	int ret = hwbpi_ptrace_selftest(err, errlen);

	return ret ? ret : spawn(out, NULL, fn, arg, err, errlen);
}

static void say_perm(pid_t pid, char *err, size_t errlen)
{
	pid_t tracer = status_field(pid, "TracerPid");
	char scope[16] = "?";
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");

	if (f) {
		if (!fgets(scope, sizeof(scope), f))
			strcpy(scope, "?");
		scope[strcspn(scope, "\n")] = '\0';
		fclose(f);
	}
	if (tracer > 0)
		hwbpi_say(err, errlen, "ptrace not permitted: process %d is already traced by process %d",
		    (int)pid, (int)tracer);
	else
		hwbpi_say(err, errlen, "ptrace not permitted on process %d (kernel.yama.ptrace_scope = %s, "
		    "or not your process)", (int)pid, scope);
}

/* Seize and stop the threads of @pid not known yet; returns how many. */
static int seize_threads(struct hwbpi_ptrace *s, char *err, size_t errlen)
{
	char p[64];
	struct dirent *d;
	DIR *dir;
	int added = 0;

	snprintf(p, sizeof(p), "/proc/%d/task", (int)s->pid);
	dir = opendir(p);
	if (!dir) {
		hwbpi_say(err, errlen, "no process %d", (int)s->pid);
		return -ESRCH;
	}
	while ((d = readdir(dir))) {
		pid_t tid = (pid_t)atoi(d->d_name);
		struct thr *t;
		int st;

		if (tid <= 0 || thr_find(s, tid))
			continue;
		/* No EXITKILL: an attached process outlives the tracer. */
		if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)(uintptr_t)OPTS)) {
			int e = errno;

			if (e == ESRCH)
				continue;   /* exited meanwhile */
			/* A thread created since by a seized one is ours
			 * already (auto-attached, PTRACE_O_TRACECLONE): its
			 * first stop comes through the tracing loop. */
			if (e == EPERM && status_field(tid, "TracerPid") == getpid()) {
				if (!thr_add(s, tid, s->pid)) {
					closedir(dir);
					return -ENOMEM;
				}
				continue;
			}
			closedir(dir);
			if (e == EPERM)
				say_perm(s->pid, err, errlen);
			else
				hwbpi_say(err, errlen, "cannot attach to process %d: %s", (int)s->pid,
				    strerror(e));
			return -e;
		}
		t = thr_add(s, tid, s->pid);
		if (!t) {
			closedir(dir);
			return -ENOMEM;
		}
		ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
		if (wait_for(tid, &st) == 0 && WIFSTOPPED(st)) {
			t = thr_find(s, tid);
			t->armed = true;
			/* A signal-delivery stop came first: delivered later. */
			if ((st >> 16) == 0)
				t->pending = WSTOPSIG(st);
		} else {
			thr_del(s, tid);
		}
		added++;
	}
	closedir(dir);
	return added;
}

int hwbpi_ptrace_attach(struct hwbpi_ptrace **out, pid_t pid, char *err, size_t errlen)
{
	struct hwbpi_ptrace *s;
	int ret;

	if (!out || pid <= 0)
		return -EINVAL;
	*out = NULL;
	ret = hwbpi_ptrace_selftest(err, errlen);
	if (ret)
		return ret;
	s = session_new(pid, true);
	if (!s)
		return -ENOMEM;
	/* Threads may be created while we seize: again until none is new. */
	do
		ret = seize_threads(s, err, errlen);
	while (ret > 0);
	if (ret == 0 && !thr_find(s, pid)) {
		hwbpi_say(err, errlen, "process %d ended while being attached", (int)pid);
		ret = -ESRCH;
	}
	if (ret) {
		hwbpi_ptrace_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void hwbpi_ptrace_free(struct hwbpi_ptrace *s)
{
	if (!s)
		return;
	if (s->attached) {
		/* Stopped (never traced, or a stop was requested): let go. */
		for (size_t i = 0; i < s->nthr; i++) {
			poke_dr(s->thr[i].tid, 7, 0);
			ptrace(PTRACE_DETACH, s->thr[i].tid, NULL, NULL);
		}
	} else {
		int st;

		/* Only tracees not reaped yet: their pids cannot have been
		 * reused (a reaped process's could). */
		for (size_t i = 0; i < s->nthr; i++)
			kill(s->thr[i].tgid, SIGKILL);
		while (s->nthr) {
			if (wait_for(s->thr[0].tid, &st) || WIFEXITED(st) || WIFSIGNALED(st))
				thr_del(s, s->thr[0].tid);
		}
	}
	for (size_t i = 0; i < s->nproc; i++)
		free(s->proc[i].shadow);
	free(s->proc);
	free(s->thr);
	free(s);
}

/* The tracing loop's state. */
struct loop {
	struct hwbpi_ptrace *s;
	struct hwbpi_tracer *t;
	struct hwbp_ctx ctx;
	struct hwbp_slots percpu[1];
	struct hwbp_task task;
	struct hwbp_regs regs;
	size_t off[HWBP_MAX_REQUESTS], shadow_len;
	uint8_t cur[4096];
};

static void read_shadow(struct loop *L, struct proc *p, pid_t tid)
{
	for (unsigned i = 0; i < L->t->nw; i++) {
		const struct hwbpi_watch *w = &L->t->w[i];

		if (w->len <= sizeof(L->cur))
			read_mem(tid, w->addr, p->shadow + L->off[i], w->len);
	}
}

static void on_hit(struct loop *L, struct thr *th)
{
	struct hwbpi_tracer *t = L->t;
	struct user_regs_struct ur;
	struct hwbp_status st;
	struct hwbp_hit hit;
	struct timespec ts;
	struct proc *p = proc_find(L->s, th->tgid);
	long dr6;

	errno = 0;
	dr6 = ptrace(PTRACE_PEEKUSER, th->tid, (void *)DR_OFF(6), NULL);
	if (errno || ptrace(PTRACE_GETREGS, th->tid, NULL, &ur))
		return;
	/* DR6 as the kernel keeps it for the debugger: B0-B3 of the ptrace
	 * breakpoints that fired (ptrace_triggered() sets virtual_dr6). */
	memset(&st, 0, sizeof(st));
	st.ip = ur.rip;
	st.u.x86.dr6 = (uint64_t)dr6;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (p && p->watched && hwbp_decode(&L->ctx, 0, &L->task, &st, NULL, &hit) == 0) {
		if (hit.filtered)
			t->filtered++;
		for (unsigned i = 0; i < t->nw; i++) {
			const struct hwbpi_watch *w = &t->w[i];
			struct hwbp_trace_event ev;
			bool changed = false;

			if (w->req < 0 || !(hit.requests & (UINT64_C(1) << w->req)))
				continue;
			if (w->len <= sizeof(L->cur) && read_mem(th->tid, w->addr, L->cur, w->len) == 0) {
				changed = memcmp(L->cur, p->shadow + L->off[i], w->len) != 0;
				memcpy(p->shadow + L->off[i], L->cur, w->len);
			}
			memset(&ev, 0, sizeof(ev));
			ev.ts = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
			ev.ip = ur.rip;
			ev.addr = w->addr;
			ev.bp = (uint16_t)i;
			if (changed) {
				/* An R watch the hardware widened to RW: a write
				 * is not what was asked for. */
				if ((w->type & HWBP_RW) == HWBP_R) {
					t->filtered++;
					continue;
				}
				ev.kind = HWBP_W;
				ev.kind_how = HWBP_KIND_VALUE;
			} else if (w->type == HWBP_W || w->type == HWBP_X) {
				ev.kind = (uint8_t)w->type;
				ev.kind_how = HWBP_KIND_TYPE;
			}
			hwbpi_tracer_hit(t, &ev);
		}
	}
	/* The kernel clears its virtual DR6 at the next debug exception
	 * (exc_debug_user()); cleared here too for older kernels, where the
	 * bits were sticky as on the hardware. */
	poke_dr(th->tid, 6, 0);
}

/* First stop of a thread: give it the process's registers. */
static int arm(struct loop *L, struct thr *th)
{
	struct proc *p = proc_find(L->s, th->tgid);

	th->armed = true;
	if (!p || !p->watched)
		return 0;
	return write_regs(th->tid, &L->regs);
}

static bool group_stop(pid_t tid)
{
	siginfo_t si;

	/* man 2 ptrace: PTRACE_GETSIGINFO fails with EINVAL in group-stop. */
	return ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) && errno == EINVAL;
}

/* SIGTRAP pending for thread @tid (SigPnd of /proc/TID/status: the
 * thread's own queue, where force_sig() puts the debug trap). */
static bool trap_pending(pid_t tid)
{
	char p[64], line[256];
	unsigned long long m = 0;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)tid);
	f = fopen(p, "re");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "SigPnd:", 7) == 0) {
			m = strtoull(line + 7, NULL, 16);
			break;
		}
	if (f)
		fclose(f);
	return m & (1ull << (SIGTRAP - 1));
}

static int setup(struct loop *L, const struct hwbp_cpu *cpu, char *err, size_t errlen)
{
	struct hwbpi_tracer *t = L->t;
	int ret = hwbp_ctx_init(&L->ctx, cpu, 1, L->percpu, NULL);

	if (ret == 0)
		ret = hwbp_task_init(&L->ctx, &L->task);
	for (unsigned i = 0; ret == 0 && i < t->nw; i++) {
		struct hwbpi_watch *w = &t->w[i];
		/* User addresses, local enable bits (Ln: per task, as Linux
		 * itself programs them), R widened to RW (x86 has no R). */
		struct hwbp_request q = { w->addr, w->len, w->type, HWBP_SCOPE_USER,
					  HWBP_REQ_WIDEN | HWBP_REQ_LOCAL };

		w->req = -1;
		if ((w->type & HWBP_X) && (w->type & HWBP_RW)) {
			hwbpi_say(err, errlen, "%s: watch data (rw) or execution (x), not both", w->name);
			return -EINVAL;
		}
		L->off[i] = L->shadow_len;
		L->shadow_len += w->len <= sizeof(L->cur) ? w->len : 0;
		ret = hwbp_install(&L->ctx, &q, 0, &L->task, &w->req);
		if (ret == -ENOSPC) {
			int fr = hwbp_free_slots(&L->ctx, 0, &L->task, false);

			hwbpi_say(err, errlen, "%s: no free debug register: %d of %u in use by the other "
			    "watches (x86 has %u per thread)", w->name,
			    fr >= 0 ? (int)L->ctx.caps.data_slots - fr : -1,
			    L->ctx.caps.data_slots, L->ctx.caps.data_slots);
		} else if (ret) {
			hwbpi_say(err, errlen, "%s: %s (%s)", w->name, hwbp_errno_name(ret),
			    ret == -ERANGE ? "larger than this CPU can watch" :
			    ret == -EOPNOTSUPP ? "a type this CPU lacks" :
			    ret == -EFAULT ? "not a user-space address" : "refused by the planner");
		}
	}
	if (ret == 0)
		ret = hwbp_task_regs(&L->ctx, 0, &L->task, &L->regs);
	return ret;
}

static bool stop_sig(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

int hwbpi_ptrace_trace(struct hwbpi_ptrace *s, struct hwbpi_tracer *t,
		       const struct hwbp_cpu *cpu, int *status, char *err, size_t errlen)
{
	struct hwbp_cpu def;
	struct loop *L;
	bool stopping = false;
	int ret;

	if (!s || !t || s->traced || t->nw == 0)
		return -EINVAL;
	if (!cpu) {
		hwbp_cpu_preset("x86_64", &def);
		cpu = &def;
	}
	if (cpu->arch != HWBP_ARCH_X86 || !cpu->u.x86.mode64) {
		hwbpi_say(err, errlen, "the ptrace backend needs an x86_64 CPU model (--cpu x86_64)");
		return -EINVAL;
	}
	L = calloc(1, sizeof(*L));
	if (!L)
		return -ENOMEM;
	L->s = s;
	L->t = t;
	s->traced = true;
	stop_requested = 0;
	ret = setup(L, cpu, err, errlen);
	if (ret == 0 && !proc_add(s, s->pid, L->shadow_len))
		ret = -ENOMEM;
	if (ret == 0)
		read_shadow(L, proc_find(s, s->pid), s->pid);
	/* Every known thread is stopped: arm them all, then let them go. */
	for (size_t i = 0; ret == 0 && i < s->nthr; i++) {
		ret = write_regs(s->thr[i].tid, &L->regs);
		if (ret == -ESRCH) {
			ret = 0;   /* gone meanwhile: its exit comes through waitpid */
		} else if (ret) {
			hwbpi_say(err, errlen, "the kernel refused the debug registers: %s", strerror(-ret));
			ret = -EIO;
		}
	}
	if (ret) {
		free(L);
		return ret;
	}
	for (size_t i = 0; i < s->nthr; i++) {
		resume(s->thr[i].tid, s->thr[i].pending);
		s->thr[i].pending = 0;
	}
	for (;;) {
		struct thr *th;
		int st, sig, ev;
		pid_t w;

		if (stop_requested && !stopping) {
			stopping = true;
			for (size_t i = 0; s->attached && i < s->nthr; i++)
				ptrace(PTRACE_INTERRUPT, s->thr[i].tid, NULL, NULL);
			for (size_t i = 0; !s->attached && i < s->nthr; i++)
				kill(s->thr[i].tgid, SIGKILL);
		}
		/* Every tracee known (a new one is added at its creator's
		 * event or its own first stop, whichever comes first): none
		 * left is the end, even when the caller has other children
		 * (an attached process that is also its child, detached). */
		if (s->nthr == 0)
			break;
		w = waitpid(-1, &st, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != ECHILD)
				ret = -errno;
			break;
		}
		th = thr_find(s, w);
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (w == s->pid)
				s->status = st;
			thr_del(s, w);
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		sig = WSTOPSIG(st);
		ev = st >> 16;
		if (!th) {
			/* A new thread or child whose creator's event has not
			 * been seen yet: its first stop. */
			pid_t tgid = status_field(w, "Tgid");
			bool newproc;
			struct proc *p;

			if (tgid <= 0)
				tgid = w;
			newproc = !proc_find(s, tgid);
			th = thr_add(s, w, tgid);
			p = th ? proc_add(s, tgid, L->shadow_len) : NULL;
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			/* A forked child: its bytes, stopped now. */
			if (newproc)
				read_shadow(L, p, w);
		}
		if (stopping && s->attached) {
			/* A hit's SIGTRAP may already be queued to the thread
			 * (force_sig() from the debug exception) while this is
			 * another stop: once detached it would kill the
			 * process (SIGTRAP's default action).  Let it surface
			 * first, with no breakpoint left to raise another. */
			poke_dr(w, 7, 0);
			if (ev == 0 && sig == SIGTRAP) {
				ptrace(PTRACE_DETACH, w, NULL, NULL);   /* suppressed */
			} else if (trap_pending(w)) {
				resume(w, ev == 0 && !group_stop(w) ? sig : 0);
				continue;
			} else {
				/* A signal-delivery stop: delivered on detach. */
				ptrace(PTRACE_DETACH, w, NULL,
				       (void *)(uintptr_t)(ev == 0 && !group_stop(w) ? sig : 0));
			}
			thr_del(s, w);
			continue;
		}
		if (!th->armed) {
			arm(L, th);
			if ((sig == SIGSTOP && ev == 0) || ev == PTRACE_EVENT_STOP) {
				resume(w, 0);
				continue;
			}
		}
		if (ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK) {
			unsigned long nt = 0;
			pid_t tgid = th->tgid, ptgid = th->tgid;

			ptrace(PTRACE_GETEVENTMSG, w, NULL, &nt);
			if (ev != PTRACE_EVENT_CLONE || status_field((pid_t)nt, "Tgid") == (pid_t)nt)
				tgid = (pid_t)nt;
			if (nt && !thr_find(s, (pid_t)nt)) {
				struct proc *pp, *np;

				if (!thr_add(s, (pid_t)nt, tgid) || !proc_add(s, tgid, L->shadow_len)) {
					ret = -ENOMEM;
					break;
				}
				/* fork copies memory: the child's bytes are
				 * the parent's, stopped now. */
				pp = proc_find(s, ptgid);
				np = proc_find(s, tgid);
				if (pp && np && np != pp) {
					np->watched = pp->watched;
					memcpy(np->shadow, pp->shadow, L->shadow_len);
				}
			}
			resume(w, 0);
		} else if (ev == PTRACE_EVENT_EXEC) {
			/* The old address space and the breakpoints are gone
			 * (flush_ptrace_hw_breakpoint() in flush_thread()). */
			struct proc *p = proc_find(s, th->tgid);
			unsigned long old = 0;

			if (p)
				p->watched = false;
			ptrace(PTRACE_GETEVENTMSG, w, NULL, &old);
			if ((pid_t)old != w)
				thr_del(s, (pid_t)old);   /* a non-leader exec'd */
			resume(w, 0);
		} else if (ev == PTRACE_EVENT_STOP) {
			/* Seized: group-stop stays stopped (PTRACE_LISTEN);
			 * an interrupt stop goes on. */
			if (stop_sig(sig))
				ptrace(PTRACE_LISTEN, w, NULL, NULL);
			else
				resume(w, 0);
		} else if (ev) {
			resume(w, 0);
		} else if (sig == SIGTRAP) {
			siginfo_t si;
			long dr6;

			errno = 0;
			dr6 = ptrace(PTRACE_PEEKUSER, w, (void *)DR_OFF(6), NULL);
			if ((ptrace(PTRACE_GETSIGINFO, w, NULL, &si) == 0 && si.si_code == TRAP_HWBKPT) ||
			    (!errno && (dr6 & 0xf))) {
				on_hit(L, th);
				resume(w, 0);
			} else {
				resume(w, SIGTRAP);   /* the program's own */
			}
		} else if (stop_sig(sig) && group_stop(w)) {
			resume(w, 0);
		} else {
			resume(w, sig);
		}
	}
	if (status)
		*status = s->status;
	free(L);
	return ret;
}

/* ---- self-test ------------------------------------------------------ */
static volatile uint64_t selftest_var;

static int selftest_child(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		selftest_var = selftest_var + 1;
	return 0;
}

int hwbpi_ptrace_selftest(char *err, size_t errlen)
{
	struct hwbpi_tracer *t;
	struct hwbpi_ptrace *s;
	int ret;

	if (selftest_result <= 0) {
		if (selftest_result)
			hwbpi_say(err, errlen, "%s", selftest_msg);
		return selftest_result;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	snprintf(t->w[0].name, sizeof(t->w[0].name), "self-test");
	t->w[0].addr = (uint64_t)(uintptr_t)&selftest_var;
	t->w[0].len = sizeof(selftest_var);
	t->w[0].type = HWBP_W;
	t->nw = 1;
	ret = hwbpi_tracer_start(t, 1, false, 0, false);
	if (ret == 0)
		ret = spawn(&s, NULL, selftest_child, NULL, err, errlen);
	if (ret == 0) {
		ret = hwbpi_ptrace_trace(s, t, NULL, NULL, err, errlen);
		hwbpi_ptrace_free(s);
		if (ret == 0 && t->hits != 3) {
			hwbpi_say(err, errlen, "hardware breakpoints do not fire on this machine "
			    "(self-test: %" PRIu64 " of 3 writes seen)", t->hits);
			ret = -ENODEV;
		}
	}
	hwbpi_tracer_fini(t);
	free(t);
	/* Remembered, with its line: a machine does not change; -ENOMEM
	 * might. */
	if (ret != -ENOMEM) {
		selftest_result = ret;
		if (ret && err && errlen && !err[0])
			hwbpi_say(err, errlen, "ptrace self-test: %s", strerror(-ret));
		snprintf(selftest_msg, sizeof(selftest_msg), "%s", ret && err ? err : "");
	}
	return ret;
}

#else /* !__x86_64__ */

/*
 * Other architectures are not implemented yet: arm64 would use
 * PTRACE_SETREGSET with NT_ARM_HW_WATCH / NT_ARM_HW_BREAK, powerpc
 * PPC_PTRACE_GETHWDBGINFO and PPC_PTRACE_SETHWDEBUG.  Until then every
 * backend call says so with -EOPNOTSUPP.
 */
struct hwbpi_ptrace {
	pid_t pid;
};

static int nosupport(char *err, size_t errlen)
{
	hwbpi_say(err, errlen, "the ptrace backend supports x86_64 only for now");
	return -EOPNOTSUPP;
}

int hwbpi_ptrace_selftest(char *err, size_t errlen)
{
	return nosupport(err, errlen);
}

int hwbpi_ptrace_start(struct hwbpi_ptrace **out, char *const argv[], char *err, size_t errlen)
{
	(void)argv;
	if (out)
		*out = NULL;
	return nosupport(err, errlen);
}

int hwbpi_ptrace_start_fn(struct hwbpi_ptrace **out, int (*fn)(void *), void *arg,
			  char *err, size_t errlen)
{
	(void)fn;
	(void)arg;
	if (out)
		*out = NULL;
	return nosupport(err, errlen);
}

int hwbpi_ptrace_attach(struct hwbpi_ptrace **out, pid_t pid, char *err, size_t errlen)
{
	(void)pid;
	if (out)
		*out = NULL;
	return nosupport(err, errlen);
}

pid_t hwbpi_ptrace_pid(const struct hwbpi_ptrace *s)
{
	return s ? s->pid : -1;
}

int hwbpi_ptrace_trace(struct hwbpi_ptrace *s, struct hwbpi_tracer *t,
		       const struct hwbp_cpu *cpu, int *status, char *err, size_t errlen)
{
	(void)s;
	(void)t;
	(void)cpu;
	(void)status;
	return nosupport(err, errlen);
}

void hwbpi_ptrace_free(struct hwbpi_ptrace *s)
{
	(void)s;
}

#endif /* __x86_64__ */

int hwbpi_ptrace_run(struct hwbpi_tracer *t, const struct hwbp_cpu *cpu, char *const argv[],
		     pid_t attach_pid, int *status, char *err, size_t errlen)
{
	struct hwbpi_ptrace *s = NULL;
	int ret;

	if (!t || (!argv && attach_pid <= 0))
		return -EINVAL;
	ret = argv ? hwbpi_ptrace_start(&s, argv, err, errlen)
		   : hwbpi_ptrace_attach(&s, attach_pid, err, errlen);
	if (ret == 0)
		ret = hwbpi_ptrace_trace(s, t, cpu, status, err, errlen);
	hwbpi_ptrace_free(s);
	return ret;
}
