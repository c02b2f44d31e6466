/* SPDX-License-Identifier: MIT */
/*
 * Tracer sessions (include/hwbp/trace.h): options gathered, then one run:
 * the backend opens its workload and symbols, the entries become watches,
 * the backend feeds hits, and the results go to the outputs
 * (tracer/output.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwbp/sim.h>

#include "demangle.h"
#include "dwarf.h"
#include "session.h"
#include "srcline.h"

int hwbpi_fail(struct hwbp_trace_session *s, int ret, bool input, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	s->input = input;
	return ret;
}

void hwbpi_note(struct hwbp_trace_session *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->out.diag)
		return;
	fputs(s->out.diag_prefix ? s->out.diag_prefix : "", s->out.diag);
	va_start(ap, fmt);
	vfprintf(s->out.diag, fmt, ap);
	va_end(ap);
	fputc('\n', s->out.diag);
}

struct hwbp_trace_session *hwbp_trace_session_new(const struct hwbp_trace_backend *b, int *err)
{
	struct hwbp_trace_session *s;

	if (!b) {
		if (err)
			*err = -EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		if (err)
			*err = -ENOMEM;
		return NULL;
	}
	s->backend = b;
	s->ncpus = 1;
	return s;
}

void hwbp_trace_session_free(struct hwbp_trace_session *s)
{
	int e = errno;   /* kept: the caller may be about to report a write error */

	if (!s)
		return;
	if (s->opened && s->backend->close)
		s->backend->close(s);
	if (s->tracer_started)
		hwbpi_tracer_fini(&s->t);
	/* prepared but never run, or run and failed before the end: the
	 * folded file this session created holds nothing */
	if (s->folded_f) {
		fclose(s->folded_f);
		unlink(s->folded);
	}
	hwbp_symtab_free(s->syms);
	free(s->drain);
	free(s->line_end);
	hwbpi_demangler_free(s->dm);
	hwbpi_dwarf_free(s->dwarf);
	free(s);
	errno = e;
}

const char *hwbpi_session_opt(const struct hwbp_trace_session *s, const char *name)
{
	for (unsigned i = 0; i < s->nopt; i++)
		if (strcmp(s->opt[i].name, name) == 0)
			return s->opt[i].value;
	return NULL;
}

/* The session's own options, for every backend: the outputs' (CTF --trace
 * may replace an earlier hwbp trace; function names as the symbol table
 * has them, not demangled; in full in the histogram's table, not
 * shortened).  Each is a flag without a value, given once. */
static bool *session_flag(struct hwbp_trace_session *s, const char *name)
{
	if (strcmp(name, "force") == 0)
		return &s->force;
	if (strcmp(name, "no-demangle") == 0)
		return &s->no_demangle;
	if (strcmp(name, "wide") == 0)
		return &s->wide;
	if (strcmp(name, "srcline") == 0)
		return &s->srcline;
	return NULL;
}

/* The session's own options with a value, for every backend: another
 * root for debug files ("debug-dir"), the histogram's key ("sort").
 * Each given once; checked at prepare. */
static const char **session_value(struct hwbp_trace_session *s, const char *name)
{
	if (strcmp(name, "debug-dir") == 0)
		return &s->debug_dir;
	if (strcmp(name, "sort") == 0)
		return &s->sort;
	return NULL;
}

/* The session's own options with a value: "stack" (callers per hit,
 * 1..HWBPI_STACK_MAX; without a value HWBPI_STACK_DEFAULT) and "folded"
 * (a file). */
static int stack_option(struct hwbp_trace_session *s, const char *name, const char *value)
{
	bool folded = strcmp(name, "folded") == 0;
	uint64_t n = HWBPI_STACK_DEFAULT;
	int ret;

	if (s->opened || (folded ? s->folded != NULL : s->stack_depth != 0))
		return hwbpi_fail(s, -EBUSY, true, "--%s given twice", name);
	if (folded) {
		if (!value || !value[0])
			return hwbpi_fail(s, -EINVAL, true, "--folded needs FILE");
		s->folded = value;
		return 0;
	}
	if (value && (ret = hwbp_parse_u64(value, &n)) == -EINVAL)
		return hwbpi_fail(s, ret, true, "bad --stack '%s' (callers per hit: 1..%u): %s",
				  value, HWBPI_STACK_MAX, hwbp_errno_name(ret));
	if (value && (ret || n == 0 || n > HWBPI_STACK_MAX))
		return hwbpi_fail(s, -ERANGE, true, "--stack %s: callers per hit are 1..%u: %s",
				  value, HWBPI_STACK_MAX, hwbp_errno_name(-ERANGE));
	s->stack_depth = (unsigned)n;
	return 0;
}

int hwbp_trace_session_option(struct hwbp_trace_session *s, const char *name, const char *value)
{
	const struct hwbp_trace_backend_option *o;
	const char **val;
	bool *flag;

	if (!s || !name)
		return -EINVAL;
	if (strcmp(name, "stack") == 0 || strcmp(name, "folded") == 0)
		return stack_option(s, name, value);
	if ((flag = session_flag(s, name))) {
		if (value)
			return hwbpi_fail(s, -EINVAL, true, "--%s takes no value", name);
		if (s->opened || *flag)
			return hwbpi_fail(s, -EBUSY, true, "--%s given twice", name);
		*flag = true;
		return 0;
	}
	if ((val = session_value(s, name))) {
		if (!value)
			return hwbpi_fail(s, -EINVAL, true, "--%s needs a value", name);
		if (s->opened || *val)
			return hwbpi_fail(s, -EBUSY, true, "--%s given twice", name);
		*val = value;
		return 0;
	}
	if (s->opened || s->nopt == HWBPI_SESSION_MAX_OPTS || hwbpi_session_opt(s, name))
		return hwbpi_fail(s, -EBUSY, true, "--%s given twice", name);
	o = hwbp_trace_backend_option(s->backend, name);
	if (!o || (o->flags & HWBP_TRACE_OPT_ARGV))
		return hwbpi_fail(s, -ENOENT, true, "--%s does not apply to --backend %s", name,
				  s->backend->name);
	if (!o->arg != !value)
		return hwbpi_fail(s, -EINVAL, true, o->arg ? "--%s needs %s" : "--%s takes no value",
				  name, o->arg ? o->arg : "");
	s->opt[s->nopt].name = o->name;
	s->opt[s->nopt].value = value ? value : "";
	s->nopt++;
	return 0;
}

int hwbp_trace_session_command(struct hwbp_trace_session *s, char *const argv[])
{
	bool takes = false;

	if (!s || !argv || !argv[0] || !argv[0][0])
		return s ? hwbpi_fail(s, -EINVAL, true, "-- needs a command to run") : -EINVAL;
	for (const struct hwbp_trace_backend_option *o = s->backend->options; o && o->name; o++)
		takes |= (o->flags & HWBP_TRACE_OPT_ARGV) != 0;
	if (!takes)
		return hwbpi_fail(s, -ENOENT, true, "-- CMD does not apply to --backend %s",
				  s->backend->name);
	if (s->opened || s->argv)
		return hwbpi_fail(s, -EBUSY, true, "-- CMD given twice");
	s->argv = argv;
	return 0;
}

int hwbp_trace_session_cpu(struct hwbp_trace_session *s, const char *preset)
{
	if (!s || !preset)
		return -EINVAL;
	if (!(s->backend->flags & HWBP_TRACE_BACKEND_CPU))
		return hwbpi_fail(s, -ENOENT, true, "--cpu does not apply to --backend %s",
				  s->backend->name);
	if (s->opened || s->have_cpu)
		return hwbpi_fail(s, -EBUSY, true, "--cpu given twice");
	if (hwbp_cpu_preset(preset, &s->cpu))
		return hwbpi_fail(s, -EINVAL, true, "unknown --cpu '%s'", preset);
	s->have_cpu = true;
	return 0;
}

int hwbp_trace_session_symbols(struct hwbp_trace_session *s, const char *path)
{
	if (!s || !path)
		return -EINVAL;
	if (s->opened)
		return -EBUSY;
	if (s->nsymfile == HWBPI_SESSION_MAX_SYMFILES)
		return hwbpi_fail(s, -ENOSPC, true, "more than %d --symbols", HWBPI_SESSION_MAX_SYMFILES);
	s->symfile[s->nsymfile++] = path;
	return 0;
}

static int add_entry(struct hwbp_trace_session *s, const char *text, const char *where)
{
	if (!s || !text)
		return -EINVAL;
	if (s->opened)
		return -EBUSY;
	if (s->nentry == HWBPI_SESSION_MAX_ENTRIES)
		return hwbpi_fail(s, -ENOSPC, true, "too many -e at '%s'", text);
	s->entry[s->nentry].text = text;
	s->entry[s->nentry].where = where;
	s->nentry++;
	return 0;
}

int hwbp_trace_session_entry(struct hwbp_trace_session *s, const char *entry, const char *where)
{
	return add_entry(s, entry, where ? where : "-e");
}

int hwbp_trace_session_filter_file(struct hwbp_trace_session *s, const char *path)
{
	return add_entry(s, path, NULL);
}

int hwbp_trace_session_mode(struct hwbp_trace_session *s, const struct hwbp_trace_mode *m)
{
	if (!s || !m)
		return -EINVAL;
	if (s->opened)
		return -EBUSY;
	if (m->ring_bytes > HWBPI_RING_MAX_BYTES)
		return hwbpi_fail(s, -ERANGE, true,
				  "--buffer-kb %zu: at most %zu (%zu MiB per CPU): %s",
				  m->ring_bytes / 1024, HWBPI_RING_MAX_BYTES / 1024,
				  HWBPI_RING_MAX_BYTES >> 20, hwbp_errno_name(-ERANGE));
	s->mode = *m;
	return 0;
}

int hwbp_trace_session_output(struct hwbp_trace_session *s, const struct hwbp_trace_output *o)
{
	if (!s || !o || (o->ctf_dir && (!o->ctf_dir[0] || o->text)))
		return -EINVAL;
	if (s->opened)
		return -EBUSY;
	s->out = *o;
	return 0;
}

void hwbp_trace_session_stop(struct hwbp_trace_session *s)
{
	/* Only a flag and the backend's own async-signal-safe stop. */
	if (!s)
		return;
	/* Counts the requests (1, 2: a second one hurries the end), as an
	 * async-signal-safe store. */
	s->stop = s->stop < 2 ? s->stop + 1 : 2;
	if (s->backend->stop)
		s->backend->stop(s);
}

void hwbp_trace_session_stop_signal(struct hwbp_trace_session *s, int sig)
{
	if (!s)
		return;
	/* Read by the backend's stop, called next. */
	if (!s->stop)
		s->stop_sig = sig;
	hwbp_trace_session_stop(s);
}

const char *hwbp_trace_session_message(const struct hwbp_trace_session *s, bool *input)
{
	if (input)
		*input = s ? s->input : false;
	return s ? s->msg : "";
}

bool hwbp_trace_session_wait_status(const struct hwbp_trace_session *s, int *status)
{
	if (!s || !s->have_status)
		return false;
	if (status)
		*status = s->status;
	return true;
}

void hwbp_trace_session_hit(struct hwbp_trace_session *s, const struct hwbp_trace_event *ev)
{
	hwbpi_tracer_hit(&s->t, ev);
}

void hwbp_trace_session_hit_frames(struct hwbp_trace_session *s, struct hwbp_trace_event *ev,
				   const uint64_t *callers, unsigned n)
{
	hwbpi_tracer_hit_frames(&s->t, ev, callers, n);
}

/* The event-management layer a prepared session holds (a benchmark reads
 * its counts, drains its rings); prepared is set only once the tracer
 * started and the outputs opened, and the tracer lives until free. */
const struct hwbp_hist *hwbp_trace_session_hist(const struct hwbp_trace_session *s)
{
	return s && s->prepared && !s->t.trace ? &s->t.hist : NULL;
}

struct hwbp_ring *hwbp_trace_session_ring(struct hwbp_trace_session *s, unsigned cpu)
{
	return s && s->prepared && s->t.trace && cpu < s->t.ncpus ? s->t.ring[cpu] : NULL;
}

/* ---------------------------------------------------------- entries */

/* One filter entry; errors name the column. */
static int apply_entry(struct hwbp_trace_session *s, const char *text, const char *where)
{
	struct hwbp_trace_entry e;
	const char *msg = "";
	unsigned col = 0;
	char err[512];
	int ret = hwbp_trace_filter_parse(text, &e, &col, &msg);

	if (ret)
		return hwbpi_fail(s, ret, true, "%s '%s': column %u: %s (%s)", where, text, col, msg,
				  hwbp_errno_name(ret));
	ret = hwbpi_tracer_apply(&s->t, &e, err, sizeof(err));
	if (ret)
		return hwbpi_fail(s, ret, true, "%s '%s': %s", where, text, err);
	if (err[0])   /* a note: what a pattern matched */
		hwbpi_note(s, "%s '%s': %s", where, text, err);
	return 0;
}

/*
 * One line of @f into *@buf (grown as needed, up to
 * HWBPI_FILTER_LINE_MAX bytes without its newline), NUL-terminated, the
 * newline dropped.  Returns 1 (a line), 0 (end of file), -EIO or the read's
 * errno (-EISDIR for a directory: read(2) on it), -EOVERFLOW (longer than
 * the limit: never cut, since the tail would parse as an entry of its
 * own), -EINVAL (a NUL byte: not text; /dev/zero ends here at once), or
 * -ENOMEM.
 */
static int read_line(FILE *f, char **buf, size_t *cap)
{
	size_t n = 0;
	int ch;

	errno = 0;
	while ((ch = getc(f)) != EOF && ch != '\n') {
		if (ch == '\0')
			return -EINVAL;
		if (n == HWBPI_FILTER_LINE_MAX)
			return -EOVERFLOW;
		if (n + 1 >= *cap) {
			size_t c = *cap ? *cap * 2 : 256;
			char *p = realloc(*buf, c);

			if (!p)
				return -ENOMEM;
			*buf = p;
			*cap = c;
		}
		(*buf)[n++] = (char)ch;
	}
	if (ferror(f))
		return errno ? -errno : -EIO;
	if (ch == EOF && n == 0)
		return 0;
	if (!*buf && !(*buf = malloc(*cap = 1)))
		return -ENOMEM;
	(*buf)[n] = '\0';
	return 1;
}

/* The reason read_line() gave, for the message. */
static const char *line_error(int ret)
{
	switch (ret) {
	case -EOVERFLOW:
		return "line longer than " HWBPI_FILTER_LINE_MAX_TEXT " bytes";
	default:
		return "a NUL byte (not a text file)";
	}
}

static int apply_filter_file(struct hwbp_trace_session *s, const char *path)
{
	char where[600], *line = NULL;
	size_t cap = 0;
	unsigned n = 0;
	FILE *f = fopen(path, "r");
	int ret;

	if (!f) {
		ret = -errno;
		return hwbpi_fail(s, ret, true, "cannot read --filter-file '%s': %s", path,
				  hwbp_errno_name(ret));
	}
	while ((ret = read_line(f, &line, &cap)) == 1) {
		size_t l = strcspn(line, "\r");

		n++;
		line[l] = '\0';
		if (line[strspn(line, " \t")] == '\0' || line[strspn(line, " \t")] == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%u:", path, n);
		ret = apply_entry(s, line, where);
		if (ret)
			goto out;
	}
	if (ret == -EOVERFLOW || ret == -EINVAL)
		hwbpi_fail(s, ret, true, "--filter-file %s:%u: %s: %s", path, n + 1, line_error(ret),
			   hwbp_errno_name(ret));
	else if (ret < 0)
		hwbpi_fail(s, ret, true, "cannot read --filter-file '%s': %s", path,
			   hwbp_errno_name(ret));
out:
	free(line);
	fclose(f);
	return ret < 0 ? ret : 0;
}

/*
 * A glob watches its matches "up to the slots available": plan every
 * watch, the ones named outright first, then the patterns' in their
 * (address) order, on one CPU of the session's model (the core's planner
 * on the simulator: the same plans the backend makes), and drop each
 * pattern watch that no longer fits, with a note naming the first one
 * left out.  A watch named outright is never dropped: if it does not fit,
 * the backend says why as before.  Errors: -ENOMEM.
 */
static int fit_patterns(struct hwbp_trace_session *s)
{
	struct hwbpi_tracer *t = &s->t;
	struct hwbp_slots percpu[1];
	struct hwbp_ctx ctx;
	struct hwbp_sim *sim;
	unsigned npat = 0, kept = 0, k = 0, skipped = 0;
	struct hwbp_caps caps;
	const char *first = NULL;
	char firstbuf[sizeof(t->w[0].name)];
	int ret;

	for (unsigned i = 0; i < t->nw; i++)
		npat += t->w[i].pattern;
	/* s->cpu: the model the backend plans with (--cpu, or its open's) */
	if (!npat || hwbp_caps_get(&s->cpu, &caps) || !caps.data_slots)
		return 0;
	sim = hwbp_sim_new(&s->cpu, HWBP_SIM_SDM, 1, &ret);
	if (!sim)
		return ret == -ENOMEM ? hwbpi_fail(s, ret, false, "out of memory") : 0;
	if (hwbp_ctx_init(&ctx, &s->cpu, 1, percpu, hwbp_sim_glue(sim)) ||
	    hwbp_sim_debug_ready(sim, 0)) {
		hwbp_sim_free(sim);
		return 0;
	}
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < t->nw; i++) {
			struct hwbpi_watch *w = &t->w[i];
			/* the scope of the watched address: a model of a process
			 * (ptrace's) takes no kernel scope; the slots are the same */
			struct hwbp_request q = { w->addr, hwbpi_watch_len(w, &s->cpu), w->type,
						  w->addr >= caps.kernel_min ? HWBP_SCOPE_KERNEL :
						  HWBP_SCOPE_USER, HWBP_REQ_WIDEN };
			int id;

			if (w->pattern != (pass == 1))
				continue;
			if (hwbp_install(&ctx, &q, HWBP_CPU_ALL, NULL, &id) == 0) {
				kept += pass;
			} else if (pass == 1) {
				w->pattern = false;
				w->len = 0;   /* dropped below */
				if (!skipped++)
					first = strcpy(firstbuf, w->name);
			}
		}
	hwbp_sim_free(sim);
	/* Drop the pattern watches that did not fit (len 0 marks them: a
	 * kept watch always has a length or is an entry breakpoint). */
	for (unsigned i = 0; i < t->nw; i++)
		if (t->w[i].len || t->w[i].entry)
			t->w[k++] = t->w[i];
	t->nw = k;
	if (skipped)
		hwbpi_note(s, "patterns: %u of %u matches watched, %u left out: they do not fit the "
			   "debug registers left (too large, or none free; %s first: name one "
			   "outright or give /LEN)", kept, npat, skipped, first);
	return 0;
}

static int resolve_watches(struct hwbp_trace_session *s)
{
	int ret = 0;

	s->t.syms = s->syms;
	s->t.hist_entries = s->mode.hist_entries ? s->mode.hist_entries : 16;
	for (unsigned i = 0; ret == 0 && i < s->nentry; i++)
		ret = s->entry[i].where ? apply_entry(s, s->entry[i].text, s->entry[i].where)
					: apply_filter_file(s, s->entry[i].text);
	/* A demo watches its own variables unless told otherwise. */
	if (ret == 0 && s->nentry == 0 && s->default_entries)
		for (unsigned i = 0; ret == 0 && s->default_entries[i]; i++)
			ret = apply_entry(s, s->default_entries[i], "-e");
	if (ret == 0)
		ret = fit_patterns(s);
	if (ret == 0 && s->t.nw == 0)
		ret = hwbpi_fail(s, -EINVAL, true, "nothing to watch (give -e SYM:rw-)");
	/* A thread-local variable has one copy per thread: a backend that
	 * cannot give each thread its own address (perf's inherited events
	 * share one) would watch the wrong bytes. */
	for (unsigned i = 0; ret == 0 && i < s->t.nw; i++)
		if (s->t.w[i].tls && !(s->backend->flags & HWBP_TRACE_BACKEND_TLS))
			ret = hwbpi_fail(s, -EOPNOTSUPP, true, "thread-local variable '%s': the ptrace "
					 "backend watches each thread's copy; %s cannot (EOPNOTSUPP)",
					 s->t.w[i].name, s->backend->name);
	return ret;
}

static int load_symbols(struct hwbp_trace_session *s)
{
	int ret = 0;

	if (!s->syms && !(s->syms = hwbp_symtab_new(&ret)))
		return hwbpi_fail(s, ret, false, "cannot build the symbol table");
	for (unsigned i = 0; i < s->nsymfile; i++) {
		ret = hwbp_symtab_load_map(s->syms, s->symfile[i], NULL);
		if (ret < 0)
			return hwbpi_fail(s, ret, true, "cannot read --symbols '%s': %s", s->symfile[i],
					  hwbp_errno_name(ret));
	}
	if (!s->syms_finished && hwbp_symtab_finish(s->syms))
		return hwbpi_fail(s, -ENOMEM, false, "cannot build the symbol table");
	s->syms_finished = true;
	return 0;
}

/* --stack and --folded: a folded file is the histogram's (and implies
 * --stack), and only a backend that sees its hits' callers takes them.
 * The depth goes to the tracer now: a backend's open may size what it
 * collects by it. */
static int check_stacks(struct hwbp_trace_session *s)
{
	const struct hwbp_trace_backend *b = s->backend;

	if (s->folded && s->mode.trace)
		return hwbpi_fail(s, -EINVAL, true, "--folded applies only to the histogram "
				  "(not with --trace): %s", hwbp_errno_name(-EINVAL));
	/* Entries are keyed by one thing: a line or a stack. */
	if (s->sort_key == HWBPI_SORT_SRCLINE && (s->stack_depth || s->folded))
		return hwbpi_fail(s, -EINVAL, true, "--sort srcline keys the histogram by line, "
				  "--stack%s by call stack: choose one: %s", s->folded ? " (--folded)" : "",
				  hwbp_errno_name(-EINVAL));
	if (s->sort_key == HWBPI_SORT_STACK && !s->stack_depth)
		s->stack_depth = HWBPI_STACK_DEFAULT;
	if ((s->stack_depth || s->folded) && !(b->flags & HWBP_TRACE_BACKEND_STACKS))
		return hwbpi_fail(s, -EOPNOTSUPP, true, "%s: --backend %s sees no call stacks: %s",
				  s->stack_depth ? "--stack" : "--folded (call stacks)", b->name,
				  hwbp_errno_name(-EOPNOTSUPP));
	s->t.stack_depth = s->stack_depth ? s->stack_depth : s->folded ? HWBPI_STACK_DEFAULT : 0;
	return 0;
}

/* --sort's keys, one row each (the histogram's key: trace.c, output.c). */
static const struct {
	const char *name;
	enum hwbpi_sort key;
} sort_keys[] = {
	{ "function", HWBPI_SORT_FUNCTION },
	{ "srcline", HWBPI_SORT_SRCLINE },
	{ "stack", HWBPI_SORT_STACK },
};

static int parse_sort(struct hwbp_trace_session *s)
{
	char names[128] = "";
	size_t k = 0;

	for (size_t i = 0; s->sort && i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++) {
		if (strcmp(s->sort, sort_keys[i].name) == 0) {
			s->sort_key = sort_keys[i].key;
			return 0;
		}
		if (k < sizeof(names))
			k += (size_t)snprintf(names + k, sizeof(names) - k, "%s%s", i ? ", " : "",
					      sort_keys[i].name);
	}
	return s->sort ? hwbpi_fail(s, -EINVAL, true, "bad --sort '%s' (%s): EINVAL", s->sort, names)
		       : 0;
}

/* In output.c: open the CTF output; write the results. */
int hwbpi_output_open(struct hwbp_trace_session *s);
int hwbpi_output_finish(struct hwbp_trace_session *s, bool ok);

int hwbp_trace_session_prepare(struct hwbp_trace_session *s)
{
	const struct hwbp_trace_backend *b;
	int ret;

	if (!s)
		return -EINVAL;
	if (s->opened)
		return hwbpi_fail(s, -EBUSY, false, "the session was prepared already");
	b = s->backend;
	s->msg[0] = '\0';
	if (s->mode.trace && !s->out.text && !s->out.ctf_dir)
		return hwbpi_fail(s, -EINVAL, true, "trace mode needs an output");
	if (s->force && !s->out.ctf_dir)
		return hwbpi_fail(s, -EINVAL, true, "--force applies only with --format ctf");
	if (s->mode.ring_bytes && !s->mode.trace && !(b->flags & HWBP_TRACE_BACKEND_RINGS))
		return hwbpi_fail(s, -EINVAL, true, "--buffer-kb applies only with --trace FILE, or "
				  "with a backend whose hits wait in the kernel's rings (not %s)",
				  b->name);
	if ((ret = parse_sort(s)) || (ret = check_stacks(s)) || (ret = hwbpi_srcline_open(s)))
		return ret;
	s->opened = true;
	ret = b->open ? b->open(s) : 0;
	if (ret == 0)
		hwbpi_srcline_loaded(s);
	if (ret == 0)
		ret = load_symbols(s);
	if (ret == 0)
		ret = resolve_watches(s);
	if (ret)
		return ret;
	ret = hwbpi_tracer_start(&s->t, s->ncpus, s->mode.trace,
				 s->mode.ring_bytes ? s->mode.ring_bytes : (size_t)1 << 20,
				 s->mode.overwrite);
	if (ret)
		return hwbpi_fail(s, ret, false, "cannot start: %s", hwbp_errno_name(ret));
	s->tracer_started = true;
	ret = hwbpi_output_open(s);
	if (ret == 0)
		s->prepared = true;
	return ret;
}

int hwbp_trace_session_run(struct hwbp_trace_session *s)
{
	int ret;

	if (!s)
		return -EINVAL;
	if (s->ran)
		return hwbpi_fail(s, -EBUSY, false, "the session ran already");
	if (s->opened && !s->prepared)
		return hwbpi_fail(s, -EBUSY, false, "the session's preparation failed");
	ret = s->prepared ? 0 : hwbp_trace_session_prepare(s);
	s->ran = true;
	if (ret)
		return ret;
	ret = s->backend->run(s);
	if (ret) {
		if (!s->msg[0])
			hwbpi_fail(s, ret, false, "%s", hwbp_errno_name(ret));
		hwbpi_output_finish(s, false);
		return ret;
	}
	return hwbpi_output_finish(s, true);
}
