#!/usr/bin/env bash
# check_exports.sh LIB "SYM..." - every symbol the shared library exports
# starts with hwbp_ and carries a version (the library's version script),
# and the named public API is really there.
set -euo pipefail
lib=$1
must=$2
raw=$(nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}')
syms=$(printf '%s\n' "$raw" | sed 's/@.*//' | sort -u)
bad=$(printf '%s\n' "$syms" | grep -v '^hwbp_' || true)
unversioned=$(printf '%s\n' "$raw" | grep -v '@' || true)
n=$(printf '%s\n' "$syms" | grep -c '^hwbp_' || true)
if [ -n "$bad" ]; then
  echo "exported names without the hwbp_ prefix:"; printf '  %s\n' $bad; exit 1
fi
if [ -n "$unversioned" ]; then
  echo "exported names without a symbol version:"; printf '  %s\n' $unversioned; exit 1
fi
for m in $must; do
  # A here-string, not a pipe: grep -q exits at its first match and, under
  # pipefail, printf's SIGPIPE would fail the pipeline though it matched.
  grep -qx "$m" <<< "$syms" || { echo "missing export: $m"; exit 1; }
done
ver=$(printf '%s\n' "$raw" | sed -n 's/.*@@*//p' | sort -u | tr '\n' ' ')
echo "$(basename "$lib"): $n exported symbols, all hwbp_*, version $ver"
