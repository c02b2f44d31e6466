#!/usr/bin/env bash
# tests/trace/stacks_cli_test.sh HWBP STACK_PROG_FP [STACK_PROG_NOFP]:
# `hwbp trace --stack` on a real process, through the CLI, with every
# Linux backend that runs here.  tests/trace/stack_prog.c writes counter
# 300 times through main -> a -> bump, 200 through main -> b -> bump and
# 100 from main -> bump.  Exact for each backend and unwinder:
#   --folded FILE     three lines, "...;main;a;bump 300", "...;main;b;bump
#                     200", "...;main;bump 100" (the frames above main are
#                     the C library's start-up: whatever the unwinder finds
#                     there, the same for all three), nothing else;
#   --trace (ptrace)  600 events, each with its callers (" <- a+0x..",
#                     " <- b+0x..", " <- main+0x.."), its thread and its
#                     value going 0 -> 1 ... 599 -> 600.
# The frame-pointer build with --call-graph fp (ptrace, perf, bpf); with
# STACK_PROG_NOFP given (a build whose hwbp has libdw), both builds with
# --call-graph dwarf as well.
set -uo pipefail
hwbp=$1 fp=$2 nofp=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The folded lines cut to the frames from main on, sorted: "main;a;bump 300".
from_main() { sed -n 's/^counter \[W\];\(.*;\)\{0,1\}\(main;.*\)$/\2/p' "$1" | sort; }
want=$'main;a;bump 300\nmain;b;bump 200\nmain;bump 100'

folded() {  # folded BACKEND CALLGRAPH PROG
  local b=$1 cg=$2 prog=$3 what="--backend $1 --call-graph $2 ($(basename "$3"))"
  local st=0
  rm -f "$tmp/f"
  "$hwbp" trace --backend "$b" --call-graph "$cg" --stack --folded "$tmp/f" \
    -e counter:-w- -- "$prog" >"$tmp/out" 2>"$tmp/err" || st=$?
  [ $st = 0 ] || { bad "$what exited $st: $(cat "$tmp/err")"; return; }
  [ "$(wc -l <"$tmp/f")" = 3 ] || bad "$what: $(wc -l <"$tmp/f") folded lines, not 3: $(cat "$tmp/f")"
  [ "$(from_main "$tmp/f")" = "$want" ] ||
    bad "$what: the folded stacks from main are not a;bump 300, b;bump 200, bump 100: $(cat "$tmp/f")"
  # The same stacks all start alike above main: one start-up path.
  [ "$(sed 's/;main;.*//' "$tmp/f" | sort -u | wc -l)" = 1 ] ||
    bad "$what: the frames above main differ between the stacks: $(cat "$tmp/f")"
  echo "ok $what: $(tr '\n' ' ' <"$tmp/f")"
}

backends=(ptrace perf)
# bpf (in-kernel counting; with --stack it samples through perf) needs
# root to load its program: CI and the guests are root.
if [ "$(id -u)" = 0 ]; then backends+=(bpf); else echo "note: not root: no bpf runs"; fi
for b in "${backends[@]}"; do
  folded "$b" fp "$fp"
  if [ -n "$nofp" ]; then
    folded "$b" dwarf "$fp"
    folded "$b" dwarf "$nofp"
  fi
done

# Trace mode, ptrace: each event's callers, thread and value.
st=0
"$hwbp" trace --backend ptrace --call-graph fp --stack -e counter:-w- --trace "$tmp/ev" \
  -- "$fp" >"$tmp/out" 2>"$tmp/err" || st=$?
if [ $st = 0 ]; then
  [ "$(wc -l <"$tmp/ev")" = 600 ] || bad "trace: $(wc -l <"$tmp/ev") events, not 600"
  path() { grep -c " W bump <- $1+0x[0-9a-f]*\( <- \| tid \)" "$tmp/ev"; }
  [ "$(path a)" = 300 ] && [ "$(path b)" = 200 ] && [ "$(path main)" = 100 ] ||
    bad "trace: events by caller a $(path a), b $(path b), main $(path main) (want 300, 200, 100): $(head -n 3 "$tmp/ev")"
  # through a: the next caller is main
  [ "$(grep -c " <- a+0x[0-9a-f]* <- main+0x" "$tmp/ev")" = 300 ] || bad "trace: a's caller is not main"
  got=$(sed -n 's/.* tid [0-9]* value \(0x[0-9a-f]*\) -> \(0x[0-9a-f]*\)$/\1 \2/p' "$tmp/ev" | md5sum)
  exp=$(for ((k = 0; k < 600; k++)); do printf '0x%x 0x%x\n' $k $((k + 1)); done | md5sum)
  [ "$got" = "$exp" ] || bad "trace: the values are not 0x0 -> 0x1 ... 0x257 -> 0x258: $(head -n 3 "$tmp/ev")"
  [ "$(sed -n 's/.* tid \([0-9]*\) .*/\1/p' "$tmp/ev" | sort -u | wc -l)" = 1 ] || bad "trace: not one thread"
  grep -qx 'hwbp: trace: 600 events produced, 600 recorded, 0 lost' "$tmp/err" ||
    bad "trace: summary: $(cat "$tmp/err")"
  [ $fail = 1 ] || echo "ok --trace --stack (ptrace): 600 events with callers, tid and values"
else
  bad "trace mode exited $st: $(cat "$tmp/err")"
fi
exit $fail
