#!/usr/bin/env bash
# tests/trace/kmod_test.sh HWBP KO KWORK: hwbp_ksym.ko (kernel/linux/,
# built by scripts/kmod for this guest's kernel) loaded and unloaded 100
# times in a row, as root in the guests (scripts/guest-tests).  Each load
# runs the core's self-check inside the kernel (every CPU preset planned,
# encoded and decoded back: kernel/linux/ksym_main.c) and logs one line;
# a failed check refuses the load.  Checks: 100 loads and unloads
# succeed, the kernel log has exactly 100 lines naming as many presets as
# `hwbp caps --list` lists, the module is gone at the end, and CPU 0 has
# as many free debug registers as before (kwork slots: nothing left
# registered).
set -u
hwbp=$1 ko=$2 kwork=$3
fail=0
bad() { echo "FAIL: $*"; fail=1; }
stext=$(awk '$3 == "_stext" { print "0x" $1; exit }' /proc/kallsyms)
slots0=$("$kwork" slots "$stext" | awk '{ print $2 }')
presets=$("$hwbp" caps --list | wc -l)
dmesg -c > /dev/null 2>&1 || true
loads=0
for i in $(seq 100); do
  insmod "$ko" 2> /tmp/insmod.err || { bad "insmod #$i: $(cat /tmp/insmod.err)"; break; }
  rmmod hwbp_ksym 2> /tmp/rmmod.err || { bad "rmmod #$i: $(cat /tmp/rmmod.err)"; break; }
  loads=$((loads + 1))
done
lines=$(dmesg | grep -c "hwbp_ksym: hwbp [0-9.]* core: $presets CPU presets planned, encoded and decoded back")
dmesg | grep 'hwbp_ksym' | sed 's/^\[[^]]*\] //' | sort | uniq -c
[ "$loads" = 100 ] && [ "$lines" = 100 ] ||
  bad "$loads of 100 loads and unloads, $lines self-check lines ($presets presets each)"
grep -q '^hwbp_ksym ' /proc/modules && bad "hwbp_ksym still loaded"
slots1=$("$kwork" slots "$stext" | awk '{ print $2 }')
[ "$slots1" = "$slots0" ] || bad "free debug registers on CPU 0: $slots1 after, $slots0 before"
[ $fail = 0 ] && echo "kmod: 100 loads and unloads, the core's self-check passed in each ($presets presets); $slots1 debug registers free as before"
exit $fail
