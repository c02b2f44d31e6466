/* SPDX-License-Identifier: MIT */
/*
 * Deterministic kernel workloads for the kernel tracer's tests
 * (tests/trace/kernel_test.sh): each mode makes a known number of
 * accesses to a kernel variable, by system calls whose kernel code is
 * cited there (Linux 6.1), and nothing else that touches it -- no shell,
 * no fork unless asked, one read(2) or write(2) per file opened.
 *
 *   kwork sysctl N M   N x {open /proc/sys/kernel/pid_max, one read at
 *                      offset 0, close}, then M x {open, write its value
 *                      back in one write(2), close}
 *   kwork fork K       K x {fork; the child _exit(0)s; waitpid}
 *   kwork sysinfo S    S x sysinfo(2)
 *   kwork loadavg L    L x {open /proc/loadavg, one read, close}
 *   kwork pidmax V...  one read of /proc/sys/kernel/pid_max (its value P),
 *                      then one write(2) of each V in turn, then one of P:
 *                      pid_max is P again at the end (a workload whose
 *                      writes change the value: "pidmax P V... P")
 *   kwork ttl N        one read of /proc/sys/net/ipv4/ip_default_ttl (its
 *                      value T), then N write(2)s there: 64, 65, 64, ...,
 *                      the last one T: N writes, and the value is T again
 *                      at the end (T too if a write fails)
 *   kwork procs M      /proc/stat's "processes" line read (open, read to
 *                      EOF, close), M x {fork; the child _exit(0)s;
 *                      waitpid}, read again: prints both and their
 *                      difference (the kernel's total_forks, every task
 *                      created in between, this program's M included)
 *   kwork btfoff STRUCT A.B.C  the byte offset of member A.B.C in struct
 *                      STRUCT, read from the kernel's BTF
 *                      (/sys/kernel/btf/vmlinux) by this program, not
 *                      libbpf: an oracle for hwbp's typed names
 *   kwork sleep MS     sleep (a command that bounds a trace)
 *   kwork slots ADDR   kernel-mode W breakpoints on ADDR on CPU 0, opened
 *                      until the kernel refuses one: prints how many it
 *                      took (the debug registers free on that CPU)
 *   kwork bpfprogs     prints the number of loaded BPF programs whose name
 *                      starts with "hwbp" (BPF_PROG_GET_NEXT_ID)
 *   kwork fpos N MS    one file of /tmp opened, one write(2) of a byte
 *                      ("first S E": CLOCK_MONOTONIC ns before and after
 *                      it), MS ms of sleep, N write(2)s of a byte ("writes
 *                      N from S to E"), MS ms of sleep, closed and
 *                      unlinked ("closed S E"): in Linux 6.1 and later
 *                      each write(2) stores the file's f_pos once
 *                      (ksys_write(): f.file->f_pos = pos after
 *                      vfs_write()), and the close's last fput() runs
 *                      __fput() before the close returns to user space
 *                      (task_work)
 *   kwork timed MODE.. MODE, then "elapsed_ns N": its time (CLOCK_MONOTONIC)
 * It prints what it did ("sysctl reads 50 writes 20") and exits 0, or
 * 1 with a message.  Static, no library beyond libc: it runs in the
 * busybox guests.
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../guest/open_until.h"

static int die(const char *what)
{
	fprintf(stderr, "kwork: %s: %s\n", what, strerror(errno));
	return 1;
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "kwork: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

/* One open, one read(2) at offset 0, close: the file's show function or
 * sysctl handler runs once. */
static int read_once(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = read(fd, buf, n - 1);
	close(fd);
	if (r < 0)
		return -1;
	buf[r] = '\0';
	return 0;
}

static int sysctl(unsigned long n, unsigned long m)
{
	const char *path = "/proc/sys/kernel/pid_max";
	char buf[64];

	for (unsigned long i = 0; i < n; i++)
		if (read_once(path, buf, sizeof(buf)))
			return die(path);
	/* The value written back is the last one read (one more read when
	 * none was asked for): pid_max does not change. */
	if (m && n == 0 && read_once(path, buf, sizeof(buf)))
		return die(path);
	for (unsigned long i = 0; i < m; i++) {
		int fd = open(path, O_WRONLY);
		size_t len = strlen(buf);

		if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
			return die(path);
		close(fd);
	}
	printf("sysctl reads %lu writes %lu\n", n + (m && n == 0 ? 1 : 0), m);
	return 0;
}

static int write_once(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY);
	size_t len = strlen(v);
	ssize_t w;

	if (fd < 0)
		return -1;
	w = write(fd, v, len);
	close(fd);
	return w == (ssize_t)len ? 0 : -1;
}

static int pidmax(int n, char **v)
{
	const char *path = "/proc/sys/kernel/pid_max";
	char was[64];
	int i;

	if (read_once(path, was, sizeof(was)))
		return die(path);
	was[strcspn(was, "\n")] = '\0';
	for (i = 0; i < n; i++)
		if (write_once(path, v[i])) {
			int e = errno;

			/* the value it had, whatever failed */
			write_once(path, was);
			errno = e;
			return die(v[i]);
		}
	if (write_once(path, was))
		return die(path);
	printf("pidmax %s", was);
	for (i = 0; i < n; i++)
		printf(" %s", v[i]);
	printf(" %s\n", was);
	return 0;
}

static int ttl(unsigned long n)
{
	const char *path = "/proc/sys/net/ipv4/ip_default_ttl";
	char was[32];

	if (read_once(path, was, sizeof(was)))
		return die(path);
	was[strcspn(was, "\n")] = '\0';
	for (unsigned long i = 0; i < n; i++) {
		const char *v = i + 1 == n ? was : i % 2 ? "65" : "64";

		if (write_once(path, v)) {
			int e = errno;

			write_once(path, was);
			errno = e;
			return die(path);
		}
	}
	printf("ttl %s writes %lu\n", was, n);
	return 0;
}

/* /proc/stat's "processes" (total_forks, fs/proc/stat.c): one open, reads
 * to EOF (the file is longer than one page with many CPUs), close. */
static int processes(unsigned long long *v)
{
	static char buf[1 << 16];
	size_t k = 0;
	ssize_t r;
	char *p;
	int fd = open("/proc/stat", O_RDONLY);

	if (fd < 0)
		return -1;
	while (k < sizeof(buf) - 1 && (r = read(fd, buf + k, sizeof(buf) - 1 - k)) > 0)
		k += (size_t)r;
	close(fd);
	buf[k] = '\0';
	p = strstr(buf, "\nprocesses ");
	if (!p) {
		errno = ENOENT;
		return -1;
	}
	*v = strtoull(p + 11, NULL, 10);
	return 0;
}

/* @k children, each one _exit(0)ing and reaped before the next: 0, or
 * die()'s status. */
static int fork_wait(unsigned long k)
{
	for (unsigned long i = 0; i < k; i++) {
		pid_t p = fork();
		int st;

		if (p < 0)
			return die("fork");
		if (p == 0)
			_exit(0);
		if (waitpid(p, &st, 0) != p)
			return die("waitpid");
	}
	return 0;
}

static int procs(unsigned long m)
{
	unsigned long long a, b;

	if (processes(&a))
		return die("/proc/stat");
	if (fork_wait(m))
		return 1;
	if (processes(&b))
		return die("/proc/stat");
	printf("procs forks %lu processes %llu %llu delta %llu\n", m, a, b, b - a);
	return 0;
}

/* ---- A reader of the kernel's BTF (include/uapi/linux/btf.h), enough to
 * find a member's offset: independent of libbpf, which hwbp uses. */

struct btfr {
	const unsigned char *types, *strs;
	uint32_t tlen, slen;
	uint32_t n;              /* types, ids 1..n */
	uint32_t *at;            /* each id's offset in types */
};

static const struct btf_type *btf_t(const struct btfr *b, uint32_t id)
{
	return id && id <= b->n ? (const struct btf_type *)(const void *)(b->types + b->at[id]) : NULL;
}

static const char *btf_s(const struct btfr *b, uint32_t off)
{
	return off < b->slen ? (const char *)b->strs + off : "";
}

/* The size of type @t's data after struct btf_type, or -1: unknown kind. */
static long btf_extra(const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return (long)sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return (long)(vlen * sizeof(struct btf_member));
	case BTF_KIND_ENUM:
		return (long)(vlen * sizeof(struct btf_enum));
	case BTF_KIND_FUNC_PROTO:
		return (long)(vlen * sizeof(struct btf_param));
	case BTF_KIND_DATASEC:
		return (long)(vlen * sizeof(struct btf_var_secinfo));
	case BTF_KIND_ENUM64:
		return (long)(vlen * sizeof(struct btf_enum64));
	default:
		return -1;
	}
}

static int btf_load(struct btfr *b, const char *path)
{
	static unsigned char buf[32 << 20] __attribute__((aligned(8)));
	const struct btf_header *h = (const void *)buf;
	size_t k = 0, cap = 1024;
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while (k < sizeof(buf) && (r = read(fd, buf + k, sizeof(buf) - k)) > 0)
		k += (size_t)r;
	close(fd);
	if (k < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > k ||
	    (size_t)h->hdr_len + h->type_off + h->type_len > k ||
	    (size_t)h->hdr_len + h->str_off + h->str_len > k) {
		errno = EINVAL;
		return -1;
	}
	b->types = buf + h->hdr_len + h->type_off;
	b->tlen = h->type_len;
	b->strs = buf + h->hdr_len + h->str_off;
	b->slen = h->str_len;
	b->n = 0;
	b->at = malloc(cap * sizeof(*b->at));
	for (uint32_t off = 0; b->at && off + sizeof(struct btf_type) <= b->tlen;) {
		const struct btf_type *t = (const void *)(b->types + off);
		long x = btf_extra(t);

		if (x < 0) {
			errno = EINVAL;
			return -1;
		}
		if (b->n + 2 > cap) {
			uint32_t *m = realloc(b->at, 2 * cap * sizeof(*b->at));

			if (!m)
				break;
			b->at = m;
			cap *= 2;
		}
		b->at[++b->n] = off;
		off += (uint32_t)(sizeof(*t) + (size_t)x);
	}
	if (!b->at) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* @id without typedefs and qualifiers. */
static uint32_t btf_strip(const struct btfr *b, uint32_t id)
{
	const struct btf_type *t;

	for (int i = 0; i < 32 && (t = btf_t(b, id)); i++) {
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		default:
			return id;
		}
	}
	return id;
}

static int btfoff(const char *sname, const char *path)
{
	struct btfr b;
	const struct btf_type *t = NULL;
	unsigned long long off = 0;
	char name[128];

	if (btf_load(&b, "/sys/kernel/btf/vmlinux"))
		return die("/sys/kernel/btf/vmlinux");
	for (uint32_t id = 1; id <= b.n && !t; id++) {
		const struct btf_type *c = btf_t(&b, id);

		if (BTF_INFO_KIND(c->info) == BTF_KIND_STRUCT && BTF_INFO_VLEN(c->info) &&
		    !strcmp(btf_s(&b, c->name_off), sname))
			t = c;
	}
	for (const char *p = path; t && *p;) {
		size_t len = strcspn(p, ".");
		const struct btf_member *m = (const void *)(t + 1);
		uint32_t i, vlen = BTF_INFO_VLEN(t->info);

		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		for (i = 0; i < vlen && strcmp(btf_s(&b, m[i].name_off), name); i++)
			;
		if (i == vlen) {
			fprintf(stderr, "kwork: btfoff: no member '%s' in %s\n", name,
				btf_s(&b, t->name_off));
			return 1;
		}
		/* (kind_flag: bitfield size in the top 8 bits, offset below) */
		off += (BTF_INFO_KFLAG(t->info) ? m[i].offset & 0xffffff : m[i].offset) / 8;
		p += len + (p[len] == '.');
		if (*p) {
			t = btf_t(&b, btf_strip(&b, m[i].type));
			if (!t || (BTF_INFO_KIND(t->info) != BTF_KIND_STRUCT &&
				   BTF_INFO_KIND(t->info) != BTF_KIND_UNION)) {
				fprintf(stderr, "kwork: btfoff: '%s' is no struct or union\n", name);
				return 1;
			}
		}
	}
	if (!t) {
		fprintf(stderr, "kwork: btfoff: no struct %s in the kernel's BTF\n", sname);
		return 1;
	}
	printf("btfoff %s %s %llu\n", sname, path, off);
	free(b.at);
	return 0;
}

static int forks(unsigned long k)
{
	if (fork_wait(k))
		return 1;
	printf("forks %lu\n", k);
	return 0;
}

static int slots(uint64_t addr)
{
	struct perf_event_attr a;
	int fds[64], n, err;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = addr;
	a.bp_len = HW_BREAKPOINT_LEN_4;
	a.exclude_user = 1;
	a.exclude_hv = 1;
	n = open_until(&a, -1, 0, fds, 64, &err);
	printf("slots %d (then %s)\n", n, strerror(err));
	while (n > 0)
		close(fds[--n]);
	return 0;
}

static int bpfprogs(void)
{
	union bpf_attr a;
	unsigned id = 0, n = 0;

	for (;;) {
		struct bpf_prog_info info;
		long fd;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (syscall(SYS_bpf, BPF_PROG_GET_NEXT_ID, &a, sizeof(a)) < 0)
			break;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.prog_id = id;
		fd = syscall(SYS_bpf, BPF_PROG_GET_FD_BY_ID, &a, sizeof(a));
		if (fd < 0)
			continue;   /* gone meanwhile */
		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = (unsigned)fd;
		a.info.info_len = sizeof(info);
		a.info.info = (uintptr_t)&info;
		if (syscall(SYS_bpf, BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)) == 0 &&
		    strncmp(info.name, "hwbp", 4) == 0)
			n++;
		close((int)fd);
	}
	if (errno != ENOENT)
		return die("BPF_PROG_GET_NEXT_ID");
	printf("bpfprogs %u\n", n);
	return 0;
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int fpos(unsigned long n, unsigned long ms)
{
	char path[64];
	long long s, e;
	int fd;

	snprintf(path, sizeof(path), "/tmp/kwork-fpos.%d", (int)getpid());
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		return die(path);
	s = mono_ns();
	if (write(fd, "x", 1) != 1)
		return die("write");
	e = mono_ns();
	printf("first %lld %lld\n", s, e);
	sleep_ms(ms);
	s = mono_ns();
	for (unsigned long i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			return die("write");
	e = mono_ns();
	printf("writes %lu from %lld to %lld\n", n, s, e);
	sleep_ms(ms);
	s = mono_ns();
	if (close(fd))
		return die("close");
	e = mono_ns();
	unlink(path);
	printf("closed %lld %lld\n", s, e);
	return 0;
}

static int run(int argc, char **argv)
{
	char buf[256];

	if (argc == 4 && !strcmp(argv[1], "sysctl"))
		return sysctl(num(argv[2]), num(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "fork"))
		return forks(num(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "sysinfo")) {
		struct sysinfo si;
		unsigned long s = num(argv[2]);

		for (unsigned long i = 0; i < s; i++)
			if (sysinfo(&si))
				return die("sysinfo");
		printf("sysinfo %lu\n", s);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "loadavg")) {
		unsigned long l = num(argv[2]);

		for (unsigned long i = 0; i < l; i++)
			if (read_once("/proc/loadavg", buf, sizeof(buf)))
				return die("/proc/loadavg");
		printf("loadavg %lu\n", l);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "pidmax"))
		return pidmax(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "ttl"))
		return ttl(num(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "procs"))
		return procs(num(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "btfoff"))
		return btfoff(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "sleep")) {
		unsigned long ms = num(argv[2]);
		struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "slots"))
		return slots(num(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "bpfprogs"))
		return bpfprogs();
	if (argc == 4 && !strcmp(argv[1], "fpos"))
		return fpos(num(argv[2]), num(argv[3]));
	fprintf(stderr, "usage: kwork [timed] sysctl N M | fork K | sysinfo S | loadavg L | "
		"pidmax V... | ttl N | procs M | btfoff STRUCT A.B | sleep MS | slots ADDR | "
		"bpfprogs | fpos N MS\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	int ret;

	if (argc < 3 || strcmp(argv[1], "timed"))
		return run(argc, argv);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = run(argc - 1, argv + 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("elapsed_ns %lld\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t1.tv_nsec - t0.tv_nsec));
	return ret;
}
