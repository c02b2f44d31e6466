#!/usr/bin/env bash
# check_arch_names.sh SRCDIR - what differs per arch is an operation of the
# arch's table (generic/internal.h, struct hwbpi_arch_ops), so no code
# outside arch/ names a particular architecture.  Allowed: arch/ itself,
# the one table that lists the arches (generic/arch.c), and the
# simulator's per-arch models with the one table that lists them (each
# model's files are named after its arch: sim/<arch>.c, and the parts split
# from it with their private header, e.g. sim/x86_regs.c, sim/x86_model.h).
# Public headers (include/) describe each arch's registers and are not
# code.
set -euo pipefail
cd "$1"
allowed='^(generic/arch\.c|sim/(x86|arm64|powerpc)(_[a-z]+)?\.(c|h)|sim/quirks_(x86|arm64|powerpc)\.def|sim/models\.c)$'
pattern='HWBP_ARCH_(X86|ARM64|POWERPC)|HWBP_PPC_[A-Z0-9]+|HWBPI?_(X86|ARM64|POWERPC|PPC|A64)_[A-Z0-9_]*|hwbpi?_(x86|arm64|powerpc|ppc|a64)_[a-z0-9_]+'
fail=0 n=0
while IFS= read -r f; do
  n=$((n + 1))
  if [[ $f =~ $allowed ]]; then continue; fi
  # Code only: drop /* ... */ and // comments and string literals first.
  hits=$(sed -E 's://.*$::' "$f" | perl -0pe 's{/\*.*?\*/}{}gs; s{"(\\.|[^"\\])*"}{""}g' |
         grep -nE "$pattern" || true)
  if [ -n "$hits" ]; then
    echo "$f names an architecture:"; printf '%s\n' "$hits" | sed 's/^/  /' | head -5; fail=1
  fi
done < <(find generic sim tracer cli kernel -name '*.c' -o -name '*.h' -o -name '*.def' | sort)
[ $fail = 0 ] && echo "$n files outside arch/: no architecture named but in the arch and model tables"
exit $fail
