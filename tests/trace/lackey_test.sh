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

# -O1, replayed without --load-bias: the guess once put the program over
# the dynamic loader (0x4008000 under valgrind 3.19, not 0x108000).  At
# -O1 the program runs few instructions of its own: a guess that only
# counted the instructions falling in its code window preferred the
# loader's, which are many more.  The shorter run (-DBUMPS=100) is one
# where the loader's outnumber the program's by far (the longer one too,
# with other compilers).  The bias valgrind used is read from the trace
# and the symbols: the executed address at _start's page offset from
# which main, bump and peek are executed too.
valgrind_bias() {  # valgrind_bias PROG LOG
  local s m b p a f bias ok found=
  read -r s m b p < <(nm "$1" | awk '$3 == "_start" { s = $1 } $3 == "main" { m = $1 }
    $3 == "bump" { b = $1 } $3 == "peek" { p = $1 } END { print s, m, b, p }')
  for a in $(grep -oE "^I  +[0-9a-f]*$(printf '%03x' $((16#$s & 0xfff))),[0-9]+" "$2" |
             awk '{ sub(/,.*/, "", $2); print $2 }' | sort -u); do
    bias=$((16#$a - 16#$s)) ok=1
    for f in "$m" "$b" "$p"; do
      grep -qE "^I  +0*$(printf '%x' $((16#$f + bias))),[0-9]+" "$2" || ok=0
    done
    [ $ok = 0 ] || found+="$(printf '0x%x' $bias) "
  done
  echo $found
}
for run in '1000 250' '100 25'; do
  n=${run% *} m=${run#* } p="$tmp/prog-O1-$n"
  cc -O1 -g -fno-inline -DBUMPS="$n" -DPEEKS="$m" -o "$p" "$src"
  valgrind --tool=lackey --trace-mem=yes --log-file="$p.log" "$p"
  vb=$(valgrind_bias "$p" "$p.log")
  [ "$(wc -w <<< "$vb")" = 1 ] || { echo "FAIL: -O1 $n: valgrind's bias from the trace: '$vb'"; fail=1; }
  # counter+8 has no hits: its warning says the bias guessed.
  "$hwbp" trace --lackey "$p.log" --elf "$p" -e 'counter:rw-' -e 'counter+8/8:rw-' \
    > "$p.hist" 2> "$p.err" || { echo "FAIL: -O1 $n: status $?"; fail=1; }
  cat "$p.hist" "$p.err"
  for want in "W bump $n" "R bump $n" "R peek $m"; do
    read -r k f c <<< "$want"
    awk -v k="$k" -v f="$f" -v n="$c" '$1 == k && $2 == "counter" && $3 == f && $4 == n { ok = 1 }
      END { exit !ok }' "$p.hist" || { echo "FAIL: -O1 $n: expected '$k counter $f $c'"; fail=1; }
  done
  [ "$(awk '$2 == "counter"' "$p.hist" | wc -l)" = 3 ] &&
    grep -qx 'counter: 2 functions, overrun 0' "$p.hist" ||
    { echo "FAIL: -O1 $n: rows or summary"; fail=1; }
  gb=$(sed -n 's/^hwbp: trace: warning: 0 hits for .* with the load bias \(0x[0-9a-f]*\) guessed .*/\1/p' "$p.err")
  [ -n "$gb" ] && [ "$gb" = "$vb" ] ||
    { echo "FAIL: -O1 $n: guessed load bias '$gb', valgrind's '$vb'"; fail=1; }
done

# No bias fits: one line naming the errno, status 1, no histogram: a
# trace cut before the program's entry (the loader only).  (Another
# program given as --elf is not always caught: any PIE whose entry has
# the same page offset fits the loader's jump as well as this one.)
# (the last run's: $p and its bias $vb)
start=$(nm "$p" | awk '$3 == "_start" { print $1 }')
cut=$(grep -nE "^I  +0*$(printf '%x' $((vb + 16#$start))),[0-9]+" "$p.log" | head -1 | cut -d: -f1)
head -n $((cut - 1)) "$p.log" > "$p.cut.log"
for elf_log in "$p:$p.cut.log"; do
  elf=${elf_log%%:*} log=${elf_log#*:}
  st=0; "$hwbp" trace --lackey "$log" --elf "$elf" -e 'counter:rw-' > "$tmp/nb.out" 2> "$tmp/nb.err" || st=$?
  [ "$st" = 1 ] && [ ! -s "$tmp/nb.out" ] &&
    [ "$(cat "$tmp/nb.err")" = "hwbp: trace: cannot guess the load bias of $elf from the trace: give --load-bias (ENOENT)" ] ||
    { echo "FAIL: no bias for $elf with $log: status $st"; cat "$tmp/nb.err"; fail=1; }
done
[ $fail -eq 0 ] && echo "lackey round trip: OK"
exit $fail
