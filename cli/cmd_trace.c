/* SPDX-License-Identifier: MIT */
/*
 * hwbp trace: the ksym tracer's command line.  Parse the options, make a
 * session (include/hwbp/trace.h), hand it to the backend found by name in
 * the library's registry, and check the outputs.  No backend is named
 * here: the options a backend takes, and which of them choose it when no
 * --backend is given, come from the registry.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <hwbp/hwbp.h>
#include <hwbp/trace.h>

#include "cli.h"
#include "util.h"

/* Backend options of every backend, each name once (for getopt_long). */
#define MAX_BOPTS 32

enum {
	OPT_FILTER = 256, OPT_CPU, OPT_BACKEND, OPT_SYMBOLS, OPT_HIST, OPT_TRACE, OPT_FORMAT,
	OPT_BUFFER, OPT_OVERWRITE, OPT_VERSION, OPT_HELP, OPT_FORCE, OPT_DURATION, OPT_NO_DEMANGLE,
	OPT_WIDE, OPT_STACK, OPT_FOLDED, OPT_DEBUG_DIR, OPT_SRCLINE, OPT_SORT, OPT_DRY_RUN, OPT_JSON, OPT_PERCPU_ALL,
	OPT_RELEASE, OPT_OBJECTS, OPT_ROTATE, OPT_OBJECTS_LOG,
	OPT_BACKEND_BASE = 512,     /* + index into bopt[] */
};

struct topts {
	const char *entries[2 * HWBP_MAX_REQUESTS];
	unsigned nentries;
	const char *filter_file, *cpu, *backend, *symbols, *trace_file, *format;
	bool overwrite, have_format, have_hist, have_buffer;
	const char *flags[7];   /* the session's own flags given: "force", "no-demangle", "wide",
				 * "srcline", "dry-run", "json", "percpu-all" */
	unsigned nflags;
	/* the session's own options with a value given ("debug-dir", "sort", "release",
	 * "objects", "rotate", "objects-log"), in order; one given twice is the session's error */
	const char *sname[7], *svalue[7];
	unsigned nsvals;
	uint64_t hist_entries, buffer_kb;
	uint64_t duration_ms;        /* --duration: 0 none */
	bool have_stack;             /* --stack[=N] given (stack: its N, or NULL) */
	const char *stack, *folded;
	char *const *cmd;
	/* backend options given, in order */
	const struct hwbp_trace_backend_option *given[MAX_BOPTS];
	const char *value[MAX_BOPTS];
	unsigned ngiven;
};

static const struct hwbp_trace_backend_option *bopt[MAX_BOPTS];
static unsigned nbopt;

/* Every distinct backend option of the registry (the -- CMD one aside). */
static void collect_backend_options(void)
{
	nbopt = 0;
	for (unsigned i = 0; hwbp_trace_backend_at(i); i++)
		for (const struct hwbp_trace_backend_option *o = hwbp_trace_backend_at(i)->options;
		     o && o->name; o++) {
			unsigned k = 0;

			while (k < nbopt && strcmp(bopt[k]->name, o->name) != 0)
				k++;
			if (k == nbopt && nbopt < MAX_BOPTS)
				bopt[nbopt++] = o;
		}
}

static const struct hwbp_trace_backend_option *cmd_option(void)
{
	for (unsigned k = 0; k < nbopt; k++)
		if (bopt[k]->flags & HWBP_TRACE_OPT_ARGV)
			return bopt[k];
	return NULL;
}

/* "--demo, --lackey FILE --elf PROG, -- CMD, -p PID or --kernel": each
 * workload option once, in registry order, with the option it needs. */
static void workloads(char *buf, size_t n)
{
	unsigned count = 0, seen = 0;
	size_t k = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < nbopt; i++)
		count += (bopt[i]->flags & HWBP_TRACE_OPT_WORKLOAD) != 0;
	for (unsigned i = 0; i < nbopt && k < n; i++) {
		const struct hwbp_trace_backend_option *p = bopt[i], *r = NULL;

		if (!(p->flags & HWBP_TRACE_OPT_WORKLOAD))
			continue;
		for (unsigned j = 0; p->requires && j < nbopt; j++)
			if (strcmp(bopt[j]->name, p->requires) == 0)
				r = bopt[j];
		k += (size_t)snprintf(buf + k, n - k, "%s", seen == 0 ? "" : seen + 1 == count ?
				      " or " : ", ");
		if (k >= n)
			break;
		if (p->flags & HWBP_TRACE_OPT_ARGV)
			k += (size_t)snprintf(buf + k, n - k, "-- %s", p->arg);
		else if (p->short_name)
			k += (size_t)snprintf(buf + k, n - k, "-%c %s", p->short_name, p->arg);
		else
			k += (size_t)snprintf(buf + k, n - k, "--%s%s%s", p->name, p->arg ? " " : "",
					      p->arg ? p->arg : "");
		if (r && k < n)
			k += (size_t)snprintf(buf + k, n - k, " --%s %s", r->name, r->arg ? r->arg : "");
		seen++;
	}
}

/* Whether this build demangles (libiberty found at build time): the help
 * says so, since without it C++ and Rust names stay mangled. */
static const char *demangle_note(void)
{
#ifdef HWBP_HAVE_LIBIBERTY
	return "";
#else
	return "\nThis build has no libiberty: C++ and Rust names stay mangled.";
#endif
}

static int trace_help(void)
{
	char wl[256];

	workloads(wl, sizeof(wl));
	printf("usage: hwbp trace [-e ENTRY]... [--filter-file FILE] [--cpu PRESET]\n"
	       "                  [--backend NAME|list] WORKLOAD\n"
	       "                  [--symbols System.map|kallsyms] [--hist-entries N]\n"
	       "                  [--duration SEC] [--buffer-kb N] [--no-demangle] [--wide]\n"
	       "                  [--stack[=N]] [--folded FILE]\n"
	       "                  [--debug-dir DIR] [--sort function|srcline|stack|site]\n"
	       "                  [--trace FILE [--format text|ctf [--force]] [--overwrite]\n"
	       "                   [--srcline]] [--dry-run [--json]] [--percpu-all]\n"
	       "                  [--release FUNC(PARAM)|scope] [--objects N] [--rotate MS]\n"
	       "                  [--objects-log FILE]\n"
	       "       hwbp trace --version | --help\n"
	       "Watch symbols by name and print a usage histogram by function (default) or\n"
	       "every hit (--trace). ENTRY is SYM[+OFF][/LEN]:rwx with - for an absent letter\n"
	       "(pid_max:rw-, buf+8/16:-w-, 0xADDR/8:rw-); SYM:--- removes one, *:--- all.\n"
	       "SYM may be a C expression typed from DWARF or BTF: cfg.limits[2].hi,\n"
	       "heap->next->id (pointers read once, when armed), (struct net)init_net.ipv4.x;\n"
	       "a kernel per-CPU variable is watched in each CPU's copy (--percpu-all: every\n"
	       "copy on every CPU). --dry-run resolves and plans, prints, arms nothing\n"
	       "(--json: as JSON).\n"
	       "An object a function is given: -e 'make_node():return->value:-w-' (its\n"
	       "return value) or -e 'vfs_write(file)->f_pos:-w-' (a parameter by name),\n"
	       "watched from the call until --release FUNC(PARAM) is called with it (or,\n"
	       "--release scope, until the call returns); --objects N objects per watch\n"
	       "(default 64; more are counted as overflow); more live objects than debug\n"
	       "registers share them in turns of --rotate MS (default 5). A table of the\n"
	       "objects follows the histogram; --objects-log FILE writes each object's\n"
	       "arming, release and turns in a debug register as they happen.\n"
	       "The default length is the symbol's (or the expression's type's) size.\n"
	       "WORKLOAD is one of:\n"
	       "  %s\n"
	       "(--kernel -- CMD: the kernel, until CMD exits).\n"
	       "--format ctf writes FILE as a directory holding a CTF 1.8 trace (babeltrace2\n"
	       "FILE), one stream per CPU; --force replaces an earlier hwbp trace there.\n"
	       "--cpu defaults to the backend's model. --duration ends the trace after SEC\n"
	       "seconds as SIGTERM would (a -- CMD command gets SIGTERM).\n"
	       "C++ and Rust function names are shown demangled; --no-demangle shows\n"
	       "them as the symbol table has them.%s\n"
	       "The histogram shortens function names over 60 columns (\"ns::f(...)\",\n"
	       "\"a::b<...>::c\", then cut with \"...\"); --wide prints them in full.\n"
	       "--stack[=N] keys the histogram by call stack, the function and up to N\n"
	       "callers (1..64, default 8): rows \"bump <- work <- main\"; with --trace every\n"
	       "event shows its callers. --folded FILE also writes the histogram as folded\n"
	       "stacks for flamegraph.pl or inferno (\"jiffies [W];main;work;bump 300\"), FILE\n"
	       "made new; it implies --stack.\n"
	       "A stripped program's symbols come from its separate debug file (build-id\n"
	       "or .gnu_debuglink, beside it, in .debug/ or under /usr/lib/debug);\n"
	       "--debug-dir DIR is one more place. --sort srcline counts the histogram by\n"
	       "source line (a Source column); --srcline adds \" at FILE:LINE\" to traced\n"
	       "events. Both need the program's DWARF line tables and a build with libdw.\n"
	       "Backends (the first that takes the workload given is the default):\n", wl,
	       demangle_note());
	for (unsigned i = 0; hwbp_trace_backend_at(i); i++) {
		const struct hwbp_trace_backend *b = hwbp_trace_backend_at(i);

		printf("  %-9s %s%s\n", b->name, b->description,
		       b->flags & HWBP_TRACE_BACKEND_MISSING ? " (not in this build)" : "");
		for (const struct hwbp_trace_backend_option *o = b->options; o && o->name; o++) {
			char spell[64];

			if (o->flags & HWBP_TRACE_OPT_ARGV)
				snprintf(spell, sizeof(spell), "-- %s [ARGS]", o->arg);
			else if (o->short_name)
				snprintf(spell, sizeof(spell), "-%c, --%s %s", o->short_name, o->name,
					 o->arg ? o->arg : "");
			else
				snprintf(spell, sizeof(spell), "--%s %s", o->name, o->arg ? o->arg : "");
			printf("      %-22s %s\n", spell, o->help);
		}
	}
	return cli_close_output(stdout, "stdout");
}

static int backend_list(void)
{
	for (unsigned i = 0; hwbp_trace_backend_at(i); i++) {
		const struct hwbp_trace_backend *b = hwbp_trace_backend_at(i);

		printf("%-9s %s%s\n", b->name, b->description,
		       b->flags & HWBP_TRACE_BACKEND_MISSING ? " (not in this build)" : "");
	}
	return cli_close_output(stdout, "stdout");
}

/* --duration SEC: decimal seconds with at most 3 decimals (ms), more
 * than 0 and at most a year (31536000 s). */
static int duration_arg(const char *v, uint64_t *ms)
{
	const char *dot = strchr(v, '.');
	char whole[24];
	uint64_t s = 0, frac = 0;
	size_t n = dot ? (size_t)(dot - v) : strlen(v), nf = dot ? strlen(dot + 1) : 0;
	bool ok = n > 0 && n < sizeof(whole) && (!dot || (nf > 0 && nf <= 3));

	if (ok) {
		memcpy(whole, v, n);
		whole[n] = '\0';
		ok = strspn(whole, "0123456789") == n && hwbp_parse_u64(whole, &s) == 0 &&
		     s <= 31536000;
	}
	for (size_t i = 0; ok && i < 3; i++) {
		char c = i < nf ? dot[1 + i] : '0';

		ok = c >= '0' && c <= '9';
		frac = frac * 10 + (uint64_t)(c - '0');
	}
	if (!ok || s * 1000 + frac == 0) {
		fprintf(stderr, "hwbp: trace: bad --duration '%s' (seconds, such as 10 or 0.5)\n", v);
		return EXIT_USAGE;
	}
	*ms = s * 1000 + frac;
	return 0;
}

static int num_arg(const char *opt, const char *v, uint64_t *out, uint64_t max)
{
	if (hwbp_parse_u64(v, out) || *out == 0 || *out > max) {
		fprintf(stderr, "hwbp: trace: bad %s '%s'\n", opt, v);
		return EXIT_USAGE;
	}
	return 0;
}

/* getopt_long()'s tables: the generic options, then every backend option
 * but the -- CMD one, each with its short name (if any) added to @shorts. */
static void option_tables(struct option *longs, char *shorts)
{
	static const struct option generic[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "filter-file", required_argument, NULL, OPT_FILTER },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "symbols", required_argument, NULL, OPT_SYMBOLS },
		{ "hist-entries", required_argument, NULL, OPT_HIST },
		{ "trace", required_argument, NULL, OPT_TRACE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "buffer-kb", required_argument, NULL, OPT_BUFFER },
		{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "wide", no_argument, NULL, OPT_WIDE },
		{ "stack", optional_argument, NULL, OPT_STACK },
		{ "folded", required_argument, NULL, OPT_FOLDED },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "srcline", no_argument, NULL, OPT_SRCLINE },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "percpu-all", no_argument, NULL, OPT_PERCPU_ALL },
		{ "release", required_argument, NULL, OPT_RELEASE },
		{ "objects", required_argument, NULL, OPT_OBJECTS },
		{ "rotate", required_argument, NULL, OPT_ROTATE },
		{ "objects-log", required_argument, NULL, OPT_OBJECTS_LOG },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "help", no_argument, NULL, OPT_HELP },
	};
	unsigned nl = 0;

	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		longs[nl++] = generic[i];
	for (unsigned k = 0; k < nbopt; k++) {
		if (bopt[k]->flags & HWBP_TRACE_OPT_ARGV)
			continue;
		longs[nl].name = bopt[k]->name;
		longs[nl].has_arg = bopt[k]->arg ? required_argument : no_argument;
		longs[nl].flag = NULL;
		longs[nl].val = OPT_BACKEND_BASE + (int)k;
		nl++;
		if (bopt[k]->short_name) {
			size_t l = strlen(shorts);

			shorts[l] = bopt[k]->short_name;
			shorts[l + 1] = bopt[k]->arg ? ':' : '\0';
			shorts[l + 2] = '\0';
		}
	}
	memset(&longs[nl], 0, sizeof(longs[nl]));
}

/* getopt's ':', a missing value: name the option as it was given. */
static int missing_value(char **argv)
{
	if (optopt == 'e')
		return usage_error("trace: %s needs an entry such as pid_max:rw-", "-e");
	for (unsigned k = 0; k < nbopt; k++)
		if (bopt[k]->short_name && bopt[k]->short_name == optopt &&
		    strcmp(bopt[k]->name, "pid") == 0)
			return usage_error("trace: %s needs a process id", "-p");
	return usage_error("trace: %s needs a value", argv[optind - 1]);
}

/* Backend option @c (value @v), by its code or its short name, kept in
 * order in @o.  Returns 0 or an exit status. */
static int backend_value(int c, const char *v, char **argv, struct topts *o)
{
	unsigned k = (unsigned)(c - OPT_BACKEND_BASE);

	/* a backend option's short name (-p) */
	for (unsigned j = 0; c < OPT_FILTER && j < nbopt; j++)
		if (bopt[j]->short_name == c)
			k = j, c = OPT_BACKEND_BASE + (int)j;

	if (c < OPT_BACKEND_BASE || k >= nbopt)
		return usage_error("trace: unexpected option '%s'", argv[optind - 1]);
	if (o->ngiven == MAX_BOPTS)
		return usage_error("trace: too many options at '%s'", argv[optind - 1]);
	o->given[o->ngiven] = bopt[k];
	o->value[o->ngiven++] = v;
	return 0;
}

/* One of the session's own flags, passed by name in configure(); given
 * again, it counts once (as a repeated flag always did). */
static int add_flag(struct topts *o, const char *name)
{
	for (unsigned i = 0; i < o->nflags; i++)
		if (strcmp(o->flags[i], name) == 0)
			return 0;
	o->flags[o->nflags++] = name;   /* four names, four slots */
	return 0;
}

/* One of the session's own options with a value, passed by name in
 * configure(); the session refuses a repeat ("given twice"), and with
 * two names in two slots a third one can only be a repeat. */
static int add_value(struct topts *o, const char *name, const char *v)
{
	if (o->nsvals == sizeof(o->sname) / sizeof(o->sname[0]))
		return usage_error("trace: --%s given twice", name);
	o->sname[o->nsvals] = name;
	o->svalue[o->nsvals++] = v;
	return 0;
}

/* An option with a value in @o: a generic one here, the others
 * backend_value()'s.  Returns 0 or an exit status. */
static int option_value(int c, const char *v, char **argv, struct topts *o)
{
	switch (c) {
	case 'e':
		if (o->nentries == sizeof(o->entries) / sizeof(o->entries[0]))
			return usage_error("trace: too many -e at '%s'", v);
		o->entries[o->nentries++] = v;
		return 0;
	case OPT_FILTER:
		o->filter_file = v;
		return 0;
	case OPT_CPU:
		o->cpu = v;
		return 0;
	case OPT_BACKEND:
		o->backend = v;
		return 0;
	case OPT_SYMBOLS:
		o->symbols = v;
		return 0;
	case OPT_HIST:
		o->have_hist = true;
		return num_arg("--hist-entries", v, &o->hist_entries, 1u << 16);
	case OPT_BUFFER:
		o->have_buffer = true;
		return num_arg("--buffer-kb", v, &o->buffer_kb, 1u << 20);
	case OPT_TRACE:
		o->trace_file = v;
		return 0;
	case OPT_DURATION:
		return duration_arg(v, &o->duration_ms);
	case OPT_FORMAT:
		if (strcmp(v, "text") != 0 && strcmp(v, "ctf") != 0)
			return usage_error("trace: bad --format '%s' (text, ctf)", v);
		o->format = v;
		o->have_format = true;
		return 0;
	case OPT_OVERWRITE:
		o->overwrite = true;
		return 0;
	case OPT_STACK:
		if (o->have_stack)
			return usage_error("trace: %s", "--stack given twice");
		o->have_stack = true;
		o->stack = v;   /* NULL: --stack alone (getopt: only --stack=N has one) */
		return 0;
	case OPT_FOLDED:
		o->folded = v;
		return 0;
	case OPT_FORCE:
	case OPT_NO_DEMANGLE:
	case OPT_WIDE:
		return add_flag(o, c == OPT_FORCE ? "force" : c == OPT_WIDE ? "wide" : "no-demangle");
	case OPT_SRCLINE:
		return add_flag(o, "srcline");
	case OPT_DRY_RUN:
		return add_flag(o, "dry-run");
	case OPT_JSON:
		return add_flag(o, "json");
	case OPT_PERCPU_ALL:
		return add_flag(o, "percpu-all");
	case OPT_DEBUG_DIR:
	case OPT_SORT:
		return add_value(o, c == OPT_SORT ? "sort" : "debug-dir", v);
	case OPT_RELEASE:
	case OPT_OBJECTS:
	case OPT_ROTATE:
	case OPT_OBJECTS_LOG:
		return add_value(o, c == OPT_RELEASE ? "release" : c == OPT_OBJECTS ? "objects" :
				 c == OPT_ROTATE ? "rotate" : "objects-log", v);
	default:
		return backend_value(c, v, argv, o);
	}
}

/* One result @c of getopt_long(): 0, an exit status, or with *done set
 * the status of --help or --version. */
static int take_option(int c, const char *v, char **argv, struct topts *o, int *done)
{
	switch (c) {
	case 'h':
	case OPT_HELP:
		*done = 1;
		return trace_help();
	case OPT_VERSION:
		*done = 1;
		return cli_version();
	case ':':
		return missing_value(argv);
	case '?':
		return usage_error("trace: unexpected option '%s' (try --help)", argv[optind - 1]);
	default:
		return option_value(c, v, argv, o);
	}
}

/* Returns 0, an exit status, or -1: done (help, version, list printed). */
static int parse_args(int argc, char **argv, struct topts *o, int *done)
{
	struct option longs[29 + MAX_BOPTS + 1];   /* generic, backend, the end */
	char shorts[8 + 2 * MAX_BOPTS] = "+:he:";
	int c, ret;

	memset(o, 0, sizeof(*o));
	*done = 0;
	o->hist_entries = 16;
	o->format = "text";
	option_tables(longs, shorts);
	opterr = 0;
	optind = 0;   /* glibc: a full restart of the scan */
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		ret = take_option(c, optarg, argv, o, done);
		if (ret || *done)
			return ret;
	}
	if (optind > 1 && strcmp(argv[optind - 1], "--") == 0) {
		if (optind >= argc)
			return usage_error("trace: %s", "-- needs a command to run");
		o->cmd = &argv[optind];
	} else if (optind < argc && strcmp(argv[optind - 1], "--stack") == 0) {
		/* an optional value is only ever --stack=N (getopt_long) */
		return usage_error("trace: unexpected argument '%s' (the depth is --stack=N)",
				   argv[optind]);
	} else if (optind < argc) {
		return usage_error("trace: unexpected argument '%s' (try --help)", argv[optind]);
	}
	return 0;
}

static bool given(const struct topts *o, const char *name)
{
	if (o->cmd && cmd_option() && strcmp(cmd_option()->name, name) == 0)
		return true;
	for (unsigned i = 0; i < o->ngiven; i++)
		if (strcmp(o->given[i]->name, name) == 0)
			return true;
	return false;
}

/* Whether @b takes every workload option given (--kernel -- CMD is not
 * ptrace's, whose -- CMD selects it). */
static bool takes_workloads(const struct topts *o, const struct hwbp_trace_backend *b)
{
	for (unsigned k = 0; k < nbopt; k++)
		if ((bopt[k]->flags & HWBP_TRACE_OPT_WORKLOAD) && given(o, bopt[k]->name) &&
		    !hwbp_trace_backend_option(b, bopt[k]->name))
			return false;
	return true;
}

/* The backend: named, or the first whose selecting option was given and
 * that takes the whole workload. */
static int choose_backend(const struct topts *o, const struct hwbp_trace_backend **out)
{
	const struct hwbp_trace_backend *b = NULL;
	char names[256] = "";
	size_t k = 0;

	if (o->backend) {
		b = hwbp_trace_backend_find(o->backend);
		for (unsigned i = 0; !b && hwbp_trace_backend_at(i) && k < sizeof(names); i++)
			k += (size_t)snprintf(names + k, sizeof(names) - k, "%s%s", i ? ", " : "",
					      hwbp_trace_backend_at(i)->name);
		if (!b) {
			fprintf(stderr, "hwbp: trace: backend '%s' is not available (%s)\n", o->backend,
				names);
			return EXIT_USAGE;
		}
	}
	for (unsigned i = 0; !b && hwbp_trace_backend_at(i); i++)
		for (const struct hwbp_trace_backend_option *p = hwbp_trace_backend_at(i)->options;
		     !b && p && p->name; p++)
			if ((p->flags & HWBP_TRACE_OPT_SELECTS) && given(o, p->name) &&
			    takes_workloads(o, hwbp_trace_backend_at(i)))
				b = hwbp_trace_backend_at(i);
	if (!b)
		return usage_error("trace: %s", "no backend takes this workload (try --help)");
	*out = b;
	return 0;
}

/* Exactly one workload; it and every other backend option fit @b. */
static int check_workload(const struct topts *o)
{
	unsigned n = 0;
	char wl[256];

	bool with_cmd = false, cmd = false;

	for (unsigned k = 0; k < nbopt; k++)
		if ((bopt[k]->flags & HWBP_TRACE_OPT_WORKLOAD) && given(o, bopt[k]->name)) {
			n++;
			with_cmd |= (bopt[k]->flags & HWBP_TRACE_OPT_WITH_CMD) != 0;
			cmd |= (bopt[k]->flags & HWBP_TRACE_OPT_ARGV) != 0;
		}
	/* --kernel -- CMD: the command bounds a kernel-wide trace. */
	if (n == 2 && with_cmd && cmd)
		n = 1;
	if (n != 1) {
		workloads(wl, sizeof(wl));
		return usage_error("trace: give one workload: %s", wl);
	}
	return 0;
}

static int check_fits(const struct topts *o, const struct hwbp_trace_backend *b)
{
	for (unsigned k = 0; k < nbopt; k++) {
		const struct hwbp_trace_backend_option *p = bopt[k];

		if (!given(o, p->name) || hwbp_trace_backend_option(b, p->name))
			continue;
		if (p->flags & HWBP_TRACE_OPT_WORKLOAD) {
			/* "--backend ptrace/perf traces -- CMD or -p PID" */
			char names[128];
			size_t l = 0;

			for (unsigned i = 0; hwbp_trace_backend_at(i) && l < sizeof(names); i++)
				if (strcmp(hwbp_trace_backend_at(i)->workload, b->workload) == 0)
					l += (size_t)snprintf(names + l, sizeof(names) - l, "%s%s",
							      l ? "/" : "", hwbp_trace_backend_at(i)->name);
			fprintf(stderr, "hwbp: trace: --backend %s traces %s\n", names, b->workload);
			return EXIT_USAGE;
		}
		fprintf(stderr, "hwbp: trace: %s%s does not apply to --backend %s\n",
			p->flags & HWBP_TRACE_OPT_ARGV ? "-- " : "--",
			p->flags & HWBP_TRACE_OPT_ARGV ? p->arg : p->name, b->name);
		return EXIT_USAGE;
	}
	for (unsigned i = 0; i < o->ngiven; i++) {
		const struct hwbp_trace_backend_option *p = hwbp_trace_backend_option(b, o->given[i]->name);
		const struct hwbp_trace_backend_option *r = p && p->requires ?
			hwbp_trace_backend_option(b, p->requires) : NULL;

		if (r && !given(o, r->name)) {
			fprintf(stderr, "hwbp: trace: --%s needs --%s %s\n", p->name, r->name,
				r->arg ? r->arg : "");
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* Options of the outputs that apply only with others. */
static int check_outputs(const struct topts *o)
{
	/* (--buffer-kb without --trace: the session knows whether the
	 * backend has rings of its own.) */
	if (!o->trace_file && (o->have_format || o->overwrite))
		return usage_error("trace: %s applies only with --trace FILE",
				   o->have_format ? "--format" : "--overwrite");
	if (o->trace_file && o->have_hist)
		return usage_error("trace: %s", "--hist-entries does not apply with --trace (no histogram)");
	if (strcmp(o->format, "ctf") == 0 && strcmp(o->trace_file, "-") == 0)
		return usage_error("trace: %s", "--format ctf needs --trace DIR (a directory, not -)");
	return 0;
}

/* ---- SIGINT, SIGTERM, SIGHUP while a trace runs ---- */

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP_SIGS (sizeof(stop_sigs) / sizeof(stop_sigs[0]))
static struct hwbp_trace_session *volatile running;

/*
 * End the trace cleanly: the session stops (an attached process is left
 * disarmed and running) and still writes what was gathered; a second
 * signal hurries.  A -- CMD child gets the signal too, unless the terminal
 * sent it (SI_KERNEL: Ctrl-C goes to the whole foreground process group,
 * the child included), so that it gets it once, as under perf record.
 */
static void on_stop_signal(int sig, siginfo_t *si, void *uc)
{
	struct hwbp_trace_session *s = running;

	(void)uc;
	if (s)
		hwbp_trace_session_stop_signal(s, si && si->si_code == SI_KERNEL ? 0 : sig);
}

/* The handler for @s's run; the dispositions before it in @old.  A
 * signal ignored already stays ignored (nohup; a background job of a
 * shell without job control ignores SIGINT). */
static void catch_stops(struct hwbp_trace_session *s, struct sigaction old[NSTOP_SIGS])
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_stop_signal;
	sa.sa_flags = SA_SIGINFO;   /* no SA_RESTART: the backend's waits return EINTR */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP_SIGS; i++)
		sigaddset(&sa.sa_mask, stop_sigs[i]);   /* one handler at a time */
	running = s;
	for (size_t i = 0; i < NSTOP_SIGS; i++)
		if (sigaction(stop_sigs[i], NULL, &old[i]) == 0 && old[i].sa_handler != SIG_IGN)
			sigaction(stop_sigs[i], &sa, NULL);
}

/*
 * --duration: SIGALRM ends the trace as a SIGTERM would, and a -- CMD
 * child gets SIGTERM, as under timeout(1).  The timer starts once the
 * workload is started and its watches placed (after prepare), so that
 * loading a large program's symbols does not eat into the time.
 */
static void on_alarm(int sig)
{
	struct hwbp_trace_session *s = running;

	(void)sig;
	if (s)
		hwbp_trace_session_stop_signal(s, SIGTERM);
}

static int start_timer(uint64_t ms, struct sigaction *old)
{
	struct itimerval it;
	struct sigaction sa;

	memset(&it, 0, sizeof(it));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;   /* no SA_RESTART, as for the stop signals */
	sigemptyset(&sa.sa_mask);
	it.it_value.tv_sec = (time_t)(ms / 1000);
	it.it_value.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	if (sigaction(SIGALRM, &sa, old) || setitimer(ITIMER_REAL, &it, NULL)) {
		fprintf(stderr, "hwbp: trace: --duration: %s\n", hwbp_errno_name(-errno));
		return EXIT_REFUSED;
	}
	return 0;
}

static void stop_timer(const struct sigaction *old)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	sigaction(SIGALRM, old, NULL);
}

static void release_stops(const struct sigaction old[NSTOP_SIGS])
{
	for (size_t i = 0; i < NSTOP_SIGS; i++)
		sigaction(stop_sigs[i], &old[i], NULL);
	running = NULL;
}

/* The exit status of hwbp for the command's wait status @status, as
 * time(1) and perf record give it: its exit status, or 128 + the signal
 * that killed it. */
static int command_status(const char *cmd, int status)
{
	if (WIFEXITED(status)) {
		if (WEXITSTATUS(status))
			fprintf(stderr, "hwbp: trace: %s exited with status %d\n", cmd,
				WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "hwbp: trace: %s was killed by signal %d (%s)\n", cmd,
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	return 0;
}

static int session_error(struct hwbp_trace_session *s)
{
	bool input = false;
	const char *m = hwbp_trace_session_message(s, &input);

	fprintf(stderr, "hwbp: trace: %s\n", m[0] ? m : "failed");
	return input ? EXIT_USAGE : EXIT_REFUSED;
}

/* The session from the options: its calls fail only on input. */
static int configure(struct hwbp_trace_session *s, const struct topts *o, FILE *text)
{
	struct hwbp_trace_mode m = { o->trace_file != NULL, (unsigned)o->hist_entries,
				     o->have_buffer ? (size_t)o->buffer_kb * 1024 : 0, o->overwrite };
	struct hwbp_trace_output out = { o->trace_file ? NULL : stdout, text,
					 o->trace_file && strcmp(o->format, "ctf") == 0 ? o->trace_file : NULL,
					 stderr, "hwbp: trace: " };
	int ret = 0;

	for (unsigned i = 0; ret == 0 && i < o->ngiven; i++)
		ret = hwbp_trace_session_option(s, o->given[i]->name, o->given[i]->arg ? o->value[i] : NULL);
	for (unsigned i = 0; ret == 0 && i < o->nflags; i++)
		ret = hwbp_trace_session_option(s, o->flags[i], NULL);
	if (ret == 0 && o->have_stack)
		ret = hwbp_trace_session_option(s, "stack", o->stack);
	if (ret == 0 && o->folded)
		ret = hwbp_trace_session_option(s, "folded", o->folded);
	for (unsigned i = 0; ret == 0 && i < o->nsvals; i++)
		ret = hwbp_trace_session_option(s, o->sname[i], o->svalue[i]);
	if (ret == 0 && o->cmd)
		ret = hwbp_trace_session_command(s, o->cmd);
	if (ret == 0 && o->cpu)
		ret = hwbp_trace_session_cpu(s, o->cpu);
	if (ret == 0 && o->symbols)
		ret = hwbp_trace_session_symbols(s, o->symbols);
	/* The filter file's entries first, then -e's. */
	if (ret == 0 && o->filter_file)
		ret = hwbp_trace_session_filter_file(s, o->filter_file);
	for (unsigned i = 0; ret == 0 && i < o->nentries; i++)
		ret = hwbp_trace_session_entry(s, o->entries[i], "-e");
	if (ret == 0)
		ret = hwbp_trace_session_mode(s, &m);
	if (ret == 0)
		ret = hwbp_trace_session_output(s, &out);
	return ret ? session_error(s) : 0;
}

int hwbp_cli_trace(int argc, char **argv)
{
	const struct hwbp_trace_backend *b = NULL;
	struct hwbp_trace_session *s;
	struct topts o;
	struct hwbp_cpu cpu;
	struct sigaction old[NSTOP_SIGS], old_alarm;
	FILE *text = NULL;
	int done, ret, rc = 0, child_rc = 0, status;
	bool timing = false;

	collect_backend_options();
	ret = parse_args(argc, argv, &o, &done);
	if (done || ret)
		return ret;
	if (o.backend && strcmp(o.backend, "list") == 0)
		return backend_list();
	if ((ret = check_workload(&o)) || (ret = choose_backend(&o, &b)) ||
	    (ret = check_fits(&o, b)) || (ret = check_outputs(&o)))
		return ret;
	if (o.cpu && hwbp_cpu_preset(o.cpu, &cpu))
		return usage_error("trace: unknown --cpu '%s' (see 'hwbp caps --list')", o.cpu);
	s = hwbp_trace_session_new(b, &ret);
	if (!s) {
		fprintf(stderr, "hwbp: trace: %s\n", hwbp_errno_name(ret));
		return EXIT_REFUSED;
	}
	if (o.trace_file && strcmp(o.format, "text") == 0) {
		text = strcmp(o.trace_file, "-") == 0 ? stdout : fopen(o.trace_file, "w");
		if (!text) {
			fprintf(stderr, "hwbp: trace: cannot write --trace '%s': %s\n", o.trace_file,
				strerror(errno));
			hwbp_trace_session_free(s);
			return EXIT_USAGE;
		}
	}
	rc = configure(s, &o, text);
	if (rc == 0) {
		catch_stops(s, old);
		if (hwbp_trace_session_prepare(s))
			rc = session_error(s);
		if (rc == 0 && o.duration_ms && (rc = start_timer(o.duration_ms, &old_alarm)) == 0)
			timing = true;
		if (rc == 0 && hwbp_trace_session_run(s))
			rc = session_error(s);
		if (timing)
			stop_timer(&old_alarm);
		release_stops(old);
	}
	if (rc == 0 && o.cmd && hwbp_trace_session_wait_status(s, &status))
		child_rc = command_status(o.cmd[0], status);
	hwbp_trace_session_free(s);
	/* A failed write to any output is an error with its errno's name. */
	if (text && text != stdout) {
		char what[600];

		snprintf(what, sizeof(what), "--trace '%s'", o.trace_file);
		if (cli_close_output(text, what) && rc == 0)
			rc = EXIT_REFUSED;
	}
	if (cli_close_output(stdout, "stdout") && rc == 0)
		rc = EXIT_REFUSED;
	/* hwbp's own errors (1, 2) first, then the command's status. */
	return rc ? rc : child_rc;
}
