/* SPDX-License-Identifier: MIT */
/*
 * Tracer sessions (include/hwbp/trace.h): options gathered, then one run:
 * the backend opens its workload and symbols, the entries become watches,
 * the backend feeds hits, and the results go to the outputs
 * (tracer/output/output.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stddef.h>

#include <hwbp/sim.h>

#include "session/session_int.h"

/* A backend's operations are given the session, and see it as its view
 * (hwbpi_view): the view must be where the session is. */
_Static_assert(offsetof(struct hwbp_trace_session, v) == 0,
	       "struct hwbp_trace_session starts with its view");

static struct hwbp_trace_session *session_of(struct hwbpi_view *v)
{
	return (struct hwbp_trace_session *)(void *)v;
}

int hwbpi_fail(struct hwbpi_view *v, int ret, bool input, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->msg, sizeof(v->msg), fmt, ap);
	va_end(ap);
	v->input = input;
	return ret;
}

/* A note on the session's diag stream, after its prefix (@arg: the
 * view): hwbpi_note's, and the outputs' (struct hwbpi_output's note). */
static void vnote(void *arg, const char *fmt, va_list ap)
{
	struct hwbp_trace_session *s = session_of(arg);

	if (!s->out.diag)
		return;
	fputs(s->out.diag_prefix ? s->out.diag_prefix : "", s->out.diag);
	vfprintf(s->out.diag, fmt, ap);
	fputc('\n', s->out.diag);
}

void hwbpi_note(struct hwbpi_view *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(v, fmt, ap);
	va_end(ap);
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
	s->v.backend = b;
	s->v.ncpus = 1;
	return s;
}

void hwbp_trace_session_free(struct hwbp_trace_session *s)
{
	int e = errno;   /* kept: the caller may be about to report a write error */

	if (!s)
		return;
	if (s->opened && s->v.backend->close)
		s->v.backend->close(s);
	if (s->tracer_started)
		hwbpi_tracer_fini(&s->v.t);
	hwbpi_output_free(&s->o);
	hwbpi_typer_free(s->v.t.typer);   /* before the files it reads */
	hwbp_symtab_free(s->v.syms);
	hwbpi_dwarf_free(s->v.dwarf);
	free(s);
	errno = e;
}

const char *hwbpi_session_opt(const struct hwbpi_view *v, const char *name)
{
	const struct hwbp_trace_session *s = (const struct hwbp_trace_session *)(const void *)v;

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
	if (strcmp(name, "dry-run") == 0)
		return &s->dry_run;
	if (strcmp(name, "json") == 0)
		return &s->json;
	if (strcmp(name, "percpu-all") == 0)
		return &s->v.percpu_all;
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
	if (strcmp(name, "release") == 0)
		return &s->v.t.release;
	if (strcmp(name, "objects") == 0)
		return &s->objects;
	if (strcmp(name, "rotate") == 0)
		return &s->rotate;
	if (strcmp(name, "objects-log") == 0)
		return &s->objects_log;
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
		return hwbpi_fail(&s->v, -EBUSY, true, "--%s given twice", name);
	if (folded) {
		if (!value || !value[0])
			return hwbpi_fail(&s->v, -EINVAL, true, "--folded needs FILE");
		s->folded = value;
		return 0;
	}
	if (value && (ret = hwbp_parse_u64(value, &n)) == -EINVAL)
		return hwbpi_fail(&s->v, ret, true, "bad --stack '%s' (callers per hit: 1..%u): %s",
				  value, HWBPI_STACK_MAX, hwbp_errno_name(ret));
	if (value && (ret || n == 0 || n > HWBPI_STACK_MAX))
		return hwbpi_fail(&s->v, -ERANGE, true, "--stack %s: callers per hit are 1..%u: %s",
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
			return hwbpi_fail(&s->v, -EINVAL, true, "--%s takes no value", name);
		if (s->opened || *flag)
			return hwbpi_fail(&s->v, -EBUSY, true, "--%s given twice", name);
		*flag = true;
		return 0;
	}
	if ((val = session_value(s, name))) {
		if (!value)
			return hwbpi_fail(&s->v, -EINVAL, true, "--%s needs a value", name);
		if (s->opened || *val)
			return hwbpi_fail(&s->v, -EBUSY, true, "--%s given twice", name);
		*val = value;
		return 0;
	}
	if (s->opened || s->nopt == HWBPI_SESSION_MAX_OPTS || hwbpi_session_opt(&s->v, name))
		return hwbpi_fail(&s->v, -EBUSY, true, "--%s given twice", name);
	o = hwbp_trace_backend_option(s->v.backend, name);
	if (!o || (o->flags & HWBP_TRACE_OPT_ARGV))
		return hwbpi_fail(&s->v, -ENOENT, true, "--%s does not apply to --backend %s", name,
				  s->v.backend->name);
	if (!o->arg != !value)
		return hwbpi_fail(&s->v, -EINVAL, true, o->arg ? "--%s needs %s" : "--%s takes no value",
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
		return s ? hwbpi_fail(&s->v, -EINVAL, true, "-- needs a command to run") : -EINVAL;
	for (const struct hwbp_trace_backend_option *o = s->v.backend->options; o && o->name; o++)
		takes |= (o->flags & HWBP_TRACE_OPT_ARGV) != 0;
	if (!takes)
		return hwbpi_fail(&s->v, -ENOENT, true, "-- CMD does not apply to --backend %s",
				  s->v.backend->name);
	if (s->opened || s->v.argv)
		return hwbpi_fail(&s->v, -EBUSY, true, "-- CMD given twice");
	s->v.argv = argv;
	return 0;
}

int hwbp_trace_session_cpu(struct hwbp_trace_session *s, const char *preset)
{
	if (!s || !preset)
		return -EINVAL;
	if (!(s->v.backend->flags & HWBP_TRACE_BACKEND_CPU))
		return hwbpi_fail(&s->v, -ENOENT, true, "--cpu does not apply to --backend %s",
				  s->v.backend->name);
	if (s->opened || s->v.have_cpu)
		return hwbpi_fail(&s->v, -EBUSY, true, "--cpu given twice");
	if (hwbp_cpu_preset(preset, &s->v.cpu))
		return hwbpi_fail(&s->v, -EINVAL, true, "unknown --cpu '%s'", preset);
	s->v.have_cpu = true;
	return 0;
}

int hwbp_trace_session_symbols(struct hwbp_trace_session *s, const char *path)
{
	if (!s || !path)
		return -EINVAL;
	if (s->opened)
		return -EBUSY;
	if (s->v.nsymfile == HWBPI_SESSION_MAX_SYMFILES)
		return hwbpi_fail(&s->v, -ENOSPC, true, "more than %d --symbols", HWBPI_SESSION_MAX_SYMFILES);
	s->v.symfile[s->v.nsymfile++] = path;
	return 0;
}

static int add_entry(struct hwbp_trace_session *s, const char *text, const char *where)
{
	if (!s || !text)
		return -EINVAL;
	if (s->opened)
		return -EBUSY;
	if (s->nentry == HWBPI_SESSION_MAX_ENTRIES)
		return hwbpi_fail(&s->v, -ENOSPC, true, "too many -e at '%s'", text);
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
		return hwbpi_fail(&s->v, -ERANGE, true,
				  "--buffer-kb %zu: at most %zu (%zu MiB per CPU): %s",
				  m->ring_bytes / 1024, HWBPI_RING_MAX_BYTES / 1024,
				  HWBPI_RING_MAX_BYTES >> 20, hwbp_errno_name(-ERANGE));
	s->v.mode = *m;
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
	s->v.stop = s->v.stop < 2 ? s->v.stop + 1 : 2;
	if (s->v.backend->stop)
		s->v.backend->stop(s);
}

void hwbp_trace_session_stop_signal(struct hwbp_trace_session *s, int sig)
{
	if (!s)
		return;
	/* Read by the backend's stop, called next. */
	if (!s->v.stop)
		s->v.stop_sig = sig;
	hwbp_trace_session_stop(s);
}

const char *hwbp_trace_session_message(const struct hwbp_trace_session *s, bool *input)
{
	return hwbpi_outcome_msg(s ? s->v.msg : NULL, s && s->v.input, input);
}

bool hwbp_trace_session_wait_status(const struct hwbp_trace_session *s, int *status)
{
	return s && hwbpi_outcome_status(s->v.have_status, s->v.status, status);
}

void hwbp_trace_session_hit(struct hwbp_trace_session *s, const struct hwbp_trace_event *ev)
{
	hwbpi_tracer_hit(&s->v.t, ev);
}

void hwbp_trace_session_hit_frames(struct hwbp_trace_session *s, struct hwbp_trace_event *ev,
				   const uint64_t *callers, unsigned n)
{
	hwbpi_tracer_hit_frames(&s->v.t, ev, callers, n);
}

/* The event-management layer a prepared session holds (a benchmark reads
 * its counts, drains its rings); prepared is set only once the tracer
 * started and the outputs opened, and the tracer lives until free. */
const struct hwbp_hist *hwbp_trace_session_hist(const struct hwbp_trace_session *s)
{
	return s && s->prepared && !s->v.t.trace ? &s->v.t.hist : NULL;
}

struct hwbp_ring *hwbp_trace_session_ring(struct hwbp_trace_session *s, unsigned cpu)
{
	return s && s->prepared && s->v.t.trace && cpu < s->v.t.ncpus ? s->v.t.ring[cpu] : NULL;
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
		return hwbpi_fail(&s->v, ret, true, "%s '%s': column %u: %s (%s)", where, text, col, msg,
				  hwbp_errno_name(ret));
	/* An object's watch that the backend cannot arm: refused before its
	 * resolution says anything. */
	if (e.type && !(s->v.backend->flags & HWBP_TRACE_BACKEND_OBJECTS)) {
		struct hwbpi_objspec spec;

		if (hwbpi_watch_object_form(s->v.syms, e.sym, &spec, &col, &msg) > 0)
			return hwbpi_fail(&s->v, -EOPNOTSUPP, true, "%s '%s': an object's watch is "
					  "armed when its function runs: the ptrace, perf and bpf backends do "
					  "that; %s does not (EOPNOTSUPP)", where, text, s->v.backend->name);
	}
	ret = hwbpi_tracer_apply(&s->v.t, &e, err, sizeof(err));
	if (ret)
		return hwbpi_fail(&s->v, ret, true, "%s '%s': %s", where, text, err);
	if (err[0])   /* a note: what a pattern matched */
		hwbpi_note(&s->v, "%s '%s': %s", where, text, err);
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
		return hwbpi_fail(&s->v, ret, true, "cannot read --filter-file '%s': %s", path,
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
		hwbpi_fail(&s->v, ret, true, "--filter-file %s:%u: %s: %s", path, n + 1, line_error(ret),
			   hwbp_errno_name(ret));
	else if (ret < 0)
		hwbpi_fail(&s->v, ret, true, "cannot read --filter-file '%s': %s", path,
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
	struct hwbpi_tracer *t = &s->v.t;
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
	/* s->v.cpu: the model the backend plans with (--cpu, or its open's) */
	if (!npat || hwbp_caps_get(&s->v.cpu, &caps) || !caps.data_slots)
		return 0;
	sim = hwbp_sim_new(&s->v.cpu, HWBP_SIM_SDM, 1, &ret);
	if (!sim)
		return ret == -ENOMEM ? hwbpi_fail(&s->v, ret, false, "out of memory") : 0;
	if (hwbp_ctx_init(&ctx, &s->v.cpu, 1, percpu, hwbp_sim_glue(sim)) ||
	    hwbp_sim_debug_ready(sim, 0)) {
		hwbp_sim_free(sim);
		return 0;
	}
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < t->nw; i++) {
			struct hwbpi_watch *w = &t->w[i];
			/* the scope of the watched address: a model of a process
			 * (ptrace's) takes no kernel scope; the slots are the same */
			struct hwbp_request q = { w->addr, hwbpi_watch_len(w, &s->v.cpu), w->type,
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
		hwbpi_note(&s->v, "patterns: %u of %u matches watched, %u left out: they do not fit the "
			   "debug registers left (too large, or none free; %s first: name one "
			   "outright or give /LEN)", kept, npat, skipped, first);
	return 0;
}

/* Typed names' sources (types/types.h): the traced files' DWARF, or the
 * kernel's BTF and --vmlinux; and where their pointers are read. */
static int open_types(struct hwbp_trace_session *s)
{
	struct hwbpi_typer_opts o = {
		.dwarf = s->v.dwarf,
		.kernel = s->v.kernel,
		.vmlinux = s->v.kernel ? hwbpi_session_opt(&s->v, "vmlinux") : NULL,
		.kaslr = s->v.kaslr,
	};

	if (!s->v.t.typer && !(s->v.t.typer = hwbpi_typer_new(&o)))
		return hwbpi_fail(&s->v, -ENOMEM, false, "cannot start: ENOMEM");
	s->v.t.mem = s->v.mem;
	if (!s->v.t.mem.read && !s->v.t.mem.none)
		s->v.t.mem.none = "this backend's workload is no live process or kernel: its "
				  "memory cannot be read";
	return 0;
}

/* Option --@name's @value, when given, a number of @what in 1..@max into
 * *@n.  Errors (input): -EINVAL (no number), -ERANGE (out of the range). */
static int count_option(struct hwbp_trace_session *s, const char *name, const char *value,
			const char *what, uint64_t max, uint64_t *n)
{
	int ret = value ? hwbp_parse_u64(value, n) : 0;

	if (value && (ret || *n == 0 || *n > max))
		return hwbpi_fail(&s->v, ret == -EINVAL ? -EINVAL : -ERANGE, true,
				  "--%s %s: %s are 1..%" PRIu64 " (%s)", name, value, what, max,
				  ret == -EINVAL ? "EINVAL" : "ERANGE");
	return 0;
}

/* --objects N and --rotate MS, for watches of objects. */
static int object_options(struct hwbp_trace_session *s)
{
	uint64_t n = 0, ms = 0;
	int ret;

	if ((ret = count_option(s, "objects", s->objects, "entries per watch of objects",
				HWBPI_OBJ_MAX, &n)) ||
	    (ret = count_option(s, "rotate", s->rotate, "ms between rotations", 60000, &ms)))
		return ret;
	s->v.t.nobjects = (unsigned)n;
	s->v.t.rotate_ns = ms * 1000000u;
	return 0;
}

/* The options that apply to watches of objects only with one (a
 * backend that cannot arm them refused each at apply_entry()). */
static int check_objects(struct hwbp_trace_session *s)
{
	bool any = false;

	for (unsigned i = 0; i < s->v.t.nw; i++)
		any |= s->v.t.w[i].object;
	if (s->sort_key == HWBPI_SORT_SITE && !any)
		return hwbpi_fail(&s->v, -EINVAL, true, "--sort site keys the histogram of watches of "
				  "objects by where each object was armed: there is no such watch "
				  "(EINVAL)");
	s->v.t.key_site = s->sort_key == HWBPI_SORT_SITE;
	if (!any && (s->v.t.release || s->objects || s->rotate || s->objects_log))
		return hwbpi_fail(&s->v, -EINVAL, true, "--%s applies to watches of objects "
				  "(-e 'FUNC(PARAM)->FIELD:rw-'), and there is none (EINVAL)",
				  s->v.t.release ? "release" : s->objects ? "objects" :
				  s->rotate ? "rotate" : "objects-log");
	return 0;
}

static int resolve_watches(struct hwbp_trace_session *s)
{
	int ret = 0;

	s->v.t.syms = s->v.syms;
	if ((ret = open_types(s)) || (ret = object_options(s)))
		return ret;
	s->v.t.hist_entries = s->v.mode.hist_entries ? s->v.mode.hist_entries : 16;
	for (unsigned i = 0; ret == 0 && i < s->nentry; i++)
		ret = s->entry[i].where ? apply_entry(s, s->entry[i].text, s->entry[i].where)
					: apply_filter_file(s, s->entry[i].text);
	/* A demo watches its own variables unless told otherwise. */
	if (ret == 0 && s->nentry == 0 && s->v.default_entries)
		for (unsigned i = 0; ret == 0 && s->v.default_entries[i]; i++)
			ret = apply_entry(s, s->v.default_entries[i], "-e");
	if (ret == 0)
		ret = fit_patterns(s);
	if (ret == 0 && s->v.t.nw == 0)
		ret = hwbpi_fail(&s->v, -EINVAL, true, "nothing to watch (give -e SYM:rw-)");
	/* A thread-local variable has one copy per thread: a backend that
	 * cannot give each thread its own address (perf's inherited events
	 * share one) would watch the wrong bytes. */
	for (unsigned i = 0; ret == 0 && i < s->v.t.nw; i++)
		if (s->v.t.w[i].tls && !(s->v.backend->flags & HWBP_TRACE_BACKEND_TLS))
			ret = hwbpi_fail(&s->v, -EOPNOTSUPP, true, "thread-local variable '%s': the ptrace "
					 "backend watches each thread's copy; %s cannot (EOPNOTSUPP)",
					 s->v.t.w[i].name, s->v.backend->name);
	return ret ? ret : check_objects(s);
}

static int load_symbols(struct hwbp_trace_session *s)
{
	int ret = 0;

	if (!s->v.syms && !(s->v.syms = hwbp_symtab_new(&ret)))
		return hwbpi_fail(&s->v, ret, false, "cannot build the symbol table");
	for (unsigned i = 0; i < s->v.nsymfile; i++) {
		ret = hwbp_symtab_load_map(s->v.syms, s->v.symfile[i], NULL);
		if (ret < 0)
			return hwbpi_fail(&s->v, ret, true, "cannot read --symbols '%s': %s", s->v.symfile[i],
					  hwbp_errno_name(ret));
	}
	if (!s->v.syms_finished && hwbp_symtab_finish(s->v.syms))
		return hwbpi_fail(&s->v, -ENOMEM, false, "cannot build the symbol table");
	s->v.syms_finished = true;
	return 0;
}

/* --stack and --folded: a folded file is the histogram's (and implies
 * --stack), and only a backend that sees its hits' callers takes them.
 * The depth goes to the tracer now: a backend's open may size what it
 * collects by it. */
static int check_stacks(struct hwbp_trace_session *s)
{
	const struct hwbp_trace_backend *b = s->v.backend;

	if (s->folded && s->v.mode.trace)
		return hwbpi_fail(&s->v, -EINVAL, true, "--folded applies only to the histogram "
				  "(not with --trace): %s", hwbp_errno_name(-EINVAL));
	/* Entries are keyed by one thing: a line or a stack. */
	if (s->sort_key == HWBPI_SORT_SRCLINE && (s->stack_depth || s->folded))
		return hwbpi_fail(&s->v, -EINVAL, true, "--sort srcline keys the histogram by line, "
				  "--stack%s by call stack: choose one: %s", s->folded ? " (--folded)" : "",
				  hwbp_errno_name(-EINVAL));
	if (s->sort_key == HWBPI_SORT_STACK && !s->stack_depth)
		s->stack_depth = HWBPI_STACK_DEFAULT;
	if ((s->stack_depth || s->folded) && !(b->flags & HWBP_TRACE_BACKEND_STACKS))
		return hwbpi_fail(&s->v, -EOPNOTSUPP, true, "%s: --backend %s sees no call stacks: %s",
				  s->stack_depth ? "--stack" : "--folded (call stacks)", b->name,
				  hwbp_errno_name(-EOPNOTSUPP));
	s->v.t.stack_depth = s->stack_depth ? s->stack_depth : s->folded ? HWBPI_STACK_DEFAULT : 0;
	return 0;
}

/* --sort's keys, one row each (the histogram's key: events/hit.c, output/output.c). */
static const struct {
	const char *name;
	enum hwbpi_sort key;
} sort_table[] = {
	{ "function", HWBPI_SORT_FUNCTION },
	{ "srcline", HWBPI_SORT_SRCLINE },
	{ "stack", HWBPI_SORT_STACK },
	{ "site", HWBPI_SORT_SITE },
};

static int parse_sort(struct hwbp_trace_session *s)
{
	char names[128] = "";
	size_t k = 0;

	for (size_t i = 0; s->sort && i < sizeof(sort_table) / sizeof(sort_table[0]); i++) {
		if (strcmp(s->sort, sort_table[i].name) == 0) {
			s->sort_key = sort_table[i].key;
			if (s->sort_key == HWBPI_SORT_SITE && (s->v.mode.trace || s->stack_depth || s->folded))
				return hwbpi_fail(&s->v, -EINVAL, true, "--sort site keys the histogram "
						  "of watches of objects by where each object was armed: "
						  "not with --trace, --stack or --folded (EINVAL)");
			return 0;
		}
		if (k < sizeof(names))
			k += (size_t)snprintf(names + k, sizeof(names) - k, "%s%s", i ? ", " : "",
					      sort_table[i].name);
	}
	return s->sort ? hwbpi_fail(&s->v, -EINVAL, true, "bad --sort '%s' (%s): EINVAL", s->sort, names)
		       : 0;
}

/* In output.c: open the CTF output; write the results. */
/* The outputs' settings, from the options, and their open: once the
 * tracer started.  Their error becomes the session's. */
static int open_outputs(struct hwbp_trace_session *s)
{
	struct hwbpi_output *o = &s->o;
	int ret;

	o->out = &s->out;
	o->t = &s->v.t;
	o->ncpus = s->v.ncpus;
	o->folded = s->folded;
	o->objects_log = s->objects_log;
	o->force = s->force;
	o->no_demangle = s->no_demangle;
	o->wide = s->wide;
	o->srcline = s->srcline;
	o->dwarf = s->v.dwarf;
	o->note = vnote;
	o->note_arg = &s->v;
	ret = hwbpi_output_open(o);
	return ret ? hwbpi_fail(&s->v, ret, o->input, "%s", o->msg) : 0;
}

/* The end of a run: the outputs' last words; their error becomes the
 * session's (a text write's is left to the caller: errno). */
static int finish_outputs(struct hwbp_trace_session *s, bool ok)
{
	int ret = hwbpi_output_finish(&s->o, ok);

	return ret ? hwbpi_fail(&s->v, ret, s->o.input, "%s", s->o.msg) : 0;
}

void hwbpi_session_drain(struct hwbpi_view *v)
{
	struct hwbp_trace_session *s = session_of(v);
	bool failed = s->o.out_err != 0;

	/* An output that fails ends the run: nothing more it gathers could
	 * be written. */
	if (hwbpi_output_drain(&s->o) && !failed)
		hwbp_trace_session_stop(s);
}

int hwbp_trace_session_prepare(struct hwbp_trace_session *s)
{
	const struct hwbp_trace_backend *b;
	int ret;

	if (!s)
		return -EINVAL;
	if (s->opened)
		return hwbpi_fail(&s->v, -EBUSY, false, "the session was prepared already");
	b = s->v.backend;
	s->v.msg[0] = '\0';
	if (s->v.mode.trace && !s->out.text && !s->out.ctf_dir)
		return hwbpi_fail(&s->v, -EINVAL, true, "trace mode needs an output");
	if (s->force && !s->out.ctf_dir)
		return hwbpi_fail(&s->v, -EINVAL, true, "--force applies only with --format ctf");
	if (s->v.mode.ring_bytes && !s->v.mode.trace && !(b->flags & HWBP_TRACE_BACKEND_RINGS))
		return hwbpi_fail(&s->v, -EINVAL, true, "--buffer-kb applies only with --trace FILE, or "
				  "with a backend whose hits wait in the kernel's rings (not %s)",
				  b->name);
	if (s->json && !s->dry_run)
		return hwbpi_fail(&s->v, -EINVAL, true, "--json applies only with --dry-run");
	if (s->dry_run && (s->v.mode.trace || s->folded))
		return hwbpi_fail(&s->v, -EINVAL, true, "--dry-run arms nothing: --%s has nothing to "
				  "write (EINVAL)", s->folded ? "folded" : "trace");
	if ((ret = parse_sort(s)) || (ret = check_stacks(s)) || (ret = hwbpi_debuginfo_open(s)))
		return ret;
	s->opened = true;
	s->v.arm_nothing = s->dry_run;
	ret = b->open ? b->open(s) : 0;
	if (ret == 0)
		hwbpi_debuginfo_loaded(s);
	if (ret == 0)
		ret = load_symbols(s);
	if (ret == 0)
		ret = resolve_watches(s);
	if (ret == 0 && s->v.place)
		ret = s->v.place(&s->v);
	if (ret)
		return ret;
	if (s->dry_run) {
		s->prepared = true;   /* nothing to start: run prints */
		return 0;
	}
	ret = hwbpi_tracer_start(&s->v.t, s->v.ncpus, s->v.mode.trace,
				 s->v.mode.ring_bytes ? s->v.mode.ring_bytes : (size_t)1 << 20,
				 s->v.mode.overwrite);
	if (ret)
		return hwbpi_fail(&s->v, ret, false, "cannot start: %s", hwbp_errno_name(ret));
	s->tracer_started = true;
	ret = open_outputs(s);
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
		return hwbpi_fail(&s->v, -EBUSY, false, "the session ran already");
	if (s->opened && !s->prepared)
		return hwbpi_fail(&s->v, -EBUSY, false, "the session's preparation failed");
	ret = s->prepared ? 0 : hwbp_trace_session_prepare(s);
	s->ran = true;
	if (ret)
		return ret;
	if (s->dry_run) {
		FILE *f = s->out.hist ? s->out.hist : stdout;

		ret = hwbpi_output_dry_run(f, &s->v.t, &s->v.cpu, s->v.kernel, s->json);
		return ret ? hwbpi_fail(&s->v, ret, false, "--dry-run: cannot write: %s",
					hwbp_errno_name(ret)) : 0;
	}
	ret = s->v.backend->run(s);
	if (ret) {
		if (!s->v.msg[0])
			hwbpi_fail(&s->v, ret, false, "%s", hwbp_errno_name(ret));
		finish_outputs(s, false);
		return ret;
	}
	return finish_outputs(s, true);
}

const struct hwbp_trace_backend_option *
hwbp_trace_backend_option(const struct hwbp_trace_backend *b, const char *name)
{
	for (const struct hwbp_trace_backend_option *o = b && name ? b->options : NULL; o && o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}
