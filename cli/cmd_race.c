/* SPDX-License-Identifier: MIT */
/*
 * hwbp race: data races in an unmodified program, found by DataCollider's
 * method (include/hwbp/trace.h, hwbp_race_*).  Parse the options, hand
 * them to a run (which checks their values: one parser for every
 * caller), run it under the stop signals, print the races (race_print.c)
 * and exit as ThreadSanitizer does: 66 when a race was found, else the
 * command's own status; 1 and 2 are hwbp's own failures.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <hwbp/hwbp.h>
#include <hwbp/trace.h>

#include "cli.h"
#include "race_print.h"
#include "util.h"

enum { OPT_RATE = 256, OPT_DELAY, OPT_DURATION, OPT_SEED, OPT_STACK, OPT_ONLY, OPT_EXCLUDE, OPT_JSON,
       OPT_KERNEL, OPT_OUTPUT, OPT_HELP, OPT_VERSION };

#define MAX_OPTS 48

struct ropts {
	const char *name[MAX_OPTS], *value[MAX_OPTS];   /* the run's options, in order */
	unsigned n;
	bool json;
	const char *output;     /* -o FILE, or NULL: stdout */
	char *const *cmd;
};

static int race_help(void)
{
	printf("usage: hwbp race [--rate N] [--delay MS] [--duration SEC] [--seed N]\n"
	       "                 [--stack N] [--only OBJ[:FUNC]]... [--exclude OBJ[:FUNC]]...\n"
	       "                 [--json]\n"
	       "                 [-o FILE]\n"
	       "                 -- CMD [ARGS]\n"
	       "       hwbp race [OPTION]... -p PID\n"
	       "       hwbp race --kernel --only FUNC[,FUNC...]|MODULE [OPTION]...\n"
	       "       hwbp race --version | --help\n"
	       "Find data races in an unmodified program (DataCollider's method): a code\n"
	       "trap on random memory-access instructions of its code; when a thread reaches\n"
	       "one, a hardware watch on the bytes it is about to access is armed in every\n"
	       "other thread (a read: writes watched; a write: every access) and the thread\n"
	       "is held for the delay. Another thread's conflicting access meanwhile is a\n"
	       "race, reported with both instructions, functions, source lines, callers,\n"
	       "threads and the variable (typed, as cfg.limits[2], where DWARF says); a value\n"
	       "that changed with no access caught is reported as an unseen writer. Stack,\n"
	       "locked, atomic and thread-local accesses are never sampled (a summary on\n"
	       "stderr says how many of each), and an access caught from an atomic\n"
	       "instruction, to an object DWARF types atomic (_Atomic, std::atomic) or in\n"
	       "std::atomic's code is no race. Races are counted once per pair of\n"
	       "instructions. Linux on x86-64 (ptrace and the debug registers).\n"
	       "  -p, --pid PID      attach to a running process (left as it was at the end)\n"
	       "  --kernel           the running kernel (x86-64, root, hwbp_ksym.ko loaded):\n"
	       "                     --only names kernel functions or a loaded module; a\n"
	       "                     kprobe per sampled access, its CPU held (interrupts\n"
	       "                     off) --delay, at most 0.5 ms (default %d us), rate x\n"
	       "                     delay at most 50 ms a second; --duration default 10 s\n"
	       "  --rate N           code traps armed per second, up to 3 decimals (default\n"
	       "                     %d; 0.5: one every 2 s; each one taken holds a thread\n"
	       "                     for the delay)\n"
	       "  --delay MS         how long a sampled thread is held (default %d ms)\n"
	       "  --duration SEC     stop sampling after SEC seconds (a command gets SIGTERM)\n"
	       "  --seed N           the random choice's seed (default: from the clock)\n"
	       "  --stack N          callers per access in a report (0..16, default 8)\n"
	       "  --only OBJ[:FUNC]  sample OBJ's code (a file's last path component, as\n"
	       "                     libfoo.so.1), or its functions matching the pattern\n"
	       "                     FUNC (prog:worker_*); up to 16; default: the executable\n"
	       "  --exclude OBJ[:FUNC]  do not sample OBJ's code, or those functions\n"
	       "  --json             the report as JSON (addresses as \"0x...\" strings)\n"
	       "  -o, --output FILE  the report into FILE (made anew), not onto stdout,\n"
	       "                     which the command writes too\n"
	       "  -h, --help         this text;  --version  hwbp's version\n"
	       "Exit status: 66 when a race was found (as ThreadSanitizer); else the\n"
	       "command's own; 1 hwbp failed, 2 a bad command line.\n",
	       HWBP_RACE_KERNEL_DELAY_US_DEFAULT, HWBP_RACE_RATE_DEFAULT, HWBP_RACE_DELAY_MS_DEFAULT);
	return cli_close_output(stdout, "stdout");
}

static const struct option longs[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "delay", required_argument, NULL, OPT_DELAY },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "stack", required_argument, NULL, OPT_STACK },
	{ "only", required_argument, NULL, OPT_ONLY },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* The run's option name of getopt's result @c, or NULL. */
static const char *run_option(int c)
{
	switch (c) {
	case 'p': return "pid";
	case OPT_RATE: return "rate";
	case OPT_DELAY: return "delay";
	case OPT_DURATION: return "duration";
	case OPT_SEED: return "seed";
	case OPT_STACK: return "stack";
	case OPT_ONLY: return "only";
	case OPT_EXCLUDE: return "exclude";
	default: return NULL;
	}
}

/* One result of getopt_long(): 0, an exit status, or with *@done the
 * status of --help or --version. */
static int take(int c, char **argv, struct ropts *o, int *done)
{
	const char *name = run_option(c);

	if (name) {
		if (o->n == MAX_OPTS)
			return usage_error("race: too many options at '%s': E2BIG", argv[optind - 1]);
		o->name[o->n] = name;
		o->value[o->n++] = optarg;
		return 0;
	}
	switch (c) {
	case OPT_JSON:
		o->json = true;
		return 0;
	case OPT_KERNEL:
		if (o->n == MAX_OPTS)
			return usage_error("race: too many options at '%s': E2BIG", argv[optind - 1]);
		o->name[o->n] = "kernel";
		o->value[o->n++] = "1";
		return 0;
	case 'o':
		if (o->output)
			return usage_error("race: %s", "--output given twice: EINVAL");
		o->output = optarg;
		return 0;
	case 'h':
	case OPT_HELP:
		*done = 1;
		return race_help();
	case OPT_VERSION:
		*done = 1;
		return cli_version();
	case ':':
		return optopt == 'p' ? usage_error("race: %s needs a process id: EINVAL", "-p")
				     : usage_error("race: %s needs a value: EINVAL", argv[optind - 1]);
	default:
		return usage_error("race: unexpected option '%s' (try --help): EINVAL",
				   argv[optind - 1]);
	}
}

static int parse_args(int argc, char **argv, struct ropts *o, int *done)
{
	int c, ret;

	memset(o, 0, sizeof(*o));
	*done = 0;
	opterr = 0;
	optind = 0;   /* glibc: a full restart of the scan */
	while ((c = getopt_long(argc, argv, "+:hp:o:", longs, NULL)) != -1)
		if ((ret = take(c, argv, o, done)) || *done)
			return ret;
	if (optind > 1 && strcmp(argv[optind - 1], "--") == 0) {
		if (optind >= argc)
			return usage_error("race: %s", "-- needs a command to run: EINVAL");
		o->cmd = &argv[optind];
	} else if (optind < argc) {
		return usage_error("race: unexpected argument '%s' (the command goes after --): EINVAL",
				   argv[optind]);
	}
	return 0;
}

static bool given(const struct ropts *o, const char *name)
{
	for (unsigned i = 0; i < o->n; i++)
		if (strcmp(o->name[i], name) == 0)
			return true;
	return false;
}

/* ---- SIGINT, SIGTERM, SIGHUP while the run runs ---- */

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP_SIGS (sizeof(stop_sigs) / sizeof(stop_sigs[0]))
static struct hwbp_race *volatile running;

/* The run stops and still reports what it found; a -- CMD child gets the
 * signal too, unless the terminal sent it (SI_KERNEL: Ctrl-C reaches the
 * whole foreground group); a second one hurries. */
static void on_stop_signal(int sig, siginfo_t *si, void *uc)
{
	struct hwbp_race *r = running;

	(void)uc;
	if (r)
		hwbp_race_stop(r, si && si->si_code == SI_KERNEL ? 0 : sig);
}

static void catch_stops(struct hwbp_race *r, struct sigaction old[NSTOP_SIGS])
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_stop_signal;
	sa.sa_flags = SA_SIGINFO;   /* no SA_RESTART: the run's waits return EINTR */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP_SIGS; i++)
		sigaddset(&sa.sa_mask, stop_sigs[i]);
	running = r;
	for (size_t i = 0; i < NSTOP_SIGS; i++)
		if (sigaction(stop_sigs[i], NULL, &old[i]) == 0 && old[i].sa_handler != SIG_IGN)
			sigaction(stop_sigs[i], &sa, NULL);
}

static void release_stops(const struct sigaction old[NSTOP_SIGS])
{
	for (size_t i = 0; i < NSTOP_SIGS; i++)
		sigaction(stop_sigs[i], &old[i], NULL);
	running = NULL;
}

static int run_error(const struct hwbp_race *r)
{
	bool input = false;
	const char *m = hwbp_race_message(r, &input);

	fprintf(stderr, "hwbp: race: %s\n", m[0] ? m : "failed");
	return input ? EXIT_USAGE : EXIT_REFUSED;
}

/* The command's exit status as hwbp's (time(1), perf record): its own,
 * or 128 + the signal that killed it. */
static int command_status(const char *cmd, int status)
{
	if (WIFEXITED(status)) {
		if (WEXITSTATUS(status))
			fprintf(stderr, "hwbp: race: %s exited with status %d\n", cmd,
				WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "hwbp: race: %s was killed by signal %d (%s)\n", cmd,
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	return 0;
}

/* The run from the options: its calls fail only on input. */
static int configure(struct hwbp_race *r, const struct ropts *o)
{
	int ret = 0;

	for (unsigned i = 0; ret == 0 && i < o->n; i++)
		ret = hwbp_race_option(r, o->name[i], o->value[i]);
	if (ret == 0 && o->cmd)
		ret = hwbp_race_command(r, o->cmd);
	if (ret == 0)
		ret = hwbp_race_diag(r, stderr, "hwbp: race: ");
	return ret ? run_error(r) : 0;
}

/* -o FILE, opened before anything runs (a file that cannot be written
 * is bad input: nothing is started). */
static int open_output(const struct ropts *o, FILE **out)
{
	*out = stdout;
	if (o->output && !(*out = fopen(o->output, "w"))) {
		fprintf(stderr, "hwbp: race: cannot write --output '%s': %s: %s\n", o->output,
			strerror(errno), hwbp_errno_name(errno));
		return EXIT_USAGE;
	}
	return 0;
}

/* How the report's output is named in a write error. */
static const char *output_name(const struct ropts *o, char *buf, size_t n)
{
	if (!o->output)
		return "stdout";
	snprintf(buf, n, "--output '%s'", o->output);
	return buf;
}

int hwbp_cli_race(int argc, char **argv)
{
	struct sigaction old[NSTOP_SIGS];
	struct ropts o;
	struct hwbp_race *r;
	char what[600];
	FILE *out;
	int done, ret, rc, status = 0;
	bool have_status;

	if ((ret = parse_args(argc, argv, &o, &done)) || done)
		return ret;
	if (!o.cmd && !given(&o, "pid") && !given(&o, "kernel"))
		return usage_error("race: %s", "give a command (-- CMD), a process (-p PID) or "
				   "--kernel: EINVAL");
	if ((ret = open_output(&o, &out)))
		return ret;
	r = hwbp_race_new(&ret);
	if (!r) {
		fprintf(stderr, "hwbp: race: %s\n", hwbp_errno_name(ret));
		if (out != stdout)
			fclose(out);
		return EXIT_REFUSED;
	}
	if ((rc = configure(r, &o)) == 0) {
		catch_stops(r, old);
		if ((ret = hwbp_race_run(r)))
			rc = run_error(r);
		release_stops(old);
		/* A run that failed says so in JSON too, as plan and decode do. */
		if (ret && o.json)
			rc = race_print_error(out, output_name(&o, what, sizeof(what)), ret,
					      hwbp_race_message(r, NULL)) ? EXIT_REFUSED : rc;
	}
	have_status = hwbp_race_wait_status(r, &status);
	if (rc == 0)
		rc = race_print(r, out, output_name(&o, what, sizeof(what)), o.json, o.cmd,
				have_status ? &status : NULL);
	else if (out != stdout && !(ret && o.json))
		fclose(out);
	if (rc == 0 && hwbp_race_count(r))
		rc = HWBP_CLI_EXIT_RACE;
	else if (rc == 0 && o.cmd && have_status)
		rc = command_status(o.cmd[0], status);
	hwbp_race_free(r);
	return rc;
}
