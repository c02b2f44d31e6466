#!/usr/bin/env bash
# tests/trace/kmod_test.sh HWBP KO KWORK [SYMBOL-OPTIONS...]: hwbp_ksym.ko (kernel/linux/,
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
shift 3
# (SYMBOL-OPTIONS of hwbp trace --kernel, as kernel_test.sh takes them:
# --vmlinux FILE where kallsyms has no data symbols; and a System.map)
symargs=("$@") sysmap=
[ -f ./System.map ] && sysmap=./System.map
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

# ---- The filter and the hits: pid_max's 4 bytes (kernel/pid.c), written
# once per write(2) of /proc/sys/kernel/pid_max (kernel_test.sh says
# why), by address: its kallsyms address, or where kallsyms has no data
# symbols (arm64) its System.map address moved by the KASLR offset.
[ -d /sys/kernel/debug/hwbp_ksym ] || mount -t debugfs none /sys/kernel/debug 2> /dev/null
addr=$(awk '$3 == "pid_max" { print "0x" $1; exit }' /proc/kallsyms)
if [ -z "$addr" ] && [ -n "$sysmap" ]; then
  ms=$(awk '$3 == "_stext" { print $1; exit }' "$sysmap")
  mp=$(awk '$3 == "pid_max" { print $1; exit }' "$sysmap")
  # (bash's 64-bit arithmetic wraps as the addresses do)
  [ -n "$ms" ] && [ -n "$mp" ] && addr=$(printf '0x%x' $(( stext - 0x$ms + 0x$mp )))
fi
[ -n "$addr" ] || bad "no address for pid_max"
d=/sys/kernel/debug/hwbp_ksym
insmod "$ko" || bad "insmod"
# is N WANT: exact, but in the aarch64 TCG guest up to WANT / 5 + 2 over
# (QEMU reports an access twice now and then: kernel_test.sh's is()).
is() {
  [ "$1" = "$2" ] && return 0
  [ "$(uname -m)" = aarch64 ] && [ "$1" -gt "$2" ] && [ "$1" -le $(($2 + $2 / 5 + 2)) ] &&
    { echo "aarch64 (QEMU TCG): $1 hits for $2 accesses"; return 0; }
  return 1
}
hits() { awk -v w="$1" '$1 == w { print $4 }' "$d/ksym_trace_hist"; }
line=$(printf '0x%x/4:-w-' "$addr")
echo "$line" > "$d/ksym_trace_filter" || bad "filter: '$line' refused"
[ "$(cat "$d/ksym_trace_filter")" = "$line" ] || bad "filter reads back '$(cat "$d/ksym_trace_filter")', not '$line'"
"$kwork" sysctl 0 20 > /dev/null
n=$(hits "$line")
cat "$d/ksym_trace_hist"
is "${n:-0}" 20 || bad "20 writes of pid_max: the module counted '${n:-}'"
# The same workload through hwbp trace --kernel in the same boot, with
# the module's watch removed first: two breakpoints on one address would
# both fire on silicon, but QEMU's x86 TCG sets one DR6 bit per access
# (the lowest slot's), so the second one would count nothing.
echo "$line" | sed 's/:-w-$/:---/' > "$d/ksym_trace_filter" || bad "filter: removing '$line' refused"
[ -z "$(cat "$d/ksym_trace_filter")" ] || bad "filter after the removal: '$(cat "$d/ksym_trace_filter")'"
"$hwbp" trace --kernel ${symargs[@]+"${symargs[@]}"} -e pid_max:-w- -- "$kwork" sysctl 0 20 > /tmp/kt.out 2> /tmp/kt.err ||
  bad "hwbp trace --kernel: $(cat /tmp/kt.err)"
m=$(awk '$1 == "W" && $2 == "pid_max" { n += $NF } END { print n + 0 }' /tmp/kt.out)
is "$m" 20 || { cat /tmp/kt.out /tmp/kt.err; bad "the same 20 writes: hwbp trace --kernel counted $m, the module $n"; }
echo "$line" > "$d/ksym_trace_filter" || bad "filter: '$line' refused the second time"
# Bad lines: refused with their errno, the filter as it was.
refuse() {  # refuse ERRTEXT LINE
  local err
  err=$( { printf '%s\n' "$2" > "$d/ksym_trace_filter"; } 2>&1 )
  case $err in *"$1"*) ;; *) bad "filter '$2': '$err', want '$1'" ;; esac
  [ "$(cat "$d/ksym_trace_filter")" = "$line" ] || bad "after '$2' the filter is '$(cat "$d/ksym_trace_filter")'"
}
refuse 'Invalid argument' 'garbage'
refuse 'Invalid argument' "$(printf '0x%x' "$addr"):-w-"
refuse 'Invalid argument' "$(printf '0x%x/4:rw' "$addr")"
refuse 'Invalid argument' "$(printf '0x%x/0:-w-' "$addr")"
refuse 'Invalid argument' "$(printf '0x%x/4:rwx' "$addr")"
refuse 'No such file or directory' 'pid_max:-w-'
refuse 'No such file or directory' "$(printf '0x%x/8:---' "$addr")"
refuse 'File exists' "$line"
refuse 'Bad address' '0x1000/4:-w-'
# rmmod with the watch armed: everything unregistered.
rmmod hwbp_ksym || bad "rmmod with a watch armed"
slots2=$("$kwork" slots "$stext" | awk '{ print $2 }')
[ "$slots2" = "$slots0" ] || bad "after rmmod with a watch armed: $slots2 debug registers free, $slots0 before"
[ $fail = 0 ] && echo "kmod: the filter's watch counted the 20 writes as hwbp trace --kernel did; 9 bad lines refused, the filter unchanged; rmmod while armed left $slots2 registers free"
exit $fail
