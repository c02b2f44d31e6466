#!/usr/bin/env bash
# Each public header compiles on its own, as C11 (pedantic) and as C++.
set -euo pipefail
inc=$1
n=0
for h in "$inc"/hwbp/*.h; do
  name=hwbp/$(basename "$h")
  printf '#include <%s>\n' "$name" | cc -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$inc" -x c -
  if command -v c++ >/dev/null; then
    printf '#include <%s>\n' "$name" | c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -I"$inc" -x c++ -
  fi
  n=$((n + 1))
done
[ "$n" -gt 0 ]
echo "$n public headers compile on their own"
