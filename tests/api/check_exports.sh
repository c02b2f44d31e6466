#!/usr/bin/env bash
# Every symbol the shared library exports starts with hwbp_, and the
# public API is really there.
set -euo pipefail
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u)
bad=$(printf '%s\n' "$syms" | grep -v '^hwbp_' || true)
n=$(printf '%s\n' "$syms" | grep -c '^hwbp_' || true)
if [ -n "$bad" ]; then
  echo "exported names without the hwbp_ prefix:"; printf '  %s\n' $bad; exit 1
fi
for must in hwbp_plan hwbp_install hwbp_decode hwbp_caps_get hwbp_cpu_preset; do
  printf '%s\n' "$syms" | grep -qx "$must" || { echo "missing export: $must"; exit 1; }
done
echo "$n exported symbols, all hwbp_*"
