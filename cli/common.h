/* SPDX-License-Identifier: MIT */
/*
 * Helpers the hwbp subcommands share beyond util.h: one option parser
 * (getopt_long underneath), CPU and scope arguments, the words for a
 * refused request, and JSON output.
 */
#ifndef HWBP_CLI_COMMON_H
#define HWBP_CLI_COMMON_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwbp/hwbp.h>

/*
 * One option of a subcommand.  @value names what the option takes, for
 * the "needs ..." message ("a number", "PRESET"); NULL for a flag.  @id
 * is what cli_next() returns for it: CLI_OPT_BASE or above.
 */
struct cli_opt {
	const char *name;
	const char *value;
	int id;
};

#define CLI_OPT_BASE 0x100
#define CLI_MAX_OPTS 16

enum {
	CLI_ARG = 1,    /* a positional word, in cli_args.arg */
	CLI_END = -1,   /* no more words */
	CLI_EXIT = -2,  /* stop: return cli_args.status (help, version, bad usage) */
};

struct cli_args {
	const char *cmd;          /* "plan", "bench trace": for messages */
	const char *usage;        /* printed by --help / -h */
	int argc;
	char **argv;
	const struct cli_opt *opts;
	struct option lo[CLI_MAX_OPTS + 3];
	const char *arg;          /* the word, or the option's value */
	int status;               /* with CLI_EXIT */
	int rest;                 /* words after "--", returned one by one */
	int neg;                  /* argv index of a negative number */
};

/*
 * cli_init - parse @argv[1..] (argv[0] is the subcommand's name) against
 * @opts, terminated by a NULL name.  --help, -h and --version are added.
 * Both "--opt value" and "--opt=value" work; options and words may mix
 * in any order, and words keep their order.
 */
void cli_init(struct cli_args *a, const char *cmd, const char *usage, int argc, char **argv,
	      const struct cli_opt *opts);

/*
 * cli_next - the next option's id (its value in a->arg), CLI_ARG (a word:
 * a->arg), CLI_END, or CLI_EXIT when the caller must return a->status:
 * after printing the usage or the version (0, or 1 on a write error), or
 * after one line naming a word that is no option of this command, or an
 * option without its value (2).  A word that looks like a negative number
 * ("-4") is a word, for the command to reject with a better message.
 */
int cli_next(struct cli_args *a);

/* usage_error() for an option's value: "CMD: bad --OPT 'VALUE': WHY". */
int cli_bad_value(const struct cli_args *a, const char *opt, const char *why);

/*
 * cli_number - a->arg as a number in [min, max] (hwbp_parse_u64 syntax);
 * on failure prints "CMD: bad --OPT 'V': expected MIN..MAX" and returns 2.
 */
int cli_number(const struct cli_args *a, const char *opt, uint64_t min, uint64_t max,
	       uint64_t *out);

/*
 * --cpu PRESET, arm64:ID_AA64DFR0_EL1, or host: this machine's model as
 * the running kernel lets a tracer program it (hwbp_trace_host_cpu(): a
 * child forked and asked through ptrace).  A usage error (2) when bad,
 * and for host off Linux ("hwbp: CMD: --cpu host: needs Linux
 * (EOPNOTSUPP)"); 1 when Linux cannot be asked (ptrace refused, no debug
 * registers), one line naming the errno.  @cmd names the command.
 */
int cli_load_cpu(const char *cmd, const char *name, struct hwbp_cpu *cpu);

/* How to name model @cpu, given as --cpu @given, in the output: its
 * name, or for host "host (MODEL, N slots, M-byte pieces)" (slots as
 * "N watchpoints, M breakpoints" where they are not shared), written
 * into @buf. */
const char *cli_cpu_label(const char *given, const struct hwbp_cpu *cpu, char *buf, size_t n);

int cli_parse_scope(const char *s, enum hwbp_scope *scope);
const char *cli_scope_name(enum hwbp_scope s);

/* Why the library refused a request of @type with @err, for a user. */
const char *cli_refusal(int err, const struct hwbp_cpu *cpu, unsigned type);

/* Space-separated names of the types in the set @types ("W RW X"). */
void cli_types_text(unsigned types, char *buf, size_t n);

/* JSON on stdout: a quoted, escaped string; a "0x..." string (addresses
 * and register values: jq and JavaScript round numbers above 2^53); an
 * array of type names; true/false. */
void cli_json_str(const char *s);
void cli_json_hex(uint64_t v);
void cli_json_types(unsigned types);
const char *cli_json_bool(bool b);

#endif /* HWBP_CLI_COMMON_H */
