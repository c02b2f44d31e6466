#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/deb/dkms_guest_test.sh HWBP KO KWORK: in the x86_64 guest
# (scripts/deb guest), the hwbp_ksym.ko that DKMS built from the
# hwbp-ksym-dkms package for this guest's kernel (tests/deb/packages_test.sh,
# in a Debian 12 root with the kernel's headers: the guest has no
# compiler), installed where DKMS installs it, /lib/modules/KVER/updates/dkms:
#  - depmod, then modprobe hwbp_ksym loads it by name; its self-check line
#    is in the kernel log;
#  - hwbp trace --kernel --backend module finds it and counts pid_max's 20
#    writes (kwork sysctl: one write(2) of /proc/sys/kernel/pid_max each);
#  - modprobe -r unloads it; with the file removed and depmod run again,
#    modprobe no longer finds it.
set -u
hwbp=$1 ko=$2 kwork=$3
fail=0
bad() { echo "FAIL: $*"; fail=1; }
kver=$(uname -r)
dir=/lib/modules/$kver/updates/dkms
mkdir -p "$dir"
cp "$ko" "$dir/hwbp_ksym.ko"
depmod -a || bad "depmod -a"
grep -q 'updates/dkms/hwbp_ksym.ko' "/lib/modules/$kver/modules.dep" || bad "depmod: no hwbp_ksym in modules.dep"
dmesg -c > /dev/null 2>&1 || true
modprobe hwbp_ksym || bad "modprobe hwbp_ksym"
grep -q '^hwbp_ksym ' /proc/modules && echo "modprobe hwbp_ksym: loaded from $dir" || bad "hwbp_ksym not in /proc/modules"
dmesg | grep -q 'hwbp_ksym: hwbp [0-9.]* core: [0-9]* CPU presets planned, encoded and decoded back' ||
  bad "no self-check line in the kernel log: $(dmesg | grep hwbp_ksym)"
[ -d /sys/kernel/debug/hwbp_ksym ] || mount -t debugfs none /sys/kernel/debug 2> /dev/null
"$hwbp" trace --kernel --backend module -e pid_max:-w- -- "$kwork" sysctl 0 20 > /tmp/dkms.out 2> /tmp/dkms.err ||
  bad "hwbp trace --kernel --backend module: $(cat /tmp/dkms.err)"
cat /tmp/dkms.out
n=$(awk '$1 == "W" && $2 == "pid_max" { n += $NF } END { print n + 0 }' /tmp/dkms.out)
[ "$n" = 20 ] && echo "hwbp trace --kernel --backend module: pid_max's 20 writes counted through the DKMS-built module" ||
  bad "pid_max: $n writes counted, want 20"
modprobe -r hwbp_ksym || bad "modprobe -r hwbp_ksym"
grep -q '^hwbp_ksym ' /proc/modules && bad "hwbp_ksym still loaded after modprobe -r"
rm -f "$dir/hwbp_ksym.ko"
depmod -a
modprobe hwbp_ksym 2> /dev/null && bad "modprobe found hwbp_ksym after its removal"
[ $fail = 0 ] && echo "dkms guest: the DKMS-built hwbp_ksym.ko loaded by modprobe ($kver), used by hwbp trace, unloaded"
exit $fail
