/* SPDX-License-Identifier: MIT */
/*
 * The scenario language (docs/scenarios.md), private interface between its
 * parts:
 *
 *   scenario_lex.c      the lines of a text or a stream; one line's words,
 *                       numbers, addresses; errors
 *   scenario_parse.c    a line -> a command (struct hwbpi_scn_cmd), the two
 *                       passes over a file
 *   scenario_expect.c   the `expect` lines
 *   scenario_run.c      runs the commands against a simulator
 *   scenario_check.c    checks one expectation against the last result
 *   scenario_compile.c  the commands as rows of a C table
 *
 * A file is parsed completely before anything runs or is compiled, so a
 * syntax error anywhere gives one FILE:LINE:COL message and no half-run
 * output.  It is not kept: the first pass keeps only what the next line
 * needs (the CPU, the kind of the last command), the second parses each
 * line again and runs it, so memory does not grow with the file.
 */
#ifndef HWBP_SIM_SCENARIO_H
#define HWBP_SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

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

/* ------------------------------------------------------------ the commands */

enum hwbpi_scn_kind {
	C_CPU, C_SET, C_WATCH, C_UNWATCH, C_MODE, C_READ, C_WRITE, C_EXEC,
	C_IO, C_ZERO, C_RESUME, C_DECODER, C_INSN, C_GET, C_EXPECT,
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
	/* watch: HWBP_R...; C_INSN: the enum hwbp_sim_op */
	unsigned type;
	enum hwbp_scope scope;
	bool widen;
	bool share;                     /* HWBP_REQ_SHARE */
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

/* ------------------------------------------------------------ the lexer */

struct hwbpi_scn_lexer {
	const char *file;
	unsigned line;
	const char *start;              /* the line's first character */
	char *errbuf;
	size_t errlen;
	int base;                       /* how hwbpi_scn_addr() read its last value: 0 number, 'B', 'C' */
};

/*
 * Where lines come from: a text in memory, read in place, or a stream, read
 * through a buffer of two longest lines.  A stream that cannot seek (a
 * pipe, a terminal) is copied line by line to a tmpfile() as the first
 * pass reads it, and the second pass reads that copy.
 */
struct hwbpi_scn_src {
	const char *data;               /* the text, or buf */
	size_t start, end;              /* data[start, end): read, not yet taken */
	bool eof;                       /* nothing after data[end] */
	off_t base;                     /* the stream offset of data[0] (text: 0) */
	off_t origin;                   /* where the first line starts */
	FILE *in;                       /* NULL for a text */
	FILE *spool;                    /* the copy of a stream that cannot seek */
	bool started;                   /* a stream: buffer and spool made */
	char *buf;
};

/* A source of @text's lines; needs no hwbpi_scn_src_free(). */
void hwbpi_scn_src_text(struct hwbpi_scn_src *s, const char *text, size_t len);
/* A source of the lines of @in from where it is now (the buffer and any
 * spool are made on the first read). */
void hwbpi_scn_src_stream(struct hwbpi_scn_src *s, FILE *in);
void hwbpi_scn_src_free(struct hwbpi_scn_src *s);
/*
 * The next line, without its newline, in *line (valid until the next call)
 * and *len.  A line longer than HWBP_SCENARIO_LINE_MAX comes back as its
 * first HWBP_SCENARIO_LINE_MAX + 1 bytes and is not taken: the caller
 * stops there.  Returns 1, 0 at the end, or the errno of a read (-EISDIR,
 * -EIO...), of tmpfile() or of a write to the spool (-ENOSPC), -ENOMEM.
 */
int hwbpi_scn_src_line(struct hwbpi_scn_src *s, const char **line, size_t *len);
/* Where the next line starts, and back there (in the second pass). */
off_t hwbpi_scn_src_tell(const struct hwbpi_scn_src *s);
int hwbpi_scn_src_seek(struct hwbpi_scn_src *s, off_t pos);
/* To the first line again, for the second pass: the stream's start, or
 * the spool.  Errors: as hwbpi_scn_src_line(), or fseeko's. */
int hwbpi_scn_src_rewind(struct hwbpi_scn_src *s);

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
/* NUMBER, B+OFF or C+OFF (also bare B or C), @what naming it in errors;
 * sets lx->base. */
int hwbpi_scn_addr(struct hwbpi_scn_lexer *lx, const char *s, unsigned len, uint64_t *out,
		   const char *what);
/* Is @s one of the language's slot names (drN, wpN, bpN, dawrN, dabr,
 * ciabr), which requests may not be called? */
bool hwbpi_scn_is_slot_name(const char *s);

/* ------------------------------------------------------------ the parser */

/*
 * A file, parsed one line at a time.  hwbpi_scn_open() checks the public
 * entry points' arguments and makes the first pass: every line parsed,
 * nothing kept, then the source rewound.  hwbpi_scn_next() then gives the
 * commands and expectations of the second pass, one at a time.
 */
struct hwbpi_scn_parser {
	struct hwbpi_scn_lexer lx;
	struct hwbpi_scn_src *src;
	struct hwbp_cpu cpu;            /* the `cpu` line's (known after the first pass) */
	bool have_cpu;                  /* in this pass */
	struct hwbp_sim *probe;         /* a simulator of that CPU: is this a register, a mode? */
	enum hwbpi_scn_kind prev;       /* the last command's kind: what an expect checks */
	int err;                        /* a lookahead's error, for hwbpi_scn_next() */
	char dummy[8];                  /* the error buffer when the caller gives none */
};

/*
 * Errors: -EINVAL (NULL file or src, or a line does not parse or holds a
 * NUL byte: @errbuf then holds "FILE:LINE:COL: message"), -EOVERFLOW (a
 * line longer than HWBP_SCENARIO_LINE_MAX: "FILE:LINE:COL: ...", COL the
 * first byte past the limit), the source's errors; on error there is
 * nothing to close.
 */
int hwbpi_scn_open(struct hwbpi_scn_parser *p, const char *file, struct hwbpi_scn_src *src,
		   char *errbuf, size_t errlen);
/* The next line's command into *c: 1, 0 at the end, or an error as for
 * hwbpi_scn_open() (the file changed since the first pass, or a read
 * failed). */
int hwbpi_scn_next(struct hwbpi_scn_parser *p, struct hwbpi_scn_cmd *c);
/*
 * Is there an `expect error` for @profile among the expect lines after the
 * command hwbpi_scn_next() gave last?  They are read, then read again by
 * hwbpi_scn_next(): the lookahead costs no memory however many there are.
 * An error is kept for hwbpi_scn_next() to return (and false returned).
 */
bool hwbpi_scn_error_follows(struct hwbpi_scn_parser *p, int profile);
void hwbpi_scn_close(struct hwbpi_scn_parser *p);

/* Parse an `expect...` line into @c; @prev is the kind of the last command
 * above it (C_CPU: none yet) (scenario_expect.c). */
int hwbpi_scn_parse_expect(struct hwbpi_scn_lexer *lx, enum hwbpi_scn_kind prev,
			   const struct hwbpi_scn_tokens *t, struct hwbpi_scn_cmd *c);

/* ------------------------------------------------------------ the runner */

struct hwbpi_scn_run {
	struct hwbpi_scn_parser *ps;    /* the file being run */
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
	bool no_decoder;                /* `decoder off`: only what the CPU reports */
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
