#!/usr/bin/env bash
# tests/trace/race_kernel_test.sh HWBP KSYM_KO RACY_KO [KWORK]: hwbp race
# --kernel on the planted race of tests/kmod/hwbp_racy.c (both built by
# scripts/kmod for this guest's kernel), as root in the x86_64 guest
# with 2 CPUs (scripts/guest-tests).  Checks:
#  - refusals, one line each naming the errno: hwbp_ksym.ko not loaded
#    (exit 1, ENODEV), an unknown function (exit 2, ENOENT), no --only
#    (exit 2), a delay over 0.5 ms (exit 2, ERANGE);
#  - unlocked (locked=0): a race between racy_inc_plain() and
#    racy_inc_locked() on racy_counter found (exit 66) within TRIES runs
#    of 4 s at 50 samples a second, 0.3 ms each;
#  - locked (locked=1): silent (exit 0, no race) in 2 runs of 4 s, with
#    samples taken (else the silence would say nothing);
#  - the kernel as before after each run: no kprobe of ours listed, the
#    module's race state empty, CPU 0's free debug registers as before
#    (with KWORK); and after unloading the sampled module mid-run and
#    hwbp_ksym.ko itself mid-run: hwbp race ends (0 or 66, then 1 with
#    the errno), nothing left registered.
# SKIP (77): fewer than 2 CPUs, not x86_64 (the module's race side is
# x86_64's), or not root.
set -u
hwbp=$1 ko=$2 racy=$3 kwork=${4:-}
TRIES=5
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "SKIP: $(nproc) CPU online: a race needs two"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: $(uname -m): hwbp_ksym.ko's race side is x86_64's"; exit 77; }
[ -d /sys/kernel/debug/hwbp_ksym ] || mount -t debugfs none /sys/kernel/debug 2> /dev/null
d=/sys/kernel/debug/hwbp_ksym
funcs=racy_inc_locked,racy_inc_plain
stext=$(awk '$3 == "_stext" { print "0x" $1; exit }' /proc/kallsyms)
slots() { [ -n "$kwork" ] && "$kwork" slots "$stext" | awk '{ print $2 }'; }
slots0=$(slots)
# run ARGS...: hwbp race --kernel ARGS, its status in $rc, stdout in
# /tmp/race.out, stderr in /tmp/race.err
run() {
  "$hwbp" race --kernel "$@" > /tmp/race.out 2> /tmp/race.err
  rc=$?
}
# refused STATUS ERRNO ARGS...: exit STATUS and one line naming ERRNO
refused() {
  local want=$1 e=$2
  shift 2
  run "$@"
  if [ "$rc" != "$want" ] || [ "$(wc -l < /tmp/race.err)" != 1 ] || ! grep -q "$e" /tmp/race.err; then
    bad "race --kernel $*: status $rc (want $want), stderr: $(cat /tmp/race.err)"
  else
    echo "race_kernel: refused as expected ($*): $(cat /tmp/race.err)"
  fi
}
# clean WHEN: nothing of ours left in the kernel
clean() {
  if grep -q 'racy_inc' /sys/kernel/debug/kprobes/list 2> /dev/null; then
    bad "$1: kprobes left: $(grep racy_inc /sys/kernel/debug/kprobes/list)"
  fi
  if [ -e $d/race_ctl ] && ! grep -q '^running 0 sites 0 probes' $d/race_ctl; then
    bad "$1: race_ctl: $(cat $d/race_ctl)"
  fi
  if [ -n "$kwork" ] && [ "$(slots)" != "$slots0" ]; then
    bad "$1: CPU 0's free debug registers $(slots), $slots0 before"
  fi
}

grep -q '^hwbp_ksym ' /proc/modules && rmmod hwbp_ksym
refused 1 ENODEV --only racy_inc_plain --duration 1
insmod "$ko" || { bad "insmod $ko"; exit 1; }
insmod "$racy" locked=0 || { bad "insmod $racy locked=0"; rmmod hwbp_ksym; exit 1; }
refused 2 ENOENT --only no_such_function_hwbp --duration 1
refused 2 EINVAL --duration 1
refused 2 ERANGE --only $funcs --delay 0.6 --duration 1
clean "after the refusals"

# ---- unlocked: the race found
found=0
for t in $(seq $TRIES); do
  run --only $funcs --rate 50 --delay 0.3 --duration 4
  clean "unlocked try $t"
  if [ "$rc" = 66 ]; then
    found=$t
    break
  fi
  [ "$rc" = 0 ] || { bad "unlocked try $t: status $rc: $(cat /tmp/race.err)"; break; }
  echo "race_kernel: unlocked try $t: no race ($(grep -m1 -i sample /tmp/race.err))"
done
if [ "$found" = 0 ]; then
  bad "unlocked: no race found in $TRIES tries of 4 s"
else
  # Both sides named, the counter as the variable.
  if grep -q racy_inc_plain /tmp/race.out && grep -q racy_inc_locked /tmp/race.out &&
     grep -q racy_counter /tmp/race.out; then
    echo "race_kernel: unlocked: race found in try $found of $TRIES:"
  else
    bad "unlocked: the report does not name both functions and racy_counter:"
  fi
  sed 's/^/    /' /tmp/race.out
  sed 's/^/    (stderr) /' /tmp/race.err
fi
rmmod hwbp_racy || bad "rmmod hwbp_racy"

# ---- locked: silent
insmod "$racy" locked=1 || { bad "insmod $racy locked=1"; rmmod hwbp_ksym; exit 1; }
for t in 1 2; do
  run --only $funcs --rate 50 --delay 0.3 --duration 4 --json
  clean "locked try $t"
  samples=$(grep -o '"samples": [0-9]*' /tmp/race.out | awk '{ print $2 }')
  if [ "$rc" != 0 ] || grep -q '"kind": "' /tmp/race.out; then
    bad "locked try $t: status $rc, a race reported:"
    cat /tmp/race.out /tmp/race.err
  elif [ "${samples:-0}" -lt 10 ]; then
    bad "locked try $t: only ${samples:-0} samples in 4 s"
  else
    echo "race_kernel: locked try $t: silent, $samples samples taken"
  fi
done

# ---- the sampled module unloaded mid-run, then hwbp_ksym.ko itself
# sampling: wait (20 s at most) until the run's kprobes are in, then 1 s
sampling() {
  local i
  for i in $(seq 40); do
    grep -q '^running 1' $d/race_ctl 2> /dev/null && break
    sleep 0.5
  done
  sleep 1
}
# unload MOD: rmmod, again while it says EAGAIN (a reference taken for
# a moment: kprobes hold the probed module while they patch its code)
unload() {
  local i
  for i in 1 2 3 4 5; do
    rmmod "$1" 2> /tmp/rmmod.err && return 0
    grep -q 'temporarily unavailable' /tmp/rmmod.err || break
    sleep 0.5
  done
  cat /tmp/rmmod.err
  return 1
}
"$hwbp" race --kernel --only hwbp_racy --rate 50 --delay 0.3 --duration 6 > /tmp/race.out 2> /tmp/race.err &
pid=$!
sampling
unload hwbp_racy || bad "rmmod hwbp_racy mid-run"
wait $pid
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 66 ] || bad "the sampled module unloaded mid-run: status $rc: $(cat /tmp/race.err)"
clean "the sampled module unloaded mid-run"
echo "race_kernel: hwbp_racy unloaded mid-run: status $rc"
insmod "$racy" locked=0 || bad "insmod $racy again"
"$hwbp" race --kernel --only hwbp_racy --rate 50 --delay 0.3 --duration 6 > /tmp/race.out 2> /tmp/race.err &
pid=$!
sampling
unload hwbp_ksym || bad "rmmod hwbp_ksym mid-run"
wait $pid
rc=$?
if [ "$rc" != 1 ] || [ "$(wc -l < /tmp/race.err)" != 1 ]; then
  bad "hwbp_ksym.ko unloaded mid-run: status $rc (want 1), stderr: $(cat /tmp/race.err)"
else
  echo "race_kernel: hwbp_ksym.ko unloaded mid-run: status 1: $(cat /tmp/race.err)"
fi
clean "hwbp_ksym.ko unloaded mid-run"
rmmod hwbp_racy
grep -q '^hwbp_ksym ' /proc/modules && rmmod hwbp_ksym
[ $fail = 0 ] && echo "race_kernel: PASS"
exit $fail
