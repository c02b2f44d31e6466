/* SPDX-License-Identifier: MIT */
/*
 * The ptrace backend of the tracer (tracer/ptrace.h), arch-neutral:
 * processes, threads, clone/fork following, attach, stops, the event loop,
 * /proc/PID/maps helpers for symbols.  The debug registers of one thread
 * are the arch's Linux glue (generic/linux.h, arch/<a>/linux.c: x86
 * PTRACE_POKEUSER on u_debugreg, arm64 PTRACE_SETREGSET NT_ARM_HW_WATCH /
 * NT_ARM_HW_BREAK), always with hwbp's own encoding of the planned slots;
 * hits are decoded through the generic API.
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
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux.h"
#include "ptrace.h"

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4   /* include/uapi/asm-generic/siginfo.h */
#endif
#ifndef TRAP_TRACE
#define TRAP_TRACE 2
#endif

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

#define OPTS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC)

struct thr {
	pid_t tid, tgid;
	bool armed;          /* its first stop was seen and DRs written */
	int pending;         /* signal to deliver at the first resume */
	/*
	 * Stepping over a hit (hwbpi_linux_step_over: the exception came
	 * before the access and the kernel does not step for ptrace): the
	 * thread's slots are cleared and it single-steps; the hit is fed to
	 * the tracer when the step is done (then the bytes show whether it
	 * wrote), with the trap's ip and time.
	 */
	bool step;
	uint64_t hit_req, hit_ip, hit_ts;
};

struct proc {
	pid_t tgid;
	bool watched;        /* false after an exec */
	uint8_t *shadow;     /* the watched bytes at the last hit */
};

struct hwbpi_ptrace {
	pid_t pid;
	struct hwbp_cpu cpu;       /* the kernel's model (hwbpi_linux_cpu()) */
	struct hwbp_regs off;      /* nothing armed */
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

int hwbpi_ptrace_cpu(const struct hwbpi_ptrace *s, struct hwbp_cpu *cpu)
{
	if (!s || !cpu)
		return -EINVAL;
	*cpu = s->cpu;
	return 0;
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
	memset(&s->thr[s->nthr], 0, sizeof(s->thr[0]));
	s->thr[s->nthr].tid = tid;
	s->thr[s->nthr].tgid = tgid;
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

static struct hwbpi_ptrace *session_new(pid_t pid, bool attached, const struct hwbp_cpu *cpu)
{
	struct hwbpi_ptrace *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pid = pid;
	s->attached = attached;
	s->cpu = *cpu;
	hwbp_regs_reset(cpu, &s->off);
	return s;
}

/* The kernel's debug-register model for stopped thread @tid, with the
 * line a user reads when there is none. */
static int native_cpu(pid_t tid, struct hwbp_cpu *cpu, char *err, size_t errlen)
{
	int ret = hwbpi_linux_cpu(tid, cpu);

	if (ret == -EOPNOTSUPP)
		hwbpi_say(err, errlen, "this kernel offers no hardware breakpoints to ptrace on this "
		    "CPU");
	else if (ret)
		hwbpi_say(err, errlen, "cannot read the debug registers' model: %s", strerror(-ret));
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

/* Resume a known thread: single-stepping while it steps over a hit. */
static void resume_thr(const struct thr *th, int sig)
{
	if (th && th->step)
		ptrace(PTRACE_SINGLESTEP, th->tid, NULL, (void *)(uintptr_t)sig);
	else if (th)
		resume(th->tid, sig);
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
 * has mapped every DT_NEEDED library: an execute breakpoint in the first
 * instruction slot, hwbp's own encoding (x86: DR0 with L0, R/W0 = 00,
 * LEN0 = 00, Intel SDM vol. 3 §17.2.4; arm64: DBGBCR0 BAS 0b1111), so
 * that no code byte changes.  The stop comes before the instruction
 * runs; the breakpoint is cleared there, so it runs when the thread goes
 * on (x86 sets RF anyway: hw_breakpoint_handler()).
 */
static int run_to_entry(pid_t pid, const struct hwbp_cpu *cpu, const char *cmd, char *err,
			size_t errlen)
{
	struct hwbp_regs r, off;
	struct hwbp_caps caps;
	struct hwbp_piece pc;
	uint64_t entry = 0;
	int st, ret = auxv_entry(pid, &entry);

	memset(&pc, 0, sizeof(pc));
	if (ret == 0)
		ret = hwbp_caps_get(cpu, &caps);
	if (ret == 0) {
		pc.addr = pc.cover_lo = entry;
		pc.len = pc.cover_len = caps.inst_len;
		pc.type = HWBP_X;
		hwbp_regs_reset(cpu, &off);
		r = off;
		ret = hwbp_encode_piece(cpu, &r, 0, true, &pc, HWBP_SCOPE_USER, true);
	}
	if (ret == 0)
		ret = hwbpi_linux_write(pid, cpu, &r);
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
	ret = hwbpi_linux_write(pid, cpu, &off);
	if (ret == 0)
		ret = hwbpi_linux_hit_done(pid);
	return ret;
}

static int spawn(struct hwbpi_ptrace **out, char *const argv[], int (*fn)(void *), void *arg,
		 char *err, size_t errlen)
{
	int pfd[2], e[2], st, ret;
	struct hwbp_cpu cpu;
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
	if (ret == 0)
		ret = native_cpu(pid, &cpu, err, errlen);
	if (ret == 0 && !fn)
		ret = run_to_entry(pid, &cpu, argv[0], err, errlen);
	if (ret == 0) {
		*out = session_new(pid, false, &cpu);
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

static int nothing(void *arg)
{
	(void)arg;
	return 0;
}

int hwbpi_ptrace_native_cpu(struct hwbp_cpu *cpu, char *err, size_t errlen)
{
	struct hwbpi_ptrace *s;
	int ret;

	if (!cpu)
		return -EINVAL;
	/* The regsets that say it need a stopped tracee: a child of ours,
	 * killed once asked (hwbpi_ptrace_free()). */
	ret = spawn(&s, NULL, nothing, NULL, err, errlen);
	if (ret == 0) {
		*cpu = s->cpu;
		hwbpi_ptrace_free(s);
	}
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
	struct hwbp_cpu cpu;
	int ret;

	if (!out || pid <= 0)
		return -EINVAL;
	*out = NULL;
	ret = hwbpi_ptrace_selftest(err, errlen);
	if (ret)
		return ret;
	/* A placeholder model until a thread is stopped to ask the kernel
	 * (GETREGSET needs a stopped tracee); no register is written before. */
	ret = hwbp_cpu_preset("x86_64", &cpu);
	s = ret ? NULL : session_new(pid, true, &cpu);
	if (!s)
		return ret ? ret : -ENOMEM;
	/* Threads may be created while we seize: again until none is new. */
	do
		ret = seize_threads(s, err, errlen);
	while (ret > 0);
	if (ret == 0 && !thr_find(s, pid)) {
		hwbpi_say(err, errlen, "process %d ended while being attached", (int)pid);
		ret = -ESRCH;
	}
	if (ret == 0)
		ret = native_cpu(pid, &cpu, err, errlen);
	if (ret == 0) {
		s->cpu = cpu;
		hwbp_regs_reset(&cpu, &s->off);
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
			hwbpi_linux_write(s->thr[i].tid, &s->cpu, &s->off);
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

/*
 * A hit @st of thread @th: decoded into the requests it names, kept in
 * the thread until emit() (at once, or after the step over it).
 */
static void take_hit(struct loop *L, struct thr *th, const struct hwbp_status *st)
{
	struct proc *p = proc_find(L->s, th->tgid);
	struct timespec ts;
	struct hwbp_hit hit;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	th->hit_req = 0;
	th->hit_ip = st->ip;
	th->hit_ts = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (p && p->watched && hwbp_decode(&L->ctx, 0, &L->task, st, NULL, &hit) == 0) {
		if (hit.filtered)
			L->t->filtered++;
		th->hit_req = hit.requests;
	}
}

/*
 * Feed the hit kept in @th to the tracer, once the access is done (x86:
 * at the trap; arm64: after the step).  The kind comes from the watched
 * bytes against the shadow copy (ptrace.h).
 */
static void emit(struct loop *L, struct thr *th)
{
	struct hwbpi_tracer *t = L->t;
	struct proc *p = proc_find(L->s, th->tgid);

	if (p && p->watched) {
		for (unsigned i = 0; i < t->nw; i++) {
			const struct hwbpi_watch *w = &t->w[i];
			const struct hwbp_plan *pl;
			struct hwbp_trace_event ev;
			bool changed = false;
			unsigned hwtype;

			if (w->req < 0 || !(th->hit_req & (UINT64_C(1) << w->req)))
				continue;
			pl = hwbp_plan_of(&L->ctx, w->req);
			hwtype = pl ? pl->type : w->type;
			if (w->len <= sizeof(L->cur) && read_mem(th->tid, w->addr, L->cur, w->len) == 0) {
				changed = memcmp(L->cur, p->shadow + L->off[i], w->len) != 0;
				memcpy(p->shadow + L->off[i], L->cur, w->len);
			}
			memset(&ev, 0, sizeof(ev));
			ev.ts = th->hit_ts;
			ev.ip = th->hit_ip;
			ev.addr = w->addr;
			ev.bp = (uint16_t)i;
			if (hwtype == HWBP_R) {
				/* A load-only watch (arm64 LSC 01): every hit
				 * is a read, the value says nothing (it may
				 * change between hits, by unwatched writes). */
				ev.kind = HWBP_R;
				ev.kind_how = HWBP_KIND_TYPE;
			} else if (changed) {
				/* With W in the hardware type every write is a
				 * hit, so the bytes changed at this one.  An R
				 * watch the hardware widened to RW (x86): a
				 * write is not what was asked for. */
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
	th->hit_req = 0;
}

/*
 * A debug-register hit of stopped thread @th: fed to the tracer now, or,
 * where the exception comes before the access and the kernel leaves the
 * step to the tracer (hwbpi_linux_step_over), once a single step with
 * the thread's slots cleared has run the instruction (th->step); the
 * caller resumes it with resume_thr(), which single-steps then.
 */
static void on_hit(struct loop *L, struct thr *th, const struct hwbp_status *st)
{
	take_hit(L, th, st);
	hwbpi_linux_hit_done(th->tid);
	if (hwbpi_linux_step_over &&
	    hwbpi_linux_write(th->tid, &L->s->cpu, &L->s->off) == 0) {
		th->step = true;
		return;
	}
	emit(L, th);
}

/*
 * The end of a step over a hit (a SIGTRAP stop of a stepping thread):
 * the slots back, and the hit fed to the tracer, unless @ran is false:
 * a signal handler was entered instead (the kernel reports that with
 * ptrace_notify(), si_code SIGTRAP: kernel/signal.c signal_delivered()),
 * so the instruction has not run and will trap again after the handler.
 */
static void step_done(struct loop *L, struct thr *th, bool ran)
{
	struct proc *p = proc_find(L->s, th->tgid);

	th->step = false;
	if (p && p->watched)
		hwbpi_linux_write(th->tid, &L->s->cpu, &L->regs);
	if (ran)
		emit(L, th);
	th->hit_req = 0;
}

/* First stop of a thread: give it the process's registers. */
static int arm(struct loop *L, struct thr *th)
{
	struct proc *p = proc_find(L->s, th->tgid);

	th->armed = true;
	if (!p || !p->watched)
		return 0;
	return hwbpi_linux_write(th->tid, &L->s->cpu, &L->regs);
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
	char why[160];

	if (ret == 0)
		ret = hwbp_task_init(&L->ctx, &L->task);
	for (unsigned i = 0; ret == 0 && i < t->nw; i++) {
		struct hwbpi_watch *w = &t->w[i];
		/* User addresses, local enable bits (x86 Ln: per task, as
		 * Linux itself programs them), R widened to RW where the CPU
		 * has no R (x86). */
		struct hwbp_request q = { w->addr, hwbpi_watch_len(w, cpu), w->type,
					  HWBP_SCOPE_USER, HWBP_REQ_WIDEN | HWBP_REQ_LOCAL };

		w->req = -1;
		if ((w->type & HWBP_X) && (w->type & HWBP_RW)) {
			hwbpi_say(err, errlen, "%s: watch data (rw) or execution (x), not both", w->name);
			return -EINVAL;
		}
		L->off[i] = L->shadow_len;
		L->shadow_len += w->len <= sizeof(L->cur) ? w->len : 0;
		ret = hwbp_install(&L->ctx, &q, 0, &L->task, &w->req);
		if (ret == -ENOSPC) {
			bool inst = (w->type & HWBP_X) && !L->ctx.caps.shared;
			unsigned n = inst ? L->ctx.caps.inst_slots : L->ctx.caps.data_slots;
			int fr = hwbp_free_slots(&L->ctx, 0, &L->task, inst);

			hwbpi_say(err, errlen, "%s: no free debug register: %d of %u in use by the other "
			    "watches (%u %s per thread here)", w->name, fr >= 0 ? (int)n - fr : -1, n, n,
			    inst ? "instruction breakpoints" : L->ctx.caps.shared ? "debug registers" :
			    "watchpoints");
		} else if (ret) {
			hwbpi_say(err, errlen, "%s: %s (%s)", w->name, hwbp_errno_name(ret),
			    ret == -ERANGE ? "larger than this CPU can watch" :
			    ret == -EOPNOTSUPP ? "a type this CPU lacks" :
			    ret == -EFAULT ? "not a user-space address" : "refused by the planner");
		}
		/* Pieces the kernel cannot program through ptrace (arm64 MASK
		 * blocks): refused here rather than watched wrongly. */
		const struct hwbp_plan *pl = ret ? NULL : hwbp_plan_of(&L->ctx, w->req);

		for (unsigned k = 0; pl && ret == 0 && k < pl->n; k++) {
			ret = hwbpi_linux_piece_ok(cpu, pl->inst, &pl->piece[k], why, sizeof(why));
			if (ret)
				hwbpi_say(err, errlen, "%s: %s", w->name, why);
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
	struct hwbp_caps want, have;
	struct loop *L;
	bool stopping = false;
	int ret;

	if (!s || !t || s->traced || t->nw == 0)
		return -EINVAL;
	/*
	 * A model given by the caller must be one the kernel can program:
	 * the same architecture, no more slots or longer pieces than the
	 * kernel's own model (e.g. i386 on x86_64 is fine, cortex-a57 on an
	 * arm64 kernel with 4 watchpoints too).
	 */
	if (cpu && (hwbp_caps_get(cpu, &want) || hwbp_caps_get(&s->cpu, &have) ||
		    want.arch != have.arch || want.data_slots > have.data_slots ||
		    want.inst_slots > have.inst_slots || want.max_piece > have.max_piece)) {
		hwbpi_say(err, errlen, "the ptrace backend needs a CPU model this kernel can program "
		    "(here %s with %u watchpoints and %u breakpoints), not %s", hwbp_arch_name(s->cpu.arch),
		    hwbp_caps_get(&s->cpu, &have) ? 0 : have.data_slots, have.inst_slots,
		    cpu->name[0] ? cpu->name : hwbp_arch_name(cpu->arch));
		return -EINVAL;
	}
	if (!cpu)
		cpu = &s->cpu;
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
		ret = hwbpi_linux_write(s->thr[i].tid, &s->cpu, &L->regs);
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
		resume_thr(&s->thr[i], s->thr[i].pending);
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
			hwbpi_linux_write(w, &s->cpu, &s->off);
			if (ev == 0 && sig == SIGTRAP) {
				ptrace(PTRACE_DETACH, w, NULL, NULL);   /* suppressed */
			} else if (trap_pending(w)) {
				th->step = false;
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
				resume_thr(th, 0);
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
			/* thr_add() may have moved the array. */
			resume_thr(thr_find(s, w), 0);
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
			th = thr_find(s, w);
			if (th)
				th->step = false;   /* exec ends a step (new image) */
			resume_thr(th, 0);
		} else if (ev == PTRACE_EVENT_STOP) {
			/* Seized: group-stop stays stopped (PTRACE_LISTEN);
			 * an interrupt stop goes on. */
			if (stop_sig(sig))
				ptrace(PTRACE_LISTEN, w, NULL, NULL);
			else
				resume_thr(th, 0);
		} else if (ev) {
			resume_thr(th, 0);
		} else if (sig == SIGTRAP) {
			struct proc *p = proc_find(s, th->tgid);
			struct hwbp_status hs;
			siginfo_t si;

			if (ptrace(PTRACE_GETSIGINFO, w, NULL, &si))
				memset(&si, 0, sizeof(si));
			/* The step over a hit is done (TRAP_TRACE; a step
			 * over a system call may report SI_USER from the
			 * kernel, si_pid 0: user_single_step_report()), or
			 * (si_code SIGTRAP) a handler was entered first. */
			if (th->step && (si.si_code > 0 || (si.si_code == SI_USER && si.si_pid == 0))) {
				step_done(L, th, si.si_code != SIGTRAP);
				resume_thr(th, 0);
			} else if (!th->step &&
				   hwbpi_linux_hit(w, &s->cpu, p && p->watched ? &L->regs : &s->off,
						   &si, &hs) == 0) {
				on_hit(L, th, &hs);
				resume_thr(th, 0);
			} else {
				resume_thr(th, SIGTRAP);   /* the program's own */
			}
		} else if (stop_sig(sig) && group_stop(w)) {
			resume_thr(th, 0);
		} else {
			/* A signal while stepping over a hit: delivered with
			 * the step (the handler's entry ends it, above). */
			resume_thr(th, sig);
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
		if (ret == 0 && hwbpi_tracer_hits(t) != 3) {
			hwbpi_say(err, errlen, "hardware breakpoints do not fire on this machine "
			    "(self-test: %" PRIu64 " of 3 writes seen)", hwbpi_tracer_hits(t));
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
