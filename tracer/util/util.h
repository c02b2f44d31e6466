/* SPDX-License-Identifier: MIT */
/*
 * The tracer's utilities (internal), the lowest of its folders: what
 * every other folder may use and that depends on nothing of the tracer.
 */
#ifndef HWBP_TRACER_UTIL_H
#define HWBP_TRACER_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What still works on a machine whose debug registers never fire (the
 * Linux backends' self-tests end their refusal with it): the hypervisors
 * of some clouds do not pass the registers through, and nothing on the
 * guest side can change that. */
#define HWBPI_NO_FIRE_HINT                                                     \
	"; still works: --demo, --lackey, qemu-x86, a QEMU guest (scripts/guest), " \
	"or a VM that passes debug registers through"

/* The first @len bytes at @b (at most 8) as an event's value: byte k in
 * bits 8k..8k+7 (trace.h: little-endian in the low bytes), whatever the
 * host's byte order. */
static inline uint64_t hwbpi_value_of_bytes(const uint8_t *b, uint64_t len)
{
	uint64_t v = 0;

	for (unsigned k = 0; k < len && k < 8; k++)
		v |= (uint64_t)b[k] << (8 * k);
	return v;
}

/* The value of hex digit @c (0-9, a-f, A-F), or -1: symbol maps and lackey
 * traces, parsed by hand so that no sign, prefix or blank slips through
 * (inline: it runs per byte of a trace). */
static inline int hwbpi_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Print a one-line message for the user into @err (any of them may be
 * NULL/0: then nothing).  Shared by the tracer and its backends. */
void hwbpi_say(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* What the public accessors of a run's outcome answer (a session's and a
 * race run's: hwbp_trace_session_message(), hwbp_race_message() and their
 * _wait_status()): its one-line error @msg ("" when @msg is NULL, the run
 * not made) with *@input (may be NULL) whether the caller's input was at
 * fault; and a started command's wait status, when @have one. */
static inline const char *hwbpi_outcome_msg(const char *msg, bool was_input, bool *input)
{
	if (input)
		*input = msg && was_input;
	return msg ? msg : "";
}

static inline bool hwbpi_outcome_status(bool have, int st, int *status)
{
	if (have && status)
		*status = st;
	return have;
}

#endif /* HWBP_TRACER_UTIL_H */
