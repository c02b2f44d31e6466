/* SPDX-License-Identifier: MIT */
/*
 * hwbp trace: the ksym tracer's command line.
 *
 *   hwbp trace [-e ENTRY]... [--filter-file FILE] [--cpu PRESET]
 *              (--demo | --lackey FILE --elf PROG [--load-bias B])
 *              [--symbols System.map] [--hist-entries N]
 *              [--trace FILE [--format text|ctf] [--buffer-kb N] [--overwrite]]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <hwbp/hwbp.h>
#include <hwbp/trace.h>

#include "cli.h"
#include "ctf.h"
#include "perf.h"
#include "ptrace.h"
#include "tracer.h"

static int trace_help(void)
{
	puts("usage: hwbp trace [-e ENTRY]... [--filter-file FILE] [--cpu PRESET]\n"
	     "                  [--backend ptrace|perf] (-- CMD [ARGS] | -p PID)\n"
	     "                  (--demo | --lackey FILE --elf PROG [--load-bias B])\n"
	     "                  [--symbols System.map|kallsyms] [--hist-entries N]\n"
	     "                  [--trace FILE [--format text|ctf] [--buffer-kb N] [--overwrite]]\n"
	     "Watch symbols by name and print a usage histogram by function (default) or\n"
	     "every hit (--trace). ENTRY is SYM[+OFF][/LEN]:rwx with - for an absent letter\n"
	     "(pid_max:rw-, buf+8/16:-w-, 0xADDR/8:rw-); SYM:--- removes one, *:--- all.\n"
	     "The default length is the symbol's size. Backend: the simulator (--demo: a\n"
	     "built-in 4-CPU kernel; --lackey: a valgrind --tool=lackey --trace-mem=yes\n"
	     "trace of PROG, position-independent ones too). --format ctf writes FILE as a\n"
	     "directory holding a CTF 1.8 trace (babeltrace2 FILE), one stream per CPU.\n"
	     "--backend qemu-x86 (with --demo): the same demo as real code in the x86_64\n"
	     "bare-metal kernel (tests/qemu/x86/), on QEMU's emulated debug registers.\n"
	     "-- CMD / -p PID: a real process on Linux (x86_64, aarch64) through ptrace (a\n"
	     "stop per hit) or perf (sampling); --cpu defaults to the kernel's own model\n"
	     "there (the simulator's default is x86_64).");
	return 0;
}

struct topts {
	const char *entries[HWBP_MAX_REQUESTS * 2];
	unsigned nentries;
	const char *filter_file, *cpu, *lackey, *elf, *symbols, *trace_file, *format;
	bool demo, overwrite, have_bias, qemu;
	uint64_t bias, hist_entries, buffer_kb;
	/* real Linux: a command to start (after --) or a process to attach */
	char *const *cmd;
	long pid;
	int linux_backend;     /* 0 none, 1 ptrace, 2 perf */
};

static int num_arg(const char *opt, const char *v, uint64_t *out, uint64_t max)
{
	char *end;

	errno = 0;
	if (!v || !*v || *v == '-')
		return usage_error("trace: %s needs a number", opt);
	*out = strtoull(v, &end, 0);
	if (errno || *end || *out == 0 || *out > max) {
		fprintf(stderr, "hwbp: trace: bad %s '%s'\n", opt, v);
		return EXIT_USAGE;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct topts *o)
{
	memset(o, 0, sizeof(*o));
	o->hist_entries = 16;
	o->buffer_kb = 1024;
	o->format = "text";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int ret = 0;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			trace_help();
			return -1;
		} else if (strcmp(a, "-e") == 0 || strcmp(a, "--event") == 0) {
			if (!v)
				return usage_error("trace: %s needs an entry such as pid_max:rw-", a);
			if (o->nentries == sizeof(o->entries) / sizeof(o->entries[0]))
				return usage_error("trace: too many -e at '%s'", v);
			o->entries[o->nentries++] = v;
			i++;
		} else if (strcmp(a, "--filter-file") == 0 && v) {
			o->filter_file = v;
			i++;
		} else if (strcmp(a, "--cpu") == 0 && v) {
			o->cpu = v;
			i++;
		} else if (strcmp(a, "--demo") == 0) {
			o->demo = true;
		} else if (strcmp(a, "--lackey") == 0 && v) {
			o->lackey = v;
			i++;
		} else if (strcmp(a, "--elf") == 0 && v) {
			o->elf = v;
			i++;
		} else if (strcmp(a, "--symbols") == 0 && v) {
			o->symbols = v;
			i++;
		} else if (strcmp(a, "--load-bias") == 0) {
			char *end;

			if (!v || !*v || *v == '-')
				return usage_error("trace: %s needs a number", a);
			errno = 0;
			o->bias = strtoull(v, &end, 0);
			if (errno || *end)
				return usage_error("trace: bad --load-bias '%s'", v);
			o->have_bias = true;
			i++;
		} else if (strcmp(a, "--hist-entries") == 0) {
			ret = num_arg(a, v, &o->hist_entries, 1u << 16);
			i++;
		} else if (strcmp(a, "--buffer-kb") == 0) {
			ret = num_arg(a, v, &o->buffer_kb, 1u << 20);
			i++;
		} else if (strcmp(a, "--trace") == 0 && v) {
			o->trace_file = v;
			i++;
		} else if (strcmp(a, "--format") == 0 && v) {
			if (strcmp(v, "text") != 0 && strcmp(v, "ctf") != 0)
				return usage_error("trace: bad --format '%s' (text, ctf)", v);
			o->format = v;
			i++;
		} else if (strcmp(a, "--overwrite") == 0) {
			o->overwrite = true;
		} else if (strcmp(a, "--") == 0) {
			if (i + 1 >= argc)
				return usage_error("trace: %s", "-- needs a command to run");
			o->cmd = &argv[i + 1];
			break;
		} else if (strcmp(a, "-p") == 0 || strcmp(a, "--pid") == 0) {
			char *end;

			if (!v || !*v)
				return usage_error("trace: %s needs a process id", a);
			errno = 0;
			o->pid = strtol(v, &end, 10);
			if (errno || *end || o->pid <= 0)
				return usage_error("trace: bad process id '%s'", v);
			i++;
		} else if (strcmp(a, "--backend") == 0 && v) {
			if (strcmp(v, "sim") != 0 && strcmp(v, "qemu-x86") != 0 &&
			    strcmp(v, "ptrace") != 0 && strcmp(v, "perf") != 0)
				return usage_error("trace: backend '%s' is not available (sim, qemu-x86, ptrace, perf)", v);
			o->qemu = strcmp(v, "qemu-x86") == 0;
			o->linux_backend = strcmp(v, "ptrace") == 0 ? 1 : strcmp(v, "perf") == 0 ? 2 : 0;
			i++;
		} else {
			return usage_error("trace: unexpected argument '%s' (try --help)", a);
		}
		if (ret)
			return ret;
	}
	if (o->demo + (o->lackey != NULL) + (o->cmd != NULL || o->pid != 0) != 1 || (o->cmd && o->pid))
		return usage_error("trace: %s", "give one workload: --demo, --lackey FILE --elf PROG, -- CMD or -p PID");
	/* A real process goes to ptrace unless told perf; the simulator's
	 * workloads never go to a Linux backend. */
	if ((o->cmd || o->pid) && !o->linux_backend)
		o->linux_backend = 1;
	if (o->linux_backend && !(o->cmd || o->pid))
		return usage_error("trace: %s", "--backend ptrace/perf traces -- CMD or -p PID");
	if (o->lackey && !o->elf)
		return usage_error("trace: %s", "--lackey needs --elf PROG (for its symbols)");
	if (o->qemu && !o->demo)
		return usage_error("trace: %s", "--backend qemu-x86 runs the --demo workload only");
	if (o->qemu && o->cpu && strcmp(o->cpu, "x86_64") != 0)
		return usage_error("trace: %s", "--backend qemu-x86 is an x86_64 CPU (no --cpu)");
	if (strcmp(o->format, "ctf") == 0 && (!o->trace_file || strcmp(o->trace_file, "-") == 0))
		return usage_error("trace: %s", "--format ctf needs --trace DIR (a directory, not -)");
	return 0;
}

/* One filter entry; errors name the column. */
static int apply_entry(struct hwbpi_tracer *t, const char *s, const char *where)
{
	struct hwbp_trace_entry e;
	const char *msg = "";
	unsigned col = 0;
	char err[256];
	int ret = hwbp_trace_filter_parse(s, &e, &col, &msg);

	if (ret) {
		fprintf(stderr, "hwbp: trace: %s '%s': column %u: %s\n", where, s, col,
			ret == -ERANGE ? "number too large" : msg);
		return EXIT_USAGE;
	}
	ret = hwbpi_tracer_apply(t, &e, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "hwbp: trace: %s '%s': %s\n", where, s, err);
		return EXIT_USAGE;
	}
	return 0;
}

static int load_filter_file(struct hwbpi_tracer *t, const char *path)
{
	char line[512], where[600];
	unsigned n = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "hwbp: trace: cannot read --filter-file '%s': %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t l = strcspn(line, "\r\n");
		int ret;

		n++;
		line[l] = '\0';
		if (line[strspn(line, " \t")] == '\0' || line[strspn(line, " \t")] == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%u:", path, n);
		ret = apply_entry(t, line, where);
		if (ret) {
			fclose(f);
			return ret;
		}
	}
	fclose(f);
	return 0;
}

/* Text output of trace mode: drain every CPU's ring, merge by timestamp. */
static int cmp_ev(const void *a, const void *b)
{
	const struct hwbp_trace_event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->cpu - y->cpu;
}

static void drain_text(struct hwbpi_tracer *t, FILE *out, uint64_t *recorded)
{
	static struct hwbp_trace_event buf[1 << 16];
	size_t n = 0;

	for (unsigned c = 0; c < t->ncpus; c++)
		n += hwbp_ring_pop(t->ring[c], buf + n, sizeof(buf) / sizeof(buf[0]) - n);
	qsort(buf, n, sizeof(buf[0]), cmp_ev);
	for (size_t i = 0; i < n; i++) {
		const struct hwbp_trace_event *e = &buf[i];
		const struct hwbpi_watch *w = &t->w[e->bp];
		const struct hwbp_sym *f = t->syms ? hwbp_symtab_func(t->syms, e->ip) : NULL;

		fprintf(out, "%3u %12" PRIu64 " %s+0x%" PRIx64 " %s %s\n", e->cpu, e->ts, w->name,
			e->addr - w->addr, e->kind ? hwbp_type_name(e->kind) : "?",
			f ? f->name : "?");
	}
	*recorded += n;
}

/* CTF output of trace mode: the same drain, each event into its CPU's
 * stream (the reader merges them; sorting only keeps the code shared), then
 * each CPU's loss so far, so a packet ends where its ring lost events. */
static int drain_ctf(struct hwbpi_tracer *t, struct hwbpi_ctf *ctf, uint64_t *recorded)
{
	static struct hwbp_trace_event buf[1 << 16];
	size_t n = 0;
	int ret = 0;

	for (unsigned c = 0; c < t->ncpus; c++)
		n += hwbp_ring_pop(t->ring[c], buf + n, sizeof(buf) / sizeof(buf[0]) - n);
	qsort(buf, n, sizeof(buf[0]), cmp_ev);
	for (size_t i = 0; i < n; i++) {
		const struct hwbp_sym *f = t->syms ? hwbp_symtab_func(t->syms, buf[i].ip) : NULL;
		int r = hwbpi_ctf_write(ctf, &buf[i], f ? f->name : NULL);

		if (r == 0)
			(*recorded)++;
		else if (ret == 0)
			ret = r;
	}
	for (unsigned c = 0; c < t->ncpus; c++) {
		uint64_t p, l;

		hwbp_ring_stats(t->ring[c], &p, &l);
		hwbpi_ctf_lost(ctf, c, l);
	}
	return ret;
}

struct run_arg {
	bool (*next)(void *, struct hwbpi_work_access *);
	void *state;
	struct hwbpi_tracer *t;
	FILE *out;
	struct hwbpi_ctf *ctf;
	int ctf_err;                 /* the first failed CTF write */
	uint64_t count, recorded;
};

static void drain(struct run_arg *r)
{
	if (r->ctf) {
		int ret = drain_ctf(r->t, r->ctf, &r->recorded);

		if (ret && r->ctf_err == 0)
			r->ctf_err = ret;
	} else {
		drain_text(r->t, r->out, &r->recorded);
	}
}

/* The workload, with the trace-mode consumer between batches. */
static bool next_and_drain(void *arg, struct hwbpi_work_access *a)
{
	struct run_arg *r = arg;

	if ((r->out || r->ctf) && (++r->count & 1023) == 0)
		drain(r);
	return r->next(r->state, a);
}

int hwbp_cli_trace(int argc, char **argv)
{
	static struct hwbpi_tracer t;
	struct topts o;
	struct hwbp_cpu cpu;
	struct hwbp_symtab *syms = NULL;
	struct hwbpi_demo_state demo = { 0, 0, 0, 0 };
	struct hwbpi_lackey lk;
	struct run_arg ra;
	char err[256] = "";
	const char *names[HWBP_MAX_REQUESTS];
	int ret = parse_args(argc, argv, &o), rc = 0;
	unsigned ncpus = 1;
	/* qemu-x86: the demo kernel's build directory (removed at the end). */
	char qdir[512] = "", qkernel[600] = "";
	/* ptrace: the traced process; perf: the process and what it counted */
	struct hwbpi_ptrace *ps = NULL;
	int status = 0;
	pid_t perf_pid = 0;
	bool perf_started = false;
	struct hwbpi_perf_result pres;

	if (ret)
		return ret < 0 ? 0 : ret;
	if (hwbp_cpu_preset(o.cpu ? o.cpu : "x86_64", &cpu))
		return usage_error("trace: unknown --cpu '%s' (see 'hwbp caps --list')", o.cpu);
	memset(&t, 0, sizeof(t));
	memset(&ra, 0, sizeof(ra));
	memset(&lk, 0, sizeof(lk));
	if (o.demo && o.qemu) {
		/* The demo as real code: its symbols are the kernel ELF's own. */
		const char *tmp = getenv("TMPDIR");

		snprintf(qdir, sizeof(qdir), "%s/hwbp-qemu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(qdir)) {
			fprintf(stderr, "hwbp: trace: cannot create %s: %s\n", qdir, strerror(errno));
			return 1;
		}
		ret = hwbpi_qemu_x86_build(hwbpi_qemu_x86_srcdir(), qdir, err, sizeof(err));
		snprintf(qkernel, sizeof(qkernel), "%s/kernel64.elf", qdir);
		syms = ret ? NULL : hwbp_symtab_new(&ret);
		if (syms && (ret = hwbp_symtab_load_elf(syms, qkernel, 0)) >= 0)
			ret = hwbp_symtab_finish(syms);
		if (ret < 0) {
			fprintf(stderr, "hwbp: trace: qemu-x86: %s\n", err[0] ? err : hwbp_errno_name(ret));
			rc = 1;
			goto out;
		}
		snprintf(qkernel, sizeof(qkernel), "%s/kernel.elf", qdir);
		ret = 0;
	} else if (o.cmd || o.pid) {
		/* Stop the process once its executable and libraries are
		 * mapped, then read their symbols with their load biases. */
		pid_t pid;

		if (o.linux_backend == 2) {
			/* perf: sampling, one ring per CPU the samples may come from. */
			ncpus = hwbpi_perf_ncpus();
			if (ncpus > HWBPI_TRACE_MAX_CPUS)
				ncpus = HWBPI_TRACE_MAX_CPUS;
			/* Without --cpu: the model of the kernel's own debug
			 * registers (x86_64; arm64 with the slot counts Linux
			 * reports), asked before anything is started. */
			ret = o.cpu ? 0 : hwbpi_ptrace_native_cpu(&cpu, err, sizeof(err));
			if (ret == 0 && o.pid)
				perf_pid = (pid_t)o.pid;
			else if (ret == 0 && (ret = hwbpi_perf_start(o.cmd, &perf_pid, err, sizeof(err))) == 0)
				perf_started = true;
			pid = perf_pid;
		} else {
			ret = o.pid ? hwbpi_ptrace_attach(&ps, (pid_t)o.pid, err, sizeof(err))
				    : hwbpi_ptrace_start(&ps, o.cmd, err, sizeof(err));
			pid = ret ? 0 : hwbpi_ptrace_pid(ps);
		}
		if (ret) {
			fprintf(stderr, "hwbp: trace: %s\n", err[0] ? err : hwbp_errno_name(ret));
			rc = 1;
			goto out;
		}
		syms = hwbp_symtab_new(&ret);
		if (syms && (ret = hwbpi_proc_load_symbols(syms, pid)) < 0) {
			fprintf(stderr, "hwbp: trace: cannot read the symbols of process %ld: %s\n",
				(long)pid, hwbp_errno_name(ret));
			rc = 1;
			goto out;
		}
		ret = 0;
	} else if (o.demo) {
		syms = hwbpi_demo_symtab(&ret);
		ncpus = HWBPI_DEMO_CPUS;
		ra.next = hwbpi_demo_next;
		ra.state = &demo;
	} else {
		uint64_t bias = o.have_bias ? o.bias : hwbpi_lackey_guess_bias(o.lackey, o.elf);

		syms = hwbp_symtab_new(&ret);
		if (syms && (ret = hwbp_symtab_load_elf(syms, o.elf, bias)) < 0) {
			fprintf(stderr, "hwbp: trace: cannot read symbols of --elf '%s': %s\n", o.elf,
				hwbp_errno_name(ret));
			hwbp_symtab_free(syms);
			return EXIT_USAGE;
		}
		lk.in = fopen(o.lackey, "r");
		if (!lk.in) {
			fprintf(stderr, "hwbp: trace: cannot read --lackey '%s': %s\n", o.lackey, strerror(errno));
			hwbp_symtab_free(syms);
			return EXIT_USAGE;
		}
		ra.next = hwbpi_lackey_next;
		ra.state = &lk;
		ret = 0;
	}
	if (syms && o.symbols && (ret = hwbp_symtab_load_map(syms, o.symbols, NULL)) < 0) {
		fprintf(stderr, "hwbp: trace: cannot read --symbols '%s': %s\n", o.symbols, hwbp_errno_name(ret));
		rc = EXIT_USAGE;
		goto out;
	}
	if (!syms || (!o.demo && hwbp_symtab_finish(syms))) {
		fprintf(stderr, "hwbp: trace: cannot build the symbol table\n");
		rc = 1;
		goto out;
	}
	t.syms = syms;
	t.hist_entries = (unsigned)o.hist_entries;
	/* The demo watches its four variables unless told otherwise. */
	if (o.demo && o.nentries == 0 && !o.filter_file) {
		static const char *const defaults[] = {
			"jiffies:rw-", "pid_max:rw-", "nr_threads:rw-", "total_forks:-w-",
		};

		for (unsigned i = 0; i < 4; i++)
			o.entries[o.nentries++] = defaults[i];
	}
	if (o.filter_file && (rc = load_filter_file(&t, o.filter_file)))
		goto out;
	for (unsigned i = 0; i < o.nentries; i++)
		if ((rc = apply_entry(&t, o.entries[i], "-e")))
			goto out;
	if (t.nw == 0) {
		rc = usage_error("trace: %s", "nothing to watch (give -e SYM:rw-)");
		goto out;
	}
	ret = hwbpi_tracer_start(&t, ncpus, o.trace_file != NULL, (size_t)o.buffer_kb * 1024, o.overwrite);
	if (ret) {
		fprintf(stderr, "hwbp: trace: cannot start: %s\n", hwbp_errno_name(ret));
		rc = 1;
		goto out;
	}
	ra.t = &t;
	for (unsigned i = 0; i < t.nw; i++)
		names[i] = t.w[i].name;
	if (o.trace_file && strcmp(o.format, "ctf") == 0) {
		ra.ctf = hwbpi_ctf_open(o.trace_file, ncpus, names, t.nw, &ret);
		if (!ra.ctf) {
			fprintf(stderr, "hwbp: trace: cannot write CTF --trace '%s': %s\n", o.trace_file,
				hwbp_errno_name(ret));
			rc = EXIT_USAGE;
			goto fini;
		}
	} else if (o.trace_file) {
		ra.out = strcmp(o.trace_file, "-") == 0 ? stdout : fopen(o.trace_file, "w");
		if (!ra.out) {
			fprintf(stderr, "hwbp: trace: cannot write --trace '%s': %s\n", o.trace_file, strerror(errno));
			rc = EXIT_USAGE;
			goto fini;
		}
	}
	if (o.qemu)
		ret = hwbpi_trace_qemu_x86(&t, hwbpi_qemu_x86_srcdir(), qkernel, err, sizeof(err));
	else if (ps)
		/* Without --cpu: the model of the kernel's own debug registers
		 * (x86_64; arm64 with the slot counts Linux reports). */
		ret = hwbpi_ptrace_trace(ps, &t, o.cpu ? &cpu : NULL, &status, err, sizeof(err));
	else if (perf_pid) {
		struct hwbpi_perf_opts po;

		memset(&po, 0, sizeof(po));
		po.sampling = true;
		ret = hwbpi_perf_trace(&t, &cpu, perf_pid, perf_started, &po, &pres, err, sizeof(err));
		perf_started = false;   /* the trace let it run: nothing to abort */
		status = pres.wstatus;
		if (ret == 0 && pres.lost)
			fprintf(stderr, "hwbp: trace: the kernel dropped %" PRIu64 " of %" PRIu64 " samples\n",
				pres.lost, pres.lost + pres.samples);
	} else
		ret = hwbpi_trace_sim(&t, &cpu, ncpus, next_and_drain, &ra, err, sizeof(err));
	if (ret && o.qemu && (ret == -ENOENT || ret == -EIO)) {
		/* Not a watch the CPU refused: QEMU or the demo kernel failed. */
		fprintf(stderr, "hwbp: trace: qemu-x86: %s\n", err[0] ? err : hwbp_errno_name(ret));
		rc = 1;
		goto fini;
	} else if (ret && (ps || perf_pid)) {
		fprintf(stderr, "hwbp: trace: %s\n", err[0] ? err : hwbp_errno_name(ret));
		rc = 1;
		goto fini;
	} else if (ret) {
		fprintf(stderr, "hwbp: trace: cannot watch %s\n", err[0] ? err : hwbp_errno_name(ret));
		rc = 1;
		goto fini;
	}
	if (o.trace_file) {
		uint64_t produced = 0, lost = 0, lost_cpu[HWBPI_TRACE_MAX_CPUS] = { 0 };

		drain(&ra);
		for (unsigned c = 0; c < ncpus; c++) {
			uint64_t p, l;

			hwbp_ring_stats(t.ring[c], &p, &l);
			produced += p;
			lost += l;
			lost_cpu[c] = l;
			if (l)
				fprintf(stderr, "hwbp: trace: cpu %u lost %" PRIu64 " of %" PRIu64 " events\n", c, l, p);
		}
		fprintf(stderr, "hwbp: trace: %" PRIu64 " events produced, %" PRIu64 " recorded, %" PRIu64
			" lost\n", produced, ra.recorded, lost);
		if (ra.ctf) {
			ret = hwbpi_ctf_close(ra.ctf, lost_cpu);
			ra.ctf = NULL;
			if (ra.ctf_err || ret) {
				fprintf(stderr, "hwbp: trace: writing CTF --trace '%s' failed: %s\n",
					o.trace_file, hwbp_errno_name(ra.ctf_err ? ra.ctf_err : ret));
				rc = 1;
			}
		} else if (ra.out != stdout) {
			fclose(ra.out);
		}
	} else {
		hwbp_hist_print(&t.hist, names, syms, stdout);
	}
	if ((ps || perf_pid) && o.cmd && WIFEXITED(status) && WEXITSTATUS(status))
		fprintf(stderr, "hwbp: trace: %s exited with status %d\n", o.cmd[0], WEXITSTATUS(status));
	else if ((ps || perf_pid) && o.cmd && WIFSIGNALED(status))
		fprintf(stderr, "hwbp: trace: %s was killed by signal %d\n", o.cmd[0], WTERMSIG(status));
	if (lk.in && lk.bad > lk.lines / 2)
		fprintf(stderr, "hwbp: trace: %" PRIu64 " of %" PRIu64 " lackey lines were not accesses\n",
			lk.bad, lk.lines);
fini:
	if (ra.ctf)
		hwbpi_ctf_close(ra.ctf, NULL);   /* a failed run: keep what was traced */
	hwbpi_tracer_fini(&t);
out:
	/* A started process still alive is killed, an attached one left running. */
	hwbpi_ptrace_free(ps);
	if (perf_started)
		hwbpi_perf_abort(perf_pid);
	if (lk.in)
		fclose(lk.in);
	hwbp_symtab_free(syms);
	if (qdir[0] && strchr(qdir, '\'') == NULL) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", qdir);
		if (system(cmd) != 0)
			fprintf(stderr, "hwbp: trace: could not remove %s\n", qdir);
	}
	return rc;
}
