/* SPDX-License-Identifier: MIT */
/*
 * Symbols, the interface of symbols/ (internal): the one header the
 * folders above it include.  Symbol tables from ELF files, /proc/PID/maps
 * and the kernel (kallsyms, System.map, vmlinux, /proc/kcore), names and
 * their patterns, demangling, DWARF (debug files, source lines) and
 * thread-local variables; each topic's declarations are in its own
 * header of this folder, included here.
 */
#ifndef HWBP_TRACER_SYMBOLS_H
#define HWBP_TRACER_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include <hwbp/trace.h>

#include "util/util.h"
#include "symbols/symtab.h"
#include "symbols/names.h"
#include "symbols/demangle.h"
#include "symbols/dwarf.h"
#include "symbols/ksyms.h"
#include "symbols/kcore.h"
#include "symbols/tls.h"
#include "symbols/proc_maps.h"

/* The starts of a finished table's functions, ascending (symbols_starts.c):
 * borrowed until the table is freed; returns their number. */
size_t hwbpi_symtab_func_starts(const struct hwbp_symtab *t, const uint64_t **starts);

#endif /* HWBP_TRACER_SYMBOLS_H */
