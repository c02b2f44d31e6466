/* SPDX-License-Identifier: MIT */
/*
 * The scenario language (docs/scenarios.md), private interface between its
 * parts:
 *
 *   scenario_lex.c      one line: its words, numbers, addresses; errors
 *   scenario_parse.c    the text -> a program (struct hwbpi_scn_prog)
 *   scenario_expect.c   the `expect` lines of a program
 *   scenario_run.c      runs a program against a simulator
 *   scenario_check.c    checks one expectation against the last result
 *   scenario_compile.c  a program's commands as rows of a C table
 *
 * A file is parsed completely before anything runs or is compiled, so a
 * syntax error anywhere gives one FILE:LINE:COL message and no half-run
 * output.
 */
#ifndef HWBP_SIM_SCENARIO_H
#define HWBP_SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>

#include "format.h"

/* Where the runner puts the arenas (docs/scenarios.md: the runner's
 * choice).  Both are 64 KiB aligned and in the user half of every preset. */
#define HWBPI_SCN_ARENA_B UINT64_C(0x10000000)
#define HWBPI_SCN_ARENA_C UINT64_C(0x10010000)
#define HWBPI_SCN_ARENA_SIZE UINT64_C(0x10000)

#define HWBPI_SCN_MAX_TOK 24      /* words on one line */
#define HWBPI_SCN_NAME_LEN 32     /* a register, request or preset name */
#define HWBPI_SCN_MAX_NAMES 16    /* names after `expect hit` */
#define HWBPI_SCN_MAX_MODE 4      /* KEY=VALUE pairs after `mode` */

/* ------------------------------------------------------------ the program */

enum hwbpi_scn_kind {
	C_CPU, C_SET, C_WATCH, C_UNWATCH, C_MODE, C_READ, C_WRITE, C_EXEC,
	C_IO, C_ZERO, C_RESUME, C_EXPECT,
};

enum hwbpi_scn_check {
	E_NONE, E_FILTERED, E_HIT, E_CLASS, E_TIMING, E_REG, E_ADDR, E_ERROR, E_OK,
};

/* One line of a scenario: a command or an expectation. */
struct hwbpi_scn_cmd {
	enum hwbpi_scn_kind kind;
	unsigned line;
	/* generic operands */
	char name[HWBPI_SCN_NAME_LEN];  /* register, request or cpu preset */
	uint64_t a, b;                  /* address/value, size/len */
	int abase;                      /* a was written B+OFF ('B'), C+OFF ('C') or as a number (0) */
	/* watch */
	unsigned type;
	enum hwbp_scope scope;
	bool widen;
	/* mode */
	unsigned nmode;
	char mkey[HWBPI_SCN_MAX_MODE][8];
	uint64_t mval[HWBPI_SCN_MAX_MODE];
	/* expect */
	enum hwbpi_scn_check ek;
	int profile;                    /* -1 any, else enum hwbp_sim_profile */
	unsigned ntok;
	char tok[HWBPI_SCN_MAX_NAMES][HWBPI_SCN_NAME_LEN];
	uint64_t lo, hi;
	int err;                        /* E_ERROR: -errno; E_CLASS: the class */
};

/* A parsed file: cmds[0] is its `cpu` line. */
struct hwbpi_scn_prog {
	const char *file;
	struct hwbpi_scn_cmd *cmds;
	size_t n, cap;
	struct hwbp_cpu cpu;
	bool have_cpu;
};

/*
 * Check the arguments the public entry points share, then parse all of
 * @text into *prog (free it with hwbpi_scn_free()).  Errors: -EINVAL (bad
 * arguments, or the text does not parse: @errbuf then holds
 * "FILE:LINE:COL: message"), -ENOMEM; *prog holds nothing then.
 */
int hwbpi_scn_load(const char *file, const char *text, size_t len, struct hwbpi_scn_prog *prog,
		   char *errbuf, size_t errlen);
void hwbpi_scn_free(struct hwbpi_scn_prog *prog);

/* ------------------------------------------------------------ the lexer */

struct hwbpi_scn_lexer {
	const char *file;
	unsigned line;
	const char *start;              /* the line's first character */
	char *errbuf;
	size_t errlen;
	int base;                       /* how hwbpi_scn_addr() read its last value: 0 number, 'B', 'C' */
};

/* The words of one line, as pointers into it (comments dropped). */
struct hwbpi_scn_tokens {
	unsigned n;
	const char *p[HWBPI_SCN_MAX_TOK];
	unsigned len[HWBPI_SCN_MAX_TOK];
};

/* "FILE:LINE:COL: message" into the error buffer, COL that of @at;
 * returns -EINVAL. */
int hwbpi_scn_error(struct hwbpi_scn_lexer *lx, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int hwbpi_scn_tokenize(struct hwbpi_scn_lexer *lx, const char *s, size_t len,
		       struct hwbpi_scn_tokens *t);
/* Is word @i exactly @w? */
bool hwbpi_scn_tok_is(const struct hwbpi_scn_tokens *t, unsigned i, const char *w);
/* Word @i as a string of at most n - 1 characters (else an error). */
int hwbpi_scn_tok_copy(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_tokens *t, unsigned i,
		       char *out, size_t n);
/* A number (decimal or 0x hex): 0, -EINVAL, -ERANGE; reports nothing. */
int hwbpi_scn_num(const char *s, unsigned len, uint64_t *out);
/* NUMBER, B+OFF or C+OFF (also bare B or C), @what naming it in errors;
 * sets lx->base. */
int hwbpi_scn_addr(struct hwbpi_scn_lexer *lx, const char *s, unsigned len, uint64_t *out,
		   const char *what);
/* Is @s one of the language's slot names (drN, wpN, bpN, dawrN, dabr,
 * ciabr), which requests may not be called? */
bool hwbpi_scn_is_slot_name(const char *s);

/* ------------------------------------------------------------ the parser */

/* Parse an `expect...` line into @c, the last command of @prog
 * (scenario_expect.c). */
int hwbpi_scn_parse_expect(struct hwbpi_scn_lexer *lx, const struct hwbpi_scn_prog *prog,
			   const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c);

/* ------------------------------------------------------------ the runner */

struct hwbpi_scn_run {
	const struct hwbpi_scn_prog *prog;
	const struct hwbp_scenario_opts *o;
	struct hwbp_scenario_stats *st;
	struct hwbp_sim *sim;
	struct hwbp_ctx ctx;
	struct hwbp_slots percpu[HWBP_SIM_MAX_CPUS];
	unsigned cur;                   /* the CPU that `mode cpu=N` chose */
	unsigned zero_block;            /* bytes a `zero` line stores */
	char names[HWBP_MAX_REQUESTS][HWBPI_SCN_NAME_LEN];
	unsigned nlive;
	/* the result the next expect lines check */
	bool have_res;
	struct hwbp_sim_result res;
	struct hwbp_access acc;
	bool decoded;
	struct hwbp_hit hit;
	int cmd_err;
};

/* The arenas at HWBPI_SCN_ARENA_B / _C, for printing. */
extern const struct hwbpi_arenas hwbpi_scn_arenas;

/* Check expectation @e against the state the last command left. */
void hwbpi_scn_check(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *e);
/* Count a failure of line @e and print "FILE:LINE: ..." (not with emit). */
void hwbpi_scn_fail(struct hwbpi_scn_run *r, const struct hwbpi_scn_cmd *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The request id watched under @name, or -1. */
int hwbpi_scn_find_name(const struct hwbpi_scn_run *r, const char *name);
/* @res as a canonical line body (format.h); with @decoded the slots are
 * those the decoder reads from the status and the live registers. */
void hwbpi_scn_result_text(const struct hwbpi_scn_run *r, const struct hwbp_sim_result *res,
			   bool decoded, char *buf, size_t n);

#endif /* HWBP_SIM_SCENARIO_H */
