#!/usr/bin/env bash
# check_public_calls.sh OBJDIR... - the objects (the hwbp program's) call
# only the public API of the libraries: no undefined hwbpi_* symbol.  (The
# shared libraries get the same guarantee from linking with
# --no-undefined against libraries that export only hwbp_*.)
set -euo pipefail
fail=0 n=0
for d in "$@"; do
  for o in "$d"/*.o; do
    n=$((n + 1))
    bad=$(nm -u "$o" | awk '{print $2}' | grep '^hwbpi_' || true)
    if [ -n "$bad" ]; then echo "$(basename "$o") calls internals: $bad"; fail=1; fi
  done
done
[ "$n" -gt 0 ] || { echo "no objects in $*"; exit 1; }
[ $fail = 0 ] && echo "$n objects call only hwbp_* of the libraries"
exit $fail
