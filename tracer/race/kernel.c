/* SPDX-License-Identifier: MIT */
/*
 * hwbp race --kernel (race/race.h, hwbpi_race_kernel_run()): the same
 * method in the running kernel, sampled by hwbp_ksym.ko (kernel/linux/
 * ksym_race.c), which has no decoder.  Here: the chosen functions' code
 * read from /proc/kcore, walked by insn/'s scan, and each PLAIN access
 * turned into what the module can compute from a kprobe's pt_regs: a
 * linear form DISP + C1 * R1 + C2 * R2 of DWARF registers, found by
 * asking the decoder's at_pc for the address with every register 0, then
 * with each one alone 1 (an x86 address is base + index * scale + disp;
 * a RIP-relative one comes out resolved, since at_pc adds the
 * instruction's own address).  The module's records come back as pairs
 * for race/'s reports; an access caught is named by its instruction's
 * first byte: the module's site when one of them was caught (kprobes run
 * it out of line), else what the decoder's at_trap finds where the
 * hardware reports the IP past it (x86).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/linux/linux.h"
#include "race/race.h"

#define KSYM_DIR "/sys/kernel/debug/hwbp_ksym"
/* The module's limits (ksym_race.c): sites, delay, rate * delay. */
#define KRACE_SITES 1024u
#define KRACE_DELAY_MAX_NS 500000u
#define KRACE_DUTY_MAX_US 50000u
#define KRACE_DURATION_DEFAULT_NS UINT64_C(10000000000)

static int fail(struct hwbpi_race_run *r, int ret, bool input, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct hwbpi_race_run *r, int ret, bool input, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->input = input;
	return ret;
}

static int read_kcore(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	return hwbpi_kcore_read(NULL, addr, buf, len);
}

/* One command line to race_ctl.  Errors: the module's (write(2)'s). */
static int ctl(const char *line)
{
	int fd = open(KSYM_DIR "/race_ctl", O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -errno;
	n = write(fd, line, strlen(line));
	e = n < 0 ? -errno : 0;
	close(fd);
	return e;
}

/* Whether @name is a loaded module (/sys/module/NAME/sections: a module
 * with code, not a built-in one's parameters). */
static bool is_module(const char *name)
{
	char p[300];

	snprintf(p, sizeof(p), "/sys/module/%s/sections/.text", name);
	return access(p, F_OK) == 0;
}

/* The largest kernel function walked.  A size kallsyms only implies (up
 * to the next symbol) can run past a module's text into other memory,
 * whose zeros decode as plain accesses (x86: add [rax], al). */
#define KFUNC_MAX 65536u
/* A module's last function: no next text symbol of its own bounds it. */
#define KFUNC_LAST_MAX 4096u

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Walk function @s, at most @max bytes of it. */
static int walk_bounded(struct hwbpi_race_run *r, const struct hwbp_sym *s, uint64_t max,
			const struct hwbpi_insn_arch *a, struct hwbpi_insn_dec *d, uint8_t **buf,
			size_t *bufn)
{
	struct hwbp_sym f = *s;

	if (f.size > max)
		f.size = max;
	if (f.size > KFUNC_MAX)
		f.size = KFUNC_MAX;
	return hwbpi_race_walk_func(&f, a, d, read_kcore, NULL, buf, bufn, &r->cands);
}

/* The starts of module @mod's functions in /proc/kallsyms ("t"/"T" lines
 * tagged [mod]) walked, each up to the module's next function at most.
 * Errors: -ENOMEM, open's, the walk's. */
static int walk_module(struct hwbpi_race_run *r, const char *mod, const struct hwbpi_insn_arch *a,
		       struct hwbpi_insn_dec *d, uint8_t **buf, size_t *bufn)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], tag[300], name[256], type;
	unsigned long long addr;
	uint64_t *at = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	if (!f)
		return -errno;
	snprintf(tag, sizeof(tag), "[%s]", mod);
	while (fgets(line, sizeof(line), f)) {
		char m[300] = "";

		if (sscanf(line, "%llx %c %255s %299s", &addr, &type, name, m) != 4 ||
		    (type != 't' && type != 'T') || strcmp(m, tag) != 0)
			continue;
		if (n == cap) {
			uint64_t *na = realloc(at, (cap = cap ? 2 * cap : 64) * sizeof(*at));

			if (!na) {
				ret = -ENOMEM;
				break;
			}
			at = na;
		}
		at[n++] = addr;
	}
	fclose(f);
	if (ret == 0 && n)
		qsort(at, n, sizeof(*at), cmp_u64);
	for (size_t i = 0; ret == 0 && i < n; i++) {
		const struct hwbp_sym *s = hwbp_symtab_func(r->syms, at[i]);

		if (s && s->addr == at[i] && (i == 0 || at[i - 1] != at[i]))
			ret = walk_bounded(r, s, i + 1 < n ? at[i + 1] - at[i] : KFUNC_LAST_MAX, a, d,
					   buf, bufn);
	}
	free(at);
	return ret;
}

/* The candidates of every --only name: a loaded module's functions, or
 * the function of that name. */
static int choose_one(struct hwbpi_race_run *r, const char *name, const struct hwbpi_insn_arch *a,
		      struct hwbpi_insn_dec *d, uint8_t **buf, size_t *bufn)
{
	const struct hwbp_sym *s;
	int ret;

	if (is_module(name))
		ret = walk_module(r, name, a, d, buf, bufn);
	else if ((s = hwbp_symtab_find(r->syms, name)) && (s->type == 't' || s->type == 'T'))
		ret = walk_bounded(r, s, KFUNC_MAX, a, d, buf, bufn);
	else
		return fail(r, -ENOENT, true, "--only %s: no kernel function or loaded module of "
			    "that name: ENOENT", name);
	if (ret == 0 && !r->cands.objects++)
		snprintf(r->cands.first_obj, sizeof(r->cands.first_obj), "%s", name);
	return ret ? fail(r, ret, false, "walking %s: %s", name, hwbp_errno_name(ret)) : 0;
}

static int choose(struct hwbpi_race_run *r, const struct hwbpi_insn_arch *a,
		  struct hwbpi_insn_dec *d)
{
	uint8_t *buf = NULL;
	size_t bufn = 0;
	int ret = 0;

	memset(&r->cands, 0, sizeof(r->cands));
	for (unsigned i = 0; ret == 0 && i < r->sel.nonly; i++) {
		char *names = strdup(r->sel.only[i]), *save = NULL, *name;

		if (!names) {
			ret = fail(r, -ENOMEM, false, "--only: ENOMEM");
			break;
		}
		for (name = strtok_r(names, ",", &save); ret == 0 && name;
		     name = strtok_r(NULL, ",", &save))
			ret = choose_one(r, name, a, d, &buf, &bufn);
		free(names);
	}
	free(buf);
	if (ret) {
		hwbpi_race_cands_free(&r->cands);
		return ret;
	}
	if ((ret = hwbpi_race_cands_finish(&r->cands, 0)))
		return fail(r, ret, false, "the candidates: %s", hwbp_errno_name(ret));
	if (!r->cands.functions)
		return fail(r, -EACCES, false, "cannot read the chosen functions' code in /proc/kcore "
			    "(root? CONFIG_PROC_KCORE?): EACCES");
	if (!r->cands.n)
		return fail(r, -ENOENT, false, "%s: no memory access that could race among its %llu "
			    "instructions: ENOENT", r->cands.first_obj,
			    (unsigned long long)r->cands.instructions);
	return 0;
}

/* The site line ("add ...") of the access at @ip, or -ENOENT (no single
 * plain access of a linear address: hwbpi_race_linear()). */
static int site(const struct hwbpi_insn_arch *a, struct hwbpi_insn_dec *d, uint64_t ip,
		char *line, size_t n)
{
	struct hwbpi_race_linear l;
	uint8_t code[16];

	if (hwbpi_kcore_read(NULL, ip, code, sizeof(code)) ||
	    hwbpi_race_linear(a, d, code, sizeof(code), ip, &l))
		return -ENOENT;
	snprintf(line, n, "add 0x%llx %s %llu 0x%llx %d %lld %d %lld\n", (unsigned long long)ip,
		 l.kind == HWBP_R ? "r" : l.kind == HWBP_W ? "w" : "rw", (unsigned long long)l.size,
		 (unsigned long long)l.disp, l.reg[0], (long long)l.coef[0], l.reg[1],
		 (long long)l.coef[1]);
	return 0;
}

/* The sites given to the module: every candidate, or KRACE_SITES of them
 * at random (a partial shuffle of a copy, seeded). */
static int give_sites(struct hwbpi_race_run *r, const struct hwbpi_insn_arch *a,
		      struct hwbpi_insn_dec *d, unsigned *given)
{
	const struct hwbpi_race_cands *c = &r->cands;
	uint64_t *ip = malloc((c->n ? c->n : 1) * sizeof(*ip));
	struct hwbpi_race_rng rng;
	char line[160];
	int ret = 0;

	if (!ip)
		return fail(r, -ENOMEM, false, "the sites: ENOMEM");
	memcpy(ip, c->ip, c->n * sizeof(*ip));
	hwbpi_race_rng_seed(&rng, r->seed);
	*given = 0;
	for (size_t i = 0; ret == 0 && i < c->n && *given < KRACE_SITES; i++) {
		size_t j = i + (size_t)hwbpi_race_rand_below(&rng, c->n - i);
		uint64_t t = ip[i];

		ip[i] = ip[j];
		ip[j] = t;
		if (site(a, d, ip[i], line, sizeof(line)))
			continue;
		if ((ret = ctl(line)))
			ret = fail(r, ret, false, "hwbp_ksym.ko refused a site (%.*s): %s",
				   (int)strcspn(line, "\n"), line, hwbp_errno_name(ret));
		else
			++*given;
	}
	free(ip);
	return ret;
}

/* The instruction whose access the hardware reported at @ip: its first
 * byte, and its kind where the decoder tells. */
static uint64_t caught_insn(struct hwbpi_race_run *r, const struct hwbpi_insn_arch *a,
			    struct hwbpi_insn_dec *d, uint64_t ip, unsigned *kind)
{
	const struct hwbp_sym *f;
	struct hwbpi_insn_regs regs;
	struct hwbpi_insn out[2];
	uint8_t *code;
	unsigned n = 0;

	*kind = 0;
	if (!a->at_trap)
		return ip;     /* the hardware reports the access's own PC */
	f = hwbp_symtab_func(r->syms, ip - 1);
	if (!f || !f->size || f->size > (1u << 20) || ip > f->addr + f->size || !(code = malloc(f->size)))
		return ip;
	memset(&regs, 0, sizeof(regs));
	if (hwbpi_kcore_read(NULL, f->addr, code, f->size) == 0 &&
	    a->at_trap(d, code, f->size, f->addr, ip, &regs, out, &n) == 0 && n >= 1) {
		ip = out[0].ip;
		*kind = out[0].n ? out[0].acc[0].kind : 0;
	}
	free(code);
	return ip;
}

/* race_reports' lines into r->pairs; race_ctl's counts into r->counts. */
static int collect(struct hwbpi_race_run *r, const struct hwbpi_insn_arch *a,
		   struct hwbpi_insn_dec *d)
{
	unsigned long long aip, bip, addr, before, after;
	long long samples = 0, races = 0, unseen = 0;
	int acpu, apid, bcpu, bpid, bexact;
	unsigned akind, bkind, size;
	char line[512];
	FILE *f;

	if ((f = fopen(KSYM_DIR "/race_ctl", "re"))) {
		if (fgets(line, sizeof(line), f))
			sscanf(line, "running %*d sites %*u probes %*u rate %*u delay_us %*u samples %lld "
			       "races %lld unseen %lld", &samples, &races, &unseen);
		fclose(f);
	}
	r->counts.samples = (uint64_t)samples;
	r->counts.conflicts = (uint64_t)races;
	r->counts.unseen = (uint64_t)unseen;
	r->counts.held_ns = (uint64_t)samples * r->delay_ns;
	if (!(f = fopen(KSYM_DIR "/race_reports", "re")))
		return fail(r, -errno, false, "%s/race_reports: %s", KSYM_DIR, hwbp_errno_name(-errno));
	while (fgets(line, sizeof(line), f)) {
		struct hwbpi_race_pair p;

		if (sscanf(line, "%llx %d %d %u %llx %d %u %d %d %llx %u %llx %llx", &aip, &acpu, &apid,
			   &akind, &bip, &bexact, &bkind, &bcpu, &bpid, &addr, &size, &before,
			   &after) != 13)
			continue;
		memset(&p, 0, sizeof(p));
		p.a = (struct hwbpi_race_side){ aip, addr, size, akind, apid };
		p.lo = addr;
		p.len = size;
		p.before = before;
		p.after = after;
		p.unseen = bip == 0;
		if (bip) {
			/* (a site's own instruction, run out of line, is named by
			 * the module; any other by the IP the hardware gave) */
			p.b.ip = bexact ? bip : caught_insn(r, a, d, bip, &p.b.kind);
			if (bexact)
				p.b.kind = bkind;
			p.b.addr = addr;
			p.b.size = size;
			p.b.tid = bpid;
		}
		if (hwbpi_race_pairs_add(&r->pairs, &p) < 0) {
			fclose(f);
			return fail(r, -ENOMEM, false, "the reports: ENOMEM");
		}
	}
	fclose(f);
	return 0;
}

/* Sample until the duration is over or a stop is asked. */
static void wait_run(struct hwbpi_race_run *r)
{
	uint64_t left = r->duration_ns ? r->duration_ns : KRACE_DURATION_DEFAULT_NS;

	while (left && !r->stop) {
		uint64_t step = left < 100000000u ? left : 100000000u;
		struct timespec ts = { 0, (long)step };

		nanosleep(&ts, NULL);   /* (a signal ends it early: the flag is looked at) */
		left -= step;
	}
}

static int setup(struct hwbpi_race_run *r, const struct hwbpi_insn_arch **a,
		 struct hwbpi_insn_dec **d)
{
	struct hwbpi_ksyms_opts ko = { 0 };
	struct hwbpi_ksyms k;
	struct hwbp_cpu cpu;
	int ret = 0;

	if (!r->sel.nonly)
		return fail(r, -EINVAL, true, "--kernel needs --only FUNC[,FUNC...] or a module's "
			    "name: EINVAL");
	if (r->delay_ns > KRACE_DELAY_MAX_NS)
		return fail(r, -ERANGE, true, "--kernel: --delay at most 0.5 (ms: a CPU is held with "
			    "interrupts off): ERANGE");
	/* the module counts whole traps a second */
	if (r->millirate % 1000u)
		return fail(r, -EINVAL, true, "--kernel: --rate in whole traps a second: EINVAL");
	if (r->millirate / 1000u * (r->delay_ns / 1000u) > KRACE_DUTY_MAX_US)
		return fail(r, -ERANGE, true, "--kernel: --rate times --delay at most 50 ms a "
			    "second: ERANGE");
	if (access(KSYM_DIR "/race_ctl", W_OK))
		return fail(r, -ENODEV, false, "no %s/race_ctl (is hwbp_ksym.ko loaded? insmod "
			    "hwbp_ksym.ko; debugfs mounted?): ENODEV", KSYM_DIR);
	if ((ret = hwbpi_child_cpu(&cpu, r->msg, sizeof(r->msg))))
		return ret;
	*a = hwbpi_insn_arch(cpu.arch);
	if (!*a || !(*a)->scan || !(*a)->at_pc)
		return fail(r, -EOPNOTSUPP, false, "no instruction decoder for this CPU: EOPNOTSUPP");
	if ((ret = (*a)->open(d)))
		return fail(r, ret, false, "the instruction decoder: %s", hwbp_errno_name(ret));
	if (!(r->syms = hwbp_symtab_new(&ret)))
		return fail(r, ret, false, "symbols: %s", hwbp_errno_name(ret));
	ret = hwbpi_ksyms_load(r->syms, &ko, &k, r->msg, sizeof(r->msg));
	if (ret == 0)
		ret = hwbp_symtab_finish(r->syms);
	return ret;
}

int hwbpi_race_kernel_run(struct hwbpi_race_run *r)
{
	const struct hwbpi_insn_arch *a = NULL;
	struct hwbpi_insn_dec *d = NULL;
	unsigned given = 0;
	char line[64];
	int ret, ret2;

	ret = setup(r, &a, &d);
	if (ret == 0)
		ret = choose(r, a, d);
	if (ret == 0 && (ret = ctl("clear\n")))
		ret = fail(r, ret, false, "%s/race_ctl: %s", KSYM_DIR, hwbp_errno_name(ret));
	if (ret == 0)
		ret = give_sites(r, a, d, &given);
	if (ret == 0 && !given)
		ret = fail(r, -ENOENT, false, "%s: no access whose address the module can compute: "
			   "ENOENT", r->cands.first_obj);
	if (ret == 0) {
		snprintf(line, sizeof(line), "start %llu %llu\n",
			 (unsigned long long)(r->millirate / 1000u),
			 (unsigned long long)(r->delay_ns / 1000u));
		if ((ret = ctl(line)))
			ret = fail(r, ret, ret == -ERANGE, "hwbp_ksym.ko: start: %s%s",
				   hwbp_errno_name(ret), ret == -ECHILD ? " (one CPU online: no "
				   "other to race with)" : ret == -ENOENT ? " (no kprobe could be "
				   "placed)" : ret == -EOPNOTSUPP ? " (the module's race side is "
				   "x86_64's)" : "");
	}
	if (ret == 0) {
		r->counts.traps = given;
		wait_run(r);
		if ((ret = ctl("stop\n")))
			ret = fail(r, ret, false, "hwbp_ksym.ko: stop: %s (unloaded mid-run? its exit "
				   "unregistered everything)", hwbp_errno_name(ret));
	}
	if (ret == 0)
		ret = collect(r, a, d);
	/* (every path: no kprobe, no breakpoint left; the module's state
	 * as before; a module gone needs none) */
	ret2 = ctl("clear\n");
	(void)ret2;
	if (d)
		a->close(d);
	return ret;
}
