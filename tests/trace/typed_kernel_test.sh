#!/usr/bin/env bash
# tests/trace/typed_kernel_test.sh HWBP KWORK DWARF_DIR: a kernel variable
# named in C, typed once from the running kernel's BTF (a cast: Debian's
# 6.1 BTF types no global) and once from its DWARF (--vmlinux FILE, libdw,
# no cast): the same watch, the same exact counts, the same histogram.
# As root, on the kernel of DWARF_DIR/vmlinux-$(uname -r): the meson
# suite 'hostbp', run in scripts/guest-hostbp's x86_64 guest (Debian's
# amd64 kernel, a dynamically linked hwbp with libdw and libbpf), which
# packs that file (scripts/kernel-syms --dwarf x86_64: the -dbg package's
# vmlinux with its DWARF's types) into the build directory's
# kernel-dwarf/.  Elsewhere -- no such file for this kernel, not root, no
# BTF, a build without libdw -- it says SKIP and why (exit 77).
#
# The count: init_net.ipv4.sysctl_ip_default_ttl (a u8) is written once
# per write(2) of /proc/sys/net/ipv4/ip_default_ttl, by
# proc_dou8vec_minmax() (kernel/sysctl.c, 6.1: WRITE_ONCE(*data, val)
# after the value parsed; the handler of the "ip_default_ttl" entry of
# net/ipv4/sysctl_net_ipv4.c), and by nothing else while the test runs:
# `kwork ttl 40` makes 40 writes, the last one the value it read
# (tests/trace/kernel_test.sh section 8b says more).  A -w- watch: one
# row, W ... proc_dou8vec_minmax 40, in both traces.  The histograms
# differ only by the text of the names as written, the cast's
# "(struct net)", and the padding of the Symbol column it widens: each
# row's fields are compared with that name's text replaced.
set -u
hwbp=$1 kwork=$2 dir=$3
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "--kernel traces need root here"
vmlinux=$dir/vmlinux-$(uname -r)
[ -f "$vmlinux" ] ||
  skip "no $vmlinux: the running kernel $(uname -r) is not the one whose DWARF scripts/guest-hostbp packs (scripts/kernel-syms --dwarf x86_64)"
[ -r /sys/kernel/btf/vmlinux ] || skip "no /sys/kernel/btf/vmlinux"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say_fail() { echo "FAIL: $*"; fail=1; }
show() { echo "--- $1:"; cat "$tmp/$1.out" "$tmp/$1.err"; }
trace() {  # trace NAME OPTIONS...: hwbp trace --kernel, output in $tmp/NAME.{out,err}, status echoed
  local name=$1; shift
  local st=0
  "$hwbp" trace --kernel "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" || st=$?
  echo "$st"
}
btf_e='(struct net)init_net.ipv4.sysctl_ip_default_ttl'
dw_e='init_net.ipv4.sysctl_ip_default_ttl'

# --dry-run --json: the watch's address ("addr" of the first watch).
json_addr() {
  sed -n 's/^{"cpu":"[^"]*","watches":\[{"name":"[^"]*","access":"[^"]*","addr":"\(0x[0-9a-f]*\)".*/\1/p' "$1"
}
st_b=$(trace btfdry --dry-run --json -e "$btf_e:-w-")
st_d=$(trace dwdry --dry-run --json --vmlinux "$vmlinux" -e "$dw_e:-w-")
if grep -q "EOPNOTSUPP" "$tmp/dwdry.err"; then
  show dwdry; skip "this hwbp reads no DWARF (a build without libdw)"
fi
a_b=$(json_addr "$tmp/btfdry.out") a_d=$(json_addr "$tmp/dwdry.out")
# (and the address itself: init_net's in kallsyms plus the member's
# offset in the BTF, by kwork's own reader of it, not libbpf)
off=$("$kwork" btfoff net ipv4.sysctl_ip_default_ttl | awk '{ print $4 }')
base=$(awk '$3 == "init_net" { print "0x" $1; exit }' /proc/kallsyms)
want=""
[ -z "$base" ] || [ -z "$off" ] || want=$(printf '0x%x' $((base + off)))
if [ "$st_b" = 0 ] && [ "$st_d" = 0 ] && [ -n "$a_b" ] && [ "$a_b" = "$a_d" ] && [ "$a_b" = "$want" ]; then
  echo "--dry-run --json: BTF and DWARF both at $a_b = init_net ($base) + $off"
else
  show btfdry; show dwdry
  say_fail "--dry-run --json: status $st_b (BTF) $st_d (DWARF), addr '$a_b' (BTF) '$a_d' (DWARF), want init_net '$base' + '$off' = '$want'"
fi

# The two traces, 40 writes each.
st_b=$(trace btf -e "$btf_e:-w-" -- "$kwork" ttl 40)
st_d=$(trace dw --vmlinux "$vmlinux" -e "$dw_e:-w-" -- "$kwork" ttl 40)
show btf; show dw
# Each source said where the watch is, and which source typed it.
grep -qxF "hwbp: trace: -e '$btf_e:-w-': watching $a_b, 1 byte (u8, from BTF)" "$tmp/btf.err" ||
  say_fail "BTF: no note 'watching $a_b, 1 byte (u8, from BTF)'"
grep -qxF "hwbp: trace: -e '$dw_e:-w-': watching $a_b, 1 byte (u8, from DWARF)" "$tmp/dw.err" ||
  say_fail "DWARF: no note 'watching $a_b, 1 byte (u8, from DWARF)'"
# The histogram's lines (kwork's own "ttl T writes 40" is the same in
# both), the BTF one's name written as the DWARF one's, fields joined by
# one blank.
norm() {
  awk -v from="$2" -v to="$3" '{ i = index($0, from); if (i) $0 = substr($0, 1, i - 1) to substr($0, i + length(from))
    $1 = $1; print }' "$1"
}
norm "$tmp/btf.out" "$btf_e" "$dw_e" > "$tmp/btf.norm"
norm "$tmp/dw.out" "$dw_e" "$dw_e" > "$tmp/dw.norm"
# (the row of each, as printed: KIND NAME FUNCTION COUNT)
row_b=$(grep -F " $btf_e " "$tmp/btf.out" | awk '{ $1 = $1; print }')
row_d=$(grep -F " $dw_e " "$tmp/dw.out" | awk '{ $1 = $1; print }')
if [ "$st_b" = 0 ] && [ "$st_d" = 0 ] && [ "$row_b" = "W $btf_e proc_dou8vec_minmax 40" ] &&
   [ "$row_d" = "W $dw_e proc_dou8vec_minmax 40" ] && cmp -s "$tmp/btf.norm" "$tmp/dw.norm"; then
  echo "40 writes: '$row_b' (BTF) and '$row_d' (DWARF), the same histogram"
else
  diff "$tmp/btf.norm" "$tmp/dw.norm"
  say_fail "status $st_b (BTF) $st_d (DWARF); rows '$row_b' and '$row_d' (want W NAME proc_dou8vec_minmax 40 each, the histograms the same)"
fi

# Per-CPU variables: one watch per CPU, at each CPU's copy, whichever
# source types them: BTF (it types every per-CPU variable), the vmlinux's
# DWARF (which locates runqueues as any global: the symbol table says it
# is per-CPU), a cast, or the plain name.  The same "addr" list, one a
# CPU, the same length.
copies() {  # copies FILE: "ADDR/LEN" of each watch of the dry run's JSON
  # (a watch's own "addr" and "len" are followed by "tls"; its pieces'
  # are not)
  grep -o '"addr":"0x[0-9a-f]*","len":[0-9]*,"tls"' "$1" |
    sed 's/"addr":"\(0x[0-9a-f]*\)","len":\([0-9]*\),"tls"/\1\/\2/' | tr '\n' ' '
}
pc_case() {  # pc_case NAME OPTIONS...: a dry run's copies
  local st
  st=$(trace "$1" --dry-run --json "${@:2}")
  [ "$st" = 0 ] || { show "$1"; say_fail "$1: status $st"; }
  copies "$tmp/$1.out"
}
n=$(nproc)
rq_b=$(pc_case rqbtf -e 'runqueues.nr_running:-w-')
rq_d=$(pc_case rqdw --vmlinux "$vmlinux" -e 'runqueues.nr_running:-w-')
pc_p=$(pc_case pcplain -e 'process_counts:-w-')
pc_c=$(pc_case pccast -e '(unsigned long)process_counts:-w-')
if [ "$(wc -w <<< "$rq_b")" = "$n" ] && [ "$rq_b" = "$rq_d" ] && [[ $rq_b == *0x*/4* ]] &&
   [ "$(wc -w <<< "$pc_p")" = "$n" ] && [ "$pc_p" = "$pc_c" ] && [[ $pc_p == *0x*/8* ]]; then
  echo "per-CPU, $n CPU(s): runqueues.nr_running at $rq_b(BTF and DWARF), process_counts at $pc_p(plain and cast)"
else
  show rqbtf; show rqdw; show pcplain; show pccast
  say_fail "per-CPU copies: runqueues.nr_running '$rq_b' (BTF) '$rq_d' (DWARF), process_counts '$pc_p' (plain) '$pc_c' (cast), want $n each, equal"
fi
[ "$fail" = 0 ] && echo "typed kernel names: BTF and DWARF agree"
exit "$fail"
