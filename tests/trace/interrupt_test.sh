#!/usr/bin/env bash
# tests/trace/interrupt_test.sh HWBP LOOP_PROG.c|LOOP: interrupting
# `hwbp trace` never harms the target and loses nothing (ptrace; the
# -- CMD cases with perf too).
# LOOP_PROG (tests/trace/loop_prog.c, compiled here; or LOOP, built
# already: the Linux guests have no compiler) writes `counter` once a millisecond
# and prints its count every 10 writes.  Checked:
#  - SIGINT/SIGTERM to hwbp during -p PID: hwbp exits 0 with the histogram
#    of what it saw; the target is left untraced (TracerPid 0), is alive
#    5 s later (no SIGTRAP from a debug register left armed) and still
#    writes; with --trace the file holds every event the summary counts
#    (produced = recorded, 0 lost);
#  - the same with a target of 100 threads (SIGTERM): each one untraced;
#  - the same with a target that forks a writer every 10 writes (SIGINT
#    mid-fork): the children's hits counted, no child left traced or
#    stopped (the parent, which reaps each, writes on);
#  - a target stopped (kill -STOP) when hwbp attaches, then SIGINT: it
#    stays stopped and untraced, and runs on after SIGCONT;
#  - --duration SEC, both backends: the same clean end (-p: exit 0, the
#    target untraced; -- CMD: the child gets SIGTERM, exit 143, hits =
#    its writes);
#  - SIGINT/SIGTERM/SIGHUP to hwbp during -- CMD, with the ptrace and the
#    perf backend: the child gets the same signal; its W hits are exactly
#    the writes it says it made ("final N"); hwbp exits 128 + the signal;
#  - a child that ignores SIGINT runs on; a second SIGINT kills it (137),
#    both backends;
#  - raise(SIGSTOP) in a -- CMD child stops it until SIGCONT;
#  - the exit status is the child's: 3, 139 (SIGSEGV), 137 (SIGKILL);
#  - a 1,000,000-event --trace with the default rings (host only): ptrace
#    loses nothing; perf's recorded + kernel-dropped samples = 1,000,000;
#  - perf: samples the kernel drops while hwbp is stopped are counted
#    exactly (hits + dropped = writes) and the message names --buffer-kb.
# Every wait is a bounded poll; a file polled for growth is new to each
# run (a name per backend), never one a previous run filled.  Job control
# (set -m): background jobs then do not ignore SIGINT, and each gets its
# own process group.
set -euo pipefail
set -m
hwbp=$1 src=$2
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
case $src in
  *.c) cc -O0 -g -pthread -o "$tmp/loop" "$src" ;;
  *) cp "$src" "$tmp/loop" ;;
esac
fail=0
bad() { echo "FAIL: $*"; fail=1; }
t_start=$SECONDS
step() { echo "interrupt: $* (at $((SECONDS - t_start)) s)"; }

# poll SECONDS CMD...: CMD true within SECONDS (checked every 20 ms);
# four times as long in the QEMU TCG guests (HWBP_GUEST), where a ptrace
# stop costs milliseconds (100 threads: the target then writes slowly).
scale=1
[ -z "${HWBP_GUEST:-}" ] || scale=4
# The bound is wall-clock time (bash's SECONDS, one more for its
# rounding), not a count of tries: a loaded TCG guest takes far longer
# than 20 ms a try.
poll() {
  local end=$(( SECONDS + $1 * scale + 1 )); shift
  while ! "$@"; do
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 0.02
  done
}
field() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null; }
traced_by() { [ "$(field "$1" TracerPid)" = "$2" ]; }
state_is() { [ "$(field "$1" State)" = "$2" ]; }
stopped() { case "$(field "$1" State)" in T|t) true ;; *) false ;; esac; }
# same W FINAL: whether W hits are the FINAL writes the child made.  Exact,
# except in the aarch64 guest, where Debian's 6.1 kernel under QEMU's TCG
# reports now and then one access twice (the kernel's own event count
# shows it too: tests/trace/kernel_test.sh): there W may exceed FINAL by
# FINAL / 5 + 2, and the excess is printed.  A missing hit fails anywhere.
same() {
  [ -n "$2" ] || return 1
  [ "$1" = "$2" ] && return 0
  if [ -n "${HWBP_GUEST:-}" ] && [ "$(uname -m)" = aarch64 ] && [ "$1" -gt "$2" ] &&
     [ "$1" -le $(($2 + $2 / 5 + 2)) ]; then
    echo "aarch64 (QEMU TCG): $1 W hits for $2 writes"
    return 0
  fi
  return 1
}
# reap PID WHAT: wait for hwbp PID, which was just signalled, at most 60 s
# (x scale); its status in $rc.  One that does not end is a failure that
# says where it is blocked (wchan, the system call number), then killed:
# a hang becomes a line, not the suite's timeout.
gone() { [ ! -e "/proc/$1" ] || state_is "$1" Z; }
reap() {
  if ! poll 60 gone "$1"; then
    bad "$2: hwbp still running 60 s after the signal: state $(field "$1" State), wchan $(cat "/proc/$1/wchan" 2>/dev/null), syscall $(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null)"
    kill -KILL "$1" 2>/dev/null
  fi
  rc=0; wait "$1" || rc=$?
}
# child_of PID NAME: the pid of PID's child called NAME (no pgrep in the
# guests' busybox).
child_of() {
  local d p
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$(field "$p" PPid)" = "$1" ] && [ "$(field "$p" Name)" = "$2" ] && { echo "$p"; return 0; }
  done
  return 1
}
lines() { if [ -f "$1" ]; then wc -l < "$1"; else echo 0; fi; }
grown() { [ "$(lines "$1")" -ge "$2" ]; }
last() { grep -E '^[0-9]+$' "$1" | tail -n 1; }   # the last count printed
# W hits of counter in histogram FILE
whits() { awk '$1 == "W" && $2 == "counter" { s += $4 } END { print s + 0 }' "$1"; }
# attach_stop NAME TARGET TOUT GROW SECS SIG OUT ERR [OPTION...]: hwbp
# (ptrace, -e counter:-w-, OPTIONs) attached to TARGET until TARGET's
# printed lines (file TOUT) grew by GROW (within SECS), then sent SIG:
# it must exit 0.  Histogram or trace on OUT, diagnostics on ERR.
attach_stop() {
  local name=$1 t=$2 tout=$3 grow=$4 secs=$5 sig=$6 out=$7 err=$8 n rc=0 h
  shift 8
  "$hwbp" trace --backend ptrace -e counter:-w- "$@" -p "$t" > "$out" 2> "$err" &
  h=$!; pids+=("$h")
  poll 10 traced_by "$t" "$h" || bad "$name: hwbp did not attach"
  n=$(lines "$tout")
  poll "$secs" grown "$tout" $((n + grow)) || bad "$name: the target stopped writing"
  kill -"$sig" "$h"
  reap "$h" "$name"
  [ "$rc" = 0 ] || bad "$name: hwbp exited $rc, want 0: $(cat "$err")"
}

# --- 100 threads: every one detached disarmed ------------------------------
# First, while no other target competes for the CPU (in the one-CPU TCG
# guests the main thread of a 100-thread tracee otherwise barely runs).
step "100 threads: every one detached disarmed"
"$tmp/loop" threads > "$tmp/thr.out" & tt=$!; pids+=("$tt")
ntask() { [ "$(ls "/proc/$tt/task" | wc -l)" = 100 ]; }
poll 10 ntask || bad "threads: the target has $(ls "/proc/$tt/task" | wc -l) threads, want 100"
# Three lines of its main thread (30 writes) while traced.
attach_stop threads "$tt" "$tmp/thr.out" 3 20 TERM "$tmp/thr.hist" "$tmp/thr.err"
for task in /proc/"$tt"/task/*; do
  traced_by "$tt/task/${task##*/}" 0 || bad "threads: thread ${task##*/} still traced"
done
[ "$(whits "$tmp/thr.hist")" -ge 20 ] || bad "threads: histogram: $(cat "$tmp/thr.hist")"

# --- -p PID, then SIGINT / SIGTERM to hwbp --------------------------------
step "-p PID, then SIGINT / SIGTERM to hwbp"
declare -A target before
for sig in INT TERM; do
  "$tmp/loop" > "$tmp/p-$sig.out" & t=$!; pids+=("$t"); target[$sig]=$t
  poll 5 grown "$tmp/p-$sig.out" 1 || bad "-p $sig: the target prints nothing"
  before[$sig]=$(last "$tmp/p-$sig.out")
  # At most one line comes between the attach (TracerPid) and the stop
  # that arms it: 21 lines later at least 200 writes were watched.
  attach_stop "-p $sig" "$t" "$tmp/p-$sig.out" 21 10 "$sig" "$tmp/p-$sig.hist" "$tmp/p-$sig.err"
  traced_by "$t" 0 || bad "-p $sig: target still traced: TracerPid $(field "$t" TracerPid)"
  after=$(last "$tmp/p-$sig.out")
  w=$(whits "$tmp/p-$sig.hist")
  # At least the 200 writes seen while armed, at most those made meanwhile.
  [ "$w" -ge 200 ] && [ "$w" -le $((after + 10 - before[$sig])) ] ||
    bad "-p $sig: $w W hits, want 200..$((after + 10 - before[$sig])):$(cat "$tmp/p-$sig.hist")"
done

# --- a stopped target: stays stopped, untraced -----------------------------
step "a stopped target: stays stopped, untraced"
"$tmp/loop" > "$tmp/stopped.out" & ts=$!; pids+=("$ts")
poll 5 grown "$tmp/stopped.out" 1 || bad "stopped: the target prints nothing"
kill -STOP "$ts"
poll 5 state_is "$ts" T || bad "stopped: kill -STOP did not stop the target"
"$hwbp" trace --backend ptrace -e counter:-w- -p "$ts" > "$tmp/stopped.hist" 2>&1 & h=$!; pids+=("$h")
poll 10 traced_by "$ts" "$h" || bad "stopped: hwbp did not attach"
n=$(lines "$tmp/stopped.out")
# Given time to run if hwbp let it (200 writes' worth), it must not.
! poll 1 grown "$tmp/stopped.out" $((n + 1)) || bad "stopped: the target ran while traced"
kill -INT "$h"
reap "$h" stopped
[ "$rc" = 0 ] || bad "stopped: hwbp exited $rc, want 0: $(cat "$tmp/stopped.hist")"
traced_by "$ts" 0 || bad "stopped: target still traced"
poll 5 state_is "$ts" T || bad "stopped: target not stopped after hwbp: $(field "$ts" State)"
[ "$(lines "$tmp/stopped.out")" = "$n" ] || bad "stopped: the target ran"
kill -CONT "$ts"
poll 5 grown "$tmp/stopped.out" $((n + 5)) || bad "stopped: no writes after SIGCONT"

# --- mid-fork: a child forked every 10 writes, SIGINT among them -----------
step "mid-fork: a child forked every 10 writes, SIGINT among them"
"$tmp/loop" fork > "$tmp/fork.out" & tf=$!; pids+=("$tf")
poll 5 grown "$tmp/fork.out" 1 || bad "fork: the target prints nothing"
attach_stop fork "$tf" "$tmp/fork.out" 21 10 INT "$tmp/fork.hist" "$tmp/fork.err"
traced_by "$tf" 0 || bad "fork: target still traced"
# The children's writes count with the parent's (10 a child).
fw=$(awk '$1 == "W" && $3 == "fork_writer" { print $4 }' "$tmp/fork.hist")
[ "${fw:-0}" -ge 190 ] || bad "fork: ${fw:-0} W hits in the children, want >= 190: $(cat "$tmp/fork.hist")"

# --- 5 s later: every -p target alive, untraced, still writing -------------
step "5 s later: every -p target alive, untraced, still writing"
sleep 5
for t in "${target[@]}" "$ts" "$tt" "$tf"; do
  if ! kill -0 "$t" 2>/dev/null || state_is "$t" Z; then
    bad "target $t died: $(wait "$t" 2>&1; echo "status $?")"
  fi
  traced_by "$t" 0 || bad "target $t traced 5 s later"
done
for f in "$tmp"/p-INT.out "$tmp"/p-TERM.out "$tmp"/stopped.out "$tmp"/thr.out "$tmp"/fork.out; do
  n=$(lines "$f")
  poll 5 grown "$f" $((n + 10)) || bad "$f: the target stopped writing"
done

# --- --trace: the events up to SIGINT written, produced = recorded + lost --
step "--trace: the events up to SIGINT written, produced = recorded + lost"
t=${target[INT]}
attach_stop --trace "$t" "$tmp/p-INT.out" 21 10 INT /dev/null "$tmp/tr.err" --trace "$tmp/tr.txt"
ev=$(lines "$tmp/tr.txt")
grep -qx "hwbp: trace: $ev events produced, $ev recorded, 0 lost" "$tmp/tr.err" && [ "$ev" -ge 200 ] ||
  bad "--trace: $ev events in the file, want >= 200 and the summary to say so: $(cat "$tmp/tr.err")"
traced_by "$t" 0 || bad "--trace: target still traced"

# --- -- CMD: the child gets the signal; hits = its writes (both backends) --
step "-- CMD: the child gets the signal; hits = its writes (both backends)"
# Under nohup (SIGHUP ignored when this script started, and so for every
# process it starts: bash cannot undo that) hwbp keeps SIGHUP ignored, as
# nohup asks: then SIGHUP must change nothing, and SIGTERM ends the trace.
hup_ignored=0
while read -r k v; do
  [ "$k" = SigIgn: ] && (( 0x$v & 1 )) && hup_ignored=1
done < /proc/$$/status
[ $hup_ignored = 0 ] || echo "interrupt: SIGHUP is ignored here (nohup): hwbp must ignore it too"
for b in ptrace perf; do
for sig in INT TERM HUP; do
  "$hwbp" trace --backend "$b" -e counter:-w- -- "$tmp/loop" final > "$tmp/c-$b-$sig.out" 2> "$tmp/c-$b-$sig.err" &
  h=$!; pids+=("$h")
  poll 10 grown "$tmp/c-$b-$sig.out" 20 || bad "$b -- CMD $sig: the child prints nothing"
  kill -"$sig" "$h"
  esig=$sig   # the signal that ends the trace
  if [ $sig = HUP ] && [ $hup_ignored = 1 ]; then
    n=$(lines "$tmp/c-$b-$sig.out")
    poll 10 grown "$tmp/c-$b-$sig.out" $((n + 20)) && ! gone "$h" ||
      bad "$b -- CMD HUP under nohup: the trace did not go on"
    esig=TERM
    kill -TERM "$h"
  fi
  reap "$h" "$b -- CMD $esig"
  want=$((128 + $(kill -l "$esig")))
  [ "$rc" = "$want" ] || bad "$b -- CMD $sig: hwbp exited $rc, want $want: $(cat "$tmp/c-$b-$sig.err")"
  final=$(awk '$1 == "final" { print $2 }' "$tmp/c-$b-$sig.out")
  w=$(whits "$tmp/c-$b-$sig.out")
  same "$w" "$final" ||
    bad "$b -- CMD $sig: $w W hits, the child wrote '${final}': $(cat "$tmp/c-$b-$sig.out")"
done
done

# --- --duration: the same clean end, by time -------------------------------
step "--duration: the same clean end, by time"
# -p: hwbp exits 0 after about a second, the target left running and
# untraced, its writes meanwhile counted; -- CMD: the child gets SIGTERM
# (exit 143) and its W hits are exactly the writes it says it made.  A
# new target for each backend: the ptrace backend's slots stay reserved
# in a process it traced (Linux frees a ptrace breakpoint only at exec),
# which perf would then lack.
for b in ptrace perf; do
  "$tmp/loop" > "$tmp/d-$b.loop" & t=$!; pids+=("$t")
  poll 5 grown "$tmp/d-$b.loop" 1 || bad "$b --duration -p: the target prints nothing"
  b0=$(last "$tmp/d-$b.loop")
  rc=0; timeout -s KILL 60 "$hwbp" trace --backend "$b" --duration 1 -e counter:-w- -p "$t" \
    > "$tmp/d-$b.hist" 2> "$tmp/d-$b.err" || rc=$?
  b1=$(last "$tmp/d-$b.loop")
  [ "$rc" = 0 ] || bad "$b --duration -p: exit $rc: $(cat "$tmp/d-$b.err")"
  traced_by "$t" 0 || bad "$b --duration -p: the target is still traced"
  w=$(whits "$tmp/d-$b.hist")
  [ "$w" -ge 1 ] && [ "$w" -le $((b1 + 10 - b0)) ] ||
    bad "$b --duration -p: $w W hits, want 1..$((b1 + 10 - b0))"
  rc=0; timeout -s KILL 60 "$hwbp" trace --backend "$b" --duration 0.5 -e counter:-w- -- "$tmp/loop" final \
    > "$tmp/d-$b.out" 2> "$tmp/d-$b.err" || rc=$?
  [ "$rc" = 143 ] || bad "$b --duration -- CMD: exit $rc, want 143: $(cat "$tmp/d-$b.err")"
  final=$(awk '$1 == "final" { print $2 }' "$tmp/d-$b.out")
  w=$(whits "$tmp/d-$b.out")
  same "$w" "$final" ||
    bad "$b --duration -- CMD: $w W hits, the child wrote '${final}'"
done

# --- -- CMD: raise(SIGSTOP) stops the child until SIGCONT ------------------
step "-- CMD: raise(SIGSTOP) stops the child until SIGCONT"
"$hwbp" trace -e counter:-w- -- "$tmp/loop" stop > "$tmp/stop.out" 2> "$tmp/stop.err" & h=$!
pids+=("$h")
child=
find_child() { child=$(child_of "$h" loop) && [ -n "$child" ]; }
poll 10 find_child || bad "-- CMD stop: no child"
if [ -n "$child" ]; then
  poll 10 stopped "$child" || bad "-- CMD stop: the child did not stop: $(field "$child" State)"
  # Stopped after its 20th write (the line "20"): it must print no more.
  ! poll 1 grown "$tmp/stop.out" 3 || bad "-- CMD stop: the child ran on: $(cat "$tmp/stop.out")"
  kill -CONT "$child"
  poll 10 grown "$tmp/stop.out" 5 || bad "-- CMD stop: no writes after SIGCONT"
fi
kill -INT "$h"
reap "$h" "-- CMD stop"
[ "$rc" = 130 ] || bad "-- CMD stop: hwbp exited $rc, want 130: $(cat "$tmp/stop.err")"

# --- a second signal hurries: the child that ignores SIGINT is killed ------
step "a second signal hurries: the child that ignores SIGINT is killed"
for b in ptrace perf; do
"$hwbp" trace --backend "$b" -e counter:-w- -- "$tmp/loop" ignore > "$tmp/ign-$b.out" 2> "$tmp/ign-$b.err" & h=$!
pids+=("$h")
poll 10 grown "$tmp/ign-$b.out" 20 || bad "$b ignore: the child prints nothing"
kill -INT "$h"
n=$(lines "$tmp/ign-$b.out")
poll 10 grown "$tmp/ign-$b.out" $((n + 10)) || bad "$b ignore: the child did not run on after SIGINT"
kill -INT "$h"
reap "$h" "$b ignore"
[ "$rc" = 137 ] || bad "$b ignore: hwbp exited $rc after a second SIGINT, want 137: $(cat "$tmp/ign-$b.err")"
w=$(whits "$tmp/ign-$b.out"); n=$(last "$tmp/ign-$b.out")
# (the child prints after every 10th write: SIGKILL may land between the
# 10th write, a hit, and its line, so up to n + 10)
[ "$w" -ge "$n" ] && [ "$w" -le $((n + 10)) ] || bad "$b ignore: $w W hits, the child printed $n"
done

# --- the exit status is the child's ----------------------------------------
step "the exit status is the child's"
exit_is() {  # exit_is WANT CMD...
  local want=$1 rc=0; shift
  "$hwbp" trace "$@" > "$tmp/x.out" 2> "$tmp/x.err" || rc=$?
  [ "$rc" = "$want" ] || bad "$*: exit $rc, want $want: $(cat "$tmp/x.err")"
}
exit_is 3 -e counter:-w- -- "$tmp/loop" exit 3
exit_is 0 -e counter:-w- -- "$tmp/loop" exit 0
exit_is 139 -e counter:-w- -- "$tmp/loop" segv
exit_is 137 -e counter:-w- -- "$tmp/loop" kill
exit_is 2 -e counter:-w-   # hwbp's own usage error stays 2

# --- 1,000,000 events with the default rings: every one accounted for ----
step "1,000,000 events with the default rings: every one accounted for"
# Host only: in the TCG guests a million ptrace stops take many minutes
# (linux_cli_check.sh's 4 KiB-ring drain check runs there instead).
# ptrace loses none by construction (the target waits at each hit).  perf
# has no back-pressure: the kernel drops a sample when hwbp's reader is
# not scheduled before a ring fills (seen on a loaded 2-CPU CI machine:
# 2392 of 1,000,000).  So for perf the exact part is checked: the samples
# recorded + the samples the kernel says it dropped = the 1,000,000
# writes, the --trace file has a line per recorded sample, and a drop is
# reported with the way out.
if [ -z "${HWBP_GUEST:-}" ]; then
  for b in perf ptrace; do
    rc=0
    "$hwbp" trace --backend "$b" -e counter:-w- --trace "$tmp/m.txt" -- "$tmp/loop" burst 1000000 \
      > "$tmp/m.out" 2> "$tmp/m.err" || rc=$?
    # perf: the program dead of SIGTRAP (loop_prog raises none), which hwbp
    # explains: the host's hypervisor lost a debug exception's status and
    # Linux took it for INT1 (docs/fidelity.md); perf cannot keep the
    # program alive, so this check cannot run here (ptrace's, next, can).
    if [ "$b" = perf ] && [ "$rc" = 133 ] && grep -q 'the program died of SIGTRAP' "$tmp/m.err"; then
      echo "interrupt: SKIP perf 1000000 events: the program died of SIGTRAP after $(lines "$tmp/m.txt") events: this host's hypervisor lost a debug exception's status (docs/fidelity.md)"
      rm -f "$tmp/m.txt"
      continue
    fi
    [ "$rc" = 0 ] || bad "$b 1000000 events: exit $rc: $(cat "$tmp/m.err")"
    dropped=0
    if [ "$b" = perf ]; then
      d=$(sed -nE 's/^hwbp: trace: the kernel dropped ([0-9]+) of 1000000 samples: .*--buffer-kb.*/\1/p' "$tmp/m.err")
      [ -z "$d" ] || dropped=$d
      [ "$dropped" = 0 ] || echo "interrupt: perf: the kernel dropped $dropped of 1000000 samples (hwbp's reader starved); accounted for"
    fi
    rec=$((1000000 - dropped))
    grep -qx "hwbp: trace: $rec events produced, $rec recorded, 0 lost" "$tmp/m.err" ||
      bad "$b 1000000 events: $(cat "$tmp/m.err")"
    [ "$(lines "$tmp/m.txt")" = "$rec" ] || bad "$b 1000000 events: $(lines "$tmp/m.txt") lines, $rec recorded"
    rm -f "$tmp/m.txt"
  done
fi

# --- perf: samples the kernel dropped are counted, and the way out named ---
step "perf: samples the kernel dropped are counted, and the way out named"
# hwbp is stopped (SIGSTOP) while its child makes NB writes (100000; in
# the TCG guests 20000: each is a trap and a step there) into a
# 4 KiB ring per CPU: nearly all are dropped by the kernel.  Exact: the
# histogram's hits + the dropped samples = the writes (the events' own
# counts), and the message names --buffer-kb.
mkfifo "$tmp/go"
nb=100000
[ -z "${HWBP_GUEST:-}" ] || nb=20000
"$hwbp" trace --backend perf --buffer-kb 4 -e counter:-w- -- "$tmp/loop" burst $nb "$tmp/go" \
  > "$tmp/lost.out" 2> "$tmp/lost.err" & h=$!
pids+=("$h")
child_ready() {  # the child past its exec and let go (the events made): blocked on the FIFO
  c=$(child_of "$h" loop || true)
  [ -n "$c" ] && traced_by "$c" 0 && state_is "$c" S
}
c=
if poll 20 child_ready; then
  kill -STOP "$h"
  poll 10 stopped "$h" || bad "lost: hwbp did not stop"
  printf g > "$tmp/go"
  poll 60 state_is "$c" Z || bad "lost: the child did not finish its writes"
  kill -CONT "$h"
  # Under job control `wait` also returns for the stop (128 + SIGSTOP,
  # 147), whenever bash collects it; then for the exit (bounded: 10 s).
  rc=147 k=0
  while [ "$rc" = 147 ] && [ $k -lt 100 ]; do
    rc=0; wait "$h" || rc=$?
    k=$((k + 1)); [ "$rc" != 147 ] || sleep 0.1
  done
  w=$(whits "$tmp/lost.out")
  if [ "$rc" = 133 ] && grep -q 'the program died of SIGTRAP' "$tmp/lost.err"; then
    # The host's hypervisor lost a debug exception's status and Linux took
    # it for INT1 (docs/fidelity.md; loop_prog raises none): the child died
    # before its NB writes.  The exact part still holds: the samples the
    # kernel produced up to then are the hits plus the drops.
    n=$(sed -n 's/.*the kernel dropped \([0-9]*\) of \([0-9]*\) samples: .*/\2/p' "$tmp/lost.err")
    d=$(sed -n 's/.*the kernel dropped \([0-9]*\) of \([0-9]*\) samples: .*/\1/p' "$tmp/lost.err")
    [ -n "$n" ] && [ -n "$d" ] && [ "$d" -gt 0 ] || bad "lost: no drop reported: $(cat "$tmp/lost.err")"
    [ "$((w + ${d:-0}))" = "${n:-x}" ] || bad "lost: $w hits + ${d:-?} dropped, want ${n:-?}"
    echo "interrupt: SKIP lost: all $nb writes: the program died of SIGTRAP after ${n:-?} samples: this host's hypervisor lost a debug exception's status (docs/fidelity.md); those ${n:-?} are accounted for: $w hits + ${d:-?} dropped"
  else
    [ "$rc" = 0 ] || bad "lost: hwbp exited $rc: $(cat "$tmp/lost.err")"
    d=$(sed -n "s/.*the kernel dropped \\([0-9]*\\) of $nb samples: its rings of 4 KiB per CPU were full; a larger --buffer-kb (at most 65536) keeps more\$/\\1/p" "$tmp/lost.err")
    [ -n "$d" ] && [ "$d" -gt 0 ] || bad "lost: no drop reported: $(cat "$tmp/lost.err")"
    [ "$((w + ${d:-0}))" = $nb ] || bad "lost: $w hits + ${d:-?} dropped, want $nb"
    grep -qx "final $nb" "$tmp/lost.out" || bad "lost: the child's own count"
  fi
else
  bad "lost: the child never got ready"
fi

exit "$fail"
