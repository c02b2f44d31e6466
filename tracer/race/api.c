/* SPDX-License-Identifier: MIT */
/*
 * <hwbp/trace.h>'s race detector (hwbp_race_*): the options as the
 * command line spells them, checked here once for every caller; the run
 * (race/race.h); and the races found, with their names (function, line,
 * variable) resolved when they are first asked for.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "race/race.h"

struct hwbp_race {
	struct hwbpi_race_run run;
	bool ran, have_rate, have_delay, have_duration, have_seed, have_pid;
	FILE *diag;
	const char *prefix;
	struct hwbpi_demangler *dm;
	struct hwbp_race_report *rep;   /* the reports, made at the first ask */
	size_t nrep;
	struct hwbp_race_frame *frames; /* their callers */
};

static const char *const skip_names[HWBP_RACE_SKIPS] = {
	"stack", "locked", "atomic", "thread-local", "string", "branch", "unwatchable",
};

/* The insn/ class behind each reason. */
static const unsigned skip_class[HWBP_RACE_SKIPS] = {
	HWBPI_INSN_STACK, HWBPI_INSN_LOCKED, HWBPI_INSN_ATOMIC, HWBPI_INSN_TLS,
	HWBPI_INSN_STRING, HWBPI_INSN_BRANCH, HWBPI_INSN_UNWATCHABLE,
};

const char *hwbp_race_skip_name(unsigned reason)
{
	return reason < HWBP_RACE_SKIPS ? skip_names[reason] : NULL;
}

struct hwbp_race *hwbp_race_new(int *err)
{
	struct hwbp_race *r = calloc(1, sizeof(*r));

	if (err)
		*err = r ? 0 : -ENOMEM;
	if (!r)
		return NULL;
	r->run.millirate = (uint64_t)HWBP_RACE_RATE_DEFAULT * 1000u;
	r->run.delay_ns = (uint64_t)HWBP_RACE_DELAY_MS_DEFAULT * 1000000u;
	r->run.stack_depth = HWBPI_RACE_FRAMES_DEFAULT;
	return r;
}

void hwbp_race_free(struct hwbp_race *r)
{
	if (!r)
		return;
	hwbpi_race_cands_free(&r->run.cands);
	hwbpi_race_pairs_free(&r->run.pairs);
	hwbp_symtab_free(r->run.syms);
	hwbpi_typer_free(r->run.typer);
	free(r->run.ptrs);
	hwbpi_dwarf_free(r->run.dwarf);
	hwbpi_demangler_free(r->dm);
	free(r->rep);
	free(r->frames);
	free(r);
}

static int bad(struct hwbp_race *r, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The caller's input was bad: one line, ending with the errno's name. */
static int bad(struct hwbp_race *r, int ret, const char *fmt, ...)
{
	char line[sizeof(r->run.msg) - 16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	snprintf(r->run.msg, sizeof(r->run.msg), "%s: %s", line, hwbp_errno_name(ret));
	r->run.input = true;
	return ret;
}

/* "W[.FFF]": a decimal with up to 3 decimals, in thousandths, whole part
 * at most @max.  Errors: -EINVAL (not such a number), -ERANGE. */
static int thousandths(const char *v, uint64_t max, uint64_t *out)
{
	const char *dot = strchr(v, '.');
	size_t n = dot ? (size_t)(dot - v) : strlen(v), nf = dot ? strlen(dot + 1) : 0;
	char whole[24];
	uint64_t w = 0, f = 0;

	if (!n || n >= sizeof(whole) || (dot && (!nf || nf > 3)) || strspn(v, "0123456789") != n)
		return -EINVAL;
	memcpy(whole, v, n);
	whole[n] = '\0';
	if (hwbp_parse_u64(whole, &w))
		return -EINVAL;
	for (size_t i = 0; i < 3; i++) {
		char c = i < nf ? dot[1 + i] : '0';

		if (c < '0' || c > '9')
			return -EINVAL;
		f = f * 10 + (uint64_t)(c - '0');
	}
	if (w > max)
		return -ERANGE;
	*out = w * 1000 + f;
	return 0;
}

/* A number option in [@lo, @hi].  Errors: -EINVAL, -ERANGE. */
static int number(struct hwbp_race *r, const char *name, const char *v, uint64_t lo, uint64_t hi,
		  uint64_t *out)
{
	if (hwbp_parse_u64(v, out))
		return bad(r, -EINVAL, "bad --%s '%s': not a number", name, v);
	if (*out < lo || *out > hi)
		return bad(r, -ERANGE, "bad --%s '%s': expected %llu..%llu", name, v,
			   (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

/* --delay MS or --duration SEC into ns (@unit_ns: the ns of one unit);
 * --rate into thousandths (@unit_ns 1). */
static int span(struct hwbp_race *r, const char *name, const char *v, uint64_t max,
		uint64_t unit_ns, uint64_t *ns)
{
	uint64_t t = 0;
	int ret = thousandths(v, max, &t);

	if (ret == -EINVAL || (ret == 0 && !t))
		return bad(r, -EINVAL, "bad --%s '%s' (%s with up to 3 decimals, more than 0)", name, v,
			   unit_ns == 1u ? "traps per second" : unit_ns == 1000u ? "milliseconds" :
			   "seconds");
	if (ret || t > max * 1000)
		return bad(r, -ERANGE, "bad --%s '%s': at most %llu", name, v, (unsigned long long)max);
	*ns = t * unit_ns;
	return 0;
}

static int object(struct hwbp_race *r, const char *name, const char *v, const char **list,
		  unsigned *n)
{
	if (!v[0])
		return bad(r, -EINVAL, "bad --%s '': an object's name, such as libfoo.so.1", name);
	if (*n == HWBPI_RACE_MAX_OBJS)
		return bad(r, -ENOSPC, "--%s: at most %d", name, HWBPI_RACE_MAX_OBJS);
	list[(*n)++] = v;
	return 0;
}

/* Whether option @name was given before (then -EBUSY), and marked. */
static bool twice(bool *given)
{
	bool was = *given;

	*given = true;
	return was;
}

int hwbp_race_option(struct hwbp_race *r, const char *name, const char *v)
{
	struct hwbpi_race_run *u;
	uint64_t n;
	int ret;

	if (!r || !name)
		return -EINVAL;
	u = &r->run;
	if (r->ran)
		return bad(r, -EBUSY, "--%s: the run has run", name);
	if (!v)
		return bad(r, -EINVAL, "--%s needs a value", name);
	if (strcmp(name, "only") == 0)
		return object(r, name, v, u->sel.only, &u->sel.nonly);
	if (strcmp(name, "exclude") == 0)
		return object(r, name, v, u->sel.exclude, &u->sel.nexclude);
	if (strcmp(name, "rate") == 0 || strcmp(name, "delay") == 0 || strcmp(name, "duration") == 0 ||
	    strcmp(name, "seed") == 0 || strcmp(name, "pid") == 0) {
		bool *given = name[0] == 'r' ? &r->have_rate : name[0] == 's' ? &r->have_seed :
			      name[0] == 'p' ? &r->have_pid : name[1] == 'e' ? &r->have_delay :
			      &r->have_duration;

		if (twice(given))
			return bad(r, -EBUSY, "--%s given twice", name);
	}
	if (strcmp(name, "kernel") == 0) {
		if (u->argv || u->pid)
			return bad(r, -EINVAL, "--kernel and -p or -- CMD: give one");
		u->kernel = true;
		return 0;
	}
	if (strcmp(name, "rate") == 0) {
		/* thousandths: a trap every N seconds is a rate under one */
		ret = span(r, name, v, 100000, 1u, &u->millirate);
	} else if (strcmp(name, "delay") == 0) {
		ret = span(r, name, v, 1000, 1000u, &u->delay_ns);
	} else if (strcmp(name, "duration") == 0) {
		ret = span(r, name, v, 31536000, 1000000u, &u->duration_ns);
	} else if (strcmp(name, "seed") == 0) {
		ret = number(r, name, v, 0, UINT64_MAX, &u->seed);
	} else if (strcmp(name, "stack") == 0) {
		ret = number(r, name, v, 0, HWBPI_RACE_FRAMES, &n);
		u->stack_depth = (unsigned)n;
	} else if (strcmp(name, "pid") == 0) {
		ret = number(r, name, v, 1, 0x7fffffff, &n);
		if (ret == 0 && (u->argv || u->kernel))
			ret = bad(r, -EINVAL, u->kernel ? "--kernel and -p: give one" :
				  "-p and -- CMD: give one");
		u->pid = (pid_t)n;
	} else {
		ret = bad(r, -EINVAL, "unknown option --%s", name);
	}
	return ret;
}

int hwbp_race_command(struct hwbp_race *r, char *const argv[])
{
	if (!r)
		return -EINVAL;
	if (r->ran || r->run.argv)
		return bad(r, -EBUSY, "-- CMD given twice");
	if (!argv || !argv[0] || !argv[0][0])
		return bad(r, -EINVAL, "-- needs a command to run");
	if (r->run.pid || r->run.kernel)
		return bad(r, -EINVAL, r->run.kernel ? "--kernel and -- CMD: give one" :
			   "-p and -- CMD: give one");
	r->run.argv = argv;
	return 0;
}

static void note(void *arg, const char *line)
{
	struct hwbp_race *r = arg;

	if (r->diag)
		fprintf(r->diag, "%s%s\n", r->prefix ? r->prefix : "", line);
}

int hwbp_race_diag(struct hwbp_race *r, FILE *f, const char *prefix)
{
	if (!r)
		return -EINVAL;
	if (r->ran)
		return -EBUSY;
	r->diag = f;
	r->prefix = prefix;
	return 0;
}

/* The run's line ends with its errno's name, as every error of hwbp
 * does (unless it says it already). */
static int named(struct hwbp_race *r, int ret)
{
	const char *name = hwbp_errno_name(ret);
	size_t n = strlen(r->run.msg);

	if (!ret || strstr(r->run.msg, name))
		return ret;
	if (!n)
		snprintf(r->run.msg, sizeof(r->run.msg), "%s", name);
	else if (n + strlen(name) + 3 < sizeof(r->run.msg))
		snprintf(r->run.msg + n, sizeof(r->run.msg) - n, ": %s", name);
	return ret;
}

int hwbp_race_run(struct hwbp_race *r)
{
	if (!r)
		return -EINVAL;
	if (r->ran)
		return bad(r, -EBUSY, "a run runs once");
	if (!r->run.argv && !r->run.pid && !r->run.kernel)
		return bad(r, -EINVAL, "give a command (-- CMD), a process (-p PID) or --kernel");
	r->ran = true;
	if (!r->have_seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		r->run.seed = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
			      ((uint64_t)getpid() << 32);
	}
	if (r->run.kernel && !r->have_delay)
		r->run.delay_ns = HWBP_RACE_KERNEL_DELAY_US_DEFAULT * 1000u;
	r->run.note = note;
	r->run.note_arg = r;
	r->run.input = false;
	return named(r, r->run.kernel ? hwbpi_race_kernel_run(&r->run) : hwbpi_race_run(&r->run));
}

void hwbp_race_stop(struct hwbp_race *r, int sig)
{
	if (!r)
		return;
	if (sig)
		r->run.stop_sig = sig;
	r->run.stop = r->run.stop + 1;
}

const char *hwbp_race_message(const struct hwbp_race *r, bool *input)
{
	return hwbpi_outcome_msg(r ? r->run.msg : NULL, r && r->run.input, input);
}

bool hwbp_race_wait_status(const struct hwbp_race *r, int *status)
{
	return r && hwbpi_outcome_status(r->run.have_status, r->run.status, status);
}

unsigned hwbp_race_count(const struct hwbp_race *r)
{
	return r ? (unsigned)r->run.pairs.n : 0;
}

int hwbp_race_stats(const struct hwbp_race *r, struct hwbp_race_stats *out)
{
	const struct hwbpi_race_cands *c;
	const struct hwbpi_race_counts *k;

	if (!r || !out)
		return -EINVAL;
	c = &r->run.cands;
	k = &r->run.counts;
	memset(out, 0, sizeof(*out));
	out->seed = r->run.seed;
	out->objects = c->objects;
	out->functions = c->functions;
	out->instructions = c->instructions;
	out->candidates = c->n;
	for (unsigned i = 0; i < HWBP_RACE_SKIPS; i++)
		out->skipped[i] = c->skipped[skip_class[i]];
	out->unsized = c->unsized;
	out->traps = k->traps;
	out->samples = k->samples;
	out->passed = k->passed;
	out->alone = k->alone;
	out->synced = k->synced_skips;
	out->conflicts = k->conflicts;
	out->unseen = k->unseen;
	out->atomic = k->atomic;
	out->atomic_objects = k->atomic_objects;
	out->undecoded = k->undecoded;
	out->threads = k->threads;
	out->held_ns = k->held_ns;
	return 0;
}

/* The names of return address @ip into @f (the line: the call's, one
 * byte before, as a debugger gives a caller's). */
static void frame(struct hwbp_race *r, uint64_t ip, struct hwbp_race_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->ip = ip;
	f->func = hwbpi_demangler_name(r->dm, hwbpi_race_func(&r->run, ip - 1, &f->func_off));
	f->func_off += f->func ? 1 : 0;
	f->object = hwbpi_race_object(&r->run, ip - 1);
	hwbpi_race_line(&r->run, ip - 1, &f->file, &f->line);
}

/* One side's names; its @n callers @stack into @fr (which has room). */
static void side(struct hwbp_race *r, const struct hwbpi_race_side *s, const uint64_t *stack,
		 unsigned n, struct hwbp_race_frame *fr, struct hwbp_race_access *o)
{
	for (unsigned k = 0; k < n; k++)
		frame(r, stack[k], &fr[k]);
	memset(o, 0, sizeof(*o));
	o->ip = s->ip;
	o->addr = s->addr;
	o->size = s->size;
	o->kind = s->kind;
	o->tid = (uint32_t)s->tid;
	o->callers = n ? fr : NULL;
	o->ncallers = n;
	if (!s->ip)
		return;
	o->func = hwbpi_demangler_name(r->dm, hwbpi_race_func(&r->run, s->ip, &o->func_off));
	o->object = hwbpi_race_object(&r->run, s->ip);
	hwbpi_race_line(&r->run, s->ip, &o->file, &o->line);
}

/* The reports of every race so far, their names resolved. */
static int make_reports(struct hwbp_race *r)
{
	struct hwbpi_race_pairs *t = &r->run.pairs;
	int err = 0;

	if (r->rep && r->nrep == t->n)
		return 0;
	if (!r->dm && !(r->dm = hwbpi_demangler_new(&err)))
		return err;
	struct hwbp_race_frame *fr;
	size_t nfr = 0;

	free(r->rep);
	free(r->frames);
	r->nrep = 0;
	r->frames = NULL;
	for (size_t i = 0; i < t->n; i++)
		nfr += t->p[i].nstack[0] + t->p[i].nstack[1];
	if (!(r->rep = calloc(t->n ? t->n : 1, sizeof(*r->rep))) ||
	    !(r->frames = calloc(nfr ? nfr : 1, sizeof(*r->frames))))
		return -ENOMEM;
	fr = r->frames;
	for (size_t i = 0; i < t->n; i++) {
		struct hwbpi_race_pair *p = &t->p[i];
		struct hwbp_race_report *o = &r->rep[i];
		bool atomic;

		o->unseen = p->unseen;
		o->count = p->count;
		o->addr = p->lo;
		o->len = p->len;
		o->var = hwbpi_race_var(&r->run, p->lo, &o->var_off);
		o->where = o->var || !p->where[0] ? NULL : p->where;
		if (o->var && !p->expr[0])   /* (a heap object's: made when first seen) */
			hwbpi_race_typed(&r->run, p->lo, NULL, NULL, p->expr, sizeof(p->expr),
					 &atomic);
		o->expr = p->expr[0] ? p->expr : NULL;
		o->before = p->before;
		o->after = p->after;
		side(r, &p->a, p->stack[0], p->nstack[0], fr, &o->a);
		fr += p->nstack[0];
		side(r, &p->b, p->stack[1], p->nstack[1], fr, &o->b);
		fr += p->nstack[1];
	}
	r->nrep = t->n;
	return 0;
}

int hwbp_race_report(struct hwbp_race *r, unsigned i, struct hwbp_race_report *out)
{
	int ret;

	if (!r || !out)
		return -EINVAL;
	if (i >= r->run.pairs.n)
		return -ENOENT;
	if ((ret = make_reports(r)))
		return ret;
	*out = r->rep[i];
	return 0;
}
