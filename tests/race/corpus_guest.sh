#!/usr/bin/env bash
# tests/race/corpus_guest.sh HWBP PROG...: the race corpus (tests/race/*.c)
# where run_corpus.py cannot go: a Linux guest with bash and busybox but
# no Python (scripts/guest-tests).  Each PROG was built on the host (the
# guest has no compiler: cc -O0 -g -pthread, as run_corpus.py builds it)
# and its source PROG.c lies beside it for its 'expect:', 'runs:' and
# 'options:' (hwbp race's, as --only LIB) lines, which mean what they
# mean there: a racy program must be found
# within its runs (exit 66, a race of that kind between those functions),
# a race-free one silent in every run (exit 0, no report).  The JSON
# report is read with awk: each race's line, then its accesses' lines.
# One line per program, as run_corpus.py's; exit 1 if any failed.
# --no-dwarf: HWBP was built without libdw, so a program that says
# "needs: dwarf" (relaxed atomics, told only by DWARF types) is skipped,
# said and counted; run_corpus.py checks it where hwbp has libdw.
set -u
dwarf=1
[ "${1:-}" = --no-dwarf ] && { dwarf=0; shift; }
hwbp=$1
shift
fails=0 skips=0

# The races of report $1 as "KIND FUNC FUNC" lines (functions sorted).
races() {
  awk '
    /"kind": "(conflict|unseen-writer)"/ {
      if (k != "") print k, f
      match($0, /"kind": "[a-z-]+"/); k = substr($0, RSTART + 9, RLENGTH - 10); f = ""
    }
    /"accesses"|^ *\{"ip"/ {
      s = $0
      gsub(/"callers": \[[^]]*\]/, "", s)   # the callers name functions too
      while (match(s, /"function": ("[^"]*"|null)/)) {
        fn = substr(s, RSTART + 12, RLENGTH - 12); gsub(/"/, "", fn)
        if (fn == "null") fn = "?"
        f = (f == "" ? fn : (fn < f ? fn " " f : f " " fn))
        s = substr(s, RSTART + RLENGTH)
      }
    }
    END { if (k != "") print k, f }' "$1"
}

for prog in "$@"; do
  name=$(basename "$prog")
  src=$prog.c
  want=$(sed -n 's/.*expect: \(race [a-z_]* [a-z_]*\|unseen [a-z_]*\|none\).*/\1/p' "$src" | head -n 1)
  runs=$(sed -n 's/.*runs: \([0-9]*\).*/\1/p' "$src" | head -n 1)
  opts=$(sed -n 's/^ \* options: //p' "$src" | head -n 1)
  if [ "$dwarf" = 0 ] && grep -q '^ \* needs: dwarf' "$src"; then
    echo "SKIP $name: this hwbp has no libdw, and only DWARF tells its atomics"
    skips=$((skips + 1)); continue
  fi
  if [ -z "$want" ] || [ -z "$runs" ]; then
    echo "FAIL $name: no 'expect:' or 'runs:' line in $src"; fails=$((fails + 1)); continue
  fi
  case $want in
    race*) pair=$(echo "$want" | awk '{ print ($2 < $3 ? $2 " " $3 : $3 " " $2) }'); line="conflict $pair" ;;
    unseen*) line="unseen-writer ${want#unseen }" ;;
    *) line= ;;
  esac
  result="" ok=0 k=0
  t0=$(date +%s)
  while [ "$k" -lt "$runs" ]; do
    k=$((k + 1))
    rm -f "$prog.json"
    # shellcheck disable=SC2086 # (the 'options:' words, split)
    "$hwbp" race $opts --json -o "$prog.json" -- "$prog" > /dev/null 2> "$prog.err"
    st=$?
    if [ ! -s "$prog.json" ]; then
      result="run $k: exit $st, no JSON: $(tail -c 300 "$prog.err")"; ok=0; break
    fi
    got=$(races "$prog.json")
    if [ -z "$line" ]; then
      if [ "$st" != 0 ] || [ -n "$got" ]; then
        result="run $k: exit $st, reported: $(echo "$got" | tr '\n' ';')"; ok=0; break
      fi
      ok=1 result="silent in all $runs runs"
    elif [ "$st" = 66 ] && echo "$got" | grep -qx "$line"; then
      ok=1 result="found in run $k: $(echo "$got" | tr '\n' ';')"; break
    elif [ "$st" != 0 ] && [ "$st" != 66 ]; then
      result="run $k: exit $st: $(tail -c 300 "$prog.err")"; ok=0; break
    else
      result="not found in $runs runs (last: exit $st, $(echo "$got" | tr '\n' ';'))"
    fi
  done
  summary=$(tail -n 2 "$prog.err" | tr '\n' ' ')
  printf '%s %-20s expect %-28s %s [%d/%d runs, %d s] %s\n' "$([ $ok = 1 ] && echo 'ok  ' || echo FAIL)" \
    "$name" "$want" "$result" "$k" "$runs" $(($(date +%s) - t0)) "$summary"
  [ "$ok" = 1 ] || fails=$((fails + 1))
done
echo "race corpus: $([ $fails = 0 ] && echo 'all passed' || echo "$fails failed"), $skips skipped"
[ "$fails" = 0 ]
