#!/usr/bin/env bash
# hwbp trace -- CMD on this machine's real debug registers (ptrace and perf):
# builds tests/trace/lackey_prog.c as a PIE and runs the checks of
# linux_cli_check.sh (shared with the Linux guest stage) on it.
set -euo pipefail
hwbp=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O0 -g -o "$tmp/prog" "$src"
sh "$(dirname "$0")/linux_cli_check.sh" "$hwbp" "$tmp/prog"
# Without CAP_BPF (an unprivileged user: Debian sets
# kernel.unprivileged_bpf_disabled) the bpf backend says why and counts
# perf's samples instead, with the same histogram.  As root only (the
# user is made with setpriv; CI runs as root).
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
  chmod 755 "$tmp" "$tmp/prog"
  st=0
  setpriv --reuid=65534 --regid=65534 --clear-groups "$hwbp" trace --backend bpf \
    -e 'counter:-w-' -- "$tmp/prog" > "$tmp/nobpf.out" 2> "$tmp/nobpf.err" || st=$?
  if [ $st != 0 ] || ! grep -q "counting in the kernel is not possible (.*EPERM)): perf samples are counted instead" "$tmp/nobpf.err" ||
     ! grep -Eq '^W +counter +bump +1000$' "$tmp/nobpf.out"; then
    echo "FAIL: bpf without CAP_BPF: status $st"; cat "$tmp/nobpf.out" "$tmp/nobpf.err"; exit 1
  fi
  echo "bpf without CAP_BPF: perf samples instead, said"
fi
