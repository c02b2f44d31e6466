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

# A stripped PIE (issue 12, item 11): only .dynsym, so neither main nor
# _start; the bias comes from e_entry and the PF_X segments.  counter is
# exported to keep a name (no function names: bump's and peek's accesses
# are places in the file, "prog-s+0xOFF", one row per instruction).
cc -O0 -Wl,--export-dynamic-symbol=counter -o "$tmp/prog-s" "$src"
strip "$tmp/prog-s"
valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/lackey-s.log" "$tmp/prog-s"
"$hwbp" trace --lackey "$tmp/lackey-s.log" --elf "$tmp/prog-s" -e 'counter:rw-' \
  -e 'counter+8/8:rw-' > "$tmp/hist-s.txt" 2> "$tmp/err-s.txt"
cat "$tmp/hist-s.txt" "$tmp/err-s.txt"
for want in 'R 1250' 'W 1000'; do
  awk -v k="${want% *}" -v n="${want#* }" '$1 == k && $2 == "counter" && $3 ~ /^prog-s\+0x[0-9a-f]+$/ {
      c += $4 } END { exit c != n }' "$tmp/hist-s.txt" ||
    { echo "FAIL: stripped: expected $want from prog-s+0x... places"; fail=1; }
done
places=$(awk '$2 == "counter" && $1 ~ /^[RW]$/ { print $3 }' "$tmp/hist-s.txt" | sort -u)
grep -qv '^prog-s+0x[0-9a-f]*$' <<< "$places" && { echo "FAIL: stripped: $places"; fail=1; }
grep -q "^counter: $(wc -l <<< "$places") functions, overrun 0$" "$tmp/hist-s.txt" ||
  { echo "FAIL: stripped summary"; fail=1; }
# The watch nothing touched, with a guessed bias: one line naming it and
# --load-bias; none for a given bias, nor when every watch has hits.
[ "$(grep -c 'warning: 0 hits for counter+8 with the load bias 0x[0-9a-f]* guessed for --elf: .*give --load-bias$' "$tmp/err-s.txt")" = 1 ] &&
  [ "$(wc -l < "$tmp/err-s.txt")" = 1 ] || { echo "FAIL: the guessed-bias warning"; fail=1; }
"$hwbp" trace --lackey "$tmp/lackey-s.log" --elf "$tmp/prog-s" --load-bias 0 -e 'counter:rw-' \
  > /dev/null 2> "$tmp/err-s.txt"
[ ! -s "$tmp/err-s.txt" ] || { echo "FAIL: a warning with --load-bias:"; cat "$tmp/err-s.txt"; fail=1; }
"$hwbp" trace --lackey "$tmp/lackey.log" --elf "$tmp/prog" -e 'counter:rw-' > /dev/null 2> "$tmp/err.txt"
[ ! -s "$tmp/err.txt" ] || { echo "FAIL: a warning with hits:"; cat "$tmp/err.txt"; fail=1; }
# --load-bias where it cannot apply (a non-PIE runs at its link
# addresses): an error, not a silent shift of every symbol.
cc -O0 -no-pie -o "$tmp/prog-np" "$src"
st=0; "$hwbp" trace --lackey "$tmp/lackey.log" --elf "$tmp/prog-np" --load-bias 0x1000 -e 'counter:rw-' \
  > "$tmp/np.out" 2> "$tmp/np.err" || st=$?
[ "$st" = 2 ] && [ ! -s "$tmp/np.out" ] &&
  grep -qx "hwbp: trace: --load-bias 0x1000 does not apply: --elf '$tmp/prog-np' is not position-independent (it runs at its link addresses: bias 0)" "$tmp/np.err" ||
  { echo "FAIL: --load-bias with a non-PIE: status $st"; cat "$tmp/np.err"; fail=1; }
# ... but 0, its true bias, is accepted.
"$hwbp" trace --lackey "$tmp/lackey.log" --elf "$tmp/prog-np" --load-bias 0 -e 'counter:rw-' \
  > /dev/null 2> "$tmp/np.err" || { echo "FAIL: --load-bias 0 with a non-PIE"; cat "$tmp/np.err"; fail=1; }
[ $fail -eq 0 ] && echo "lackey round trip: OK"
exit $fail
