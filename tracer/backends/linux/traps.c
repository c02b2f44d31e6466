/* SPDX-License-Identifier: MIT */
/*
 * Code traps planted in a tracee (backends/linux/linux.h, hwbpi_traps):
 * the arch's trap instruction (hwbpi_linux_trap: INT3, BRK #0, `trap`, as
 * GDB's breakpoints are) written over the first bytes of an instruction
 * with PTRACE_POKETEXT, the bytes it replaced kept to put back.  The
 * ptrace backend plants them at the functions that arm and release
 * objects; the race detector (tracer/race/) at the instructions it
 * samples.  Unlike a debug register, a trap costs nothing but the bytes,
 * so there may be as many as the table holds.
 *
 * The text is written a word at a time: each write reads the word as it
 * is now and changes only the trap's own bytes in it, so that two traps
 * in one word (short instructions side by side) keep each other's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>

#include "backends/linux/linux.h"

int hwbpi_traps_init(struct hwbpi_traps *T, unsigned cap)
{
	memset(T, 0, sizeof(*T));
	if (!cap)
		return -EINVAL;
	T->t = calloc(cap, sizeof(*T->t));
	if (!T->t)
		return -ENOMEM;
	T->cap = cap;
	return 0;
}

void hwbpi_traps_fini(struct hwbpi_traps *T)
{
	if (!T)
		return;
	free(T->t);
	memset(T, 0, sizeof(*T));
}

struct hwbpi_trap *hwbpi_trap_at(const struct hwbpi_traps *T, uint64_t addr)
{
	for (unsigned i = 0; T && i < T->n; i++)
		if (T->t[i].refs && T->t[i].addr == addr)
			return &T->t[i];
	return NULL;
}

int hwbpi_trap_poke(pid_t tid, const struct hwbpi_trap *tp, bool trap)
{
	long w;

	errno = 0;
	w = ptrace(PTRACE_PEEKTEXT, tid, (void *)(uintptr_t)tp->addr, NULL);
	if (errno)
		return -errno;
	memcpy(&w, trap ? hwbpi_linux_trap : tp->orig, hwbpi_linux_trap_len);
	return ptrace(PTRACE_POKETEXT, tid, (void *)(uintptr_t)tp->addr, (void *)w) ? -errno : 0;
}

int hwbpi_trap_plant(struct hwbpi_traps *T, pid_t tid, uint64_t addr)
{
	struct hwbpi_trap *tp = hwbpi_trap_at(T, addr);
	long w;
	int ret;

	if (!hwbpi_linux_trap_len)
		return -EOPNOTSUPP;
	if (tp) {
		tp->refs++;
		return 0;
	}
	/* A free entry (refs 0) is reused before the table grows. */
	for (unsigned i = 0; i < T->n && !tp; i++)
		if (!T->t[i].refs)
			tp = &T->t[i];
	if (!tp && T->n == T->cap)
		return -ENOSPC;
	errno = 0;
	w = ptrace(PTRACE_PEEKTEXT, tid, (void *)(uintptr_t)addr, NULL);
	if (errno)
		return -errno;
	if (!tp)
		tp = &T->t[T->n++];
	memcpy(tp->orig, &w, hwbpi_linux_trap_len);
	tp->addr = addr;
	ret = hwbpi_trap_poke(tid, tp, true);
	tp->refs = ret ? 0 : 1;
	if (ret == 0)
		T->live++;
	return ret;
}

int hwbpi_trap_unplant(struct hwbpi_traps *T, pid_t tid, uint64_t addr)
{
	struct hwbpi_trap *tp = hwbpi_trap_at(T, addr);

	if (!tp)
		return -ENOENT;
	if (--tp->refs)
		return 0;
	T->live--;
	return hwbpi_trap_poke(tid, tp, false);
}

void hwbpi_traps_poke_all(const struct hwbpi_traps *T, pid_t tid, bool trap)
{
	for (unsigned i = 0; T && i < T->n; i++)
		if (T->t[i].refs)
			hwbpi_trap_poke(tid, &T->t[i], trap);
}
