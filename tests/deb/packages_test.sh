#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/deb/packages_test.sh DEBDIR OUTDIR: hwbp's .debs (scripts/deb build)
# installed into a clean Debian 12 root (scripts/deb-root: a fresh copy of
# the cached tarball, chroot, as root), and used there as a user would:
#  - apt-get installs every package from DEBDIR (no download: the root
#    holds their dependencies);
#  - a program per library builds against libhwbp-dev with pkg-config
#    alone, linked shared and statically, and runs (tests/api/consumer.sh
#    with the system's pkg-config files);
#  - hwbp --version says the package's version; hwbp trace --demo runs;
#  - man hwbp-trace and man 3 hwbp_plan render (man-db);
#  - hwbp-ksym-dkms: its postinst had DKMS build hwbp_ksym.ko for the
#    kernel whose headers the root has (the x86_64 guest's, Debian 6.1):
#    dkms status says installed, the module's vermagic names that kernel;
#    it is copied to OUTDIR/hwbp_ksym.ko for the guest (scripts/deb
#    guest); then dkms remove --all and apt-get purge leave /lib/modules,
#    /var/lib/dkms and /usr/src as they were before the install;
#  - apt-get purge of every package leaves no file of hwbp.
# Exit 0 when all hold, 1 otherwise (each failure named), 2 usage,
# 125 when the root cannot be made (scripts/deb-root says why).
set -uo pipefail
[ $# = 2 ] || { echo "usage: $0 DEBDIR OUTDIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
debdir=$(cd "$1" && pwd) out=$2
mkdir -p "$out" && out=$(cd "$out" && pwd)
[ "$(id -u)" = 0 ] || { echo "hwbp: packages_test: needs root (chroot)" >&2; exit 2; }
read -r tarball abi < <("$top/scripts/deb-root") || exit 125
[ -n "${abi:-}" ] || exit 125

fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
root=$(mktemp -d /tmp/hwbp-debroot.XXXXXX)
cleanup() {
  umount -R "$root/dev" 2>/dev/null
  umount "$root/proc" 2>/dev/null
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT
tar -xf "$tarball" -C "$root" || { echo "hwbp: packages_test: cannot unpack $tarball" >&2; exit 125; }
mount -t proc proc "$root/proc"
# (apt-get and dpkg want /dev/pts and /dev/null: the host's, bound)
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"; }
snapshot() { in_root find /lib/modules /var/lib/dkms /usr/src -xdev 2>/dev/null | sort; }

version=$(dpkg-deb -f "$(ls "$debdir"/hwbp_*.deb | head -n 1)" Version)
mkdir -p "$root/debs"
for d in "$debdir"/*.deb; do
  case $d in *-dbgsym_*) ;; *) cp "$d" "$root/debs/" ;; esac
done
# The root has the kernel's headers but not its image, whose postinst
# would have run depmod: run it, so that the module indexes exist before
# as they do on a system with the kernel (dkms runs depmod again).
in_root depmod -a "$abi" 2> /dev/null
snapshot > "$out/before.list"
echo "== apt-get install /debs/*.deb ($(ls "$root/debs" | wc -l) packages, version $version)"
if in_root sh -c 'apt-get install -y /debs/*.deb' > "$out/install.log" 2>&1; then
  ok "installed: $(in_root dpkg-query -W -f '${Package} ' libhwbp0 libhwbp-sim0 libhwbp-trace0 libhwbp-dev hwbp hwbp-doc hwbp-ksym-dkms)"
else
  tail -30 "$out/install.log"; bad "apt-get install"
fi

# A consumer of each library, with pkg-config alone.
cp "$top/tests/api/consumer.sh" "$root/tmp/consumer.sh"
if in_root bash /tmp/consumer.sh /usr > "$out/consumer.log" 2>&1; then
  ok "consumers built with pkg-config (shared and static) and ran: $(grep -c . "$out/consumer.log") lines"
else
  cat "$out/consumer.log"; bad "consumer programs against libhwbp-dev"
fi

v=$(in_root hwbp --version | head -n 1)
case $v in *"${version%%+*}"*) ok "hwbp --version: $v" ;; *) bad "hwbp --version says '$v', the package is $version" ;; esac
if in_root hwbp trace --demo > "$out/demo.out" 2>&1 && grep -q '^jiffies: [0-9]* functions' "$out/demo.out"; then
  ok "hwbp trace --demo: $(grep -c . "$out/demo.out") lines"
else
  cat "$out/demo.out"; bad "hwbp trace --demo"
fi
for page in "hwbp-trace" "3 hwbp_plan"; do
  # shellcheck disable=SC2086
  if in_root env MANWIDTH=80 man -P cat $page > "$out/man.out" 2> "$out/man.err" && [ -s "$out/man.out" ] &&
     ! grep -q . "$out/man.err"; then
    ok "man $page: $(wc -l < "$out/man.out") lines"
  else
    cat "$out/man.err"; bad "man $page"
  fi
done

# DKMS: the postinst built the module for the root's kernel headers.
status=$(in_root dkms status hwbp-ksym 2>&1)
echo "dkms status: $status"
case $status in
  *"$abi"*installed*) ok "dkms built and installed hwbp-ksym for $abi" ;;
  *) bad "dkms status: '$status' (want hwbp-ksym installed for $abi)"; cat "$root"/var/lib/dkms/hwbp-ksym/*/build/make.log 2>/dev/null | tail -20 ;;
esac
ko=$(in_root find "/lib/modules/$abi/updates/dkms" -name 'hwbp_ksym.ko*' 2>/dev/null | head -n 1)
if [ -n "$ko" ]; then
  vm=$(in_root modinfo -F vermagic "$ko")
  case $vm in "$abi "*) ok "$ko: vermagic $vm" ;; *) bad "$ko: vermagic '$vm', not $abi" ;; esac
  case $ko in
    *.ko) cp "$root$ko" "$out/hwbp_ksym.ko" ;;
    *.ko.xz) xz -dc "$root$ko" > "$out/hwbp_ksym.ko" ;;
    *.ko.zst) zstd -qdc "$root$ko" > "$out/hwbp_ksym.ko" ;;
    *) bad "$ko: a compression this test does not know" ;;
  esac
else
  bad "no hwbp_ksym.ko under /lib/modules/$abi/updates/dkms"
fi
in_root dkms remove "hwbp-ksym/${version%%-*}" --all > "$out/dkms-remove.log" 2>&1 || { cat "$out/dkms-remove.log"; bad "dkms remove"; }
in_root apt-get purge -y hwbp-ksym-dkms > "$out/purge-dkms.log" 2>&1 || { tail "$out/purge-dkms.log"; bad "purge hwbp-ksym-dkms"; }
snapshot > "$out/after.list"
if diff "$out/before.list" "$out/after.list" > "$out/leftover.diff" &&
   ! in_root grep -rl hwbp_ksym "/lib/modules/$abi" --include='modules.*' > "$out/leftover.diff"; then
  ok "dkms remove and purge: /lib/modules, /var/lib/dkms and /usr/src as before the install"
else
  cat "$out/leftover.diff"; bad "left behind by hwbp-ksym-dkms (above)"
fi

# Purge the rest: no file of hwbp stays.
in_root apt-get purge -y libhwbp0 libhwbp-sim0 libhwbp-trace0 libhwbp-dev hwbp hwbp-doc > "$out/purge.log" 2>&1 ||
  { tail "$out/purge.log"; bad "purge"; }
left=$(in_root sh -c 'ls -d /usr/include/hwbp /usr/bin/hwbp /usr/share/doc/hwbp* /usr/lib/*/libhwbp* /usr/lib/*/hwbp /usr/share/man/man*/hwbp* 2>/dev/null')
[ -z "$left" ] && ok "purged: no file of hwbp left" || bad "left after purge: $left"

[ $fail = 0 ] && echo "packages: every check passed (a clean Debian 12 root, kernel headers $abi)"
exit $fail
