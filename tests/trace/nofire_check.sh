#!/bin/sh
# tests/trace/nofire_check.sh HWBP PROG: on a machine whose debug
# registers never fire, `hwbp trace` on a real process refuses with one
# line that says so and what still works there, exits 1, and leaves the
# program unharmed (it is not started: the self-test comes first).
# PROG is tests/trace/lackey_prog.c (1000 writes of `counter`), built
# here with cc -O0 when given as the .c file.
# Where the registers fire, the trace succeeds instead: then the refusal
# cannot be seen here, and this check says SKIP (exit 77) -- but only
# after the trace counted PROG's writes exactly; a trace that succeeds
# with another count fails.
# Where it runs: the host, when scripts/test's probe found that the
# registers do not fire; the ppc64le guest, where QEMU never fires a
# user-space DAWR (scripts/guest-tests).  POSIX sh and busybox awk only.
set -u
hwbp=$1 prog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $prog in
  *.c) ${CC:-cc} -O0 -o "$tmp/prog" "$prog" || exit 1; prog=$tmp/prog ;;
esac
fired=0 fail=0
for backend in ptrace perf; do
  "$hwbp" trace --backend "$backend" -e 'counter:-w-' -- "$prog" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  if [ $rc -eq 0 ]; then
    if awk '$1 == "W" && $2 == "counter" && $3 == "bump" && $4 == 1000 { ok = 1 } END { exit !ok }' "$tmp/out"; then
      fired=$((fired + 1))
    else
      echo "FAIL: $backend: the trace succeeded without the exact count:"; cat "$tmp/out" "$tmp/err"; fail=1
    fi
    continue
  fi
  lines=$(($(wc -l < "$tmp/err")))
  if [ $rc -ne 1 ] || [ "$lines" -ne 1 ] || [ -s "$tmp/out" ] ||
     ! grep -q '^hwbp: trace: hardware breakpoints do not fire on this machine (.*); still works: --demo, --lackey, qemu-x86, a QEMU guest (scripts/guest), or a VM that passes debug registers through$' "$tmp/err"; then
    echo "FAIL: $backend: exit $rc (want 1), want one line saying what still works; got:"
    cat "$tmp/out" "$tmp/err"; fail=1
  else
    echo "$backend: $(cat "$tmp/err")"
  fi
done
[ $fail -eq 0 ] || exit 1
if [ $fired -gt 0 ]; then
  [ $fired -eq 2 ] || { echo "FAIL: one backend fired, the other refused"; exit 1; }
  echo "SKIP: debug registers fire here (both traces counted 1000 writes): no refusal to check"
  exit 77
fi
echo "both backends refused with the line above, exit 1"
