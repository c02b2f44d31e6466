/* SPDX-License-Identifier: MIT */
/*
 * Counting breakpoint hits in the kernel (tracer/backends/perf/bpf.h): the loader of the
 * BPF program tracer/backends/perf/bpf/hist.bpf.c, which the build embeds in this
 * library as bytes (hwbpi_bpf_obj), through libbpf: open the object from
 * memory, size the maps and set the program's constants, load (the
 * verifier runs here), fill the function table, attach with BPF links.
 * Built without BPF, every entry point says so (the end of this file).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backends/perf/bpf.h"
#include "session/backend.h"

void hwbpi_bpf_log_tail(const char *log, char *out, size_t outlen)
{
	const char *end, *start;
	size_t n;

	if (!out || outlen == 0)
		return;
	out[0] = 0;
	if (!log)
		return;
	end = log + strlen(log);
	/* Skip trailing newlines (and blank lines), then find the line's start. */
	while (end > log && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	start = end;
	while (start > log && start[-1] != '\n')
		start--;
	n = (size_t)(end - start);
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, start, n);
	out[n] = 0;
}

#if defined(HWBP_HAVE_BPF)

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "backends/perf/bpf_abi.h"

/* tracer/backends/perf/bpf/embed.py's output: the stripped object. */
extern const unsigned char hwbpi_bpf_obj[];
extern const size_t hwbpi_bpf_obj_len;

/* The verifier's log of a refused load (libbpf retries a failed load with
 * log level 1 into this buffer: bpf_object_load_prog()). */
#define LOG_SIZE (256u * 1024u)

/*
 * One loaded copy of the program, for one cookie.  Not one program with
 * the link's cookie (bpf_get_attach_cookie()): an event inherited by a
 * thread or child created later runs its parent's program but without
 * the cookie (kernel/events/core.c perf_event_alloc() copies
 * parent_event->prog, not bpf_cookie), so its hits would all count under
 * cookie 0.  Each copy has its own .data (the cookie in its
 * configuration) and shares the maps of the first.
 */
struct inst {
	struct bpf_object *obj;
	int prog_fd, data_fd;
	uint32_t cookie;
};

struct hwbpi_bpf {
	struct inst *inst;      /* [0] created the maps */
	unsigned ninst, icap;
	bool inst0_used;        /* inst[0].cookie is set */
	struct hwbpi_bpf_cfg cfg;
	int funcs_fd, counts_fd, watches_fd, lost_fd, vals_fd, out_fd;
	unsigned nwatch, entries, ncpus;
	size_t nfunc;
	int *links;             /* BPF link fds, one per attached event */
	unsigned nlinks, cap;
};

/* libbpf's messages: never on our stderr; the last warning of this thread
 * that says what failed is kept (without libbpf's prefix) for the error
 * line of a failure that has no verifier log (map creation, ELF parsing).
 * bpf_object__load() ends every failure with "failed to load object",
 * which says nothing more. */
static _Thread_local char last_warn[256];

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static const char prefix[] = "libbpf: ";
	char line[sizeof(last_warn)];
	const char *l = line;

	if (level != LIBBPF_WARN)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	if (strncmp(l, prefix, sizeof(prefix) - 1) == 0)
		l += sizeof(prefix) - 1;
	if (strncmp(l, "failed to load object", 21) != 0)
		hwbpi_bpf_log_tail(l, last_warn, sizeof(last_warn));
	return 0;
}

static pthread_once_t print_once = PTHREAD_ONCE_INIT;

static void set_print(void)
{
	libbpf_set_print(print_fn);
}

static bool args_ok(unsigned nwatch, unsigned entries, const uint64_t *starts, size_t nfunc,
		    char *err, size_t errlen)
{
	if (nwatch == 0 || nwatch > HWBPI_BPF_MAX_WATCH + 1u || entries == 0) {
		hwbpi_say(err, errlen, "bpf: %u watches of %u entries each: need 1 to %u watches and "
		    "at least 1 entry (EINVAL)", nwatch, entries, HWBPI_BPF_MAX_WATCH + 1u);
		return false;
	}
	if ((uint64_t)nwatch * entries > UINT32_MAX) {
		hwbpi_say(err, errlen, "bpf: %u watches of %u entries each: more than %u entries in all "
		    "(EINVAL)", nwatch, entries, UINT32_MAX);
		return false;
	}
	if ((nfunc && !starts) || nfunc > UINT32_MAX) {
		hwbpi_say(err, errlen, "bpf: no function table, or more than %u functions (EINVAL)",
		    UINT32_MAX);
		return false;
	}
	for (size_t i = 1; i < nfunc; i++) {
		if (starts[i] < starts[i - 1]) {
			hwbpi_say(err, errlen, "bpf: function start %zu (0x%llx) is below the one before "
			    "it (0x%llx): the table must be ascending (EINVAL)", i,
			    (unsigned long long)starts[i], (unsigned long long)starts[i - 1]);
			return false;
		}
	}
	return true;
}

/* The map @name of @obj: sized @n (the first copy), or the first copy's
 * map @fd (the others: bpf_map__reuse_fd()). */
static int size_map(struct bpf_object *obj, const char *name, uint32_t n, int fd)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	if (!m)
		return -ENOENT;
	return fd >= 0 ? bpf_map__reuse_fd(m, fd) : bpf_map__set_max_entries(m, n);
}

/* libbpf's map of the object's .data, "<object>.data". */
static struct bpf_map *data_map(struct bpf_object *obj)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj) {
		const char *name = bpf_map__name(m);
		size_t len = strlen(name);

		if (bpf_map__is_internal(m) && len >= 5 && strcmp(name + len - 5, ".data") == 0)
			return m;
	}
	return NULL;
}

/* Open the embedded object for @in: its maps sized (or the first copy's),
 * its configuration set. */
static int prepare(const struct hwbpi_bpf *b, struct inst *in, bool first, char *err,
		   size_t errlen)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "hwbp");
	struct bpf_map *data;
	size_t sz = 0;
	int ret;

	in->obj = bpf_object__open_mem(hwbpi_bpf_obj, hwbpi_bpf_obj_len, &oo);
	if (!in->obj) {
		ret = -errno;
		hwbpi_say(err, errlen, "bpf: cannot open the embedded BPF object: %s (%s)", last_warn,
		    hwbp_errno_name(ret));
		return ret;
	}
	ret = bpf_object__find_program_by_name(in->obj, HWBPI_BPF_PROG_NAME) ? 0 : -ENOENT;
	if (ret == 0)
		ret = size_map(in->obj, "hwbp_funcs", b->nfunc ? (uint32_t)b->nfunc : 1u,
			       first ? -1 : b->funcs_fd);
	if (ret == 0)
		ret = size_map(in->obj, "hwbp_counts", b->nwatch * b->entries,
			       first ? -1 : b->counts_fd);
	if (ret == 0)
		ret = size_map(in->obj, "hwbp_watches", b->nwatch, first ? -1 : b->watches_fd);
	if (ret == 0 && !first)
		ret = size_map(in->obj, "hwbp_lost", 2, b->lost_fd);
	if (ret == 0)
		ret = size_map(in->obj, "hwbp_vals", b->nwatch, first ? -1 : b->vals_fd);
	if (ret == 0)
		ret = size_map(in->obj, "hwbp_out", b->ncpus, first ? -1 : b->out_fd);
	data = data_map(in->obj);
	if (ret == 0 && (!data || !bpf_map__initial_value(data, &sz) || sz != sizeof(b->cfg)))
		ret = -ENOENT;
	if (ret == 0)
		ret = bpf_map__set_initial_value(data, &b->cfg, sizeof(b->cfg));
	if (ret)
		hwbpi_say(err, errlen, "bpf: the embedded BPF object is not the one this library "
		    "expects (%s)", hwbp_errno_name(ret));
	return ret;
}

static int say_load(int ret, const char *log, char *err, size_t errlen)
{
	char tail[200];

	if (ret == -EPERM) {
		hwbpi_say(err, errlen, "bpf: the kernel refused to load the BPF program: it needs "
		    "CAP_BPF and CAP_PERFMON, or root (EPERM)");
		return ret;
	}
	hwbpi_bpf_log_tail(log, tail, sizeof(tail));
	if (tail[0])
		hwbpi_say(err, errlen, "bpf: the kernel's verifier refused the BPF program: %s (%s)",
		    tail, hwbp_errno_name(ret));
	else
		hwbpi_say(err, errlen, "bpf: cannot load the BPF program: %s (%s)", last_warn,
		    hwbp_errno_name(ret));
	return ret;
}

/* Load a copy of the program with b->cfg (its cookie included) into
 * b->inst[b->ninst] (room made by the caller). */
static int load_inst(struct hwbpi_bpf *b, char *err, size_t errlen)
{
	struct inst *in = &b->inst[b->ninst];
	bool first = b->ninst == 0;
	char *log;
	int ret;

	memset(in, 0, sizeof(*in));
	in->prog_fd = in->data_fd = -1;
	in->cookie = b->cfg.cookie;
	last_warn[0] = 0;
	ret = prepare(b, in, first, err, errlen);
	if (ret) {
		bpf_object__close(in->obj);
		return ret;
	}
	log = malloc(LOG_SIZE);
	if (!log) {
		bpf_object__close(in->obj);
		hwbpi_say(err, errlen, "bpf: out of memory (ENOMEM)");
		return -ENOMEM;
	}
	log[0] = 0;
	ret = bpf_program__set_log_buf(bpf_object__find_program_by_name(in->obj,
	    HWBPI_BPF_PROG_NAME), log, LOG_SIZE);
	if (ret == 0) {
		ret = bpf_object__load(in->obj);
		if (ret)
			say_load(ret, log, err, errlen);
	}
	free(log);
	if (ret) {
		bpf_object__close(in->obj);
		return ret;
	}
	in->prog_fd = bpf_program__fd(bpf_object__find_program_by_name(in->obj,
	    HWBPI_BPF_PROG_NAME));
	in->data_fd = bpf_map__fd(data_map(in->obj));
	if (first) {
		b->funcs_fd = bpf_map__fd(bpf_object__find_map_by_name(in->obj, "hwbp_funcs"));
		b->counts_fd = bpf_map__fd(bpf_object__find_map_by_name(in->obj, "hwbp_counts"));
		b->watches_fd = bpf_map__fd(bpf_object__find_map_by_name(in->obj, "hwbp_watches"));
		b->lost_fd = bpf_map__fd(bpf_object__find_map_by_name(in->obj, "hwbp_lost"));
		b->vals_fd = bpf_map__fd(bpf_object__find_map_by_name(in->obj, "hwbp_vals"));
		b->out_fd = bpf_map__fd(bpf_object__find_map_by_name(in->obj, "hwbp_out"));
	}
	b->ninst++;
	return 0;
}

/* The function table into hwbp_funcs: one batch (BPF_MAP_UPDATE_BATCH,
 * Linux 5.6: kernel/bpf/syscall.c generic_map_update_batch()). */
static int fill_funcs(struct hwbpi_bpf *b, const uint64_t *starts, size_t nfunc)
{
	uint32_t *keys, count = (uint32_t)nfunc;
	int ret;

	if (nfunc == 0)
		return 0;
	keys = malloc(nfunc * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < nfunc; i++)
		keys[i] = (uint32_t)i;
	ret = bpf_map_update_batch(b->funcs_fd, keys, starts, &count, NULL);
	free(keys);
	if (ret == 0 && count != nfunc)
		ret = -EIO;
	return ret;
}

static struct hwbpi_bpf *alloc_bpf(unsigned nwatch, unsigned entries, size_t nfunc,
				   uint64_t ip_adjust, char *err, size_t errlen)
{
	struct hwbpi_bpf *b;

	pthread_once(&print_once, set_print);
	b = calloc(1, sizeof(*b));
	if (b)
		b->inst = calloc(4, sizeof(*b->inst));
	if (!b || !b->inst) {
		free(b);
		hwbpi_say(err, errlen, "bpf: out of memory (ENOMEM)");
		return NULL;
	}
	b->icap = 4;
	b->nwatch = nwatch;
	b->entries = entries;
	b->nfunc = nfunc;
	b->ncpus = 1;
	b->cfg.ip_adjust = ip_adjust;
	b->cfg.nfunc = (uint32_t)nfunc;
	b->cfg.entries = entries;
	b->funcs_fd = b->counts_fd = b->watches_fd = b->lost_fd = b->vals_fd = b->out_fd = -1;
	return b;
}

int hwbpi_bpf_open(struct hwbpi_bpf **out, unsigned nwatch, unsigned entries,
		   const uint64_t *starts, size_t nfunc, uint64_t ip_adjust, char *err,
		   size_t errlen)
{
	struct hwbpi_bpf *b;
	int ret;

	if (!out) {
		hwbpi_say(err, errlen, "bpf: nowhere to put the program (EINVAL)");
		return -EINVAL;
	}
	*out = NULL;
	if (!args_ok(nwatch, entries, starts, nfunc, err, errlen))
		return -EINVAL;
	b = alloc_bpf(nwatch, entries, nfunc, ip_adjust, err, errlen);
	if (!b)
		return -ENOMEM;
	/* The first copy now, with no cookie yet: the verifier's answer and
	 * the maps' sizes are known here, before any event. */
	ret = load_inst(b, err, errlen);
	if (ret == 0) {
		ret = fill_funcs(b, starts, nfunc);
		if (ret)
			hwbpi_say(err, errlen, "bpf: cannot fill the function table: %s",
			    hwbp_errno_name(ret));
	}
	if (ret) {
		hwbpi_bpf_close(b);
		return ret;
	}
	*out = b;
	return 0;
}

int hwbpi_bpf_open_values(struct hwbpi_bpf **out, unsigned nwatch, const uint64_t *addr,
			  const unsigned *len, unsigned ncpus, char *err, size_t errlen)
{
	struct hwbpi_bpf *b;
	int ret;

	if (!out || !addr || !len || nwatch == 0 || nwatch > HWBPI_BPF_MAX_WATCH + 1u ||
	    ncpus == 0) {
		hwbpi_say(err, errlen, "bpf: values of %u watches on %u CPUs: need 1 to %u watches, "
		    "their addresses and lengths, and a CPU (EINVAL)", nwatch, ncpus,
		    HWBPI_BPF_MAX_WATCH + 1u);
		if (out)
			*out = NULL;
		return -EINVAL;
	}
	*out = NULL;
	b = alloc_bpf(nwatch, 1, 0, 0, err, errlen);
	if (!b)
		return -ENOMEM;
	b->ncpus = ncpus;
	b->cfg.values = 1;
	ret = load_inst(b, err, errlen);
	for (unsigned w = 0; ret == 0 && w < nwatch; w++) {
		struct hwbpi_bpf_val v = { addr[w], len[w] < 8 ? len[w] : 8, 0, 0 };

		ret = bpf_map_update_elem(b->vals_fd, &w, &v, BPF_ANY);
		if (ret)
			hwbpi_say(err, errlen, "bpf: cannot set watch %u's address: %s", w,
			    hwbp_errno_name(ret));
	}
	if (ret) {
		hwbpi_bpf_close(b);
		return ret;
	}
	*out = b;
	return 0;
}

int hwbpi_bpf_seed(struct hwbpi_bpf *b, unsigned watch, uint64_t bytes, char *err,
		   size_t errlen)
{
	struct hwbpi_bpf_val v;
	int ret;

	if (!b || !b->cfg.values || watch >= b->nwatch) {
		hwbpi_say(err, errlen, "bpf: no watch %u to seed: %s (EINVAL)", watch,
		    !b || !b->cfg.values ? "not a values program" : "no such watch");
		return -EINVAL;
	}
	ret = bpf_map_lookup_elem(b->vals_fd, &watch, &v);
	if (ret == 0) {
		v.shadow = bytes;
		v.seen = 1;
		ret = bpf_map_update_elem(b->vals_fd, &watch, &v, BPF_ANY);
	}
	if (ret)
		hwbpi_say(err, errlen, "bpf: cannot seed watch %u: %s", watch, hwbp_errno_name(ret));
	return ret;
}

int hwbpi_bpf_set_output(struct hwbpi_bpf *b, unsigned cpu, int perf_fd, char *err,
			 size_t errlen)
{
	int ret;

	if (!b || !b->cfg.values || cpu >= b->ncpus) {
		hwbpi_say(err, errlen, "bpf: no output for CPU %u: %s (EINVAL)", cpu,
		    !b || !b->cfg.values ? "not a values program" : "no such CPU");
		return -EINVAL;
	}
	ret = bpf_map_update_elem(b->out_fd, &cpu, &perf_fd, BPF_ANY);
	if (ret)
		hwbpi_say(err, errlen, "bpf: CPU %u's output event (fd %d): %s", cpu, perf_fd,
		    hwbp_errno_name(ret));
	return ret;
}

/* The copy of the program for @cookie: one already loaded, the first one
 * (not yet given a cookie: set in its .data), or a new one. */
static int inst_for(struct hwbpi_bpf *b, uint32_t cookie, struct inst **out, char *err,
		    size_t errlen)
{
	uint32_t zero = 0;
	int ret;

	for (unsigned i = b->inst0_used ? 0 : 1; i < b->ninst; i++)
		if (b->inst[i].cookie == cookie) {
			*out = &b->inst[i];
			return 0;
		}
	b->cfg.cookie = cookie;
	if (!b->inst0_used) {
		ret = bpf_map_update_elem(b->inst[0].data_fd, &zero, &b->cfg, BPF_ANY);
		if (ret) {
			hwbpi_say(err, errlen, "bpf: cannot set the program's cookie: %s",
			    hwbp_errno_name(ret));
			return ret;
		}
		b->inst[0].cookie = cookie;
		b->inst0_used = true;
		*out = &b->inst[0];
		return 0;
	}
	if (b->ninst == b->icap) {
		struct inst *in = realloc(b->inst, 2 * b->icap * sizeof(*in));

		if (!in) {
			hwbpi_say(err, errlen, "bpf: out of memory (ENOMEM)");
			return -ENOMEM;
		}
		b->inst = in;
		b->icap *= 2;
	}
	ret = load_inst(b, err, errlen);
	if (ret == 0)
		*out = &b->inst[b->ninst - 1];
	return ret;
}

int hwbpi_bpf_attach(struct hwbpi_bpf *b, int perf_fd, unsigned watch, unsigned tag, char *err,
		     size_t errlen)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	uint32_t cookie;
	struct inst *in;
	int fd;

	if (!b || watch >= b->nwatch || tag > HWBPI_BPF_MAX_TAG) {
		hwbpi_say(err, errlen, "bpf: cannot attach watch %u tag 0x%x: %s (EINVAL)", watch, tag,
		    b ? "no such watch or tag" : "no program");
		return -EINVAL;
	}
	if (b->nlinks == b->cap) {
		unsigned cap = b->cap ? 2 * b->cap : 16;
		int *l = realloc(b->links, cap * sizeof(*l));

		if (!l) {
			hwbpi_say(err, errlen, "bpf: out of memory (ENOMEM)");
			return -ENOMEM;
		}
		b->links = l;
		b->cap = cap;
	}
	cookie = (uint32_t)watch << HWBPI_BPF_TAG_BITS | tag;
	fd = inst_for(b, cookie, &in, err, errlen);
	if (fd)
		return fd;
	/* A perf link (kernel/bpf/syscall.c bpf_perf_link_attach(), 5.15)
	 * ends when its fd is closed, and, unlike libbpf's
	 * bpf_program__attach_perf_event(), leaves the event's state alone.
	 * Its cookie is the program's own, for bpftool's eyes only. */
	lo.perf_event.bpf_cookie = cookie;
	fd = bpf_link_create(in->prog_fd, perf_fd, BPF_PERF_EVENT, &lo);
	if (fd < 0) {
		switch (fd) {
		case -EBADF:
			hwbpi_say(err, errlen, "bpf: attach watch %u: fd %d is not a perf event (EBADF)", watch,
			    perf_fd);
			break;
		case -EEXIST:
			hwbpi_say(err, errlen, "bpf: attach watch %u: the event has a BPF program already "
			    "(EEXIST)", watch);
			break;
		case -EINVAL:
			hwbpi_say(err, errlen, "bpf: attach watch %u: the kernel refused the event of fd %d "
			    "(kernels before 5.15 have no perf links) (EINVAL)", watch, perf_fd);
			break;
		default:
			hwbpi_say(err, errlen, "bpf: attach watch %u to fd %d: %s", watch, perf_fd,
			    hwbp_errno_name(fd));
		}
		return fd;
	}
	b->links[b->nlinks++] = fd;
	return 0;
}

int hwbpi_bpf_read(struct hwbpi_bpf *b,
		   void (*fn)(void *arg, unsigned watch, unsigned tag, uint32_t func, uint64_t ip,
			      uint64_t count),
		   void *arg, uint64_t *overrun, uint64_t *lost)
{
	struct hwbpi_bpf_key k, next;
	uint32_t zero = 0;
	uint64_t n;
	int ret;

	if (!b || !fn)
		return -EINVAL;
	for (ret = bpf_map_get_next_key(b->counts_fd, NULL, &next); ret == 0;
	     ret = bpf_map_get_next_key(b->counts_fd, &k, &next)) {
		k = next;
		/* An entry is never deleted: ENOENT cannot happen here. */
		ret = bpf_map_lookup_elem(b->counts_fd, &k, &n);
		if (ret)
			return ret;
		fn(arg, k.cookie >> HWBPI_BPF_TAG_BITS, k.cookie & HWBPI_BPF_TAG_MASK, k.func, k.ip, n);
	}
	if (ret != -ENOENT)
		return ret;
	for (uint32_t w = 0; overrun && w < b->nwatch; w++) {
		struct hwbpi_bpf_watch ws;

		ret = bpf_map_lookup_elem(b->watches_fd, &w, &ws);
		if (ret)
			return ret;
		overrun[w] = ws.overrun;
	}
	if (lost) {
		ret = bpf_map_lookup_elem(b->lost_fd, &zero, &n);
		if (ret)
			return ret;
		*lost = n;
	}
	return 0;
}

int hwbpi_bpf_merged(struct hwbpi_bpf *b, uint64_t *n)
{
	uint32_t one = 1;

	if (!b || !n)
		return -EINVAL;
	return bpf_map_lookup_elem(b->lost_fd, &one, n) ? -errno : 0;
}

void hwbpi_bpf_close(struct hwbpi_bpf *b)
{
	if (!b)
		return;
	/* Closing a link detaches it (bpf_perf_link_release():
	 * perf_event_free_bpf_prog()); each object's close unloads its copy,
	 * and the maps go with the last one holding them. */
	for (unsigned i = 0; i < b->nlinks; i++)
		close(b->links[i]);
	for (unsigned i = 0; i < b->ninst; i++)
		bpf_object__close(b->inst[i].obj);
	free(b->inst);
	free(b->links);
	free(b);
}

int hwbpi_bpf_loaded_count(void)
{
	uint32_t id = 0;
	int n = 0, ret;

	while ((ret = bpf_prog_get_next_id(id, &id)) == 0) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd == -ENOENT)
			continue;  /* freed since */
		if (fd < 0)
			return fd;
		memset(&info, 0, sizeof(info));
		ret = bpf_obj_get_info_by_fd(fd, &info, &len);
		close(fd);
		if (ret)
			return ret;
		if (strcmp(info.name, HWBPI_BPF_PROG_NAME) == 0)
			n++;
	}
	return ret == -ENOENT ? n : ret;
}

#else /* !HWBP_HAVE_BPF */

#define NO_BPF "built without BPF: clang with the bpf target and libbpf-dev are needed"

int hwbpi_bpf_open(struct hwbpi_bpf **out, unsigned nwatch, unsigned entries,
		   const uint64_t *starts, size_t nfunc, uint64_t ip_adjust, char *err,
		   size_t errlen)
{
	(void)nwatch;
	(void)entries;
	(void)starts;
	(void)nfunc;
	(void)ip_adjust;
	if (out)
		*out = NULL;
	hwbpi_say(err, errlen, NO_BPF);
	return -EOPNOTSUPP;
}

int hwbpi_bpf_open_values(struct hwbpi_bpf **out, unsigned nwatch, const uint64_t *addr,
			  const unsigned *len, unsigned ncpus, char *err, size_t errlen)
{
	(void)nwatch;
	(void)addr;
	(void)len;
	(void)ncpus;
	if (out)
		*out = NULL;
	hwbpi_say(err, errlen, NO_BPF);
	return -EOPNOTSUPP;
}

int hwbpi_bpf_seed(struct hwbpi_bpf *b, unsigned watch, uint64_t bytes, char *err,
		   size_t errlen)
{
	(void)b;
	(void)watch;
	(void)bytes;
	hwbpi_say(err, errlen, NO_BPF);
	return -EOPNOTSUPP;
}

int hwbpi_bpf_set_output(struct hwbpi_bpf *b, unsigned cpu, int perf_fd, char *err,
			 size_t errlen)
{
	(void)b;
	(void)cpu;
	(void)perf_fd;
	hwbpi_say(err, errlen, NO_BPF);
	return -EOPNOTSUPP;
}

int hwbpi_bpf_attach(struct hwbpi_bpf *b, int perf_fd, unsigned watch, unsigned tag, char *err,
		     size_t errlen)
{
	(void)b;
	(void)perf_fd;
	(void)watch;
	(void)tag;
	hwbpi_say(err, errlen, NO_BPF);
	return -EOPNOTSUPP;
}

int hwbpi_bpf_read(struct hwbpi_bpf *b,
		   void (*fn)(void *arg, unsigned watch, unsigned tag, uint32_t func, uint64_t ip,
			      uint64_t count),
		   void *arg, uint64_t *overrun, uint64_t *lost)
{
	(void)b;
	(void)fn;
	(void)arg;
	(void)overrun;
	(void)lost;
	return -EOPNOTSUPP;
}

int hwbpi_bpf_merged(struct hwbpi_bpf *b, uint64_t *n)
{
	(void)b;
	(void)n;
	return -EOPNOTSUPP;
}

void hwbpi_bpf_close(struct hwbpi_bpf *b)
{
	(void)b;
}

int hwbpi_bpf_loaded_count(void)
{
	return -EOPNOTSUPP;
}

#endif /* HWBP_HAVE_BPF */
