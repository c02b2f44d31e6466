#!/usr/bin/env bash
# The lackey round trip: build tests/trace/lackey_prog.c (a PIE, as Debian's
# gcc makes it), record it under valgrind --tool=lackey --trace-mem=yes,
# replay the trace with hwbp trace, and check the histogram against the
# accesses the program is known to make.
set -euo pipefail
hwbp=$1 src=$2
command -v valgrind >/dev/null || { echo "valgrind is missing (scripts/deps installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O0 -g -o "$tmp/prog" "$src"
valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/lackey.log" "$tmp/prog"
"$hwbp" trace --lackey "$tmp/lackey.log" --elf "$tmp/prog" -e 'counter:rw-' > "$tmp/hist.txt"
cat "$tmp/hist.txt"
fail=0
check() {  # check KIND FUNCTION COUNT
  if ! awk -v k="$1" -v f="$2" -v n="$3" '$1 == k && $2 == "counter" && $3 == f && $4 == n { ok = 1 } END { exit !ok }' "$tmp/hist.txt"; then
    echo "FAIL: expected '$1 counter $2 $3'"; fail=1
  fi
}
check W bump 1000
check R bump 1000
check R peek 250
# and nothing else touched it
rows=$(awk '$2 == "counter"' "$tmp/hist.txt" | wc -l)
[ "$rows" -eq 3 ] || { echo "FAIL: $rows histogram rows for counter, expected 3"; fail=1; }
grep -q '^counter: 2 functions, overrun 0$' "$tmp/hist.txt" || { echo "FAIL: summary line"; fail=1; }
[ $fail -eq 0 ] && echo "lackey round trip: OK"
exit $fail
